/**
 * The operator's knobs a scenario's `settings` may turn, beside the in-flight limits and node
 * lifecycle timings of scenario.ts (docs/sim.md "Knobs"):
 *
 * ```yaml
 * settings:
 *   controllers:                       # kube-controller-manager --concurrent-*-syncs
 *     deployment: { concurrentSyncs: 50 }
 *   apiLatency:                        # how long a request holds its in-flight seat (api/request-latency.ts)
 *     { read: 2ms, write: 5ms, sigma: 0.3, perInflight: 0.2ms }
 * ```
 */
import type { RequestLatency } from '../api/request-latency.js';

/**
 * Each controller's worker count: its kube-controller-manager flag and the v1.34 default
 * (cmd/kube-controller-manager/app/options). The disruption controller runs one worker and has no
 * flag upstream. The taint eviction controller is left out: it works from per-pod timers here.
 */
export const CONTROLLER_WORKERS = {
  deployment: { flag: '--concurrent-deployment-syncs', default: 5 },
  replicaset: { flag: '--concurrent-replicaset-syncs', default: 5 },
  statefulset: { flag: '--concurrent-statefulset-syncs', default: 5 },
  daemonset: { flag: '--concurrent-daemonset-syncs', default: 2 },
  job: { flag: '--concurrent-job-syncs', default: 5 },
  cronjob: { flag: '--concurrent-cron-job-syncs', default: 5 },
  endpointslice: { flag: '--concurrent-service-endpoint-syncs', default: 5 },
  garbagecollector: { flag: '--concurrent-gc-syncs', default: 20 },
  horizontalpodautoscaling: { flag: '--concurrent-horizontal-pod-autoscaler-syncs', default: 5 },
  ttlafterfinished: { flag: '--concurrent-ttl-after-finished-syncs', default: 5 },
  disruption: { flag: '(none: one worker)', default: 1 },
} as const;

export type ControllerName = keyof typeof CONTROLLER_WORKERS;

/** Every controller at its v1.34 default worker count. */
export function defaultControllerWorkers(): Record<ControllerName, number> {
  return Object.fromEntries(Object.entries(CONTROLLER_WORKERS).map(([k, v]) => [k, v.default])) as Record<
    ControllerName,
    number
  >;
}

export interface Knobs {
  /** worker count per controller (every controller present, defaults filled in) */
  controllers: Record<ControllerName, number>;
  /** undefined: requests are answered as soon as the store is */
  apiLatency?: RequestLatency;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * settings.controllers and settings.apiLatency, checked; `fail(path, message)` throws the
 * scenario's error, `duration(value, path)` reads a duration as scenario.ts does.
 */
export function parseKnobs(
  s: Obj,
  fail: (path: string, message: string) => never,
  duration: (v: unknown, path: string) => number,
  maxWorkers: number,
): Knobs {
  const controllers = defaultControllerWorkers();
  if (s.controllers !== undefined) {
    if (!isObj(s.controllers))
      fail('settings.controllers', 'expected a mapping like {deployment: {concurrentSyncs: 10}}');
    for (const [name, v] of Object.entries(s.controllers)) {
      const w = `settings.controllers.${name}`;
      if (!(name in CONTROLLER_WORKERS))
        fail(w, `unknown controller (expected one of ${Object.keys(CONTROLLER_WORKERS).join(', ')})`);
      if (!isObj(v) || Object.keys(v).some((k) => k !== 'concurrentSyncs'))
        fail(w, 'expected {concurrentSyncs: N}');
      const n = v.concurrentSyncs;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > maxWorkers)
        fail(`${w}.concurrentSyncs`, `expected an integer from 1 to ${maxWorkers}, got ${JSON.stringify(n)}`);
      controllers[name as ControllerName] = n as number;
    }
  }
  let apiLatency: RequestLatency | undefined;
  if (s.apiLatency !== undefined) {
    const a = s.apiLatency;
    const w = 'settings.apiLatency';
    if (!isObj(a)) fail(w, 'expected {read: 2ms, write: 5ms, sigma: 0.3, perInflight: 0.2ms}');
    const known = ['read', 'write', 'sigma', 'perInflight'];
    for (const k of Object.keys(a))
      if (!known.includes(k)) fail(w, `unknown field "${k}" (expected ${known.join(', ')})`);
    const sigma = a.sigma === undefined ? 0.3 : a.sigma;
    if (typeof sigma !== 'number' || !Number.isFinite(sigma) || sigma < 0 || sigma > 3)
      fail(`${w}.sigma`, `expected a number from 0 to 3, got ${JSON.stringify(sigma)}`);
    const ms = (k: string) => (a[k] === undefined ? 0 : duration(a[k], `${w}.${k}`));
    apiLatency = {
      readMs: ms('read'),
      writeMs: ms('write'),
      sigma: sigma as number,
      perInflightMs: ms('perInflight'),
    };
  }
  return { controllers, apiLatency };
}

/** A usage curve: `start` at the container start, growing `perMinute`, capped at `max` (bytes or a count). */
export interface UsageCurve {
  start: number;
  perMinute: number;
  max?: number;
}

/**
 * `usage:` — what the pods a rule selects use, as the kubelet's eviction manager observes it
 * (its summary API): memory working set, ephemeral storage (root fs + logs + emptyDir), processes.
 * A pod no rule selects uses its requests. `noise` is a seeded relative jitter per observation.
 */
export interface UsageRule {
  matchLabels: Record<string, string>;
  memory?: UsageCurve;
  ephemeralStorage?: UsageCurve;
  pids?: UsageCurve;
  noise: number;
}

/** settings.kubelet: the eviction manager's flags (KubeletConfiguration field names). */
export interface KubeletEvictionSettings {
  evictionHard: string;
  evictionSoft: string;
  evictionSoftGracePeriod: string;
  evictionMinimumReclaim: string;
  evictionPressureTransitionPeriodMs: number;
  /** seconds; the grace period a soft eviction gives a pod at most (hard evictions give none) */
  evictionMaxPodGracePeriod: number;
  /** how often the eviction manager observes (housekeeping-interval) */
  housekeepingIntervalMs: number;
  /** the node's pid_max (pid.available = maxPids - processes) */
  maxPids: number;
  /** what the node's own daemons use (kube-reserved + system-reserved in practice), bytes */
  systemMemory: number;
}

/** The Linux defaults: evictionHard memory.available<100Mi, nodefs.available<10%, imagefs.available<15%. */
export const DEFAULT_KUBELET: KubeletEvictionSettings = {
  evictionHard: 'memory.available<100Mi,nodefs.available<10%,imagefs.available<15%',
  evictionSoft: '',
  evictionSoftGracePeriod: '',
  evictionMinimumReclaim: '',
  evictionPressureTransitionPeriodMs: 300_000,
  evictionMaxPodGracePeriod: 0,
  housekeepingIntervalMs: 10_000,
  maxPids: 32_768,
  systemMemory: 0,
};

/** settings.kubelet, over the defaults. */
export function parseKubeletSettings(
  v: unknown,
  fail: (path: string, message: string) => never,
  duration: (v: unknown, path: string) => number,
  quantity: (v: unknown, path: string) => number,
): KubeletEvictionSettings {
  const w = 'settings.kubelet';
  if (!isObj(v)) fail(w, 'expected a mapping like {evictionHard: "memory.available<100Mi"}');
  const out = { ...DEFAULT_KUBELET };
  for (const [k, x] of Object.entries(v)) {
    switch (k) {
      case 'evictionHard':
      case 'evictionSoft':
      case 'evictionSoftGracePeriod':
      case 'evictionMinimumReclaim':
        if (typeof x !== 'string') fail(`${w}.${k}`, 'expected a string like "memory.available<100Mi"');
        out[k] = x as string;
        break;
      case 'evictionPressureTransitionPeriod':
        out.evictionPressureTransitionPeriodMs = duration(x, `${w}.${k}`);
        break;
      case 'housekeepingInterval':
        out.housekeepingIntervalMs = duration(x, `${w}.${k}`);
        if (out.housekeepingIntervalMs < 100) fail(`${w}.${k}`, 'must be at least 100ms');
        break;
      case 'evictionMaxPodGracePeriod':
        if (typeof x !== 'number' || !Number.isInteger(x) || x < 0)
          fail(`${w}.${k}`, `expected seconds (an integer >= 0), got ${JSON.stringify(x)}`);
        out.evictionMaxPodGracePeriod = x as number;
        break;
      case 'maxPids':
        if (typeof x !== 'number' || !Number.isInteger(x) || x < 1 || x > 4_194_304)
          fail(`${w}.${k}`, `expected an integer from 1 to 4194304, got ${JSON.stringify(x)}`);
        out.maxPids = x as number;
        break;
      case 'systemMemory':
        out.systemMemory = quantity(x, `${w}.${k}`);
        break;
      default:
        fail(
          `${w}.${k}`,
          'unknown field (expected evictionHard, evictionSoft, evictionSoftGracePeriod, evictionMinimumReclaim, evictionPressureTransitionPeriod, evictionMaxPodGracePeriod, housekeepingInterval, maxPids, systemMemory)',
        );
    }
  }
  return out;
}

/** `usage:` rules. */
export function parseUsage(
  raw: unknown,
  fail: (path: string, message: string) => never,
  quantity: (v: unknown, path: string) => number,
): UsageRule[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) fail('usage', 'expected a list');
  return (raw as unknown[]).map((r, i) => {
    const w = `usage[${i}]`;
    if (!isObj(r)) fail(w, 'expected {match: {label: value}, memory: {start: 200Mi, perMinute: 50Mi}, …}');
    const known = ['match', 'memory', 'ephemeralStorage', 'pids', 'noise'];
    for (const k of Object.keys(r))
      if (!known.includes(k)) fail(w, `unknown field "${k}" (expected ${known.join(', ')})`);
    if (r.match !== undefined && !isObj(r.match)) fail(`${w}.match`, 'expected a mapping of pod labels');
    const curve = (k: string): UsageCurve | undefined => {
      const c = r[k];
      if (c === undefined) return undefined;
      if (typeof c === 'string' || typeof c === 'number')
        return { start: quantity(c, `${w}.${k}`), perMinute: 0 };
      if (!isObj(c)) fail(`${w}.${k}`, 'expected a quantity or {start: 200Mi, perMinute: 50Mi, max: 2Gi}');
      for (const f of Object.keys(c))
        if (!['start', 'perMinute', 'max'].includes(f))
          fail(`${w}.${k}`, `unknown field "${f}" (expected start, perMinute, max)`);
      return {
        start: c.start === undefined ? 0 : quantity(c.start, `${w}.${k}.start`),
        perMinute: c.perMinute === undefined ? 0 : quantity(c.perMinute, `${w}.${k}.perMinute`),
        max: c.max === undefined ? undefined : quantity(c.max, `${w}.${k}.max`),
      };
    };
    const noise = r.noise === undefined ? 0 : r.noise;
    if (typeof noise !== 'number' || !(noise >= 0 && noise <= 1))
      fail(`${w}.noise`, 'expected a number from 0 to 1');
    return {
      matchLabels: Object.fromEntries(Object.entries((r.match ?? {}) as Obj).map(([k, v]) => [k, String(v)])),
      memory: curve('memory'),
      ephemeralStorage: curve('ephemeralStorage'),
      pids: curve('pids'),
      noise: noise as number,
    };
  });
}

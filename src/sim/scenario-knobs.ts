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
import { checkKnownFields } from '../util/scenario-input.js';

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
    checkKnownFields(s.controllers, Object.keys(CONTROLLER_WORKERS), 'settings.controllers', fail);
    for (const [name, v] of Object.entries(s.controllers)) {
      const w = `settings.controllers.${name}`;
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
    checkKnownFields(a, ['read', 'write', 'sigma', 'perInflight'], w, fail);
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

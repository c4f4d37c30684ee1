/**
 * The kubelet's settings a scenario holds (docs/sim.md "Node-pressure eviction"): `settings.kubelet`
 * (the eviction manager's KubeletConfiguration fields) and `usage:` (what pods use, as the kubelet's
 * summary API reports it). The scenario parser (src/sim/scenario.ts) calls these readers with its
 * own error and duration functions, so this folder does not import the simulation.
 */

import { checkKnownFields, failAt, parseDuration, ScenarioError } from '../util/scenario-input.js';

/** a log-normal latency: its median and the sigma of its logarithm */
export interface Latency {
  medianMs: number;
  sigma: number;
}

/** how long a run-to-completion pod runs and how likely it fails (scenario `runs:`) */
export interface RunRule {
  /** pod labels that select the rule (matchLabels); empty selects every pod */
  matchLabels: Record<string, string>;
  duration: Latency;
  failureProbability: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

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

/** The fields of settings.kubelet (KubeletConfiguration's names). */
const KUBELET_FIELDS = [
  'evictionHard',
  'evictionSoft',
  'evictionSoftGracePeriod',
  'evictionMinimumReclaim',
  'evictionPressureTransitionPeriod',
  'evictionMaxPodGracePeriod',
  'housekeepingInterval',
  'maxPids',
  'systemMemory',
];

/** settings.kubelet, over the defaults. */
export function parseKubeletSettings(
  v: unknown,
  fail: (path: string, message: string) => never,
  duration: (v: unknown, path: string) => number,
  quantity: (v: unknown, path: string) => number,
): KubeletEvictionSettings {
  const w = 'settings.kubelet';
  if (!isObj(v)) fail(w, 'expected a mapping like {evictionHard: "memory.available<100Mi"}');
  checkKnownFields(v, KUBELET_FIELDS, w, fail);
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
    checkKnownFields(r, ['match', 'memory', 'ephemeralStorage', 'pids', 'noise'], w, fail);
    if (r.match !== undefined && !isObj(r.match)) fail(`${w}.match`, 'expected a mapping of pod labels');
    const curve = (k: string): UsageCurve | undefined => {
      const c = r[k];
      if (c === undefined) return undefined;
      if (typeof c === 'string' || typeof c === 'number')
        return { start: quantity(c, `${w}.${k}`), perMinute: 0 };
      if (!isObj(c)) fail(`${w}.${k}`, 'expected a quantity or {start: 200Mi, perMinute: 50Mi, max: 2Gi}');
      checkKnownFields(c, ['start', 'perMinute', 'max'], `${w}.${k}`, fail);
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

/**
 * `runs:` — for pods with restartPolicy Never/OnFailure, a run time distribution and a failure
 * probability per workload, chosen by pod labels:
 * `[{match: {app: report}, duration: {median: 2m, sigma: 0.3}, failureProbability: 0.1}]`.
 */
export function parseRuns(raw: unknown, at: (p: string) => string): RunRule[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new ScenarioError(`${at('runs')}: expected a list`);
  return raw.map((r, i) => {
    const w = `runs[${i}]`;
    if (!isObj(r))
      throw new ScenarioError(
        `${at(w)}: expected {match: {label: value}, duration: {median: 30s, sigma: 0.5}, failureProbability: 0}`,
      );
    checkKnownFields(r, ['match', 'duration', 'failureProbability'], w, failAt(at));
    if (r.match !== undefined && !isObj(r.match))
      throw new ScenarioError(`${at(w + '.match')}: expected a mapping of pod labels`);
    const d = r.duration;
    if (d !== undefined && !isObj(d))
      throw new ScenarioError(`${at(w + '.duration')}: expected {median: 30s, sigma: 0.5}`);
    const sigma = d?.sigma === undefined ? 0.5 : Number(d.sigma);
    if (!Number.isFinite(sigma) || sigma < 0)
      throw new ScenarioError(`${at(w + '.duration.sigma')}: expected a non-negative number`);
    const p = r.failureProbability === undefined ? 0 : Number(r.failureProbability);
    if (!Number.isFinite(p) || p < 0 || p > 1)
      throw new ScenarioError(`${at(w + '.failureProbability')}: expected a number between 0 and 1`);
    return {
      matchLabels: Object.fromEntries(Object.entries(r.match ?? {}).map(([k, v]) => [k, String(v)])),
      duration: {
        medianMs: d?.median === undefined ? 30_000 : parseDuration(d.median, at(w + '.duration.median')),
        sigma,
      },
      failureProbability: p,
    };
  });
}

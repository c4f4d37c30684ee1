/**
 * The kubelet's node-pressure eviction rules (upstream: pkg/kubelet/eviction, helpers.go and
 * eviction_manager.go's synchronize), as pure functions over plain numbers so that upstream's own
 * test tables run against them (test/kubelet/eviction.test.ts):
 *
 * - thresholds from the flags: `--eviction-hard memory.available<100Mi,nodefs.available<10%`,
 *   `--eviction-soft` with `--eviction-soft-grace-period memory.available=1m30s`, and
 *   `--eviction-minimum-reclaim memory.available=500Mi` ({@link parseThresholdConfig},
 *   ParseThresholdConfig);
 * - a threshold is met when the signal's available amount is below its value (a quantity, or a
 *   percentage of the signal's capacity); once met, min-reclaim raises the bar until that much
 *   more is free ({@link thresholdsMet}); a soft threshold acts only after it has been met for its
 *   grace period ({@link thresholdsFirstObservedAt}, {@link thresholdsMetGracePeriod});
 * - met thresholds map to node conditions (MemoryPressure, DiskPressure, PIDPressure), which stay
 *   for `--eviction-pressure-transition-period` after the last observation
 *   ({@link nodeConditionsLastObservedAt}, {@link nodeConditionsObservedSince});
 * - the pod to evict: for memory, pods whose usage exceeds their request first, then by priority
 *   (lowest first), then by usage above request (largest first) (rankMemoryPressure); for disk the
 *   same over ephemeral storage; for PIDs by priority, then process count.
 *
 * Simplified: no allocatable (pods cgroup) thresholds, no inode signals, no separate imagefs or
 * containerfs (imagefs.available reads the node filesystem, as upstream does when the runtime
 * shares it), no node-level reclaim (image and dead-container garbage collection) before evicting.
 */

export type Signal = 'memory.available' | 'nodefs.available' | 'imagefs.available' | 'pid.available';
export const SIGNALS: readonly Signal[] = [
  'memory.available',
  'nodefs.available',
  'imagefs.available',
  'pid.available',
];

/** A quantity (bytes, or a count for pid.available) or a fraction of the signal's capacity. */
export interface ThresholdValue {
  quantity?: number;
  percentage?: number;
}

export interface Threshold {
  signal: Signal;
  /** upstream's only operator */
  operator: 'LessThan';
  value: ThresholdValue;
  /** 0 for a hard threshold */
  gracePeriodMs: number;
  minReclaim: ThresholdValue;
}

/** An observed signal: what is available and the capacity a percentage refers to. */
export interface Observation {
  available: number;
  capacity: number;
}

export type Observations = Partial<Record<Signal, Observation>>;

export class EvictionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EvictionConfigError';
  }
}

/** `25.5%` → 0.255 (parsePercentage); an error for anything else. */
export function parsePercentage(input: string): number {
  const m = /^([0-9]*\.?[0-9]+)%$/.exec(input);
  if (!m) throw new EvictionConfigError(`invalid percentage "${input}"`);
  return Number(m[1]) / 100;
}

/** `1Gi`, `100Mi`, `500` (pids) → a number; percentages → a fraction. */
function parseValue(v: string, parseQuantity: (q: string) => number, where: string): ThresholdValue {
  if (v.endsWith('%')) {
    const p = parsePercentage(v.startsWith('-') ? v.slice(1) : v);
    if (v.startsWith('-') || p < 0)
      throw new EvictionConfigError(`${where}: eviction percentage threshold must be >= 0%: ${v}`);
    if (p > 1) throw new EvictionConfigError(`${where}: eviction percentage threshold must be <= 100%: ${v}`);
    return { percentage: p };
  }
  let q: number;
  try {
    q = parseQuantity(v);
  } catch (e) {
    throw new EvictionConfigError(`${where}: ${(e as Error).message}`);
  }
  if (q < 0) throw new EvictionConfigError(`${where}: eviction threshold must be positive: ${v}`);
  return { quantity: q };
}

function isSignal(s: string): s is Signal {
  return (SIGNALS as readonly string[]).includes(s);
}

/** `a<1,b<2` or `a=1,b=2` → [signal, value] pairs; an unknown signal or a repeated one is an error. */
function pairs(text: string, op: '<' | '=', flag: string): [Signal, string][] {
  if (!text.trim()) return [];
  const seen = new Set<string>();
  return text.split(',').map((part) => {
    const i = part.indexOf(op);
    if (i <= 0)
      throw new EvictionConfigError(
        `${flag}: invalid eviction threshold syntax "${part}", expected SIGNAL${op}VALUE`,
      );
    const s = part.slice(0, i).trim();
    if (!isSignal(s))
      throw new EvictionConfigError(
        `${flag}: unsupported eviction signal "${s}" (supported: ${SIGNALS.join(', ')})`,
      );
    if (seen.has(s))
      throw new EvictionConfigError(`${flag}: found duplicate eviction threshold for signal ${s}`);
    seen.add(s);
    return [s, part.slice(i + 1).trim()];
  });
}

/**
 * ParseThresholdConfig: hard and soft thresholds, each soft one with its grace period (required,
 * ≥ 0), min-reclaim per signal (default 0) applied to both.
 */
export function parseThresholdConfig(
  cfg: { hard?: string; soft?: string; softGracePeriod?: string; minReclaim?: string },
  parseQuantity: (q: string) => number,
  parseDurationMs: (d: string, where: string) => number,
): Threshold[] {
  const reclaim = new Map<Signal, ThresholdValue>();
  for (const [s, v] of pairs(cfg.minReclaim ?? '', '=', 'evictionMinimumReclaim'))
    reclaim.set(s, parseValue(v, parseQuantity, `evictionMinimumReclaim ${s}`));
  const grace = new Map<Signal, number>();
  for (const [s, v] of pairs(cfg.softGracePeriod ?? '', '=', 'evictionSoftGracePeriod')) {
    if (v.startsWith('-'))
      throw new EvictionConfigError(`evictionSoftGracePeriod ${s}: must be positive: ${v}`);
    grace.set(s, parseDurationMs(v, `evictionSoftGracePeriod ${s}`));
  }
  const out: Threshold[] = [];
  const make = (s: Signal, v: string, gracePeriodMs: number, flag: string): Threshold => ({
    signal: s,
    operator: 'LessThan',
    value: parseValue(v, parseQuantity, `${flag} ${s}`),
    gracePeriodMs,
    minReclaim: reclaim.get(s) ?? { quantity: 0 },
  });
  for (const [s, v] of pairs(cfg.hard ?? '', '<', 'evictionHard')) out.push(make(s, v, 0, 'evictionHard'));
  for (const [s, v] of pairs(cfg.soft ?? '', '<', 'evictionSoft')) {
    const g = grace.get(s);
    if (g === undefined)
      throw new EvictionConfigError(
        `evictionSoft ${s}: no grace period specified for the soft eviction threshold`,
      );
    out.push(make(s, v, g, 'evictionSoft'));
  }
  return out;
}

/** GetThresholdQuantity: the threshold in the signal's units, given its capacity. */
export function thresholdQuantity(v: ThresholdValue, capacity: number): number {
  return v.quantity !== undefined ? v.quantity : Math.trunc((v.percentage ?? 0) * capacity);
}

/**
 * thresholdsMet: the thresholds whose signal's available amount is below the threshold (plus its
 * min-reclaim when `enforceMinReclaim`, i.e. for thresholds already met in the last round).
 */
export function thresholdsMet(
  thresholds: Threshold[],
  observations: Observations,
  enforceMinReclaim: boolean,
): Threshold[] {
  return thresholds.filter((t) => {
    const o = observations[t.signal];
    if (!o) return false;
    let q = thresholdQuantity(t.value, o.capacity);
    if (enforceMinReclaim) q += thresholdQuantity(t.minReclaim, o.capacity);
    return o.available < q;
  });
}

/** thresholdsFirstObservedAt: when each met threshold was first met (kept from the last round). */
export function thresholdsFirstObservedAt(
  thresholds: Threshold[],
  last: Map<Threshold, number>,
  now: number,
): Map<Threshold, number> {
  return new Map(thresholds.map((t) => [t, last.get(t) ?? now]));
}

/** thresholdsMetGracePeriod: the thresholds met for at least their grace period. */
export function thresholdsMetGracePeriod(observedAt: Map<Threshold, number>, now: number): Threshold[] {
  return [...observedAt].filter(([t, at]) => now - at >= t.gracePeriodMs).map(([t]) => t);
}

export type PressureCondition = 'MemoryPressure' | 'DiskPressure' | 'PIDPressure';

/** signalToNodeCondition */
export const SIGNAL_CONDITION: Record<Signal, PressureCondition> = {
  'memory.available': 'MemoryPressure',
  'nodefs.available': 'DiskPressure',
  'imagefs.available': 'DiskPressure',
  'pid.available': 'PIDPressure',
};

/** signalToResource: the resource a signal's eviction reclaims (for the Evicted message) */
export const SIGNAL_RESOURCE: Record<Signal, 'memory' | 'ephemeral-storage' | 'pids'> = {
  'memory.available': 'memory',
  'nodefs.available': 'ephemeral-storage',
  'imagefs.available': 'ephemeral-storage',
  'pid.available': 'pids',
};

/** nodeConditions: the conditions of the met thresholds, each once, in first-seen order. */
export function nodeConditions(thresholds: Threshold[]): PressureCondition[] {
  return [...new Set(thresholds.map((t) => SIGNAL_CONDITION[t.signal]))];
}

/** nodeConditionsLastObservedAt: now for the conditions observed, the last time for the others. */
export function nodeConditionsLastObservedAt(
  conditions: PressureCondition[],
  last: Map<PressureCondition, number>,
  now: number,
): Map<PressureCondition, number> {
  const out = new Map(last);
  for (const c of conditions) out.set(c, now);
  return out;
}

/** nodeConditionsObservedSince: the conditions observed within the transition period. */
export function nodeConditionsObservedSince(
  observedAt: Map<PressureCondition, number>,
  periodMs: number,
  now: number,
): PressureCondition[] {
  return [...observedAt].filter(([, at]) => now - at < periodMs).map(([c]) => c);
}

/**
 * byEvictionPriority: memory first (it is the one resource whose exhaustion the node cannot
 * survive), then the others in their order; the manager acts on the first met threshold.
 */
export function byEvictionPriority(thresholds: Threshold[]): Threshold[] {
  return [...thresholds].sort(
    (a, b) => Number(b.signal === 'memory.available') - Number(a.signal === 'memory.available'),
  );
}

/** What ranking reads of a pod: its priority, its requests, and its usage. */
export interface RankedPod {
  name: string;
  priority: number;
  /** requests per resource: memory and ephemeral-storage in bytes */
  requests: { memory: number; 'ephemeral-storage': number };
  usage: { memory: number; 'ephemeral-storage': number; pids: number };
}

type Cmp = (a: RankedPod, b: RankedPod) => number;

/** orderedBy(cmp…): the first comparator that tells two pods apart decides (a stable sort). */
function orderedBy(...cmps: Cmp[]): Cmp {
  return (a, b) => {
    for (const c of cmps) {
      const r = c(a, b);
      if (r !== 0) return r;
    }
    return 0;
  };
}

/** exceedMemoryRequests / exceedDiskRequests: pods above their request first */
const exceeds =
  (r: 'memory' | 'ephemeral-storage'): Cmp =>
  (a, b) =>
    Number(b.usage[r] > b.requests[r]) - Number(a.usage[r] > a.requests[r]) === 0
      ? 0
      : Number(a.usage[r] > a.requests[r])
        ? -1
        : 1;

/** priority: lower priority first */
const priority: Cmp = (a, b) => a.priority - b.priority;

/** memory / disk: larger usage above the request first */
const aboveRequest =
  (r: 'memory' | 'ephemeral-storage'): Cmp =>
  (a, b) =>
    b.usage[r] - b.requests[r] - (a.usage[r] - a.requests[r]);

/** process: more processes first */
const processes: Cmp = (a, b) => b.usage.pids - a.usage.pids;

/** The order pods are evicted in under a signal's pressure (rankMemoryPressure, rankDiskPressure, rankPIDPressure). */
export function rankForEviction(pods: RankedPod[], signal: Signal): RankedPod[] {
  const cmp =
    signal === 'memory.available'
      ? orderedBy(exceeds('memory'), priority, aboveRequest('memory'))
      : signal === 'pid.available'
        ? orderedBy(priority, processes)
        : orderedBy(exceeds('ephemeral-storage'), priority, aboveRequest('ephemeral-storage'));
  return [...pods].sort(cmp);
}

/** The rankers' comparators, for upstream's per-comparator test tables. */
export const COMPARATORS = {
  exceedMemoryRequests: exceeds('memory'),
  exceedDiskRequests: exceeds('ephemeral-storage'),
  priority,
  memory: aboveRequest('memory'),
  disk: aboveRequest('ephemeral-storage'),
  process: processes,
  orderedBy,
};

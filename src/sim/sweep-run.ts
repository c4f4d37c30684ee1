/**
 * One run of a sweep: a scenario's text with some settings replaced, simulated with one seed, and
 * reduced to the numbers a sweep compares. Plain data in, plain data out, so the same run gives the
 * same numbers in this thread, in a worker of the pool (src/capacity/pool-tasks.ts) and in another
 * process of a sharded sweep (src/experiments/sweep.ts).
 *
 * A swept parameter is a path into the scenario document. The paths under `settings` are written as
 * they are in the scenario (`settings.watchLatency`); a few read as the flags operators know:
 *
 *   apiserver.maxMutatingInflight     settings.maxMutatingInflight   (--max-mutating-requests-inflight)
 *   apiserver.maxRequestsInflight     settings.maxRequestsInflight   (--max-requests-inflight)
 *   controllers.<name>.<field>        settings.controllers.<name>.<field>
 *   kubelet.<field>                   settings.kubelet.<field>
 *   nodeLifecycle.<field>             settings.<field>               (nodeMonitorGracePeriod, evictionRate)
 *   duration                          duration
 *
 * A number in a path indexes a list: `workloads.0.manifest.spec.replicas`.
 */
import { parse } from 'yaml';
import { parseScenario } from './scenario.js';
import { simulate } from './simulation.js';
import type { SimulationResult } from './result.js';

/** A run's inputs: the scenario as read from its file, the values of the swept paths, a seed. */
export interface SweepRunTask {
  /** the scenario file's text */
  text: string;
  /** the scenario file's path (error messages) and folder (its relative `file:` references) */
  source: string;
  baseDir: string;
  /** scenario path (after {@link scenarioPath}) → value */
  values: Record<string, unknown>;
  seed: number;
}

/**
 * The numbers of one run; null where the run has no value (a timeline that never converged, no
 * pods started). Every figure is a function of the scenario and the seed (no wall-clock time).
 */
export type SweepMetrics = Record<SweepMetricName, number | null>;

/** The metrics of a sweep, in report order, with their unit and meaning. */
export const SWEEP_METRICS = {
  convergedS: {
    unit: 's',
    help: 'time from the last timeline action until every Deployment is updated and available and every pod ready (null: never)',
  },
  startupP50S: { unit: 's', help: 'pod start-up latency p50 (created to Ready)' },
  startupP99S: { unit: 's', help: 'pod start-up latency p99' },
  schedulingP99S: { unit: 's', help: 'scheduling latency p99 (created to bound)' },
  podsReady: { unit: 'pods', help: 'pods created during the run that became Ready' },
  pendingAtEnd: { unit: 'pods', help: 'pods without a node at the end' },
  apiRequests: { unit: 'requests', help: 'API requests of every component (retries included)' },
  tooManyRequests: { unit: 'requests', help: '429 TooManyRequests answers (max-in-flight)' },
  failedAfterRetries: { unit: 'requests', help: '429s that exhausted client-go’s 10 retries' },
  peakMutatingInflight: { unit: 'requests', help: 'peak mutating requests in flight' },
  peakInflight: { unit: 'requests', help: 'peak read-only requests in flight' },
  apiLatencyP50Ms: {
    unit: 'ms',
    help: 'API call latency p50 as callers saw it (service time, 429 waits, retries)',
  },
  apiLatencyP99Ms: { unit: 'ms', help: 'API call latency p99 as callers saw it' },
  evictions: { unit: 'pods', help: 'pods evicted by the taint-eviction controller (NoExecute)' },
  firstEvictionS: { unit: 's', help: 'time of the first NoExecute eviction (null: none)' },
  kubeletEvictions: { unit: 'pods', help: 'pods evicted by the kubelets under node pressure' },
} as const;

export type SweepMetricName = keyof typeof SWEEP_METRICS;

/** `apiserver.maxMutatingInflight` → `settings.maxMutatingInflight` (the table in the header). */
export function scenarioPath(path: string): string {
  const alias: Record<string, string> = {
    'apiserver.maxMutatingInflight': 'settings.maxMutatingInflight',
    'apiserver.maxRequestsInflight': 'settings.maxRequestsInflight',
    'nodeLifecycle.nodeMonitorGracePeriod': 'settings.nodeMonitorGracePeriod',
    'nodeLifecycle.evictionRate': 'settings.evictionRate',
  };
  if (alias[path]) return alias[path];
  if (/^(controllers|kubelet)\./.test(path)) return `settings.${path}`;
  return path;
}

/** The scenario document with `values` set at their paths (a missing mapping on the way is made). */
export function applyValues(doc: unknown, values: Record<string, unknown>): unknown {
  const root = structuredClone(doc) as Record<string, unknown>;
  for (const [path, value] of Object.entries(values)) {
    const keys = path.split('.');
    let o = root;
    for (const k of keys.slice(0, -1)) {
      const next = o[k];
      if (next === undefined || next === null) o[k] = {};
      else if (typeof next !== 'object')
        throw new Error(`${path}: "${k}" is not a mapping or a list in the scenario`);
      o = o[k] as Record<string, unknown>;
    }
    o[keys[keys.length - 1]!] = value;
  }
  return root;
}

/** The scenario of a run: its text with the run's values set, parsed and checked as any scenario is. */
export function sweepScenario(t: Pick<SweepRunTask, 'text' | 'source' | 'baseDir' | 'values'>) {
  const doc = applyValues(parse(t.text, { maxAliasCount: 100 }), t.values);
  return parseScenario(JSON.stringify(doc), t.source, t.baseDir);
}

/** Simulates one run and keeps its metrics. */
export async function runSweepRun(t: SweepRunTask): Promise<SweepMetrics> {
  const result = await simulate(sweepScenario(t), { seed: t.seed, collectEvents: false });
  return sweepMetrics(result);
}

export function sweepMetrics(r: SimulationResult): SweepMetrics {
  const s = (ms: number) => (Number.isFinite(ms) ? ms / 1000 : null);
  const last = r.timeline[r.timeline.length - 1];
  return {
    convergedS: last ? last.convergedAfterS : null,
    startupP50S: s(r.startupLatencyMs.p50),
    startupP99S: s(r.startupLatencyMs.p99),
    schedulingP99S: s(r.schedulingLatencyMs.p99),
    podsReady: r.pods.ready,
    pendingAtEnd: r.pods.pendingAtEnd,
    apiRequests: r.api.requests,
    tooManyRequests: r.api.tooManyRequests,
    failedAfterRetries: r.api.failedAfterRetries,
    peakMutatingInflight: r.api.peakMutatingInflight,
    peakInflight: r.api.peakInflight,
    apiLatencyP50Ms: r.api.latencyP50Ms,
    apiLatencyP99Ms: r.api.latencyP99Ms,
    evictions: r.evictions.count,
    firstEvictionS: r.evictions.firstAtS,
    kubeletEvictions: r.kubeletEvictions.count,
  };
}

/**
 * The figures of one simulation run, and their spread over seeds: the one home of both for every
 * experiment built on runs (compare-sim, sweep; src/experiments/), so that two commands given the
 * same scenario and seed print the same figure under the same name.
 *
 * Each metric is a function of the scenario and the seed (no wall-clock time); null where the run
 * has no value (a timeline that never converged, no pod scheduled). Durations of the cluster's
 * life (start-up, scheduling, convergence) are in seconds, API call latencies in milliseconds.
 * The spread over seeds is the sample standard deviation (n - 1): the seeds are a sample of the
 * runs the scenario can have.
 */
import type { SimulationResult } from './result.js';

export type MetricUnit = 's' | 'ms' | '%' | 'pods' | 'nodes' | 'requests';

interface MetricInfo {
  unit: MetricUnit;
  /** the text table's column header (sweep) */
  header: string;
  /** the row label (compare-sim) */
  label: string;
  help: string;
}

/** Every metric of a run, in report order. */
export const RUN_METRICS = {
  convergedS: {
    unit: 's',
    header: 'CONVERGED',
    label: 'converged after the last action',
    help: 'time from the last timeline action until every Deployment is updated and available and every pod ready (null: never)',
  },
  nodesUsedPeak: {
    unit: 'nodes',
    header: 'NODES PEAK',
    label: 'nodes used: peak',
    help: 'nodes with a pod on them, most at one sample',
  },
  nodesUsedMean: {
    unit: 'nodes',
    header: 'NODES MEAN',
    label: 'nodes used: mean over time',
    help: 'nodes with a pod on them, mean over the samples',
  },
  nodesUsedAtEnd: {
    unit: 'nodes',
    header: 'NODES AT END',
    label: 'nodes used: at the end',
    help: 'nodes with a pod on them at the last sample',
  },
  cpuUtilizationMean: {
    unit: '%',
    header: 'CPU UTIL',
    label: 'CPU utilization of used nodes',
    help: 'CPU requested / allocatable over the used nodes, mean over the samples with any',
  },
  cpuUtilizationSpread: {
    unit: '%',
    header: 'CPU UTIL SD',
    label: 'CPU utilization spread (stddev)',
    help: 'standard deviation of that utilization across the used nodes, mean over the samples',
  },
  pendingPeak: {
    unit: 'pods',
    header: 'PENDING PEAK',
    label: 'pods pending: peak',
    help: 'pods without a node, most at one sample',
  },
  pendingAtEnd: {
    unit: 'pods',
    header: 'PENDING',
    label: 'pods pending: at the end',
    help: 'pods without a node at the end',
  },
  podsReady: {
    unit: 'pods',
    header: 'PODS READY',
    label: 'pods ready',
    help: 'pods created during the run that became Ready',
  },
  schedulingP50S: {
    unit: 's',
    header: 'SCHEDULING P50',
    label: 'scheduling latency p50',
    help: 'scheduling latency p50 (created to bound)',
  },
  schedulingP99S: {
    unit: 's',
    header: 'SCHEDULING P99',
    label: 'scheduling latency p99',
    help: 'scheduling latency p99 (created to bound)',
  },
  startupP50S: {
    unit: 's',
    header: 'STARTUP P50',
    label: 'pod start-up latency p50',
    help: 'pod start-up latency p50 (created to Ready)',
  },
  startupP99S: {
    unit: 's',
    header: 'STARTUP P99',
    label: 'pod start-up latency p99',
    help: 'pod start-up latency p99 (created to Ready)',
  },
  apiRequests: {
    unit: 'requests',
    header: 'API REQUESTS',
    label: 'API requests',
    help: 'API requests of every component (retries included)',
  },
  tooManyRequests: {
    unit: 'requests',
    header: '429s',
    label: '429 TooManyRequests',
    help: '429 TooManyRequests answers (max-in-flight)',
  },
  failedAfterRetries: {
    unit: 'requests',
    header: 'FAILED AFTER RETRIES',
    label: 'requests failed after retries',
    help: '429s that exhausted client-go’s 10 retries',
  },
  peakMutatingInflight: {
    unit: 'requests',
    header: 'PEAK MUTATING',
    label: 'peak mutating requests in flight',
    help: 'peak mutating requests in flight',
  },
  peakInflight: {
    unit: 'requests',
    header: 'PEAK READ-ONLY',
    label: 'peak read-only requests in flight',
    help: 'peak read-only requests in flight',
  },
  apiLatencyP50Ms: {
    unit: 'ms',
    header: 'API P50',
    label: 'API call latency p50',
    help: 'API call latency p50 as callers saw it (service time, 429 waits, retries)',
  },
  apiLatencyP99Ms: {
    unit: 'ms',
    header: 'API P99',
    label: 'API call latency p99',
    help: 'API call latency p99 as callers saw it',
  },
  evictions: {
    unit: 'pods',
    header: 'EVICTIONS',
    label: 'evictions (NoExecute)',
    help: 'pods evicted by the taint-eviction controller (NoExecute)',
  },
  firstEvictionS: {
    unit: 's',
    header: 'FIRST EVICTION',
    label: 'first NoExecute eviction',
    help: 'time of the first NoExecute eviction (null: none)',
  },
  kubeletEvictions: {
    unit: 'pods',
    header: 'KUBELET EVICTIONS',
    label: 'evictions by kubelets',
    help: 'pods evicted by the kubelets under node pressure',
  },
  preemptions: {
    unit: 'pods',
    header: 'PREEMPTIONS',
    label: 'preemptions',
    help: "pods the scheduler's DefaultPreemption made room for",
  },
} as const satisfies Record<string, MetricInfo>;

export type RunMetricName = keyof typeof RUN_METRICS;

/** The figures of one run (null: the run has no value). */
export type RunMetrics = Record<RunMetricName, number | null>;

export const RUN_METRIC_NAMES = Object.keys(RUN_METRICS) as RunMetricName[];

const meanOf = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** The figures of one run, read from its result. */
export function runMetrics(r: SimulationResult): RunMetrics {
  const s = (ms: number) => (Number.isFinite(ms) ? ms / 1000 : null);
  const last = r.timeline[r.timeline.length - 1];
  const series = r.series;
  const used = series.nodesUsed.map((n, i) => (n > 0 ? i : -1)).filter((i) => i >= 0);
  return {
    convergedS: last ? last.convergedAfterS : null,
    nodesUsedPeak: Math.max(0, ...series.nodesUsed),
    nodesUsedMean: meanOf(series.nodesUsed),
    nodesUsedAtEnd: series.nodesUsed.at(-1) ?? 0,
    cpuUtilizationMean: used.length ? meanOf(used.map((i) => series.cpuUtilization[i]!)) : null,
    cpuUtilizationSpread: used.length ? meanOf(used.map((i) => series.cpuUtilizationStddev[i]!)) : null,
    pendingPeak: Math.max(0, ...series.pending),
    pendingAtEnd: r.pods.pendingAtEnd,
    podsReady: r.pods.ready,
    schedulingP50S: s(r.schedulingLatencyMs.p50),
    schedulingP99S: s(r.schedulingLatencyMs.p99),
    startupP50S: s(r.startupLatencyMs.p50),
    startupP99S: s(r.startupLatencyMs.p99),
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
    preemptions: r.preemptions,
  };
}

/** A metric over the seeds: the runs with a value (n), their mean, range and sample standard deviation. */
export interface MetricSpread {
  n: number;
  mean: number | null;
  min: number | null;
  max: number | null;
  sd: number | null;
}

/** Mean, range and sample standard deviation (n - 1; 0 for one run) of the non-null values, rounded to 1e-6. */
export function spread(values: readonly (number | null)[]): MetricSpread {
  const v = values.filter((x): x is number => x !== null && Number.isFinite(x));
  if (!v.length) return { n: 0, mean: null, min: null, max: null, sd: null };
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  const sd = v.length > 1 ? Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / (v.length - 1)) : 0;
  const r = (x: number) => Math.round(x * 1e6) / 1e6;
  return { n: v.length, mean: r(mean), min: r(Math.min(...v)), max: r(Math.max(...v)), sd: r(sd) };
}

/** Each metric over the runs. */
export function spreads(runs: readonly RunMetrics[]): Record<RunMetricName, MetricSpread> {
  return Object.fromEntries(RUN_METRIC_NAMES.map((m) => [m, spread(runs.map((r) => r[m]))])) as Record<
    RunMetricName,
    MetricSpread
  >;
}

/** A figure as the text tables print it: "12.5s", "340ms", "62.5%", "8"; two decimals below 100. */
export function formatMetric(v: number, unit: MetricUnit | ''): string {
  const r = Math.abs(v) >= 100 || Number.isInteger(v) ? Math.round(v) : Math.round(v * 100) / 100;
  return unit === 's' || unit === 'ms' || unit === '%' ? `${r}${unit}` : String(r);
}

/**
 * A metric over the seeds as the text tables print it: "12.5s ±0.4" (mean ± sample standard
 * deviation), "-" with no value, "12s ±0 (2/3)" when some runs had none; with `range`, the
 * min–max after it.
 */
export function formatSpread(s: MetricSpread, unit: MetricUnit, runs: number, range = false): string {
  if (s.mean === null) return '-';
  let t = formatMetric(s.mean, unit);
  if (runs > 1) t += ` ±${formatMetric(s.sd ?? 0, '')}`;
  if (s.n < runs) t += ` (${s.n}/${runs})`;
  if (range && runs > 1) t += ` (${formatMetric(s.min!, '')}–${formatMetric(s.max!, '')})`;
  return t;
}

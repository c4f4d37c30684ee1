/**
 * One scenario under several scheduler set-ups (a KubeSchedulerConfiguration and user plugins
 * each), every set-up run with the same seeds, reported side by side: nodes used over time,
 * utilization spread, pending pods, scheduling and start-up latency, evictions, preemptions.
 * With several seeds each metric is the mean over the seeds with its spread (standard deviation,
 * min and max). The "how many nodes, what start-up latencies with my scoring plugin" question of
 * docs/sim.md.
 */
import type { SchedulerConfig } from '../scheduler/config.js';
import type { LoadedUserPlugin } from '../scheduler/plugins/user.js';
import type { Scenario } from '../sim/scenario-types.js';
import { simulate } from '../sim/simulation.js';
import type { SimulationResult } from '../sim/result.js';

/**
 * A scheduler set-up to compare: it replaces the scenario's settings.schedulerConfig (none: the
 * default profile) and settings.plugins (loaded plugins; the caller closes them).
 */
export interface SimStrategy {
  name: string;
  schedulerConfig?: SchedulerConfig;
  plugins?: LoadedUserPlugin[];
}

/** The metrics of one run, each one number. */
export interface RunMetrics {
  nodesUsedPeak: number;
  nodesUsedMean: number;
  nodesUsedAtEnd: number;
  /** CPU requested / allocatable over the used nodes, percent, mean over the samples with any */
  cpuUtilizationMean: number;
  /** standard deviation of that utilization across nodes, mean over the samples: the spread */
  cpuUtilizationSpread: number;
  pendingPeak: number;
  pendingAtEnd: number;
  schedulingLatencyP50Ms: number;
  schedulingLatencyP99Ms: number;
  startupLatencyP50Ms: number;
  startupLatencyP99Ms: number;
  evictions: number;
  preemptions: number;
}

export const METRICS: readonly { key: keyof RunMetrics; label: string; unit: 'n' | '%' | 'ms' }[] = [
  { key: 'nodesUsedPeak', label: 'nodes used: peak', unit: 'n' },
  { key: 'nodesUsedMean', label: 'nodes used: mean over time', unit: 'n' },
  { key: 'nodesUsedAtEnd', label: 'nodes used: at the end', unit: 'n' },
  { key: 'cpuUtilizationMean', label: 'CPU utilization of used nodes', unit: '%' },
  { key: 'cpuUtilizationSpread', label: 'CPU utilization spread (stddev)', unit: '%' },
  { key: 'pendingPeak', label: 'pods pending: peak', unit: 'n' },
  { key: 'pendingAtEnd', label: 'pods pending: at the end', unit: 'n' },
  { key: 'schedulingLatencyP50Ms', label: 'scheduling latency p50', unit: 'ms' },
  { key: 'schedulingLatencyP99Ms', label: 'scheduling latency p99', unit: 'ms' },
  { key: 'startupLatencyP50Ms', label: 'pod start-up latency p50', unit: 'ms' },
  { key: 'startupLatencyP99Ms', label: 'pod start-up latency p99', unit: 'ms' },
  { key: 'evictions', label: 'evictions', unit: 'n' },
  { key: 'preemptions', label: 'preemptions', unit: 'n' },
];

/** A metric over the seeds. */
export interface Spread {
  mean: number;
  stddev: number;
  min: number;
  max: number;
}

export interface StrategyRuns {
  strategy: string;
  /** per seed, in seed order */
  runs: { seed: number; metrics: RunMetrics }[];
  /** each metric over the seeds */
  summary: Record<keyof RunMetrics, Spread>;
  /** the first seed's series, for charts: t (s), nodes used, pending, CPU utilization */
  series: { t: number[]; nodesUsed: number[]; pending: number[]; cpuUtilization: number[] };
}

export interface SimComparison {
  scenario: string;
  seeds: number[];
  durationS: number;
  timeline: { atS: number; label: string }[];
  strategies: StrategyRuns[];
}

const round = (x: number, d = 1) => (Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : 0);
const meanOf = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** The numbers of one run. Latencies of a run that scheduled nothing are 0. */
export function runMetrics(r: SimulationResult): RunMetrics {
  const s = r.series;
  const usedSamples = s.nodesUsed.map((n, i) => (n > 0 ? i : -1)).filter((i) => i >= 0);
  return {
    nodesUsedPeak: Math.max(0, ...s.nodesUsed),
    nodesUsedMean: round(meanOf(s.nodesUsed)),
    nodesUsedAtEnd: s.nodesUsed.at(-1) ?? 0,
    cpuUtilizationMean: round(meanOf(usedSamples.map((i) => s.cpuUtilization[i]!))),
    cpuUtilizationSpread: round(meanOf(usedSamples.map((i) => s.cpuUtilizationStddev[i]!))),
    pendingPeak: Math.max(0, ...s.pending),
    pendingAtEnd: r.pods.pendingAtEnd,
    schedulingLatencyP50Ms: round(r.schedulingLatencyMs.p50, 0),
    schedulingLatencyP99Ms: round(r.schedulingLatencyMs.p99, 0),
    startupLatencyP50Ms: round(r.startupLatencyMs.p50, 0),
    startupLatencyP99Ms: round(r.startupLatencyMs.p99, 0),
    evictions: r.evictions.count,
    preemptions: r.preemptions,
  };
}

function spread(xs: number[]): Spread {
  const mean = meanOf(xs);
  const sd = Math.sqrt(meanOf(xs.map((x) => (x - mean) ** 2)));
  return { mean: round(mean, 2), stddev: round(sd, 2), min: Math.min(...xs), max: Math.max(...xs) };
}

/**
 * Runs `scenario` under every strategy with each of `seeds` (the same seeds for every strategy,
 * so tie-breaks, latencies and failures are drawn alike), one run after the other.
 */
export async function compareSimulations(
  scenario: Scenario,
  strategies: SimStrategy[],
  opts: { seeds: number[]; onRun?: (done: number, total: number, what: string) => void },
): Promise<SimComparison> {
  const total = strategies.length * opts.seeds.length;
  let done = 0;
  const out: StrategyRuns[] = [];
  for (const st of strategies) {
    const runs: StrategyRuns['runs'] = [];
    let series: StrategyRuns['series'] | undefined;
    for (const seed of opts.seeds) {
      opts.onRun?.(done, total, `${st.name}, seed ${seed}`);
      const sc: Scenario = {
        ...scenario,
        settings: { ...scenario.settings, schedulerConfig: st.schedulerConfig, plugins: [] },
      };
      const r = await simulate(sc, { seed, collectEvents: false, plugins: st.plugins ?? [] });
      runs.push({ seed, metrics: runMetrics(r) });
      series ??= {
        t: r.series.t,
        nodesUsed: r.series.nodesUsed,
        pending: r.series.pending,
        cpuUtilization: r.series.cpuUtilization,
      };
      opts.onRun?.(++done, total, `${st.name}, seed ${seed}`);
    }
    const summary = Object.fromEntries(
      METRICS.map((m) => [m.key, spread(runs.map((r) => r.metrics[m.key]))]),
    ) as Record<keyof RunMetrics, Spread>;
    out.push({ strategy: st.name, runs, summary, series: series! });
  }
  return {
    scenario: scenario.name,
    seeds: opts.seeds,
    durationS: scenario.durationMs / 1000,
    timeline: scenario.timeline.map((e) => ({ atS: e.atMs / 1000, label: e.label })),
    strategies: out,
  };
}

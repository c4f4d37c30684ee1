/**
 * One scenario under several scheduler set-ups (a KubeSchedulerConfiguration and user plugins
 * each), every set-up run with the same seeds, reported side by side: nodes used over time,
 * utilization spread, pending pods, scheduling and start-up latency, evictions, preemptions.
 * With several seeds each metric is the mean over the seeds with its spread (sample standard
 * deviation, min and max) — the metrics and the spread of a sweep (src/sim/run-metrics.ts), so the
 * two commands print the same figure for the same run. The "how many nodes, what start-up latencies with my scoring plugin" question of
 * docs/sim.md.
 */
import type { SchedulerConfig } from '../scheduler/config.js';
import type { LoadedUserPlugin } from '../scheduler/plugins/user.js';
import type { Scenario } from '../sim/scenario-types.js';
import { simulate } from '../sim/simulation.js';
import {
  type MetricSpread,
  type RunMetricName,
  type RunMetrics,
  runMetrics,
  spreads,
} from '../sim/run-metrics.js';

/**
 * A scheduler set-up to compare: it replaces the scenario's settings.schedulerConfig (none: the
 * default profile) and settings.plugins (loaded plugins; the caller closes them).
 */
export interface SimStrategy {
  name: string;
  schedulerConfig?: SchedulerConfig;
  plugins?: LoadedUserPlugin[];
}

/** The rows of the comparison, in order (each a metric of run-metrics.ts). */
export const METRICS: readonly RunMetricName[] = [
  'nodesUsedPeak',
  'nodesUsedMean',
  'nodesUsedAtEnd',
  'cpuUtilizationMean',
  'cpuUtilizationSpread',
  'pendingPeak',
  'pendingAtEnd',
  'schedulingP50S',
  'schedulingP99S',
  'startupP50S',
  'startupP99S',
  'evictions',
  'preemptions',
];

export interface StrategyRuns {
  strategy: string;
  /** per seed, in seed order */
  runs: { seed: number; metrics: RunMetrics }[];
  /** each metric over the seeds (run-metrics.ts spread: the same figures as a sweep's) */
  summary: Record<RunMetricName, MetricSpread>;
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
    const summary = spreads(runs.map((r) => r.metrics));
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

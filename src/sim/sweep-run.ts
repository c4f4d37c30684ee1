/**
 * One run of a sweep: a scenario's text with some settings replaced, simulated with one seed, and
 * reduced to its metrics (run-metrics.ts). Plain data in, plain data out, so the same run gives the
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
import { type RunMetrics, runMetrics } from './run-metrics.js';

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
export async function runSweepRun(t: SweepRunTask): Promise<RunMetrics> {
  const result = await simulate(sweepScenario(t), { seed: t.seed, collectEvents: false });
  return runMetrics(result);
}

/**
 * The independent units of work a capacity sweep is made of — a plan, a strategy run, a min-nodes
 * search — and one run of a simulation sweep (src/sim/sweep-run.ts), as plain data, so that the same task runs in this thread or in a pool worker and gives
 * the same answer (tested). Scheduler configuration travels as a KubeSchedulerConfiguration
 * document or a strategy spec, never as functions.
 */
import type { Pod } from '../api/types.js';
import type { ClusterFile } from '../scheduler/framework/cluster-file.js';
import { parseSchedulerConfig } from '../scheduler/config.js';
import type { KernelName } from '../scheduler/engine/types.js';
import { planCapacity, minNodesToAdd, type PlanReport, type MinNodesResult } from './planner.js';
import { resolveStrategy, runStrategy, type StrategyResult } from './strategies.js';
import type { WhatIf } from './whatif.js';
import type { RunMetrics } from '../sim/run-metrics.js';
import { runSweepRun, type SweepRunTask } from '../sim/sweep-run.js';

interface Common {
  cluster: ClusterFile;
  whatIfs?: WhatIf[];
  seed?: number;
  kernel?: KernelName;
  /** a KubeSchedulerConfiguration object (parsed in the worker) */
  configDoc?: unknown;
}

export type PoolTask =
  | (Common & { kind: 'plan'; shapes: Pod[]; maxReplicas?: number; mix?: boolean })
  | (Common & { kind: 'strategy'; workload: Pod[]; strategy: string })
  | (Common & {
      kind: 'minNodes';
      shape: Pod;
      replicas: number;
      template: string;
      zone?: string;
      limit?: number;
    })
  | { kind: 'sweepRun'; run: SweepRunTask };

export type PoolResult = PlanReport | StrategyResult | MinNodesResult | RunMetrics;

export async function runPoolTask(t: PoolTask): Promise<PoolResult> {
  if (t.kind === 'sweepRun') return runSweepRun(t.run);
  const config = t.configDoc === undefined ? undefined : parseSchedulerConfig(t.configDoc, 'task config');
  const common = { whatIfs: t.whatIfs, seed: t.seed, kernel: t.kernel, config };
  switch (t.kind) {
    case 'plan':
      return planCapacity(t.cluster, t.shapes, { ...common, maxReplicas: t.maxReplicas, mix: t.mix });
    case 'strategy':
      return runStrategy(t.cluster, t.workload, await resolveStrategy(t.strategy), common);
    case 'minNodes':
      return minNodesToAdd(t.cluster, t.shape, t.replicas, t.template, {
        ...common,
        zone: t.zone,
        limit: t.limit,
      });
  }
}

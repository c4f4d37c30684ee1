/**
 * kubesim's kube-scheduler model: public API.
 *
 * Offline (what-if, capacity, CLI):
 *   const core = new SchedulerCore({ nodes, pods, config, kernel: 'wasm', seed: 1 });
 *   const out = core.schedule(pod);            // 'scheduled' | 'unschedulable' (FitError) | 'error'
 *   if (out.kind === 'scheduled') core.reserveAndAssume(out);
 *   core.explain(pod);                         // why (not) there: every filter and score per node
 *
 * One plugin against given nodes and pods, as upstream's plugin tests run it:
 *   new PluginRunner({ plugin: 'NodeAffinity', nodes, pods }).run(pod);   // statuses and scores
 *
 * In a simulation (watches in, pods/binding out):
 *   const s = new Scheduler({ api, informers, clock, recorder, seed }); await s.start();
 */

import { loadSchedulerConfig, type SchedulerConfig } from './config.js';
import { loadClusterFiles, type ClusterFile } from './framework/cluster-file.js';
import { loadUserPlugin, type LoadedUserPlugin, type UserPluginOptions } from './plugins/user.js';
import type { KernelName } from './engine/types.js';
import { isTerminal, SchedulerCore } from './scheduler.js';
import { ClusterFileError } from './framework/cluster-file.js';

export {
  Scheduler,
  SchedulerCore,
  isTerminal,
  type SchedulerCoreOptions,
  type SchedulerOptions,
  type PlacementOutcome,
  type SchedulerStats,
} from './scheduler.js';
export {
  PluginRunner,
  type PluginRunnerOptions,
  type PluginRunResult,
  type StatusResult,
} from './plugin-runner.js';
export { SchedulingQueue, prioritySortLess, type SchedulingQueueOptions } from './queue.js';
export {
  parseSchedulerConfig,
  loadSchedulerConfig,
  defaultSchedulerConfig,
  expandProfilePlugins,
  ConfigError,
  DEFAULT_MULTIPOINT,
  type SchedulerConfig,
  type ProfileConfig,
  type PluginRef,
  type PluginSet,
  type ExtensionPoint,
} from './config.js';
export { Framework, type ScoreTable, type ProfilePlugins, type WindowFilter } from './framework/framework.js';
export { CycleState, type StateData } from './framework/cycle-state.js';
export { Status, Code, CODE_NAMES, type MaybeStatus } from './framework/status.js';
export { FitError, formatFitError, type Diagnosis } from './framework/fit-error.js';
export { ClusterSnapshot, NodeInfo, PodInfo } from './framework/snapshot.js';
export {
  SchedulingAlgorithm,
  runSchedulingCycle,
  type CycleOutcome,
  type ScheduleResult,
} from './framework/schedule-one.js';
export { explainPod, type Explanation, type NodeExplanation } from './framework/explain.js';
export {
  loadClusterFiles,
  sortClusterObjects,
  snapshotCommand,
  SNAPSHOT_KINDS,
  ClusterFileError,
  type ClusterFile,
} from './framework/cluster-file.js';
export * from './framework/types.js';
export { PodTopologySpread } from './plugins/pod-topology-spread.js';
export { InterPodAffinity } from './plugins/inter-pod-affinity.js';
export { DefaultPreemption, pickOneNodeForPreemption } from './plugins/default-preemption.js';
export { SchedulingEngine, NodeLocalPlugin } from './plugins/node-local.js';
export { numFeasibleNodesToFind, type KernelName } from './engine/types.js';
export { buildFrameworks, inTreeRegistry } from './plugins/registry.js';
export {
  tsPlugin,
  wasmScorePlugin,
  loadUserPlugin,
  type ScorePluginDef,
  type LoadedUserPlugin,
  type UserPluginOptions,
} from './plugins/user.js';
export type { PluginFailureRecord } from './plugins/contained.js';
export {
  DEFAULT_PLUGIN_LIMITS,
  pluginLimits,
  type PluginLimits,
  type PluginErrorPolicy,
} from './plugins/sandbox/limits.js';

export interface OfflineOptions {
  /** cluster snapshot files (Nodes, bound Pods, Services, ReplicaSets, Namespaces) */
  cluster: string[];
  /** KubeSchedulerConfiguration file */
  config?: string;
  kernel?: KernelName;
  seed?: number;
  /** user plugins `path[:weight]` (.wasm score modules or TS/JS modules), loaded contained */
  plugins?: string[];
  /** their limits and error policy */
  pluginOptions?: UserPluginOptions;
}

/** Loads files and builds a SchedulerCore over them (what the CLI commands run). */
export async function createOfflineScheduler(
  opts: OfflineOptions,
): Promise<{ core: SchedulerCore; cluster: ClusterFile; plugins: LoadedUserPlugin[] }> {
  const cluster = await loadClusterFiles(opts.cluster);
  const config: SchedulerConfig | undefined = opts.config ? loadSchedulerConfig(opts.config) : undefined;
  const plugins: LoadedUserPlugin[] = [];
  for (const p of opts.plugins ?? []) plugins.push(await loadUserPlugin(p, opts.pluginOptions));
  const core = new SchedulerCore({
    namespaces: cluster.namespaces,
    objects: {
      services: cluster.services,
      replicaSets: cluster.replicaSets,
      others: cluster.others as never,
      storage: cluster.storage,
      resources: cluster.resources,
    },
    config,
    kernel: opts.kernel,
    seed: opts.seed,
    outOfTree: new Map(plugins.map((p) => [p.name, p.factory])),
    extraScore: new Map(plugins.filter((p) => p.isScore).map((p) => [p.name, p.weight])),
    extraFilter: plugins.filter((p) => p.isFilter).map((p) => p.name),
  });
  // objects one by one, so that a bad quantity is reported with its file and line
  const at = (o: object) => {
    const s = cluster.sources.get(o);
    return s ? `${s.file}:${s.line}: ` : '';
  };
  for (const n of cluster.nodes) {
    try {
      core.snapshot.addNode(n);
    } catch (e) {
      throw new ClusterFileError(`${at(n)}${(e as Error).message}`);
    }
  }
  for (const p of cluster.boundPods) {
    if (isTerminal(p)) continue;
    try {
      core.snapshot.addPod(p);
    } catch (e) {
      throw new ClusterFileError(`${at(p)}${(e as Error).message}`);
    }
  }
  return { core, cluster, plugins };
}

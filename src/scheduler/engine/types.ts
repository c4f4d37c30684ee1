/**
 * The kernel contract: how the scheduling framework asks the engine to run every node-local
 * Filter and Score plugin of kube-scheduler's default profile over the NodeTable in ONE call
 * per pod.
 *
 * ```
 *   const table = new NodeTable();                 // src/scheduler/engine/table.ts
 *   table.addNode(node); table.addPod(pod);        // incremental, by name
 *   const out = new KernelOutput(table);           // preallocated columns in the table's memory
 *   const q = compilePod(table, pod, scoring);     // PreFilter/PreScore work, once per cycle
 *   const processed = kernel.filterAndScore(table, q, out, { start, numNodesToFind });
 *   for (let i = 0; i < out.feasibleCount; i++) {  // feasible nodes, in the order examined
 *     const n = out.feasible[i];                   // node slot; table.nodeName(n)
 *     out.total[n];                                // Σ weight × normalized score (node-local plugins)
 *   }
 *   // framework: nextStartNodeIndex = (start + processed) % table.size
 * ```
 *
 * Semantics, as kube-scheduler's findNodesThatPassFilters / prioritizeNodes:
 * - Nodes are examined in scan order `table.order[(start + i) % table.size]` (the zone-interleaved
 *   order of upstream's nodeTree) until `numNodesToFind` feasible nodes are found or every node was
 *   examined. The return value is the number of nodes processed (feasible + filtered), which is what
 *   upstream adds to `nextStartNodeIndex`.
 * - Filters run in the default profile's order (NodeUnschedulable, NodeName, TaintToleration,
 *   NodeAffinity, NodePorts, NodeResourcesFit) and, like upstream's RunFilterPlugins, stop at the first
 *   failing plugin unless `allReasons` is set. NodeResourcesFit reports every insufficient resource.
 *   Filters the profile does not enable are not run (`disabledFilters`): feasible means "passed the
 *   enabled ones", so a profile without, say, TaintToleration's filter still scores tainted nodes.
 * - Scores are computed for feasible nodes only; NormalizeScore (TaintToleration reversed,
 *   NodeAffinity) runs over the feasible set found in this call; `total` is the weighted sum of the
 *   node-local plugins only. The framework adds PodTopologySpread / InterPodAffinity itself.
 * - Integer arithmetic exactly as upstream (int64 semantics, truncating division); the js and wasm
 *   kernels return bit-identical columns (tested differentially).
 *
 * This file is the stable contract between the engine and the framework: changes are additive.
 */

import * as L from './layout.js';

/** Kernel implementations share this name space; 'js' is the readable reference. */
export type KernelName = 'js' | 'wasm';

// ------------------------------------------------------------------ filter reasons

/**
 * Bits of the per-node `reasons` column. Bits 0..7 are whole-plugin reasons; bit
 * `REASON_RESOURCE_BASE + r` means "resource r of the table's resource dictionary is insufficient"
 * (r = 0 cpu, 1 memory, 2 ephemeral-storage, 3 pods → "Too many pods", 4.. extended resources).
 */
export const ReasonBit = {
  NodeUnschedulable: L.RB_UNSCHEDULABLE,
  NodeName: L.RB_NODE_NAME,
  TaintToleration: L.RB_TAINT,
  NodeAffinity: L.RB_AFFINITY,
  NodePorts: L.RB_PORTS,
} as const;

/** Filter plugin → its bit in {@link FilterScoreOptions.disabledFilters}. */
export const FilterBit: Readonly<Record<string, number>> = {
  NodeUnschedulable: L.RB_UNSCHEDULABLE,
  NodeName: L.RB_NODE_NAME,
  TaintToleration: L.RB_TAINT,
  NodeAffinity: L.RB_AFFINITY,
  NodePorts: L.RB_PORTS,
  NodeResourcesFit: L.FB_FIT,
};
/** Every node-local filter plugin's bit. */
export const ALL_FILTER_BITS = L.FB_ALL;

/** First bit of the per-resource "Insufficient <name>" reasons. */
export const REASON_RESOURCE_BASE = L.REASON_RESOURCE_BASE;
/** At most this many resources (cpu, memory, ephemeral-storage, pods + 20 extended) per table. */
export const MAX_RESOURCES = 24;
/** Mask of every NodeResourcesFit reason bit. */
export const REASON_FIT_MASK = 0xffffff00 | 0;

/** Upstream's reason strings for the plugin-level bits (pkg/scheduler/framework/plugins/*). */
export const REASON_TEXT: Readonly<Record<number, string>> = {
  [ReasonBit.NodeUnschedulable]: 'node(s) were unschedulable',
  [ReasonBit.NodeName]: "node(s) didn't match the requested node name",
  [ReasonBit.TaintToleration]: 'node(s) had untolerated taint(s)',
  [ReasonBit.NodeAffinity]: "node(s) didn't match Pod's node affinity/selector",
  [ReasonBit.NodePorts]: "node(s) didn't have free ports for the requested pod ports",
};

/** The plugin that owns each plugin-level reason bit (for "didn't satisfy plugin(s)" summaries). */
export const REASON_PLUGIN: Readonly<Record<number, string>> = {
  [ReasonBit.NodeUnschedulable]: 'NodeUnschedulable',
  [ReasonBit.NodeName]: 'NodeName',
  [ReasonBit.TaintToleration]: 'TaintToleration',
  [ReasonBit.NodeAffinity]: 'NodeAffinity',
  [ReasonBit.NodePorts]: 'NodePorts',
};

/** Reason text of "Insufficient <resource>" / "Too many pods", as NodeResourcesFit words it. */
export function resourceReason(resourceName: string): string {
  return resourceName === 'pods' ? 'Too many pods' : `Insufficient ${resourceName}`;
}

// ------------------------------------------------------------------ score plugins

/** Index of each node-local score plugin's columns in {@link KernelOutputColumns}. */
export const ScorePlugin = {
  TaintToleration: L.SP_TAINT_TOLERATION,
  NodeAffinity: L.SP_NODE_AFFINITY,
  NodeResourcesFit: L.SP_NODE_RESOURCES_FIT,
  NodeResourcesBalancedAllocation: L.SP_BALANCED_ALLOCATION,
  ImageLocality: L.SP_IMAGE_LOCALITY,
} as const;
export type ScorePluginName = keyof typeof ScorePlugin;
export const SCORE_PLUGINS: readonly ScorePluginName[] = [
  'TaintToleration',
  'NodeAffinity',
  'NodeResourcesFit',
  'NodeResourcesBalancedAllocation',
  'ImageLocality',
];
export const NUM_SCORE_PLUGINS = L.NUM_SCORE_PLUGINS;

/** kube-scheduler's default profile weights (pkg/scheduler/apis/config/v1/default_plugins.go). */
export const DEFAULT_SCORE_WEIGHTS: Readonly<
  Record<ScorePluginName | 'PodTopologySpread' | 'InterPodAffinity', number>
> = {
  TaintToleration: 3,
  NodeAffinity: 2,
  NodeResourcesFit: 1,
  NodeResourcesBalancedAllocation: 1,
  ImageLocality: 1,
  PodTopologySpread: 2,
  InterPodAffinity: 2,
};

/** MaxNodeScore of the framework. */
export const MAX_NODE_SCORE = 100;

/** One `{name, weight}` of NodeResourcesFitArgs.scoringStrategy.resources / BalancedAllocationArgs.resources. */
export interface ResourceSpec {
  name: string;
  weight: number;
}

/** One point of RequestedToCapacityRatio's shape: utilization 0..100, score 0..10 (MaxCustomPriorityScore). */
export interface UtilizationShapePoint {
  utilization: number;
  score: number;
}

/** The strategy id a compiled query carries (layout.ts FIT_*), by NodeResourcesFitArgs.scoringStrategy.type. */
export const FIT_STRATEGY_IDS: Readonly<Record<ScoringStrategy['type'], number>> = {
  LeastAllocated: L.FIT_LEAST_ALLOCATED,
  MostAllocated: L.FIT_MOST_ALLOCATED,
  RequestedToCapacityRatio: L.FIT_REQUESTED_TO_CAPACITY_RATIO,
};

/** NodeResourcesFitArgs.scoringStrategy. Default: LeastAllocated over cpu:1, memory:1. */
export interface ScoringStrategy {
  type: 'LeastAllocated' | 'MostAllocated' | 'RequestedToCapacityRatio';
  resources?: ResourceSpec[];
  /** only for RequestedToCapacityRatio; points sorted by increasing utilization */
  shape?: UtilizationShapePoint[];
}

/**
 * The per-profile scoring configuration the query compiler folds into each PodQuery.
 * A weight of 0 disables a plugin (its columns are left at 0 and it adds nothing to `total`).
 */
export interface ScoringConfig {
  weights?: Partial<Record<ScorePluginName, number>>;
  fit?: ScoringStrategy;
  /** NodeResourcesBalancedAllocationArgs.resources; default cpu:1, memory:1 */
  balancedResources?: ResourceSpec[];
  /**
   * BalancedAllocation's PreScore runs, so a best-effort pod (every request of its resources 0) is
   * skipped — the kernel writes 0 for it. false: a profile that disables that PreScore, where
   * upstream's Score computes the pod's requests itself and scores it. Default true.
   */
  balancedSkipsBestEffort?: boolean;
}

// ------------------------------------------------------------------ options and output

/** One filter+score call over a window of nodes (upstream's percentageOfNodesToScore sampling). */
export interface FilterScoreOptions {
  /** position in scan order to start from (upstream nextStartNodeIndex); taken modulo table.size */
  start?: number;
  /** stop once this many feasible nodes are found (upstream numFeasibleNodesToFind); default all */
  numNodesToFind?: number;
  /** examine at most this many nodes from `start` (1: exactly the node at `start`); default all */
  maxNodes?: number;
  /** evaluate every filter on a failing node (for explain); default false = stop at first failing plugin */
  allReasons?: boolean;
  /** skip scoring (filter only), e.g. for capacity "does it fit anywhere" questions */
  skipScore?: boolean;
  /**
   * node-local filter plugins NOT to run, as a mask of {@link FilterBit} values: those the profile
   * does not enable. A node passing the others is feasible and scored — upstream scores every node
   * the profile's filters let through. Default 0: all six run.
   */
  disabledFilters?: number;
  /**
   * which score columns to write: 'all' (default) raw, normalized and total; 'raw' only the raw
   * columns, no NormalizeScore (the framework runs NormalizeScore itself); 'total' only `total`
   * (raw and normalized columns are undefined afterwards) — the cheapest, for callers that only
   * select a host (capacity planning, the engine benchmark)
   */
  output?: 'all' | 'raw' | 'total';
}

/** Values of the per-node `status` column. */
export const NodeStatus = {
  NotEvaluated: L.ST_NOT_EVALUATED,
  Feasible: L.ST_FEASIBLE,
  Filtered: L.ST_FILTERED,
} as const;

/**
 * Output columns written by a kernel, indexed by node slot (0 .. table.capacity-1). Only nodes
 * examined in the last call are written; `status` says which. Views live in the table's
 * WebAssembly.Memory; the KernelOutput class re-creates them when that memory grows, so read them
 * through the object right after the call rather than caching them across table updates.
 */
export interface KernelOutputColumns {
  /** {@link NodeStatus} per node slot */
  readonly status: Uint8Array;
  /** failed-filter bitmask per node slot ({@link ReasonBit}, REASON_RESOURCE_BASE + resource) */
  readonly reasons: Uint32Array;
  /** node slots that passed every filter, in the order examined; first `feasibleCount` entries */
  readonly feasible: Int32Array;
  feasibleCount: number;
  /** raw score of plugin p (see {@link ScorePlugin}) for node slot n: raw(p)[n] */
  raw(plugin: number): Int32Array;
  /** score after NormalizeScore (== raw for plugins without one): normalized(p)[n] */
  normalized(plugin: number): Int32Array;
  /** Σ weight_p × normalized_p over the node-local plugins, per node slot */
  readonly total: Int32Array;
}

/**
 * The parts of the NodeTable the framework reads (node slots ↔ names, scan order, topology
 * domains for PodTopologySpread / InterPodAffinity). Implemented by NodeTable.
 */
export interface NodeTableView {
  /** number of live nodes */
  readonly size: number;
  /** node slots in scan order (zone-interleaved like upstream's nodeTree); first `size` entries */
  readonly order: Int32Array;
  /** slot of a node by name, or -1 */
  nodeIndex(name: string): number;
  /** name of the node in a slot (throws on an empty slot) */
  nodeName(slot: number): string;
  /** registers a topology label key (idempotent) and returns its row for {@link topologyDomain} */
  registerTopologyKey(key: string): number;
  /** domain id (≥ 0) of node `slot` in row `keyIndex`, or -1 (unlabeled, or not written) */
  topologyDomain(keyIndex: number, slot: number): number;
  /**
   * writes a row: node `slots[i]` is in domain `ids[i]` (−1: no domain), every other slot in none.
   * The framework writes its snapshot's dense domain ids (ClusterSnapshot.topologyDomains), so the
   * per-domain arrays it computes per cycle index the kernel's rows directly.
   */
  setTopologyDomains(keyIndex: number, slots: ArrayLike<number>, ids: ArrayLike<number>): void;
}

/**
 * A kernel runs every node-local filter and score plugin for one compiled pod over the table,
 * allocating nothing per node. Returns the number of nodes processed.
 */
export interface Kernel<
  Table = unknown,
  Query = unknown,
  Output extends KernelOutputColumns = KernelOutputColumns,
> {
  readonly name: KernelName;
  filterAndScore(table: Table, query: Query, out: Output, opts?: FilterScoreOptions): number;
}

// ------------------------------------------------------------------ sampling

/** upstream minFeasibleNodesToFind / minFeasibleNodesPercentageToFind (pkg/scheduler/schedule_one.go) */
export const MIN_FEASIBLE_NODES_TO_FIND = 100;
export const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;

/**
 * How many feasible nodes upstream looks for before it stops filtering (numFeasibleNodesToFind, with
 * upstream's argument order). `percentageOfNodesToScore` 0 or absent is adaptive: 50 - numAllNodes/125,
 * at least 5 — e.g. 1,000 nodes → 42% = 420; 5,000 → 10% = 500; 15,000 → 5% = 750. Fewer than 100
 * nodes → all of them; never fewer than 100. Integer arithmetic as in Go.
 */
export function numFeasibleNodesToFind(
  percentageOfNodesToScore: number | undefined,
  numAllNodes: number,
): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND) return numAllNodes;
  let p = (percentageOfNodesToScore ?? 0) | 0;
  if (p === 0) {
    p = 50 - Math.trunc(numAllNodes / 125);
    if (p < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND) p = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
  }
  const n = Math.trunc((numAllNodes * p) / 100);
  return n < MIN_FEASIBLE_NODES_TO_FIND ? MIN_FEASIBLE_NODES_TO_FIND : n;
}

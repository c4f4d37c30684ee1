/** Capacity planning: what fits, what-ifs, fragmentation, strategy comparison, the worker pool. */
export {
  planCapacity,
  minNodesToAdd,
  minNodesChoice,
  spreadOverZones,
  placeOne,
  replicaOf,
  PlanError,
  type PlanOptions,
  type PlanReport,
  type ShapePlan,
  type MinNodesResult,
  type MinNodesChoice,
  type DisplacedReport,
  type WorkloadReport,
  type UnplacedPod,
  type SchedulerChoice,
} from './planner.js';
export {
  applyWhatIfs,
  parseWhatIf,
  cloneNode,
  zoneName,
  WhatIfError,
  type WhatIf,
  type WhatIfResult,
  type ClusterState,
} from './whatif.js';
export { fragmentation, type FragmentationReport, type NodeFragment } from './fragmentation.js';
export {
  compareStrategies,
  runStrategy,
  resolveStrategy,
  utilization,
  BUILTIN_STRATEGIES,
  type Strategy,
  type StrategyResult,
} from './strategies.js';
export { PlannerPool, PoolError, type PlannerPoolOptions } from './pool.js';
export { runPoolTask, type PoolTask, type PoolResult } from './pool-tasks.js';
export {
  renderPlanText,
  renderPlanHtml,
  renderStrategiesText,
  renderMinNodesText,
  renderMinNodesHtml,
  renderMinNodesChoiceText,
  renderSweepText,
  renderSweepHtml,
  type SweepCase,
} from './report.js';
export { loadPlanCluster, toPlanCluster, unusedText, type PlanCluster } from './cluster-input.js';
export {
  missingReplicas,
  daemonSetPods,
  daemonPodEligible,
  type ClusterWorkloads,
  type DaemonSetPlan,
  type PendingPod,
} from './workloads.js';

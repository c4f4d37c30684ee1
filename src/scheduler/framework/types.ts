/**
 * Extension-point interfaces of the scheduling framework, one small interface per point as in
 * kube-scheduler (pkg/scheduler/framework/interface.go). A plugin implements any subset; the
 * framework finds out which by the methods present and by the profile's plugin sets.
 *
 * Conventions: `null` is Success; expected outcomes are Status values; a thrown exception is a
 * broken invariant and becomes an Error status at the framework boundary.
 */
import type { Pod } from '../../api/types.js';
import type { Rng } from '../../util/rng.js';
import type { Clock } from '../../util/clock.js';
import type { CycleState } from './cycle-state.js';
import type { ClusterSnapshot, NodeInfo, PodInfo } from './snapshot.js';
import type { MaybeStatus, Status } from './status.js';

/** upstream framework.MaxNodeScore / MinNodeScore */
export const MAX_NODE_SCORE = 100;
export const MIN_NODE_SCORE = 0;

export interface Plugin {
  readonly name: string;
}

/**
 * upstream framework.PreFilterResult: PreFilter's answer that only these nodes can fit, so the
 * framework filters no other (NodeAffinity's `matchFields: metadata.name`). Returned instead of a
 * Status, it means Success.
 */
export interface PreFilterResult {
  readonly nodeNames: ReadonlySet<string>;
}

export interface PreFilterPlugin extends Plugin {
  /**
   * computes per-pod state once; Skip means "Filter has nothing to check for this pod"; a
   * {@link PreFilterResult} narrows the nodes the cycle filters
   */
  preFilter(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): MaybeStatus | PreFilterResult;
  /** PreFilterExtensions: keep the PreFilter state right when preemption adds/removes pods */
  addPod?(state: CycleState, podToSchedule: Pod, podToAdd: PodInfo, nodeInfo: NodeInfo): MaybeStatus;
  removePod?(state: CycleState, podToSchedule: Pod, podToRemove: PodInfo, nodeInfo: NodeInfo): MaybeStatus;
}

export interface FilterPlugin extends Plugin {
  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): MaybeStatus;
}

/** What a PostFilter plugin (preemption) proposes. The scheduler loop carries out evictions. */
export interface PostFilterResult {
  nominatedNodeName?: string;
  /** pods to evict so that the pod fits on nominatedNodeName */
  victims?: Pod[];
  /** how many of the victims violate a PodDisruptionBudget (extenderv1.Victims.NumPDBViolations) */
  numPDBViolations?: number;
}

export interface PostFilterPlugin extends Plugin {
  postFilter(
    state: CycleState,
    pod: Pod,
    statuses: ReadonlyMap<string, Status>,
  ): { result?: PostFilterResult; status: MaybeStatus };
}

export interface PreScorePlugin extends Plugin {
  preScore(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): MaybeStatus;
}

export interface ScorePlugin extends Plugin {
  /** raw score of one feasible node */
  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number;
  /** optional batch form: raw scores of all feasible nodes in one call (kernels use this) */
  scoreAll?(state: CycleState, pod: Pod, nodes: readonly NodeInfo[], out: number[]): void;
  /** ScoreExtensions.NormalizeScore: rescale `scores` (aligned with `nodes`) in place to 0..100 */
  normalizeScore?(state: CycleState, pod: Pod, nodes: readonly NodeInfo[], scores: number[]): MaybeStatus;
}

export interface ReservePlugin extends Plugin {
  reserve(state: CycleState, pod: Pod, nodeName: string): MaybeStatus;
  unreserve(state: CycleState, pod: Pod, nodeName: string): void;
}

export interface PreBindPlugin extends Plugin {
  /** runs after Permit and before Bind (VolumeBinding writes the volume bindings it assumed) */
  preBind(state: CycleState, pod: Pod, nodeName: string): Promise<MaybeStatus>;
}

export interface PermitPlugin extends Plugin {
  /** Success or a rejection; upstream's Wait is not modelled (see docs/scheduler.md) */
  permit(state: CycleState, pod: Pod, nodeName: string): MaybeStatus;
}

export interface BindPlugin extends Plugin {
  /** Skip hands the pod to the next bind plugin */
  bind(state: CycleState, pod: Pod, nodeName: string): Promise<MaybeStatus>;
}

/** A pod waiting in the scheduling queue (upstream QueuedPodInfo). */
export interface QueuedPodInfo {
  pod: Pod;
  key: string;
  /** when the pod was (last) added to the queue, clock ms */
  timestamp: number;
  /** first time the pod was added, clock ms (for latency metrics) */
  initialAttemptTimestamp: number;
  attempts: number;
  /** plugins that rejected the pod in its last attempt (for event-driven requeueing) */
  unschedulablePlugins: Set<string>;
}

export interface QueueSortPlugin extends Plugin {
  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean;
}

/** Cluster event kinds the queue understands (upstream framework.ClusterEvent, simplified). */
export type ClusterEventKind =
  | 'NodeAdd'
  | 'NodeUpdate'
  | 'NodeDelete'
  | 'AssignedPodAdd'
  | 'AssignedPodUpdate'
  | 'AssignedPodDelete'
  | 'UnscheduledPodUpdate'
  /** a PersistentVolume, PersistentVolumeClaim, StorageClass or CSINode was added or changed */
  | 'StorageChange'
  /** a DeviceClass, ResourceClaim or ResourceSlice was added or changed */
  | 'ResourceChange';

export interface EnqueueExtensions extends Plugin {
  /** events that may make a pod rejected by this plugin schedulable */
  eventsToRegister(): ClusterEventKind[];
}

/** Objects a plugin may need beyond nodes and pods (PodTopologySpread's default selectors). */
export interface ClusterObjects {
  services?: import('../../api/types.js').Service[];
  replicaSets?: import('../../api/types.js').ReplicaSet[];
  /** any other controller with spec.selector (StatefulSets, ReplicationControllers) */
  others?: { metadata: { namespace?: string }; spec?: { selector?: unknown } }[];
  /**
   * The services or ReplicaSets of one namespace, when a lister answers that without listing every
   * object (an informer's namespace index); otherwise readers filter `services` / `replicaSets`.
   */
  inNamespace?: (kind: 'services' | 'replicaSets', namespace: string) => readonly object[];
  /** DefaultPreemption's PDB criterion (upstream: the PodDisruptionBudget lister) */
  podDisruptionBudgets?: import('../../api/batch-types.js').PodDisruptionBudget[];
  /** the volume plugins' listers: PVs, PVCs, StorageClasses, CSINodes, CSIDrivers, VolumeAttachments */
  storage?: import('../../api/storage-types.js').StorageObjects;
  /** the DynamicResources plugin's listers: DeviceClasses, ResourceClaims, templates, ResourceSlices */
  resources?: import('../../api/resource-types.js').ResourceObjects;
}

/**
 * What a plugin may call on its profile's framework: DefaultPreemption re-runs the filters on a
 * copy of the cycle state with victims removed (upstream framework.Framework in interface.go,
 * implemented by runtime.frameworkImpl; here framework.ts's Framework).
 */
export interface FrameworkHandle {
  runFilterWithNominatedPods(state: CycleState, pod: Pod, ni: NodeInfo): MaybeStatus;
  runAddPod(state: CycleState, pod: Pod, toAdd: PodInfo, ni: NodeInfo): MaybeStatus;
  runRemovePod(state: CycleState, pod: Pod, toRemove: PodInfo, ni: NodeInfo): MaybeStatus;
}

/** What a plugin factory receives (upstream framework.Handle, reduced to what kubesim needs). */
export interface Handle {
  snapshot: ClusterSnapshot;
  rng: Rng;
  clock: Clock;
  objects: ClusterObjects;
  /** the profile's framework, for plugins that re-run filters (preemption); set after construction */
  framework?: FrameworkHandle;
  /** the engine's node table / kernels, when the profile uses them */
  engine?: unknown;
  /** binds through the ApiServer (DefaultBinder); absent in pure what-if runs */
  bind?: (pod: Pod, nodeName: string) => Promise<MaybeStatus>;
  /**
   * writes an object (or its status) through the ApiServer (VolumeBinding's and DynamicResources'
   * PreBind); absent in pure what-if runs
   */
  update?: (obj: import('../../api/types.js').KubeObject, subresource?: 'status') => Promise<MaybeStatus>;
  /**
   * resolves with true after `ms` on the scheduler's clock, or with false as soon as the scheduler
   * stops (upstream: the binding cycle's context): VolumeBinding's PreBind waits with it; absent
   * in pure what-if runs
   */
  sleep?: (ms: number) => Promise<boolean>;
}

export type PluginFactory = (args: Record<string, unknown> | undefined, handle: Handle) => Plugin;

/**
 * The DaemonSet rules more than one component needs (upstream: pkg/controller/daemon/util/
 * daemonset_util.go and daemon_controller.go's NodeShouldRunDaemonPod): the DaemonSet controller
 * decides with them which nodes get a pod, and capacity planning (src/capacity/workloads.ts)
 * counts the pods the controller will create. One home, so both always agree.
 */
import { compileRequiredNodeAffinity } from '../api/node-affinity.js';
import { findMatchingUntoleratedTaint } from '../api/taints.js';
import type { Affinity, DaemonSet, Node, Pod } from '../api/types.js';
import { scaledValue } from './deployment-util.js';

/** apps.ControllerRevisionHashLabelKey (DefaultDaemonSetUniqueLabelKey) */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';

export interface ShouldRun {
  /** a node without the DaemonSet's pod should get one */
  shouldRun: boolean;
  /** a pod already on the node may stay (untolerated NoSchedule taints do not evict) */
  shouldContinueRunning: boolean;
}

const NOT_AT_ALL: ShouldRun = { shouldRun: false, shouldContinueRunning: false };

/**
 * NodeShouldRunDaemonPod for the DaemonSet pod `pod` (its template with the default daemon
 * tolerations, i.e. podFromWorkload(ds)): the template's nodeName, its nodeSelector and required
 * node affinity must match the node; an untolerated NoSchedule or NoExecute taint stops new pods,
 * and only an untolerated NoExecute one stops a running pod. `affinity` may be passed compiled
 * once for many nodes.
 */
export function nodeShouldRunDaemonPod(
  pod: Pod,
  node: Node,
  affinity: (node: Node) => boolean = compileRequiredNodeAffinity(pod),
): ShouldRun {
  if (pod.spec.nodeName && pod.spec.nodeName !== node.metadata.name) return NOT_AT_ALL;
  if (!affinity(node)) return NOT_AT_ALL;
  const taints = node.spec?.taints;
  const tolerations = pod.spec.tolerations;
  const blocking = findMatchingUntoleratedTaint(
    taints,
    tolerations,
    (t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute',
  );
  if (blocking === undefined) return { shouldRun: true, shouldContinueRunning: true };
  const evicting = findMatchingUntoleratedTaint(taints, tolerations, (t) => t.effect === 'NoExecute');
  return { shouldRun: false, shouldContinueRunning: evicting === undefined };
}

/**
 * ReplaceDaemonSetPodNodeNameNodeAffinity: the pod's required node affinity becomes one term
 * `metadata.name In [node]` (any other required terms are dropped; preferred terms are kept), so the
 * scheduler binds the pod to that node. Returns a new Affinity; the argument is not modified.
 */
export function replaceDaemonSetPodNodeNameNodeAffinity(
  affinity: Affinity | undefined,
  nodeName: string,
): Affinity {
  const term = { matchFields: [{ key: 'metadata.name', operator: 'In' as const, values: [nodeName] }] };
  return {
    ...(affinity ?? {}),
    nodeAffinity: {
      ...(affinity?.nodeAffinity ?? {}),
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] },
    },
  };
}

/**
 * GetTargetNodeName: spec.nodeName of a bound pod, else the single node its required node affinity
 * names by `metadata.name In [x]` (what the DaemonSet controller pinned it to); undefined when
 * neither says (upstream returns an error).
 */
export function getTargetNodeName(pod: Pod): string | undefined {
  if (pod.spec.nodeName) return pod.spec.nodeName;
  const terms =
    pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  for (const t of terms ?? []) {
    for (const f of t.matchFields ?? []) {
      if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0];
    }
  }
  return undefined;
}

/** the DaemonSet's template generation (apps/v1: the deprecated.daemonset.template.generation annotation) */
export function templateGeneration(ds: DaemonSet): string | undefined {
  return ds.metadata.annotations?.['deprecated.daemonset.template.generation'];
}

/**
 * IsPodUpdated: the pod carries the current revision's hash, or the DaemonSet's template
 * generation in its pod-template-generation label (how a snapshot's pods, whose hash kubesim does
 * not compute the same way, are known to be current).
 */
export function isPodUpdated(pod: Pod, hash: string, generation: string | undefined): boolean {
  const labels = pod.metadata.labels;
  const templateMatches = generation !== undefined && labels?.['pod-template-generation'] === generation;
  return templateMatches || (hash.length > 0 && labels?.[CONTROLLER_REVISION_HASH_LABEL] === hash);
}

function rollingParams(ds: DaemonSet) {
  const s = ds.spec.updateStrategy;
  if ((s?.type ?? 'RollingUpdate') !== 'RollingUpdate') return undefined;
  return s?.rollingUpdate ?? { maxUnavailable: 1 };
}

/** UnavailableCount: maxUnavailable scaled to `desired` (percentages round up); 0 for OnDelete. */
export function unavailableCount(ds: DaemonSet, desired: number): number {
  const r = rollingParams(ds);
  return r ? scaledValue(r.maxUnavailable ?? 1, desired, true) : 0;
}

/** SurgeCount: maxSurge scaled to `desired` (percentages round up); 0 for OnDelete. */
export function surgeCount(ds: DaemonSet, desired: number): number {
  const r = rollingParams(ds);
  return r ? scaledValue(r.maxSurge ?? 0, desired, true) : 0;
}

/** AllowsSurge: a rolling update that may run an old and a new pod on one node at once. */
export function allowsSurge(ds: DaemonSet): boolean {
  return surgeCount(ds, 1) !== 0;
}

/** podByCreationTimestampAndPhase: scheduled pods first, then oldest first, then by name. */
export function comparePodsByCreation(a: Pod, b: Pod): number {
  const an = a.spec.nodeName ? 0 : 1;
  const bn = b.spec.nodeName ? 0 : 1;
  if (an !== bn) return an - bn;
  const at = Date.parse(a.metadata.creationTimestamp ?? '') || 0;
  const bt = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
  if (at !== bt) return at - bt;
  const x = a.metadata.name ?? '';
  const y = b.metadata.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}

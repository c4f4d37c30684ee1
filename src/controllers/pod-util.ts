/** Pod helpers shared by controllers, with upstream's definitions (k8s.io/kubernetes/pkg/api/v1/pod, controller_utils). */
import type { KubeObject, OwnerReference, Pod, PodCondition } from '../api/types.js';

export function getPodCondition(pod: Pod, type: string): PodCondition | undefined {
  // a loop, not find(): called for every pod of every sample and sync
  const cs = pod.status?.conditions;
  if (cs) for (let i = 0; i < cs.length; i++) if (cs[i].type === type) return cs[i];
  return undefined;
}

/** podutil.IsPodReady: the Ready condition is True */
export function isPodReady(pod: Pod): boolean {
  return getPodCondition(pod, 'Ready')?.status === 'True';
}

/** podutil.IsPodAvailable: Ready for at least minReadySeconds at `nowMs` */
export function isPodAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  const c = getPodCondition(pod, 'Ready');
  if (c?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const t = c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN;
  return !Number.isNaN(t) && t + minReadySeconds * 1000 <= nowMs;
}

/** controller.IsPodActive: not terminal and not being deleted */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

/** metav1.GetControllerOf */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller);
}

/** an owner reference marking `owner` as the controller (metav1.NewControllerRef) */
export function controllerRef(owner: KubeObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** index function: the uid of the object's controller */
export function controllerUidIndex(obj: KubeObject): string[] {
  const r = controllerOf(obj);
  return r ? [r.uid] : [];
}
export const CONTROLLER_UID_INDEX = 'controller-uid';

/** index function: the node a pod is bound to (the controllers that walk a node's pods share it) */
export function nodeNameIndex(p: Pod): string[] {
  return p.spec.nodeName ? [p.spec.nodeName] : [];
}
export const NODE_NAME_INDEX = 'nodeName';

const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** apimachinery's rand.String(n) alphabet (no vowels, no confusable characters) from a seeded source */
export function randomSuffix(next: () => number, n = 5): string {
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHANUMS[Math.floor(next() * ALPHANUMS.length)];
  return s;
}

/**
 * The grace period a plain `DELETE` of this pod gets: spec.terminationGracePeriodSeconds, default
 * 30 (the pod strategy's CheckGracefulDelete). Passed explicitly so that any ApiServer, whatever
 * its default for an absent gracePeriodSeconds, marks a bound pod Terminating first.
 */
export function podGracePeriod(pod: Pod): number {
  return pod.spec.terminationGracePeriodSeconds ?? 30;
}

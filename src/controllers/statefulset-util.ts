/**
 * StatefulSet identity and revision helpers (upstream: pkg/controller/statefulset/
 * stateful_set_utils.go, release-1.34): pod names `<set>-<ordinal>`, the per-pod identity labels,
 * hostname and subdomain, the volumes that point at each ordinal's claims, and the pod readiness
 * predicates the controller orders its work by.
 */
import type { Pod, StatefulSet } from '../api/types.js';
import { isPodAvailable, isPodReady } from './pod-util.js';

/** a pod volume (only its name and claim matter here) */
type Volume = { name: string; [field: string]: unknown };

/** apps.StatefulSetPodNameLabel */
export const STATEFULSET_POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
/** apps.PodIndexLabel (PodIndexLabel, GA in v1.32) */
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

/** getStartOrdinal: spec.ordinals.start (default 0) */
export function startOrdinal(set: StatefulSet): number {
  return set.spec.ordinals?.start ?? 0;
}

/** getEndOrdinal: the last ordinal of the wanted range */
export function endOrdinal(set: StatefulSet): number {
  return startOrdinal(set) + (set.spec.replicas ?? 1) - 1;
}

/** getPodName */
export function podName(set: StatefulSet, ordinal: number): string {
  return `${set.metadata.name}-${ordinal}`;
}

/** getParentNameAndOrdinal: the ordinal of a pod named `<parent>-<n>`, -1 when the name is not one */
export function ordinalOf(set: StatefulSet, pod: Pod): number {
  const prefix = `${set.metadata.name}-`;
  const name = pod.metadata.name ?? '';
  if (!name.startsWith(prefix)) return -1;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : -1;
}

/** getPersistentVolumeClaimName: `<template>-<set>-<ordinal>` */
export function claimName(set: StatefulSet, template: string, ordinal: number): string {
  return `${template}-${set.metadata.name}-${ordinal}`;
}

/**
 * initIdentity + updateStorage: hostname, subdomain (the governing service), the pod-name and
 * pod-index labels, and one volume per volumeClaimTemplate naming the ordinal's claim (replacing a
 * template volume of the same name, as upstream).
 */
export function setIdentity(set: StatefulSet, pod: Pod, ordinal: number): void {
  const name = podName(set, ordinal);
  pod.metadata.name = name;
  pod.metadata.namespace = set.metadata.namespace;
  pod.metadata.labels = {
    ...(pod.metadata.labels ?? {}),
    [STATEFULSET_POD_NAME_LABEL]: name,
    [POD_INDEX_LABEL]: String(ordinal),
  };
  pod.spec.hostname = name;
  if (set.spec.serviceName) pod.spec.subdomain = set.spec.serviceName;
  const templates = set.spec.volumeClaimTemplates ?? [];
  if (templates.length === 0) return;
  const claims = new Map<string, Volume>();
  for (const t of templates) {
    const n = t.metadata?.name ?? '';
    claims.set(n, { name: n, persistentVolumeClaim: { claimName: claimName(set, n, ordinal) } });
  }
  const volumes = (pod.spec.volumes as Volume[] | undefined) ?? [];
  const kept = volumes.filter((v) => !claims.has(v.name));
  pod.spec.volumes = [...kept, ...claims.values()];
}

/** identityMatches: the pod carries its ordinal's name, namespace and labels */
export function identityMatches(set: StatefulSet, pod: Pod, ordinal: number): boolean {
  const name = podName(set, ordinal);
  const l = pod.metadata.labels ?? {};
  return (
    pod.metadata.name === name &&
    pod.metadata.namespace === set.metadata.namespace &&
    l[STATEFULSET_POD_NAME_LABEL] === name &&
    l[POD_INDEX_LABEL] === String(ordinal)
  );
}

export const isCreated = (p: Pod): boolean => p.status?.phase !== undefined;
export const isTerminating = (p: Pod): boolean => p.metadata.deletionTimestamp !== undefined;
export const isFailed = (p: Pod): boolean => p.status?.phase === 'Failed';
export const isSucceeded = (p: Pod): boolean => p.status?.phase === 'Succeeded';

/** isRunningAndReady */
export function isRunningAndReady(p: Pod): boolean {
  return p.status?.phase === 'Running' && isPodReady(p);
}

/** isRunningAndAvailable */
export function isRunningAndAvailable(p: Pod, minReadySeconds: number, nowMs: number): boolean {
  return p.status?.phase === 'Running' && isPodAvailable(p, minReadySeconds, nowMs);
}

/** isHealthy: created, running and ready, not terminating */
export function isHealthy(p: Pod): boolean {
  return isCreated(p) && isRunningAndReady(p) && !isTerminating(p);
}

/** allowsBurst: Parallel pod management */
export function allowsBurst(set: StatefulSet): boolean {
  return set.spec.podManagementPolicy === 'Parallel';
}

/**
 * A cluster snapshot as the capacity commands read it: the scheduler's view (ClusterFile: nodes,
 * pods, the objects plugins read) plus the workloads whose pods are still to come and the
 * PriorityClasses that give those pods their priority — and the list of what the answer does not
 * use, so the CLI can name it in one warning line instead of dropping it silently.
 */
import { kindsWithCRDs, loadValidManifests } from '../api/manifest-check.js';
import type { LoadedObject } from '../api/manifest.js';
import type { PriorityClassLike } from '../api/priority.js';
import type { PodDisruptionBudget } from '../api/batch-types.js';
import type { KubeObject } from '../api/types.js';
import { type ClusterFile, SNAPSHOT_KINDS, sortClusterObjects } from '../scheduler/framework/cluster-file.js';
import { type ClusterWorkloads, NO_WORKLOADS } from './workloads.js';

/** A snapshot with its workloads. */
export interface PlanCluster extends ClusterFile {
  workloads: ClusterWorkloads;
}

/** Kinds the scheduler's view keeps: the snapshot kinds of cluster-file.ts. */
const SCHEDULER_KINDS = new Set(SNAPSHOT_KINDS);

/**
 * Sort loaded objects into a {@link PlanCluster}; `unused` counts the rest by kind (`Job`,
 * `ServiceMonitor.monitoring.coreos.com`; kinds no built-in or input CRD serves are marked
 * `(unknown kind)`), in first-seen order.
 */
export function toPlanCluster(objs: LoadedObject[]): { cluster: PlanCluster; unused: Map<string, number> } {
  const kinds = kindsWithCRDs(objs);
  const workloads: ClusterWorkloads = {
    deployments: [],
    statefulSets: [],
    replicationControllers: [],
    daemonSets: [],
    priorityClasses: [],
  };
  const unused = new Map<string, number>();
  const known: LoadedObject[] = [];
  for (const o of objs) {
    const obj = o.object as KubeObject;
    const info = kinds.lookupKind(obj.apiVersion, obj.kind);
    const builtin = info && !info.crd;
    if (builtin && SCHEDULER_KINDS.has(obj.kind)) known.push(o);
    // kept for a drain= what-if, and still reported unused (the CLI drops it from the warning when drained)
    if (builtin && obj.kind === 'PodDisruptionBudget')
      (workloads.podDisruptionBudgets ??= []).push(obj as unknown as PodDisruptionBudget);
    if (builtin && obj.kind === 'StatefulSet') workloads.statefulSets.push(obj);
    else if (builtin && obj.kind === 'ReplicationController') workloads.replicationControllers.push(obj);
    else if (builtin && obj.kind === 'Deployment') workloads.deployments.push(obj);
    else if (builtin && obj.kind === 'DaemonSet') workloads.daemonSets.push(obj);
    else if (builtin && obj.kind === 'PriorityClass')
      workloads.priorityClasses.push(obj as unknown as PriorityClassLike);
    else if (!builtin || !SCHEDULER_KINDS.has(obj.kind)) {
      const label = !info
        ? `${obj.apiVersion ?? '?'} ${obj.kind ?? '?'} (unknown kind)`
        : info.crd
          ? `${obj.kind}.${info.group}`
          : obj.kind;
      unused.set(label, (unused.get(label) ?? 0) + 1);
    }
  }
  const cluster: PlanCluster = { ...sortClusterObjects(known), workloads };
  for (const o of objs) cluster.sources.set(o.object, o.source);
  return { cluster, unused };
}

/**
 * Load snapshot files (kubectl -f semantics) through the one validating loader into a
 * {@link PlanCluster}: an object the apiserver would reject is an error naming file, line, object
 * and field (api/manifest-check.ts loadValidManifests).
 */
export async function loadPlanCluster(
  paths: string[],
): Promise<{ cluster: PlanCluster; unused: Map<string, number> }> {
  return toPlanCluster(await loadValidManifests(paths, { recursive: false }));
}

/** `2 ConfigMap, 1 PodDisruptionBudget, …` — the one warning line's list. */
export function unusedText(unused: Map<string, number>): string {
  return [...unused].map(([kind, n]) => `${n} ${kind}`).join(', ');
}

/** The workloads of a plain ClusterFile (none). */
export function workloadsOf(cluster: ClusterFile): ClusterWorkloads {
  return (cluster as Partial<PlanCluster>).workloads ?? NO_WORKLOADS;
}

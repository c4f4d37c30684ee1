/**
 * The `drain=NODE[,NODE]` what-if: `kubectl drain --ignore-daemonsets --delete-emptydir-data --force`
 * as a capacity question. The nodes are cordoned; their pods (not DaemonSet-managed, not mirror pods,
 * not finished) are evicted through their PodDisruptionBudgets:
 *
 * - a pod no budget covers is evicted;
 * - a pod whose budget allows a disruption now (its status as the disruption controller computes it
 *   on the snapshot: src/controllers/disruption.ts) is evicted — the drain goes pod by pod, each
 *   replacement restoring the budget, as the simulation's drain shows;
 * - a pod whose budget allows none stays on the cordoned node, as kubectl drain keeps retrying it.
 *
 * Evicted pods are displaced (placed again before counting). Simplified: a budget that allows one
 * disruption lets all its pods on the node go, assuming each replacement finds room and becomes
 * Ready (the plan reports replacements that do not fit as unplaced displaced pods).
 */
import { pdbSelectsPod } from '../api/apiserver-evict.js';
import type { PodDisruptionBudget } from '../api/batch-types.js';
import type { KubeObject, Pod } from '../api/types.js';
import { type ScaleLookup, computePdbStatus, scaleFinder } from '../controllers/disruption.js';
import type { ClusterFile } from '../scheduler/framework/cluster-file.js';
import type { PlanCluster } from './cluster-input.js';

/** what the drain what-if needs beyond nodes and pods */
export interface Disruption {
  pdbs: PodDisruptionBudget[];
  scaleOf: ScaleLookup;
}

/** the budgets of a snapshot and the scale of their pods' controllers */
export function disruptionOf(cluster: ClusterFile): Disruption {
  const w = (cluster as Partial<PlanCluster>).workloads;
  const byKey = new Map<string, KubeObject>();
  const add = (resource: string, objs: KubeObject[] | undefined) => {
    for (const o of objs ?? [])
      byKey.set(`${resource}/${o.metadata.namespace ?? 'default'}/${o.metadata.name}`, o);
  };
  add('replicasets', cluster.replicaSets as KubeObject[]);
  add('deployments', w?.deployments);
  add('statefulsets', w?.statefulSets);
  add('replicationcontrollers', w?.replicationControllers);
  return {
    pdbs: w?.podDisruptionBudgets ?? [],
    scaleOf: scaleFinder((resource, ns, name) => byKey.get(`${resource}/${ns}/${name}`)),
  };
}

/** daemonSetFilter and mirrorPodFilter: pods a drain leaves alone */
function drainSkips(p: Pod): boolean {
  if (p.metadata.annotations?.['kubernetes.io/config.mirror']) return true;
  if (p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') return true;
  return !!p.metadata.ownerReferences?.some((r) => r.controller && r.kind === 'DaemonSet');
}

/**
 * Split the drained nodes' pods into evicted and blocked (by budget name); `allPods` are the
 * snapshot's pods (the budgets count them all).
 */
export function drainPods(
  onNodes: Pod[],
  allPods: Pod[],
  d: Disruption,
): { evicted: Pod[]; blocked: Pod[]; blockedBy: Map<string, number> } {
  const allowed = new Map<PodDisruptionBudget, number>();
  const allowedOf = (b: PodDisruptionBudget) => {
    let n = allowed.get(b);
    if (n === undefined) {
      const ns = b.metadata.namespace ?? 'default';
      n = computePdbStatus({
        pdb: b,
        pods: allPods.filter((p) => (p.metadata.namespace ?? 'default') === ns),
        nowMs: 0,
        scaleOf: d.scaleOf,
      }).status.disruptionsAllowed;
      allowed.set(b, n);
    }
    return n;
  };
  const evicted: Pod[] = [];
  const blocked: Pod[] = [];
  const blockedBy = new Map<string, number>();
  for (const p of onNodes) {
    if (drainSkips(p)) continue;
    const ns = p.metadata.namespace ?? 'default';
    const budget = d.pdbs.find(
      (b) => (b.metadata.namespace ?? 'default') === ns && pdbSelectsPod(b.spec?.selector, p.metadata.labels),
    );
    if (budget && allowedOf(budget) < 1) {
      blocked.push(p);
      const k = `${ns}/${budget.metadata.name}`;
      blockedBy.set(k, (blockedBy.get(k) ?? 0) + 1);
    } else evicted.push(p);
  }
  return { evicted, blocked, blockedBy };
}

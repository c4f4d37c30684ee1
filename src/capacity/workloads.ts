/**
 * What the workloads of a cluster snapshot will still create, so that a capacity answer counts
 * it: the replicas a Deployment, ReplicaSet, ReplicationController or StatefulSet is missing, and
 * one pod of every DaemonSet on every eligible node that has none — including nodes a what-if adds.
 *
 * Each controller is followed in what decides *which* pods exist, not in how it gets there:
 *   - ReplicaSet / ReplicationController (upstream: pkg/controller/replicaset): spec.replicas
 *     (default 1) minus the active pods it controls (controller ownerReference, else an orphan
 *     matching its selector in its namespace, which it would adopt);
 *   - Deployment (pkg/controller/deployment): spec.replicas minus the active pods of its
 *     ReplicaSets (or, with none in the input, of its selector); new pods come from its newest
 *     ReplicaSet's template (highest deployment.kubernetes.io/revision), so they carry its
 *     pod-template-hash, else from its own template;
 *   - StatefulSet (pkg/controller/statefulset): the ordinals 0…replicas-1 without a pod, named
 *     `<name>-<ordinal>` with hostname and subdomain set;
 *   - DaemonSet (pkg/controller/daemon, NodeShouldRunDaemonPod): a node runs the DaemonSet's pod
 *     when the template's nodeName (if any), nodeSelector and required node affinity match it and
 *     the template with the DaemonSet's default tolerations tolerates its NoSchedule and NoExecute
 *     taints; the pod is pinned to the node by required node affinity on metadata.name
 *     (ReplaceDaemonSetPodNodeNameNodeAffinity) and goes through the scheduler, so a node without
 *     room shows the DaemonSet pod as unschedulable.
 * New pods get their priority from their priorityClassName (the Priority admission, priority.ts);
 * a pod with schedulingGates is never placed (the scheduler does not try it until they are gone).
 *
 * Simplified: a rollout in progress is not modelled (old ReplicaSets' pods count towards the
 * Deployment, surge pods are not added); Jobs and CronJobs are not expanded (they finish).
 */
import { podFromWorkload } from '../api/workload-pod.js';
import { admitPodPriority, type PriorityClassLike } from '../api/priority.js';
import type { KubeObject, LabelSelector, Node, Pod, PodSpec, StatefulSet } from '../api/types.js';
import { setIdentity } from '../controllers/statefulset-util.js';
import { labelSelectorAsSelector } from '../api/label-selector.js';
import { compileRequiredNodeAffinity } from '../api/node-affinity.js';
import {
  nodeShouldRunDaemonPod,
  replaceDaemonSetPodNodeNameNodeAffinity,
} from '../controllers/daemonset-util.js';

type Obj = KubeObject & Record<string, any>;

/** The workloads of a snapshot, by kind (ReplicaSets are the ClusterFile's). */
export interface ClusterWorkloads {
  deployments: KubeObject[];
  statefulSets: KubeObject[];
  replicationControllers: KubeObject[];
  daemonSets: KubeObject[];
  /** for priorityClassName → priority of the pods the workloads create */
  priorityClasses: PriorityClassLike[];
  /** the budgets a `drain=` what-if respects */
  podDisruptionBudgets?: import('../api/batch-types.js').PodDisruptionBudget[];
}

export const NO_WORKLOADS: ClusterWorkloads = {
  deployments: [],
  statefulSets: [],
  replicationControllers: [],
  daemonSets: [],
  priorityClasses: [],
};

/** A pod a workload will create, with the workload it belongs to (`Kind ns/name`). */
export interface PendingPod {
  pod: Pod;
  owner: string;
  /** why it will never be placed (schedulingGates, an unknown PriorityClass) */
  blocked?: string;
}

/** `Kind ns/name` */
export function workloadKey(w: KubeObject): string {
  return `${w.kind} ${w.metadata?.namespace ?? 'default'}/${w.metadata?.name ?? ''}`;
}

/** Succeeded/Failed pods and pods being deleted no longer count for their controller. */
function isActive(p: Pod): boolean {
  const phase = p.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !p.metadata.deletionTimestamp;
}

function controllerRef(p: KubeObject) {
  return p.metadata.ownerReferences?.find((r) => r.controller);
}

/** Does `owner` control `pod`: by uid when both have one, else by kind and name. */
function controls(owner: KubeObject, pod: KubeObject): boolean {
  const ref = controllerRef(pod);
  if (!ref || ref.kind !== owner.kind) return false;
  if (ref.uid && owner.metadata.uid) return ref.uid === owner.metadata.uid;
  return ref.name === owner.metadata.name;
}

const ns = (o: KubeObject) => o.metadata?.namespace ?? 'default';

/** A workload's selector: a LabelSelector, or a ReplicationController's plain map. */
function selectorOf(w: Obj): (labels: Record<string, string> | undefined) => boolean {
  const sel = w.spec?.selector;
  if (!sel) return () => false;
  const ls: LabelSelector = w.kind === 'ReplicationController' ? { matchLabels: sel } : sel;
  let s: ReturnType<typeof labelSelectorAsSelector>;
  try {
    s = labelSelectorAsSelector(ls);
  } catch {
    return () => false; // an invalid selector selects nothing (the controller skips it)
  }
  return (labels) => s.matches(labels ?? {});
}

/** The active pods `w` controls or would adopt (orphans matching its selector in its namespace). */
function podsOf(w: Obj, pods: readonly Pod[]): Pod[] {
  const matches = selectorOf(w);
  return pods.filter(
    (p) =>
      isActive(p) && ns(p) === ns(w) && (controls(w, p) || (!controllerRef(p) && matches(p.metadata.labels))),
  );
}

function replicasOf(w: Obj): number {
  const r = w.spec?.replicas;
  return typeof r === 'number' && r >= 0 ? Math.floor(r) : 1;
}

/**
 * A pod from `w`'s template, named `name`, controlled by `w`, priority resolved; reported as
 * belonging to `reportAs` (a Deployment whose ReplicaSet's template is used).
 */
function newPod(
  w: Obj,
  name: string,
  classes: readonly PriorityClassLike[],
  reportAs: KubeObject = w,
): PendingPod {
  const pod = podFromWorkload(w);
  pod.metadata = {
    ...pod.metadata,
    name,
    namespace: ns(w),
    uid: `planned-${ns(w)}-${name}`,
    ownerReferences: [
      {
        apiVersion: w.apiVersion,
        kind: w.kind,
        name: w.metadata.name ?? '',
        uid: w.metadata.uid ?? '',
        controller: true,
      },
    ],
  };
  delete pod.metadata.generateName;
  pod.status = { phase: 'Pending' };
  const p: PendingPod = { pod, owner: workloadKey(reportAs) };
  const gates = gatesOf(pod);
  if (gates) p.blocked = gates;
  else
    try {
      admitPodPriority(pod, classes);
    } catch (e) {
      p.blocked = (e as Error).message;
    }
  return p;
}

/** `SchedulingGated: …` when the pod has scheduling gates (upstream's PodScheduled reason). */
export function gatesOf(pod: Pod): string | undefined {
  const gates = (pod.spec as PodSpec & { schedulingGates?: { name?: string }[] }).schedulingGates;
  if (!Array.isArray(gates) || gates.length === 0) return undefined;
  return `SchedulingGated: waiting for scheduling gates ${gates.map((g) => g?.name ?? '').join(', ')}`;
}

/** The newest of a Deployment's ReplicaSets (highest revision annotation), if any. */
function newestReplicaSet(rss: readonly Obj[]): Obj | undefined {
  const rev = (rs: Obj) => Number(rs.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 0);
  let best: Obj | undefined;
  for (const rs of rss) if (!best || rev(rs) > rev(best)) best = rs;
  return best;
}

/**
 * The replicas the Deployments, ReplicaSets, ReplicationControllers and StatefulSets are missing,
 * in input order. `pods` are the snapshot's pods (bound and pending).
 */
export function missingReplicas(
  workloads: ClusterWorkloads,
  replicaSets: readonly KubeObject[],
  pods: readonly Pod[],
): PendingPod[] {
  const out: PendingPod[] = [];
  const classes = workloads.priorityClasses;
  const deployments = workloads.deployments as Obj[];
  const ownedRS = new Set<KubeObject>();
  for (const d of deployments) {
    const rss = (replicaSets as Obj[]).filter((rs) => ns(rs) === ns(d) && controls(d, rs));
    for (const rs of rss) ownedRS.add(rs);
    const current = rss.length ? rss.flatMap((rs) => podsOf(rs, pods)) : podsOf(d, pods);
    const missing = replicasOf(d) - current.length;
    const source = newestReplicaSet(rss) ?? d;
    for (let i = 0; i < missing; i++)
      out.push(newPod(source, `${source.metadata.name}-planned-${i}`, classes, d));
  }
  for (const rs of [...(replicaSets as Obj[]), ...(workloads.replicationControllers as Obj[])]) {
    if (ownedRS.has(rs)) continue;
    const missing = replicasOf(rs) - podsOf(rs, pods).length;
    for (let i = 0; i < missing; i++) out.push(newPod(rs, `${rs.metadata.name}-planned-${i}`, classes));
  }
  for (const sts of workloads.statefulSets as Obj[]) {
    const have = new Set(podsOf(sts, pods).map((p) => p.metadata.name));
    for (let i = 0; i < replicasOf(sts); i++) {
      const name = `${sts.metadata.name}-${i}`;
      if (have.has(name)) continue;
      const p = newPod(sts, name, classes);
      // the pod's identity as the StatefulSet controller gives it: hostname, subdomain, its claims
      const namespace = p.pod.metadata.namespace;
      setIdentity(sts as unknown as StatefulSet, p.pod, i);
      p.pod.metadata.namespace = namespace;
      out.push(p);
    }
  }
  return out;
}

/**
 * Should a node without the DaemonSet's pod get one: NodeShouldRunDaemonPod's shouldRun for the
 * DaemonSet's pod `pod` (template + default tolerations), the rule the DaemonSet controller uses.
 */
export function daemonPodEligible(
  pod: Pod,
  node: Node,
  affinity = compileRequiredNodeAffinity(pod),
): boolean {
  return nodeShouldRunDaemonPod(pod, node, affinity).shouldRun;
}

export interface DaemonSetPlan {
  daemonSet: string;
  /** nodes the DaemonSet should run on */
  eligible: number;
  /** of those, nodes that already run its pod */
  running: number;
  /** the pods still to create, one per eligible node without one */
  pods: PendingPod[];
}

/** Every DaemonSet's pods still to create on `nodes` (the nodes after what-ifs). */
export function daemonSetPods(
  workloads: ClusterWorkloads,
  nodes: readonly Node[],
  pods: readonly Pod[],
): DaemonSetPlan[] {
  const plans: DaemonSetPlan[] = [];
  for (const ds of workloads.daemonSets as Obj[]) {
    const template = podFromWorkload(ds);
    const affinity = compileRequiredNodeAffinity(template);
    const onNode = new Set(
      pods
        .filter((p) => isActive(p) && p.spec.nodeName && ns(p) === ns(ds) && controls(ds, p))
        .map((p) => p.spec.nodeName!),
    );
    const plan: DaemonSetPlan = { daemonSet: workloadKey(ds), eligible: 0, running: 0, pods: [] };
    for (const node of nodes) {
      if (!daemonPodEligible(template, node, affinity)) continue;
      plan.eligible++;
      const name = node.metadata.name ?? '';
      if (onNode.has(name)) {
        plan.running++;
        continue;
      }
      const p = newPod(ds, `${ds.metadata.name}-${name}`, workloads.priorityClasses);
      p.pod.spec.affinity = replaceDaemonSetPodNodeNameNodeAffinity(p.pod.spec.affinity, name);
      plan.pods.push(p);
    }
    plans.push(plan);
  }
  return plans;
}

/** `Kind ns/name` of the pod's controller, or ''. */
export function ownerOf(p: KubeObject): string {
  const ref = controllerRef(p);
  return ref ? `${ref.kind} ${ns(p)}/${ref.name}` : '';
}

/** Is this pod a DaemonSet's (a controller reference of kind DaemonSet)? */
export function isDaemonPod(p: KubeObject): boolean {
  return controllerRef(p)?.kind === 'DaemonSet';
}

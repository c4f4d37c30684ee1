/**
 * Capacity planning: how many more replicas of a pod shape fit, where, and what stops the next
 * one — the question cluster-capacity answers — on the real scheduler (SchedulerCore: the same
 * plugins, kernels and tie-breaks as `kubesim schedule`), after optional what-ifs.
 *
 * For each shape, starting from the same cluster state:
 *   1. apply the what-ifs (remove nodes, lose a zone, cordon, add nodes);
 *   2. place the displaced pods first, highest priority first (their controllers recreate them);
 *   3. schedule copies of the shape one at a time, assuming each placement, until one does not fit
 *      (its FitError is the stop reason) or `maxReplicas` is reached.
 * Shapes are independent (each sees the cluster without the others' replicas); `mix` places
 * them round-robin into one shared cluster instead.
 */
import type { Node, Pod } from '../api/types.js';
import { assertPod } from '../api/workload-pod.js';
import type { ClusterFile } from '../scheduler/framework/cluster-file.js';
import { ensureClaims, storageOf, takeProvisionedCapacity, volumeStop } from './volumes.js';
import { ensureResourceClaims, resourcesOf } from './resource-claims.js';
import type { SchedulerConfig } from '../scheduler/config.js';
import type { OutOfTreeRegistry } from '../scheduler/plugins/registry.js';
import type { KernelName } from '../scheduler/engine/types.js';
import { SchedulerCore } from '../scheduler/scheduler.js';
import type { ClusterObjects } from '../scheduler/framework/types.js';
import { podKey } from '../api/keys.js';
import { shallowCopy } from '../util/shallow-copy.js';
import { podRequests } from '../scheduler/engine/resources.js';
import { disruptionOf } from './drain.js';
import {
  applyWhatIfs,
  zoneName,
  WhatIfError,
  type WhatIf,
  type ClusterState,
  type WhatIfResult,
} from './whatif.js';
import { balanceScaleUp } from '../autoscaler/autoscaler-rules.js';
import { fragmentation, type FragmentationReport } from './fragmentation.js';
import { workloadsOf } from './cluster-input.js';
import {
  daemonSetPods,
  gatesOf,
  isDaemonPod,
  missingReplicas,
  ownerOf,
  type PendingPod,
} from './workloads.js';

export interface SchedulerChoice {
  config?: SchedulerConfig;
  kernel?: KernelName;
  outOfTree?: OutOfTreeRegistry;
  extraScore?: Map<string, number>;
  /** out-of-tree plugins added to the profiles' Filter set */
  extraFilter?: string[];
  seed?: number;
}

export interface PlanOptions extends SchedulerChoice {
  whatIfs?: WhatIf[];
  /** stop counting a shape at this many replicas (default 10,000) */
  maxReplicas?: number;
  /** place the shapes round-robin into one cluster instead of each on its own */
  mix?: boolean;
  /** called every 100 placements: (shape, placed so far, upper bound: resources alone or maxReplicas) */
  onProgress?: (shape: string, placed: number, bound: number) => void;
}

export interface NodeCount {
  node: string;
  zone: string;
  count: number;
}

export interface ShapePlan {
  /** namespace/name of the shape pod */
  shape: string;
  /** the shape's effective requests (cpu in millicores, the rest in units) */
  requests: Record<string, number>;
  /** replicas placed */
  fits: number;
  /** true when counting stopped at maxReplicas rather than at a FitError */
  limitReached: boolean;
  /** the scheduler's FitError for the first replica that did not fit */
  stopReason?: string;
  /** reason → number of nodes, from that FitError */
  stopReasons?: Record<string, number>;
  /** the volume plugins among what stops the next replica (attach limits, volume zones, binding) */
  volumeStop?: string[];
  perNode: NodeCount[];
  perZone: Record<string, number>;
  /** resource-only view of the same cluster before the replicas: stranded room for this shape */
  fragmentation: Omit<FragmentationReport, 'nodes'>;
}

export interface DisplacedReport {
  total: number;
  placed: number;
  unschedulable: { pod: string; reason: string }[];
}

/** A pod that is not placed: why, and the workload it belongs to. */
export interface UnplacedPod {
  pod: string;
  /** `Kind ns/name` of the workload that creates it */
  owner?: string;
  reason: string;
}

/**
 * The pods placed before counting, besides displaced ones: the snapshot's pending pods, the replicas
 * its workloads are missing and the pods its DaemonSets still need (workloads.ts).
 */
export interface WorkloadReport {
  pending: {
    /** pending pods of the snapshot plus replicas workloads are missing */
    total: number;
    placed: number;
    unschedulable: UnplacedPod[];
    /** never tried: schedulingGates, an unknown PriorityClass */
    blocked: UnplacedPod[];
  };
  daemonSets: { daemonSet: string; eligible: number; running: number; created: number; placed: number }[];
  daemonSetsUnschedulable: UnplacedPod[];
  /** requests of DaemonSet pods per node, running and planned (nodes without any left out) */
  daemonSetOverhead: { node: string; pods: number; requests: Record<string, number> }[];
}

export interface PlanReport {
  nodes: number;
  /** one line per applied what-if */
  applied: string[];
  displaced: DisplacedReport;
  workloads: WorkloadReport;
  shapes: ShapePlan[];
  seed: number;
  kernel: KernelName;
}

export class PlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlanError';
  }
}

/** A replica of the shape: a fresh name and uid, unbound. */
export function replicaOf(shape: Pod, i: number): Pod {
  const base = shape.metadata.name ?? shape.metadata.generateName?.replace(/-$/, '') ?? 'pod';
  const name = `${base}-${i}`;
  // (field by field on shallow copies: the same keys in the same order as spreading with overrides,
  // at a fraction of the cost per replica)
  const metadata = shallowCopy(shape.metadata);
  metadata.name = name;
  metadata.uid = `capacity-${base}-${i}`;
  metadata.namespace = shape.metadata.namespace ?? 'default';
  const spec = shallowCopy(shape.spec);
  spec.nodeName = undefined;
  const pod = shallowCopy(shape);
  pod.metadata = metadata;
  pod.spec = spec;
  pod.status = { phase: 'Pending' };
  return pod;
}

function newCore(
  state: ClusterState & { clones?: ReadonlyMap<string, string> },
  cluster: ClusterFile,
  o: SchedulerChoice,
): SchedulerCore {
  return new SchedulerCore({
    config: o.config,
    kernel: o.kernel ?? 'wasm',
    seed: o.seed ?? 1,
    nodes: state.nodes,
    pods: state.pods.filter((p) => p.spec.nodeName),
    namespaces: cluster.namespaces,
    objects: {
      services: cluster.services,
      replicaSets: cluster.replicaSets,
      others: cluster.others as ClusterObjects['others'],
      storage: storageOf(cluster),
      resources: resourcesOf(cluster, state.clones),
    },
    outOfTree: o.outOfTree,
    extraScore: o.extraScore,
    extraFilter: o.extraFilter,
  });
}

/** Schedules and assumes one pod; the node name, or the FitError/error outcome. */
export function placeOne(
  core: SchedulerCore,
  pod: Pod,
): { node: string } | { reason: string; reasons?: Record<string, number> } {
  ensureClaims(core, pod);
  ensureResourceClaims(core, pod);
  const out = core.schedule(pod);
  if (out.kind === 'scheduled') {
    const s = core.reserveAndAssume(out);
    if (s) return { reason: s.message() };
    takeProvisionedCapacity(core, out.state, out.nodeName);
    return { node: out.nodeName };
  }
  if (out.kind === 'unschedulable')
    return { reason: out.fitError.message, reasons: Object.fromEntries(out.fitError.histogram()) };
  return { reason: out.message };
}

type QueueKind = 'displaced' | 'daemon' | 'pending';

/**
 * Places, highest priority first (the scheduling queue's PrioritySort; ties in this order), the
 * pods that exist or will exist before any new replica: displaced pods, DaemonSet pods still to
 * create, the snapshot's pending pods, the replicas workloads are missing. Gated pods and pods an
 * admission would reject are never tried.
 */
function placeBeforeCounting(
  core: SchedulerCore,
  w: WhatIfResult,
  cluster: ClusterFile,
): { placed: Pod[]; displaced: DisplacedReport; workloads: WorkloadReport } {
  const workloads = workloadsOf(cluster);
  const snapshotPods = [...cluster.boundPods, ...cluster.pendingPods];
  const ds = daemonSetPods(workloads, w.nodes, w.pods);
  const pendingInSnapshot: PendingPod[] = cluster.pendingPods
    .filter(
      (p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' && !p.metadata.deletionTimestamp,
    )
    .map((pod) => ({ pod, owner: ownerOf(pod), blocked: gatesOf(pod) }));
  const queue: { p: PendingPod; kind: QueueKind; i: number }[] = [
    ...w.displaced.map((pod) => ({ p: { pod, owner: ownerOf(pod) }, kind: 'displaced' as const })),
    ...ds.flatMap((d) => d.pods.map((p) => ({ p, kind: 'daemon' as const }))),
    ...pendingInSnapshot.map((p) => ({ p, kind: 'pending' as const })),
    ...missingReplicas(workloads, cluster.replicaSets, snapshotPods).map((p) => ({
      p,
      kind: 'pending' as const,
    })),
  ].map((q, i) => ({ ...q, i }));
  queue.sort((a, b) => (b.p.pod.spec.priority ?? 0) - (a.p.pod.spec.priority ?? 0) || a.i - b.i);

  const displaced: DisplacedReport = { total: w.displaced.length, placed: 0, unschedulable: [] };
  const rep: WorkloadReport = {
    pending: { total: 0, placed: 0, unschedulable: [], blocked: [] },
    daemonSets: ds.map((d) => ({
      daemonSet: d.daemonSet,
      eligible: d.eligible,
      running: d.running,
      created: d.pods.length,
      placed: 0,
    })),
    daemonSetsUnschedulable: [],
    daemonSetOverhead: [],
  };
  const dsIndex = new Map(ds.map((d, i) => [d.daemonSet, i]));
  const placed: Pod[] = [];
  for (const { p, kind } of queue) {
    const owner = p.owner || undefined;
    if (kind === 'pending') rep.pending.total++;
    if (p.blocked) {
      const u = { pod: podKey(p.pod), ...(owner ? { owner } : {}), reason: p.blocked };
      if (kind === 'daemon') rep.daemonSetsUnschedulable.push(u);
      else rep.pending.blocked.push(u);
      continue;
    }
    const r = placeOne(core, p.pod);
    if ('node' in r) {
      placed.push({ ...p.pod, spec: { ...p.pod.spec, nodeName: r.node } });
      if (kind === 'displaced') displaced.placed++;
      else if (kind === 'pending') rep.pending.placed++;
      else rep.daemonSets[dsIndex.get(p.owner)!]!.placed++;
      continue;
    }
    const u = { pod: podKey(p.pod), ...(owner ? { owner } : {}), reason: r.reason };
    if (kind === 'displaced') displaced.unschedulable.push({ pod: u.pod, reason: u.reason });
    else if (kind === 'pending') rep.pending.unschedulable.push(u);
    else rep.daemonSetsUnschedulable.push(u);
  }
  rep.daemonSetOverhead = daemonOverhead([...w.pods, ...placed]);
  return { placed, displaced, workloads: rep };
}

/** Requests of the DaemonSet pods bound to each node, nodes in name order. */
function daemonOverhead(pods: readonly Pod[]): WorkloadReport['daemonSetOverhead'] {
  const byNode = new Map<string, { pods: number; requests: Record<string, number> }>();
  for (const p of pods) {
    if (!p.spec.nodeName || !isDaemonPod(p)) continue;
    if (p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
    const e = byNode.get(p.spec.nodeName) ?? { pods: 0, requests: {} };
    e.pods++;
    for (const [k, v] of requestsOf(p)) e.requests[k] = (e.requests[k] ?? 0) + v;
    byNode.set(p.spec.nodeName, e);
  }
  return [...byNode].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([node, e]) => ({ node, ...e }));
}

/** Rejects anything but a pod (a Deployment would otherwise be planned as if it were one). */
export function podShape(obj: Pod, where: string): void {
  try {
    assertPod(obj, where);
  } catch (e) {
    throw new PlanError((e as Error).message);
  }
}

function requestsOf(pod: Pod): Map<string, number> {
  try {
    return podRequests(pod);
  } catch (e) {
    throw new PlanError((e as Error).message);
  }
}

function summarize(
  shape: Pod,
  counts: Map<string, number>,
  zones: Map<string, string>,
  frag: FragmentationReport,
  fits: number,
  limitReached: boolean,
  stop?: { reason: string; reasons?: Record<string, number> },
): ShapePlan {
  const perNode: NodeCount[] = [...counts]
    .filter(([, c]) => c > 0)
    .map(([node, count]) => ({ node, zone: zones.get(node) ?? '', count }))
    .sort((a, b) => b.count - a.count || (a.node < b.node ? -1 : 1));
  const zoneCounts = new Map<string, number>();
  for (const n of perNode)
    zoneCounts.set(n.zone || '(none)', (zoneCounts.get(n.zone || '(none)') ?? 0) + n.count);
  // zones in name order, so that output and JSON are stable
  const perZone: Record<string, number> = Object.fromEntries(
    [...zoneCounts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  const { nodes: _drop, ...fragTotals } = frag;
  return {
    shape: podKey(shape),
    requests: Object.fromEntries(requestsOf(shape)),
    fits,
    limitReached,
    stopReason: stop?.reason,
    stopReasons: stop?.reasons,
    ...(stop ? volumeStop(stop.reason, stop.reasons) : {}),
    perNode,
    perZone,
    fragmentation: fragTotals,
  };
}

function emptyWorkloadReport(): WorkloadReport {
  return {
    pending: { total: 0, placed: 0, unschedulable: [], blocked: [] },
    daemonSets: [],
    daemonSetsUnschedulable: [],
    daemonSetOverhead: [],
  };
}

/** Plans every shape against the cluster after the what-ifs. Deterministic for a seed. */
export function planCapacity(cluster: ClusterFile, shapes: Pod[], opts: PlanOptions = {}): PlanReport {
  if (!shapes.length) throw new PlanError('no pod shape given: pass at least one pod manifest');
  // a workload or a bad quantity fails before any work
  shapes.forEach((s, i) => {
    podShape(s, `planCapacity: shapes[${i}]`);
    requestsOf(s);
  });
  const max = opts.maxReplicas ?? 10_000;
  const base: ClusterState = {
    nodes: cluster.nodes,
    pods: cluster.boundPods,
    disruption: disruptionOf(cluster),
  };
  const w = applyWhatIfs(base, opts.whatIfs ?? []);
  const zones = new Map(w.nodes.map((n) => [n.metadata.name ?? '', zoneName(n)]));
  let before: ReturnType<typeof placeBeforeCounting> | undefined;

  const start = (): { core: SchedulerCore; pods: Pod[] } => {
    const core = newCore(w, cluster, opts);
    const b = placeBeforeCounting(core, w, cluster);
    before ??= b;
    return { core, pods: [...w.pods, ...b.placed] };
  };

  const plans: ShapePlan[] = [];
  if (!opts.mix) {
    for (const shape of shapes) {
      const { core, pods } = start();
      const frag = fragmentation(w.nodes, pods, shape);
      const counts = new Map<string, number>();
      let fits = 0;
      const gated = gatesOf(shape);
      let stop: { reason: string; reasons?: Record<string, number> } | undefined = gated
        ? { reason: gated }
        : undefined;
      while (!stop && fits < max) {
        const r = placeOne(core, replicaOf(shape, fits));
        if (!('node' in r)) {
          stop = r;
          break;
        }
        counts.set(r.node, (counts.get(r.node) ?? 0) + 1);
        fits++;
        if (fits % 100 === 0) opts.onProgress?.(podKey(shape), fits, Math.min(max, frag.fitsByResources));
      }
      plans.push(summarize(shape, counts, zones, frag, fits, fits >= max && !stop, stop));
    }
  } else {
    const { core, pods } = start();
    const state = shapes.map((shape) => {
      const gated = gatesOf(shape);
      const stop: { reason: string; reasons?: Record<string, number> } | undefined = gated
        ? { reason: gated }
        : undefined;
      return {
        shape,
        frag: fragmentation(w.nodes, pods, shape),
        counts: new Map<string, number>(),
        fits: 0,
        stop,
      };
    });
    let active = state.length;
    while (active > 0) {
      active = 0;
      for (const s of state) {
        if (s.stop || s.fits >= max) continue;
        const r = placeOne(core, replicaOf(s.shape, s.fits));
        if (!('node' in r)) {
          s.stop = r;
          continue;
        }
        s.counts.set(r.node, (s.counts.get(r.node) ?? 0) + 1);
        s.fits++;
        active++;
      }
    }
    for (const s of state)
      plans.push(summarize(s.shape, s.counts, zones, s.frag, s.fits, s.fits >= max && !s.stop, s.stop));
  }
  return {
    nodes: w.nodes.length,
    applied: w.applied,
    displaced: before?.displaced ?? { total: 0, placed: 0, unschedulable: [] },
    workloads: before?.workloads ?? emptyWorkloadReport(),
    shapes: plans,
    seed: opts.seed ?? 1,
    kernel: opts.kernel ?? 'wasm',
  };
}

export interface MinNodesResult {
  /** nodes of the template to add; undefined when even `limit` nodes are not enough */
  nodes?: number;
  template: string;
  /** the one zone the nodes go to (`zone`), when not spread over zones */
  zone?: string;
  replicas: number;
  /** the answer's nodes per zone, when spread over node groups (template × zone) */
  perZone?: Record<string, number>;
  /** price of one node (per hour, or any unit), when given */
  costPerNode?: number;
  /** nodes × costPerNode */
  cost?: number;
  /**
   * when no count up to the limit is enough: what stops it on the cluster grown by the limit — the
   * FitError of the next replica, or of a displaced pod that finds no place
   */
  stopReason?: string;
  /** every count tried, with the replicas that fitted: the search's evidence */
  tried: { add: number; fits: number; displacedUnschedulable: number }[];
}

/** Several templates priced: each one's answer, and the cheapest that is enough. */
export interface MinNodesChoice {
  replicas: number;
  /** index into `options` of the cheapest answer (fewest nodes on a tie); undefined when none is enough */
  best?: number;
  options: MinNodesResult[];
}

/** The instance type a node group is made of: the well-known label, else cpu × memory. */
function instanceType(n: Node): string {
  const l = n.metadata.labels ?? {};
  const a = n.status?.allocatable ?? n.status?.capacity ?? {};
  return (
    l['node.kubernetes.io/instance-type'] ?? l['beta.kubernetes.io/instance-type'] ?? `${a.cpu}/${a.memory}`
  );
}

/**
 * `count` nodes like the template over node groups (template × zone), balanced like the cluster
 * autoscaler's balance-similar-node-groups: each node goes to the zone whose group (the nodes of
 * the template's instance type already there, plus those added) is smallest, ties in zone order.
 */
export function spreadOverZones(
  nodes: readonly Node[],
  template: Node,
  zones: readonly string[],
  count: number,
): Map<string, number> {
  const type = instanceType(template);
  const size = (z: string) => nodes.filter((n) => zoneName(n) === z && instanceType(n) === type).length;
  return balanceScaleUp(
    zones.map((z) => ({ group: z, size: size(z), max: Infinity })),
    count,
  ).add;
}

/**
 * The fewest nodes like `template` to add so that `replicas` copies of the shape fit (and every
 * displaced pod of the what-ifs is placed). Doubling then bisection: O(log n) plans. Assumes that
 * adding nodes never lowers the count, which holds for the default plugins. With `zones` the nodes
 * are spread over those zones' node groups (spreadOverZones); with `zone` they all go there;
 * otherwise to the template's zone.
 */
export function minNodesToAdd(
  cluster: ClusterFile,
  shape: Pod,
  replicas: number,
  template: string,
  opts: PlanOptions & { zone?: string; zones?: string[]; limit?: number; costPerNode?: number } = {},
): MinNodesResult {
  const limit = opts.limit ?? 1000;
  const tried: MinNodesResult['tried'] = [];
  const zones = opts.zone === undefined && opts.zones?.length ? opts.zones : undefined;
  const base = applyWhatIfs({ nodes: cluster.nodes, pods: cluster.boundPods }, opts.whatIfs ?? []);
  const t =
    base.nodes.find((n) => n.metadata.name === template) ??
    cluster.nodes.find((n) => n.metadata.name === template);
  if (!t) throw new WhatIfError(`add-nodes: template node "${template}" is not in the cluster`);
  const split = (k: number) => (zones ? spreadOverZones(base.nodes, t, zones, k) : undefined);
  let stopReason: string | undefined;
  const ok = (k: number): boolean => {
    const adds: WhatIf[] = [];
    if (k > 0) {
      const s = split(k);
      if (s) for (const [zone, count] of s) adds.push({ kind: 'add-nodes', count, template, zone });
      else adds.push({ kind: 'add-nodes', count: k, template, zone: opts.zone });
    }
    const rep = planCapacity(cluster, [shape], {
      ...opts,
      whatIfs: [...(opts.whatIfs ?? []), ...adds],
      maxReplicas: replicas,
      mix: false,
    });
    const fits = rep.shapes[0].fits;
    tried.push({ add: k, fits, displacedUnschedulable: rep.displaced.unschedulable.length });
    const u = rep.displaced.unschedulable[0];
    stopReason = u ? `displaced pod ${u.pod}: ${u.reason}` : rep.shapes[0].stopReason;
    return fits >= replicas && rep.displaced.unschedulable.length === 0;
  };
  const answer = (nodes: number | undefined): MinNodesResult => {
    const s = nodes === undefined ? undefined : split(nodes);
    return {
      nodes,
      template,
      zone: opts.zone,
      replicas,
      ...(s ? { perZone: Object.fromEntries([...s].sort(([a], [b]) => (a < b ? -1 : 1))) } : {}),
      ...(opts.costPerNode !== undefined
        ? {
            costPerNode: opts.costPerNode,
            ...(nodes !== undefined ? { cost: Math.round(nodes * opts.costPerNode * 1e6) / 1e6 } : {}),
          }
        : {}),
      ...(nodes === undefined && stopReason ? { stopReason } : {}),
      tried,
    };
  };
  if (ok(0)) return answer(0);
  let lo = 0,
    hi = 1;
  while (!ok(hi)) {
    lo = hi;
    if (hi >= limit) return answer(undefined);
    hi = Math.min(limit, hi * 2);
  }
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (ok(mid)) hi = mid;
    else lo = mid;
  }
  return answer(hi);
}

/**
 * `--min-nodes A:0.19 B:0.35`: the answer for each template (spread over `zones` as in
 * minNodesToAdd), and the cheapest one that is enough — by cost when every template has one, else
 * by node count; ties to fewer nodes, then the order given.
 */
export function minNodesChoice(
  cluster: ClusterFile,
  shape: Pod,
  replicas: number,
  templates: { template: string; costPerNode?: number }[],
  opts: PlanOptions & { zone?: string; zones?: string[]; limit?: number } = {},
): MinNodesChoice {
  const options = templates.map((t) =>
    minNodesToAdd(cluster, shape, replicas, t.template, { ...opts, costPerNode: t.costPerNode }),
  );
  const priced = templates.every((t) => t.costPerNode !== undefined);
  let best: number | undefined;
  options.forEach((o, i) => {
    if (o.nodes === undefined) return;
    const b = best === undefined ? undefined : options[best]!;
    const key = (x: MinNodesResult) => (priced ? x.cost! : x.nodes!);
    if (!b || key(o) < key(b) || (key(o) === key(b) && o.nodes < b.nodes!)) best = i;
  });
  return { replicas, best, options };
}

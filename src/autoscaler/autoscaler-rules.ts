/**
 * The cluster autoscaler's decision rules as pure functions (kubernetes/autoscaler
 * cluster-autoscaler; read, not copied): a node's utilization (simulator/utilization/info.go
 * Calculate), the expanders that pick one scale-up option (expander/waste, mostpods, random,
 * price) and the split of a scale-up over similar node groups (processors/nodegroupset
 * BalanceScaleUpBetweenGroups). The controller that uses them is cluster-autoscaler.ts.
 */
import type { Node, Pod } from '../api/types.js';
import type { ResourceClaim, ResourceSlice } from '../api/resource-types.js';
import { nodeAllocatable, podRequests } from '../scheduler/engine/resources.js';
import type { Rng } from '../util/rng.js';

/** upstream drain.PodLongTerminatingExtraThreshold: a pod this long past its grace period is gone */
const LONG_TERMINATING_EXTRA_MS = 30_000;

export interface Utilization {
  cpu: number;
  memory: number;
  /** max(cpu, memory), or the busiest device pool's share on a node with ResourceSlices */
  utilization: number;
  /** the resource of the maximum: cpu, memory or `<driver>/<pool>` */
  resource: string;
}

const isDaemonSetPod = (p: Pod) =>
  p.metadata.ownerReferences?.some((o) => o.controller !== false && o.kind === 'DaemonSet') ||
  p.metadata.annotations?.['cluster-autoscaler.kubernetes.io/daemonset-pod'] === 'true';
const isMirrorPod = (p: Pod) => p.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined;

/**
 * Calculate: per resource, the pods' requests over the node's allocatable; the node's utilization
 * is the larger of cpu and memory. DaemonSet and mirror pods are factored out of both sides when
 * asked (--ignore-daemonsets-utilization, --ignore-mirror-pods-utilization; both default false);
 * pods past their deletion grace period by more than 30 s are not counted.
 * @throws Error when the node has no allocatable cpu or memory (upstream returns an error too)
 */
export function nodeUtilization(
  node: Node,
  pods: readonly Pod[],
  nowMs: number,
  o: { skipDaemonSetPods?: boolean; skipMirrorPods?: boolean } = {},
): Utilization {
  const alloc = nodeAllocatable(node);
  const of = (resource: 'cpu' | 'memory'): number => {
    const a = alloc.get(resource);
    if (!a) throw new Error(`node ${node.metadata.name}: no allocatable ${resource}`);
    let used = 0,
      skipped = 0;
    for (const p of pods) {
      const r = podRequests(p).get(resource) ?? 0;
      if ((o.skipDaemonSetPods && isDaemonSetPod(p)) || (o.skipMirrorPods && isMirrorPod(p))) {
        skipped += r;
        continue;
      }
      if (isLongTerminating(p, nowMs)) continue;
      used += r;
    }
    return used / (a - skipped);
  };
  const cpu = of('cpu');
  const memory = of('memory');
  return cpu > memory
    ? { cpu, memory, utilization: cpu, resource: 'cpu' }
    : { cpu, memory, utilization: memory, resource: 'memory' };
}

/** drain.IsPodLongTerminating */
function isLongTerminating(p: Pod, nowMs: number): boolean {
  const ts = p.metadata.deletionTimestamp;
  if (!ts) return false;
  const grace = (p.spec.terminationGracePeriodSeconds ?? 30) * 1000;
  return nowMs > Date.parse(ts) + grace + LONG_TERMINATING_EXTRA_MS;
}

/**
 * The busiest device pool of a node with node-local ResourceSlices (upstream
 * simulator/dynamicresources/utils/utilization.go HighestDynamicResourceUtilization): per driver
 * and pool, the devices of its newest generation held by the claims of the node's pods over all of
 * them (admin-access results hold none); undefined for a node without slices.
 * @throws Error when a pod's claim is not allocated or a pool's newest generation is incomplete
 */
export function deviceUtilization(
  slices: readonly ResourceSlice[],
  claims: readonly ResourceClaim[],
): { resource: string; utilization: number } | undefined {
  if (slices.length === 0) return undefined;
  const held = new Set<string>();
  for (const c of claims) {
    const a = c.status?.allocation;
    if (!a) throw new Error(`claim ${c.metadata.namespace}/${c.metadata.name} not allocated`);
    for (const r of a.devices?.results ?? [])
      if (r.adminAccess !== true) held.add(`${r.driver}/${r.pool}/${r.device}`);
  }
  const pools = new Map<string, ResourceSlice[]>();
  for (const s of slices) {
    const k = `${s.spec.driver}/${s.spec.pool.name}`;
    pools.set(k, [...(pools.get(k) ?? []), s]);
  }
  let best: { resource: string; utilization: number } | undefined;
  for (const [k, all] of [...pools].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const gen = Math.max(...all.map((s) => s.spec.pool.generation));
    const current = all.filter((s) => s.spec.pool.generation === gen);
    if (current.length !== current[0]!.spec.pool.resourceSliceCount)
      throw new Error(
        `pool ${JSON.stringify(k)} error: newest generation: ${gen}, slice count: ${current[0]!.spec.pool.resourceSliceCount} - found only ${current.length} slices`,
      );
    const devices = current.flatMap((s) => s.spec.devices ?? []);
    const used = devices.filter((d) => held.has(`${k}/${d.name}`)).length;
    const u = devices.length ? used / devices.length : 0;
    if (!best || u >= best.utilization) best = { resource: k, utilization: u };
  }
  return best;
}

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

/** What the scale-down eligibility check reads from the autoscaler's options. */
export interface EligibilityOptions {
  /** --scale-down-utilization-threshold (0.5) */
  threshold: number;
  /** --ignore-daemonsets-utilization (false) */
  ignoreDaemonSetsUtilization?: boolean;
  /** --scale-down-unready-enabled: unready nodes may go, whatever their utilization */
  scaleDownUnready?: boolean;
  /**
   * the node's device utilization ({@link deviceUtilization}) when it has ResourceSlices: it
   * replaces cpu and memory, as upstream's Calculate does with DRA enabled
   */
  devices?: () => { resource: string; utilization: number } | undefined;
}

export type Eligibility =
  | { removable: false; reason: string }
  | { removable: true; utilization?: Utilization; why: string };

/**
 * eligibility.go FilterOutUnremovable for one node, before any pod is simulated elsewhere: a node
 * the autoscaler is already deleting (ToBeDeletedByClusterAutoscaler taint), one annotated
 * `cluster-autoscaler.kubernetes.io/scale-down-disabled: "true"`, an unready one (unless unready
 * scale-down is on, which skips the utilization check) and one whose utilization is not below the
 * threshold stay.
 */
export function checkEligibility(
  node: Node,
  pods: readonly Pod[],
  nowMs: number,
  o: EligibilityOptions,
): Eligibility {
  if (node.spec?.taints?.some((t) => t.key === 'ToBeDeletedByClusterAutoscaler'))
    return { removable: false, reason: 'already being deleted (ToBeDeletedByClusterAutoscaler)' };
  if (node.metadata.annotations?.['cluster-autoscaler.kubernetes.io/scale-down-disabled'] === 'true')
    return { removable: false, reason: 'scale-down disabled by annotation' };
  const ready = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
  if (!ready)
    return o.scaleDownUnready
      ? { removable: true, why: 'unready' }
      : { removable: false, reason: 'not ready' };
  let u: Utilization;
  try {
    const d = o.devices?.();
    u = d
      ? { cpu: 0, memory: 0, ...d }
      : nodeUtilization(node, pods, nowMs, { skipDaemonSetPods: o.ignoreDaemonSetsUtilization });
  } catch (e) {
    return { removable: false, reason: (e as Error).message };
  }
  if (u.utilization >= o.threshold)
    return {
      removable: false,
      reason: `utilization ${pct(u.utilization)} (${u.resource}) is not below the threshold ${pct(o.threshold)}`,
    };
  return {
    removable: true,
    utilization: u,
    why: `utilization ${pct(u.utilization)} (${u.resource}) < ${pct(o.threshold)}`,
  };
}

/** One way to scale up (expander.Option): a node group, how many nodes, the pods they would take. */
export interface ExpansionOption {
  group: string;
  nodeCount: number;
  pods: Pod[];
  /** the group's template node */
  node: Node;
  /** price of one node per hour */
  costPerHour: number;
}

export type ExpanderName = 'least-waste' | 'most-pods' | 'random' | 'price';
export const EXPANDERS: readonly ExpanderName[] = ['least-waste', 'most-pods', 'random', 'price'];

/** The chosen option and why, for the decision log. */
export interface ExpanderChoice {
  option: ExpansionOption;
  why: string;
}

/** random.BestOption: one option, uniformly (seeded). */
function pickRandom(options: ExpansionOption[], rng: Rng): ExpansionOption {
  return options[rng.int(options.length)]!;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** The options with the smallest score (ties kept, in order). */
function best(options: ExpansionOption[], score: (o: ExpansionOption) => number): ExpansionOption[] {
  let min = Infinity;
  let out: ExpansionOption[] = [];
  for (const o of options) {
    const s = score(o);
    if (s < min) {
      min = s;
      out = [o];
    } else if (s === min) out.push(o);
  }
  return out;
}

/**
 * waste.BestOption: the option that leaves the smallest fraction of its new nodes' cpu plus memory
 * unrequested by the pods it takes (node capacity, as upstream); ties go to the random expander.
 */
function wasteOf(o: ExpansionOption): { cpu: number; memory: number } {
  // upstream reads status.capacity; a group's template node has capacity = allocatable
  const cap = nodeAllocatable(o.node);
  let cpu = 0,
    memory = 0;
  for (const p of o.pods) {
    const r = podRequests(p);
    cpu += r.get('cpu') ?? 0;
    memory += r.get('memory') ?? 0;
  }
  const availCpu = (cap.get('cpu') ?? 0) * o.nodeCount;
  const availMem = (cap.get('memory') ?? 0) * o.nodeCount;
  return { cpu: (availCpu - cpu) / availCpu, memory: (availMem - memory) / availMem };
}

/**
 * Picks one option with the named expander. price: the cheapest node-hours per pod helped —
 * upstream's price expander divides the option's node price by the price of the pods it helps under
 * the cloud provider's pricing model; with one price per node group kubesim divides by the pod
 * count (the same order for pods of one shape), without upstream's preferred-node-size and
 * unfitness terms.
 */
export function chooseOption(
  name: ExpanderName,
  options: ExpansionOption[],
  rng: Rng,
): ExpanderChoice | undefined {
  if (!options.length) return undefined;
  const fallback = (tied: ExpansionOption[], why: string): ExpanderChoice => {
    const option = tied.length === 1 ? tied[0]! : pickRandom(tied, rng);
    return { option, why: tied.length > 1 ? `${why}; ${tied.length} tied, picked at random` : why };
  };
  switch (name) {
    case 'random': {
      const option = pickRandom(options, rng);
      return { option, why: `random among ${options.length} option(s)` };
    }
    case 'most-pods': {
      const tied = best(options, (o) => -o.pods.length);
      return fallback(tied, `most pods: ${tied[0]!.pods.length}`);
    }
    case 'least-waste': {
      const tied = best(options, (o) => {
        const w = wasteOf(o);
        return w.cpu + w.memory;
      });
      const w = wasteOf(tied[0]!);
      return fallback(tied, `least waste: cpu ${round(w.cpu * 100)}%, memory ${round(w.memory * 100)}%`);
    }
    case 'price': {
      const tied = best(options, (o) => (o.nodeCount * o.costPerHour) / o.pods.length);
      const o = tied[0]!;
      return fallback(tied, `cheapest: ${round((o.nodeCount * o.costPerHour) / o.pods.length)}/h per pod`);
    }
  }
}

/** A node group's size and bounds, for balancing. */
export interface GroupSize {
  group: string;
  size: number;
  max: number;
}

/**
 * BalanceScaleUpBetweenGroups: spread `newNodes` over similar groups so that their sizes end up
 * as equal as possible — each node goes to the smallest group below its max (ties in input order).
 * Returns the nodes to add per group (groups that get none are left out), and the nodes that fit
 * nowhere because every group is at its max.
 */
export function balanceScaleUp(
  groups: GroupSize[],
  newNodes: number,
): { add: Map<string, number>; left: number } {
  const size = groups.map((g) => g.size);
  const add = new Map<string, number>();
  let left = newNodes;
  while (left > 0) {
    let pick = -1;
    for (let i = 0; i < groups.length; i++)
      if (size[i]! < groups[i]!.max && (pick < 0 || size[i]! < size[pick]!)) pick = i;
    if (pick < 0) break;
    size[pick]!++;
    add.set(groups[pick]!.group, (add.get(groups[pick]!.group) ?? 0) + 1);
    left--;
  }
  return { add, left };
}

/**
 * DefaultPreemption (pkg/scheduler/framework/plugins/defaultpreemption + framework/preemption):
 * when no node fits, find nodes where evicting lower-priority pods makes the pod fit, choose the
 * victims on each such node (remove every lower-priority pod, check the pod fits, then reprieve
 * victims from the most important down while it still fits), pick one node by upstream's ordering,
 * and propose it as nominatedNodeName with its victims. The scheduler loop evicts them.
 *
 * PodDisruptionBudgets (filterPodsWithPDBViolation): walking the lower-priority pods from the most
 * important down, each pod a budget covers spends one of that budget's disruptionsAllowed (unless
 * it is already in the budget's disruptedPods); a pod that drives a budget below zero is
 * "violating". Violating pods are reprieved first, and each one that still has to go counts as a
 * PDB violation of the candidate. The dry run keeps looking past numCandidates until it has found
 * at least one candidate without violations (dryRunPreemption).
 *
 * Node choice (pickOneNodeForPreemption), first criterion that separates wins:
 *   1. fewest PodDisruptionBudget violations
 *   2. lowest highest-victim priority    3. lowest sum of victim priorities
 *   4. fewest victims                    5. latest start time of the most important victims
 *   6. the first candidate found
 */
import { pdbSelectsPod } from '../../api/apiserver-evict.js';
import type { PodDisruptionBudget } from '../../api/batch-types.js';
import type { Pod } from '../../api/types.js';
import type { CycleState } from '../framework/cycle-state.js';
import { formatFitError, newDiagnosis, NodeToStatus } from '../framework/fit-error.js';
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../framework/snapshot.js';
import { Code, Status, type MaybeStatus } from '../framework/status.js';
import type { Handle, PostFilterPlugin, PostFilterResult } from '../framework/types.js';
import type { Rng } from '../../util/rng.js';

export const NAME = 'DefaultPreemption';
export const MSG_NOT_HELPFUL = 'Preemption is not helpful for scheduling';
export const MSG_NO_VICTIMS = 'No preemption victims found for incoming pod';
const NOT_HELPFUL = new Status(Code.UnschedulableAndUnresolvable, [MSG_NOT_HELPFUL]);
const NO_VICTIMS = new Status(Code.UnschedulableAndUnresolvable, [MSG_NO_VICTIMS]);
/** selectVictimsOnNode's answer for a node without lower-priority pods (shared: never modified) */
const NO_VICTIMS_ON_NODE: { victims: Pod[]; numPDBViolations: number; status: MaybeStatus } = Object.freeze({
  victims: Object.freeze([]) as unknown as Pod[],
  numPDBViolations: 0,
  status: NO_VICTIMS,
});

/**
 * filterPodsWithPDBViolation: split `pods` (most important first) into those whose eviction would
 * take a budget below zero and the rest. A budget's selector covers pods as the eviction does
 * (pdbSelectsPod: an empty selector covers nothing); pods without labels match no budget.
 */
export function filterPodsWithPDBViolation<T extends { pod: Pod }>(
  pods: T[],
  pdbs: readonly PodDisruptionBudget[],
): { violating: T[]; nonViolating: T[] } {
  const allowed = pdbs.map((b) => b.status?.disruptionsAllowed ?? 0);
  const violating: T[] = [];
  const nonViolating: T[] = [];
  for (const pi of pods) {
    const p = pi.pod;
    let violated = false;
    if (p.metadata.labels && Object.keys(p.metadata.labels).length) {
      pdbs.forEach((b, i) => {
        if ((b.metadata.namespace ?? 'default') !== (p.metadata.namespace ?? 'default')) return;
        if (!pdbSelectsPod(b.spec?.selector, p.metadata.labels)) return;
        // already being evicted through the API: not a new violation
        if (b.status?.disruptedPods && p.metadata.name! in b.status.disruptedPods) return;
        allowed[i]--;
        if (allowed[i] < 0) violated = true;
      });
    }
    (violated ? violating : nonViolating).push(pi);
  }
  return { violating, nonViolating };
}

export interface DefaultPreemptionArgs {
  minCandidateNodesPercentage?: number;
  minCandidateNodesAbsolute?: number;
}

export interface Candidate {
  nodeName: string;
  victims: Pod[];
  numPDBViolations: number;
}

const priorityOf = (p: Pod) => p.spec.priority ?? 0;
/** pod start time in ms; pods not started yet count as "now" (latest) like upstream */
const startOf = (p: Pod) => {
  const t = p.status?.startTime ? Date.parse(p.status.startTime) : NaN;
  return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t;
};

/** upstream MoreImportantPod: higher priority, then earlier start */
export function moreImportantPod(a: Pod, b: Pod): boolean {
  const pa = priorityOf(a),
    pb = priorityOf(b);
  if (pa !== pb) return pa > pb;
  return startOf(a) < startOf(b);
}

export class DefaultPreemption implements PostFilterPlugin {
  readonly name = NAME;
  private readonly minPct: number;
  private readonly minAbs: number;

  constructor(
    args: DefaultPreemptionArgs | undefined,
    private readonly handle: Handle,
  ) {
    this.minPct = args?.minCandidateNodesPercentage ?? 10;
    this.minAbs = args?.minCandidateNodesAbsolute ?? 100;
    if (!Number.isInteger(this.minPct) || this.minPct < 0 || this.minPct > 100)
      throw new Error(
        `DefaultPreemptionArgs: minCandidateNodesPercentage: Invalid value: ${this.minPct}: not in valid range [0, 100]`,
      );
    if (!Number.isInteger(this.minAbs) || this.minAbs < 0)
      throw new Error(
        `DefaultPreemptionArgs: minCandidateNodesAbsolute: Invalid value: ${this.minAbs}: not in valid range [0, inf)`,
      );
    if (this.minPct === 0 && this.minAbs === 0)
      throw new Error(
        'DefaultPreemptionArgs: minCandidateNodesPercentage and minCandidateNodesAbsolute cannot be both zero',
      );
  }

  static factory(args: Record<string, unknown> | undefined, h: Handle): DefaultPreemption {
    return new DefaultPreemption(args as DefaultPreemptionArgs | undefined, h);
  }

  private get snapshot(): ClusterSnapshot {
    return this.handle.snapshot;
  }

  private get rng(): Rng {
    return this.handle.rng;
  }

  /** upstream calculateNumCandidates */
  numCandidates(numNodes: number): number {
    let n = Math.trunc((numNodes * this.minPct) / 100);
    if (n < this.minAbs) n = this.minAbs;
    if (n > numNodes) n = numNodes;
    return n;
  }

  postFilter(
    state: CycleState,
    pod: Pod,
    statuses: ReadonlyMap<string, Status>,
  ): { result?: PostFilterResult; status: MaybeStatus } {
    if (pod.spec.preemptionPolicy === 'Never') {
      return {
        status: new Status(Code.Unschedulable, ['preemption: not eligible due to preemptionPolicy=Never.']),
      };
    }
    const all = this.snapshot.list();
    if (all.length === 0) return { status: new Status(Code.Error, ['no nodes available']) };
    const diag = newDiagnosis();
    // the per-node statuses only feed the "preemption: 0/N nodes are available: …" message, so
    // they are counted by reason as they come instead of kept per node
    const reasons = new Map<string, number>();
    const count = (s: Status, n = 1) => {
      for (const r of s.reasons) reasons.set(r, (reasons.get(r) ?? 0) + n);
    };
    let notHelpful = 0;
    const candidates: Candidate[] = [];
    let noVictims = 0;
    // no pod anywhere has a lower priority: selectVictimsOnNode would find no victims on any node,
    // so only the number of potential nodes matters (the cycle's own statuses count it without a
    // lookup per node)
    const noneLower =
      this.handle.framework !== undefined && this.snapshot.lowestPodPriority() >= priorityOf(pod);
    const counted =
      noneLower && statuses instanceof NodeToStatus
        ? statuses.countCode(all, Code.UnschedulableAndUnresolvable)
        : undefined;
    const potential: NodeInfo[] = [];
    if (counted !== undefined) notHelpful = counted;
    else {
      // (the cycle's own statuses answer per listed node without a lookup by name)
      const statusOf =
        statuses instanceof NodeToStatus
          ? (ni: NodeInfo) => statuses.ofNode(ni)
          : (ni: NodeInfo) => statuses.get(ni.name);
      for (const ni of all) {
        const s = statusOf(ni);
        if (s && s.code === Code.UnschedulableAndUnresolvable) notHelpful++;
        else potential.push(ni);
      }
    }
    const numPotential = all.length - notHelpful;
    if (numPotential > 0 && noneLower) {
      // (the offset is still drawn, so the seeded choices that follow stay the same)
      this.rng.int(numPotential);
      noVictims = numPotential;
    } else if (numPotential > 0) {
      const want = this.numCandidates(potential.length);
      const offset = this.rng.int(potential.length);
      // dryRunPreemption stops once it has `want` candidates of which one violates no budget
      let nonViolating = 0;
      for (let i = 0; i < potential.length && !(nonViolating > 0 && candidates.length >= want); i++) {
        const ni = potential[(offset + i) % potential.length];
        const r = this.selectVictimsOnNode(state, pod, ni);
        if (r.status === null) {
          candidates.push({ nodeName: ni.name, victims: r.victims, numPDBViolations: r.numPDBViolations });
          if (r.numPDBViolations === 0) nonViolating++;
        } else if (r.status.code === Code.Error) return { status: r.status };
        else if (r.status === NO_VICTIMS) noVictims++;
        else count(r.status);
      }
    }
    if (candidates.length === 0) {
      if (notHelpful > 0) count(NOT_HELPFUL, notHelpful);
      if (noVictims > 0) count(NO_VICTIMS, noVictims);
      const msg = formatFitError(all.length, diag, reasons);
      return {
        result: { nominatedNodeName: '' },
        status: new Status(Code.Unschedulable, ['preemption: ' + msg]),
      };
    }
    const best = pickOneNodeForPreemption(candidates);
    return {
      result: {
        nominatedNodeName: best.nodeName,
        victims: best.victims,
        numPDBViolations: best.numPDBViolations,
      },
      status: null,
    };
  }

  /**
   * SelectVictimsOnNode: what-if on the live snapshot (restored before returning), with a cloned
   * CycleState kept right through the PreFilter extensions' RemovePod/AddPod.
   */
  selectVictimsOnNode(
    state: CycleState,
    pod: Pod,
    ni: NodeInfo,
  ): { victims: Pod[]; numPDBViolations: number; status: MaybeStatus } {
    const fwk = this.handle.framework;
    if (!fwk)
      return {
        victims: [],
        numPDBViolations: 0,
        status: new Status(Code.Error, ['DefaultPreemption: no framework in handle']),
      };
    const prio = priorityOf(pod);
    // most nodes of a cluster where nothing has a lower priority: answer without allocating
    // (the dry run visits every potential node until it has enough candidates)
    let anyLower = false;
    for (const p of ni.pods)
      if (priorityOf(p.pod) < prio) {
        anyLower = true;
        break;
      }
    if (!anyLower) return NO_VICTIMS_ON_NODE;
    const lower: PodInfo[] = ni.pods.filter((p) => priorityOf(p.pod) < prio);
    const s = state.clone();
    const removed: PodInfo[] = [];
    const remove = (pi: PodInfo) => {
      fwk.runRemovePod(s, pod, pi, ni);
      this.snapshot.removePod(pi.key);
      removed.push(pi);
    };
    const restore = (pi: PodInfo) => {
      this.snapshot.addPod(pi.pod);
      fwk.runAddPod(s, pod, pi, ni);
      removed.splice(removed.indexOf(pi), 1);
    };
    try {
      for (const pi of lower) remove(pi);
      const fits = fwk.runFilterWithNominatedPods(s, pod, ni);
      if (fits !== null) return { victims: [], numPDBViolations: 0, status: fits };
      // reprieve from the most important down: the budget-violating pods first, then the others
      const byImportance = (a: PodInfo, b: PodInfo) =>
        moreImportantPod(a.pod, b.pod) ? -1 : moreImportantPod(b.pod, a.pod) ? 1 : 0;
      const order = [...lower].sort(byImportance);
      const { violating, nonViolating } = filterPodsWithPDBViolation(
        order,
        this.handle.objects.podDisruptionBudgets ?? [],
      );
      const victims: PodInfo[] = [];
      let numPDBViolations = 0;
      const reprieve = (pi: PodInfo): boolean => {
        restore(pi);
        if (fwk.runFilterWithNominatedPods(s, pod, ni) === null) return true;
        remove(pi);
        victims.push(pi);
        return false;
      };
      for (const pi of violating) if (!reprieve(pi)) numPDBViolations++;
      for (const pi of nonViolating) reprieve(pi);
      if (violating.length && nonViolating.length) victims.sort(byImportance);
      return { victims: victims.map((v) => v.pod), numPDBViolations, status: null };
    } finally {
      for (const pi of [...removed]) this.snapshot.addPod(pi.pod);
    }
  }
}

/** upstream pickOneNodeForPreemption over candidates without PDB information. */
export function pickOneNodeForPreemption(candidates: Candidate[]): Candidate {
  let cands = candidates;
  const keepMin = (score: (c: Candidate) => number) => {
    let best = Infinity;
    for (const c of cands) best = Math.min(best, score(c));
    cands = cands.filter((c) => score(c) === best);
  };
  keepMin((c) => c.numPDBViolations);
  if (cands.length > 1) keepMin((c) => Math.max(...c.victims.map(priorityOf)));
  // sum of (priority + MaxInt32 + 1) so that negative priorities still add up monotonically
  if (cands.length > 1) keepMin((c) => c.victims.reduce((s, v) => s + priorityOf(v) + 2147483648, 0));
  if (cands.length > 1) keepMin((c) => c.victims.length);
  if (cands.length > 1) {
    // the earliest start among the highest-priority victims; the node where that is latest wins
    const earliest = (c: Candidate) => {
      const top = Math.max(...c.victims.map(priorityOf));
      return Math.min(...c.victims.filter((v) => priorityOf(v) === top).map(startOf));
    };
    keepMin((c) => -earliest(c));
  }
  return cands[0];
}

/**
 * One scheduling cycle for one pod, as kube-scheduler's schedulePod (pkg/scheduler/schedule_one.go):
 *
 *   PreFilter → Filter over nodes starting at a rotating index, stopping once
 *   numFeasibleNodesToFind nodes fit (one when no score plugin is enabled) →
 *   PreScore/Score/NormalizeScore × weight → selectHost
 *   (highest total; ties broken by reservoir sampling with the seeded Rng).
 *
 * The cycle is synchronous and allocates per cycle, not per node (statuses are shared constants).
 * PostFilter (preemption) runs only when no node fits, from {@link runSchedulingCycle}.
 */
import type { Pod } from '../../api/types.js';
import type { Rng } from '../../util/rng.js';
import type { CycleState } from './cycle-state.js';
import { ERR_NO_NODES_AVAILABLE, FitError, newDiagnosis } from './fit-error.js';
import { numFeasibleNodesToFind } from '../engine/types.js';
import type { FastScorer, Framework, ScoreTable } from './framework.js';
import type { ClusterSnapshot, NodeInfo } from './snapshot.js';
import { Code, errorStatus, Status } from './status.js';
import type { PostFilterResult } from './types.js';

export interface ScheduleResult {
  suggestedHost: string;
  /** the suggested host's NodeInfo in the snapshot the cycle ran on (assume skips a lookup by name) */
  node?: NodeInfo;
  /** nodes the filters ran on */
  evaluatedNodes: number;
  feasibleNodes: number;
  /** the score table (absent when only one node was feasible: upstream skips scoring then) */
  scores?: ScoreTable;
  /** feasible nodes in the order they were scored */
  scoredNodes?: NodeInfo[];
}

/** Thrown-free outcome of schedulePod. */
export type ScheduleOutcome =
  | { kind: 'scheduled'; result: ScheduleResult }
  | { kind: 'unschedulable'; fitError: FitError }
  | { kind: 'error'; message: string; plugin?: string };

/**
 * The cycle driver. Holds the state that survives cycles: the rotating start index and the Rng
 * used for tie-breaks.
 */
export class SchedulingAlgorithm {
  /** upstream sched.nextStartNodeIndex */
  nextStartNodeIndex = 0;

  constructor(
    readonly snapshot: ClusterSnapshot,
    readonly rng: Rng,
    /** the configuration-wide percentageOfNodesToScore (profiles may override) */
    readonly percentageOfNodesToScore = 0,
  ) {}

  schedulePod(fwk: Framework, state: CycleState, pod: Pod): ScheduleOutcome {
    const nodes = this.snapshot.list();
    if (nodes.length === 0) return { kind: 'error', message: ERR_NO_NODES_AVAILABLE };

    const diagnosis = newDiagnosis();
    const { status: pre, nodeNames, narrowedBy } = fwk.runPreFilter(state, pod, nodes);
    for (const p of narrowedBy) diagnosis.unschedulablePlugins.add(p);
    if (pre !== null) {
      if (!pre.isRejected()) return { kind: 'error', message: pre.message(), plugin: pre.plugin };
      // every node gets the PreFilter status; the message carries it once
      diagnosis.preFilterMsg = pre.message();
      for (const n of nodes) diagnosis.nodeToStatus.setNode(n, pre, nodes);
      if (pre.plugin) diagnosis.unschedulablePlugins.add(pre.plugin);
      return { kind: 'unschedulable', fitError: new FitError(pod, nodes.length, diagnosis) };
    }
    // a PreFilterResult: only those nodes are filtered (in node-tree order; upstream walks its set
    // in Go's random map order); the others are UnschedulableAndUnresolvable without a Filter call
    // (findNodesThatFitPod: "node(s) didn't satisfy plugin(s) [...]")
    const candidates = nodeNames ? nodes.filter((n) => nodeNames.has(n.name)) : nodes;
    const excluded = nodeNames
      ? new Status(Code.UnschedulableAndUnresolvable, [
          `node(s) didn't satisfy plugin(s) [${narrowedBy.join(' ')}]`,
        ])
      : undefined;

    // a nominated node (from an earlier preemption) is tried first, alone
    let feasible: NodeInfo[] = [];
    let filteredCount: number | undefined;
    const nominated = pod.status?.nominatedNodeName;
    if (nominated) {
      const ni = this.snapshot.get(nominated);
      if (ni && fwk.runFilterWithNominatedPods(state, pod, ni) === null) feasible = [ni];
    }
    if (feasible.length === 0) {
      const r = this.findNodesThatPassFilters(fwk, state, pod, candidates, diagnosis, nodes.length);
      if (r.error) return { kind: 'error', message: r.error.message(), plugin: r.error.plugin };
      feasible = r.feasible;
      filteredCount = r.filteredCount;
    }
    if (feasible.length === 0) {
      if (excluded) {
        // preemption reads these (UnschedulableAndUnresolvable: not helpful); the FitError counts them
        diagnosis.absentNodesStatus = excluded;
        for (const n of nodes)
          if (!nodeNames!.has(n.name)) diagnosis.nodeToStatus.setNode(n, excluded, nodes);
      }
      return { kind: 'unschedulable', fitError: new FitError(pod, nodes.length, diagnosis) };
    }

    const evaluatedNodes = feasible.length + (filteredCount ?? diagnosis.nodeToStatus.size);
    if (feasible.length === 1) {
      return {
        kind: 'scheduled',
        result: { suggestedHost: feasible[0].name, node: feasible[0], evaluatedNodes, feasibleNodes: 1 },
      };
    }
    const pr = this.prioritize(fwk, state, pod, feasible);
    if ('error' in pr) return { kind: 'error', message: pr.error.message(), plugin: pr.error.plugin };
    if ('fast' in pr) {
      const f = pr.fast;
      const at =
        f.ties === 0
          ? f.best
          : f.events
            ? this.selectIndex(f.events.length + 1, f.bySlot, f.slots, f.events)
            : this.selectIndex(feasible.length, f.bySlot, f.slots);
      const node = feasible[at];
      return {
        kind: 'scheduled',
        result: { suggestedHost: node.name, node, evaluatedNodes, feasibleNodes: feasible.length },
      };
    }
    const node = feasible[this.selectIndex(feasible.length, pr.table.total)];
    return {
      kind: 'scheduled',
      result: {
        suggestedHost: node.name,
        node,
        evaluatedNodes,
        feasibleNodes: feasible.length,
        scores: pr.table,
        // (the kernel window's feasible list is reused by the next cycle: the result keeps a copy)
        scoredNodes: feasible.slice(),
      },
    };
  }

  /**
   * findNodesThatPassFilters: visit nodes from nextStartNodeIndex, stop once enough fit, advance
   * the start index by the number of nodes processed.
   */
  findNodesThatPassFilters(
    fwk: Framework,
    state: CycleState,
    pod: Pod,
    nodes: readonly NodeInfo[],
    diagnosis = newDiagnosis(),
    /** every node of the snapshot (`nodes` may be a PreFilterResult's subset): the start index wraps at it */
    numAllNodes = nodes.length,
  ): { feasible: NodeInfo[]; error?: Status; filteredCount?: number } {
    const n = nodes.length;
    if (n === 0) return { feasible: [], filteredCount: 0 };
    // without score plugins every feasible node is as good as any other: upstream stops at the
    // first one (schedule_one.go findNodesThatPassFilters: !hasScoring → numNodesToFind = 1)
    const toFind = fwk.hasScorePlugins()
      ? numFeasibleNodesToFind(fwk.percentageOfNodesToScore ?? this.percentageOfNodesToScore, n)
      : 1;
    const feasible: NodeInfo[] = [];
    const start = this.nextStartNodeIndex % n;
    if (!fwk.hasFilterPlugins()) {
      for (let i = 0; i < toFind; i++) feasible.push(nodes[(start + i) % n]);
      this.nextStartNodeIndex = (this.nextStartNodeIndex + feasible.length) % numAllNodes;
      return { feasible };
    }
    // the kernel's window scans every node in table order: not for a PreFilterResult's subset
    const wf =
      this.snapshot.nominator.any(pod.spec.priority ?? 0) || n !== numAllNodes
        ? undefined
        : fwk.activeWindowFilter(state);
    if (wf) {
      let r: ReturnType<typeof wf.run>;
      try {
        r = wf.run(state, pod, start, toFind);
      } catch (e) {
        return { feasible: [], error: errorStatus(e) };
      }
      // the statuses are needed only when nothing fits (FitError, preemption)
      if (r.feasible.length === 0) {
        r.recordFiltered(diagnosis.nodeToStatus, this.snapshot.list(), diagnosis.unschedulablePlugins);
      }
      this.nextStartNodeIndex = (this.nextStartNodeIndex + r.processed) % numAllNodes;
      return { feasible: r.feasible, filteredCount: r.filteredCount };
    }
    let processed = 0;
    // the filtered nodes' statuses go into the diagnosis only when nothing fits (FitError,
    // preemption); a cycle that places its pod never reads them
    const failedNodes: NodeInfo[] = [];
    const failed: Status[] = [];
    for (let i = 0; i < n && feasible.length < toFind; i++) {
      const ni = nodes[(start + i) % n];
      processed++;
      const s = fwk.runFilterWithNominatedPods(state, pod, ni);
      if (s === null) {
        feasible.push(ni);
        continue;
      }
      if (s.code === Code.Error) return { feasible: [], error: s };
      failedNodes.push(ni);
      failed.push(s);
    }
    if (feasible.length === 0) {
      const list = this.snapshot.list();
      let lastPlugin = '';
      for (let k = 0; k < failed.length; k++) {
        diagnosis.nodeToStatus.setNode(failedNodes[k], failed[k], list);
        const p = failed[k].plugin;
        if (p && p !== lastPlugin) diagnosis.unschedulablePlugins.add((lastPlugin = p));
      }
    }
    this.nextStartNodeIndex = (this.nextStartNodeIndex + processed) % numAllNodes;
    return { feasible, filteredCount: failed.length };
  }

  prioritize(
    fwk: Framework,
    state: CycleState,
    pod: Pod,
    feasible: readonly NodeInfo[],
  ): { table: ScoreTable } | { fast: NonNullable<ReturnType<FastScorer['totals']>> } | { error: Status } {
    if (!fwk.hasScorePlugins()) {
      return {
        table: {
          plugins: [],
          weights: [],
          raw: [],
          normalized: [],
          total: new Array(feasible.length).fill(1),
          skipped: [],
        },
      };
    }
    const ps = fwk.runPreScore(state, pod, feasible);
    if (ps !== null) return { error: ps };
    if (fwk.fastScorer && !state.wantScoreTable) {
      // every active score plugin ran inside the engine's filter call: take its totals (the same
      // numbers RunScorePlugins would add up; explain asks for the per-plugin table instead)
      const fast = fwk.fastScorer.totals(state, pod, feasible);
      if (fast) return { fast };
    }
    const { table, status } = fwk.runScore(state, pod, feasible);
    if (status !== null) return { error: status };
    return { table };
  }

  /**
   * selectHost: the node with the highest total; among equal totals each is chosen with equal
   * probability by reservoir sampling (the k-th tie replaces the choice with probability 1/k).
   * The total of `nodes[i]` is `totals[i]`, or `totals[slots[i]]` when `slots` is given (the
   * engine's total column read in place).
   */
  selectHost(nodes: readonly NodeInfo[], totals: ArrayLike<number>, slots?: ArrayLike<number>): string {
    return nodes[this.selectIndex(nodes.length, totals, slots)].name;
  }

  /**
   * {@link selectHost}'s choice among `n` nodes, as a position. With `events` (the positions after
   * the first where the running maximum is reached or raised, n − 1 of them, in order) only those
   * are visited: at any other position the reservoir does nothing.
   */
  selectIndex(
    n: number,
    totals: ArrayLike<number>,
    slots?: ArrayLike<number>,
    events?: ArrayLike<number>,
  ): number {
    let best = 0;
    let bestTotal = slots ? totals[slots[0]] : totals[0];
    let cnt = 1;
    for (let k = 1; k < n; k++) {
      const i = events ? events[k - 1] : k;
      const t = slots ? totals[slots[i]] : totals[i];
      if (t > bestTotal) {
        best = i;
        bestTotal = t;
        cnt = 1;
      } else if (t === bestTotal) {
        cnt++;
        if (this.rng.int(cnt) === 0) best = i;
      }
    }
    return best;
  }
}

/** Outcome of a full scheduling cycle including PostFilter. */
export type CycleOutcome =
  | { kind: 'scheduled'; nodeName: string; result: ScheduleResult; state: CycleState }
  | { kind: 'unschedulable'; fitError: FitError; postFilter?: PostFilterResult; state: CycleState }
  | { kind: 'error'; message: string; plugin?: string; state: CycleState };

/**
 * schedulePod, then — when no node fits — the PostFilter plugins (preemption), whose message
 * joins the FitError as upstream does ("… preemption: 0/5 nodes are available: …").
 */
export function runSchedulingCycle(
  algo: SchedulingAlgorithm,
  fwk: Framework,
  pod: Pod,
  state = fwk.newCycleState(),
): CycleOutcome {
  const out = algo.schedulePod(fwk, state, pod);
  if (out.kind === 'scheduled')
    return { kind: 'scheduled', nodeName: out.result.suggestedHost, result: out.result, state };
  if (out.kind === 'error') return { ...out, state };
  const fe = out.fitError;
  if (fwk.plugins.postFilter.length === 0) return { kind: 'unschedulable', fitError: fe, state };
  const pf = fwk.runPostFilter(state, pod, fe.diagnosis.nodeToStatus);
  if (pf.status.code === Code.Error)
    return { kind: 'error', message: pf.status.message(), plugin: pf.status.plugin, state };
  const msg = pf.status.message();
  if (msg) fe.diagnosis.postFilterMsg = msg;
  return {
    kind: 'unschedulable',
    fitError: fe,
    postFilter: pf.status.isSuccess()
      ? pf.result
      : pf.result?.nominatedNodeName !== undefined
        ? pf.result
        : undefined,
    state,
  };
}

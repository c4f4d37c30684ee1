/**
 * The kernel's sampling window (upstream schedule_one.go findNodesThatPassFilters with
 * numFeasibleNodesToFind): when a profile's node-local filters are exactly the kernel's six, the
 * kernel runs the window in one call, with the cross-pod filters and scores (PodTopologySpread,
 * InterPodAffinity) joining it per topology domain; and the fast scorer that takes the window's
 * totals. Split from node-local.ts (the plugins and their runner), which it builds on.
 */
import type { Pod } from '../../api/types.js';
import type { CycleState } from '../framework/cycle-state.js';
import type { FastScorer, Framework, WindowFilter } from '../framework/framework.js';
import type { NodeCounts, NodeInfo, TopologyDomains } from '../framework/snapshot.js';
import type { Status, MaybeStatus } from '../framework/status.js';
import type { NodeToStatus } from '../framework/fit-error.js';
import type { FilterPlugin, ScorePlugin } from '../framework/types.js';
import * as L from '../engine/layout.js';
import type { CrossPodInputs, DomainCheck, DomainScores, SpreadScoreConstraint } from '../engine/crosspod.js';
import { NodeStatus } from '../engine/types.js';
import {
  KERNEL_FILTERS,
  type KernelRun,
  NodeLocalPlugin,
  type NodeLocalRunner,
  RUN_KEY,
  SCORE_INDEX,
} from './node-local.js';

/** the reason bits of the kernel filters other than NodeResourcesFit */
const NOT_FIT_BITS = ~KERNEL_FILTERS.NodeResourcesFit;
const FIT_BITS = KERNEL_FILTERS.NodeResourcesFit;

/** The kernel's filter order (engine/types.ts): the window filter applies only in this order (NodeResourcesFit last). */
const KERNEL_ORDER = [
  'NodeUnschedulable',
  'NodeName',
  'TaintToleration',
  'NodeAffinity',
  'NodePorts',
  'NodeResourcesFit',
];

/** One topology key's verdicts for the kernel window (engine/crosspod.ts DomainCheck, by snapshot domains). */
export interface DomainVerdicts {
  domains: TopologyDomains;
  /** per domain id: 1 the node passes, 0 it fails */
  pass: ArrayLike<number>;
  /** the verdict for a node without the key */
  missing: 0 | 1;
}

/**
 * A cross-pod filter (PodTopologySpread, InterPodAffinity) whose verdict for the cycle's pod is a
 * function of the node's topology domains: the kernel window evaluates it per node from per-domain
 * verdicts. The plugin's own Filter stays the reference (and gives the statuses).
 */
export interface DomainFilter extends FilterPlugin {
  /**
   * this cycle's verdicts, every check must pass (from the PreFilter state in `state`); undefined
   * when the state is not a function of domains — the framework then filters per node
   */
  domainChecks(state: CycleState): readonly DomainVerdicts[] | undefined;
}

/** A cross-pod score's per-cycle input for the kernel window. */
export type DomainScoreInput =
  /** InterPodAffinity: the raw score is the sum of the node's domains' sums over the keys (0 for other domains) */
  | {
      kind: 'sums';
      /**
       * `sums[j]` for domain `ids[j]`; without `ids`, `sums` holds every domain; plus each term's
       * weight × its counts by domain id
       */
      keys: readonly {
        domains: TopologyDomains;
        ids?: ArrayLike<number>;
        sums: ArrayLike<number>;
        terms?: readonly { counts: ArrayLike<number>; weight: number }[];
      }[];
    }
  /** PodTopologySpread: ScheduleAnyway constraints (upstream podtopologyspread/scoring.go) */
  | {
      kind: 'spread';
      requireAllKeys: boolean;
      constraints: readonly {
        domains: TopologyDomains;
        maxSkew: number;
        /** per domain id; absent with perNode */
        domainCounts?: ArrayLike<number>;
        /** the hostname key: matching pods per node */
        perNode?: NodeCounts;
      }[];
    };

/**
 * A cross-pod score plugin whose scores the kernel window can compute from per-domain inputs
 * taken before Filter; its PreScore must then answer the same for the pod (Skip or not).
 */
export interface DomainScorer extends ScorePlugin {
  /** 'skip': PreScore will skip the pod; undefined: not expressible per domain (RunScorePlugins runs) */
  domainScores(state: CycleState, pod: Pod): DomainScoreInput | 'skip' | undefined;
}

function isDomainFilter(p: FilterPlugin): p is DomainFilter {
  return typeof (p as Partial<DomainFilter>).domainChecks === 'function';
}

function isDomainScorer(p: ScorePlugin): p is DomainScorer {
  return typeof (p as Partial<DomainScorer>).domainScores === 'function';
}

const CROSS_POD_CHECKS_KEY = 'NodeLocalCrossPodChecks';

/**
 * The fast path: when a profile's node-local filters are exactly the kernel's six, in the kernel's
 * order, and no other filter is active for the pod, the kernel runs upstream's sampling window
 * itself (start index, stop after numNodesToFind feasible nodes) in one call. The cross-pod
 * filters ({@link DomainFilter}) join it per cycle when their state is per domain
 * (`coversInCycle`), and the cross-pod scores ({@link DomainScorer}) when every score plugin of
 * the profile is node-local or such a scorer, so the window's totals are the whole cycle's.
 */
export function kernelWindowFilter(
  runner: NodeLocalRunner,
  filterNames: readonly string[],
  plugins: readonly FilterPlugin[],
  scorePlugins: readonly { plugin: ScorePlugin; weight: number }[],
  /**
   * the framework's RunFilterPlugins for one node: a node the window filtered gets the status the
   * per-node path gives it (the node-local filters read the window's reason bits, the cross-pod
   * ones run their own Filter)
   */
  runFilter: (state: CycleState, pod: Pod, ni: NodeInfo) => MaybeStatus,
): WindowFilter | undefined {
  const local = filterNames.filter((n) => n in KERNEL_FILTERS);
  if (local.length !== KERNEL_ORDER.length || local.some((n, i) => n !== KERNEL_ORDER[i])) return undefined;
  const engine = runner.engine;
  // a cross-pod filter after every kernel filter (as in the default profile): a node the kernel
  // rejects then has a node-local status, whatever the cross-pod plugins would answer
  const lastKernel = Math.max(...KERNEL_ORDER.map((n) => filterNames.indexOf(n)));
  const crossFilters = new Map<string, DomainFilter>();
  plugins.forEach((p, i) => {
    if (isDomainFilter(p) && i > lastKernel) crossFilters.set(p.name, p);
  });
  /** the cross-pod filters in profile order */
  const crossFilterList = [...crossFilters.values()];
  // the window's totals can replace RunScorePlugins only when every score plugin not skipped at
  // PreScore is node-local (this runner's, at the weight the query carries) or a DomainScorer;
  // others (VolumeBinding) usually skip, which the fast scorer checks after PreScore
  const crossScorers: { plugin: DomainScorer; weight: number }[] = [];
  let scoresCovered = true;
  for (const { plugin, weight } of scorePlugins) {
    if (plugin instanceof NodeLocalPlugin) {
      if (plugin.runnerOf() !== runner || weight !== runner.scoring.weights[SCORE_INDEX[plugin.name]])
        scoresCovered = false;
    } else if (isDomainScorer(plugin)) crossScorers.push({ plugin, weight });
  }
  if (!scoresCovered) crossScorers.length = 0;
  const checksOf = (state: CycleState): Map<string, readonly DomainVerdicts[] | undefined> => {
    let m = state.tryRead<Map<string, readonly DomainVerdicts[] | undefined>>(CROSS_POD_CHECKS_KEY);
    if (!m) state.write(CROSS_POD_CHECKS_KEY, (m = new Map()));
    return m;
  };

  /** the cross-pod inputs of this cycle: the active filters' checks and, when covered, the scores */
  const crossPodInputs = (
    state: CycleState,
    pod: Pod,
  ): { inputs: CrossPodInputs; scored: ReadonlySet<string> } | undefined => {
    // (a plain pod: every cross-pod plugin skipped — nothing allocated)
    let checks: DomainCheck[] | undefined;
    for (const p of crossFilterList) {
      if (state.skipFilterPlugins.has(p.name)) continue;
      for (const c of checksOf(state).get(p.name) ?? [])
        (checks ??= []).push({ row: engine.topologyRow(c.domains), pass: c.pass, missing: c.missing });
    }
    const inputs: CrossPodInputs = { checks: checks ?? [] };
    let scored: Set<string> | undefined;
    if (crossScorers.length > 0 && !state.wantScoreTable) {
      for (const { plugin, weight } of crossScorers) {
        let r: DomainScoreInput | 'skip' | undefined;
        try {
          r = plugin.domainScores(state, pod);
        } catch {
          r = undefined; // RunScorePlugins reports it
        }
        if (r === undefined) {
          scored = undefined;
          inputs.ipa = inputs.pts = undefined;
          break;
        }
        if (r === 'skip' || weight === 0) continue;
        (scored ??= new Set()).add(plugin.name);
        if (r.kind === 'sums') {
          const keys: DomainScores[] = r.keys.map((k) => ({
            row: engine.topologyRow(k.domains),
            domains: k.domains.values.length,
            ids: k.ids,
            sums: k.sums,
            terms: k.terms,
          }));
          inputs.ipa = { weight, keys };
        } else {
          const constraints: SpreadScoreConstraint[] = r.constraints.map((c) => ({
            row: engine.topologyRow(c.domains),
            maxSkew: c.maxSkew,
            domainCounts: c.domainCounts,
            perNode: c.perNode,
          }));
          inputs.pts = { weight, requireAllKeys: r.requireAllKeys, constraints };
        }
      }
    }
    if (checks === undefined && scored === undefined) return undefined;
    return { inputs, scored: scored ?? new Set() };
  };

  /**
   * the feasible NodeInfo list, one array reused by every cycle (a new array of ~500 nodes per pod
   * was a third of what a plain cycle allocated): it is read within the cycle only — PreScore,
   * the fast scorer, selectHost; schedulePod copies it into a result that keeps it (scoredNodes)
   */
  const feasibleList: NodeInfo[] = [];
  /**
   * the last window run, for recordFiltered (which reads the kernel's output columns: valid until
   * the next run) — one closure and one result object for every cycle instead of new ones per run
   */
  const last: { state: CycleState | undefined; pod: Pod | undefined; start: number; processed: number } = {
    state: undefined,
    pod: undefined,
    start: 0,
    processed: 0,
  };
  /** whether the table's scan order is `list`'s order, kept per node list and table shape */
  let orderChecked: { list: readonly NodeInfo[]; shape: number; same: boolean } | undefined;
  const sameOrder = (list: readonly NodeInfo[]): boolean => {
    const table = engine.table;
    if (orderChecked?.list !== list || orderChecked.shape !== table.shapeVersion) {
      const order = table.order;
      let same = order.length === list.length;
      for (let i = 0; same && i < list.length; i++) same = list[i].slot === order[i] && list[i].index === i;
      orderChecked = { list, shape: table.shapeVersion, same };
    }
    return orderChecked.same;
  };
  const recordFiltered = (statuses: NodeToStatus, list: readonly NodeInfo[], plugins: Set<string>): void => {
    // (set by the run this is called after)
    const state = last.state!,
      pod = last.pod!;
    const { start, processed } = last;
    const out = engine.out;
    const status = out.status,
      reasons = out.reasons;
    const bySlot = engine.bySlot;
    const order = engine.table.order;
    const n = order.length;
    // the scan position is the node's position in `list` when the table's scan order is the
    // list's order (checked once per node set): no NodeInfo is read for a node the kernel
    // rejected, only the table's columns
    const byPosition = sameOrder(list);
    // the first failing plugin other than NodeResourcesFit (whose status also depends on the
    // node) is decided by those plugins' bits alone: one status per bit pattern
    const lowStatus = new Array<Status | null | undefined>(NOT_FIT_BITS + 1).fill(undefined);
    let fit = false;
    for (let i = 0, at = start % n; i < processed; i++, at = at + 1 === n ? 0 : at + 1) {
      const slot = order[at];
      if (status[slot] !== NodeStatus.Filtered) continue;
      const bits = reasons[slot];
      let s: MaybeStatus = null;
      if (bits === L.RB_CROSS_POD) {
        // node-local filters passed: the cross-pod plugins' own Filter gives the status
        s = runFilter(state, pod, bySlot[slot]!);
        if (s?.plugin) plugins.add(s.plugin);
      } else {
        const low = bits & NOT_FIT_BITS;
        if (low !== 0) {
          s = lowStatus[low] ?? null;
          if (lowStatus[low] === undefined) {
            for (let k = 0; k < KERNEL_ORDER.length - 1 && s === null; k++)
              s = runner.filterStatus(KERNEL_ORDER[k], pod, bySlot[slot]!, reasons);
            lowStatus[low] = s;
            if (s?.plugin) plugins.add(s.plugin);
          }
        }
        if (s === null && (bits & FIT_BITS) !== 0) {
          s = runner.fitStatus(pod, slot, bits & FIT_BITS);
          // (the plugins in first-rejection order, as a visit per node added them)
          if (!fit) plugins.add('NodeResourcesFit');
          fit = true;
        }
      }
      if (s === null) continue;
      if (byPosition) statuses.setAt(list, at, s);
      else statuses.setNode(bySlot[slot]!, s, list);
    }
  };
  const result = { feasible: feasibleList, recordFiltered, filteredCount: 0, processed: 0 };
  return {
    covers: new Set(KERNEL_ORDER),
    coversInCycle(state, name) {
      const p = crossFilters.get(name);
      if (!p) return false;
      const m = checksOf(state);
      if (!m.has(name)) {
        let checks: readonly DomainVerdicts[] | undefined;
        try {
          checks = p.domainChecks(state);
        } catch {
          checks = undefined; // the per-node path reports it
        }
        m.set(name, checks);
      }
      return m.get(name) !== undefined;
    },
    passesAll(state, pod, ni) {
      return runner.runFor(state, pod, ni).reasons[ni.slot] === 0;
    },
    run(state, pod, start, numNodesToFind) {
      const r = runner.runWindow(state, pod, start, numNodesToFind, crossPodInputs(state, pod));
      const out = engine.out;
      // typed-array views are re-validated on every getter call: read them once
      const fs = out.feasible,
        count = out.feasibleCount;
      const bySlot = engine.bySlot;
      const feasible = feasibleList;
      feasible.length = count;
      for (let i = 0; i < count; i++) feasible[i] = bySlot[fs[i]]!;
      r.feasibleNodes = feasible;
      last.state = state;
      last.pod = pod;
      last.start = start;
      last.processed = r.processed;
      result.filteredCount = r.processed - count;
      result.processed = r.processed;
      return result;
    },
  };
}

/**
 * The fast scorer: when every score plugin still active for the pod (not skipped at PreScore) is
 * one of this runner's node-local plugins or a cross-pod score the window added (and the window
 * added none that PreScore skipped), the kernel's window run already computed exactly what
 * RunScorePlugins would — NormalizeScore over the same feasible nodes, × the profile's weights,
 * summed — so the framework takes its totals and skips building the per-plugin score table.
 */
export function kernelFastScorer(runner: NodeLocalRunner, fwk: Framework): FastScorer {
  const engine = runner.engine;
  return {
    totals(state, _pod, nodes) {
      const run = state.tryRead<KernelRun>(RUN_KEY);
      if (!run || run.full || !run.totals || run.generation !== engine.table.generation) return undefined;
      const out = engine.out;
      if (nodes.length !== out.feasibleCount || nodes.length === 0) return undefined;
      const cross = run.crossPodScored;
      for (const { plugin, weight } of fwk.plugins.score) {
        if (state.skipScorePlugins.has(plugin.name)) {
          // the window added a score PreScore then skipped: not RunScorePlugins' totals
          if (cross?.has(plugin.name)) return undefined;
          continue;
        }
        if (cross?.has(plugin.name)) continue;
        if (!(plugin instanceof NodeLocalPlugin) || plugin.runnerOf() !== runner) return undefined;
        if (weight !== runner.scoring.weights[SCORE_INDEX[plugin.name]]) return undefined;
      }
      const fs = out.feasible;
      const best = out.bestSlot;
      let bestIndex = -1;
      if (nodes === run.feasibleNodes) {
        // the window's own list: its slots are the kernel's feasible column
        for (let i = 0; i < nodes.length && bestIndex < 0; i++) if (fs[i] === best) bestIndex = i;
      } else
        for (let i = 0; i < nodes.length; i++) {
          if (nodes[i].slot !== fs[i]) return undefined; // not the window's feasible list
          if (fs[i] === best && bestIndex < 0) bestIndex = i;
        }
      // either way nodes[i] is the node of slot fs[i]: selectHost reads the total column through
      // the feasible column in place (no copy, no NodeInfo touched: scattered in the heap)
      const ties = out.tieEvents;
      return {
        best: bestIndex,
        ties,
        bySlot: out.total,
        slots: fs,
        events: ties > 0 ? out.maxEvents : undefined,
      };
    },
  };
}

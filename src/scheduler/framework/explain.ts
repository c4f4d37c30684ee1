/**
 * "Why is my pod Pending?": the scheduler's real decision for one pod (the same cycle, sampling and
 * tie-break as scheduling it), plus every filter's verdict on every node and every score plugin's
 * raw and normalized score, so a reader can see what decided. Nothing here changes the cluster.
 */
import type { Pod } from '../../api/types.js';
import type { Framework, ScoreTable } from './framework.js';
import { runSchedulingCycle, type SchedulingAlgorithm } from './schedule-one.js';
import type { ClusterSnapshot, NodeInfo } from './snapshot.js';
import { Code, CODE_NAMES, type Status } from './status.js';

export interface FilterVerdict {
  plugin: string;
  /** 'pass' | 'skip' (the plugin's PreFilter said it has nothing to check) | a status code name */
  result: string;
  reasons?: readonly string[];
}

export interface ScoreCell {
  plugin: string;
  raw: number;
  normalized: number;
  weight: number;
}

export interface NodeExplanation {
  name: string;
  feasible: boolean;
  /** the first failing filter, which is what the scheduler reports for the node */
  decisive?: { plugin: string; code: string; reasons: readonly string[] };
  filters: FilterVerdict[];
  /** present for nodes the cycle scored */
  scores?: ScoreCell[];
  total?: number;
  chosen: boolean;
}

export interface Explanation {
  pod: string;
  profile: string;
  numNodes: number;
  /** node chosen by the cycle, if any */
  chosen?: string;
  /** FitError message (with the preemption part) when no node fits */
  fitError?: string;
  /** PreFilter rejection (the whole cycle fails before any node is filtered) */
  preFilter?: { plugin: string; message: string };
  error?: string;
  preemption?: { nominatedNodeName: string; victims: string[] };
  filterPlugins: string[];
  scorePlugins: { name: string; weight: number }[];
  skippedScorePlugins: string[];
  /** feasible nodes first (by total, descending), then failing nodes grouped by reason */
  nodes: NodeExplanation[];
  /** failing reason → nodes, as counted in the FitError */
  reasonCounts: { reason: string; plugin: string; nodes: number }[];
  /** the pod's ResourceClaims, each on each node (DynamicResources; absent for pods without claims) */
  claims?: ClaimExplanation[];
}

/** One of a pod's ResourceClaims in `kubesim explain` (plugins/dynamic-resources/explain.ts). */
export interface ClaimExplanation {
  /** the pod's `spec.resourceClaims[].name` */
  podClaim: string;
  /** the ResourceClaim's name, when known */
  claim?: string;
  /** allocated: devices chosen already; pending: to be allocated; unusable: the pod cannot use it */
  state: 'allocated' | 'pending' | 'unusable';
  /** why the claim cannot be used (PreFilter's text), or an allocation error that no node escapes */
  message?: string;
  /** an allocated claim's devices, `driver/pool/device` */
  devices?: string[];
  /** per node: the claim alone, as Filter would try it (pending) or its node selector (allocated) */
  nodes?: ClaimOnNode[];
}

export interface ClaimOnNode {
  node: string;
  /** undefined: the claim fits on the node by itself; else DynamicResources' reason for the node */
  reason?: string;
  /** the devices the claim alone would get on the node (`pool/device`) */
  devices?: string[];
  /** per request: the node's devices, those the selectors select, and the free ones among them */
  requests?: RequestCensus[];
}

/** What one request of a claim finds on a node (dynamic-resources/allocator.ts Allocator.census). */
export interface RequestCensus {
  /** `req` or `req/sub` */
  request: string;
  deviceClassName: string;
  /** ExactCount's count; for All, every selectable device */
  wanted: number | 'All';
  /** the node's devices in complete, valid pools */
  devices: number;
  /** those the class's and the request's selectors select */
  selectable: number;
  /** those of them not allocated to other claims */
  free: number;
}

const statusOf = (s: Status) => ({ plugin: s.plugin, code: CODE_NAMES[s.code], reasons: s.reasons });

export function explainPod(
  algo: SchedulingAlgorithm,
  fwk: Framework,
  snapshot: ClusterSnapshot,
  pod: Pod,
): Explanation {
  const nodes = snapshot.list();
  const ex: Explanation = {
    pod: `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`,
    profile: fwk.profileName,
    numNodes: nodes.length,
    filterPlugins: fwk.plugins.filter.map((p) => p.name),
    scorePlugins: fwk.plugins.score.map((s) => ({ name: s.plugin.name, weight: s.weight })),
    skippedScorePlugins: [],
    nodes: [],
    reasonCounts: [],
  };

  // 1. the real decision
  const decision = fwk.newCycleState();
  decision.wantScoreTable = true; // explain shows every plugin's raw and normalized score
  const out = runSchedulingCycle(algo, fwk, pod, decision);
  let table: ScoreTable | undefined;
  let scored: NodeInfo[] | undefined;
  if (out.kind === 'scheduled') {
    ex.chosen = out.nodeName;
    table = out.result.scores;
    scored = out.result.scoredNodes;
  } else if (out.kind === 'unschedulable') {
    ex.fitError = out.fitError.message;
    if (out.fitError.diagnosis.preFilterMsg) {
      const s = [...out.fitError.diagnosis.nodeToStatus.values()][0];
      ex.preFilter = { plugin: s?.plugin ?? '', message: out.fitError.diagnosis.preFilterMsg };
    }
    for (const [r, n] of out.fitError.histogram()) {
      const st = [...out.fitError.diagnosis.nodeToStatus.values()].find((s) => s.reasons.includes(r));
      ex.reasonCounts.push({ reason: r, plugin: st?.plugin ?? '', nodes: n });
    }
    ex.reasonCounts.sort((a, b) => b.nodes - a.nodes || (a.reason < b.reason ? -1 : 1));
    if (out.postFilter?.nominatedNodeName) {
      ex.preemption = {
        nominatedNodeName: out.postFilter.nominatedNodeName,
        victims: (out.postFilter.victims ?? []).map(
          (v) => `${v.metadata.namespace ?? 'default'}/${v.metadata.name}`,
        ),
      };
    }
  } else {
    ex.error = out.message;
  }

  // 2. every filter on every node, on a fresh cycle state
  const state = fwk.newCycleState();
  const { status: pre, nodeNames, narrowedBy } = fwk.runPreFilter(state, pod, nodes);
  // a PreFilterResult's other nodes are never filtered: the cycle gives them this status
  const excluded = {
    plugin: narrowedBy.join(','),
    code: CODE_NAMES[Code.UnschedulableAndUnresolvable],
    reasons: [`node(s) didn't satisfy plugin(s) [${narrowedBy.join(' ')}]`],
  };
  for (const ni of nodes) {
    const e: NodeExplanation = { name: ni.name, feasible: false, filters: [], chosen: ni.name === ex.chosen };
    if (pre !== null) {
      e.decisive = statusOf(pre);
      e.filters = ex.filterPlugins.map((p) => ({ plugin: p, result: 'not run' }));
    } else if (nodeNames && !nodeNames.has(ni.name)) {
      e.decisive = excluded;
      e.filters = ex.filterPlugins.map((p) => ({ plugin: p, result: 'not run' }));
    } else {
      const verdicts = fwk.runAllFilters(state, pod, ni);
      e.filters = verdicts.map((v, i) =>
        v === undefined
          ? { plugin: ex.filterPlugins[i], result: 'skip' }
          : v === null
            ? { plugin: ex.filterPlugins[i], result: 'pass' }
            : { plugin: ex.filterPlugins[i], result: CODE_NAMES[v.code], reasons: v.reasons },
      );
      const first = verdicts.find((v) => v);
      if (first) e.decisive = statusOf(first);
      else e.feasible = true;
    }
    ex.nodes.push(e);
  }

  // 3. scores: the cycle's own table; when only one node fitted (upstream skips scoring) score it for display
  if (!table && ex.chosen) {
    const ni = snapshot.get(ex.chosen)!;
    const r = algo.prioritize(fwk, state, pod, [ni]);
    if ('table' in r) {
      table = r.table;
      scored = [ni];
    }
  }
  if (table && scored) {
    ex.skippedScorePlugins = table.skipped;
    const byName = new Map(ex.nodes.map((n) => [n.name, n]));
    scored.forEach((ni, i) => {
      const e = byName.get(ni.name)!;
      e.scores = table!.plugins.map((p, k) => ({
        plugin: p,
        raw: table!.raw[k][i],
        normalized: table!.normalized[k][i],
        weight: table!.weights[k],
      }));
      e.total = table!.total[i];
    });
  }
  const rank = (e: NodeExplanation) => (e.chosen ? 0 : e.total !== undefined ? 1 : e.feasible ? 2 : 3);
  ex.nodes.sort(
    (a, b) =>
      rank(a) - rank(b) ||
      (b.total ?? 0) - (a.total ?? 0) ||
      (a.decisive?.reasons.join() ?? '').localeCompare(b.decisive?.reasons.join() ?? '') ||
      a.name.localeCompare(b.name),
  );
  return ex;
}

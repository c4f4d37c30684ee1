/**
 * PodTopologySpread (pkg/scheduler/framework/plugins/podtopologyspread): DoNotSchedule
 * constraints as a filter, ScheduleAnyway constraints as a score, and the system default
 * constraints (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway) for pods without their own,
 * selected through the Services / ReplicaSets / StatefulSets that match the pod.
 *
 * Feature gates are taken as in current releases: minDomains, nodeAffinityPolicy /
 * nodeTaintsPolicy (NodeInclusionPolicy) and matchLabelKeys are all enabled.
 *
 * Worked example (filter), zones a:{n1,n2} b:{n3}, 2 matching pods in a, 0 in b, maxSkew 1:
 *   TpValueToMatchNum = {a:2, b:0}; global minimum 0
 *   node n1 (zone a): 2 + 1(self-match) − 0 = 3 > 1  → Unschedulable
 *   node n3 (zone b): 0 + 1 − 0 = 1 ≤ 1               → fits
 */
import { LABEL_HOSTNAME, LABEL_TOPOLOGY_ZONE } from '../../api/topology.js';
import { doNotScheduleTaint, findMatchingUntoleratedTaint } from '../../api/taints.js';
import type { LabelSelector, Labels, Pod, Service, TopologySpreadConstraint } from '../../api/types.js';
import type { CycleState, StateData } from '../framework/cycle-state.js';
import { labelSelectorAsSelector, Selector, SelectorError } from '../../api/label-selector.js';
import { compileRequiredNodeAffinity, requiredNodeAffinityMask } from '../../api/node-affinity.js';
import type { Node } from '../../api/types.js';
import type {
  ClusterSnapshot,
  NodeCounts,
  NodeInfo,
  PodInfo,
  TopologyDomains,
} from '../framework/snapshot.js';
import { Code, errorStatus, SKIP, Status, type MaybeStatus } from '../framework/status.js';
import {
  MAX_NODE_SCORE,
  type ClusterEventKind,
  type ClusterObjects,
  type EnqueueExtensions,
  type FilterPlugin,
  type Handle,
  type PreFilterPlugin,
  type PreScorePlugin,
  type ScorePlugin,
} from '../framework/types.js';
import type { DomainScoreInput, DomainVerdicts } from './kernel-window.js';

export const NAME = 'PodTopologySpread';
export const ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints";
export const ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + ' (missing required label)';

const CONSTRAINTS_NOT_MATCH = new Status(Code.Unschedulable, [ERR_REASON_CONSTRAINTS_NOT_MATCH], NAME);
const NODE_LABEL_NOT_MATCH = new Status(
  Code.UnschedulableAndUnresolvable,
  [ERR_REASON_NODE_LABEL_NOT_MATCH],
  NAME,
);

/** upstream systemDefaultConstraints */
export const SYSTEM_DEFAULT_CONSTRAINTS: TopologySpreadConstraint[] = [
  { topologyKey: LABEL_HOSTNAME, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 3 },
  { topologyKey: LABEL_TOPOLOGY_ZONE, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 5 },
];

export interface PodTopologySpreadArgs {
  defaultConstraints?: TopologySpreadConstraint[];
  /** 'System' (default) or 'List' */
  defaultingType?: 'System' | 'List';
}

/** A constraint with its selector parsed (upstream topologySpreadConstraint). */
interface Constraint {
  maxSkew: number;
  topologyKey: string;
  selector: Selector;
  minDomains: number;
  nodeAffinityPolicy: 'Honor' | 'Ignore';
  nodeTaintsPolicy: 'Honor' | 'Ignore';
  /** the snapshot's counter name for the selector in the pod's namespace, once asked */
  countsKey?: string;
}

/** Two lowest-count domains of a constraint (upstream criticalPaths). */
class CriticalPaths {
  v0 = '';
  n0 = 0x7fffffff;
  v1 = '';
  n1 = 0x7fffffff;

  update(tpVal: string, num: number): void {
    if (tpVal === this.v0 || tpVal === this.v1) {
      if (tpVal === this.v0) this.n0 = num;
      else this.n1 = num;
      if (this.n0 > this.n1) {
        [this.v0, this.n0, this.v1, this.n1] = [this.v1, this.n1, this.v0, this.n0];
      }
    } else if (num < this.n0) {
      this.v1 = this.v0;
      this.n1 = this.n0;
      this.v0 = tpVal;
      this.n0 = num;
    } else if (num < this.n1) {
      this.v1 = tpVal;
      this.n1 = num;
    }
  }

  clone(): CriticalPaths {
    const c = new CriticalPaths();
    c.v0 = this.v0;
    c.n0 = this.n0;
    c.v1 = this.v1;
    c.n1 = this.n1;
    return c;
  }
}

class PreFilterState implements StateData {
  constructor(
    readonly constraints: Constraint[],
    readonly criticalPaths: CriticalPaths[],
    readonly tpValueToMatchNum: Map<string, number>[],
    /** the pod PreFilter ran for and, per constraint, whether it matches its own selector (Filter adds 1 then) */
    readonly selfPod?: Pod,
    readonly selfMatch?: readonly number[],
  ) {}

  /**
   * Filter's answer for `selfPod` per domain of each constraint (1 = within maxSkew), by the
   * snapshot's domain ids: one typed-array read per node and constraint instead of a string-keyed
   * lookup. Built on the first Filter call; dropped when AddPod/RemovePod change the counts.
   */
  verdicts?: { domains: TopologyDomains[]; pass: Uint8Array[] };

  /** 1 when `pod` matches constraint i's selector: computed once per cycle, not once per node */
  self(i: number, pod: Pod): number {
    if (pod === this.selfPod && this.selfMatch) return this.selfMatch[i];
    return this.constraints[i].selector.matches(pod.metadata.labels) ? 1 : 0;
  }

  /** the global minimum for skew, 0 while fewer than minDomains domains exist */
  minMatchNum(i: number, minDomains: number): number {
    return this.tpValueToMatchNum[i].size < minDomains ? 0 : this.criticalPaths[i].n0;
  }

  clone(): PreFilterState {
    return new PreFilterState(
      this.constraints,
      this.criticalPaths.map((p) => p.clone()),
      this.tpValueToMatchNum.map((m) => new Map(m)),
      this.selfPod,
      this.selfMatch,
    );
  }
}

interface PreScoreState {
  constraints: Constraint[];
  /** per constraint: matching pods per listed node (the snapshot's incrementally kept counts) */
  nodeCounts: NodeCounts[];
  ignoredNodes: Set<string>;
  /** per constraint: topology value → matching pods (hostname constraints counted per node at Score) */
  topologyValueToPodCounts: Map<string, number>[];
  topologyNormalizingWeight: number[];
}

const PRE_FILTER_KEY = 'PreFilter' + NAME;
const PRE_SCORE_KEY = 'PreScore' + NAME;
/** {@link PodTopologySpread.domainScores}' setup, which PreScore then reuses for the same pod */
const EARLY_SCORE_KEY = 'EarlyPreScore' + NAME;
interface EarlySetup {
  pod: Pod;
  /** null: PreScore skips the pod */
  setup: ScoreSetup | null;
}

/** what PreScore takes from the pod and the counts, before it looks at the filtered nodes */
interface ScoreSetup {
  pod: Pod;
  constraints: Constraint[];
  /** every constraint's key required on a scored node (the pod's own constraints, or List defaulting) */
  requireAll: boolean;
  nodeCounts: NodeCounts[];
}

/** PreScore's state as the setup and the filtered nodes, completed on first use */
class PendingPreScore {
  full?: PreScoreState;
  constructor(
    readonly setup: ScoreSetup,
    readonly filtered: readonly NodeInfo[],
  ) {}
}

function hasKeys(labels: Labels, constraints: readonly Constraint[]): boolean {
  for (const c of constraints) if (!Object.hasOwn(labels, c.topologyKey)) return false;
  return true;
}

/** upstream countPodsMatchSelector's condition for one pod */
function podCounts(p: PodInfo, selector: Selector, ns: string): boolean {
  // terminating pods do not count (kubernetes#87621)
  return (
    !p.pod.metadata.deletionTimestamp &&
    (p.pod.metadata.namespace ?? 'default') === ns &&
    selector.matches(p.pod.metadata.labels)
  );
}

function countPodsMatchSelector(pods: readonly PodInfo[], selector: Selector, ns: string): number {
  let n = 0;
  for (const p of pods) if (podCounts(p, selector, ns)) n++;
  return n;
}

/**
 * countPodsMatchSelector for every listed node at once, from the snapshot's incrementally kept
 * per-node counts (upstream walks every pod of every node per constraint, per cycle: with the
 * replicas of one workload placed one after another that is O(N²) for N replicas). A node absent
 * from the map has 0.
 */
function matchCountsByNode(snapshot: ClusterSnapshot, c: Constraint, ns: string): NodeCounts {
  const selector = c.selector;
  // (a constraint is the pod's own: its namespace is fixed, the name is built once per constraint)
  c.countsKey ??= NAME + '\0' + ns + '\0' + selector.key;
  return snapshot.podMatchCounts(c.countsKey, selector, (p) => podCounts(p, selector, ns));
}

/**
 * Which nodes a cycle's constraints count, as a function of the nodes alone: for constraint i,
 * eligible[i][node.index] = 1 when the node has every constraint's topology key (PreFilter, and
 * PreScore when all topologies are required) and passes the constraint's node inclusion policies;
 * values[i] = the distinct topology values of eligible nodes in node-list order (first
 * appearance). The counting loops then start from every domain at 0 — in the same insertion order
 * as the per-node walk, so the critical paths tie-break identically — and add only the matching
 * pods from the label index, instead of visiting every node per constraint per cycle.
 *
 * Example, zones a b a c, the pod's nodeSelector excludes the 2nd node (zone b), policy Honor:
 *   eligible = [1 0 1 1], values = [a, c]   → counts start {a:0, c:0}
 */
interface Domains {
  eligible: Uint8Array[];
  values: string[][];
}

/** matching pods on at least this many nodes: their sums per domain are kept (ClusterSnapshot.domainSums) */
const KEEP_SUMS_FROM = 64;

/** cache entries kept per node-set version (pod shapes repeat: one per Deployment, typically) */
const MAX_DOMAIN_ENTRIES = 256;

/** 1 per node index where `pass` holds */
function nodeMask(nodes: readonly NodeInfo[], pass: (ni: NodeInfo) => boolean): Uint8Array {
  const m = new Uint8Array(nodes.length);
  for (let j = 0; j < nodes.length; j++) if (pass(nodes[j])) m[j] = 1;
  return m;
}

/** the mask under `key`, computed once; the oldest goes beyond MAX_DOMAIN_ENTRIES */
function cachedMask(cache: Map<string, Uint8Array>, key: string, compute: () => Uint8Array): Uint8Array {
  let m = cache.get(key);
  if (m === undefined) {
    m = compute();
    if (cache.size >= MAX_DOMAIN_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(key, m);
  }
  return m;
}

/** topologyNormalizingWeight: ln(size + 2) */
export function topologyNormalizingWeight(size: number): number {
  return Math.log(size + 2);
}

/** Go's math.Round: half away from zero */
function goRound(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

export class PodTopologySpread
  implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions
{
  readonly name = NAME;
  private readonly defaultConstraints: TopologySpreadConstraint[];
  private readonly systemDefaulted: boolean;

  constructor(
    args: PodTopologySpreadArgs | undefined,
    private readonly snapshot: ClusterSnapshot,
    private readonly objects: ClusterObjects = {},
  ) {
    const type = args?.defaultingType ?? 'System';
    if (type === 'System') {
      if (args?.defaultConstraints?.length)
        throw new Error(
          'PodTopologySpreadArgs: defaultConstraints: Invalid value: when .defaultingType is "System", .defaultConstraints must be empty',
        );
      this.defaultConstraints = SYSTEM_DEFAULT_CONSTRAINTS;
      this.systemDefaulted = true;
    } else {
      this.defaultConstraints = args?.defaultConstraints ?? [];
      this.systemDefaulted = false;
    }
  }

  static factory(args: Record<string, unknown> | undefined, h: Handle): PodTopologySpread {
    return new PodTopologySpread(args as PodTopologySpreadArgs | undefined, h.snapshot, h.objects);
  }

  eventsToRegister(): ClusterEventKind[] {
    return [
      'AssignedPodAdd',
      'AssignedPodUpdate',
      'AssignedPodDelete',
      'NodeAdd',
      'NodeDelete',
      'NodeUpdate',
    ];
  }

  // ------------------------------------------------------------ eligible domains

  private domainCache = new Map<string, Domains>();
  /** per node index, 1 where the pod passes a Honor policy: by the pod's node affinity / tolerations (JSON) */
  private affinityMasks = new Map<string, Uint8Array>();
  private taintMasks = new Map<string, Uint8Array>();
  private domainCacheVersion = -1;
  private domainCacheList: readonly NodeInfo[] | null = null;

  /**
   * The {@link Domains} of `constraints` for `pod` over the snapshot's node list, cached by
   * everything eligibility depends on: the constraints' keys and policies, whether every key is
   * required, and — only where a policy is Honor — the pod's required node affinity / tolerations.
   * Undefined when `nodes` is not the snapshot's list (positions would not be node indexes).
   */
  private domains(
    constraints: readonly Constraint[],
    pod: Pod,
    nodes: readonly NodeInfo[],
    requireAllKeys: boolean,
  ): Domains | undefined {
    if (nodes !== this.snapshot.list()) return undefined;
    if (this.domainCacheVersion !== this.snapshot.nodesVersion || this.domainCacheList !== nodes) {
      this.domainCache.clear();
      this.affinityMasks.clear();
      this.taintMasks.clear();
      this.domainCacheVersion = this.snapshot.nodesVersion;
      this.domainCacheList = nodes;
    }
    // the same pod object with the same constraints list again (a pod retried, or its PreScore
    // after its PreFilter): no cache key to build (two JSON texts)
    const memo = this.podDomains.get(pod);
    if (
      memo !== undefined &&
      memo.constraints === constraints &&
      memo.requireAllKeys === requireAllKeys &&
      memo.version === this.domainCacheVersion &&
      memo.list === nodes
    )
      return memo.d;
    const d = this.cachedDomains(constraints, pod, nodes, requireAllKeys);
    this.podDomains.set(pod, {
      constraints,
      requireAllKeys,
      version: this.domainCacheVersion,
      list: nodes,
      d,
    });
    return d;
  }

  /** the last {@link domains} answer per pod object */
  private readonly podDomains = new WeakMap<
    Pod,
    {
      constraints: readonly Constraint[];
      requireAllKeys: boolean;
      version: number;
      list: readonly NodeInfo[];
      d: Domains;
    }
  >();

  /** {@link domains} through the cache keyed by what eligibility depends on */
  private cachedDomains(
    constraints: readonly Constraint[],
    pod: Pod,
    nodes: readonly NodeInfo[],
    requireAllKeys: boolean,
  ): Domains {
    let honorAffinity = false,
      honorTaints = false;
    let key = requireAllKeys ? 'all' : 'any';
    for (const c of constraints) {
      key += '\0' + c.topologyKey + '\0' + c.nodeAffinityPolicy + '\0' + c.nodeTaintsPolicy;
      if (c.nodeAffinityPolicy === 'Honor') honorAffinity = true;
      if (c.nodeTaintsPolicy === 'Honor') honorTaints = true;
    }
    const affinityKey = honorAffinity
      ? JSON.stringify([
          pod.spec.nodeSelector ?? null,
          pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? null,
        ])
      : '';
    const taintKey = honorTaints ? JSON.stringify(pod.spec.tolerations ?? null) : '';
    key += '\0' + affinityKey + '\0' + taintKey;
    let d = this.domainCache.get(key);
    if (d) {
      // most recently used last (Map order is the eviction order)
      this.domainCache.delete(key);
    } else {
      const affinity = honorAffinity
        ? cachedMask(this.affinityMasks, affinityKey, () => {
            const byValue = requiredNodeAffinityMask(pod, nodes.length, (k) =>
              this.snapshot.topologyDomains(k),
            );
            if (byValue) return byValue;
            const match = compileRequiredNodeAffinity(pod);
            return nodeMask(nodes, (ni) => match(ni.node));
          })
        : undefined;
      const taints = honorTaints
        ? cachedMask(this.taintMasks, taintKey, () =>
            nodeMask(
              nodes,
              (ni) =>
                findMatchingUntoleratedTaint(
                  ni.node.spec?.taints,
                  pod.spec.tolerations,
                  doNotScheduleTaint,
                ) === undefined,
            ),
          )
        : undefined;
      d = this.computeDomains(constraints, nodes, requireAllKeys, affinity, taints);
      if (this.domainCache.size >= MAX_DOMAIN_ENTRIES)
        this.domainCache.delete(this.domainCache.keys().next().value!);
    }
    this.domainCache.set(key, d);
    return d;
  }

  /**
   * Eligibility and the domains' first-appearance order from the snapshot's domain ids of each key
   * (a node has the key when its id is not −1) and the pod's policy masks: typed-array reads per
   * node instead of label lookups and per-node policy checks.
   */
  private computeDomains(
    constraints: readonly Constraint[],
    nodes: readonly NodeInfo[],
    requireAllKeys: boolean,
    affinity: Uint8Array | undefined,
    taints: Uint8Array | undefined,
  ): Domains {
    const n = nodes.length;
    const doms = constraints.map((c) => this.snapshot.topologyDomains(c.topologyKey).ids);
    let hasAll: Uint8Array | undefined;
    if (requireAllKeys) {
      hasAll = new Uint8Array(n).fill(1);
      for (const ids of doms) for (let j = 0; j < n; j++) if (ids[j] < 0) hasAll[j] = 0;
    }
    const eligible: Uint8Array[] = [];
    const values: string[][] = [];
    for (let i = 0; i < constraints.length; i++) {
      const c = constraints[i];
      const aff = c.nodeAffinityPolicy === 'Honor' ? affinity : undefined;
      const tnt = c.nodeTaintsPolicy === 'Honor' ? taints : undefined;
      const dom = this.snapshot.topologyDomains(c.topologyKey);
      const ids = dom.ids;
      const e = new Uint8Array(n);
      const vals: string[] = [];
      const seen = new Uint8Array(dom.values.length);
      let seenMissing = false;
      for (let j = 0; j < n; j++) {
        if ((hasAll && !hasAll[j]) || (aff && !aff[j]) || (tnt && !tnt[j])) continue;
        e[j] = 1;
        const id = ids[j];
        if (id >= 0) {
          if (!seen[id]) {
            seen[id] = 1;
            vals.push(dom.values[id]);
          }
        } else if (!seenMissing) {
          // (only when keys are not all required: the node's value reads as absent)
          seenMissing = true;
          vals.push(undefined as unknown as string);
        }
      }
      eligible.push(e);
      values.push(vals);
    }
    return { eligible, values };
  }

  // ------------------------------------------------------------ constraints

  private filterConstraints(
    list: readonly TopologySpreadConstraint[],
    podLabels: Labels,
    action: string,
    selectorOverride?: Selector,
  ): Constraint[] {
    const out: Constraint[] = [];
    for (const c of list) {
      if (c.whenUnsatisfiable !== action) continue;
      let selector: Selector;
      if (selectorOverride) selector = selectorOverride;
      else {
        let sel: LabelSelector | undefined = c.labelSelector;
        if (sel && c.matchLabelKeys?.length) {
          const exprs = [...(sel.matchExpressions ?? [])];
          for (const k of c.matchLabelKeys)
            if (k in podLabels) exprs.push({ key: k, operator: 'In', values: [podLabels[k]] });
          sel = { ...sel, matchExpressions: exprs };
        }
        selector = labelSelectorAsSelector(sel);
      }
      out.push({
        maxSkew: c.maxSkew,
        topologyKey: c.topologyKey,
        selector,
        minDomains: c.minDomains ?? 1,
        nodeAffinityPolicy: c.nodeAffinityPolicy ?? 'Honor',
        nodeTaintsPolicy: c.nodeTaintsPolicy ?? 'Ignore',
      });
    }
    return out;
  }

  /** helper.DefaultSelector: the selectors of the Services, ReplicaSets, … that select the pod, ANDed */
  private defaultSelector(pod: Pod): Selector | undefined {
    const ns = pod.metadata.namespace ?? 'default';
    const labels = pod.metadata.labels ?? {};
    const matchLabels: Labels = {};
    const exprs: NonNullable<LabelSelector['matchExpressions']> = [];
    let any = false;
    // the namespace's objects only, through the listers' namespace index when there is one
    const services = (this.objects.inNamespace?.('services', ns) ??
      this.objects.services ??
      []) as readonly Service[];
    for (const svc of services) {
      if ((svc.metadata.namespace ?? 'default') !== ns) continue;
      const sel = svc.spec?.selector;
      if (!sel || Object.keys(sel).length === 0) continue;
      if (!Object.entries(sel).every(([k, v]) => labels[k] === v)) continue;
      Object.assign(matchLabels, sel);
      any = true;
    }
    const replicaSets = this.objects.inNamespace?.('replicaSets', ns) ?? this.objects.replicaSets ?? [];
    const controllers = [...replicaSets, ...(this.objects.others ?? [])] as {
      metadata: { namespace?: string };
      spec?: { selector?: unknown };
    }[];
    for (const c of controllers) {
      if ((c.metadata.namespace ?? 'default') !== ns) continue;
      const sel = c.spec?.selector as LabelSelector | undefined;
      if (!sel) continue;
      let compiled: Selector;
      try {
        compiled = labelSelectorAsSelector(sel);
      } catch {
        continue;
      }
      if (compiled.empty || !compiled.matches(labels)) continue;
      for (const [k, v] of Object.entries(sel.matchLabels ?? {}))
        exprs.push({ key: k, operator: 'In', values: [v] });
      exprs.push(...(sel.matchExpressions ?? []));
      any = true;
    }
    if (!any) return undefined;
    return labelSelectorAsSelector({ matchLabels, matchExpressions: exprs });
  }

  /** the default constraints per action, selector not yet set (they do not depend on the pod) */
  private readonly defaultsByAction = new Map<string, readonly Constraint[]>();

  private buildDefaultConstraints(pod: Pod, action: string): Constraint[] {
    let cs = this.defaultsByAction.get(action);
    if (cs === undefined) {
      cs = this.filterConstraints(this.defaultConstraints, {}, action, Selector.EVERYTHING);
      this.defaultsByAction.set(action, cs);
    }
    if (cs.length === 0) return [];
    const sel = this.defaultSelector(pod);
    if (!sel || sel.empty) return [];
    return cs.map((c) => ({ ...c, selector: sel }));
  }

  /**
   * The pod's own constraints per action, parsed once per pod object (a pod retried or scheduled
   * again reuses its selectors and their counter names); the defaulted ones depend on the cluster's
   * Services and ReplicaSets and are built every time. Callers do not modify the list.
   */
  private readonly ownConstraints = new WeakMap<Pod, Partial<Record<string, Constraint[]>>>();

  private getConstraints(pod: Pod, action: 'DoNotSchedule' | 'ScheduleAnyway'): Constraint[] {
    const own = pod.spec.topologySpreadConstraints ?? [];
    if (own.length === 0) return this.buildDefaultConstraints(pod, action);
    let byAction = this.ownConstraints.get(pod);
    if (byAction === undefined) this.ownConstraints.set(pod, (byAction = {}));
    return (byAction[action] ??= this.filterConstraints(own, pod.metadata.labels ?? {}, action));
  }

  private matchNodeInclusionPolicies(
    c: Constraint,
    pod: Pod,
    ni: NodeInfo,
    affinity: (n: Node) => boolean,
  ): boolean {
    if (c.nodeAffinityPolicy === 'Honor' && !affinity(ni.node)) return false;
    if (
      c.nodeTaintsPolicy === 'Honor' &&
      findMatchingUntoleratedTaint(ni.node.spec?.taints, pod.spec.tolerations, doNotScheduleTaint) !==
        undefined
    )
      return false;
    return true;
  }

  // ------------------------------------------------------------ filter

  preFilter(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): MaybeStatus {
    let constraints: Constraint[];
    try {
      constraints = this.getConstraints(pod, 'DoNotSchedule');
    } catch (e) {
      if (e instanceof SelectorError) return errorStatus(`get constraints from pod: ${e.message}`);
      throw e;
    }
    if (constraints.length === 0) return SKIP;
    const ns = pod.metadata.namespace ?? 'default';
    const counts = constraints.map(() => new Map<string, number>());
    const d = this.domains(constraints, pod, nodes, true);
    if (d) this.countFromDomains(d, constraints, ns, counts);
    else this.countPerNode(constraints, pod, ns, nodes, counts);
    const paths = constraints.map((_, i) => {
      const p = new CriticalPaths();
      for (const [v, n] of counts[i]) p.update(v, n);
      return p;
    });
    const selfMatch = constraints.map((c) => (c.selector.matches(pod.metadata.labels) ? 1 : 0));
    state.write(PRE_FILTER_KEY, new PreFilterState(constraints, paths, counts, pod, selfMatch));
    return null;
  }

  /** TpValueToMatchNum from cached domains: every domain at 0 (node order), then the matching pods */
  private countFromDomains(
    d: Domains,
    constraints: readonly Constraint[],
    ns: string,
    counts: Map<string, number>[],
  ): void {
    for (let i = 0; i < constraints.length; i++) {
      const c = constraints[i];
      const m = counts[i];
      const eligible = d.eligible[i];
      // summed per domain id (eligible nodes have the key), then set in the domains' order
      const { dom, sums } = this.domainSums(c, eligible, matchCountsByNode(this.snapshot, c, ns));
      for (const v of d.values[i]) m.set(v, sums[dom.idOf.get(v)!]);
    }
  }

  /** TpValueToMatchNum node by node (any node list; the reference for {@link countFromDomains}) */
  private countPerNode(
    constraints: readonly Constraint[],
    pod: Pod,
    ns: string,
    nodes: readonly NodeInfo[],
    counts: Map<string, number>[],
  ): void {
    const affinity = compileRequiredNodeAffinity(pod);
    for (const ni of nodes) {
      const labels = ni.labels;
      if (!hasKeys(labels, constraints)) continue;
      for (let i = 0; i < constraints.length; i++) {
        const c = constraints[i];
        if (!this.matchNodeInclusionPolicies(c, pod, ni, affinity)) continue;
        const v = labels[c.topologyKey];
        counts[i].set(v, (counts[i].get(v) ?? 0) + countPodsMatchSelector(ni.pods, c.selector, ns));
      }
    }
  }

  private updateWithPod(s: PreFilterState, updated: Pod, preemptor: Pod, ni: NodeInfo, delta: number): void {
    if ((updated.metadata.namespace ?? 'default') !== (preemptor.metadata.namespace ?? 'default')) return;
    s.verdicts = undefined;
    if (!hasKeys(ni.labels, s.constraints)) return;
    const affinity = compileRequiredNodeAffinity(preemptor);
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i];
      if (!c.selector.matches(updated.metadata.labels)) continue;
      if (!this.matchNodeInclusionPolicies(c, preemptor, ni, affinity)) continue;
      const v = ni.labels[c.topologyKey];
      const n = (s.tpValueToMatchNum[i].get(v) ?? 0) + delta;
      s.tpValueToMatchNum[i].set(v, n);
      s.criticalPaths[i].update(v, n);
    }
  }

  addPod(state: CycleState, podToSchedule: Pod, podToAdd: PodInfo, ni: NodeInfo): MaybeStatus {
    this.updateWithPod(state.read<PreFilterState>(PRE_FILTER_KEY), podToAdd.pod, podToSchedule, ni, 1);
    return null;
  }

  removePod(state: CycleState, podToSchedule: Pod, podToRemove: PodInfo, ni: NodeInfo): MaybeStatus {
    this.updateWithPod(state.read<PreFilterState>(PRE_FILTER_KEY), podToRemove.pod, podToSchedule, ni, -1);
    return null;
  }

  filter(state: CycleState, pod: Pod, ni: NodeInfo): MaybeStatus {
    const s = state.read<PreFilterState>(PRE_FILTER_KEY);
    if (s.constraints.length === 0) return null;
    if (pod === s.selfPod) {
      const v = (s.verdicts ??= this.domainVerdicts(s, pod));
      if (v.domains[0].list[ni.index] === ni) {
        for (let i = 0; i < v.domains.length; i++) {
          const id = v.domains[i].ids[ni.index];
          if (id < 0) return NODE_LABEL_NOT_MATCH;
          if (v.pass[i][id] === 0) return CONSTRAINTS_NOT_MATCH;
        }
        return null;
      }
    }
    const labels = ni.labels;
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i];
      if (!Object.hasOwn(labels, c.topologyKey)) return NODE_LABEL_NOT_MATCH;
      const minMatch = s.minMatchNum(i, c.minDomains);
      const self = s.self(i, pod);
      const matchNum = s.tpValueToMatchNum[i].get(labels[c.topologyKey]) ?? 0;
      if (matchNum + self - minMatch > c.maxSkew) return CONSTRAINTS_NOT_MATCH;
    }
    return null;
  }

  /**
   * The kernel window's form of {@link filter} for this cycle (plugins/kernel-window.ts DomainFilter):
   * per constraint, the verdict of every domain of its key; a node without the key fails
   * (NODE_LABEL_NOT_MATCH). Filter reads nothing else of the node, so this is exact — minDomains,
   * the inclusion policies and matchLabelKeys are all in the counts PreFilter took.
   */
  domainChecks(state: CycleState): DomainVerdicts[] | undefined {
    const s = state.tryRead<PreFilterState>(PRE_FILTER_KEY);
    if (!s || !s.selfPod) return undefined;
    const v = (s.verdicts ??= this.domainVerdicts(s, s.selfPod));
    return v.domains.map((domains, i) => ({ domains, pass: v.pass[i], missing: 0 }));
  }

  /** {@link PreFilterState.verdicts}: the skew check below, once per domain */
  private domainVerdicts(s: PreFilterState, pod: Pod): NonNullable<PreFilterState['verdicts']> {
    const domains: TopologyDomains[] = [];
    const pass: Uint8Array[] = [];
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i];
      const d = this.snapshot.topologyDomains(c.topologyKey);
      const minMatch = s.minMatchNum(i, c.minDomains);
      const self = s.self(i, pod);
      const counts = s.tpValueToMatchNum[i];
      const p = new Uint8Array(d.values.length);
      for (let id = 0; id < p.length; id++)
        p[id] = (counts.get(d.values[id]) ?? 0) + self - minMatch > c.maxSkew ? 0 : 1;
      domains.push(d);
      pass.push(p);
    }
    return { domains, pass };
  }

  // ------------------------------------------------------------ score

  /** the part of PreScore that does not depend on the filtered nodes; null: Skip (throws SelectorError) */
  private scoreSetup(pod: Pod): ScoreSetup | null {
    if (this.snapshot.list().length === 0) return null;
    const requireAll = (pod.spec.topologySpreadConstraints?.length ?? 0) > 0 || !this.systemDefaulted;
    const constraints = this.getConstraints(pod, 'ScheduleAnyway');
    if (constraints.length === 0) return null;
    const ns = pod.metadata.namespace ?? 'default';
    const nodeCounts = constraints.map((c) => matchCountsByNode(this.snapshot, c, ns));
    return { pod, constraints, requireAll, nodeCounts };
  }

  /**
   * PreScore. After {@link domainScores} took this pod's setup for the kernel window, the state
   * is completed only on first use by Score (topology sizes over `filtered`): a cycle whose
   * scores the window computed never needs it.
   */
  preScore(state: CycleState, pod: Pod, filtered: readonly NodeInfo[]): MaybeStatus {
    const early = state.tryRead<EarlySetup>(EARLY_SCORE_KEY);
    let setup: ScoreSetup | null;
    if (early && early.pod === pod) setup = early.setup;
    else {
      try {
        setup = this.scoreSetup(pod);
      } catch (e) {
        if (e instanceof SelectorError)
          return errorStatus(`obtaining pod's soft topology spread constraints: ${e.message}`);
        throw e;
      }
    }
    if (setup === null) return SKIP;
    // after the kernel window took the scores, RunScorePlugins rarely runs: complete on first use
    if (early && early.pod === pod) state.write(PRE_SCORE_KEY, new PendingPreScore(setup, filtered));
    else state.write(PRE_SCORE_KEY, this.completePreScore(setup, filtered));
    return null;
  }

  /** the PreScore state (completed from the filtered nodes on first use) */
  private scoreState(state: CycleState): PreScoreState | undefined {
    const p = state.tryRead<PreScoreState | PendingPreScore>(PRE_SCORE_KEY);
    if (!(p instanceof PendingPreScore)) return p;
    return (p.full ??= this.completePreScore(p.setup, p.filtered));
  }

  private completePreScore(setup: ScoreSetup, filtered: readonly NodeInfo[]): PreScoreState {
    const { pod, constraints, requireAll } = setup;
    const all = this.snapshot.list();
    const s: PreScoreState = {
      constraints,
      nodeCounts: setup.nodeCounts,
      ignoredNodes: new Set(),
      topologyValueToPodCounts: constraints.map(() => new Map()),
      topologyNormalizingWeight: [],
    };
    const topoSize = constraints.map(() => 0);
    for (const ni of filtered) {
      if (requireAll && !hasKeys(ni.labels, constraints)) {
        s.ignoredNodes.add(ni.name);
        continue;
      }
      for (let i = 0; i < constraints.length; i++) {
        const c = constraints[i];
        if (c.topologyKey === LABEL_HOSTNAME) continue;
        const v = ni.labels[c.topologyKey] ?? ''; // a missing label reads as "" (Go's map zero value)
        if (!s.topologyValueToPodCounts[i].has(v)) {
          s.topologyValueToPodCounts[i].set(v, 0);
          topoSize[i]++;
        }
      }
    }
    s.topologyNormalizingWeight = constraints.map((c, i) =>
      topologyNormalizingWeight(
        c.topologyKey === LABEL_HOSTNAME ? filtered.length - s.ignoredNodes.size : topoSize[i],
      ),
    );
    // `all` is the snapshot's list, so the domains are known
    const d = this.domains(constraints, pod, all, requireAll)!;
    // only the matching pods on eligible nodes add to the domains seen among the filtered nodes
    for (let i = 0; i < constraints.length; i++) {
      const m = s.topologyValueToPodCounts[i];
      if (m.size === 0) continue; // hostname constraints: counted per node at Score
      const { dom, sums, missing } = this.domainSums(constraints[i], d.eligible[i], s.nodeCounts[i]);
      for (const [v, cur] of m) {
        const id = dom.idOf.get(v);
        // a missing label reads as "" (Go's map zero value)
        m.set(v, cur + (id === undefined ? 0 : sums[id]) + (v === '' ? missing : 0));
      }
    }
    return s;
  }

  /**
   * A constraint's matching pods on eligible nodes per domain id of its key, and on eligible nodes
   * without the key: the snapshot's sums, kept in step across cycles on every pod add and remove
   * for this (domains, eligibility mask) pair — upstream sums every node's pods in each PreFilter
   * and PreScore. Read-only.
   */
  private domainSums(
    c: Constraint,
    eligible: Uint8Array,
    nodeCounts: NodeCounts,
  ): { dom: TopologyDomains; sums: Float64Array; missing: number } {
    const dom = this.snapshot.topologyDomains(c.topologyKey);
    // counts on a few nodes are summed here (cheaper than keeping sums for every mask a pod
    // shape brings, and than updating them on every add and remove)
    const kept =
      nodeCounts.size >= KEEP_SUMS_FROM ? this.snapshot.domainSums(nodeCounts, dom, eligible) : undefined;
    if (kept) return { dom, sums: kept.sums, missing: kept.missing };
    const ids = dom.ids;
    const sums = new Float64Array(dom.values.length);
    let missing = 0;
    for (const [ni, n] of nodeCounts) {
      if (!eligible[ni.index]) continue;
      const id = ids[ni.index];
      if (id < 0) missing += n;
      else sums[id] += n;
    }
    return { dom, sums, missing };
  }

  /**
   * The kernel window's form of Score for this cycle (plugins/kernel-window.ts DomainScorer): the
   * matching pods per domain (per node for the hostname key); the kernel takes the topology sizes
   * and the ignored nodes from the feasible nodes it found. Undefined (RunScorePlugins runs) when
   * a key has nodes valued "" besides nodes without it and not every key is required: upstream
   * counts both as the one domain "".
   */
  domainScores(state: CycleState, pod: Pod): DomainScoreInput | 'skip' | undefined {
    let setup: ScoreSetup | null;
    try {
      setup = this.scoreSetup(pod);
    } catch {
      return undefined;
    }
    state.write(EARLY_SCORE_KEY, { pod, setup } satisfies EarlySetup);
    if (setup === null) return 'skip';
    const d = this.domains(setup.constraints, pod, this.snapshot.list(), setup.requireAll)!;
    const constraints: Extract<DomainScoreInput, { kind: 'spread' }>['constraints'][number][] = [];
    for (let i = 0; i < setup.constraints.length; i++) {
      const c = setup.constraints[i];
      if (c.topologyKey === LABEL_HOSTNAME) {
        const domains = this.snapshot.topologyDomains(c.topologyKey);
        constraints.push({ domains, maxSkew: c.maxSkew, perNode: setup.nodeCounts[i] });
        continue;
      }
      const { dom, sums: kept, missing } = this.domainSums(c, d.eligible[i], setup.nodeCounts[i]);
      let sums = kept;
      const empty = dom.idOf.get('');
      if (empty !== undefined) {
        if (!setup.requireAll) return undefined;
        sums = kept.slice(); // (the snapshot's sums are read-only)
        sums[empty] += missing; // a node labelled "" reads the eligible unlabelled nodes' pods too
      }
      constraints.push({ domains: dom, maxSkew: c.maxSkew, domainCounts: sums });
    }
    return { kind: 'spread', requireAllKeys: setup.requireAll, constraints };
  }

  score(state: CycleState, _pod: Pod, ni: NodeInfo): number {
    const s = this.scoreState(state);
    if (!s) throw new Error(`reading "${PRE_SCORE_KEY}" from cycleState: not found`);
    if (s.ignoredNodes.has(ni.name)) return 0;
    const labels = ni.labels;
    let score = 0;
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i];
      if (!Object.hasOwn(labels, c.topologyKey)) continue;
      const cnt =
        c.topologyKey === LABEL_HOSTNAME
          ? (s.nodeCounts[i].get(ni) ?? 0)
          : (s.topologyValueToPodCounts[i].get(labels[c.topologyKey]) ?? 0);
      score += cnt * s.topologyNormalizingWeight[i] + (c.maxSkew - 1);
    }
    return goRound(score);
  }

  normalizeScore(state: CycleState, _pod: Pod, nodes: readonly NodeInfo[], scores: number[]): MaybeStatus {
    const s = this.scoreState(state);
    if (!s) return null;
    let minScore = Number.MAX_SAFE_INTEGER;
    let maxScore = 0;
    const ignored = new Array<boolean>(scores.length);
    for (let i = 0; i < scores.length; i++) {
      ignored[i] = s.ignoredNodes.has(nodes[i].name);
      if (ignored[i]) continue;
      if (scores[i] < minScore) minScore = scores[i];
      if (scores[i] > maxScore) maxScore = scores[i];
    }
    for (let i = 0; i < scores.length; i++) {
      if (ignored[i]) {
        scores[i] = 0;
        continue;
      }
      if (maxScore === 0) {
        scores[i] = MAX_NODE_SCORE;
        continue;
      }
      scores[i] = Math.trunc((MAX_NODE_SCORE * (maxScore + minScore - scores[i])) / maxScore);
    }
    return null;
  }
}

/**
 * InterPodAffinity (pkg/scheduler/framework/plugins/interpodaffinity): required pod affinity and
 * anti-affinity as a filter (the incoming pod's terms, and existing pods' anti-affinity terms
 * against the incoming pod), preferred terms as a score normalized to 0..100.
 *
 * Counts are kept per topology pair "key=value". Example: pod P has required anti-affinity
 * {app=web, topologyKey=zone}; web pods run on nodes in zone a → antiAffinityCounts {zone=a: 2};
 * every node labelled zone=a is rejected with "node(s) didn't match pod anti-affinity rules".
 */
import type { Labels, Pod } from '../../api/types.js';
import type { CycleState, StateData } from '../framework/cycle-state.js';
import {
  termMatches,
  termMatchKey,
  PodInfo,
  type AffinityTerm,
  type NodeCounts,
  type ClusterSnapshot,
  type NodeInfo,
  type TermGroup,
  type TopologyDomains,
  type WeightedAffinityTerm,
} from '../framework/snapshot.js';
import { Code, SKIP, Status, type MaybeStatus } from '../framework/status.js';
import { Selector } from '../../api/label-selector.js';
import {
  MAX_NODE_SCORE,
  type ClusterEventKind,
  type EnqueueExtensions,
  type FilterPlugin,
  type Handle,
  type PreFilterPlugin,
  type PreScorePlugin,
  type ScorePlugin,
} from '../framework/types.js';
import type { DomainScoreInput, DomainVerdicts } from './kernel-window.js';

export const NAME = 'InterPodAffinity';
export const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH =
  "node(s) didn't satisfy existing pods anti-affinity rules";
export const ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules";

const AFFINITY_NOT_MATCH = new Status(
  Code.UnschedulableAndUnresolvable,
  [ERR_REASON_AFFINITY_RULES_NOT_MATCH],
  NAME,
);
const ANTI_AFFINITY_NOT_MATCH = new Status(
  Code.Unschedulable,
  [ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH],
  NAME,
);
const EXISTING_ANTI_AFFINITY_NOT_MATCH = new Status(
  Code.Unschedulable,
  [ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH],
  NAME,
);

export interface InterPodAffinityArgs {
  /** weight of existing pods' required affinity terms that the incoming pod matches (default 1, 0..100) */
  hardPodAffinityWeight?: number;
  ignorePreferredTermsOfExistingPods?: boolean;
}

/** counts covering at least 1/DENSE_FRACTION of the nodes are summed by node index (ClusterSnapshot.denseCounts) */
const DENSE_FRACTION = 16;

const ownDomainsCache = new WeakMap<TopologyDomains, boolean>();
/** whether node index j is in domain j for every node (a key like the hostname, on every node) */
function ownDomains(d: TopologyDomains): boolean {
  let own = ownDomainsCache.get(d);
  if (own === undefined) {
    own = true;
    for (let j = 0; j < d.ids.length && own; j++) if (d.ids[j] !== j) own = false;
    ownDomainsCache.set(d, own);
  }
  return own;
}

/** arr[ids[j]] += w × counts[j] for every node index j with a count and a domain; whether any was added */
function addByIndex(arr: Float64Array, ids: Int32Array, counts: Float64Array, w: number): boolean {
  // branch-free over the counts (zeros add ±0, which leaves a sum unchanged): most nodes hold
  // some and some none, in no order a branch predicts
  let total = 0;
  for (let j = 0; j < counts.length; j++) {
    const id = ids[j];
    if (id < 0) continue;
    const n = counts[j];
    arr[id] += w * n;
    total += n;
  }
  return total > 0;
}

const PRE_FILTER_KEY = 'PreFilter' + NAME;
const PRE_SCORE_KEY = 'PreScore' + NAME;
/** {@link InterPodAffinity.domainScores}' PreScore result, reused by PreScore for the same pod */
const EARLY_SCORE_KEY = 'EarlyPreScore' + NAME;
interface EarlyPreScore {
  pod: Pod;
  /** null: Skip; a Status: the pod's terms failed to parse */
  result: PreScoreState | Status | null;
}

/** topology pair "key\0value" → count */
type Counts = Map<string, number>;
const pair = (k: string, v: string) => k + '\0' + v;
const hasOwn = Object.prototype.hasOwnProperty;

function add(m: Counts, k: string, n: number): void {
  const v = (m.get(k) ?? 0) + n;
  if (v === 0) m.delete(k);
  else m.set(k, v);
}

/** updateWithAffinityTerms: +value on each term's pair when `target` matches ALL terms */
function updateWithAffinityTerms(
  m: Counts,
  target: Pod,
  nsLabels: Labels | undefined,
  node: NodeInfo,
  terms: readonly AffinityTerm[],
  value: number,
): void {
  if (!podMatchesAllAffinityTerms(terms, target, nsLabels)) return;
  const labels = node.labels;
  for (const t of terms) {
    if (Object.hasOwn(labels, t.topologyKey)) add(m, pair(t.topologyKey, labels[t.topologyKey]), value);
  }
}

/** updateWithAntiAffinityTerms: +value on the pair of each term `target` matches */
function updateWithAntiAffinityTerms(
  m: Counts,
  target: Pod,
  nsLabels: Labels | undefined,
  node: NodeInfo,
  terms: readonly AffinityTerm[],
  value: number,
): void {
  const labels = node.labels;
  for (const t of terms) {
    if (termMatches(t, target, nsLabels) && Object.hasOwn(labels, t.topologyKey)) {
      add(m, pair(t.topologyKey, labels[t.topologyKey]), value);
    }
  }
}

/** +value × count on the pair (topologyKey, node's value) of every node with counts that has the key */
function addPerNode(m: Counts, topologyKey: string, perNode: NodeCounts, value: number): void {
  for (const [ni, n] of perNode) {
    const labels = ni.labels;
    if (Object.hasOwn(labels, topologyKey)) add(m, pair(topologyKey, labels[topologyKey]), n * value);
  }
}

function podMatchesAllAffinityTerms(terms: readonly AffinityTerm[], pod: Pod, nsLabels?: Labels): boolean {
  if (terms.length === 0) return false;
  for (const t of terms) if (!termMatches(t, pod, nsLabels)) return false;
  return true;
}

class PreFilterState implements StateData {
  constructor(
    readonly podInfo: PodInfo,
    readonly requiredAffinityTerms: AffinityTerm[],
    readonly requiredAntiAffinityTerms: AffinityTerm[],
    readonly namespaceLabels: Labels | undefined,
    /** existing pods' required anti-affinity terms matching the incoming pod */
    readonly existingAntiAffinityCounts: Counts,
    /** existing pods matching all of the incoming pod's required affinity terms */
    readonly affinityCounts: Counts,
    /** existing pods matching the incoming pod's required anti-affinity terms */
    readonly antiAffinityCounts: Counts,
  ) {}

  clone(): PreFilterState {
    return new PreFilterState(
      this.podInfo,
      this.requiredAffinityTerms,
      this.requiredAntiAffinityTerms,
      this.namespaceLabels,
      new Map(this.existingAntiAffinityCounts),
      new Map(this.affinityCounts),
      new Map(this.antiAffinityCounts),
    );
  }

  updateWithPod(pi: PodInfo, node: NodeInfo, mult: number): void {
    updateWithAntiAffinityTerms(
      this.existingAntiAffinityCounts,
      this.podInfo.pod,
      this.namespaceLabels,
      node,
      pi.requiredAntiAffinityTerms,
      mult,
    );
    updateWithAffinityTerms(this.affinityCounts, pi.pod, undefined, node, this.requiredAffinityTerms, mult);
    updateWithAntiAffinityTerms(
      this.antiAffinityCounts,
      pi.pod,
      undefined,
      node,
      this.requiredAntiAffinityTerms,
      mult,
    );
  }
}

/**
 * upstream's topologyScore (topologyKey → value → score) per topology key by the snapshot's
 * domain ids: the domains with a score and their sums, and — for Score, built on first use — one
 * array cell per domain, so Score reads one cell per key instead of a string-keyed lookup.
 */
class PreScoreState {
  private denseScores?: Float64Array[];
  constructor(
    readonly domains: TopologyDomains[],
    /** per key: the domain ids with a score (in first-counted order); null: `sums` holds every domain */
    readonly ids: (Int32Array | null)[],
    /** per key: their sums */
    readonly sums: Float64Array[],
    /** per key: weighted counts by domain id to add (keys whose every node is its own domain) */
    readonly terms: { counts: Float64Array; weight: number }[][],
  ) {}

  /** per key: the score of every domain id */
  dense(): Float64Array[] {
    return (this.denseScores ??= this.domains.map((d, k) => {
      const ids = this.ids[k];
      const a = ids === null ? this.sums[k].slice() : new Float64Array(d.values.length);
      if (ids !== null) for (let j = 0; j < ids.length; j++) a[ids[j]] = this.sums[k][j];
      for (const { counts, weight } of this.terms[k])
        for (let id = 0; id < a.length; id++) a[id] += weight * counts[id];
      return a;
    }));
  }
}

/**
 * The incoming pod's parsed terms per pod object: PreFilter and PreScore of one cycle (and a pod
 * retried) parse once. These PodInfos are never added to the snapshot.
 */
const incoming = new WeakMap<Pod, PodInfo>();
function podInfoOf(pod: Pod): PodInfo {
  let pi = incoming.get(pod);
  if (pi === undefined) incoming.set(pod, (pi = new PodInfo(pod)));
  return pi;
}

/** a term's counter name in the snapshot (parsed terms are kept across cycles: named once) */
const counterNames = new WeakMap<AffinityTerm, string>();

export class InterPodAffinity
  implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions
{
  readonly name = NAME;
  private readonly hardPodAffinityWeight: number;
  private readonly ignorePreferredTermsOfExistingPods: boolean;

  constructor(
    args: InterPodAffinityArgs | undefined,
    private readonly snapshot: ClusterSnapshot,
  ) {
    const w = args?.hardPodAffinityWeight ?? 1;
    if (!Number.isInteger(w) || w < 0 || w > 100)
      throw new Error(
        `InterPodAffinityArgs: hardPodAffinityWeight: Invalid value: ${w}: not in valid range [0, 100]`,
      );
    this.hardPodAffinityWeight = w;
    this.ignorePreferredTermsOfExistingPods = args?.ignorePreferredTermsOfExistingPods ?? false;
  }

  static factory(args: Record<string, unknown> | undefined, h: Handle): InterPodAffinity {
    return new InterPodAffinity(args as InterPodAffinityArgs | undefined, h.snapshot);
  }

  eventsToRegister(): ClusterEventKind[] {
    return ['AssignedPodAdd', 'AssignedPodUpdate', 'AssignedPodDelete', 'NodeAdd', 'NodeUpdate'];
  }

  private namespaceLabels(pod: Pod): Labels | undefined {
    return this.snapshot.namespaces.get(pod.metadata.namespace ?? 'default');
  }

  /**
   * mergeAffinityTermNamespacesIfNotEmpty: a non-empty namespaceSelector is resolved against the
   * known namespaces once, into the term's namespace set.
   */
  private mergeNamespaces(t: AffinityTerm): AffinityTerm {
    if (t.namespaceSelector.empty || t.namespaceSelector.nothing) return t;
    const namespaces = new Set(t.namespaces);
    for (const [name, labels] of this.snapshot.namespaces)
      if (t.namespaceSelector.matches(labels)) namespaces.add(name);
    return { ...t, namespaces, namespaceSelector: Selector.NOTHING };
  }

  /** pods on listed nodes matching the (namespace-merged) term, per node */
  private termCounts(t: AffinityTerm): NodeCounts {
    let key = counterNames.get(t);
    if (key === undefined) counterNames.set(t, (key = NAME + '/term\0' + termMatchKey(t)));
    return this.snapshot.podMatchCounts(key, t.selector, (p) => termMatches(t, p.pod, undefined));
  }

  // ------------------------------------------------------------ filter

  preFilter(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): MaybeStatus {
    const pi = podInfoOf(pod);
    if (pi.parseError)
      return new Status(Code.UnschedulableAndUnresolvable, [`parsing pod: ${pi.parseError}`]);
    const nsLabels = this.namespaceLabels(pod);
    // existing pods' required anti-affinity: alike terms grouped, one match per group
    let existing: Counts | undefined;
    for (const g of this.snapshot.termGroups('requiredAnti'))
      if (termMatches(g.term, pod, nsLabels))
        addPerNode((existing ??= new Map()), g.term.topologyKey, g.perNode, 1);
    // (most pods: no required terms of their own, and none of the existing pods' matches them)
    if (
      (existing === undefined || existing.size === 0) &&
      pi.requiredAffinityTerms.length === 0 &&
      pi.requiredAntiAffinityTerms.length === 0
    )
      return SKIP;
    existing ??= new Map();
    const req = pi.requiredAffinityTerms.map((t) => this.mergeNamespaces(t));
    const anti = pi.requiredAntiAffinityTerms.map((t) => this.mergeNamespaces(t));
    const affinity: Counts = new Map();
    const antiAffinity: Counts = new Map();
    if (req.length > 0 || anti.length > 0) {
      if (nodes === this.snapshot.list()) {
        // the snapshot's per-node counts of matching pods (exactly the pods on listed nodes)
        if (req.length > 0) {
          // a pod counts only when it matches every term
          const counts = this.snapshot.podMatchCounts(
            NAME + '/all\0' + req.map(termMatchKey).join('\x01'),
            req[0].selector,
            (p) => podMatchesAllAffinityTerms(req, p.pod, undefined),
          );
          for (const t of req) addPerNode(affinity, t.topologyKey, counts, 1);
        }
        for (const t of anti) addPerNode(antiAffinity, t.topologyKey, this.termCounts(t), 1);
      } else {
        // any other node list: every pod of every node (the reference the counts are tested against)
        for (const ni of nodes) {
          for (const ep of ni.pods) {
            if (req.length > 0) updateWithAffinityTerms(affinity, ep.pod, undefined, ni, req, 1);
            if (anti.length > 0) updateWithAntiAffinityTerms(antiAffinity, ep.pod, undefined, ni, anti, 1);
          }
        }
      }
    }
    state.write(
      PRE_FILTER_KEY,
      new PreFilterState(pi, req, anti, nsLabels, existing, affinity, antiAffinity),
    );
    return null;
  }

  addPod(state: CycleState, _podToSchedule: Pod, podToAdd: PodInfo, ni: NodeInfo): MaybeStatus {
    state.read<PreFilterState>(PRE_FILTER_KEY).updateWithPod(podToAdd, ni, 1);
    return null;
  }

  removePod(state: CycleState, _podToSchedule: Pod, podToRemove: PodInfo, ni: NodeInfo): MaybeStatus {
    state.read<PreFilterState>(PRE_FILTER_KEY).updateWithPod(podToRemove, ni, -1);
    return null;
  }

  filter(state: CycleState, _pod: Pod, ni: NodeInfo): MaybeStatus {
    const s = state.read<PreFilterState>(PRE_FILTER_KEY);
    const labels = ni.labels;
    // the incoming pod's required affinity
    let podsExist = true;
    for (const t of s.requiredAffinityTerms) {
      if (!Object.hasOwn(labels, t.topologyKey)) return AFFINITY_NOT_MATCH;
      if ((s.affinityCounts.get(pair(t.topologyKey, labels[t.topologyKey])) ?? 0) <= 0) podsExist = false;
    }
    if (!podsExist) {
      // the first pod of a group with affinity to itself may go anywhere that has the topology labels
      if (
        !(s.affinityCounts.size === 0 && podMatchesAllAffinityTerms(s.requiredAffinityTerms, s.podInfo.pod))
      )
        return AFFINITY_NOT_MATCH;
    }
    // the incoming pod's required anti-affinity
    if (s.antiAffinityCounts.size > 0) {
      for (const t of s.requiredAntiAffinityTerms) {
        if (!Object.hasOwn(labels, t.topologyKey)) continue;
        if ((s.antiAffinityCounts.get(pair(t.topologyKey, labels[t.topologyKey])) ?? 0) > 0)
          return ANTI_AFFINITY_NOT_MATCH;
      }
    }
    // existing pods' required anti-affinity
    if (s.existingAntiAffinityCounts.size > 0) {
      for (const k in labels) {
        if ((s.existingAntiAffinityCounts.get(pair(k, labels[k])) ?? 0) > 0)
          return EXISTING_ANTI_AFFINITY_NOT_MATCH;
      }
    }
    return null;
  }

  /**
   * The kernel window's form of {@link filter} for this cycle (plugins/kernel-window.ts DomainFilter),
   * one check per topology key: the incoming pod's required affinity terms (a node without the key
   * fails; a domain passes with a matching pod, or everywhere when the first pod of a group matches
   * its own terms), its required anti-affinity terms (a domain with a matching pod fails), and the
   * keys of existing pods' anti-affinity terms that match it (likewise).
   */
  domainChecks(state: CycleState): DomainVerdicts[] | undefined {
    const s = state.tryRead<PreFilterState>(PRE_FILTER_KEY);
    if (!s) return undefined;
    const out: DomainVerdicts[] = [];
    /** a check of key `key` with `hit` for the domains holding a positive count in `counts` */
    const check = (key: string, counts: Counts, fill: 0 | 1, hit: 0 | 1, missing: 0 | 1, marks: boolean) => {
      const domains = this.snapshot.topologyDomains(key);
      const pass = new Uint8Array(domains.values.length).fill(fill);
      if (marks)
        for (const [k, n] of counts) {
          if (n <= 0) continue;
          const cut = k.indexOf('\0');
          if (cut !== key.length || !k.startsWith(key)) continue;
          const id = domains.idOf.get(k.slice(cut + 1));
          if (id !== undefined) pass[id] = hit;
        }
      out.push({ domains, pass, missing });
    };
    const req = s.requiredAffinityTerms;
    if (req.length > 0) {
      const selfMatch = s.affinityCounts.size === 0 && podMatchesAllAffinityTerms(req, s.podInfo.pod);
      for (const t of req) check(t.topologyKey, s.affinityCounts, selfMatch ? 1 : 0, 1, 0, !selfMatch);
    }
    if (s.antiAffinityCounts.size > 0)
      for (const t of s.requiredAntiAffinityTerms) check(t.topologyKey, s.antiAffinityCounts, 1, 0, 1, true);
    if (s.existingAntiAffinityCounts.size > 0) {
      const keys = new Set<string>();
      for (const k of s.existingAntiAffinityCounts.keys()) keys.add(k.slice(0, k.indexOf('\0')));
      for (const key of keys) check(key, s.existingAntiAffinityCounts, 1, 0, 1, true);
    }
    return out;
  }

  // ------------------------------------------------------------ score

  /** PreScore (it does not read the filtered nodes: the kernel window's {@link domainScores} took it before Filter) */
  preScore(state: CycleState, pod: Pod, _filtered: readonly NodeInfo[]): MaybeStatus {
    const early = state.tryRead<EarlyPreScore>(EARLY_SCORE_KEY);
    const r = early && early.pod === pod ? early.result : this.computePreScore(pod);
    if (r === null) return SKIP;
    if (r instanceof Status) return r;
    state.write(PRE_SCORE_KEY, r);
    return null;
  }

  /**
   * The kernel window's form of Score for this cycle (plugins/kernel-window.ts DomainScorer): the
   * score sums per domain of each key, which PreScore then reuses.
   */
  domainScores(state: CycleState, pod: Pod): DomainScoreInput | 'skip' {
    const result = this.computePreScore(pod);
    state.write(EARLY_SCORE_KEY, { pod, result } satisfies EarlyPreScore);
    // (a parse error: PreScore answers it, before any Score runs)
    if (result === null || result instanceof Status) return 'skip';
    return {
      kind: 'sums',
      keys: result.domains.map((domains, i) => ({
        domains,
        ids: result.ids[i] ?? undefined,
        sums: result.sums[i],
        terms: result.terms[i],
      })),
    };
  }

  /** PreScore's state, null for Skip, or an Error status when the pod's terms fail to parse */
  private computePreScore(pod: Pod): PreScoreState | Status | null {
    const a = pod.spec.affinity;
    const hasPreferredAffinity =
      (a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0;
    const hasPreferredAnti =
      (a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0;
    const hasConstraints = hasPreferredAffinity || hasPreferredAnti;
    if (this.ignorePreferredTermsOfExistingPods && !hasConstraints) return null;
    const pi = podInfoOf(pod);
    // scoring.go PreScore: "Ideally we never reach here, because errors will be caught by PreFilter"
    if (pi.parseError) return new Status(Code.Error, [`failed to parse pod: ${pi.parseError}`]);
    const hard = this.hardPodAffinityWeight;
    // most pods: no preferred terms of their own and no existing pod's term matches them — then
    // nothing below would be counted (null); found without building the per-key scratch
    if (
      pi.preferredAffinityTerms.length === 0 &&
      pi.preferredAntiAffinityTerms.length === 0 &&
      !this.anyGroupMatches(pod, hard > 0)
    )
      return null;
    // (a term without a namespace selector is the parsed term itself, kept across cycles)
    const merged = (t: WeightedAffinityTerm): WeightedAffinityTerm => {
      const m = this.mergeNamespaces(t);
      return m === t ? t : { ...m, weight: t.weight };
    };
    const prefAff = pi.preferredAffinityTerms.map(merged);
    const prefAnti = pi.preferredAntiAffinityTerms.map(merged);
    const nsLabels = this.namespaceLabels(pod);
    const domains: TopologyDomains[] = [];
    /** per key: the domains touched, in first-touch order; null once the key is summed densely */
    const touched: (number[] | null)[] = [];
    /** per key whose every node is its own domain (the hostname): weighted counts by node, not summed here */
    const terms: { counts: Float64Array; weight: number }[][] = [];
    /** topology key → its position in domains/touched */
    const slot = new Map<string, number>();
    // an entry exists once a pod counted for the pair (upstream: topologyScore non-empty)
    let any = false;
    // per topology pair, weight × the pods a term matches there: from per-node counts, the same
    // (pod, term) pairs as upstream's walk over every pod of every node; summed in a dense
    // scratch per key that is zeroed again below, so a cycle allocates only the touched domains
    // — or, when counts cover many nodes, one array of every domain, from the counts by node index
    const addCounts = (tk: string, perNode: NodeCounts, w: number) => {
      if (perNode.size === 0) return;
      let k = slot.get(tk);
      if (k === undefined) {
        const d = this.snapshot.topologyDomains(tk);
        k = domains.length;
        slot.set(tk, k);
        domains.push(d);
        touched.push([]);
        terms.push([]);
      }
      const d = domains[k];
      const ids = d.ids;
      const { sums: arr, marks } = this.sumScratch(d.key, d.values.length);
      const byIndex =
        perNode.size * DENSE_FRACTION >= ids.length ? this.snapshot.denseCounts(perNode) : undefined;
      if (byIndex) {
        if (ownDomains(d)) {
          // domain id = node index: the counts by node are the sums (the kernel weighs them)
          terms[k].push({ counts: byIndex.slice(), weight: w });
          any = true;
          return;
        }
        touched[k] = null;
        if (addByIndex(arr, ids, byIndex, w)) any = true;
        return;
      }
      const list = touched[k];
      // counts hold listed nodes only, so index is the node's position in the domains' list
      // (forEach: a for…of over the map's entries allocated an entry and a result per node)
      perNode.forEach((n, ni) => {
        const id = ids[ni.index];
        if (id < 0) return;
        if (list && marks[id] === 0) {
          marks[id] = 1;
          list.push(id);
        }
        arr[id] += w * n;
        any = true;
      });
    };
    // the incoming pod's preferred terms against the existing pods
    for (const t of prefAff) addCounts(t.topologyKey, this.termCounts(t), t.weight);
    for (const t of prefAnti) addCounts(t.topologyKey, this.termCounts(t), -t.weight);
    // the existing pods' terms against the incoming pod (symmetry), alike terms grouped
    if (hard > 0)
      this.snapshot.forEachTermGroup('requiredAffinity', (g) => {
        if (termMatches(g.term, pod, nsLabels)) addCounts(g.term.topologyKey, g.perNode, hard);
      });
    this.snapshot.forEachTermGroup('preferredAffinity', (g) => {
      if (termMatches(g.term, pod, nsLabels)) addCounts(g.term.topologyKey, g.perNode, g.weight);
    });
    this.snapshot.forEachTermGroup('preferredAnti', (g) => {
      if (termMatches(g.term, pod, nsLabels)) addCounts(g.term.topologyKey, g.perNode, -g.weight);
    });
    // the sums out of the scratch, which is left zeroed
    const ids: (Int32Array | null)[] = [];
    const sums: Float64Array[] = [];
    for (let k = 0; k < domains.length; k++) {
      const size = domains[k].values.length;
      const { sums: arr, marks } = this.sumScratch(domains[k].key, size);
      const list = touched[k];
      if (list === null) {
        ids.push(null);
        sums.push(arr.slice(0, size));
        arr.fill(0, 0, size);
        marks.fill(0, 0, size);
        continue;
      }
      const idk = new Int32Array(list.length);
      const sk = new Float64Array(list.length);
      for (let j = 0; j < list.length; j++) {
        const id = list[j];
        idk[j] = id;
        sk[j] = arr[id];
        arr[id] = 0;
        marks[id] = 0;
      }
      ids.push(idk);
      sums.push(sk);
    }
    if (!any) return null;
    return new PreScoreState(domains, ids, sums, terms);
  }

  /** whether an existing pod's term (required affinity too when `required`) matches `pod` somewhere */
  private anyGroupMatches(pod: Pod, required: boolean): boolean {
    const nsLabels = this.namespaceLabels(pod);
    let found = false;
    const check = (g: TermGroup) => {
      if (!found && g.perNode.size > 0 && termMatches(g.term, pod, nsLabels)) found = true;
    };
    if (required) this.snapshot.forEachTermGroup('requiredAffinity', check);
    if (!found) this.snapshot.forEachTermGroup('preferredAffinity', check);
    if (!found) this.snapshot.forEachTermGroup('preferredAnti', check);
    return found;
  }

  /**
   * per topology key, a zeroed sum and a cleared mark ("touched this cycle") per domain, reused
   * across cycles and left zeroed by computePreScore
   */
  private readonly sumScratches = new Map<string, { sums: Float64Array; marks: Uint8Array }>();

  private sumScratch(key: string, domains: number): { sums: Float64Array; marks: Uint8Array } {
    let a = this.sumScratches.get(key);
    if (!a || a.sums.length < domains) {
      a = { sums: new Float64Array(domains), marks: new Uint8Array(domains) };
      this.sumScratches.set(key, a);
    }
    return a;
  }

  score(state: CycleState, _pod: Pod, ni: NodeInfo): number {
    const s = state.read<PreScoreState>(PRE_SCORE_KEY);
    const domains = s.domains;
    const scores = s.dense();
    let score = 0;
    for (let i = 0; i < domains.length; i++) {
      const d = domains[i];
      let id: number;
      if (d.list[ni.index] === ni) id = d.ids[ni.index];
      else {
        // a node outside the snapshot's list (a caller's own NodeInfo): by its label value
        const labels = ni.labels;
        id = hasOwn.call(labels, d.key) ? (d.idOf.get(labels[d.key]) ?? -1) : -1;
      }
      if (id >= 0) score += scores[i][id];
    }
    return score;
  }

  normalizeScore(state: CycleState, _pod: Pod, _nodes: readonly NodeInfo[], scores: number[]): MaybeStatus {
    const s = state.tryRead<PreScoreState>(PRE_SCORE_KEY);
    if (!s) return null;
    let min = Infinity;
    let max = -Infinity;
    for (const v of scores) {
      if (v > max) max = v;
      if (v < min) min = v;
    }
    const diff = max - min;
    for (let i = 0; i < scores.length; i++) {
      scores[i] = diff > 0 ? Math.trunc(MAX_NODE_SCORE * ((scores[i] - min) / diff)) : 0;
    }
    return null;
  }
}

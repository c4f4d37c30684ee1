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
  PodInfo,
  type AffinityTerm,
  type ClusterSnapshot,
  type NodeInfo,
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

const PRE_FILTER_KEY = 'PreFilter' + NAME;
const PRE_SCORE_KEY = 'PreScore' + NAME;

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

interface PreScoreState {
  /** topologyKey → value → score */
  topologyScore: Map<string, Map<string, number>>;
  /** topologyScore's entries as parallel arrays, in its order (Score reads them per node without an iterator) */
  keys: string[];
  values: Map<string, number>[];
}

/** true when the object has at least one own key (without allocating a key array) */
function hasAnyKey(o: object | undefined): boolean {
  if (!o) return false;
  for (const k in o) if (Object.hasOwn(o, k)) return true;
  return false;
}

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

  // ------------------------------------------------------------ filter

  preFilter(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): MaybeStatus {
    const pi = new PodInfo(pod);
    if (pi.parseError)
      return new Status(Code.UnschedulableAndUnresolvable, [`parsing pod: ${pi.parseError}`]);
    const req = pi.requiredAffinityTerms.map((t) => this.mergeNamespaces(t));
    const anti = pi.requiredAntiAffinityTerms.map((t) => this.mergeNamespaces(t));
    const nsLabels = this.namespaceLabels(pod);

    const existing: Counts = new Map();
    for (const ni of this.snapshot.havePodsWithRequiredAntiAffinity()) {
      for (const ep of ni.podsWithRequiredAntiAffinity) {
        updateWithAntiAffinityTerms(existing, pod, nsLabels, ni, ep.requiredAntiAffinityTerms, 1);
      }
    }
    const affinity: Counts = new Map();
    const antiAffinity: Counts = new Map();
    if (req.length > 0 || anti.length > 0) {
      // through the snapshot's label index when `nodes` is the whole node list (the index holds
      // exactly the pods on listed nodes): only pods carrying a value of a term's In requirement
      // can match it. Counts are keyed by topology pair, so visiting order does not matter.
      const indexed = nodes === this.snapshot.list();
      // affinity: a pod counts only when it matches every term, so one term's candidates suffice
      let reqCandidates: readonly ReadonlySet<PodInfo>[] | undefined;
      if (indexed) for (const t of req) if ((reqCandidates = this.snapshot.candidatePods(t.selector))) break;
      // anti-affinity: each term counts on its own
      const antiCandidates = anti.map((t) => (indexed ? this.snapshot.candidatePods(t.selector) : undefined));
      const walkReq = req.length > 0 && !reqCandidates;
      const walkAnti = antiCandidates.some((c) => !c);
      if (walkReq || walkAnti) {
        const walkedAnti = walkAnti ? anti.filter((_, i) => !antiCandidates[i]) : [];
        for (const ni of nodes) {
          for (const ep of ni.pods) {
            if (walkReq) updateWithAffinityTerms(affinity, ep.pod, undefined, ni, req, 1);
            if (walkAnti) updateWithAntiAffinityTerms(antiAffinity, ep.pod, undefined, ni, walkedAnti, 1);
          }
        }
      }
      if (reqCandidates) {
        for (const set of reqCandidates)
          for (const ep of set)
            if (ep.node) updateWithAffinityTerms(affinity, ep.pod, undefined, ep.node, req, 1);
      }
      for (let i = 0; i < anti.length; i++) {
        const cands = antiCandidates[i];
        if (!cands) continue;
        const one = [anti[i]];
        for (const set of cands)
          for (const ep of set)
            if (ep.node) updateWithAntiAffinityTerms(antiAffinity, ep.pod, undefined, ep.node, one, 1);
      }
    }
    if (existing.size === 0 && req.length === 0 && anti.length === 0) return SKIP;
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

  // ------------------------------------------------------------ score

  preScore(state: CycleState, pod: Pod, _filtered: readonly NodeInfo[]): MaybeStatus {
    const a = pod.spec.affinity;
    const hasPreferredAffinity =
      (a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0;
    const hasPreferredAnti =
      (a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0;
    const hasConstraints = hasPreferredAffinity || hasPreferredAnti;
    if (this.ignorePreferredTermsOfExistingPods && !hasConstraints) return SKIP;
    const nodes = hasConstraints ? this.snapshot.list() : this.snapshot.havePodsWithAffinity();
    const pi = new PodInfo(pod);
    const prefAff: WeightedAffinityTerm[] = pi.preferredAffinityTerms.map((t) => ({
      ...this.mergeNamespaces(t),
      weight: t.weight,
    }));
    const prefAnti: WeightedAffinityTerm[] = pi.preferredAntiAffinityTerms.map((t) => ({
      ...this.mergeNamespaces(t),
      weight: t.weight,
    }));
    const nsLabels = this.namespaceLabels(pod);
    const topologyScore = new Map<string, Map<string, number>>();
    const add = (key: string, value: string, delta: number) => {
      let m = topologyScore.get(key);
      if (!m) {
        m = new Map();
        topologyScore.set(key, m);
      }
      m.set(value, (m.get(value) ?? 0) + delta);
    };
    const hard = this.hardPodAffinityWeight;
    // the incoming pod's preferred terms against every existing pod: through the snapshot's label
    // index when a term's selector has an In requirement (only pods carrying one of its values can
    // match), else every pod of every node — the same (pod, term) pairs either way
    const incoming = (t: WeightedAffinityTerm, sign: 1 | -1) => {
      const visit = (ep: PodInfo, labels: Labels) => {
        if (hasOwn.call(labels, t.topologyKey) && termMatches(t, ep.pod, undefined))
          add(t.topologyKey, labels[t.topologyKey], sign * t.weight);
      };
      const candidates = this.snapshot.candidatePods(t.selector);
      if (candidates) {
        for (const set of candidates)
          for (const ep of set) {
            const labels = ep.node?.node.metadata.labels;
            if (labels) visit(ep, labels);
          }
      } else {
        for (const ni of nodes) {
          const labels = ni.node.metadata.labels;
          if (labels) for (const ep of ni.pods) visit(ep, labels);
        }
      }
    };
    for (const t of prefAff) incoming(t, 1);
    for (const t of prefAnti) incoming(t, -1);
    // the existing pods' terms against the incoming pod (symmetry): only pods with affinity
    for (const ni of this.snapshot.havePodsWithAffinity()) {
      const labels = ni.node.metadata.labels;
      if (!labels || !hasAnyKey(labels)) continue;
      for (const ep of ni.podsWithAffinity) {
        if (hard > 0)
          for (const t of ep.requiredAffinityTerms)
            if (hasOwn.call(labels, t.topologyKey) && termMatches(t, pod, nsLabels))
              add(t.topologyKey, labels[t.topologyKey], hard);
        for (const t of ep.preferredAffinityTerms)
          if (hasOwn.call(labels, t.topologyKey) && termMatches(t, pod, nsLabels))
            add(t.topologyKey, labels[t.topologyKey], t.weight);
        for (const t of ep.preferredAntiAffinityTerms)
          if (hasOwn.call(labels, t.topologyKey) && termMatches(t, pod, nsLabels))
            add(t.topologyKey, labels[t.topologyKey], -t.weight);
      }
    }
    if (topologyScore.size === 0) return SKIP;
    state.write(PRE_SCORE_KEY, {
      topologyScore,
      keys: [...topologyScore.keys()],
      values: [...topologyScore.values()],
    } satisfies PreScoreState);
    return null;
  }

  score(state: CycleState, _pod: Pod, ni: NodeInfo): number {
    const s = state.read<PreScoreState>(PRE_SCORE_KEY);
    const labels = ni.labels;
    let score = 0;
    const { keys, values } = s;
    for (let i = 0; i < keys.length; i++) {
      if (hasOwn.call(labels, keys[i])) score += values[i].get(labels[keys[i]]) ?? 0;
    }
    return score;
  }

  normalizeScore(state: CycleState, _pod: Pod, _nodes: readonly NodeInfo[], scores: number[]): MaybeStatus {
    const s = state.tryRead<PreScoreState>(PRE_SCORE_KEY);
    if (!s || s.topologyScore.size === 0) return null;
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

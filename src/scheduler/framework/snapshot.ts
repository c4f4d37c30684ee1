/**
 * The scheduler's object-level view of the cluster: NodeInfo per node with the pods assigned
 * (or assumed) to it, pre-parsed affinity terms, and the node order used by every cycle.
 *
 * Resource columns live in the engine's NodeTable (typed arrays in WASM memory); this snapshot
 * keeps what the cross-pod plugins need (pods, labels, affinity terms) and tells listeners about
 * every change so that the NodeTable can be kept in step incrementally.
 *
 * Node order follows upstream's nodeTree: nodes are grouped by zone (region + zone labels) and
 * the list interleaves zones round-robin, so that a cycle that stops early
 * (percentageOfNodesToScore) still sees every zone. Example with zones a, b:
 *   added: a1 a2 a3 b1 b2   →   order: a1 b1 a2 b2 a3
 */
import type {
  Labels,
  Namespace,
  Node,
  Pod,
  PodAffinityTerm,
  WeightedPodAffinityTerm,
} from '../../api/types.js';
import { podKey } from '../../api/keys.js';
import { labelSelectorAsSelector, Selector, SelectorError } from '../../api/label-selector.js';
import { zoneKey } from '../../api/topology.js';
import type { PodEntry } from '../engine/table.js';
import { StringMap } from '../../util/string-map.js';

/** A processed PodAffinityTerm (upstream framework.AffinityTerm). */
export interface AffinityTerm {
  namespaces: Set<string>;
  selector: Selector;
  topologyKey: string;
  namespaceSelector: Selector;
}

export interface WeightedAffinityTerm extends AffinityTerm {
  weight: number;
}

/** AffinityTerm.Matches: the pod is in one of the namespaces (or a selected one) and matches the selector. */
export function termMatches(t: AffinityTerm, pod: Pod, nsLabels: Labels | undefined): boolean {
  const ns = pod.metadata.namespace ?? 'default';
  if (t.namespaces.has(ns) || (!t.namespaceSelector.nothing && t.namespaceSelector.matches(nsLabels ?? {}))) {
    return t.selector.matches(pod.metadata.labels);
  }
  return false;
}

/**
 * A text two terms share exactly when {@link termMatches} gives the same answer for every pod and
 * namespace: the namespaces, the namespace selector and the label selector (not the topology key).
 */
export function termMatchKey(t: AffinityTerm): string {
  let k = matchKeys.get(t);
  if (k === undefined) {
    const nsSel = t.namespaceSelector.nothing ? '-' : t.namespaceSelector.key;
    k = JSON.stringify([...t.namespaces].sort()) + '\0' + nsSel + '\0' + t.selector.key;
    matchKeys.set(t, k);
  }
  return k;
}
const matchKeys = new WeakMap<AffinityTerm, string>();
/** a term's group name in ClusterSnapshot.termGroups (parsed terms are shared and never modified) */
const groupKeys = new WeakMap<AffinityTerm, string>();

/**
 * Parsed terms by the API object they come from and the pod's namespace: the replicas of one
 * workload share their template's term objects (a plan's replicas, copies of one pod), so a pod
 * added to the snapshot does not parse its selectors again. Terms with matchLabelKeys or
 * mismatchLabelKeys depend on the pod's labels and are parsed every time. Parsed terms are never
 * modified.
 */
const parsedTerms = new WeakMap<object, Map<string, AffinityTerm | WeightedAffinityTerm>>();

function cachedTerm<T extends AffinityTerm>(
  pod: Pod,
  src: PodAffinityTerm | WeightedPodAffinityTerm,
  term: PodAffinityTerm,
  parse: () => T,
): T {
  if (term.matchLabelKeys?.length || term.mismatchLabelKeys?.length) return parse();
  const ns = pod.metadata.namespace ?? 'default';
  let byNs = parsedTerms.get(src);
  if (!byNs) parsedTerms.set(src, (byNs = new Map()));
  let t = byNs.get(ns) as T | undefined;
  if (!t) byNs.set(ns, (t = parse()));
  return t;
}

function newAffinityTerm(pod: Pod, term: PodAffinityTerm): AffinityTerm {
  return cachedTerm(pod, term, term, () => parseAffinityTerm(pod, term));
}

function parseAffinityTerm(pod: Pod, term: PodAffinityTerm): AffinityTerm {
  const podLabels = pod.metadata.labels ?? {};
  let labelSelector = term.labelSelector;
  // matchLabelKeys / mismatchLabelKeys (KEP-3633): merged into the selector from the pod's own labels
  if (labelSelector && (term.matchLabelKeys?.length || term.mismatchLabelKeys?.length)) {
    const exprs = [...(labelSelector.matchExpressions ?? [])];
    for (const k of term.matchLabelKeys ?? [])
      if (k in podLabels) exprs.push({ key: k, operator: 'In', values: [podLabels[k]] });
    for (const k of term.mismatchLabelKeys ?? [])
      if (k in podLabels) exprs.push({ key: k, operator: 'NotIn', values: [podLabels[k]] });
    labelSelector = { ...labelSelector, matchExpressions: exprs };
  }
  const namespaces = new Set<string>();
  if ((term.namespaces ?? []).length === 0 && term.namespaceSelector === undefined)
    namespaces.add(pod.metadata.namespace ?? 'default');
  else for (const n of term.namespaces ?? []) namespaces.add(n);
  return {
    namespaces,
    // label values validated as framework.NewPodInfo's metav1.LabelSelectorAsSelector does
    selector: labelSelectorAsSelector(labelSelector, { validValues: true }),
    topologyKey: term.topologyKey,
    namespaceSelector:
      term.namespaceSelector === undefined
        ? Selector.NOTHING
        : labelSelectorAsSelector(term.namespaceSelector),
  };
}

function weighted(pod: Pod, terms: WeightedPodAffinityTerm[] | undefined): WeightedAffinityTerm[] {
  return (terms ?? []).map((w) =>
    cachedTerm(pod, w, w.podAffinityTerm, () => ({
      ...parseAffinityTerm(pod, w.podAffinityTerm),
      weight: w.weight,
    })),
  );
}

const NO_TERMS: AffinityTerm[] = Object.freeze([]) as unknown as AffinityTerm[];
const NO_WEIGHTED_TERMS: WeightedAffinityTerm[] = Object.freeze([]) as unknown as WeightedAffinityTerm[];

/** A pod with its affinity terms parsed once (upstream framework.PodInfo). */
export class PodInfo {
  private podKey: string | undefined;
  readonly requiredAffinityTerms: AffinityTerm[];
  readonly requiredAntiAffinityTerms: AffinityTerm[];
  readonly preferredAffinityTerms: WeightedAffinityTerm[];
  readonly preferredAntiAffinityTerms: WeightedAffinityTerm[];
  /** a selector error in the pod's affinity terms (the PreFilter turns it into an Error status) */
  readonly parseError?: string;
  /** the listed node the pod is attached to (undefined while its node is absent) */
  node: NodeInfo | undefined = undefined;
  /** the engine's accounting of the pod in its NodeTable (SchedulingEngine; one copy of the bookkeeping) */
  tableEntry: PodEntry | undefined = undefined;

  constructor(
    readonly pod: Pod,
    /** podKey(pod), when the caller has it already (otherwise computed when first asked) */
    key?: string,
  ) {
    this.podKey = key;
    const a = pod.spec.affinity;
    let req: AffinityTerm[] = NO_TERMS,
      anti: AffinityTerm[] = NO_TERMS,
      pref: WeightedAffinityTerm[] = NO_WEIGHTED_TERMS,
      prefAnti: WeightedAffinityTerm[] = NO_WEIGHTED_TERMS;
    // (most pods carry no pod (anti-)affinity: they share the empty lists)
    if (a && (a.podAffinity || a.podAntiAffinity)) {
      // framework.NewPodInfo: each list parsed on its own, its first error kept under the list's
      // name, the errors aggregated (utilerrors.NewAggregate: one alone, several as [a, b])
      const errs: string[] = [];
      const parse = <T>(what: string, fn: () => T[], none: T[]): T[] => {
        try {
          return fn();
        } catch (e) {
          if (!(e instanceof SelectorError)) throw e;
          errs.push(`${what}: ${e.message}`);
          return none;
        }
      };
      const pa = a.podAffinity;
      const pn = a.podAntiAffinity;
      req = parse(
        'requiredAffinityTerms',
        () => (pa?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => newAffinityTerm(pod, t)),
        NO_TERMS,
      );
      anti = parse(
        'requiredAntiAffinityTerms',
        () => (pn?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => newAffinityTerm(pod, t)),
        NO_TERMS,
      );
      pref = parse(
        'preferredAffinityTerms',
        () => weighted(pod, pa?.preferredDuringSchedulingIgnoredDuringExecution),
        NO_WEIGHTED_TERMS,
      );
      prefAnti = parse(
        'preferredAntiAffinityTerms',
        () => weighted(pod, pn?.preferredDuringSchedulingIgnoredDuringExecution),
        NO_WEIGHTED_TERMS,
      );
      if (errs.length > 0) this.parseError = errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`;
    }
    this.requiredAffinityTerms = req;
    this.requiredAntiAffinityTerms = anti;
    this.preferredAffinityTerms = pref;
    this.preferredAntiAffinityTerms = prefAnti;
  }

  /** namespace/name */
  get key(): string {
    return (this.podKey ??= podKey(this.pod));
  }

  get hasAffinity(): boolean {
    const a = this.pod.spec.affinity;
    return !!(a && (a.podAffinity || a.podAntiAffinity));
  }

  get hasRequiredAntiAffinity(): boolean {
    return this.requiredAntiAffinityTerms.length > 0;
  }
}

/** One node and the pods on it (upstream framework.NodeInfo, without the resource sums). */
export class NodeInfo {
  readonly pods: PodInfo[] = [];
  /** pods with any pod (anti-)affinity */
  readonly podsWithAffinity: PodInfo[] = [];
  /** pods with required anti-affinity */
  readonly podsWithRequiredAntiAffinity: PodInfo[] = [];
  /** position in the snapshot's node list (set by the snapshot) */
  index = -1;
  /** row of this node in the engine's NodeTable, -1 without an engine */
  slot = -1;
  /** bumped on every change; the NodeTable adapter uses it to skip unchanged rows */
  generation = 0;

  constructor(public node: Node) {}

  get name(): string {
    return this.node.metadata.name ?? '';
  }

  get labels(): Labels {
    return this.node.metadata.labels ?? {};
  }

  addPod(pi: PodInfo): void {
    this.pods.push(pi);
    if (pi.hasAffinity) this.podsWithAffinity.push(pi);
    if (pi.hasRequiredAntiAffinity) this.podsWithRequiredAntiAffinity.push(pi);
    this.generation++;
  }

  removePod(key: string): PodInfo | undefined {
    const pi = this.pods.find((p) => p.key === key);
    return pi && this.removePodInfo(pi) ? pi : undefined;
  }

  /** takes out this PodInfo (by identity); false when it is not on the node */
  removePodInfo(pi: PodInfo): boolean {
    const i = this.pods.indexOf(pi);
    if (i < 0) return false;
    this.pods.splice(i, 1);
    const drop = (list: PodInfo[]) => {
      const j = list.indexOf(pi);
      if (j >= 0) list.splice(j, 1);
    };
    drop(this.podsWithAffinity);
    drop(this.podsWithRequiredAntiAffinity);
    this.generation++;
    return true;
  }
}

/** Per listed node, how many of its pods match something; nodes with none are absent. */
export type NodeCounts = ReadonlyMap<NodeInfo, number>;

/** The four kinds of affinity terms an existing pod can carry. */
export type TermKind = 'requiredAffinity' | 'requiredAnti' | 'preferredAffinity' | 'preferredAnti';
const TERM_KINDS: readonly TermKind[] = [
  'requiredAffinity',
  'requiredAnti',
  'preferredAffinity',
  'preferredAnti',
];

/**
 * The existing pods' terms of one kind that are alike (same {@link termMatchKey}, topology key and
 * weight), counted per node: one term object answers for all of them, and a plugin adds
 * `count × weight` per node instead of visiting every pod (the replicas of one Deployment all
 * carry the same terms).
 */
export interface TermGroup {
  readonly term: AffinityTerm;
  /** the terms' weight (1 for required terms) */
  readonly weight: number;
  readonly perNode: NodeCounts;
}

/**
 * The domains of one topology key over the snapshot's node list: `ids[node.index]` is the node's
 * domain (its value of the key) as a dense id, −1 without the label; `values[id]` is the value.
 * Example, key zone, nodes a1 b1 a2 x (no zone): ids [0 1 0 -1], values [a, b].
 */
export interface TopologyDomains {
  readonly key: string;
  readonly ids: Int32Array;
  readonly values: readonly string[];
  readonly idOf: ReadonlyMap<string, number>;
  /** the node list `ids` is indexed by */
  readonly list: readonly NodeInfo[];
}

/** A {@link NodeCounts} kept up to date on every pod add and remove (see ClusterSnapshot.podMatchCounts). */
interface MatchCounter {
  readonly key: string;
  readonly matches: (pi: PodInfo) => boolean;
  readonly perNode: CountsMap;
  /** where the counter is registered: the label key and values of one `In` requirement, or none */
  readonly by?: { key: string; values: readonly string[] };
  /** when it was last asked for (ClusterSnapshot.counterUses): the least recent goes first */
  used: number;
}

/** live counters; the least recently used one goes beyond this (each holds ≤ one entry per node) */
const MAX_MATCH_COUNTERS = 64;

/**
 * A {@link NodeCounts} summed per domain of one topology key over the nodes an eligibility mask
 * keeps (ClusterSnapshot.domainSums): `sums[id]` for domain id `id`, `missing` for eligible nodes
 * without the key. Kept up to date on every pod add and remove; do not modify.
 */
export interface DomainSums {
  readonly domains: TopologyDomains;
  /** 1 per node index that counts (the caller's mask, compared by identity) */
  readonly eligible: Uint8Array;
  readonly sums: Float64Array;
  readonly missing: number;
}

/** kept domain sums per counter; the least recently used one goes beyond this */
const MAX_DOMAIN_SUMS = 8;

/** A kept {@link NodeCounts}, with its counts by node index once a plugin asked (denseCounts). */
class CountsMap extends Map<NodeInfo, number> {
  dense?: { list: readonly NodeInfo[]; counts: Float64Array };
  /** per-domain sums kept in step (domainSums), most recently used last */
  sums?: (DomainSums & { missing: number })[];
}

function bump(m: CountsMap, ni: NodeInfo, delta: number): void {
  const v = (m.get(ni) ?? 0) + delta;
  if (v === 0) m.delete(ni);
  else m.set(ni, v);
  const d = m.dense;
  const j = ni.index;
  if (d !== undefined && d.list[j] === ni) d.counts[j] += delta;
  const sums = m.sums;
  if (sums !== undefined)
    for (const s of sums) {
      // (an entry of an older node list is dropped when next asked for)
      if (s.domains.list[j] !== ni || s.eligible[j] === 0) continue;
      const id = s.domains.ids[j];
      if (id < 0) s.missing += delta;
      else s.sums[id] += delta;
    }
}

function termsOf(pi: PodInfo, kind: TermKind): readonly AffinityTerm[] | readonly WeightedAffinityTerm[] {
  switch (kind) {
    case 'requiredAffinity':
      return pi.requiredAffinityTerms;
    case 'requiredAnti':
      return pi.requiredAntiAffinityTerms;
    case 'preferredAffinity':
      return pi.preferredAffinityTerms;
    case 'preferredAnti':
      return pi.preferredAntiAffinityTerms;
  }
}

/** Receives every change to the snapshot (the NodeTable adapter mirrors them into columns). */
export interface SnapshotListener {
  nodeAdded?(ni: NodeInfo): void;
  nodeUpdated?(ni: NodeInfo, old: Node): void;
  nodeRemoved?(ni: NodeInfo): void;
  podAdded?(pi: PodInfo, ni: NodeInfo): void;
  podRemoved?(pi: PodInfo, ni: NodeInfo): void;
}

/**
 * The scheduler cache and its snapshot in one object. JS runs a scheduling cycle (filter, score,
 * assume) synchronously, so no watch event can land in the middle of a cycle and the live cache
 * can serve as the cycle's snapshot; upstream needs a copy because its informers run in parallel.
 */
export class ClusterSnapshot {
  private readonly byName = new Map<string, NodeInfo>();
  private readonly zones = new Map<string, NodeInfo[]>();
  private ordered: NodeInfo[] | null = [];
  private nodesVer = 0;
  /**
   * Pods on listed nodes by label key and value: the cross-pod plugins count the pods matching a
   * selector, and with an index on one of its `In` requirements they visit only the candidates
   * instead of every pod in the cluster (upstream walks every pod of every node, every cycle).
   */
  private readonly byLabel = new Map<string, Map<string, Set<PodInfo>>>();
  /** whether byLabel is kept: built on the first candidatePods (a cycle without cross-pod terms never asks) */
  private byLabelLive = false;
  /**
   * Counts of pods matching a predicate per node, kept incrementally (podMatchCounts), and the
   * index that finds the counters a pod can change: by the label key and value of one `In`
   * requirement of the counter's selector, or in `unindexedCounters` when it has none.
   */
  private readonly counters = new Map<string, MatchCounter>();
  private readonly countersByLabel = new Map<string, Map<string, MatchCounter[]>>();
  private readonly unindexedCounters = new Set<MatchCounter>();
  /** podMatchCounts calls so far (the counters' LRU stamps) */
  private counterUses = 0;
  /** existing pods' affinity terms grouped by kind and likeness (termGroups) */
  private readonly groups = new Map<TermKind, Map<string, TermGroup & { perNode: CountsMap }>>(
    TERM_KINDS.map((k) => [k, new Map()]),
  );
  /** topology key → its domains, valid for `domainsList` at `domainsVersion` */
  private readonly domainsByKey = new Map<string, TopologyDomains>();
  private domainsList: NodeInfo[] | null = null;
  private domainsVersion = -1;
  /** pods on listed nodes per spec.priority (how few priorities there are: a handful of classes) */
  private readonly priorities = new Map<number, number>();
  /**
   * every pod added by key, attached to its node (PodInfo.node) or waiting for it (orphanPods);
   * a StringMap: assume/forget and assume/confirm add a key again right after removing it
   */
  private readonly podInfos = new StringMap<PodInfo>();
  /** pods whose node is not (yet) known: kept so that they count once the node arrives */
  private readonly orphanPods = new Map<string, PodInfo[]>();
  readonly namespaces = new Map<string, Labels>();
  readonly nominator = new Nominator();
  private readonly listeners: SnapshotListener[] = [];

  constructor(nodes: Node[] = [], pods: Pod[] = []) {
    for (const n of nodes) this.addNode(n);
    for (const p of pods) if (p.spec.nodeName) this.addPod(p);
  }

  listen(l: SnapshotListener): void {
    this.listeners.push(l);
  }

  /** nodes in nodeTree order (zones interleaved) */
  list(): NodeInfo[] {
    if (this.ordered === null) {
      const out: NodeInfo[] = [];
      const lists = [...this.zones.values()];
      for (let i = 0; out.length < this.byName.size; i++) {
        for (const l of lists) if (i < l.length) out.push(l[i]);
      }
      out.forEach((ni, i) => {
        ni.index = i;
      });
      this.ordered = out;
    }
    return this.ordered;
  }

  get size(): number {
    return this.byName.size;
  }

  /**
   * Bumped whenever a node is added, updated (labels, taints, anything) or removed — not on pod
   * changes. Plugins cache what depends only on the nodes (PodTopologySpread's eligible domains)
   * and recompute when it moves.
   */
  get nodesVersion(): number {
    return this.nodesVer;
  }

  get(name: string): NodeInfo | undefined {
    return this.byName.get(name);
  }

  /** the node order changed: every index-ordered derived list is rebuilt on next use */
  private reordered(): void {
    this.ordered = null;
  }

  setNamespace(ns: Namespace): void {
    this.namespaces.set(ns.metadata.name ?? '', ns.metadata.labels ?? {});
  }

  addNode(node: Node): NodeInfo {
    const name = node.metadata.name ?? '';
    const existing = this.byName.get(name);
    if (existing) {
      this.updateNode(node);
      return existing;
    }
    const ni = new NodeInfo(node);
    this.byName.set(name, ni);
    const z = zoneKey(node);
    let zl = this.zones.get(z);
    if (!zl) {
      zl = [];
      this.zones.set(z, zl);
    }
    zl.push(ni);
    this.reordered();
    this.nodesVer++;
    for (const l of this.listeners) l.nodeAdded?.(ni);
    for (const pi of this.orphanPods.get(name) ?? []) this.attach(pi, ni);
    this.orphanPods.delete(name);
    return ni;
  }

  updateNode(node: Node): void {
    const ni = this.byName.get(node.metadata.name ?? '');
    if (!ni) {
      this.addNode(node);
      return;
    }
    const old = ni.node;
    if (zoneKey(old) !== zoneKey(node)) {
      this.removeFromZone(ni, zoneKey(old));
      const z = zoneKey(node);
      let zl = this.zones.get(z);
      if (!zl) {
        zl = [];
        this.zones.set(z, zl);
      }
      zl.push(ni);
      this.reordered();
    }
    ni.node = node;
    ni.generation++;
    this.nodesVer++;
    for (const l of this.listeners) l.nodeUpdated?.(ni, old);
  }

  removeNode(name: string): void {
    const ni = this.byName.get(name);
    if (!ni) return;
    this.byName.delete(name);
    this.removeFromZone(ni, zoneKey(ni.node));
    this.reordered();
    this.nodesVer++;
    for (const l of this.listeners) l.nodeRemoved?.(ni);
    // pods stay known: if the node comes back they count again (upstream keeps "ghost" NodeInfos)
    for (const pi of ni.pods) this.index(pi, undefined);
    if (ni.pods.length) this.orphanPods.set(name, [...ni.pods]);
  }

  private removeFromZone(ni: NodeInfo, z: string): void {
    const zl = this.zones.get(z);
    if (!zl) return;
    const i = zl.indexOf(ni);
    if (i >= 0) zl.splice(i, 1);
    if (zl.length === 0) this.zones.delete(z);
  }

  /**
   * adds (or moves) a pod with spec.nodeName set (`key`: its podKey, when the caller has it;
   * `node`: the NodeInfo of spec.nodeName as a cycle found it — used when it is still the listed
   * one, which saves the lookup by name); returns its PodInfo
   */
  addPod(pod: Pod, key?: string, node?: NodeInfo): PodInfo {
    const pi = new PodInfo(pod, key);
    if (this.podInfos.has(pi.key)) this.removePod(pi.key);
    const nodeName = pod.spec.nodeName ?? '';
    this.podInfos.set(pi.key, pi);
    const ni =
      node !== undefined && this.ordered?.[node.index] === node && node.name === nodeName
        ? node
        : this.byName.get(nodeName);
    if (ni) this.attach(pi, ni);
    else {
      const l = this.orphanPods.get(nodeName) ?? [];
      l.push(pi);
      this.orphanPods.set(nodeName, l);
    }
    return pi;
  }

  private attach(pi: PodInfo, ni: NodeInfo): void {
    ni.addPod(pi);
    this.index(pi, ni);
    for (const l of this.listeners) l.podAdded?.(pi, ni);
  }

  removePod(key: string): PodInfo | undefined {
    const pi = this.podInfos.get(key);
    if (pi === undefined) return undefined;
    this.podInfos.delete(key);
    const ni = pi.node;
    if (ni) {
      ni.removePodInfo(pi);
      this.index(pi, undefined);
      for (const l of this.listeners) l.podRemoved?.(pi, ni);
      return pi;
    }
    const orphans = this.orphanPods.get(pi.pod.spec.nodeName ?? '');
    const i = orphans ? orphans.indexOf(pi) : -1;
    return i >= 0 ? orphans!.splice(i, 1)[0] : undefined;
  }

  /** adds a pod to the label index (its node given) or takes it out (undefined) */
  private index(pi: PodInfo, ni: NodeInfo | undefined): void {
    const prev = pi.node;
    pi.node = ni;
    if (prev) this.count(pi, prev, -1);
    if (ni) this.count(pi, ni, 1);
    if ((prev === undefined) !== (ni === undefined)) {
      const prio = pi.pod.spec.priority ?? 0;
      const c = (this.priorities.get(prio) ?? 0) + (ni ? 1 : -1);
      if (c === 0) this.priorities.delete(prio);
      else this.priorities.set(prio, c);
    }
    if (!this.byLabelLive) return;
    this.indexLabels(pi, ni !== undefined);
  }

  private indexLabels(pi: PodInfo, add: boolean): void {
    const labels = pi.pod.metadata.labels;
    if (!labels) return;
    for (const k in labels) {
      if (!Object.hasOwn(labels, k)) continue;
      let byValue = this.byLabel.get(k);
      let set = byValue?.get(labels[k]);
      if (add) {
        if (!byValue) this.byLabel.set(k, (byValue = new Map()));
        if (!set) byValue.set(labels[k], (set = new Set()));
        set.add(pi);
      } else if (set) {
        set.delete(pi);
        if (set.size === 0) byValue!.delete(labels[k]);
      }
    }
  }

  /**
   * A superset of the pods on listed nodes that `sel` can match — the pods carrying one of the
   * values of its most selective `In` requirement — as disjoint sets; undefined when the selector
   * has no `In` requirement (the caller walks every pod). Each candidate still has to be matched.
   */
  candidatePods(sel: Selector): readonly ReadonlySet<PodInfo>[] | undefined {
    if (sel.nothing) return [];
    const reqs = sel.inRequirements;
    if (!reqs || reqs.length === 0) return undefined;
    if (!this.byLabelLive) {
      // first use: index the pods placed so far, then keep it up to date on every change
      this.byLabelLive = true;
      for (const ni of this.list()) for (const pi of ni.pods) this.indexLabels(pi, true);
    }
    let best: Set<PodInfo>[] = [];
    let bestSize = Infinity;
    for (const r of reqs) {
      const byValue = this.byLabel.get(r.key);
      const sets: Set<PodInfo>[] = [];
      let size = 0;
      if (byValue)
        for (const v of r.values) {
          const set = byValue.get(v);
          if (set) {
            sets.push(set);
            size += set.size;
          }
        }
      if (size < bestSize) {
        best = sets;
        bestSize = size;
      }
    }
    return best;
  }

  /**
   * Pods on listed nodes for which `matches` holds, counted per node, kept up to date on every pod
   * add and remove from then on, so that a cycle reads per-node counts instead of matching every
   * placed pod again (which made a plan of N replicas cost O(N²)). `key` names the predicate: two
   * calls with one key must pass equivalent predicates; `selector` is a necessary condition of
   * `matches` (its `In` requirements narrow the pods a change is matched against). The least
   * recently used of more than {@link MAX_MATCH_COUNTERS} counters is dropped (and rebuilt from the
   * label index when asked again). Do not modify the map; it changes with the snapshot.
   */
  podMatchCounts(key: string, selector: Selector, matches: (pi: PodInfo) => boolean): NodeCounts {
    const hit = this.counters.get(key);
    if (hit) {
      // (a stamp, not a Map reorder per call: the least recently used is looked for on eviction only)
      hit.used = ++this.counterUses;
      return hit.perNode;
    }
    const perNode = new CountsMap();
    const r = selector.nothing ? undefined : selector.inRequirements[0];
    const c: MatchCounter = {
      key,
      matches,
      perNode,
      by: r ? { key: r.key, values: r.values } : undefined,
      used: ++this.counterUses,
    };
    if (!selector.nothing) {
      const candidates = this.candidatePods(selector);
      if (candidates) {
        for (const set of candidates) for (const p of set) if (p.node && matches(p)) bump(perNode, p.node, 1);
      } else {
        for (const ni of this.list()) for (const p of ni.pods) if (matches(p)) bump(perNode, ni, 1);
      }
      if (c.by) {
        let byValue = this.countersByLabel.get(c.by.key);
        if (!byValue) this.countersByLabel.set(c.by.key, (byValue = new Map()));
        for (const v of c.by.values) {
          const l = byValue.get(v);
          if (l) l.push(c);
          else byValue.set(v, [c]);
        }
      } else this.unindexedCounters.add(c);
    }
    this.counters.set(key, c);
    if (this.counters.size > MAX_MATCH_COUNTERS) {
      let lru = c;
      for (const o of this.counters.values()) if (o.used < lru.used) lru = o;
      this.dropCounter(lru);
    }
    return perNode;
  }

  private dropCounter(c: MatchCounter): void {
    this.counters.delete(c.key);
    if (!c.by) {
      this.unindexedCounters.delete(c);
      return;
    }
    const byValue = this.countersByLabel.get(c.by.key);
    if (!byValue) return;
    for (const v of c.by.values) {
      const l = byValue.get(v);
      const i = l ? l.indexOf(c) : -1;
      if (i < 0) continue;
      l!.splice(i, 1);
      if (l!.length === 0) byValue.delete(v);
    }
    if (byValue.size === 0) this.countersByLabel.delete(c.by.key);
  }

  /**
   * The domains of `key` over the current node list (see {@link TopologyDomains}), cached until a
   * node is added, updated or removed. Plugins keep per-domain sums in typed arrays indexed by these
   * ids instead of maps keyed by "key=value" strings.
   */
  topologyDomains(key: string): TopologyDomains {
    const list = this.list();
    if (this.domainsList !== list || this.domainsVersion !== this.nodesVer) {
      this.domainsByKey.clear();
      this.domainsList = list;
      this.domainsVersion = this.nodesVer;
    }
    let d = this.domainsByKey.get(key);
    if (!d) {
      const ids = new Int32Array(list.length);
      const values: string[] = [];
      const idOf = new Map<string, number>();
      for (let i = 0; i < list.length; i++) {
        const labels = list[i].node.metadata.labels;
        if (!labels || !Object.hasOwn(labels, key)) {
          ids[i] = -1;
          continue;
        }
        const v = labels[key];
        let id = idOf.get(v);
        if (id === undefined) {
          id = values.length;
          idOf.set(v, id);
          values.push(v);
        }
        ids[i] = id;
      }
      d = { key, ids, values, idOf, list };
      this.domainsByKey.set(key, d);
    }
    return d;
  }

  /**
   * `perNode` (from podMatchCounts or termGroups) by node index over {@link list}: kept in step
   * on every pod add and remove once asked for, rebuilt after the node list changed — a plugin
   * sums many nodes' counts per domain with a typed loop instead of iterating the map. Undefined
   * for counts the snapshot does not keep (the plugin iterates those).
   */
  denseCounts(perNode: NodeCounts): Float64Array | undefined {
    if (!(perNode instanceof CountsMap)) return undefined;
    const list = this.list();
    let d = perNode.dense;
    if (d === undefined || d.list !== list) {
      const counts = new Float64Array(list.length);
      for (const [ni, n] of perNode) if (list[ni.index] === ni) counts[ni.index] = n;
      d = { list, counts };
      perNode.dense = d;
    }
    return d.counts;
  }

  /**
   * `perNode` (from podMatchCounts or termGroups) summed per domain of `domains` over the node
   * indexes where `eligible` is 1, kept in step on every pod add and remove for as long as the
   * same `domains` and `eligible` objects are asked for (up to {@link MAX_DOMAIN_SUMS} per
   * counter): a plugin that needs per-domain counts every cycle (PodTopologySpread's
   * TpValueToMatchNum, which upstream rebuilds in every PreFilter) reads them instead of summing
   * every node's count again. Undefined for counts the snapshot does not keep, or `domains` of
   * another node list. Sums are of integer counts, so their order of addition does not matter.
   */
  domainSums(perNode: NodeCounts, domains: TopologyDomains, eligible: Uint8Array): DomainSums | undefined {
    if (!(perNode instanceof CountsMap) || domains.list !== this.list()) return undefined;
    let kept = perNode.sums;
    if (kept !== undefined) {
      for (let k = 0; k < kept.length; k++) {
        const s = kept[k];
        if (s.domains !== domains || s.eligible !== eligible) continue;
        if (k !== kept.length - 1) {
          kept.splice(k, 1);
          kept.push(s);
        }
        return s;
      }
      // entries of older domains (a node changed since) are never asked for again
      perNode.sums = kept = kept.filter((s) => s.domains === this.topologyDomains(s.domains.key));
    } else perNode.sums = kept = [];
    const ids = domains.ids;
    const s = { domains, eligible, sums: new Float64Array(domains.values.length), missing: 0 };
    for (const [ni, n] of perNode) {
      const j = ni.index;
      if (domains.list[j] !== ni || eligible[j] === 0) continue;
      const id = ids[j];
      if (id < 0) s.missing += n;
      else s.sums[id] += n;
    }
    kept.push(s);
    if (kept.length > MAX_DOMAIN_SUMS) kept.shift();
    return s;
  }

  /**
   * The existing pods' terms of one kind, alike ones grouped, with their counts per node (pods on
   * listed nodes only). Do not modify; the groups change with the snapshot.
   */
  termGroups(kind: TermKind): Iterable<TermGroup> {
    return this.groups.get(kind)!.values();
  }

  /** {@link termGroups} in the same order, without an iterator result per group (per-cycle loops) */
  forEachTermGroup(kind: TermKind, fn: (g: TermGroup) => void): void {
    this.groups.get(kind)!.forEach((g) => fn(g));
  }

  /** a pod joined (+1) or left (−1) a listed node: the counters and term groups it belongs to */
  private count(pi: PodInfo, ni: NodeInfo, delta: 1 | -1): void {
    const labels = pi.pod.metadata.labels;
    if (labels && this.countersByLabel.size > 0) {
      for (const k in labels) {
        if (!Object.hasOwn(labels, k)) continue;
        const l = this.countersByLabel.get(k)?.get(labels[k]);
        if (l) for (const c of l) if (c.matches(pi)) bump(c.perNode, ni, delta);
      }
    }
    for (const c of this.unindexedCounters) if (c.matches(pi)) bump(c.perNode, ni, delta);
    if (!pi.hasAffinity) return;
    for (const kind of TERM_KINDS) {
      const terms = termsOf(pi, kind);
      if (terms.length === 0) continue;
      const groups = this.groups.get(kind)!;
      for (const t of terms) {
        const weight = 'weight' in t ? (t as WeightedAffinityTerm).weight : 1;
        let gk = groupKeys.get(t);
        if (gk === undefined) groupKeys.set(t, (gk = termMatchKey(t) + '\0' + t.topologyKey + '\0' + weight));
        let g = groups.get(gk);
        if (!g) groups.set(gk, (g = { term: t, weight, perNode: new CountsMap() }));
        bump(g.perNode, ni, delta);
        if (g.perNode.size === 0) groups.delete(gk);
      }
    }
  }

  /**
   * The lowest spec.priority (absent: 0) of the pods on listed nodes, Infinity without pods:
   * preemption needs a pod of lower priority than the preemptor on the node it frees.
   */
  lowestPodPriority(): number {
    let min = Infinity;
    for (const p of this.priorities.keys()) if (p < min) min = p;
    return min;
  }

  hasPod(key: string): boolean {
    return this.podInfos.has(key);
  }

  nodeOfPod(key: string): string | undefined {
    const pi = this.podInfos.get(key);
    return pi === undefined ? undefined : (pi.pod.spec.nodeName ?? '');
  }

  /** every assigned pod, in node order */
  allPods(): PodInfo[] {
    const out: PodInfo[] = [];
    for (const ni of this.list()) out.push(...ni.pods);
    return out;
  }
}

/**
 * Pods nominated to a node by preemption and not bound yet (upstream's nominator). Filters see
 * them as already running on their nominated node when they are at least as important as the pod
 * being scheduled, so the room a preemption freed is not taken by someone else meanwhile.
 */
export class Nominator {
  private readonly byNode = new Map<string, Map<string, Pod>>();
  private readonly nodeOf = new Map<string, string>();

  /** records (or moves) a nomination; an empty node name removes it */
  set(pod: Pod, nodeName: string | undefined): void {
    const key = podKey(pod);
    this.delete(key);
    if (!nodeName) return;
    let m = this.byNode.get(nodeName);
    if (!m) {
      m = new Map();
      this.byNode.set(nodeName, m);
    }
    m.set(key, pod);
    this.nodeOf.set(key, nodeName);
  }

  delete(key: string): void {
    if (this.nodeOf.size === 0) return;
    const n = this.nodeOf.get(key);
    if (n === undefined) return;
    this.nodeOf.delete(key);
    const m = this.byNode.get(n)!;
    m.delete(key);
    if (m.size === 0) this.byNode.delete(n);
  }

  get size(): number {
    return this.nodeOf.size;
  }

  /** nominated pods on `nodeName` with priority ≥ `priority`, other than `exceptKey` */
  podsFor(nodeName: string, priority: number, exceptKey: string): Pod[] {
    const m = this.byNode.get(nodeName);
    if (!m) return [];
    const out: Pod[] = [];
    for (const [k, p] of m) if (k !== exceptKey && (p.spec.priority ?? 0) >= priority) out.push(p);
    return out;
  }

  /** whether any nominated pod could affect a pod of this priority */
  any(priority: number): boolean {
    for (const m of this.byNode.values())
      for (const p of m.values()) if ((p.spec.priority ?? 0) >= priority) return true;
    return false;
  }
}

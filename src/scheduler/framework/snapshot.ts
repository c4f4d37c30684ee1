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

function newAffinityTerm(pod: Pod, term: PodAffinityTerm): AffinityTerm {
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
    selector: labelSelectorAsSelector(labelSelector),
    topologyKey: term.topologyKey,
    namespaceSelector:
      term.namespaceSelector === undefined
        ? Selector.NOTHING
        : labelSelectorAsSelector(term.namespaceSelector),
  };
}

function weighted(pod: Pod, terms: WeightedPodAffinityTerm[] | undefined): WeightedAffinityTerm[] {
  return (terms ?? []).map((w) => ({ ...newAffinityTerm(pod, w.podAffinityTerm), weight: w.weight }));
}

/** A pod with its affinity terms parsed once (upstream framework.PodInfo). */
export class PodInfo {
  readonly key: string;
  readonly requiredAffinityTerms: AffinityTerm[];
  readonly requiredAntiAffinityTerms: AffinityTerm[];
  readonly preferredAffinityTerms: WeightedAffinityTerm[];
  readonly preferredAntiAffinityTerms: WeightedAffinityTerm[];
  /** a selector error in the pod's affinity terms (the PreFilter turns it into an Error status) */
  readonly parseError?: string;
  /** the listed node the pod is attached to (undefined while its node is absent) */
  node: NodeInfo | undefined = undefined;

  constructor(readonly pod: Pod) {
    this.key = podKey(pod);
    const a = pod.spec.affinity;
    let req: AffinityTerm[] = [],
      anti: AffinityTerm[] = [],
      pref: WeightedAffinityTerm[] = [],
      prefAnti: WeightedAffinityTerm[] = [];
    try {
      req = (a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) =>
        newAffinityTerm(pod, t),
      );
      anti = (a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) =>
        newAffinityTerm(pod, t),
      );
      pref = weighted(pod, a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
      prefAnti = weighted(pod, a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
    } catch (e) {
      if (!(e instanceof SelectorError)) throw e;
      this.parseError = `parsing pod affinity of ${this.key}: ${e.message}`;
    }
    this.requiredAffinityTerms = req;
    this.requiredAntiAffinityTerms = anti;
    this.preferredAffinityTerms = pref;
    this.preferredAntiAffinityTerms = prefAnti;
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
    const i = this.pods.findIndex((p) => p.key === key);
    if (i < 0) return undefined;
    const [pi] = this.pods.splice(i, 1);
    const drop = (list: PodInfo[]) => {
      const j = list.indexOf(pi);
      if (j >= 0) list.splice(j, 1);
    };
    drop(this.podsWithAffinity);
    drop(this.podsWithRequiredAntiAffinity);
    this.generation++;
    return pi;
  }
}

/**
 * `list` with `ni` inserted at its place in node order (delta +1) or removed (−1). A new array:
 * a caller may still be iterating the old one (a plugin that adds pods while it walks the list).
 */
function toggled(list: readonly NodeInfo[], ni: NodeInfo, delta: 1 | -1): NodeInfo[] {
  if (delta < 0) return list.filter((n) => n !== ni);
  let lo = 0,
    hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].index < ni.index) lo = mid + 1;
    else hi = mid;
  }
  return [...list.slice(0, lo), ni, ...list.slice(lo)];
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
   * havePodsWithAffinity / havePodsWithRequiredAntiAffinity, in node order, kept incrementally:
   * a node enters or leaves only when its first such pod arrives or its last leaves (most pods
   * have no pod affinity, so most adds and removes touch nothing); null = rebuild from list()
   * (after nodes were added, removed or re-zoned, which reorders the list).
   */
  private withAffinity: NodeInfo[] | null = null;
  private withRequiredAnti: NodeInfo[] | null = null;
  /**
   * Pods on listed nodes by label key and value: the cross-pod plugins count the pods matching a
   * selector, and with an index on one of its `In` requirements they visit only the candidates
   * instead of every pod in the cluster (upstream walks every pod of every node, every cycle).
   */
  private readonly byLabel = new Map<string, Map<string, Set<PodInfo>>>();
  /** pods whose node is not (yet) known: kept so that they count once the node arrives */
  private readonly podNode = new Map<string, string>();
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

  /** nodes hosting at least one pod with (anti-)affinity, in node order (do not modify) */
  havePodsWithAffinity(): readonly NodeInfo[] {
    return (this.withAffinity ??= this.list().filter((n) => n.podsWithAffinity.length > 0));
  }

  /** nodes hosting at least one pod with required anti-affinity, in node order (do not modify) */
  havePodsWithRequiredAntiAffinity(): readonly NodeInfo[] {
    return (this.withRequiredAnti ??= this.list().filter((n) => n.podsWithRequiredAntiAffinity.length > 0));
  }

  /** the node order changed: every index-ordered derived list is rebuilt on next use */
  private reordered(): void {
    this.ordered = null;
    this.withAffinity = null;
    this.withRequiredAnti = null;
  }

  /** keeps the derived lists in step after a pod joined (+1) or left (-1) a node */
  private trackAffinity(pi: PodInfo, ni: NodeInfo, delta: 1 | -1): void {
    // a node enters a list with its first such pod and leaves it with its last
    const edge = delta > 0 ? 1 : 0;
    if (pi.hasAffinity && this.withAffinity && ni.podsWithAffinity.length === edge)
      this.withAffinity = toggled(this.withAffinity, ni, delta);
    if (
      pi.hasRequiredAntiAffinity &&
      this.withRequiredAnti &&
      ni.podsWithRequiredAntiAffinity.length === edge
    )
      this.withRequiredAnti = toggled(this.withRequiredAnti, ni, delta);
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

  /** adds (or moves) a pod with spec.nodeName set; returns its PodInfo */
  addPod(pod: Pod): PodInfo {
    const pi = new PodInfo(pod);
    if (this.podNode.has(pi.key)) this.removePod(pi.key);
    const nodeName = pod.spec.nodeName ?? '';
    this.podNode.set(pi.key, nodeName);
    const ni = this.byName.get(nodeName);
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
    this.trackAffinity(pi, ni, 1);
    for (const l of this.listeners) l.podAdded?.(pi, ni);
  }

  removePod(key: string): PodInfo | undefined {
    const nodeName = this.podNode.get(key);
    if (nodeName === undefined) return undefined;
    this.podNode.delete(key);
    const ni = this.byName.get(nodeName);
    if (ni) {
      const pi = ni.removePod(key);
      if (pi) {
        this.index(pi, undefined);
        this.trackAffinity(pi, ni, -1);
        for (const l of this.listeners) l.podRemoved?.(pi, ni);
      }
      return pi;
    }
    const orphans = this.orphanPods.get(nodeName);
    const i = orphans?.findIndex((p) => p.key === key) ?? -1;
    return i >= 0 ? orphans!.splice(i, 1)[0] : undefined;
  }

  /** adds a pod to the label index (its node given) or takes it out (undefined) */
  private index(pi: PodInfo, ni: NodeInfo | undefined): void {
    pi.node = ni;
    const labels = pi.pod.metadata.labels;
    if (!labels) return;
    for (const k in labels) {
      if (!Object.hasOwn(labels, k)) continue;
      let byValue = this.byLabel.get(k);
      let set = byValue?.get(labels[k]);
      if (ni) {
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

  hasPod(key: string): boolean {
    return this.podNode.has(key);
  }

  nodeOfPod(key: string): string | undefined {
    return this.podNode.get(key);
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

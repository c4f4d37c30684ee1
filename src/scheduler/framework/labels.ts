/**
 * Object-level matching helpers used by the cross-pod plugins (PodTopologySpread, InterPodAffinity,
 * DefaultPreemption): label selectors (metav1.LabelSelectorAsSelector semantics), a pod's required
 * node affinity (nodeSelector + requiredDuringScheduling terms, as component-helpers' nodeaffinity
 * package).
 *
 * The node-local filter plugins do not use these: they run over the NodeTable's columns in the
 * engine's kernels. PodTopologySpread needs node affinity and taints only to decide which nodes
 * count as spreading domains (nodeAffinityPolicy / nodeTaintsPolicy).
 */
import type {
  LabelSelector,
  Labels,
  Node,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  Pod,
} from '../../api/types.js';

/** A compiled label selector. */
export interface Selector {
  matches(labels: Labels | undefined): boolean;
  /** true for the selector that matches everything (`{}`) */
  readonly empty: boolean;
  /** true for the selector that matches nothing (a nil selector) */
  readonly nothing: boolean;
  /**
   * The selector's `In` requirements (matchLabels included): every matching label set has one of
   * each requirement's values, so an index by label value yields a superset of the matches.
   */
  readonly inRequirements?: readonly { readonly key: string; readonly values: ReadonlySet<string> }[];
}

interface Requirement {
  key: string;
  op: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values: ReadonlySet<string>;
}

class RequirementSelector implements Selector {
  readonly nothing = false;
  readonly inRequirements: readonly Requirement[];
  constructor(private readonly reqs: readonly Requirement[]) {
    this.inRequirements = reqs.filter((r) => r.op === 'In');
  }
  get empty(): boolean {
    return this.reqs.length === 0;
  }
  matches(labels: Labels | undefined): boolean {
    for (const r of this.reqs) {
      const has = labels !== undefined && Object.hasOwn(labels, r.key);
      switch (r.op) {
        case 'In':
          if (!has || !r.values.has(labels![r.key])) return false;
          break;
        case 'NotIn':
          if (has && r.values.has(labels![r.key])) return false;
          break;
        case 'Exists':
          if (!has) return false;
          break;
        case 'DoesNotExist':
          if (has) return false;
          break;
      }
    }
    return true;
  }
}

/** labels.Nothing(): what a nil *metav1.LabelSelector converts to. */
export const NOTHING: Selector = { matches: () => false, empty: false, nothing: true };
/** labels.Everything() */
export const EVERYTHING: Selector = new RequirementSelector([]);

/** Thrown for a selector the API server would have rejected; callers turn it into an Error status. */
export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}

/**
 * metav1.LabelSelectorAsSelector: undefined → matches nothing; `{}` → matches everything;
 * matchLabels and matchExpressions are ANDed.
 */
export function compileSelector(sel: LabelSelector | undefined | null): Selector {
  if (sel === undefined || sel === null) return NOTHING;
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {}))
    reqs.push({ key: k, op: 'In', values: new Set([String(v)]) });
  for (const e of sel.matchExpressions ?? []) {
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0)
          throw new SelectorError(
            `values: Invalid value: []: for '${e.operator}', 'NotIn' operators, values set can't be empty`,
          );
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0)
          throw new SelectorError(
            `values: Invalid value: ${JSON.stringify(values)}: values set must be empty for exists and does not exist`,
          );
        break;
      default:
        throw new SelectorError(`"${String(e.operator)}" is not a valid label selector operator`);
    }
    reqs.push({ key: e.key, op: e.operator, values: new Set(values) });
  }
  return new RequirementSelector(reqs);
}

/** A selector built from a label set (labels.SelectorFromSet) ANDed with `base`'s requirements. */
export function mergeMatchLabels(match: Labels, base: LabelSelector | undefined): Selector {
  return compileSelector({
    matchLabels: { ...(base?.matchLabels ?? {}), ...match },
    matchExpressions: base?.matchExpressions,
  });
}

// ---------------------------------------------------------------- node affinity

function matchNodeRequirement(req: NodeSelectorRequirement, value: string | undefined): boolean {
  const has = value !== undefined;
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return has && values.includes(value!);
    case 'NotIn':
      return !has || !values.includes(value!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      if (!has || values.length !== 1) return false;
      const a = Number.parseInt(value!, 10);
      const b = Number.parseInt(values[0], 10);
      if (!/^-?\d+$/.test(value!) || !/^-?\d+$/.test(values[0])) return false;
      return req.operator === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

/** One NodeSelectorTerm: its expressions and fields are ANDed; an empty term matches nothing. */
export function nodeSelectorTermMatches(term: NodeSelectorTerm, node: Node): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels ?? {};
  for (const r of exprs) {
    if (!matchNodeRequirement(r, Object.hasOwn(labels, r.key) ? labels[r.key] : undefined)) return false;
  }
  for (const r of fields) {
    // metadata.name is the only supported field selector
    if (r.key !== 'metadata.name') return false;
    if (!matchNodeRequirement(r, node.metadata.name)) return false;
  }
  return true;
}

/**
 * nodeaffinity.GetRequiredNodeAffinity(pod).Match(node): spec.nodeSelector AND (any of the
 * requiredDuringSchedulingIgnoredDuringExecution terms).
 */
export function requiredNodeAffinityMatches(pod: Pod, node: Node): boolean {
  return compileRequiredNodeAffinity(pod)(node);
}

/** {@link requiredNodeAffinityMatches} prepared once per pod (per-node calls allocate nothing). */
export function compileRequiredNodeAffinity(pod: Pod): (node: Node) => boolean {
  const sel = pod.spec.nodeSelector;
  const keys = sel ? Object.keys(sel) : [];
  const values = keys.map((k) => sel![k]);
  const terms =
    pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (keys.length === 0 && terms === undefined) return () => true;
  return (node: Node) => {
    if (keys.length) {
      const labels = node.metadata.labels;
      if (!labels) return false;
      for (let i = 0; i < keys.length; i++) if (labels[keys[i]] !== values[i]) return false;
    }
    if (terms === undefined) return true;
    for (const t of terms) if (nodeSelectorTermMatches(t, node)) return true;
    return false;
  };
}

/** true when the object has at least one own key (without allocating a key array) */
export function hasAnyKey(o: object | undefined): boolean {
  if (!o) return false;
  for (const k in o) if (Object.hasOwn(o, k)) return true;
  return false;
}

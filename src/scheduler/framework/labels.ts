/**
 * Object-level matching helpers used by the cross-pod plugins (PodTopologySpread, InterPodAffinity,
 * DefaultPreemption): a pod's required node affinity (nodeSelector + requiredDuringScheduling terms, as component-helpers' nodeaffinity
 * package).
 *
 * The node-local filter plugins do not use these: they run over the NodeTable's columns in the
 * engine's kernels. PodTopologySpread needs node affinity and taints only to decide which nodes
 * count as spreading domains (nodeAffinityPolicy / nodeTaintsPolicy).
 */
import type { Labels, Node, NodeSelectorRequirement, NodeSelectorTerm, Pod } from '../../api/types.js';

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

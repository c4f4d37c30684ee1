/**
 * Required node affinity on Node objects: does a pod's nodeSelector and
 * requiredDuringSchedulingIgnoredDuringExecution admit a node? Used where whole objects are at hand
 * (PodTopologySpread's nodeAffinityPolicy, the stand-in scheduler); the scheduler's NodeAffinity
 * filter runs the same rule compiled over the NodeTable's columns (src/scheduler/engine/affinity.ts).
 *
 * upstream: staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity (GetRequiredNodeAffinity,
 * LazyErrorNodeSelector) and pkg/apis/core/v1/helper (MatchNodeSelectorTerms):
 *   - nodeSelector AND (any term); terms are ORed, a term's expressions and fields ANDed;
 *   - a term with neither expressions nor fields matches nothing;
 *   - matchFields supports metadata.name only;
 *   - Gt/Lt take exactly one integer value and compare integer label values (strconv.ParseInt);
 *     a requirement that cannot be parsed never matches.
 */
import { parseInt64 } from './label-selector.js';
import type { Node, NodeSelectorRequirement, NodeSelectorTerm, Pod } from './types.js';

/** One NodeSelectorRequirement against a label (or field) value; undefined = absent. */
function requirementMatches(req: NodeSelectorRequirement, value: string | undefined): boolean {
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
      const a = parseInt64(value!);
      const b = parseInt64(values[0]!);
      if (a === undefined || b === undefined) return false;
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
    if (!requirementMatches(r, Object.hasOwn(labels, r.key) ? labels[r.key] : undefined)) return false;
  }
  for (const r of fields) {
    if (r.key !== 'metadata.name') return false;
    if (!requirementMatches(r, node.metadata.name)) return false;
  }
  return true;
}

/** MatchNodeSelectorTerms: any of the terms admits the node. */
export function nodeSelectorTermsMatch(terms: readonly NodeSelectorTerm[], node: Node): boolean {
  for (const t of terms) if (nodeSelectorTermMatches(t, node)) return true;
  return false;
}

/** GetRequiredNodeAffinity(pod).Match(node) */
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
      for (let i = 0; i < keys.length; i++) if (labels[keys[i]!] !== values[i]) return false;
    }
    return terms === undefined || nodeSelectorTermsMatch(terms, node);
  };
}

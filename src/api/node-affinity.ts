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
 *   - a term with a requirement that does not parse (labels.NewRequirement: bad key, a value that is
 *     no valid label value, a Gt/Lt bound that is no integer, …) is dropped: it matches nothing,
 *     while the other terms still count (LazyErrorNodeSelector). The apiserver checks operators and
 *     value counts but not value syntax, so `NotIn: ["a b"]` reaches the scheduler.
 */
import { type FieldError, FieldPath, invalidValue, notSupported } from './field.js';
import { parseInt64 } from './label-selector.js';
import type { Node, NodeSelectorRequirement, NodeSelectorTerm, Pod } from './types.js';
import { isQualifiedName, isValidLabelValue } from './validation-names.js';

const LABEL_OPS = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'];
const FIELD_OPS = ['In', 'NotIn'];

/**
 * Why a NodeSelectorRequirement cannot be parsed, as upstream's nodeSelectorRequirementsAsSelector
 * (labels.NewRequirement: operator, key syntax, value count, integer Gt/Lt bounds, label value
 * syntax) or nodeSelectorRequirementsAsFieldSelector (In/NotIn with exactly one value) words it,
 * each error under `path` (the requirement's field path; relative when empty). Empty when it parses. The apiserver does
 * not check value syntax, so such pods exist; the scheduler drops a term with an error (it matches
 * nothing) and fails a preferred term.
 */
export function nodeSelectorRequirementErrors(
  req: NodeSelectorRequirement,
  fields: boolean,
  path = '',
): string[] {
  const values = req.values ?? [];
  const at = new FieldPath(path);
  const errs: FieldError[] = [];
  if (fields) {
    if (!FIELD_OPS.includes(req.operator))
      errs.push(notSupported(at.child('operator').path, req.operator, FIELD_OPS));
    else if (values.length !== 1)
      errs.push(invalidValue(at.child('values').path, values, 'must have one element'));
    return errs.map(String);
  }
  if (!LABEL_OPS.includes(req.operator))
    return [notSupported(at.child('operator').path, req.operator, LABEL_OPS).toString()];
  const keyErrs = isQualifiedName(req.key);
  if (keyErrs.length) errs.push(invalidValue(at.child('key').path, req.key, keyErrs.join('; ')));
  const vp = at.child('values');
  switch (req.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0)
        errs.push(invalidValue(vp.path, values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0)
        errs.push(invalidValue(vp.path, values, 'values set must be empty for exists and does not exist'));
      break;
    default:
      if (values.length !== 1)
        errs.push(invalidValue(vp.path, values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined)
          errs.push(
            invalidValue(vp.index(i).path, v, "for 'Gt', 'Lt' operators, the value must be an integer"),
          );
      });
  }
  values.forEach((v, i) => {
    const e = isValidLabelValue(v);
    if (e.length) errs.push(invalidValue(vp.index(i).path, v, e.join('; ')));
  });
  return errs.map(String);
}

/** The parse errors of a whole term (its matchExpressions, then its matchFields). */
export function nodeSelectorTermErrors(term: NodeSelectorTerm, path: string): string[] {
  const out: string[] = [];
  (term.matchExpressions ?? []).forEach((r, i) =>
    out.push(...nodeSelectorRequirementErrors(r, false, `${path}.matchExpressions[${i}]`)),
  );
  (term.matchFields ?? []).forEach((r, i) =>
    out.push(...nodeSelectorRequirementErrors(r, true, `${path}.matchFields[${i}]`)),
  );
  return out;
}

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

/**
 * One NodeSelectorTerm: its expressions and fields are ANDed; an empty term, or one that does not
 * parse ({@link nodeSelectorTermErrors}), matches nothing.
 */
export function nodeSelectorTermMatches(term: NodeSelectorTerm, node: Node): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  if (nodeSelectorTermErrors(term, '').length > 0) return false;
  return parsedTermMatches(term, node);
}

/** a term known to parse */
function parsedTermMatches(term: NodeSelectorTerm, node: Node): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  const labels = node.metadata.labels ?? {};
  for (const r of exprs) {
    if (!requirementMatches(r, Object.hasOwn(labels, r.key) ? labels[r.key] : undefined)) return false;
  }
  // fields.Set of a node holds metadata.name only; any other field reads as "" (fields.Set.Get)
  for (const r of fields)
    if (!requirementMatches(r, r.key === 'metadata.name' ? node.metadata.name : '')) return false;
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

/** The nodes' values of one label key: `ids[j]` indexes `values` for node j, −1 when it lacks the key. */
export interface LabelValueIds {
  readonly ids: Int32Array;
  readonly values: readonly string[];
}

/** the terms GetRequiredNodeAffinity keeps: empty terms and terms that do not parse select nothing */
function requiredTerms(pod: Pod): NodeSelectorTerm[] | undefined {
  const all =
    pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  return all?.filter(
    (t) =>
      ((t.matchExpressions?.length ?? 0) > 0 || (t.matchFields?.length ?? 0) > 0) &&
      nodeSelectorTermErrors(t, '').length === 0,
  );
}

/**
 * {@link requiredNodeAffinityMatches} for `n` nodes at once, 1 per node that matches: every label
 * requirement is decided once per distinct value of its key (`valuesOf`, the nodes' value ids) and
 * then read per node, instead of matching each node's labels. Undefined when a term has
 * matchFields (they read the node's name: match node by node then).
 */
export function requiredNodeAffinityMask(
  pod: Pod,
  n: number,
  valuesOf: (key: string) => LabelValueIds,
): Uint8Array | undefined {
  const terms = requiredTerms(pod);
  if (terms?.some((t) => (t.matchFields?.length ?? 0) > 0)) return undefined;
  const mask = new Uint8Array(n).fill(1);
  const sel = pod.spec.nodeSelector;
  if (sel)
    for (const k of Object.keys(sel)) {
      const { ids, values } = valuesOf(k);
      const want = values.indexOf(sel[k]);
      for (let j = 0; j < n; j++) if (want < 0 || ids[j] !== want) mask[j] = 0;
    }
  if (terms === undefined) return mask;
  const any = new Uint8Array(n);
  const term = new Uint8Array(n);
  for (const t of terms) {
    term.fill(1);
    for (const r of t.matchExpressions ?? []) {
      const { ids, values } = valuesOf(r.key);
      const verdict = values.map((v) => requirementMatches(r, v));
      const absent = requirementMatches(r, undefined);
      for (let j = 0; j < n; j++) if (!(ids[j] < 0 ? absent : verdict[ids[j]])) term[j] = 0;
    }
    for (let j = 0; j < n; j++) any[j] |= term[j];
  }
  for (let j = 0; j < n; j++) mask[j] &= any[j];
  return mask;
}

/** {@link requiredNodeAffinityMatches} prepared once per pod (per-node calls allocate nothing). */
export function compileRequiredNodeAffinity(pod: Pod): (node: Node) => boolean {
  const sel = pod.spec.nodeSelector;
  const keys = sel ? Object.keys(sel) : [];
  const values = keys.map((k) => sel![k]);
  // parsed once: empty terms and terms that do not parse select nothing and are left out
  const terms = requiredTerms(pod);
  if (keys.length === 0 && terms === undefined) return () => true;
  return (node: Node) => {
    if (keys.length) {
      const labels = node.metadata.labels;
      if (!labels) return false;
      for (let i = 0; i < keys.length; i++) if (labels[keys[i]!] !== values[i]) return false;
    }
    if (terms === undefined) return true;
    for (const t of terms) if (parsedTermMatches(t, node)) return true;
    return false;
  };
}

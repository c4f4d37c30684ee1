/**
 * NodeAffinity for the kernels: a pod's nodeSelector and node affinity compiled into expressions
 * over the NodeTable's interned label value ids (layout.ts OP_*), following component-helpers'
 * scheduling/corev1/nodeaffinity (nodeSelectorRequirementsAsSelector, LazyErrorNodeSelector,
 * PreferredSchedulingTerms).
 */
import { parseInt64 } from '../../api/label-selector.js';
import { nodeSelectorRequirementErrors } from '../../api/node-affinity.js';
import type { NodeSelectorRequirement, NodeSelectorTerm, Pod } from '../../api/types.js';
import * as L from './layout.js';
import type { NodeTable } from './table.js';

/** A pod spec the engine cannot compile (e.g. an invalid preferred node affinity term), naming the field. */
export class PodQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PodQueryError';
  }
}

/** One compiled requirement. */
export interface Expr {
  op: number;
  key: number;
  /** OP_EQ/NE: value id + 1; NAME ops: node slot */
  arg: number;
  /** OP_IN/NOT_IN: the value ids (bit v + 1 of the query's bitset) */
  set?: number[];
}

/** A preferred term: its expressions (all must hold) and weight. */
export interface PrefTerm {
  exprs: Expr[];
  weight: number;
}

/** A pod's node affinity in compiled form. */
export interface CompiledAffinity {
  /** QF_SELECTOR_NEVER and QF_HAS_REQUIRED as they apply */
  flags: number;
  /** nodeSelector entries (all must hold); undefined without a nodeSelector */
  sel?: Expr[];
  /** required nodeSelectorTerms (OR), each a conjunction; undefined without required affinity */
  terms?: Expr[][];
  prefs?: PrefTerm[];
  /** required terms skipped because they failed to parse (upstream ignores them lazily) */
  errors: string[];
}

const TRUE: Expr = { op: L.OP_TRUE, key: 0, arg: 0 };
const FALSE: Expr = { op: L.OP_FALSE, key: 0, arg: 0 };
const NO_ERRORS: string[] = [];

/** where a requirement sits, for error messages: built only when one is thrown */
type Where = () => string;

/** throws PodQueryError with upstream's parse error of a requirement (one home: api/node-affinity.ts) */
function checkRequirement(r: NodeSelectorRequirement, fields: boolean, where: Where): void {
  const errs = nodeSelectorRequirementErrors(r, fields);
  if (errs.length > 0) throw new PodQueryError(`${where()}.${errs.join(', ')}`);
}

function labelExpr(table: NodeTable, r: NodeSelectorRequirement, where: Where): Expr {
  checkRequirement(r, false, where);
  const values = r.values ?? [];
  const k = table.labelKeys.get(r.key);
  if (k < 0) {
    // no node has the key
    return r.operator === 'DoesNotExist' || r.operator === 'NotIn' ? TRUE : FALSE;
  }
  const dict = table.labelValues[k];
  switch (r.operator) {
    case 'Exists':
      return { op: L.OP_EXISTS, key: k, arg: 0 };
    case 'DoesNotExist':
      return { op: L.OP_NOT_EXISTS, key: k, arg: 0 };
    case 'In':
    case 'NotIn': {
      const ids: number[] = [];
      for (const v of values) {
        const id = dict.get(v);
        if (id >= 0 && !ids.includes(id)) ids.push(id);
      }
      const neg = r.operator === 'NotIn';
      if (ids.length === 0) return neg ? TRUE : FALSE;
      if (ids.length === 1) return { op: neg ? L.OP_NE : L.OP_EQ, key: k, arg: ids[0] + 1 };
      return { op: neg ? L.OP_NOT_IN : L.OP_IN, key: k, arg: 0, set: ids };
    }
    default: {
      // Gt / Lt: the label must exist and parse as int64; precompute which interned values satisfy it
      const bound = parseInt64(values[0])!;
      const ids: number[] = [];
      for (let v = 0; v < dict.size; v++) {
        const n = parseInt64(dict.value(v));
        if (n === undefined) continue;
        if (r.operator === 'Gt' ? n > bound : n < bound) ids.push(v);
      }
      if (ids.length === 0) return FALSE;
      return { op: L.OP_IN, key: k, arg: 0, set: ids };
    }
  }
}

function fieldExpr(table: NodeTable, r: NodeSelectorRequirement, where: Where): Expr {
  checkRequirement(r, true, where);
  const values = r.values!;
  const neg = r.operator === 'NotIn';
  if (r.key !== 'metadata.name') {
    // a node's only field is metadata.name; any other field reads as ""
    return (values[0] === '') !== neg ? TRUE : FALSE;
  }
  const slot = table.nodeIndex(values[0]);
  if (slot < 0) return neg ? TRUE : FALSE;
  return { op: neg ? L.OP_NAME_NE : L.OP_NAME_EQ, key: 0, arg: slot };
}

function isEmptyTerm(t: NodeSelectorTerm | undefined): boolean {
  return !t || ((t.matchExpressions?.length ?? 0) === 0 && (t.matchFields?.length ?? 0) === 0);
}

/** null when the term can never match; throws PodQueryError on invalid requirements */
function compileTerm(table: NodeTable, t: NodeSelectorTerm, where: Where): Expr[] | null {
  const out: Expr[] = [];
  let ok = true;
  // every requirement is validated even after one can never match (its error must still surface)
  const exprs = t.matchExpressions ?? [];
  for (let i = 0; i < exprs.length; i++) {
    const e = labelExpr(table, exprs[i], () => `${where()}.matchExpressions[${i}]`);
    if (e.op === L.OP_FALSE) ok = false;
    else if (e.op !== L.OP_TRUE) out.push(e);
  }
  const fields = t.matchFields ?? [];
  for (let i = 0; i < fields.length; i++) {
    const e = fieldExpr(table, fields[i], () => `${where()}.matchFields[${i}]`);
    if (e.op === L.OP_FALSE) ok = false;
    else if (e.op !== L.OP_TRUE) out.push(e);
  }
  return ok ? out : null;
}

/** nodeSelector entries as OP_EQ expressions; QF_SELECTOR_NEVER when a pair exists on no node */
function compileNodeSelector(table: NodeTable, nodeSelector: Record<string, string>, into: CompiledAffinity) {
  const sel: Expr[] = [];
  for (const [k, v] of Object.entries(nodeSelector)) {
    const ki = table.labelKeys.get(k);
    const vi = ki >= 0 ? table.labelValues[ki].get(v) : -1;
    if (vi < 0) into.flags |= L.QF_SELECTOR_NEVER;
    else sel.push({ op: L.OP_EQ, key: ki, arg: vi + 1 });
  }
  into.sel = sel;
}

/**
 * The pod's nodeSelector AND (OR of required terms), and its preferred terms. A required term that
 * fails to parse is skipped and its error kept (upstream LazyErrorNodeSelector); an invalid
 * preferred term throws, as upstream's PreScore fails.
 * @throws PodQueryError for an invalid preferred term
 */
export function compileNodeAffinity(table: NodeTable, pod: Pod): CompiledAffinity {
  const spec = pod.spec;
  const out: CompiledAffinity = { flags: 0, errors: NO_ERRORS };
  if (spec?.nodeSelector) compileNodeSelector(table, spec.nodeSelector, out);
  const nodeAffinity = spec?.affinity?.nodeAffinity;
  if (!nodeAffinity) return out;
  const name = () => `pod ${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? '?'}`;
  const required = nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
  if (required) {
    out.flags |= L.QF_HAS_REQUIRED;
    const terms: Expr[][] = [];
    (required.nodeSelectorTerms ?? []).forEach((t, i) => {
      if (isEmptyTerm(t)) return; // an empty term selects no objects
      const where = () =>
        `${name()}: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[${i}]`;
      try {
        const c = compileTerm(table, t, where);
        if (c) terms.push(c);
      } catch (e) {
        if (!(e instanceof PodQueryError)) throw e;
        if (out.errors === NO_ERRORS) out.errors = [];
        out.errors.push(e.message);
      }
    });
    out.terms = terms;
  }
  const prefs: PrefTerm[] = [];
  (nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((p, i) => {
    if (!p.weight || isEmptyTerm(p.preference)) return;
    const c = compileTerm(
      table,
      p.preference,
      () =>
        `${name()}: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[${i}].preference`,
    );
    if (c) prefs.push({ exprs: c, weight: p.weight });
  });
  out.prefs = prefs;
  return out;
}

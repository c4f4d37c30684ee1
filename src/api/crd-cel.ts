/**
 * CRD validation rules: the `x-kubernetes-validations` CEL rules of a custom resource's structural
 * schema, evaluated on create and update (upstream: apiextensions-apiserver/pkg/apiserver/schema/
 * cel/validation.go, Validator.validate and validateExpressions), over the maintained CEL evaluator
 * the DRA selectors use (@marcbachmann/cel-js, pinned).
 *
 *  - `self` is the value at the rule's place in the schema (at the root: apiVersion, kind,
 *    metadata.name/generateName and the schema's fields); integers of the schema are CEL ints,
 *    `number` fields doubles; absent fields are absent (`has(self.x)`, `no such key: x`);
 *  - transition rules (they name `oldSelf`) run on updates only, where the old value can be
 *    correlated: object fields by name, items of `x-kubernetes-list-type: map` lists by their keys,
 *    never items of other lists; `optionalOldSelf: true` runs them on creates too, `oldSelf` then an
 *    optional (`oldSelf.hasValue()`, `oldSelf.orValue(…)`);
 *  - a failed rule is `<path>[<fieldPath>]: Invalid value: "<schema type>": <message>`, the message
 *    being messageExpression's result, else `message`, else `failed rule: <rule>`; `reason` picks
 *    Forbidden / Required / Duplicate instead of Invalid; an evaluation error is
 *    `<error> evaluating rule: <rule>`;
 *  - ratcheting (CRDValidationRatcheting, on since v1.30): a rule without oldSelf that fails on a
 *    value equal to its old value is a warning, not an error.
 * Libraries: CEL's standard functions and macros, optional types, Kubernetes' quantity and semver
 * (from api/resource-cel.ts), lists (isSorted, sum, min, max, indexOf, lastIndexOf) and regex
 * (find, findAll).
 * Not modelled: the cost budget (no rule is refused as too expensive), rule compilation when the
 * CRD is written (a rule that does not compile fails each custom resource instead, `rule compile
 * error: …`), `allOf` rules, `format` types (date-time and duration strings stay strings), and the
 * URL, IP/CIDR, format and strings libraries beyond CEL's own string functions.
 */
import { Environment, Optional } from '@marcbachmann/cel-js';
import { duplicate, type FieldError, forbiddenField, invalidValue, required } from './field.js';
import { withQuantityAndSemver } from './resource-cel.js';

// biome-ignore lint/suspicious/noExplicitAny: schemas and bodies are arbitrary JSON
type Obj = any;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Rule {
  rule?: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

interface Compiled {
  program?: (ctx: Record<string, unknown>) => unknown;
  error?: string;
  usesOldSelf: boolean;
}

const cmp = (a: unknown, b: unknown): number => (a! < b! ? -1 : a! > b! ? 1 : 0);

function buildEnvironment(): Environment {
  return (
    withQuantityAndSemver(new Environment({ enableOptionalTypes: true }))
      .registerVariable('self', 'dyn')
      .registerVariable('oldSelf', 'dyn')
      // library.Lists (k8s.io/apiserver/pkg/cel/library/lists.go)
      .registerFunction('list.isSorted(): bool', (l: unknown[]) =>
        l.every((x, i) => i === 0 || cmp(l[i - 1], x) <= 0),
      )
      .registerFunction('list.sum(): dyn', (l: unknown[]) =>
        l.reduce((a: Obj, x: Obj) => a + x, typeof l[0] === 'bigint' ? 0n : 0),
      )
      .registerFunction('list.min(): dyn', (l: unknown[]) => {
        if (l.length === 0) throw new Error('min called on empty list');
        return l.reduce((a, x) => (cmp(x, a) < 0 ? x : a));
      })
      .registerFunction('list.max(): dyn', (l: unknown[]) => {
        if (l.length === 0) throw new Error('max called on empty list');
        return l.reduce((a, x) => (cmp(x, a) > 0 ? x : a));
      })
      .registerFunction('list.indexOf(dyn): int', (l: unknown[], x: unknown) => BigInt(l.indexOf(x)))
      .registerFunction('list.lastIndexOf(dyn): int', (l: unknown[], x: unknown) => BigInt(l.lastIndexOf(x)))
      // library.Regex (regex.go): RE2 written as JavaScript regular expressions
      .registerFunction(
        'string.find(string): string',
        (s: string, re: string) => new RegExp(re, 'u').exec(s)?.[0] ?? '',
      )
      .registerFunction('string.findAll(string): list<string>', (s: string, re: string) =>
        [...s.matchAll(new RegExp(re, 'gu'))].map((m) => m[0]),
      )
      .registerFunction('string.findAll(string, int): list<string>', (s: string, re: string, n: bigint) => {
        const all = [...s.matchAll(new RegExp(re, 'gu'))].map((m) => m[0]);
        return n < 0n ? all : all.slice(0, Number(n));
      })
  );
}

let environment: Environment | undefined;
const env = (): Environment => (environment ??= buildEnvironment());

/** compiled rules and message expressions, by source (CEL is pure: one compile serves every object) */
const cache = new Map<string, Compiled>();
const CACHE_SIZE = 4096;

/** cel-go's wording starts lower case (`no such key: x`) */
const celMessage = (e: unknown): string => {
  const m = ((e as Error).message ?? String(e)).split('\n')[0]!.trim();
  return m.charAt(0).toLowerCase() + m.slice(1);
};

function compile(source: string): Compiled {
  let c = cache.get(source);
  if (c) return c;
  c = { usesOldSelf: /\boldSelf\b/.test(source) };
  try {
    const program = env().parse(source);
    const t = program.check();
    if (t.valid) c.program = program;
    else c.error = `compilation failed: ${celMessage(t.error ?? 'type check failed')}`;
  } catch (e) {
    c.error = `compilation failed: ${celMessage(e)}`;
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(source, c);
  return c;
}

/** a JSON value as CEL sees it under `schema` (upstream UnstructuredToVal): integers as ints */
function celValue(v: unknown, s: Obj): unknown {
  if (typeof v === 'number') {
    const t = isObj(s) ? s.type : undefined;
    return t !== 'number' && Number.isInteger(v) ? BigInt(v) : v;
  }
  if (Array.isArray(v)) return v.map((x) => celValue(x, isObj(s) ? s.items : undefined));
  if (isObj(v)) {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) {
      const child =
        isObj(s?.properties) && Object.hasOwn(s.properties, k) ? s.properties[k] : s?.additionalProperties;
      out[k] = celValue(x, child);
    }
    return out;
  }
  return v;
}

/** `self` at the resource root: the schema's fields plus apiVersion, kind and metadata.name/generateName */
function rootValue(obj: Obj, s: Obj): unknown {
  const v = celValue(obj, s) as Obj;
  const m = obj.metadata ?? {};
  v.metadata = {
    ...(m.name !== undefined && { name: m.name }),
    ...(m.generateName !== undefined && { generateName: m.generateName }),
  };
  return v;
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a),
    kb = Object.keys(b);
  return (
    ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && equal((a as Obj)[k], (b as Obj)[k]))
  );
}

/** a rule's fieldPath (`.spec.x`, `['a.b']`) appended to the error's path */
function withFieldPath(path: string, fieldPath: string | undefined): string {
  if (!fieldPath) return path;
  const rel = fieldPath.replace(/\['([^']*)'\]/g, '.$1').replace(/^\./, '');
  return path ? `${path}.${rel}` : rel;
}

function ruleErrorString(r: Rule): string {
  return r.message?.trim() ? r.message.trim() : (r.rule ?? '').trim();
}

function failure(r: Rule, at: string, type: string, detail: string): FieldError {
  // the root's path is a nil field.Path, printed "<nil>"
  const path = at || '<nil>';
  switch (r.reason) {
    case 'FieldValueForbidden':
      return forbiddenField(path, detail);
    case 'FieldValueRequired':
      return required(path, detail);
    case 'FieldValueDuplicate':
      return duplicate(path, type);
    default:
      return invalidValue(path, type, detail);
  }
}

interface Out {
  errors: FieldError[];
  warnings: string[];
}

/** one place of the walk: its schema, value, correlated old value and error path */
interface At {
  s: Obj;
  value: unknown;
  old: unknown;
  path: string;
  root: boolean;
  /** the value (or, uncorrelated, its nearest correlated ancestor) equals its old value: ratchet */
  unchanged: boolean;
}

function evaluate({ s, value, old, path, root, unchanged }: At, out: Out): void {
  const rules: Rule[] = Array.isArray(s['x-kubernetes-validations']) ? s['x-kubernetes-validations'] : [];
  if (rules.length === 0) return;
  const type = typeof s.type === 'string' ? s.type : 'object';
  const self = root ? rootValue(value, s) : celValue(value, s);
  const oldSelf = old === undefined ? undefined : root ? rootValue(old, s) : celValue(old, s);
  for (const r of rules) {
    if (typeof r?.rule !== 'string' || !r.rule.trim()) continue;
    const c = compile(r.rule);
    if (c.error) {
      out.errors.push(invalidValue(path || '<nil>', type, `rule compile error: ${c.error}`));
      continue;
    }
    const optional = r.optionalOldSelf === true;
    if (c.usesOldSelf && old === undefined && !optional) continue;
    const ctx: Record<string, unknown> = { self };
    if (c.usesOldSelf) ctx.oldSelf = optional ? optionalOf(oldSelf) : oldSelf;
    let result: unknown;
    try {
      result = c.program!(ctx);
    } catch (e) {
      out.errors.push(
        invalidValue(path || '<nil>', type, `${celMessage(e)} evaluating rule: ${ruleErrorString(r)}`),
      );
      continue;
    }
    if (result === true) continue;
    let detail: string | undefined;
    if (r.messageExpression) {
      const m = compile(r.messageExpression);
      try {
        const msg = m.program?.(ctx);
        if (typeof msg === 'string' && msg.trim() && !msg.trim().includes('\n')) detail = msg.trim();
      } catch {
        // upstream logs a failed messageExpression and falls back to the message
      }
    }
    detail ??= r.message?.trim() ? r.message.trim() : `failed rule: ${ruleErrorString(r)}`;
    const err = failure(r, withFieldPath(path, r.fieldPath), type, detail);
    if (!c.usesOldSelf && unchanged) out.warnings.push(err.toString());
    else out.errors.push(err);
  }
}

/** oldSelf of an optionalOldSelf rule: an optional, empty on create */
const optionalOf = (v: unknown): unknown => (v === undefined ? Optional.none() : Optional.of(v));

function walk(at: At, out: Out): void {
  const { s, value, old, path, root, unchanged } = at;
  if (!isObj(s) || value === undefined || value === null) return;
  evaluate(at, out);
  if (Array.isArray(value)) {
    if (!isObj(s.items)) return;
    const keys: string[] | undefined =
      s['x-kubernetes-list-type'] === 'map' && Array.isArray(s['x-kubernetes-list-map-keys'])
        ? s['x-kubernetes-list-map-keys']
        : undefined;
    const olds = Array.isArray(old) ? old : [];
    value.forEach((x, i) => {
      const o =
        keys && isObj(x) ? olds.find((y) => isObj(y) && keys.every((k) => equal(y[k], x[k]))) : undefined;
      const same = o === undefined ? unchanged : equal(x, o);
      walk({ s: s.items, value: x, old: o, path: `${path}[${i}]`, root: false, unchanged: same }, out);
    });
    return;
  }
  if (!isObj(value)) return;
  const mapType = s['x-kubernetes-map-type'];
  const correlatable = mapType === undefined || mapType === 'granular' || mapType === 'atomic';
  for (const [k, x] of Object.entries(value)) {
    if (root && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
    const child =
      isObj(s.properties) && Object.hasOwn(s.properties, k) ? s.properties[k] : s.additionalProperties;
    if (!isObj(child)) continue;
    const o = correlatable && isObj(old) ? old[k] : undefined;
    const p =
      isObj(s.properties) && Object.hasOwn(s.properties, k) ? (path ? `${path}.${k}` : k) : `${path}[${k}]`;
    walk(
      {
        s: child,
        value: x,
        old: o,
        path: p,
        root: false,
        unchanged: o === undefined ? unchanged : equal(x, o),
      },
      out,
    );
  }
}

/** true when some schema node below `s` has x-kubernetes-validations */
export function hasValidationRules(s: Obj): boolean {
  if (!isObj(s)) return false;
  if (Array.isArray(s['x-kubernetes-validations']) && s['x-kubernetes-validations'].length > 0) return true;
  if (hasValidationRules(s.items) || hasValidationRules(s.additionalProperties)) return true;
  return isObj(s.properties) && Object.values(s.properties).some(hasValidationRules);
}

/**
 * Evaluate every validation rule of `schema` on `obj` (a create when `old` is undefined): the
 * failed rules, and the failures ratcheted to warnings because their value did not change.
 */
export function validateRules(obj: Obj, schema: Obj, old?: Obj): Out {
  const out: Out = { errors: [], warnings: [] };
  walk(
    { s: schema, value: obj, old, path: '', root: true, unchanged: old !== undefined && equal(obj, old) },
    out,
  );
  return out;
}

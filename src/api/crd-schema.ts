/**
 * Custom resources read against their CRD version's structural schema (`schema.openAPIV3Schema`),
 * in the order apiextensions-apiserver applies it on create and update (upstream:
 * apiextensions-apiserver/pkg/apiserver/schema/{pruning,defaulting} and
 * pkg/apiserver/validation):
 *
 *  1. pruning: fields the schema does not declare are removed (not below
 *     `x-kubernetes-preserve-unknown-fields: true`; `apiVersion`, `kind` and `metadata` at the
 *     root are kept) and returned as `unknown field "spec.foo"` for warnings or Strict;
 *  2. defaulting: `default` values for absent fields of objects that are present;
 *  3. validation: type, `nullable`, `required`, `enum`, `minimum`/`maximum` (+ exclusive),
 *     `minLength`/`maxLength`, `pattern`, `minItems`/`maxItems`, `uniqueItems`,
 *     `minProperties`/`maxProperties`, `x-kubernetes-int-or-string`, with the messages of
 *     kube-openapi's validator (`spec.size in body must be of type integer: "string"`).
 *
 *  4. `x-kubernetes-validations` CEL rules (crd-cel.ts), unless step 3 found a type, enum,
 *     required or size error (then one `<nil>` error says the rules were not checked).
 *
 * Not modelled: `format` checks, and `allOf`/`anyOf`/`oneOf`/`not` (read but not enforced).
 */
import { type FieldError, invalidValue, notSupported, required, tooLong, tooMany } from './field.js';
import { hasValidationRules, validateRules } from './crd-cel.js';

// biome-ignore lint/suspicious/noExplicitAny: schemas and bodies are arbitrary JSON
type Obj = any;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const jsonType = (v: unknown): string =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'array'
      : typeof v === 'number'
        ? Number.isInteger(v)
          ? 'integer'
          : 'number'
        : typeof v;

function prune(v: unknown, s: Obj, path: string, unknown: string[], root: boolean): void {
  if (!isObj(s)) return;
  if (Array.isArray(v)) {
    v.forEach((x, i) => prune(x, s.items, `${path}[${i}]`, unknown, false));
    return;
  }
  if (
    !isObj(v) ||
    (s['x-kubernetes-preserve-unknown-fields'] === true && !s.properties && !s.additionalProperties)
  )
    return;
  const props = isObj(s.properties) ? s.properties : undefined;
  const extra = s.additionalProperties;
  for (const k of Object.keys(v)) {
    const p = path ? `${path}.${k}` : k;
    // the root and x-kubernetes-embedded-resource objects keep apiVersion, kind and metadata
    if (
      (root || s['x-kubernetes-embedded-resource'] === true) &&
      (k === 'apiVersion' || k === 'kind' || k === 'metadata')
    )
      continue;
    const child = props && Object.hasOwn(props, k) ? props[k] : isObj(extra) ? extra : undefined;
    if (child) prune(v[k], child, p, unknown, false);
    else if (extra === true || s['x-kubernetes-preserve-unknown-fields'] === true) continue;
    else {
      unknown.push(p);
      delete v[k];
    }
  }
}

function applyDefaults(v: unknown, s: Obj): void {
  if (!isObj(s)) return;
  if (Array.isArray(v)) {
    for (const x of v) applyDefaults(x, s.items);
    return;
  }
  if (!isObj(v)) return;
  if (isObj(s.properties))
    for (const [k, ps] of Object.entries<Obj>(s.properties)) {
      if (v[k] === undefined && isObj(ps) && ps.default !== undefined) v[k] = structuredClone(ps.default);
      if (v[k] !== undefined) applyDefaults(v[k], ps);
    }
  if (isObj(s.additionalProperties))
    for (const k of Object.keys(v)) applyDefaults(v[k], s.additionalProperties);
}

function typeOk(v: unknown, s: Obj): boolean {
  if (v === null) return s.nullable === true;
  if (s['x-kubernetes-int-or-string']) return typeof v === 'string' || Number.isInteger(v);
  const t = jsonType(v);
  switch (s.type) {
    case undefined:
      return true;
    case 'number':
      return t === 'number' || t === 'integer';
    default:
      return t === s.type;
  }
}

/**
 * the errors that stop CEL rules from running (upstream strategy.go hasBlockingErr: type, enum,
 * required, maxLength, maxItems and maxProperties violations — the object lacks the shape the
 * rules were written for)
 */
const BLOCKING = new WeakSet<FieldError>();
const block = (e: FieldError): FieldError => {
  BLOCKING.add(e);
  return e;
};

function validate(v: Obj, s: Obj, path: string, out: FieldError[]): void {
  if (!isObj(s)) return;
  if (!typeOk(v, s)) {
    out.push(
      block(
        invalidValue(
          path,
          jsonType(v),
          `${path} in body must be of type ${s.type ?? 'integer or string'}: ${JSON.stringify(jsonType(v))}`,
        ),
      ),
    );
    return;
  }
  if (v === null) return;
  if (Array.isArray(s.enum) && !s.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(v)))
    out.push(
      block(
        notSupported(
          path,
          v,
          s.enum.map((e: unknown) => (typeof e === 'string' ? e : JSON.stringify(e))),
        ),
      ),
    );
  if (typeof v === 'number') {
    if (typeof s.minimum === 'number' && (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum))
      out.push(
        invalidValue(
          path,
          v,
          `${path} in body should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${s.minimum}`,
        ),
      );
    if (typeof s.maximum === 'number' && (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum))
      out.push(
        invalidValue(
          path,
          v,
          `${path} in body should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${s.maximum}`,
        ),
      );
  }
  if (typeof v === 'string') {
    const n = [...v].length;
    if (typeof s.minLength === 'number' && n < s.minLength)
      out.push(invalidValue(path, v, `${path} in body should be at least ${s.minLength} chars long`));
    if (typeof s.maxLength === 'number' && n > s.maxLength) out.push(block(tooLong(path, s.maxLength)));
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(v))
      out.push(invalidValue(path, v, `${path} in body should match '${s.pattern}'`));
  }
  if (Array.isArray(v)) {
    if (typeof s.minItems === 'number' && v.length < s.minItems)
      out.push(invalidValue(path, v.length, `${path} in body should have at least ${s.minItems} items`));
    if (typeof s.maxItems === 'number' && v.length > s.maxItems)
      out.push(block(tooMany(path, v.length, s.maxItems)));
    if (s.uniqueItems && new Set(v.map((x) => JSON.stringify(x))).size !== v.length)
      out.push(invalidValue(path, v, `${path} in body shouldn't contain duplicates`));
    v.forEach((x, i) => validate(x, s.items, `${path}[${i}]`, out));
    return;
  }
  if (isObj(v)) {
    const n = Object.keys(v).length;
    if (typeof s.minProperties === 'number' && n < s.minProperties)
      out.push(invalidValue(path, n, `${path} in body should have at least ${s.minProperties} properties`));
    if (typeof s.maxProperties === 'number' && n > s.maxProperties)
      // kube-openapi's TooManyProperties carries the maximum as its value and no limit, so
      // apiextensions' kubeOpenAPIResultToFieldErrors prints TooMany(path, max, -1)
      out.push(block(tooMany(path, s.maxProperties, -1)));
    for (const r of Array.isArray(s.required) ? s.required : [])
      if (v[r] === undefined) out.push(block(required(path ? `${path}.${r}` : r)));
    for (const k of Object.keys(v)) {
      if (!path && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
      const child =
        isObj(s.properties) && Object.hasOwn(s.properties, k) ? s.properties[k] : s.additionalProperties;
      validate(v[k], child, path ? `${path}.${k}` : k, out);
    }
  }
}

/**
 * Prune, default and validate a custom resource in place against its version's schema, then run
 * its x-kubernetes-validations rules (crd-cel.ts; `old`: the stored object, on updates): returns
 * the pruned fields (`unknown field "spec.foo"`), the validation errors and the warnings of
 * ratcheted rules; `pruned` holds the pruned fields' paths alone.
 */
export function checkCustomResource(
  obj: Obj,
  schema: Obj,
  old?: Obj,
): { unknown: string[]; pruned: string[]; errors: FieldError[]; warnings: string[] } {
  const unknown: string[] = [];
  const errors: FieldError[] = [];
  let warnings: string[] = [];
  if (!isObj(schema)) return { unknown, pruned: unknown, errors, warnings };
  prune(obj, schema, '', unknown, true);
  applyDefaults(obj, schema);
  validate(obj, schema, '', errors);
  if (hasValidationRules(schema)) {
    if (errors.some((e) => BLOCKING.has(e)))
      errors.push(
        invalidValue(
          '<nil>',
          'null',
          'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
        ),
      );
    else {
      const cel = validateRules(obj, schema, old);
      errors.push(...cel.errors);
      warnings = cel.warnings;
    }
  }
  return {
    unknown: unknown.map((f) => `unknown field ${JSON.stringify(f)}`),
    pruned: unknown,
    errors,
    warnings,
  };
}

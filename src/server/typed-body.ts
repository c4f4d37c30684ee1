/**
 * Request bodies of built-in kinds read against the pinned release's OpenAPI schemas, as
 * kube-apiserver's JSON decoder reads them into Go structs (upstream: sigs.k8s.io/json's strict
 * decoding behind staging/src/k8s.io/apimachinery/pkg/runtime/serializer/json/json.go):
 *
 *  - a value of the wrong JSON type is a 400 with encoding/json's message, wrapped as the codec
 *    wraps it: `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal
 *    number into Go struct field ConfigMap.data of type string`;
 *  - fields the kind does not have (`metadata.__proto__`, `spec.replica`) are dropped and returned
 *    as `unknown field "spec.replica"`, for the caller to send as warnings or, under
 *    fieldValidation=Strict, to refuse;
 *  - `null` leaves a field at its zero value, as Go does: the key is removed.
 *
 * Kinds upstream does not define (CRDs, kubesim's own) are left alone here.
 */
import { badRequest } from '../api/errors.js';
import { definitionOf, refName, type Schema, upstreamSwagger } from './k8s-data.js';

// biome-ignore lint/suspicious/noExplicitAny: request bodies are arbitrary JSON
type Obj = any;

class TypeError_ extends Error {}

/** What a schema decodes into in Go, for encoding/json's message (`[]v1.Container`, `int32`). */
function goType(s: Schema): string {
  if (s.$ref) {
    const name = refName(s.$ref);
    const parts = name.split('.');
    return `${parts[parts.length - 2]}.${parts[parts.length - 1]}`;
  }
  switch (s.type) {
    case 'string':
      return s.format === 'byte' ? '[]uint8' : 'string';
    case 'integer':
      return s.format === 'int32' ? 'int32' : 'int64';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'array':
      return `[]${s.items ? goType(s.items) : 'interface {}'}`;
    case 'object':
      return typeof s.additionalProperties === 'object'
        ? `map[string]${goType(s.additionalProperties)}`
        : 'map[string]interface {}';
  }
  return 'interface {}';
}

/** encoding/json's word for a JSON value (`number 1.5` where an integer was wanted). */
function jsonWord(v: unknown, wantInt: boolean): string {
  if (typeof v === 'number') return wantInt && !Number.isInteger(v) ? `number ${v}` : 'number';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  return Array.isArray(v) ? 'array' : 'object';
}

interface Walk {
  defs: Record<string, Schema>;
  unknown: string[];
  /** the innermost Go struct's name, and the JSON path from the root (no indexes), for messages */
  struct: string;
  goPath: string[];
}

function resolve(w: Walk, s: Schema): { schema: Schema; struct?: string } {
  if (!s.$ref) return { schema: s };
  const name = refName(s.$ref);
  return { schema: w.defs[name] ?? {}, struct: name.slice(name.lastIndexOf('.') + 1) };
}

function fail(w: Walk, v: unknown, s: Schema): never {
  const wantInt = s.type === 'integer';
  throw new TypeError_(
    `json: cannot unmarshal ${jsonWord(v, wantInt)} into Go struct field ${w.struct}.${w.goPath.join('.')} of type ${goType(s)}`,
  );
}

/** Opaque to the decoder: RawExtension, FieldsV1, JSON, int-or-string, Quantity, … */
function isOpaque(name: string | undefined, s: Schema): boolean {
  if (
    s['x-kubernetes-preserve-unknown-fields'] ||
    s['x-kubernetes-int-or-string'] ||
    s.format === 'int-or-string'
  )
    return true;
  if (name === 'io.k8s.apimachinery.pkg.api.resource.Quantity') return true;
  return (
    s.type === undefined || (s.type === 'object' && !s.properties && s.additionalProperties === undefined)
  );
}

function walk(w: Walk, v: unknown, ref: Schema, path: string): unknown {
  const name = ref.$ref ? refName(ref.$ref) : undefined;
  const { schema: s, struct } = resolve(w, ref);
  if (isOpaque(name, s)) {
    // a Quantity is a string or a number; int-or-string the same; anything else goes through
    if (
      (name?.endsWith('.Quantity') || s['x-kubernetes-int-or-string'] || s.format === 'int-or-string') &&
      typeof v !== 'string' &&
      typeof v !== 'number'
    )
      fail(w, v, { $ref: ref.$ref, type: 'string' });
    return v;
  }
  switch (s.type) {
    case 'string':
      if (typeof v !== 'string') fail(w, v, ref.$ref ? s : ref);
      return v;
    case 'integer':
      if (typeof v !== 'number' || !Number.isInteger(v)) fail(w, v, s);
      return v;
    case 'number':
      if (typeof v !== 'number') fail(w, v, s);
      return v;
    case 'boolean':
      if (typeof v !== 'boolean') fail(w, v, s);
      return v;
    case 'array': {
      if (!Array.isArray(v)) fail(w, v, ref);
      const item = s.items ?? {};
      for (let i = 0; i < v.length; i++) if (v[i] !== null) v[i] = walk(w, v[i], item, `${path}[${i}]`);
      return v;
    }
    case 'object': {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(w, v, ref);
      const o = v as Obj;
      const saved = w.struct;
      if (struct && s.properties) w.struct = struct;
      for (const key of Object.keys(o)) {
        const child = s.properties
          ? Object.hasOwn(s.properties, key)
            ? s.properties[key]
            : undefined
          : typeof s.additionalProperties === 'object'
            ? s.additionalProperties
            : undefined;
        const childPath = s.properties ? (path ? `${path}.${key}` : key) : path;
        if (o[key] === null || o[key] === undefined) {
          delete o[key];
          continue;
        }
        if (!child) {
          w.unknown.push(path ? `${path}.${key}` : key);
          delete o[key];
          continue;
        }
        if (s.properties) w.goPath.push(key);
        o[key] = walk(w, o[key], child, childPath);
        if (s.properties) w.goPath.pop();
      }
      w.struct = saved;
      return o;
    }
  }
  return v;
}

/**
 * Check `obj` (a decoded JSON body) against its kind's schema, in place: wrong types throw a 400,
 * unknown fields are removed and returned as `unknown field "…"` messages.
 */
export function decodeTyped(obj: Obj, group: string, version: string, kind: string): string[] {
  const def = definitionOf(group, version, kind);
  if (!def) return [];
  const w: Walk = { defs: upstreamSwagger().definitions, unknown: [], struct: kind, goPath: [] };
  try {
    walk(w, obj, { $ref: `#/definitions/${def}` }, '');
  } catch (e) {
    if (e instanceof TypeError_)
      throw badRequest(
        `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${e.message}`,
      );
    throw e;
  }
  return w.unknown.map((f) => `unknown field ${JSON.stringify(f)}`);
}

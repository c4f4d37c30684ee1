/**
 * Kubernetes' protobuf wire format (`application/vnd.kubernetes.protobuf`), as kube-apiserver
 * reads and writes it (upstream: staging/src/k8s.io/apimachinery/pkg/runtime/serializer/protobuf/
 * protobuf.go): the 4 bytes `k8s\0`, then a runtime.Unknown whose typeMeta names the apiVersion
 * and kind and whose raw bytes are the object's message, as k8s.io/api's generated.proto files
 * define it (loaded as data from data/k8s/proto with protobufjs, parsed once on first use).
 *
 * The messages' fields are the JSON fields with a few differences that this module maps both ways,
 * found by comparing each message with the OpenAPI definition of the same type:
 *  - embedded Go structs are a field of their own in protobuf (`Volume.volumeSource`) and inline
 *    in JSON;
 *  - a few names differ in case or spelling (`webhooks`/`Webhooks`, `$ref`/`ref`,
 *    `x-kubernetes-list-type`/`xKubernetesListType`);
 *  - the apimachinery types with their own JSON form: Time and MicroTime (seconds + nanos →
 *    RFC 3339), Duration (nanoseconds → "1m30s"), Quantity, IntOrString, RawExtension / FieldsV1 /
 *    apiextensions JSON (raw JSON bytes), JSONSchemaPropsOr{Bool,Array,StringArray}, and string
 *    list wrappers (ExtraValue, Verbs);
 *  - bytes fields (Secret data) are base64 strings in JSON; int64 are numbers;
 *  - Go's generated marshallers write non-pointer fields even when empty: an empty string and a
 *    zero time are read as absent, as the JSON encoder's omitempty leaves them out.
 * Watch events are length-prefixed (4 bytes, big-endian) metav1.WatchEvent messages without the
 * envelope, each carrying its object enveloped (upstream: handlers/watch.go's framer and
 * embedded encoder).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { badRequest } from '../api/errors.js';
import { definitionOf, k8sDataDir, upstreamSwagger } from './k8s-data.js';

// biome-ignore lint/suspicious/noExplicitAny: decoded messages and JSON objects are dynamic
type Obj = any;

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from('k8s\0', 'latin1');

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const SPECIAL = {
  time: `.${META}.Time`,
  microTime: `.${META}.MicroTime`,
  duration: `.${META}.Duration`,
  fieldsV1: `.${META}.FieldsV1`,
  quantity: '.k8s.io.apimachinery.pkg.api.resource.Quantity',
  intOrString: '.k8s.io.apimachinery.pkg.util.intstr.IntOrString',
  raw: '.k8s.io.apimachinery.pkg.runtime.RawExtension',
} as const;
const APIEXT = '.k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';

/** How one message field appears in JSON: under a name, or inlined into its parent. */
interface FieldMap {
  field: protobuf.Field;
  json: string;
  inline: boolean;
}

interface Codec {
  root: protobuf.Root;
  fields: Map<protobuf.Type, FieldMap[]>;
  unknown: protobuf.Type;
  watchEvent: protobuf.Type;
}

let codec: Codec | undefined;

const norm = (s: string) => s.replace(/[^A-Za-z0-9]/g, '').toLowerCase();

function load(): Codec {
  if (codec) return codec;
  const root = new protobuf.Root();
  const walk = (dir: string) => {
    for (const f of readdirSync(dir).sort()) {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (f.endsWith('.proto')) protobuf.parse(readFileSync(p, 'utf8'), root, { keepCase: true });
    }
  };
  walk(join(k8sDataDir(), 'proto'));
  root.resolveAll();
  const defs = upstreamSwagger().definitions;
  const fields = new Map<protobuf.Type, FieldMap[]>();
  const visit = (ns: protobuf.NamespaceBase) => {
    for (const n of ns.nestedArray) {
      if (n instanceof protobuf.Type) {
        const def =
          defs[
            n.fullName
              .slice(1)
              .replace(/^k8s\.io\./, 'io.k8s.')
              .replace(/_/g, '-')
          ];
        const props = Object.keys(def?.properties ?? {});
        const byNorm = new Map(props.map((p) => [norm(p), p]));
        fields.set(
          n,
          n.fieldsArray.map((field) => {
            const json = def ? byNorm.get(norm(field.name)) : field.name;
            return {
              field,
              json: json ?? field.name,
              inline: def !== undefined && json === undefined && field.resolvedType instanceof protobuf.Type,
            };
          }),
        );
      }
      if (n instanceof protobuf.Namespace || n instanceof protobuf.Type) visit(n);
    }
  };
  visit(root);
  codec = {
    root,
    fields,
    unknown: root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown'),
    watchEvent: root.lookupType(`${META}.WatchEvent`),
  };
  return codec;
}

/** The message type of a group/version/kind, when k8s.io/api defines one. */
function typeOf(apiVersion: string, kind: string): protobuf.Type | undefined {
  const i = apiVersion.indexOf('/');
  const group = i < 0 ? '' : apiVersion.slice(0, i);
  const version = i < 0 ? apiVersion : apiVersion.slice(i + 1);
  const def = definitionOf(group, version, kind);
  if (!def) return undefined;
  const name = def.replace(/^io\.k8s\./, 'k8s.io.').replace(/-/g, '_');
  const t = load().root.lookup(name);
  return t instanceof protobuf.Type ? t : undefined;
}

/** Whether a kind has a protobuf form (the built-in kinds; not CRDs). */
export function hasProtobuf(apiVersion: string, kind: string): boolean {
  return typeOf(apiVersion, kind) !== undefined;
}

// ---- protobuf → JSON ----

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v as protobuf.Long));

function rfc3339(seconds: number, nanos: number, micro: boolean): string {
  const iso = new Date(seconds * 1000).toISOString();
  if (!micro) return iso.replace(/\.\d{3}Z$/, 'Z');
  return `${iso.slice(0, 19)}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

/** Go's time.Duration.String() */
export function goDuration(ns: number): string {
  if (ns === 0) return '0s';
  const neg = ns < 0;
  let n = Math.abs(ns);
  let out: string;
  if (n < 1e9) {
    out = n < 1e3 ? `${n}ns` : n < 1e6 ? `${n / 1e3}µs` : `${n / 1e6}ms`;
  } else {
    const h = Math.floor(n / 3.6e12);
    n -= h * 3.6e12;
    const m = Math.floor(n / 6e10);
    n -= m * 6e10;
    const s = `${Number((n / 1e9).toFixed(9))}s`;
    out = h > 0 ? `${h}h${m}m${s}` : m > 0 ? `${m}m${s}` : s;
  }
  return neg ? `-${out}` : out;
}

function parseGoDuration(s: string): number {
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g;
  const unit: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, ms: 1e6, s: 1e9, m: 6e10, h: 3.6e12 };
  let total = 0;
  for (const m of s.matchAll(re)) total += Number(m[1]) * unit[m[2]!]!;
  return Math.round(s.startsWith('-') ? -total : total);
}

function rawJson(b: Uint8Array | undefined): unknown {
  if (!b || b.length === 0) return undefined;
  const buf = Buffer.from(b);
  if (buf.subarray(0, 4).equals(MAGIC)) return decodeProtobufObject(buf);
  return JSON.parse(buf.toString('utf8'));
}

function has(msg: Obj, name: string): boolean {
  if (!Object.hasOwn(msg, name)) return false;
  const v = msg[name];
  if (Array.isArray(v)) return v.length > 0;
  if (v && typeof v === 'object' && !(v instanceof Uint8Array) && v.constructor === Object)
    return Object.keys(v).length > 0;
  return v !== null && v !== undefined;
}

function messageToJson(type: protobuf.Type, msg: Obj): unknown {
  const c = load();
  switch (type.fullName) {
    case SPECIAL.time:
    case SPECIAL.microTime:
      // Go writes a zero time as an empty message; JSON has null (omitted) for it
      if (!has(msg, 'seconds') && !has(msg, 'nanos')) return undefined;
      return rfc3339(num(msg.seconds ?? 0), msg.nanos ?? 0, type.fullName === SPECIAL.microTime);
    case SPECIAL.duration:
      return goDuration(num(msg.duration ?? 0));
    case SPECIAL.quantity:
      return msg.string ?? '0';
    case SPECIAL.intOrString:
      return num(msg.type ?? 0) === 1 ? (msg.strVal ?? '') : (msg.intVal ?? 0);
    case SPECIAL.raw:
      return rawJson(msg.raw) ?? null;
    case SPECIAL.fieldsV1:
      return rawJson(msg.Raw) ?? {};
    case `${APIEXT}.JSON`:
      return rawJson(msg.raw) ?? null;
    case `${APIEXT}.JSONSchemaPropsOrBool`:
      return has(msg, 'schema')
        ? messageToJson(type.fields.schema!.resolvedType as protobuf.Type, msg.schema)
        : !!msg.allows;
    case `${APIEXT}.JSONSchemaPropsOrArray`:
      return has(msg, 'schema')
        ? messageToJson(type.fields.schema!.resolvedType as protobuf.Type, msg.schema)
        : (msg.jSONSchemas ?? []).map((s: Obj) =>
            messageToJson(type.fields.jSONSchemas!.resolvedType as protobuf.Type, s),
          );
    case `${APIEXT}.JSONSchemaPropsOrStringArray`:
      return has(msg, 'schema')
        ? messageToJson(type.fields.schema!.resolvedType as protobuf.Type, msg.schema)
        : [...(msg.property ?? [])];
  }
  if (isStringList(type)) return [...(msg.items ?? [])];
  const out: Obj = {};
  fillJson(c.fields.get(type)!, msg, out);
  return out;
}

/** ExtraValue, Verbs: Go string slices with a message of their own in protobuf */
const isStringList = (t: protobuf.Type) =>
  t.fieldsArray.length === 1 && t.fieldsArray[0]!.name === 'items' && t.fieldsArray[0]!.type === 'string';

function fillJson(maps: FieldMap[], msg: Obj, out: Obj): void {
  for (const { field, json, inline } of maps) {
    if (!has(msg, field.name)) continue;
    const v = msg[field.name];
    if (inline) {
      fillJson(load().fields.get(field.resolvedType as protobuf.Type)!, v, out);
      continue;
    }
    // Go's generated marshallers write every non-pointer string, empty ones too; JSON omits them
    if (v === '' && !field.repeated) continue;
    const j = fieldToJson(field, v);
    if (j !== undefined) out[json] = j;
  }
}

function scalarToJson(field: protobuf.Field, v: unknown): unknown {
  if (field.resolvedType instanceof protobuf.Type) return messageToJson(field.resolvedType, v);
  if (field.type === 'bytes') return Buffer.from(v as Uint8Array).toString('base64');
  if (field.type === 'int64' || field.type === 'uint64' || field.type === 'sint64') return num(v);
  return v;
}

function fieldToJson(field: protobuf.Field, v: Obj): unknown {
  if (field.map) {
    const o: Obj = {};
    for (const k of Object.keys(v)) o[k] = scalarToJson(field, v[k]);
    return o;
  }
  if (field.repeated) return (v as unknown[]).map((x) => scalarToJson(field, x));
  return scalarToJson(field, v);
}

// ---- JSON → protobuf ----

function parseTime(s: string): { seconds: number; nanos: number } {
  const ms = Date.parse(s);
  if (Number.isNaN(ms)) throw badRequest(`invalid time ${JSON.stringify(s)}: not RFC 3339`);
  const frac = /\.(\d+)/.exec(s)?.[1] ?? '';
  return { seconds: Math.floor(ms / 1000), nanos: Number(frac.padEnd(9, '0').slice(0, 9)) };
}

function messageFromJson(type: protobuf.Type, v: unknown): Obj {
  switch (type.fullName) {
    case SPECIAL.time:
    case SPECIAL.microTime:
      return parseTime(String(v));
    case SPECIAL.duration:
      return { duration: parseGoDuration(String(v)) };
    case SPECIAL.quantity:
      return { string: String(v) };
    case SPECIAL.intOrString:
      return typeof v === 'number' ? { type: 0, intVal: v } : { type: 1, strVal: String(v) };
    case SPECIAL.raw:
    case `${APIEXT}.JSON`:
      return { raw: Buffer.from(JSON.stringify(v)) };
    case SPECIAL.fieldsV1:
      return { Raw: Buffer.from(JSON.stringify(v)) };
    case `${APIEXT}.JSONSchemaPropsOrBool`:
      return typeof v === 'boolean'
        ? { allows: v }
        : { allows: true, schema: messageFromJson(type.fields.schema!.resolvedType as protobuf.Type, v) };
    case `${APIEXT}.JSONSchemaPropsOrArray`:
      return Array.isArray(v)
        ? {
            jSONSchemas: v.map((s) =>
              messageFromJson(type.fields.jSONSchemas!.resolvedType as protobuf.Type, s),
            ),
          }
        : { schema: messageFromJson(type.fields.schema!.resolvedType as protobuf.Type, v) };
    case `${APIEXT}.JSONSchemaPropsOrStringArray`:
      return Array.isArray(v)
        ? { property: v }
        : { schema: messageFromJson(type.fields.schema!.resolvedType as protobuf.Type, v) };
  }
  if (isStringList(type)) return { items: v };
  const out: Obj = {};
  if (v && typeof v === 'object') fillProto(load().fields.get(type)!, v as Obj, out);
  return out;
}

function fillProto(maps: FieldMap[], json: Obj, out: Obj): void {
  for (const { field, json: name, inline } of maps) {
    if (inline) {
      const inner: Obj = {};
      fillProto(load().fields.get(field.resolvedType as protobuf.Type)!, json, inner);
      if (Object.keys(inner).length) out[field.name] = inner;
      continue;
    }
    const v = json[name];
    if (v === undefined || v === null) continue;
    out[field.name] = fieldFromJson(field, v);
  }
}

function scalarFromJson(field: protobuf.Field, v: unknown): unknown {
  if (field.resolvedType instanceof protobuf.Type) return messageFromJson(field.resolvedType, v);
  if (field.type === 'bytes') return Buffer.from(String(v), 'base64');
  return v;
}

function fieldFromJson(field: protobuf.Field, v: Obj): unknown {
  if (field.map) {
    const o: Obj = {};
    for (const k of Object.keys(v)) o[k] = scalarFromJson(field, v[k]);
    return o;
  }
  if (field.repeated) return (Array.isArray(v) ? v : [v]).map((x) => scalarFromJson(field, x));
  return scalarFromJson(field, v);
}

// ---- the envelope ----

/** A `k8s\0` body as the JSON object it stands for (apiVersion and kind from the envelope). */
export function decodeProtobufObject(buf: Buffer): Obj {
  if (buf.length < 4 || !buf.subarray(0, 4).equals(MAGIC))
    throw badRequest(
      'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
    );
  const c = load();
  let unknown: Obj;
  try {
    unknown = c.unknown.decode(buf.subarray(4));
  } catch (e) {
    throw badRequest(`the protobuf envelope cannot be decoded: ${(e as Error).message}`);
  }
  const apiVersion: string = unknown.typeMeta?.apiVersion ?? '';
  const kind: string = unknown.typeMeta?.kind ?? '';
  const type = typeOf(apiVersion, kind);
  if (!type)
    throw badRequest(
      `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)}`,
    );
  let msg: Obj;
  try {
    msg = type.decode(unknown.raw ?? new Uint8Array());
  } catch (e) {
    throw badRequest(
      `${kind} in version ${JSON.stringify(apiVersion)} cannot be handled as a ${kind}: ${(e as Error).message}`,
    );
  }
  return { apiVersion, kind, ...(messageToJson(type, msg) as Obj) };
}

function messageBytes(obj: Obj): { type: protobuf.Type; bytes: Uint8Array } {
  const type = typeOf(obj.apiVersion, obj.kind);
  if (!type) throw new Error(`no protobuf message for ${obj.apiVersion} ${obj.kind}`);
  const msg = type.fromObject(messageFromJson(type, obj));
  return { type, bytes: type.encode(msg).finish() };
}

/** A JSON object of a built-in kind as a `k8s\0` body. */
export function encodeProtobufObject(obj: Obj): Buffer {
  const c = load();
  const { bytes } = messageBytes(obj);
  const unknown = c.unknown.encode(
    c.unknown.fromObject({
      typeMeta: { apiVersion: obj.apiVersion, kind: obj.kind },
      raw: bytes,
      contentEncoding: '',
      contentType: '',
    }),
  );
  return Buffer.concat([MAGIC, unknown.finish()]);
}

/** One watch frame: length prefix + WatchEvent{type, object: enveloped object}. */
export function encodeWatchFrame(type: string, obj: Obj): Buffer {
  const c = load();
  const ev = c.watchEvent
    .encode(c.watchEvent.fromObject({ type, object: { raw: encodeProtobufObject(obj) } }))
    .finish();
  const len = Buffer.alloc(4);
  len.writeUInt32BE(ev.length);
  return Buffer.concat([len, ev]);
}

/** The events of a protobuf watch stream (for tests and clients): {type, object} each. */
export function decodeWatchFrames(buf: Buffer): { type: string; object: Obj }[] {
  const c = load();
  const out: { type: string; object: Obj }[] = [];
  for (let i = 0; i + 4 <= buf.length; ) {
    const n = buf.readUInt32BE(i);
    const ev: Obj = c.watchEvent.decode(buf.subarray(i + 4, i + 4 + n));
    out.push({ type: ev.type, object: decodeProtobufObject(Buffer.from(ev.object.raw)) });
    i += 4 + n;
  }
  return out;
}

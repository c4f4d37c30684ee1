/**
 * How the ApiServer reads objects back from the store, shared by every verb: decoding a key's
 * value with its resourceVersion (the key's modRevision), selector matching, and recognising
 * and wording compaction (upstream: staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go).
 */
import { decode, encode } from './codec.js';
import { badRequest } from './errors.js';
import type { ParsedFieldSelector } from './field-selector.js';
import type { Selector } from './label-selector.js';
import type { KubeObject } from './types.js';
import { StoreError, type KeyValue, type KvStore } from '../store/types.js';

export type Obj = KubeObject & Record<string, any>;

/** How often an unconditional write retries after losing a race (GuaranteedUpdate's loop). */
export const MAX_UPDATE_RETRIES = 64;

/**
 * The bytes to decode a stored value from: a throw-away view of them. msgpackr hangs a DataView on
 * the array it reads (`source.dataView`), which on the stored array itself would stay for as long
 * as the store keeps the value (a DataView and a property backing store per stored revision).
 */
export function readView(value: Uint8Array): Uint8Array {
  return value.subarray(0);
}

/** A stored value as an object whose metadata.resourceVersion is the key's modRevision. */
export function decodeKv<T>(kv: KeyValue): T {
  const obj = decode<Obj>(readView(kv.value));
  (obj.metadata ??= {}).resourceVersion = String(kv.modRevision);
  return obj as unknown as T;
}

/** A deep copy of the caller's object with a metadata object (callers' objects are never mutated). */
export function copyIn(obj: KubeObject): Obj {
  const o = cloneData(obj) as Obj;
  if (!o.metadata || typeof o.metadata !== 'object') o.metadata = {};
  return o;
}

/**
 * {@link copyIn} of the parts of a request a status update reads: apiVersion, kind, metadata and
 * status (the status strategy takes everything else from the stored object), each an equal deep
 * copy; the rest of the caller's object is not copied.
 */
export function copyInStatus(obj: KubeObject): Obj {
  const src = obj as Obj;
  const o = {
    apiVersion: src.apiVersion,
    kind: src.kind,
    metadata: cloneData(src.metadata),
    status: cloneData(src.status),
  } as Obj;
  if (!o.metadata || typeof o.metadata !== 'object') o.metadata = {};
  return o;
}

/** A mutable deep copy of an object the server keeps (e.g. a frozen cached revision) for a caller. */
export function copyOut<T>(obj: Obj): T {
  return cloneData(obj) as T;
}

/**
 * A deep copy of JSON-like data that gives what a round trip through the store's codec gives
 * (every own enumerable key in order, undefined values kept, Dates as Dates, -0 as 0) without
 * writing the bytes: strings are immutable and shared, so only objects and arrays are allocated.
 */
function cloneData(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return typeof v === 'number' && v === 0 ? 0 : v;
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneData(v[i]);
    return out;
  }
  if (v instanceof Date) return new Date(v.getTime());
  const proto = Object.getPrototypeOf(v);
  // anything but a plain object (typed arrays, Maps, class instances) and the odd own "__proto__"
  // key take the codec's own round trip
  if ((proto !== Object.prototype && proto !== null) || Object.hasOwn(v, '__proto__'))
    return decode(encode(v));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) out[k] = cloneData((v as Record<string, unknown>)[k]);
  return out;
}

export function matches(obj: KubeObject, labels: Selector, fields: ParsedFieldSelector): boolean {
  return labels.matches(obj.metadata?.labels) && fields.matches(obj);
}

export function isCompacted(e: unknown): boolean {
  return e instanceof StoreError && e.message === 'mvcc: required revision has been compacted';
}

/** Parse a resourceVersion query parameter. */
export function parseRV(rv: string, what = 'resourceVersion'): number {
  if (!/^[0-9]+$/.test(rv)) throw badRequest(`invalid ${what}: ${JSON.stringify(rv)}`);
  return Number(rv);
}

/**
 * The oldest revision still readable (the compaction revision), found by binary search with
 * count-only reads; used only to word a 410 like upstream (`too old resource version: N (M)`).
 */
export async function compactedFloor(store: KvStore, requested: number): Promise<number> {
  let lo = requested + 1;
  let hi = await store.currentRevision();
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    try {
      await store.range({ key: '/registry/', rangeEnd: '/registry0', revision: mid, countOnly: true });
      hi = mid;
    } catch (e) {
      if (!isCompacted(e)) throw e;
      lo = mid + 1;
    }
  }
  return lo;
}

/**
 * Interned, deep-frozen shared decodes (apiserver-watch.ts `sharedObjects`): the objects every
 * in-process informer holds. Each decode of a revision makes strings of its own — "True" in every
 * condition, the namespace, the node's name, the owner's uid, the image — and msgpackr's native
 * string extraction hands them out as slices of one string per decode, so a single string still in
 * use keeps the decode's whole string block alive. Interning gives every equal string value one
 * standalone copy: at 1/20 of the scale envelope 775,000 strings in the heap held 165,000 distinct
 * values (docs/bench/sim.md).
 *
 * Leases are frozen without interning: a renewal's strings are the previous revision's but for
 * renewTime, the object is one per node, and looking up an equal string that is not the same
 * copy costs more than the decode (a hash and a comparison per string; at 5,000 nodes the
 * renewals made interning a tenth of the demo's CPU time).
 *
 * The table is bounded (two generations of {@link MAX_INTERNED} values; values still in use stay
 * where they are, and only later decodes stop sharing with those not seen again), so strings of
 * deleted objects are not kept for ever. Interning changes which copy of an equal string an object holds, never a
 * value.
 *
 * Sub-objects that repeat verbatim across objects are shared the same way (hash-consing): the
 * containers, tolerations, owner references and labels of the pods of one ReplicaSet are equal
 * and, frozen, can be one object. Only the properties named in {@link SHARED_KEYS} are looked up
 * (each lookup builds a key of the whole sub-object), by an exact key that tells apart every value
 * a decode can hold (a string from a number, -0 from 0, an absent property from an undefined one);
 * a sub-object holding anything else (bytes, a Date) is never shared. Sharing changes which equal
 * object a property holds, never a value: nothing compares sub-objects by identity to tell them
 * apart (an equal identity only ever means an equal value here).
 */

import { OBJECT_KEY, metaKey } from './keys.js';
import type { KubeObject } from './types.js';

/** values a table holds before it becomes the older one and a new one starts */
const MAX_INTERNED = 1 << 17;
/** longer strings are rare and mostly unique (a last-applied annotation): left as they are */
const MAX_LENGTH = 256;
/** V8 copies substrings shorter than this (SlicedString::kMinLength): they hold no parent */
const MIN_SLICED = 13;

// two generations: a full table becomes the older one, whose values move back to the new one as
// they are seen again, so that values in use stay shared across a start-over
let table = new Map<string, string>();
let older = new Map<string, string>();

/** a copy of s that holds no other string alive (s may be a slice of a decode's string block) */
function standalone(s: string): string {
  if (s.length < MIN_SLICED) return s;
  const copy = Buffer.from(s, 'utf8').toString('utf8');
  // a lone surrogate does not survive UTF-8: keep the original then
  return copy === s ? copy : s;
}

/** the one interned copy of a string value */
/** the properties whose values are shared between equal decodes (see the file comment) */
const SHARED_KEYS = new Set([
  'containers',
  'initContainers',
  'tolerations',
  'ownerReferences',
  'labels',
  'nodeSelector',
  'affinity',
  'topologySpreadConstraints',
]);
/** sub-objects a table holds before it becomes the older one */
const MAX_SHARED = 1 << 14;
/** a sub-object whose key would be longer is not shared (rare, and costly to key) */
const MAX_KEY = 4096;
let objects = new Map<string, object>();
let olderObjects = new Map<string, object>();

/**
 * An exact key of a decoded value, or null when it holds something other than plain objects,
 * arrays, strings, finite numbers, booleans, null and undefined, or is too long to key.
 */
function keyOf(v: unknown, acc: { s: string }): boolean {
  if (acc.s.length > MAX_KEY) return false;
  switch (typeof v) {
    case 'string':
      acc.s += JSON.stringify(v);
      return true;
    case 'number':
      // Object.is tells -0 from 0; NaN and the infinities have their own spelling
      acc.s += Object.is(v, -0) ? '-0' : String(v);
      return true;
    case 'boolean':
      acc.s += v ? 't' : 'f';
      return true;
    case 'undefined':
      acc.s += 'u';
      return true;
    case 'object': {
      if (v === null) {
        acc.s += 'n';
        return true;
      }
      if (Array.isArray(v)) {
        acc.s += '[';
        for (let i = 0; i < v.length; i++) {
          if (!(i in v) || !keyOf(v[i], acc)) return false; // a hole is not a value
          acc.s += ',';
        }
        acc.s += ']';
        return true;
      }
      if (Object.getPrototypeOf(v) !== Object.prototype) return false;
      acc.s += '{';
      for (const k in v) {
        acc.s += JSON.stringify(k) + ':';
        if (!keyOf((v as Record<string, unknown>)[k], acc)) return false;
        acc.s += ',';
      }
      acc.s += '}';
      return true;
    }
    default:
      return false;
  }
}

/** the shared frozen object equal to o (o itself when first seen or not shareable) */
function shared(o: object): object {
  const acc = { s: '' };
  if (!keyOf(o, acc)) return o;
  const key = acc.s;
  let c = objects.get(key);
  if (c !== undefined) return c;
  c = olderObjects.get(key) ?? o;
  if (objects.size >= MAX_SHARED) {
    olderObjects = objects;
    objects = new Map();
  }
  objects.set(key, c);
  return c;
}

export function intern(s: string): string {
  if (s.length > MAX_LENGTH) return s;
  let c = table.get(s);
  if (c !== undefined) return c;
  c = older.get(s) ?? standalone(s);
  if (table.size >= MAX_INTERNED) {
    older = table;
    table = new Map();
  }
  table.set(c, c);
  return c;
}

/**
 * A watcher's shared decode made ready to share: its key set ({@link OBJECT_KEY}), then interned and
 * frozen by {@link freezeInterned}, or by {@link freezeInternedLike} against `prev`, the key's
 * earlier revision. Returns o.
 */
export function freezeShared<T extends KubeObject>(o: T, prev?: unknown): T {
  if (o.metadata && !Object.isFrozen(o))
    Object.defineProperty(o, OBJECT_KEY, { value: metaKey(o), enumerable: false });
  return prev ? freezeInternedLike(o, prev) : freezeInterned(o);
}

/**
 * Object.freeze all the way down (plain decoded data: objects and arrays), every string value but
 * metadata.resourceVersion (the key's revision, unique by construction) replaced by its interned
 * copy first. Returns o.
 */
export function freezeInterned<T>(o: T): T {
  if (o !== null && typeof o === 'object' && !Object.isFrozen(o)) {
    const r = o as Record<string, unknown>;
    for (const k in r) {
      const v = r[k];
      if (typeof v === 'string') {
        if (k !== 'resourceVersion') r[k] = intern(v);
      } else if (v !== null && typeof v === 'object') {
        freezeInterned(v);
        if (SHARED_KEYS.has(k)) {
          const c = shared(v);
          if (c !== v) r[k] = c;
        }
      }
    }
    Object.freeze(o);
  }
  return o;
}

/**
 * {@link freezeInterned} of `o`, a fresh decode of a key's new revision, against `prev`, the key's
 * earlier revision as this function or freezeInterned left it (deep-frozen, interned): a string
 * equal to the one at the same place in `prev` becomes prev's copy, and a sub-object equal to the
 * one at the same place (same keys in the same order, Object.is-equal numbers, equal strings, all
 * the way down) becomes prev's frozen sub-object, with no table lookup and no key built. What
 * differs is interned and shared as freezeInterned does. A pod's status post leaves its spec,
 * metadata and most of its status as they were: those parts cost one comparison each instead of
 * a hash and a lookup per string, a key per shared sub-object and a freeze per object. Values are
 * unchanged; only which equal copy a property holds differs (as with interning). Returns o.
 */
export function freezeInternedLike<T>(o: T, prev: unknown): T {
  if (o === null || typeof o !== 'object' || Object.isFrozen(o)) return o;
  if (!comparable(o, prev)) return freezeInterned(o);
  freezeLike(o as object, prev as object);
  return Object.freeze(o);
}

/** two values freezeLike can walk side by side: plain objects or both arrays */
function comparable(v: object, w: unknown): w is object {
  if (w === null || typeof w !== 'object') return false;
  const pv = Object.getPrototypeOf(v);
  if (pv !== Object.prototype && pv !== Array.prototype) return false;
  return Object.getPrototypeOf(w) === pv;
}

/**
 * The value to hold at a property of key `k` whose new value is `v` and whose value in the
 * earlier revision is `w` (undefined when it had none): `w` itself when equal, else v interned,
 * frozen and shared as freezeInterned would leave it.
 */
function settle(v: unknown, w: unknown, k: string | number): unknown {
  if (typeof v === 'string') {
    if (v === w) return w;
    return k === 'resourceVersion' ? v : intern(v);
  }
  if (v === null || typeof v !== 'object') return Object.is(v, w) ? w : v;
  if (comparable(v, w)) {
    if (freezeLike(v, w)) return w;
    Object.freeze(v);
  } else freezeInterned(v);
  return typeof k === 'string' && SHARED_KEYS.has(k) ? shared(v) : v;
}

/**
 * Settles every property of `o` against `p` (both plain objects or both arrays; `p` frozen) and
 * tells whether all of them came out as p's own (then o equals p and the caller takes p); o is
 * left unfrozen.
 */
function freezeLike(o: object, p: object): boolean {
  let same = true;
  if (Array.isArray(o)) {
    const a = p as unknown[];
    same = o.length === a.length;
    for (let i = 0; i < o.length; i++) {
      const w = i < a.length ? a[i] : undefined;
      const r = settle(o[i], w, i);
      // a string is always written back: === cannot tell the interned copy from the decode's slice
      if (typeof r === 'string' || r !== o[i]) o[i] = r;
      if (same && !Object.is(r, w)) same = false;
    }
    return same;
  }
  const r = o as Record<string, unknown>;
  const q = p as Record<string, unknown>;
  const keys = Object.keys(q);
  let i = 0;
  for (const k in r) {
    // a key at another place, or one p lacks, makes o differ (key order is part of the value)
    if (same && keys[i] !== k) same = false;
    i++;
    const w = same || Object.hasOwn(q, k) ? q[k] : undefined;
    const v = r[k];
    const s = settle(v, w, k);
    if (typeof s === 'string' || s !== v) r[k] = s;
    if (same && !Object.is(s, w)) same = false;
  }
  return same && i === keys.length;
}

/** Object.freeze all the way down, strings left as they are */
export function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const k in o) deepFreeze((o as Record<string, unknown>)[k]);
  }
  return o;
}

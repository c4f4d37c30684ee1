/**
 * Key ranges as etcd defines them, over keys in byte order (keybytes.ts): `[key, rangeEnd)`
 * half-open, an absent/empty `rangeEnd` is the single key, and `rangeEnd === "\0"` means "every
 * key >= key" (etcd's `mkGteRange`).
 *
 *   key "a", rangeEnd undefined  → just "a"
 *   key "a", rangeEnd "b"        → "a" <= k < "b"
 *   key "a", rangeEnd "\0"       → "a" <= k
 *   key "\0", rangeEnd "\0"      → every key
 *
 * This is the one home of etcd's key-range rules in kubesim (the store, the ApiServer's lists and
 * watches, the trace generators and the benchmarks import them).
 */
import { compareKeys, isAscii, keyBytes, keyFromBytes } from './keybytes.js';

/** The `rangeEnd` that makes "every key >= key" (etcd's `"\x00"`). */
export const FROM_KEY = '\0';

/**
 * The `rangeEnd` of a prefix, as clientv3.GetPrefixRangeEnd computes it on the prefix's bytes: the
 * last byte below 0xff incremented and everything after it dropped; `"\0"` (no end) when every byte
 * is 0xff or the prefix is empty.
 *
 *   "d/" → "d0"     "a\u007f" → "a\udc80" (61 80)     "é" (C3 A9) → "ê" (C3 AA)
 *   "ÿ" (C3 BF) → "\udcc3\udcc0" (C3 C0, no UTF-8 text)     "\udcff" (FF) → "\0"
 */
export function prefixEnd(prefix: string): string {
  if (prefix === '') return FROM_KEY;
  if (isAscii(prefix)) {
    const c = prefix.charCodeAt(prefix.length - 1);
    return prefix.slice(0, -1) + String.fromCharCode(c === 0x7f ? 0xdc80 : c + 1);
  }
  const b = keyBytes(prefix);
  for (let i = b.length - 1; i >= 0; i--) {
    if (b[i] < 0xff) {
      b[i]++;
      return keyFromBytes(b.subarray(0, i + 1));
    }
  }
  return FROM_KEY;
}

/**
 * Normalised upper bound: `null` = single key, `''` = unbounded (>= key), otherwise the exclusive end.
 * An empty `rangeEnd` means "no range" in etcd's protobuf encoding, hence the single key.
 */
export function upperBound(rangeEnd: string | undefined): string | null {
  if (rangeEnd === undefined || rangeEnd === '') return null;
  if (rangeEnd === FROM_KEY) return '';
  return rangeEnd;
}

/** Whether `k` lies in the range with start `key` and normalised bound `end` (see {@link upperBound}), in byte order. */
export function inRange(k: string, key: string, end: string | null): boolean {
  if (end === null) return k === key;
  return compareKeys(k, key) >= 0 && (end === '' || compareKeys(k, end) < 0);
}

/**
 * Key ranges as etcd defines them: `[key, rangeEnd)` half-open, an absent/empty `rangeEnd` is the
 * single key, and `rangeEnd === "\0"` means "every key >= key" (etcd's `mkGteRange`).
 *
 *   key "a", rangeEnd undefined  → just "a"
 *   key "a", rangeEnd "b"        → "a" <= k < "b"
 *   key "a", rangeEnd "\0"       → "a" <= k
 *   key "\0", rangeEnd "\0"      → every key
 */

/** The `rangeEnd` that makes "every key >= key" (etcd's `"\x00"`). */
export const FROM_KEY = '\0';

/**
 * The `rangeEnd` of a prefix, as clientv3.GetPrefixRangeEnd computes it: the prefix with its last
 * code unit below 0xff incremented and everything after it dropped; `"\0"` when no such code unit exists.
 */
export function prefixEnd(prefix: string): string {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const c = prefix.charCodeAt(i);
    if (c < 0xff) return prefix.slice(0, i) + String.fromCharCode(c + 1);
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

/** Whether `k` lies in the range with start `key` and normalised bound `end` (see {@link upperBound}). */
export function inRange(k: string, key: string, end: string | null): boolean {
  if (end === null) return k === key;
  return k >= key && (end === '' || k < end);
}

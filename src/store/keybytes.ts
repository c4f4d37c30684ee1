/**
 * Keys as etcd sees them: byte strings, ordered by `bytes.Compare` (the mvcc btree index, the txn
 * interval tree, range sorting and lease revocation all compare bytes). kubesim's keys are
 * JavaScript strings; this module fixes which bytes a string stands for and orders strings as
 * those bytes.
 *
 * A key's bytes are its UTF-8 encoding, except that a lone surrogate U+DC80..U+DCFF stands for the
 * single raw byte 0x80..0xFF (Python's "surrogateescape", PEP 383). So every byte string, valid
 * UTF-8 or not, is exactly one key string, and a prefix's range end (which can end in a byte no
 * UTF-8 text has) is a key string too:
 *
 *   "a"            → 61                      "é"   → C3 A9
 *   "a\u007f"      → 61 7F                   "\uffff" → EF BF BF
 *   "a\udc80"      → 61 80 (a raw byte)      "😀"  → F0 9F 98 80
 *
 *   byte order:   "a" < "a\u007f" < "a\udc80" < "\udc80" < "é" < "\uffff" < "😀"
 *   UTF-16 order: "a" < "a\u007f" < "a\udc80" < "é" < "😀" < "\udc80" < "\uffff"   (JavaScript's `<`)
 *
 * Not keys: a string with any other lone surrogate (no byte string means it), and a string whose
 * escaped bytes spell valid UTF-8 ("\udcc3\udca9" is the bytes of "é": the key is written "é"),
 * so that two different strings never name one etcd key.
 */
import { GrpcCode, StoreError } from './types.js';

const utf8 = new TextEncoder();
// only ever handed valid UTF-8; ignoreBOM: a leading EF BB BF is part of the key, not a mark to drop
const utf8Text = new TextDecoder('utf-8', { ignoreBOM: true });

/** Whether every code unit is below 0x80: the key's bytes are its code units, and `<` is byte order. */
export function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** The bytes a key string stands for. Throws a {@link StoreError} (INVALID_ARGUMENT) for a string that is not a key. */
export function keyBytes(key: string): Uint8Array {
  let escapes = false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff) {
      const d = key.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++; // a surrogate pair: one supplementary character
        continue;
      }
    }
    if (c < 0xdc80 || c > 0xdcff) throw notAKey(key, `lone surrogate U+${hex(c, 4)} at index ${i}`);
    escapes = true;
  }
  if (!escapes) return utf8.encode(key);
  const out: number[] = [];
  let run = 0; // start of the text not yet encoded
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0xdc80 || c > 0xdcff || (i > 0 && isHigh(key.charCodeAt(i - 1)))) continue;
    for (const b of utf8.encode(key.slice(run, i))) out.push(b);
    out.push(c - 0xdc00);
    run = i + 1;
  }
  for (const b of utf8.encode(key.slice(run))) out.push(b);
  const bytes = Uint8Array.from(out);
  const canonical = keyFromBytes(bytes);
  if (canonical !== key)
    throw notAKey(key, `its escaped bytes spell UTF-8 text: write it as ${JSON.stringify(canonical)}`);
  return bytes;
}

/** The key string of a byte string (the inverse of {@link keyBytes}). */
export function keyFromBytes(bytes: Uint8Array): string {
  let ascii = true;
  let out = '';
  let run = 0; // start of the valid text not yet decoded
  let i = 0;
  while (i < bytes.length) {
    if (bytes[i] < 0x80) {
      i++;
      continue;
    }
    ascii = false;
    const n = sequenceLength(bytes, i);
    if (n > 0) {
      i += n;
      continue;
    }
    // a byte that starts no valid sequence: escaped
    out += utf8Text.decode(bytes.subarray(run, i)) + String.fromCharCode(0xdc00 + bytes[i]);
    run = ++i;
  }
  if (ascii) return latin1(bytes);
  return run === 0 ? utf8Text.decode(bytes) : out + utf8Text.decode(bytes.subarray(run));
}

/**
 * A string whose UTF-16 order is the key's byte order: the key itself when it is ASCII (the
 * common case costs one scan), else its bytes as one code unit each. Comparing two order keys
 * with `<` compares the keys as etcd does.
 */
export function orderKey(key: string): string {
  return isAscii(key) ? key : latin1(keyBytes(key));
}

/** etcd's bytes.Compare on two keys: -1, 0 or 1. */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  const x = a.charCodeAt(i),
    y = b.charCodeAt(i);
  // Below U+D800 both units are whole characters (a key's high surrogate is always paired, so the
  // equal prefix ends on a character boundary) and UTF-8 keeps code point order.
  if (x < 0xd800 && y < 0xd800) return x < y ? -1 : 1;
  const p = orderKey(a),
    q = orderKey(b);
  return p < q ? -1 : p > q ? 1 : 0;
}

/** Offset of the first byte that starts no well-formed UTF-8 sequence, or -1 when all of it is UTF-8. */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const n = bytes[i] < 0x80 ? 1 : sequenceLength(bytes, i);
    if (n === 0) return i;
    i += n;
  }
  return -1;
}

/** length of the well-formed UTF-8 sequence starting at bytes[i] (Unicode Table 3-7), 0 if none */
function sequenceLength(b: Uint8Array, i: number): number {
  const c = b[i];
  const cont = (j: number, lo = 0x80, hi = 0xbf) => i + j < b.length && b[i + j] >= lo && b[i + j] <= hi;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const lo = c === 0xe0 ? 0xa0 : 0x80;
    const hi = c === 0xed ? 0x9f : 0xbf;
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const lo = c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xf4 ? 0x8f : 0xbf;
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

function latin1(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 8192)
    s += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192) as unknown as number[]);
  return s;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const hex = (n: number, w: number) => n.toString(16).toUpperCase().padStart(w, '0');

function notAKey(key: string, why: string): StoreError {
  return new StoreError(
    `key ${JSON.stringify(key)} names no byte string: ${why} (keys are UTF-8; U+DC80..U+DCFF stand for the raw bytes 0x80..0xFF)`,
    GrpcCode.INVALID_ARGUMENT,
  );
}

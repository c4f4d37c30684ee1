// A revision's shared decode frozen against the key's earlier one (src/api/intern.ts
// freezeInternedLike): differential against a plain decode of the same bytes — equal values, key
// order included (self-describing bytes compared), frozen all the way down — over seeded chains of
// revisions, each one edit away from the one before (values replaced, keys added, removed or
// reordered, arrays grown or shrunk, 0 and "0", undefined and absent); unchanged parts are the
// earlier revision's own objects. In a file of its own: the many object shapes it writes fill the
// shared codec's structure table, which the other interning tests should not inherit.
import { describe, expect, it } from 'vitest';
import { decode, encode, portableCodec } from '../../src/api/codec.js';
import { freezeInterned, freezeInternedLike } from '../../src/api/intern.js';
import { Rng } from '../../src/util/rng.js';
import { expectFrozen, FIELDS, randomValue } from '../helpers/random-value.js';

/**
 * a copy of v with one seeded edit somewhere: a value replaced, a key added or removed, the keys
 * of an object in another order, an array grown or shrunk, 0 and "0", undefined and absent
 */
function edited(rng: Rng, v: unknown): unknown {
  if (v === null || typeof v !== 'object' || rng.int(4) === 0) {
    const e = rng.int(6);
    if (e === 0) return typeof v === 'number' ? String(v) : 0;
    if (e === 1) return undefined;
    return randomValue(rng, 2);
  }
  if (Array.isArray(v)) {
    const a = [...v];
    const e = rng.int(5);
    if (e === 0) a.push(randomValue(rng, 3));
    else if (e === 1) a.pop();
    else if (a.length) {
      const i = rng.int(a.length);
      a[i] = edited(rng, a[i]);
    }
    return a;
  }
  const keys = Object.keys(v);
  const o: Record<string, unknown> = { ...(v as Record<string, unknown>) };
  const e = rng.int(6);
  if (e === 0) o[FIELDS[rng.int(FIELDS.length)]] = randomValue(rng, 3);
  else if (e === 1 && keys.length) delete o[keys[rng.int(keys.length)]];
  else if (e === 2 && keys.length > 1) {
    const r: Record<string, unknown> = {};
    for (const k of [...keys].reverse()) r[k] = o[k];
    return r;
  } else if (keys.length) {
    const k = keys[rng.int(keys.length)];
    o[k] = edited(rng, o[k]);
  }
  return o;
}

/** the parts of b that equal a's at the same place and are a's own objects (sharing happened) */
function sharedParts(a: unknown, b: unknown): number {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return 0;
  if (a === b) return 1;
  let n = 0;
  for (const k of Object.keys(b))
    n += sharedParts((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]);
  return n;
}

describe('a revision frozen against the earlier one', () => {
  it('equals a plain decode, key order included, and shares what did not change', () => {
    let sharedTotal = 0;
    for (const seed of [1, 2, 3]) {
      const rng = new Rng(seed);
      // chains of revisions, each one edit away from the one before
      for (let chain = 0; chain < 400; chain++) {
        let v: unknown = {
          kind: 'Thing',
          spec: randomValue(rng, 0),
          status: randomValue(rng, 0),
          items: [randomValue(rng, 1)],
        };
        let prev = freezeInterned(decode(encode(v)));
        for (let rev = 0; rev < 12; rev++) {
          v = rng.int(8) === 0 ? v : edited(rng, v);
          const bytes = encode(v);
          const next = freezeInternedLike(decode(bytes), prev);
          const plain = decode(bytes);
          expect(next).toStrictEqual(plain);
          // self-describing bytes keep key order and tell undefined from absent
          expect(portableCodec.encode(next)).toEqual(portableCodec.encode(plain));
          expectFrozen(next);
          sharedTotal += sharedParts(prev, next);
          prev = next;
        }
      }
    }
    expect(sharedTotal).toBeGreaterThan(1000);
  });
});

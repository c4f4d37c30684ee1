import { describe, it, expect } from 'vitest';
import { StringMap } from '../../src/util/string-map.js';
import { Rng } from '../../src/util/rng.js';

/** every key of `pool` answers the same in both maps, and the sizes agree */
function expectSame(m: StringMap<number>, ref: Map<string, number>, pool: readonly string[]): void {
  expect(m.size).toBe(ref.size);
  for (const k of pool) {
    expect(m.has(k)).toBe(ref.has(k));
    expect(m.get(k)).toBe(ref.get(k));
  }
}

describe('StringMap vs Map', () => {
  for (const seed of [1, 2, 3]) {
    it(`random set/delete/get on a small key pool (runs of colliding slots), seed ${seed}`, () => {
      const rng = new Rng(seed);
      // few keys and a table that stays small: probe runs wrap around and backward shifts cross them
      const pool = Array.from({ length: 40 }, (_, i) => `ns-${i % 3}/pod-${i}`);
      const m = new StringMap<number>();
      const ref = new Map<string, number>();
      for (let step = 0; step < 4000; step++) {
        const k = pool[rng.int(pool.length)];
        const op = rng.int(10);
        if (op < 5) {
          m.set(k, step);
          ref.set(k, step);
        } else expect(m.delete(k)).toBe(ref.delete(k));
        if (step % 97 === 0) expectSame(m, ref, pool);
      }
      expectSame(m, ref, pool);
    });
  }

  it('grows to thousands of keys and shrinks back, the same keys re-added again and again', () => {
    const rng = new Rng(7);
    const pool = Array.from({ length: 6000 }, (_, i) => `default/p-${i}`);
    const m = new StringMap<number>();
    const ref = new Map<string, number>();
    for (let i = 0; i < 5000; i++) {
      m.set(pool[i], i);
      ref.set(pool[i], i);
    }
    expectSame(m, ref, pool);
    // assume/forget: a few keys deleted and added back many times
    for (let round = 0; round < 300; round++) {
      const batch = Array.from({ length: 20 }, () => pool[rng.int(pool.length)]);
      for (const k of batch) {
        m.set(k, round);
        ref.set(k, round);
      }
      for (const k of batch) expect(m.delete(k)).toBe(ref.delete(k));
    }
    expectSame(m, ref, pool);
    // down to a few keys (the table shrinks on the way) and up again
    for (let i = 0; i < 6000; i += 1) if (i % 50 !== 0) expect(m.delete(pool[i])).toBe(ref.delete(pool[i]));
    expectSame(m, ref, pool);
    for (let i = 0; i < 3000; i++) {
      m.set(pool[i], -i);
      ref.set(pool[i], -i);
    }
    expectSame(m, ref, pool);
  });

  it('keys that differ only in characters, the empty key, and undefined values are kept apart', () => {
    const m = new StringMap<number | undefined>();
    m.set('', 1).set('a/b', 2).set('b/a', 3).set('a/b ', undefined);
    expect([m.get(''), m.get('a/b'), m.get('b/a'), m.has('a/b '), m.get('a/b ')]).toEqual([
      1,
      2,
      3,
      true,
      undefined,
    ]);
    expect(m.size).toBe(4);
    expect(m.delete('x')).toBe(false);
    expect(m.delete('a/b ')).toBe(true);
    expect(m.has('a/b ')).toBe(false);
  });
});

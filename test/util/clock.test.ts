import { describe, it, expect } from 'vitest';
import { ManualClock } from '../../src/util/clock.js';
import { Rng } from '../../src/util/rng.js';

describe('ManualClock', () => {
  it('fires timers in time then insertion order, including ones scheduled while advancing', () => {
    const c = new ManualClock(0);
    const seen: string[] = [];
    c.setTimer(() => seen.push('b@10'), 10);
    c.setTimer(() => {
      seen.push('a@5');
      c.setTimer(() => seen.push('c@7'), 2);
    }, 5);
    c.setTimer(() => seen.push('d@10'), 10);
    const h = c.setTimer(() => seen.push('never'), 8);
    c.clearTimer(h);
    c.advance(9);
    expect(seen).toEqual(['a@5', 'c@7']);
    expect(c.now()).toBe(9);
    c.advance(1);
    expect(seen).toEqual(['a@5', 'c@7', 'b@10', 'd@10']);
    expect(c.pending).toBe(0);
  });
});

describe('Rng', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    const a = new Rng(42),
      b = new Rng(42),
      c = new Rng(43);
    const xs = Array.from({ length: 5 }, () => a.nextU32());
    expect(Array.from({ length: 5 }, () => b.nextU32())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c.nextU32())).not.toEqual(xs);
  });
  it('int(n) stays in range and covers it', () => {
    const r = new Rng(7);
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) {
      const x = r.int(6);
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(6);
      seen.add(x);
    }
    expect(seen.size).toBe(6);
  });
});

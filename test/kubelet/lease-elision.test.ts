// LazyRenewals (src/kubelet/lease-elision.ts) on a scripted host: what it books and when, what it
// turns into real timers. The simulation-level proof that elision changes no outcome is
// test/sim/lease-elision.test.ts; this pins the bookkeeping a run rarely meets (two nodes renewing
// in the same instant, a bucket without a token, the end of a run).
import { describe, expect, it } from 'vitest';
import { LazyRenewals, type LazyNode, type RenewalElisionHost } from '../../src/kubelet/lease-elision.js';

function setUp(tokens: (node: string, at: number) => number = () => 100) {
  const booked: [string, number, number][] = [];
  const fired: [string, number, number][] = [];
  const host: RenewalElisionHost = {
    setTimerAt: () => ({ id: 0 }),
    lone: () => true,
    idle: () => true,
    tokensAt: tokens,
    book: (node, at, inflight) => void booked.push([node, at, inflight]),
  };
  const lazy = new LazyRenewals(
    host,
    10_000,
    () => {},
    (n, at, prev) => void fired.push([n.name, at, prev]),
  );
  return { lazy, booked, fired };
}

const node = (name: string, index: number): LazyNode => ({ name, index });

describe('LazyRenewals', () => {
  it('books each renewal at its time, one interval apart, until the next instant', () => {
    const { lazy, booked } = setUp();
    const a = node('a', 0);
    expect(lazy.tryElide(a, 1_000.5)).toBe(true);
    lazy.catchUp(35_000);
    expect(booked).toEqual([
      ['a', 1_000.5, 1],
      ['a', 11_000.5, 1],
      ['a', 21_000.5, 1],
      ['a', 31_000.5, 1],
    ]);
    expect(a.elidedAt).toBe(31_000.5);
    expect(a.lazyAt).toBe(41_000.5);
  });

  it('two nodes renewing at the same time were in flight together', () => {
    const { lazy, booked } = setUp();
    const a = node('a', 0);
    const b = node('b', 1);
    lazy.tryElide(a, 500);
    lazy.tryElide(b, 500);
    lazy.catchUp(10_600);
    expect(booked.slice(2)).toEqual([
      ['a', 10_500, 2],
      ['b', 10_500, 2],
    ]);
  });

  it('a renewal due at the instant itself becomes a real timer set as at the renewal before', () => {
    const { lazy, booked, fired } = setUp();
    const a = node('a', 0);
    lazy.tryElide(a, 2_000);
    lazy.catchUp(12_000);
    expect(booked).toEqual([['a', 2_000, 1]]);
    expect(fired).toEqual([['a', 12_000, 2_000]]);
    expect(a.lazyAt).toBeUndefined();
    // at the end of a run nothing else fires at its last instant: booked, not fired
    const b = node('b', 1);
    lazy.tryElide(b, 3_000);
    lazy.catchUp(13_000, true);
    expect(booked.at(-1)).toEqual(['b', 13_000, 1]);
  });

  it('a renewal that would find no token in its bucket is a real timer', () => {
    const { lazy, booked, fired } = setUp((_n, at) => (at >= 20_000 ? 0.5 : 100));
    const a = node('a', 0);
    lazy.tryElide(a, 1_000);
    lazy.catchUp(15_000);
    expect(booked.map((x) => x[1])).toEqual([1_000, 11_000]);
    expect(fired).toEqual([['a', 21_000, 11_000]]);
  });

  it('a stopped node books nothing more; a woken one fires its next renewal', () => {
    const { lazy, booked, fired } = setUp();
    const a = node('a', 0);
    const b = node('b', 1);
    lazy.tryElide(a, 1_000);
    lazy.tryElide(b, 2_000);
    lazy.stop(a);
    lazy.wake(b);
    lazy.catchUp(60_000);
    expect(booked).toEqual([
      ['a', 1_000, 1],
      ['b', 2_000, 1],
    ]);
    expect(fired).toEqual([['b', 12_000, 2_000]]);
  });
});

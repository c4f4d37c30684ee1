import { describe, it, expect } from 'vitest';
import { ManualClock } from '../../src/util/clock.js';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  WorkQueue,
  defaultControllerRateLimiter,
  runWorkers,
} from '../../src/client/workqueue.js';

describe('rate limiters (client-go defaults)', () => {
  it('per-item exponential backoff: 5ms, 10ms, 20ms … capped at 1000s; forget resets', () => {
    const r = new ItemExponentialFailureRateLimiter<string>(5, 1000_000);
    expect([r.when('a'), r.when('a'), r.when('a'), r.when('b')]).toEqual([5, 10, 20, 5]);
    expect(r.numRequeues('a')).toBe(3);
    for (let i = 0; i < 40; i++) r.when('a');
    expect(r.when('a')).toBe(1000_000);
    r.forget('a');
    expect(r.when('a')).toBe(5);
  });
  it('bucket limiter: burst 100 free, then 1/qps apart, refilled over time', () => {
    const c = new ManualClock(0);
    const b = new BucketRateLimiter<string>(c, 10, 100);
    for (let i = 0; i < 100; i++) expect(b.when('x')).toBe(0);
    expect(b.when('x')).toBeCloseTo(100);
    expect(b.when('x')).toBeCloseTo(200);
    c.advance(10_000);
    expect(b.when('x')).toBe(0);
  });
  it('default controller limiter is the max of both', () => {
    const c = new ManualClock(0);
    const r = defaultControllerRateLimiter<string>(c);
    expect(r.when('a')).toBe(5);
    const m = new MaxOfRateLimiter<string>([
      new ItemExponentialFailureRateLimiter(1, 10),
      new ItemExponentialFailureRateLimiter(2, 10),
    ]);
    expect(m.when('a')).toBe(2);
    expect(m.numRequeues('a')).toBe(1);
  });
});

describe('WorkQueue', () => {
  it('dedups queued items and never hands an item out twice concurrently', () => {
    const c = new ManualClock(0);
    const q = new WorkQueue<string>(c);
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.length).toBe(2);
    expect(q.tryGet()).toBe('a');
    q.add('a'); // while processing: marked dirty, not queued
    expect(q.length).toBe(1);
    expect(q.tryGet()).toBe('b');
    expect(q.tryGet()).toBeUndefined();
    q.done('a'); // re-queued now
    expect(q.tryGet()).toBe('a');
    q.done('a');
    q.done('b');
    expect(q.idle).toBe(true);
  });
  it('addAfter keeps the earliest ready time and fires on the clock', () => {
    const c = new ManualClock(0);
    const q = new WorkQueue<string>(c);
    q.addAfter('a', 100);
    q.addAfter('a', 50);
    q.addAfter('a', 500);
    c.advance(49);
    expect(q.length).toBe(0);
    c.advance(1);
    expect(q.length).toBe(1);
    c.advance(1000);
    expect(q.length).toBe(1);
  });
  it('addRateLimited backs off exponentially until forget', () => {
    const c = new ManualClock(0);
    const q = new WorkQueue<string>(c);
    const readyAt: number[] = [];
    for (let i = 0; i < 3; i++) {
      q.addRateLimited('a');
      const start = c.now();
      while (q.length === 0) c.runNext();
      readyAt.push(c.now() - start);
      q.tryGet();
      q.done('a');
    }
    expect(readyAt).toEqual([5, 10, 20]);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
  });
  it('runWorkers retries a failing sync with backoff and forgets on success', async () => {
    const c = new ManualClock(0);
    const q = new WorkQueue<string>(c);
    let calls = 0;
    const times: number[] = [];
    const done = runWorkers(q, 2, async () => {
      times.push(c.now());
      if (++calls < 4) throw new Error('boom');
    });
    q.add('k');
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setImmediate(r));
      c.runNext();
    }
    expect(calls).toBe(4);
    expect(times).toEqual([0, 5, 15, 35]);
    expect(q.numRequeues('k')).toBe(0);
    q.shutDown();
    await done;
  });
});

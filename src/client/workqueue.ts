/**
 * A rate-limited work queue with client-go's semantics (k8s.io/client-go/util/workqueue), on an
 * injectable Clock:
 *
 * - an item added while it is already queued is queued once (dedup via the "dirty" set);
 * - an item is never handed to two workers at once: added while being processed, it is queued
 *   again only when the worker calls done();
 * - addAfter() delays an add (keeping the earliest ready time when added twice);
 * - addRateLimited() delays by the rate limiter: by default the larger of a per-item exponential
 *   backoff (5 ms · 2^failures, capped at 1000 s) and an overall token bucket (10 qps, burst 100),
 *   exactly client-go's DefaultControllerRateLimiter; forget() resets an item's backoff.
 *
 * Example over time (item "a"): add(a) → queue [a]; get() → a processing; add(a) → dirty, not
 * queued; done(a) → queue [a] again. addRateLimited(b) ×3 → ready after 5, 10, 20 ms.
 */
import type { Clock, TimerHandle } from '../util/clock.js';

/** Decides how long an item waits before it is re-added (client-go's RateLimiter). */
export interface RateLimiter<T> {
  when(item: T): number;
  forget(item: T): void;
  numRequeues(item: T): number;
}

/** baseMs · 2^failures, capped at maxMs (ItemExponentialFailureRateLimiter). */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();
  constructor(
    readonly baseMs = 5,
    readonly maxMs = 1000_000,
  ) {}

  when(item: T): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    const backoff = this.baseMs * Math.pow(2, exp);
    return backoff > this.maxMs || !Number.isFinite(backoff) ? this.maxMs : backoff;
  }
  forget(item: T): void {
    this.failures.delete(item);
  }
  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/**
 * A token bucket (golang.org/x/time/rate Limiter.Reserve().Delay()): `burst` tokens, refilled at
 * `qps`; each when() takes one token, and waits for it when the bucket is empty. Not per item.
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  private tokens: number;
  private last: number;
  /** @param startMs the virtual time the bucket is made at, full (default: now) */
  constructor(
    private readonly clock: Clock,
    readonly qps = 10,
    readonly burst = 100,
    startMs = clock.now(),
  ) {
    this.tokens = burst;
    this.last = startMs;
  }
  when(_item: T): number {
    return this.takeAt(this.clock.now());
  }
  /**
   * A token taken at virtual time `now` (not before the last take): the wait in ms, 0 when one was
   * at hand. `when` at that time; the kubelet fleet replays the takes of Lease renewals it elided.
   */
  takeAt(now: number): number {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }
  /** the tokens a take at virtual time `now` would find (the same arithmetic, nothing taken) */
  tokensAt(now: number): number {
    return Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
  }
  forget(_item: T): void {}
  numRequeues(_item: T): number {
    return 0;
  }
}

/** The longest delay of several limiters (MaxOfRateLimiter). */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  constructor(private readonly limiters: RateLimiter<T>[]) {}
  when(item: T): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.when(item));
    return max;
  }
  forget(item: T): void {
    for (const l of this.limiters) l.forget(item);
  }
  numRequeues(item: T): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.numRequeues(item));
    return max;
  }
}

/** client-go's DefaultControllerRateLimiter: max(5 ms→1000 s per-item backoff, 10 qps/100 burst bucket). */
export function defaultControllerRateLimiter<T>(clock: Clock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>([
    new ItemExponentialFailureRateLimiter<T>(5, 1000_000),
    new BucketRateLimiter<T>(clock, 10, 100),
  ]);
}

/** A FIFO work queue with dedup, delayed adds and rate-limited re-adds. */
export class WorkQueue<T> {
  private readonly queue: T[] = [];
  private head = 0;
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private readonly waiting = new Map<T, { at: number; timer: TimerHandle }>();
  private readonly getters: ((item: T | undefined) => void)[] = [];
  private shuttingDown = false;

  constructor(
    private readonly clock: Clock,
    readonly rateLimiter: RateLimiter<T> = defaultControllerRateLimiter<T>(clock),
    readonly name = 'queue',
  ) {}

  /** items waiting to be handed out (not counting delayed or in-process ones) */
  get length(): number {
    return this.queue.length - this.head;
  }
  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }
  /** true when nothing is queued, delayed or being processed */
  get idle(): boolean {
    return this.length === 0 && this.processing.size === 0 && this.waiting.size === 0;
  }

  add(item: T): void {
    if (this.shuttingDown || this.dirty.has(item)) return;
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.push(item);
  }

  /** add once `ms` has passed; an item already waiting keeps the earlier of the two ready times */
  addAfter(item: T, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(item);
      return;
    }
    const at = this.clock.now() + ms;
    const w = this.waiting.get(item);
    if (w) {
      if (w.at <= at) return;
      this.clock.clearTimer(w.timer);
    }
    const timer = this.clock.setTimer(() => {
      this.waiting.delete(item);
      this.add(item);
    }, ms);
    this.waiting.set(item, { at, timer });
  }

  addRateLimited(item: T): void {
    this.addAfter(item, this.rateLimiter.when(item));
  }
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }
  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }

  /** the next item (resolves when one is queued); undefined once shut down */
  get(): Promise<T | undefined> {
    const item = this.tryGet();
    if (item !== undefined || this.shuttingDown) return Promise.resolve(item);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** the next item now, or undefined when the queue is empty */
  tryGet(): T | undefined {
    if (this.length === 0) return undefined;
    const item = this.queue[this.head++];
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    this.processing.add(item);
    this.dirty.delete(item);
    return item;
  }

  /** the worker finished `item`; it is queued again if it was added meanwhile */
  done(item: T): void {
    this.processing.delete(item);
    if (this.dirty.has(item)) this.push(item);
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const w of this.waiting.values()) this.clock.clearTimer(w.timer);
    this.waiting.clear();
    const gs = this.getters.splice(0);
    for (const g of gs) g(undefined);
  }

  private push(item: T): void {
    const g = this.getters.shift();
    if (g) {
      // hand it straight to a waiting worker
      this.processing.add(item);
      this.dirty.delete(item);
      g(item);
    } else {
      this.queue.push(item);
    }
  }
}

/**
 * Runs `workers` loops that take items from `queue` and call `sync`. A sync that throws is
 * re-added rate-limited (client-go's processNextWorkItem); a sync that succeeds is forgotten.
 * `onError` sees every failure (for events/metrics). Returns when the queue shuts down.
 */
export async function runWorkers<T>(
  queue: WorkQueue<T>,
  workers: number,
  sync: (item: T) => Promise<void>,
  onError?: (item: T, err: unknown) => void,
): Promise<void> {
  const loop = async () => {
    for (;;) {
      const item = await queue.get();
      if (item === undefined) return;
      try {
        await sync(item);
        queue.forget(item);
      } catch (err) {
        onError?.(item, err);
        queue.addRateLimited(item);
      } finally {
        queue.done(item);
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, loop));
}

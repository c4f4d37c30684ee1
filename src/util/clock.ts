/**
 * Time as an injectable dependency. Leases, node heartbeats, backoff and the simulation all read
 * time through a Clock, so the same code runs against the wall clock (real etcd, CLI) or a
 * manual/virtual clock (tests, discrete-event simulation) where hours pass in milliseconds.
 */
import { BinaryHeap } from './binary-heap.js';

export interface Clock {
  /** milliseconds since the Unix epoch (virtual in simulations) */
  now(): number;
  /** run fn once, ms milliseconds from now; returns a handle for clearTimer */
  setTimer(fn: () => void, ms: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

export type TimerHandle = { readonly id: number };

/** The real clock: Date.now and Node timers (unref'd, so they never keep the process alive). */
export class WallClock implements Clock {
  private nextId = 1;
  private readonly timers = new Map<number, NodeJS.Timeout>();

  now(): number {
    return Date.now();
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    const t = setTimeout(
      () => {
        this.timers.delete(id);
        fn();
      },
      Math.max(0, ms),
    );
    t.unref?.();
    this.timers.set(id, t);
    return { id };
  }

  clearTimer(handle: TimerHandle): void {
    const t = this.timers.get(handle.id);
    if (t) {
      clearTimeout(t);
      this.timers.delete(handle.id);
    }
  }
}

interface Pending {
  at: number;
  /** virtual time the timer was set (or, for {@link ManualClock.setTimerAt}, stands for) */
  created: number;
  /** 0: set with setTimerAt, first among the timers set at the same virtual time; 1: setTimer */
  pri: number;
  seq: number;
  id: number;
  fn: () => void;
}

/**
 * (time, time set, setTimerAt first, insertion): for timers set with setTimer alone this is
 * (time, insertion), since the time a timer is set never decreases with insertion
 */
function timerLess(x: Pending, y: Pending): boolean {
  if (x.at !== y.at) return x.at < y.at;
  if (x.created !== y.created) return x.created < y.created;
  if (x.pri !== y.pri) return x.pri < y.pri;
  return x.seq < y.seq;
}

/**
 * A clock that only moves when told to. Timers fire in (time, insertion) order during
 * {@link advance} / {@link runNext}, which makes every run with the same inputs identical.
 * The simulation's event loop (src/sim) drives one of these.
 */
export class ManualClock implements Clock {
  private t: number;
  private seq = 0;
  private nextId = 1;
  private readonly heap = new BinaryHeap<Pending>(timerLess);
  private readonly cancelled = new Set<number>();

  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.t = startMs;
  }

  now(): number {
    return this.t;
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.heap.push({ at: this.t + Math.max(0, ms), created: this.t, pri: 1, seq: this.seq++, id, fn });
    return { id };
  }

  /**
   * A timer due at `at` that fires among the timers of its instant as if it had been set at virtual
   * time `createdAt` (≤ now), before every timer actually set at that time: the order a timer set
   * back then by something that ran first at that instant would have. The kubelet fleet's elided
   * Lease renewals (kubelet/lease-elision.ts) use it to become real timers at the place in the
   * instant the renewal's own timer would have had.
   */
  setTimerAt(fn: () => void, at: number, createdAt: number): TimerHandle {
    const id = this.nextId++;
    this.heap.push({
      at: Math.max(at, this.t),
      created: Math.min(createdAt, this.t),
      pri: 0,
      seq: this.seq++,
      id,
      fn,
    });
    return { id };
  }

  clearTimer(handle: TimerHandle): void {
    this.cancelled.add(handle.id);
  }

  /** number of timers not yet fired or cleared */
  get pending(): number {
    return this.heap.size - this.cancelled.size;
  }

  /** time of the next timer, or undefined */
  peek(): number | undefined {
    this.dropCancelledTop();
    return this.heap.peek()?.at;
  }

  /** fire the earliest timer (moving time to it); false when none is left */
  runNext(): boolean {
    this.dropCancelledTop();
    const top = this.heap.pop();
    if (!top) return false;
    this.t = Math.max(this.t, top.at);
    top.fn();
    return true;
  }

  /** move time forward by ms, firing every timer due on the way (including ones they schedule) */
  advance(ms: number): void {
    this.advanceTo(this.t + ms);
  }

  advanceTo(target: number): void {
    for (;;) {
      const next = this.peek();
      if (next === undefined || next > target) break;
      this.runNext();
    }
    this.t = Math.max(this.t, target);
  }

  private dropCancelledTop(): void {
    for (let top = this.heap.peek(); top && this.cancelled.has(top.id); top = this.heap.peek()) {
      this.cancelled.delete(top.id);
      this.heap.pop();
    }
  }
}

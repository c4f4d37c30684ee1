/**
 * The discrete-event loop of a simulation. Time is a {@link ManualClock}: every component schedules
 * its future work (heartbeats, latencies, backoffs, timeline actions) as clock timers; the loop
 * repeatedly lets all promise chains settle (watch deliveries, ApiServer calls, controller syncs)
 * and then jumps the clock to the next timer. Nothing waits in real time, so an hour of cluster
 * life takes seconds, and with the same seed and inputs every run takes the same steps.
 *
 * Worked example: t=0 a pod is created; the scheduler's watch fires within the same instant (the
 * loop settles), it binds; the kubelet schedules "sandbox ready" at t=0.62s; the loop jumps there…
 */
import { ManualClock } from '../util/clock.js';

export interface LoopOptions {
  /** virtual start time (ms since epoch); default 2026-01-01T00:00:00Z */
  startMs?: number;
  /** extra settling between steps (e.g. the memory store's settle(): watchers catching up) */
  settle?: () => Promise<void>;
}

const immediate = () => new Promise<void>((r) => setImmediate(r));

export class SimLoop {
  readonly clock: ManualClock;
  readonly startMs: number;
  private readonly extraSettle?: () => Promise<void>;
  /** timers fired so far */
  steps = 0;

  constructor(opts: LoopOptions = {}) {
    this.startMs = opts.startMs ?? Date.UTC(2026, 0, 1);
    this.clock = new ManualClock(this.startMs);
    this.extraSettle = opts.settle;
  }

  /** virtual seconds since the start */
  get elapsedMs(): number {
    return this.clock.now() - this.startMs;
  }

  /** let every runnable promise chain and queued watch delivery finish (virtual time stands still) */
  async settle(): Promise<void> {
    await immediate();
    if (this.extraSettle) {
      await this.extraSettle();
      await immediate();
    }
  }

  /**
   * Run until virtual time `untilMs` (absolute): fire timers in order, settling after each instant.
   * `onInstant` runs after each settled instant (metrics sampling, progress).
   */
  async runUntil(untilMs: number, onInstant?: (nowMs: number) => void): Promise<void> {
    await this.settle();
    for (;;) {
      const next = this.clock.peek();
      if (next === undefined || next > untilMs) break;
      // fire everything due at this instant, then settle once
      this.clock.runNext();
      this.steps++;
      while (this.clock.peek() === next) {
        this.clock.runNext();
        this.steps++;
      }
      await this.settle();
      onInstant?.(this.clock.now());
    }
    this.clock.advanceTo(untilMs);
  }

  /** run for `ms` more virtual milliseconds */
  runFor(ms: number, onInstant?: (nowMs: number) => void): Promise<void> {
    return this.runUntil(this.clock.now() + ms, onInstant);
  }
}

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
  /** timers fired at the current instant so far (the one firing now not counted) */
  firedAtInstant = 0;
  private instant = Number.NaN;
  /**
   * Called before the first timer of each instant fires, with its time, and at the end of
   * {@link runUntil} with its target and `through` (nothing else is due up to and at it): work that
   * stands for timers nobody set (the kubelet fleet's elided Lease renewals)
   */
  beforeInstant?: (t: number, through: boolean) => void;

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
      if (next !== this.instant) {
        this.instant = next;
        this.firedAtInstant = 0;
        this.beforeInstant?.(next, false);
      }
      // fire everything due at this instant, then settle once
      do {
        this.clock.runNext();
        this.steps++;
        this.firedAtInstant++;
      } while (this.clock.peek() === next);
      await this.settle();
      onInstant?.(this.clock.now());
    }
    this.beforeInstant?.(untilMs, true);
    this.clock.advanceTo(untilMs);
  }

  /** run for `ms` more virtual milliseconds */
  runFor(ms: number, onInstant?: (nowMs: number) => void): Promise<void> {
    return this.runUntil(this.clock.now() + ms, onInstant);
  }
}

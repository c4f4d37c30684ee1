/**
 * Runs a simulation's virtual clock against the wall clock for `kubesim serve`: every tick the
 * loop is run up to `start + wall elapsed × speed`, so controllers, the scheduler and the kubelet
 * model act on what HTTP clients create while they watch. Paused, virtual time stands still but
 * work due at the current instant still happens (a created pod is still scheduled); `step` moves
 * time by a given amount. The control endpoint (`/kubesim/v1/clock`) drives these.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest } from '../api/errors.js';
import type { SimLoop } from '../sim/loop.js';
import { parseDuration } from '../util/scenario-input.js';
import { sendJson } from './respond.js';

export interface RealtimeOptions {
  /** virtual seconds per wall second (default 1) */
  speed?: number;
  paused?: boolean;
  /** wall milliseconds between ticks (default 20) */
  tickMs?: number;
}

export interface ClockStatus {
  now: string;
  elapsedSeconds: number;
  paused: boolean;
  speed: number;
}

export class RealtimeDriver {
  private speed: number;
  private paused: boolean;
  private readonly tickMs: number;
  /** the wall time and virtual time the current speed is measured from */
  private wall0 = 0;
  private virt0 = 0;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  /** serializes loop runs: ticks and steps never overlap */
  private busy: Promise<void> = Promise.resolve();

  constructor(
    private readonly loop: SimLoop,
    opts: RealtimeOptions = {},
  ) {
    this.speed = opts.speed ?? 1;
    this.paused = opts.paused ?? false;
    this.tickMs = opts.tickMs ?? 20;
    if (!(this.speed > 0)) throw new Error(`speed must be > 0, got ${this.speed}`);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.rebase();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    await this.busy;
  }

  status(): ClockStatus {
    const now = this.loop.clock.now();
    return {
      now: new Date(now).toISOString(),
      elapsedSeconds: (now - this.loop.startMs) / 1000,
      paused: this.paused,
      speed: this.speed,
    };
  }

  setPaused(paused: boolean): void {
    this.paused = paused;
    this.rebase();
  }

  setSpeed(speed: number): void {
    if (!(speed > 0) || !Number.isFinite(speed)) throw badRequest(`speed must be a number > 0, got ${speed}`);
    this.speed = speed;
    this.rebase();
  }

  /** Move virtual time forward by ms (running every timer on the way), paused or not. */
  step(ms: number): Promise<void> {
    return this.exclusive(async () => {
      await this.loop.runFor(ms);
      this.rebase();
    });
  }

  private rebase(): void {
    this.wall0 = performance.now();
    this.virt0 = this.loop.clock.now();
  }

  private exclusive(fn: () => Promise<void>): Promise<void> {
    const next = this.busy.then(fn);
    this.busy = next.catch(() => {});
    return next;
  }

  private schedule(): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      void this.exclusive(async () => {
        const target = this.paused
          ? this.loop.clock.now()
          : this.virt0 + (performance.now() - this.wall0) * this.speed;
        await this.loop.runUntil(Math.max(target, this.loop.clock.now()));
      }).finally(() => this.schedule());
    }, this.tickMs);
  }
}

/**
 * `GET /kubesim/v1/clock` → {now, elapsedSeconds, paused, speed};
 * `POST /kubesim/v1/clock?paused=true|false&speed=X&step=30s` changes them (step moves time by the
 * duration, then answers).
 */
export function clockRoute(driver: RealtimeDriver) {
  return async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> => {
    if (url.pathname !== '/kubesim/v1/clock') return false;
    if (req.method === 'POST') {
      const q = url.searchParams;
      const paused = q.get('paused');
      if (paused !== null) {
        if (paused !== 'true' && paused !== 'false') throw badRequest('paused: expected true or false');
        driver.setPaused(paused === 'true');
      }
      const speed = q.get('speed');
      if (speed !== null) driver.setSpeed(Number(speed));
      const step = q.get('step');
      if (step !== null) {
        let ms: number;
        try {
          ms = parseDuration(step, 'step');
        } catch (e) {
          throw badRequest((e as Error).message);
        }
        await driver.step(ms);
      }
    } else if (req.method !== 'GET') return false;
    sendJson(res, 200, driver.status());
    return true;
  };
}

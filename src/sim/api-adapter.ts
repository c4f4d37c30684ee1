/**
 * Connects components to the ApiServer (src/api/apiserver.ts) as clients do, adding two things
 * real clients see and the simulation wants to measure:
 *
 * - 429 handling like client-go's REST client: a TooManyRequests answer is retried after its
 *   Retry-After (1 s, in virtual time), up to 10 times; every 429 and retry is counted;
 * - watch delivery latency: events reach the handler `watchLatencyMs` (plus seeded jitter) after
 *   the store committed them, in commit order (the "slow etcd / overloaded apiserver makes
 *   controllers lag" knob).
 */
import type { ApiServer } from '../api/apiserver.js';
import { evictPod, isBudgetError } from '../api/apiserver-evict.js';
import type { Binding, KubeObject } from '../api/types.js';
import type {
  ApiClient,
  DeleteOptions,
  ListOptions,
  WatchEvent,
  WatchHandle,
  WatchOptions,
} from '../client/api.js';
import { isTooManyRequests } from '../client/api.js';
import type { Clock } from '../util/clock.js';
import type { Rng } from '../util/rng.js';

export interface AdapterOptions {
  clock: Clock;
  /** retries after a 429 (client-go maxRetries: 10) */
  maxRetries?: number;
  /** fixed watch delivery latency in ms (default 0) */
  watchLatencyMs?: number;
  /** extra uniform jitter in [0, watchJitterMs) per event */
  watchJitterMs?: number;
  rng?: Rng;
}

export interface ClientStats {
  requests: number;
  tooManyRequests: number;
  retries: number;
  /** 429s that exhausted the retries and reached the caller */
  failedAfterRetries: number;
  watchEvents: number;
  /** virtual time (ms) of each 429, for charts */
  throttledAt: number[];
  /** how long each call took as the caller saw it (service time, 429 waits and retries), ms */
  latency: LatencyHistogram;
}

/**
 * Request latencies in log-spaced buckets (2 % wide, from 0.01 ms): percentiles within 2 % at a
 * fixed few kilobytes, however many requests a run makes.
 */
export class LatencyHistogram {
  private static readonly MIN = 0.01;
  private static readonly STEP = Math.log(1.02);
  private readonly counts = new Map<number, number>();
  count = 0;

  add(ms: number): void {
    const b =
      ms <= LatencyHistogram.MIN
        ? -1
        : Math.floor(Math.log(ms / LatencyHistogram.MIN) / LatencyHistogram.STEP);
    this.counts.set(b, (this.counts.get(b) ?? 0) + 1);
    this.count++;
  }

  /** merge another histogram into this one */
  addAll(h: LatencyHistogram): void {
    for (const [b, n] of h.counts) this.counts.set(b, (this.counts.get(b) ?? 0) + n);
    this.count += h.count;
  }

  /** the p-th percentile (0 < p ≤ 100): the upper edge of the bucket holding it; 0 with no data */
  percentile(p: number): number {
    if (!this.count) return 0;
    const rank = Math.ceil((p / 100) * this.count);
    let seen = 0;
    for (const b of [...this.counts.keys()].sort((x, y) => x - y)) {
      seen += this.counts.get(b)!;
      if (seen >= rank) return b < 0 ? 0 : LatencyHistogram.MIN * Math.exp((b + 1) * LatencyHistogram.STEP);
    }
    return 0;
  }
}

export class ServerClient implements ApiClient {
  readonly stats: ClientStats = {
    requests: 0,
    tooManyRequests: 0,
    retries: 0,
    failedAfterRetries: 0,
    watchEvents: 0,
    throttledAt: [],
    latency: new LatencyHistogram(),
  };

  constructor(
    readonly server: ApiServer,
    private readonly o: AdapterOptions,
  ) {}

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    const max = this.o.maxRetries ?? 10;
    const t0 = this.o.clock.now();
    for (let attempt = 0; ; attempt++) {
      this.stats.requests++;
      try {
        const r = await fn();
        this.stats.latency.add(this.o.clock.now() - t0);
        return r;
      } catch (err) {
        // a disruption budget's 429 carries no Retry-After: it is the caller's to retry (kubectl drain)
        if (!isTooManyRequests(err) || isBudgetError(err)) throw err;
        this.stats.tooManyRequests++;
        this.stats.throttledAt.push(this.o.clock.now());
        if (attempt >= max) {
          this.stats.failedAfterRetries++;
          throw err;
        }
        this.stats.retries++;
        const after =
          ((err as { details?: { retryAfterSeconds?: number } }).details?.retryAfterSeconds ?? 1) * 1000;
        await new Promise<void>((r) => this.o.clock.setTimer(r, after));
      }
    }
  }

  create<T extends KubeObject>(_resource: string, obj: T): Promise<T> {
    return this.call(() => this.server.create(obj));
  }
  get<T extends KubeObject>(resource: string, namespace: string | undefined, name: string): Promise<T> {
    return this.call(() => this.server.get<T>(resource, namespace, name));
  }
  list<T extends KubeObject>(resource: string, opts?: ListOptions) {
    return this.call(() => this.server.list<T>(resource, opts));
  }
  update<T extends KubeObject>(_resource: string, obj: T): Promise<T> {
    return this.call(() => this.server.update(obj));
  }
  updateStatus<T extends KubeObject>(_resource: string, obj: T): Promise<T> {
    return this.call(() => this.server.updateStatus(obj));
  }
  async delete(
    resource: string,
    namespace: string | undefined,
    name: string,
    opts?: DeleteOptions,
  ): Promise<void> {
    await this.call(() => this.server.delete(resource, namespace, name, opts));
  }
  bind(binding: Binding): Promise<void> {
    return this.call(() => this.server.bind(binding));
  }
  /** POST pods/<name>/eviction (src/api/apiserver-evict.ts) */
  evict(namespace: string, name: string): Promise<void> {
    return this.call(() => evictPod(this.server, namespace, name));
  }

  watch<T extends KubeObject>(
    resource: string,
    opts: WatchOptions,
    handler: (ev: WatchEvent<T>) => void,
  ): Promise<WatchHandle> {
    const lat = this.o.watchLatencyMs ?? 0;
    const jitter = this.o.watchJitterMs ?? 0;
    const clock = this.o.clock;
    const rng = this.o.rng;
    let lastAt = 0;
    let stopped = false;
    const deliver = (ev: WatchEvent<T>) => {
      this.stats.watchEvents++;
      if (lat <= 0 && jitter <= 0) {
        handler(ev);
        return;
      }
      const at = Math.max(lastAt, clock.now() + lat + (jitter > 0 && rng ? rng.next() * jitter : 0));
      lastAt = at;
      clock.setTimer(() => {
        if (!stopped) handler(ev);
      }, at - clock.now());
    };
    return this.server.watch<T>(resource, opts, deliver as never).then((h) => ({
      stop: () => {
        stopped = true;
        void h.stop();
      },
    }));
  }
}

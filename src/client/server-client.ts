/**
 * Connects components to the ApiServer (src/api/apiserver.ts) as clients do, adding three things
 * real clients see and the simulation wants to measure:
 *
 * - client-go's client-side rate limit: every request (each retry too; not watches, which
 *   client-go's Request.Watch leaves unthrottled) first takes a token from the client's token
 *   bucket (flowcontrol.NewTokenBucketRateLimiter(qps, burst), the rest.Config QPS/Burst) and waits
 *   in virtual time when it is empty. A component with several upstream clients (every
 *   kube-controller-manager controller builds its own from the ClientBuilder; every kubelet is a
 *   process) takes a view per client with {@link ServerClient.as}, or a key per request
 *   (`limitKey`), each with a bucket of its own;
 * - 429 handling like client-go's REST client: a TooManyRequests answer is retried after its
 *   Retry-After (1 s, in virtual time), up to 10 times; every 429 and retry is counted;
 * - watch delivery latency: events reach the handler `watchLatencyMs` (plus seeded jitter) after
 *   the store committed them, in commit order (the "slow etcd / overloaded apiserver makes
 *   controllers lag" knob).
 */
import type { ApiServer } from '../api/apiserver.js';
import { evictPod, isBudgetError } from '../api/apiserver-evict.js';
import type { Binding, KubeObject } from '../api/types.js';
import type { ApiClient, DeleteOptions, ListOptions, WatchEvent, WatchHandle, WatchOptions } from './api.js';
import { isTooManyRequests } from './api.js';
import type { Clock } from '../util/clock.js';
import type { Rng } from '../util/rng.js';
import { BucketRateLimiter } from './workqueue.js';

export interface AdapterOptions {
  clock: Clock;
  /** retries after a 429 (client-go maxRetries: 10) */
  maxRetries?: number;
  /** fixed watch delivery latency in ms (default 0) */
  watchLatencyMs?: number;
  /** extra uniform jitter in [0, watchJitterMs) per event */
  watchJitterMs?: number;
  rng?: Rng;
  /** client-side QPS and burst (rest.Config); absent: no client-side limit */
  rateLimit?: ClientRateLimit;
  /** the bucket a request takes its token from, when requests of one client use several */
  limitKey?: (resource: string, obj?: KubeObject, name?: string) => string;
}

/** rest.Config QPS and Burst. */
export interface ClientRateLimit {
  qps: number;
  burst: number;
}

/**
 * The components' default client-side limits, as upstream defaults them:
 * kube-controller-manager --kube-api-qps/--kube-api-burst 20/30
 * (pkg/controller/apis/config/v1alpha1/defaults.go), kube-scheduler clientConnection 50/100
 * (pkg/scheduler/apis/config/v1/defaults.go), kubelet kubeAPIQPS/kubeAPIBurst 50/100
 * (pkg/kubelet/apis/config/v1beta1/defaults.go), and client-go's own rest.DefaultQPS/DefaultBurst
 * 5/10 for any other client.
 */
export const CLIENT_RATE_LIMITS = {
  controllerManager: { qps: 20, burst: 30 },
  scheduler: { qps: 50, burst: 100 },
  kubelet: { qps: 50, burst: 100 },
  clientGo: { qps: 5, burst: 10 },
} as const satisfies Record<string, ClientRateLimit>;

export interface ClientStats {
  requests: number;
  tooManyRequests: number;
  retries: number;
  /** 429s that exhausted the retries and reached the caller */
  failedAfterRetries: number;
  watchEvents: number;
  /** virtual time (ms) of each 429, for charts */
  throttledAt: number[];
  /** requests that waited for a token of the client-side rate limit, and their total wait */
  clientWaits: number;
  clientWaitMs: number;
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

  add(ms: number, times = 1): void {
    const b =
      ms <= LatencyHistogram.MIN
        ? -1
        : Math.floor(Math.log(ms / LatencyHistogram.MIN) / LatencyHistogram.STEP);
    this.counts.set(b, (this.counts.get(b) ?? 0) + times);
    this.count += times;
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
    clientWaits: 0,
    clientWaitMs: 0,
    latency: new LatencyHistogram(),
  };
  private readonly buckets = new Map<string, BucketRateLimiter<void>>();
  /** the rate limit applies once {@link startRateLimits} was called */
  private limiting = false;

  constructor(
    readonly server: ApiServer,
    private readonly o: AdapterOptions,
  ) {}

  /**
   * From now on requests wait for their bucket's tokens. Until then (a simulation's set-up, while
   * its clock stands still) they do not: a wait on a clock nobody advances would never end.
   */
  startRateLimits(): void {
    this.limiting = true;
  }

  /**
   * How long a request must wait for a token of bucket `key` (client-go's Request.tryThrottle);
   * 0 without a limit or with a token at hand. Synchronous, so a request that need not wait takes
   * no extra promise tick and runs in the order it would without limits.
   */
  private throttleMs(key: string): number {
    const rl = this.o.rateLimit;
    if (!rl || !this.limiting) return 0;
    let b = this.buckets.get(key);
    if (!b) this.buckets.set(key, (b = new BucketRateLimiter<void>(this.o.clock, rl.qps, rl.burst)));
    const wait = b.when(undefined);
    this.onTake?.(key);
    if (wait <= 0) return 0;
    this.stats.clientWaits++;
    this.stats.clientWaitMs += wait;
    return wait;
  }

  /**
   * Called after a request took a token of bucket `key`: the kubelet fleet's elided Lease renewals
   * (kubelet/lease-elision.ts) check that their node's bucket will still have one for them.
   */
  onTake?: (key: string) => void;

  /**
   * The tokens a request sent at virtual time `atMs` (no earlier than the bucket's last take) would
   * find in bucket `key`; Infinity when requests wait for none.
   */
  tokensAt(key: string, atMs: number): number {
    const rl = this.o.rateLimit;
    if (!rl || !this.limiting) return Infinity;
    return this.buckets.get(key)?.tokensAt(atMs) ?? rl.burst;
  }

  /**
   * Books a request the caller did not send, sent at virtual time `atMs` (no earlier than the
   * bucket's last take) and answered in the same instant: its token of bucket `key` is taken at
   * that time, and it counts as a request with a latency of 0. Only for a request that had a
   * token at hand ({@link tokensAt} ≥ 1): it would not have waited.
   */
  bookAnswered(key: string, atMs: number): void {
    const rl = this.o.rateLimit;
    if (rl && this.limiting) {
      let b = this.buckets.get(key);
      if (!b) this.buckets.set(key, (b = new BucketRateLimiter<void>(this.o.clock, rl.qps, rl.burst, atMs)));
      b.takeAt(atMs);
    }
    this.stats.requests++;
    this.stats.latency.add(0);
  }

  /** the bucket of a request: the view's, or `limitKey`'s */
  private keyFor(key: string | undefined, resource: string, obj?: KubeObject, name?: string): string {
    return key ?? this.o.limitKey?.(resource, obj, name) ?? '';
  }

  /**
   * This client as another upstream client with a rate limiter of its own (one per
   * kube-controller-manager controller): the same connection and counters, bucket `key`.
   */
  as(key: string): ApiClient {
    const view: ApiClient = {
      create: (r, obj) => this.create(r, obj, key),
      get: (r, ns, name) => this.get(r, ns, name, key),
      list: (r, opts) => this.list(r, opts, key),
      update: (r, obj) => this.update(r, obj, key),
      updateStatus: (r, obj) => this.updateStatus(r, obj, key),
      delete: (r, ns, name, opts) => this.delete(r, ns, name, opts, key),
      bind: (b) => this.bind(b, key),
      watch: (r, opts, handler) => this.watch(r, opts, handler),
    };
    return view;
  }

  private async call<T>(fn: () => Promise<T>, key = ''): Promise<T> {
    const max = this.o.maxRetries ?? 10;
    const t0 = this.o.clock.now();
    for (let attempt = 0; ; attempt++) {
      const wait = this.throttleMs(key);
      if (wait > 0) await new Promise<void>((r) => this.o.clock.setTimer(r, wait));
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

  create<T extends KubeObject>(resource: string, obj: T, key?: string): Promise<T> {
    return this.call(() => this.server.create(obj), this.keyFor(key, resource, obj));
  }
  get<T extends KubeObject>(
    resource: string,
    namespace: string | undefined,
    name: string,
    key?: string,
  ): Promise<T> {
    return this.call(
      () => this.server.get<T>(resource, namespace, name),
      this.keyFor(key, resource, undefined, name),
    );
  }
  list<T extends KubeObject>(resource: string, opts?: ListOptions, key?: string) {
    return this.call(() => this.server.list<T>(resource, opts), this.keyFor(key, resource));
  }
  update<T extends KubeObject>(resource: string, obj: T, key?: string): Promise<T> {
    return this.call(() => this.server.update(obj), this.keyFor(key, resource, obj));
  }
  updateStatus<T extends KubeObject>(resource: string, obj: T, key?: string): Promise<T> {
    return this.call(() => this.server.updateStatus(obj), this.keyFor(key, resource, obj));
  }
  async delete(
    resource: string,
    namespace: string | undefined,
    name: string,
    opts?: DeleteOptions,
    key?: string,
  ): Promise<void> {
    await this.call(
      () => this.server.delete(resource, namespace, name, opts),
      this.keyFor(key, resource, undefined, name),
    );
  }
  bind(binding: Binding, key?: string): Promise<void> {
    return this.call(() => this.server.bind(binding), this.keyFor(key, 'bindings', binding));
  }
  /** POST pods/<name>/eviction (src/api/apiserver-evict.ts) */
  evict(namespace: string, name: string): Promise<void> {
    return this.call(
      () => evictPod(this.server, namespace, name),
      this.keyFor(undefined, 'pods', undefined, name),
    );
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
    // in-process informers share one frozen decode per event (read-only, as client-go's caches are)
    return this.server.watch<T>(resource, { ...opts, sharedObjects: true }, deliver as never).then((h) => ({
      stop: () => {
        stopped = true;
        void h.stop();
      },
    }));
  }
}

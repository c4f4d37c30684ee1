/**
 * EtcdStore: the KvStore contract (src/store/types.ts) on a real etcd v3 server, through the
 * etcd3 package's raw gRPC clients (`kv`, `watchClient`, `leaseClient`), which take etcd's
 * protobuf-shaped messages. The high-level builder API is not used: it hides prevKv,
 * ignoreValue/ignoreLease, sorting, min/max revisions, nested txns and the watch filters.
 *
 * Connections: one gRPC channel (one TCP connection, shared by the KV, Watch and Lease services);
 * each watcher is one HTTP/2 stream on it, so its progress requests and cancellation concern that
 * watcher only; lease keep-alives share one lazily opened stream.
 *
 * Retries and circuit breakers of etcd3 are switched off: a request is sent exactly once, so the
 * answers (and the revisions they create) are what etcd did for that one request. With several
 * endpoints, one whose call failed UNAVAILABLE (a dead member) is passed over for a second, so the
 * next requests go to the live members (EndpointPolicy).
 */
import type {
  Etcd3,
  IDuplexStream,
  IEvent,
  ILeaseKeepAliveRequest,
  ILeaseKeepAliveResponse,
  IWatchRequest,
  IWatchResponse,
} from 'etcd3';
import { etcd3 } from './etcd3.js';
import {
  GrpcCode,
  StoreError,
  type CompactionRequest,
  type CompactionResponse,
  type DeleteRangeRequest,
  type DeleteRangeResponse,
  type KvStore,
  type LeaseGrantResponse,
  type LeaseId,
  type LeaseKeepAliveResponse,
  type LeaseRevokeResponse,
  type LeaseTimeToLiveResponse,
  type PutRequest,
  type PutResponse,
  type RangeRequest,
  type RangeResponse,
  type TxnRequest,
  type TxnResponse,
  type WatchCreateRequest,
  type WatchResponse,
  type Watcher,
} from '../types.js';
import {
  fromDeleteResponse,
  fromEvent,
  fromPutResponse,
  fromRangeResponse,
  fromTxnResponse,
  headerRevision,
  num,
  toDeleteRequest,
  toPutRequest,
  toRangeRequest,
  toStoreError,
  toTxnRequest,
  toWatchCreate,
  type ConvertContext,
} from './convert.js';
import { compareKeys } from '../keybytes.js';
import { Keyspace } from './keyspace.js';
import { LeaseIdTable } from './lease-ids.js';

/** Options of {@link EtcdStore}. */
export interface EtcdStoreOptions {
  /** client URL(s), e.g. "http://127.0.0.1:2379" */
  endpoints: string | string[];
  /**
   * Key prefix (namespace) under which this store lives, like clientv3/namespace: every key is
   * stored as prefix+key and ranges never leave the prefix. Revisions are still etcd-wide.
   */
  prefix?: string;
  /** deadline of each unary call in ms (default 30 000); 0 = none */
  callTimeoutMs?: number;
  /**
   * TLS to https:// endpoints (kube-apiserver's --etcd-cafile, --etcd-certfile, --etcd-keyfile):
   * PEM of the CA to trust (absent: the system's roots) and of a client certificate and its key
   */
  tls?: { ca?: Buffer; cert?: Buffer; key?: Buffer };
}

/**
 * A policy that runs the call once: no retries, no circuit breaker (cockatiel's IPolicy shape).
 * async, so that a synchronous throw becomes a rejection (etcd3's markFailed relies on that).
 */
const runOnce = {
  async execute<T>(fn: (ctx: { signal: AbortSignal; attempt: number }) => PromiseLike<T> | T): Promise<T> {
    return fn({ signal: new AbortController().signal, attempt: 0 });
  },
};

/** gRPC UNAVAILABLE: the endpoint could not be reached (refused, reset, no connection) */
const UNAVAILABLE = 14;
/** how long an endpoint that answered UNAVAILABLE is passed over while others are left */
const HOST_DOWN_MS = 1000;

/**
 * One endpoint's policy when there are several (cockatiel's IPolicy shape, as runOnce): the call
 * runs once; an endpoint whose call failed UNAVAILABLE is passed over for HOST_DOWN_MS — the pool
 * (etcd3 ConnectionPool.withConnection) then takes the next endpoint — as clientv3's balancer moves
 * off an unhealthy member. The call that met the failure is not retried: it may have reached etcd.
 */
class EndpointPolicy {
  private downUntil = 0;
  constructor(private readonly endpoint: string) {}

  async execute<T>(fn: (ctx: { signal: AbortSignal; attempt: number }) => PromiseLike<T> | T): Promise<T> {
    if (Date.now() < this.downUntil)
      throw new StoreError(
        `${this.endpoint} is unreachable (passed over for ${HOST_DOWN_MS} ms)`,
        UNAVAILABLE,
      );
    try {
      return await fn({ signal: new AbortController().signal, attempt: 0 });
    } catch (e) {
      const err = toStoreError(e);
      if (err instanceof StoreError && err.code === UNAVAILABLE) this.downUntil = Date.now() + HOST_DOWN_MS;
      throw e;
    }
  }
}

type KeepAliveStream = IDuplexStream<ILeaseKeepAliveRequest, ILeaseKeepAliveResponse>;

/** See the module comment. */
export class EtcdStore implements KvStore {
  /** etcd keeps the values after this process: writers encode them portably (KvStore.durable) */
  readonly durable = true;
  private readonly client: Etcd3;
  private readonly ctx: ConvertContext;
  private readonly callTimeoutMs: number;
  private readonly watchers = new Set<EtcdWatcher>();
  private nextWatchId = 0;
  private keepAlive?: {
    stream: KeepAliveStream;
    pending: Map<
      string,
      Array<{ resolve: (r: ILeaseKeepAliveResponse) => void; reject: (e: Error) => void }>
    >;
  };
  private closed = false;

  constructor(readonly options: EtcdStoreOptions) {
    if (!options || (typeof options.endpoints !== 'string' && !Array.isArray(options.endpoints))) {
      throw new TypeError('EtcdStore: options.endpoints must be a URL string or an array of them');
    }
    if (options.prefix !== undefined && typeof options.prefix !== 'string') {
      throw new TypeError(`EtcdStore: options.prefix must be a string, got ${typeof options.prefix}`);
    }
    if (
      options.callTimeoutMs !== undefined &&
      !(Number.isFinite(options.callTimeoutMs) && options.callTimeoutMs >= 0)
    ) {
      throw new TypeError(
        `EtcdStore: options.callTimeoutMs must be a number >= 0, got ${String(options.callTimeoutMs)}`,
      );
    }
    const hosts = options.endpoints;
    const tls = options.tls;
    this.client = new (etcd3().Etcd3)({
      hosts,
      // grpc-js createSsl: a null root certificate means the system's roots
      credentials: tls && {
        rootCertificate: tls.ca as Buffer,
        privateKey: tls.key,
        certChain: tls.cert,
      },
      faultHandling: {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        host: (h: string) =>
          (Array.isArray(hosts) && hosts.length > 1 ? new EndpointPolicy(h) : runOnce) as any,
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        global: runOnce as any,
      },
    });
    this.ctx = { keys: new Keyspace(options.prefix ?? ''), leases: new LeaseIdTable() };
    this.callTimeoutMs = options.callTimeoutMs ?? 30_000;
  }

  /** The key prefix (namespace) of this store; "" when none. */
  get prefix(): string {
    return this.ctx.keys.prefix;
  }

  private callOptions(): { deadline?: number } {
    return this.callTimeoutMs > 0 ? { deadline: Date.now() + this.callTimeoutMs } : {};
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreError('store is closed', GrpcCode.FAILED_PRECONDITION);
    try {
      return await fn();
    } catch (e) {
      throw toStoreError(e);
    }
  }

  async range(req: RangeRequest): Promise<RangeResponse> {
    const r = await this.call(() => this.client.kv.range(toRangeRequest(req, this.ctx), this.callOptions()));
    return fromRangeResponse(r, this.ctx);
  }

  async put(req: PutRequest): Promise<PutResponse> {
    const r = await this.call(() => this.client.kv.put(toPutRequest(req, this.ctx), this.callOptions()));
    return fromPutResponse(r, this.ctx);
  }

  async deleteRange(req: DeleteRangeRequest): Promise<DeleteRangeResponse> {
    const r = await this.call(() =>
      this.client.kv.deleteRange(toDeleteRequest(req, this.ctx), this.callOptions()),
    );
    return fromDeleteResponse(r, this.ctx);
  }

  async txn(req: TxnRequest): Promise<TxnResponse> {
    const r = await this.call(() => this.client.kv.txn(toTxnRequest(req, this.ctx), this.callOptions()));
    return fromTxnResponse(r, this.ctx);
  }

  async compact(req: CompactionRequest): Promise<CompactionResponse> {
    const r = await this.call(() =>
      this.client.kv.compact({ revision: req.revision, physical: !!req.physical }, this.callOptions()),
    );
    return { header: { revision: headerRevision(r.header) } };
  }

  async currentRevision(): Promise<number> {
    // A count-only read of one key: the cheapest linearizable request that carries a header.
    const r = await this.call(() =>
      this.client.kv.range({ key: Buffer.from([0]), count_only: true }, this.callOptions()),
    );
    return headerRevision(r.header);
  }

  async watch(req: WatchCreateRequest, onResponse: (resp: WatchResponse) => void): Promise<Watcher> {
    if (this.closed) throw new StoreError('store is closed', GrpcCode.FAILED_PRECONDITION);
    const create = toWatchCreate(req, this.ctx);
    let stream: IDuplexStream<IWatchRequest, IWatchResponse>;
    try {
      stream = await this.client.watchClient.watch();
    } catch (e) {
      throw toStoreError(e);
    }
    if (this.closed) {
      stream.end();
      stream.cancel();
      throw new StoreError('store is closed', GrpcCode.FAILED_PRECONDITION);
    }
    const watcher = new EtcdWatcher(this.nextWatchId++, stream, this.ctx, onResponse, () =>
      this.watchers.delete(watcher),
    );
    this.watchers.add(watcher);
    try {
      await watcher.start(create);
    } catch (e) {
      this.watchers.delete(watcher);
      throw toStoreError(e);
    }
    return watcher;
  }

  async leaseGrant(ttl: number, id?: LeaseId): Promise<LeaseGrantResponse> {
    const r = await this.call(() =>
      this.client.leaseClient.leaseGrant(
        { TTL: ttl, ID: id ? this.ctx.leases.toEtcd(id) : 0 },
        this.callOptions(),
      ),
    );
    if (r.error) throw new StoreError(r.error.replace(/^etcdserver: /, ''), GrpcCode.FAILED_PRECONDITION);
    return {
      header: { revision: headerRevision(r.header) },
      id: this.ctx.leases.toLocal(r.ID),
      ttl: num(r.TTL),
    };
  }

  async leaseRevoke(id: LeaseId): Promise<LeaseRevokeResponse> {
    const r = await this.call(() =>
      this.client.leaseClient.leaseRevoke({ ID: this.ctx.leases.toEtcd(id) }, this.callOptions()),
    );
    return { header: { revision: headerRevision(r.header) } };
  }

  async leaseTimeToLive(id: LeaseId, opts?: { keys?: boolean }): Promise<LeaseTimeToLiveResponse> {
    const r = await this.call(() =>
      this.client.leaseClient.leaseTimeToLive(
        { ID: this.ctx.leases.toEtcd(id), keys: !!opts?.keys },
        this.callOptions(),
      ),
    );
    // etcd lists a lease's keys in map order; sorted here so answers are deterministic.
    const keys = (r.keys ?? [])
      .filter((k) => this.ctx.keys.owns(k))
      .map((k) => this.ctx.keys.fromEtcd(k))
      .sort(compareKeys);
    return {
      header: { revision: headerRevision(r.header) },
      id,
      ttl: num(r.TTL),
      grantedTtl: num(r.grantedTTL),
      keys,
    };
  }

  /** One keep-alive round trip on the shared keep-alive stream (etcd answers in request order). */
  async leaseKeepAlive(id: LeaseId): Promise<LeaseKeepAliveResponse> {
    if (this.closed) throw new StoreError('store is closed', GrpcCode.FAILED_PRECONDITION);
    const ka = await this.keepAliveStream();
    const etcdId = this.ctx.leases.toEtcd(id);
    const r = await new Promise<ILeaseKeepAliveResponse>((resolve, reject) => {
      const q = ka.pending.get(etcdId) ?? [];
      q.push({ resolve, reject });
      ka.pending.set(etcdId, q);
      ka.stream.write({ ID: etcdId });
    });
    return { header: { revision: headerRevision(r.header) }, id, ttl: num(r.TTL) };
  }

  private async keepAliveStream(): Promise<NonNullable<EtcdStore['keepAlive']>> {
    if (this.keepAlive) return this.keepAlive;
    let stream: KeepAliveStream;
    try {
      stream = await this.client.leaseClient.leaseKeepAlive();
    } catch (e) {
      throw toStoreError(e);
    }
    if (this.keepAlive) {
      stream.end();
      return this.keepAlive;
    }
    const ka = {
      stream,
      pending: new Map<
        string,
        Array<{ resolve: (r: ILeaseKeepAliveResponse) => void; reject: (e: Error) => void }>
      >(),
    };
    this.keepAlive = ka;
    const failAll = (err: Error) => {
      if (this.keepAlive === ka) this.keepAlive = undefined;
      for (const q of ka.pending.values()) for (const p of q) p.reject(err);
      ka.pending.clear();
    };
    stream.on('data', (resp: ILeaseKeepAliveResponse) => {
      const q = ka.pending.get(String(resp.ID));
      const p = q?.shift();
      if (q && q.length === 0) ka.pending.delete(String(resp.ID));
      p?.resolve(resp);
    });
    stream.on('error', (e: Error) => failAll(toStoreError(e)));
    stream.on('end', () =>
      failAll(new StoreError('lease keep-alive stream ended', GrpcCode.FAILED_PRECONDITION)),
    );
    return ka;
  }

  /** Cancels every watcher, ends the keep-alive stream and closes the gRPC channel. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    await Promise.all([...this.watchers].map((w) => w.cancel()));
    this.closed = true;
    if (this.keepAlive) {
      const ka = this.keepAlive;
      this.keepAlive = undefined;
      ka.stream.end();
      for (const q of ka.pending.values())
        for (const p of q) p.reject(new StoreError('store is closed', GrpcCode.FAILED_PRECONDITION));
    }
    this.client.close();
  }
}

/**
 * One etcd watch on its own gRPC stream. Responses are passed on as etcd grouped them (a synced
 * watcher gets one revision per response, a catching-up one several); fragments of one response
 * (watch created with `fragment: true`) are joined before delivery, so a revision is never split.
 */
class EtcdWatcher implements Watcher {
  createdRevision = 0;
  private state: 'new' | 'creating' | 'active' | 'done' = 'new';
  private etcdWatchId = '0';
  private fragments: IEvent[] = [];
  private ended: Promise<void>;
  private markEnded!: () => void;
  /** rejects start() when the watch is canceled (or the store closed) before etcd confirmed it */
  private abortStart?: (err: Error) => void;

  constructor(
    readonly watchId: number,
    private readonly stream: IDuplexStream<IWatchRequest, IWatchResponse>,
    private readonly ctx: ConvertContext,
    private readonly onResponse: (resp: WatchResponse) => void,
    private readonly onDone: () => void,
  ) {
    this.ended = new Promise((r) => (this.markEnded = r));
  }

  start(create: IWatchRequest['create_request']): Promise<void> {
    this.state = 'creating';
    return new Promise<void>((resolve, reject) => {
      this.abortStart = reject;
      this.stream.on('data', (resp: IWatchResponse) => {
        if (this.state === 'creating') {
          if (!resp.created) return; // cannot happen: etcd answers a create first
          this.etcdWatchId = String(resp.watch_id);
          this.createdRevision = headerRevision(resp.header);
          this.state = 'active';
          resolve();
          if (resp.canceled) this.deliverCancel(resp, true); // e.g. an invalid range: created and canceled at once
          return;
        }
        if (this.state !== 'active') return;
        this.receive(resp);
      });
      const onEnd = (err?: Error) => {
        this.markEnded();
        if (this.state === 'creating') {
          this.state = 'done';
          this.onDone();
          reject(
            err ??
              new StoreError('watch stream ended before the watch was created', GrpcCode.FAILED_PRECONDITION),
          );
          return;
        }
        if (this.state === 'active') {
          const reason = err ? toStoreError(err).message : 'watch stream ended';
          this.finish();
          this.onResponse({
            header: { revision: 0 },
            watchId: this.watchId,
            events: [],
            canceled: true,
            cancelReason: reason,
          });
        }
      };
      this.stream.on('error', (e: Error) => onEnd(e));
      this.stream.on('end', () => onEnd());
      this.stream.write({ create_request: create });
    });
  }

  private receive(resp: IWatchResponse): void {
    const revision = headerRevision(resp.header);
    if (resp.canceled) {
      this.deliverCancel(resp);
      return;
    }
    const events = resp.events ?? [];
    if (resp.fragment) {
      for (const e of events) this.fragments.push(e);
      return;
    }
    let all = events;
    if (this.fragments.length > 0) {
      all = this.fragments.concat(events);
      this.fragments = [];
    }
    if (all.length === 0) {
      // No events, not created, not canceled: a progress notification (periodic, or the answer to
      // requestProgress, which etcd 3.4 sends with watch_id -1).
      this.onResponse({ header: { revision }, watchId: this.watchId, events: [], progress: true });
      return;
    }
    this.onResponse({
      header: { revision },
      watchId: this.watchId,
      events: all.map((e) => fromEvent(e, this.ctx)),
    });
  }

  private deliverCancel(resp: IWatchResponse, created = false): void {
    const out: WatchResponse = {
      header: { revision: headerRevision(resp.header) },
      watchId: this.watchId,
      events: [],
      ...(created ? { created: true } : {}),
      canceled: true,
    };
    const compactRevision = num(resp.compact_revision);
    if (compactRevision > 0) out.compactRevision = compactRevision;
    if (resp.cancel_reason) out.cancelReason = resp.cancel_reason.replace(/^etcdserver: /, '');
    this.finish();
    this.onResponse(out);
  }

  /**
   * Stop delivering and close the stream. etcd 3.4 keeps a watch stream open after the client's
   * half-close, so the stream is also canceled (RST_STREAM), which drops its watches server-side.
   * end() comes first: etcd3 only reacts to the resulting CANCELLED error (by resetting every
   * service of the host) while the stream is still writable.
   */
  private finish(): void {
    if (this.state === 'done') return;
    this.state = 'done';
    this.onDone();
    try {
      this.stream.end();
      this.stream.cancel();
    } catch {
      /* stream already closed */
    }
  }

  async cancel(): Promise<void> {
    if (this.state === 'done') return;
    if (this.state === 'creating')
      this.abortStart?.(new StoreError('watch canceled before it was created', GrpcCode.FAILED_PRECONDITION));
    if (this.state === 'active') {
      try {
        this.stream.write({ cancel_request: { watch_id: this.etcdWatchId } });
      } catch {
        /* stream already closed */
      }
    }
    this.finish();
    // wait (bounded) until the stream has closed
    await Promise.race([this.ended, new Promise((r) => setTimeout(r, 2000).unref())]);
  }

  requestProgress(): void {
    if (this.state !== 'active') return;
    this.stream.write({ progress_request: {} });
  }
}

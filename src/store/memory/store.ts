/**
 * MemoryStore: etcd 3.4's MVCC key-value store, in memory, with the KvStore contract.
 *
 * Data structure (a worked example, as etcd's key_index.go does it). After
 *
 *   rev 2: put a=1     rev 3: put a=2     rev 4: delete a     rev 5: put a=3     rev 6: put b=x
 *
 * the store holds
 *
 *   index (sorted-btree, and a Map for point lookups):
 *     "a" → [ {a=1 c2 m2 v1}, {a=2 c2 m3 v2}, {tomb m4 v0}, {a=3 c5 m5 v1} ]   two generations
 *     "b" → [ {b=x c6 m6 v1} ]
 *   change log (for watchers replaying history), in revision and op order:
 *     a@2, a@3, a(delete)@4, a@5, b@6
 *
 * A read at revision R takes, per key, the last record with modRevision <= R; a tombstone (version
 * 0) or no record means the key did not exist at R. Compaction at C keeps, per key, the last record
 * <= C unless it is a tombstone, drops everything older, and drops log entries below C (and the
 * tombstones at C, which is what etcd's "tombstone-at-compact-revision" quirk shows).
 *
 * Writes run inside a write "transaction" (begin/end): every record it adds gets revision
 * current+1, and the revision only moves when something changed. Returned KeyValue objects are the
 * stored records, shared with other readers: treat them as immutable (values included).
 */
import * as btree from 'sorted-btree';
import { WallClock, type Clock } from '../../util/clock.js';
import { compareKeys, orderKey } from '../keybytes.js';
import { inRange, upperBound } from '../keyrange.js';
export { compareBytes } from './txn-checks.js';
import {
  StoreErrors,
  type Compare,
  type CompactionRequest,
  type CompactionResponse,
  type DeleteRangeRequest,
  type DeleteRangeResponse,
  type KeyValue,
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
  type RequestOp,
  type ResponseOp,
  type TxnRequest,
  type TxnResponse,
  type Watcher,
  type WatchCreateRequest,
  type WatchResponse,
} from '../types.js';
import { Lessor, MIN_LEASE_TTL_SECONDS } from './lessor.js';
import { goSort } from './go-sort.js';
import {
  checkIntervals,
  checkKey,
  checkPut,
  checkRange,
  comparator,
  compareKv,
  isReadOnly,
  needsIntervalCheck,
  ZERO_KV,
} from './txn-checks.js';
import { WatchHub, type ChangeLog } from './watch-hub.js';
import { ValueSlab } from './value-slab.js';

export interface MemoryStoreOptions {
  /** time source for lease expiry and progress notifications (default: the wall clock) */
  clock?: Clock;
  /** period of progress notifications for watchers with progressNotify (etcd default: 10 min) */
  progressNotifyIntervalMs?: number;
  /** minimum lease TTL in seconds (etcd default with a 1 s election timeout: 2) */
  minLeaseTtlSeconds?: number;
  /** etcd --max-txn-ops (default 128) */
  maxTxnOps?: number;
}

// sorted-btree is CommonJS with `exports.default`; Node's ESM import hands us module.exports
// (and TypeScript types the namespace's `default` as the class): unwrap whichever layer is there.
type BTreeCtor = new <K, V>() => SortedIndex<K, V>;
const BTree: BTreeCtor =
  (btree.default as unknown as { default?: BTreeCtor }).default ?? (btree.default as unknown as BTreeCtor);

/** the part of sorted-btree's BTree the store uses */
interface SortedIndex<K, V> {
  readonly size: number;
  set(key: K, value: V): boolean;
  delete(key: K): boolean;
  maxKey(): K | undefined;
  forEach(fn: (value: V, key: K) => void): number;
  forRange(low: K, high: K, includeHigh: boolean, onFound: (k: K, v: V) => void): number;
}

const EMPTY = new Uint8Array(0);
type History = KeyValue[];

/** index of the last record with modRevision <= rev, or -1 */
function indexAt(h: History, rev: number): number {
  let lo = 0,
    hi = h.length - 1,
    found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (h[mid].modRevision <= rev) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export class MemoryStore implements KvStore, ChangeLog {
  private rev = 1;
  private compactRev = -1;
  private log: KeyValue[] = [];

  readonly clock: Clock;
  private readonly byKey = new Map<string, History>();
  private readonly tree = new BTree<string, History>();
  private readonly lessor: Lessor;
  private readonly hub: WatchHub;
  private readonly maxTxnOps: number;
  /** the stored values' bytes (value-slab.ts) */
  private readonly values = new ValueSlab();
  private closed = false;

  // the write in progress: records get revision `this.rev + 1`; `changes` counts them
  private writing = false;
  private changes = 0;
  private logMark = 0;

  constructor(opts: MemoryStoreOptions = {}) {
    this.clock = opts.clock ?? new WallClock();
    this.maxTxnOps = opts.maxTxnOps ?? 128;
    this.lessor = new Lessor(
      this.clock,
      (id) => this.expireLease(id),
      opts.minLeaseTtlSeconds ?? MIN_LEASE_TTL_SECONDS,
    );
    this.hub = new WatchHub(this, this.clock, opts.progressNotifyIntervalMs ?? 600_000);
  }

  /** the current revision (etcd: currentRev) */
  get revision(): number {
    return this.rev;
  }

  /** the compaction revision; -1 before any compaction (etcd: compactMainRev) */
  get compactRevision(): number {
    return this.compactRev;
  }

  /** the change log watchers replay history from: every retained record in (revision, op) order */
  get logKv(): readonly KeyValue[] {
    return this.log;
  }

  // ───────────────────────────── synchronous API (fast path) ─────────────────────────────

  /** Range, synchronously. Throws {@link StoreError}. */
  rangeSync(req: RangeRequest): RangeResponse {
    checkRange(req.key, req.rangeEnd);
    return this.doRange(req);
  }

  /** Put, synchronously. Throws {@link StoreError}. */
  putSync(req: PutRequest): PutResponse {
    checkPut(req);
    const lease = req.lease ?? 0;
    if (lease !== 0 && !this.lessor.lookup(lease)) throw StoreErrors.leaseNotFound();
    if ((req.ignoreValue || req.ignoreLease) && !this.live(req.key)) throw StoreErrors.keyNotFound();
    this.begin();
    const resp = this.doPut(req);
    this.end();
    return resp;
  }

  /**
   * The cheapest write: put `value` at `key` (no lease, no prevKv) and return the new revision.
   * Equivalent to `putSync({key, value}).header.revision`.
   */
  set(key: string, value: Uint8Array): number {
    if (!key) throw StoreErrors.keyNotProvided();
    checkKey(key);
    this.begin();
    this.write(key, value, 0);
    this.end();
    return this.rev;
  }

  /** the live record of a key, or undefined (a point read without the range machinery) */
  get(key: string): KeyValue | undefined {
    return this.live(key);
  }

  deleteRangeSync(req: DeleteRangeRequest): DeleteRangeResponse {
    checkRange(req.key, req.rangeEnd);
    this.begin();
    const resp = this.doDelete(req);
    this.end();
    return resp;
  }

  txnSync(req: TxnRequest): TxnResponse {
    this.checkTxn(req, this.maxTxnOps);
    if (needsIntervalCheck(req.success)) checkIntervals(req.success!);
    if (needsIntervalCheck(req.failure)) checkIntervals(req.failure!);
    // etcd compareToPath: every compare of the chosen path, nested ones included, sees the state before the txn
    const path: boolean[] = [];
    this.compareToPath(req, path);
    const isWrite = !isReadOnly(req);
    if (isWrite) this.checkPath(req, path, { i: 0 }, true, []);
    this.checkPath(req, path, { i: 0 }, false, []);
    if (isWrite) this.begin();
    let responses: ResponseOp[];
    try {
      responses = this.applyTxn(req, path, { i: 0 });
    } finally {
      if (isWrite) this.end();
    }
    return { header: { revision: this.rev }, succeeded: path[0], responses };
  }

  compactSync(req: CompactionRequest): CompactionResponse {
    const rev = req.revision;
    if (rev <= this.compactRev) throw StoreErrors.compacted();
    if (rev > this.rev) throw StoreErrors.futureRev();
    this.compactRev = rev;
    const drop: [order: string, key: string][] = [];
    this.tree.forEach((h, order) => {
      const idx = indexAt(h, rev);
      if (idx < 0) return;
      const key = h[0].key;
      const keepFrom = h[idx].version === 0 ? idx + 1 : idx;
      if (keepFrom > 0) h.splice(0, keepFrom);
      if (h.length === 0) drop.push([order, key]);
    });
    for (const [order, key] of drop) {
      this.tree.delete(order);
      this.byKey.delete(key);
    }
    // the change log keeps revisions >= rev, minus the tombstones at rev (physically removed in etcd)
    const cut = this.logIndexOf(rev);
    let end = cut;
    while (end < this.log.length && this.log[end].modRevision === rev) end++;
    const keep: KeyValue[] = [];
    for (let i = cut; i < end; i++) if (this.log[i].version !== 0) keep.push(this.log[i]);
    this.log = keep.concat(this.log.slice(end));
    // the survivors move to fresh blocks, so that the blocks of what was dropped can be freed
    this.values.repack(this.survivors());
    this.hub.onCompact();
    return { header: { revision: this.rev } };
  }

  leaseGrantSync(ttl: number, id?: LeaseId): LeaseGrantResponse {
    const lease = this.lessor.grant(ttl, id);
    return { header: { revision: this.rev }, id: lease.id, ttl: lease.ttl };
  }

  leaseRevokeSync(id: LeaseId): LeaseRevokeResponse {
    if (!this.lessor.lookup(id)) throw StoreErrors.leaseNotFound();
    this.expireLease(id);
    return { header: { revision: this.rev } };
  }

  leaseKeepAliveSync(id: LeaseId): LeaseKeepAliveResponse {
    return { header: { revision: this.rev }, id, ttl: this.lessor.renew(id) };
  }

  leaseTimeToLiveSync(id: LeaseId, opts?: { keys?: boolean }): LeaseTimeToLiveResponse {
    const lease = this.lessor.lookup(id);
    if (!lease) return { header: { revision: this.rev }, id, ttl: -1, grantedTtl: 0, keys: [] };
    return {
      header: { revision: this.rev },
      id,
      ttl: this.lessor.remainingSeconds(id),
      grantedTtl: lease.ttl,
      keys: opts?.keys ? [...lease.keys].sort(compareKeys) : [],
    };
  }

  /** Clock time (ms) at which a lease expires, or undefined for an unknown lease (for tests and trace replay). */
  leaseExpiry(id: LeaseId): number | undefined {
    return this.lessor.lookup(id)?.expiry;
  }

  /** Create a watcher synchronously (its responses still arrive asynchronously). */
  watchSync(req: WatchCreateRequest, onResponse: (resp: WatchResponse) => void): Watcher {
    checkKey(req.key);
    if (req.rangeEnd) checkKey(req.rangeEnd);
    return this.hub.add(req, onResponse);
  }

  /** Resolves once every queued watch response has been delivered and every watcher caught up. */
  async settle(): Promise<void> {
    for (let i = 0; i < 1_000_000 && this.hub.busy; i++) await new Promise<void>((r) => setImmediate(r));
  }

  /** number of keys in the index (live or with retained history) */
  get indexSize(): number {
    return this.tree.size;
  }

  /** number of live watchers */
  get watcherCount(): number {
    return this.hub.size;
  }

  // ───────────────────────────── KvStore (async) ─────────────────────────────

  range(req: RangeRequest): Promise<RangeResponse> {
    try {
      return Promise.resolve(this.rangeSync(req));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  put(req: PutRequest): Promise<PutResponse> {
    try {
      return Promise.resolve(this.putSync(req));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  deleteRange(req: DeleteRangeRequest): Promise<DeleteRangeResponse> {
    try {
      return Promise.resolve(this.deleteRangeSync(req));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  txn(req: TxnRequest): Promise<TxnResponse> {
    try {
      return Promise.resolve(this.txnSync(req));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  compact(req: CompactionRequest): Promise<CompactionResponse> {
    try {
      return Promise.resolve(this.compactSync(req));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  watch(req: WatchCreateRequest, onResponse: (resp: WatchResponse) => void): Promise<Watcher> {
    try {
      return Promise.resolve(this.watchSync(req, onResponse));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  leaseGrant(ttl: number, id?: LeaseId): Promise<LeaseGrantResponse> {
    try {
      return Promise.resolve(this.leaseGrantSync(ttl, id));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  leaseRevoke(id: LeaseId): Promise<LeaseRevokeResponse> {
    try {
      return Promise.resolve(this.leaseRevokeSync(id));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  leaseKeepAlive(id: LeaseId): Promise<LeaseKeepAliveResponse> {
    return Promise.resolve(this.leaseKeepAliveSync(id));
  }

  leaseTimeToLive(id: LeaseId, opts?: { keys?: boolean }): Promise<LeaseTimeToLiveResponse> {
    return Promise.resolve(this.leaseTimeToLiveSync(id, opts));
  }

  currentRevision(): Promise<number> {
    return Promise.resolve(this.rev);
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.hub.close();
      this.lessor.close();
    }
    return Promise.resolve();
  }

  // ───────────────────────────── ChangeLog (for the watch hub) ─────────────────────────────

  /**
   * The key as of the revision before `kv` (what etcd's v3rpc reads at ModRevision-1 for a watch
   * event's prevKv), or null when it did not exist then. Only valid while that revision is not compacted.
   */
  prevKvOf(kv: KeyValue): KeyValue | null {
    const h = this.byKey.get(kv.key);
    if (h === undefined) return null;
    const i = indexAt(h, kv.modRevision - 1);
    return i >= 0 && h[i].version !== 0 ? h[i] : null;
  }

  logIndexOf(rev: number): number {
    const log = this.log;
    let lo = 0,
      hi = log.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (log[mid].modRevision < rev) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  // ───────────────────────────── internals ─────────────────────────────

  /** every retained record: the index's histories (the change log holds the same records) */
  private *survivors(): Iterable<KeyValue> {
    for (const h of this.byKey.values()) yield* h;
  }

  private begin(): void {
    this.writing = true;
    this.changes = 0;
    this.logMark = this.log.length;
  }

  private end(): void {
    this.writing = false;
    if (this.changes > 0) {
      this.rev++;
      this.changes = 0;
      this.hub.onCommit(this.logMark, this.log.length);
    }
  }

  /** the revision a read inside the current write sees (etcd storeTxnWrite.Range: beginRev, +1 after a change) */
  private viewRevision(): number {
    return this.writing && this.changes > 0 ? this.rev + 1 : this.rev;
  }

  private live(key: string): KeyValue | undefined {
    const h = this.byKey.get(key);
    if (h === undefined) return undefined;
    const kv = h[h.length - 1];
    return kv.version === 0 ? undefined : kv;
  }

  /** add a record for key at the write revision (etcd storeTxnWrite.put) */
  private write(key: string, value: Uint8Array, lease: LeaseId): void {
    const rev = this.rev + 1;
    const h = this.byKey.get(key);
    let prev: KeyValue | null = null;
    if (h !== undefined) {
      const last = h[h.length - 1];
      if (last.version !== 0) prev = last;
    }
    const kv: KeyValue = {
      key,
      value: this.values.copy(value),
      createRevision: prev === null ? rev : prev.createRevision,
      modRevision: rev,
      version: prev === null ? 1 : prev.version + 1,
      lease,
    };
    if (h === undefined) {
      // a history of exactly one record (most keys have one: Events, objects never updated);
      // `[]` then push would reserve room for 17
      const first: History = [kv];
      this.byKey.set(key, first);
      this.tree.set(orderKey(key), first);
    } else h.push(kv);
    this.log.push(kv);
    this.changes++;
    if (prev !== null && prev.lease !== 0) this.lessor.detach(prev.lease, key);
    if (lease !== 0) this.lessor.attach(lease, key);
  }

  /** add a tombstone for a live key (etcd storeTxnWrite.delete) */
  private tombstone(h: History, prev: KeyValue): void {
    const kv: KeyValue = {
      key: prev.key,
      value: EMPTY,
      createRevision: 0,
      modRevision: this.rev + 1,
      version: 0,
      lease: 0,
    };
    h.push(kv);
    this.log.push(kv);
    this.changes++;
    if (prev.lease !== 0) this.lessor.detach(prev.lease, prev.key);
  }

  /** etcd applierV3backend.Put after validation; runs inside a write */
  private doPut(req: PutRequest): PutResponse {
    const prev = req.ignoreValue || req.ignoreLease || req.prevKv ? this.live(req.key) : undefined;
    const value = req.ignoreValue ? prev!.value : req.value;
    const lease = req.ignoreLease ? prev!.lease : (req.lease ?? 0);
    this.write(req.key, value, lease);
    const resp: PutResponse = { header: { revision: this.rev + 1 } };
    if (req.prevKv && prev !== undefined) resp.prevKv = prev;
    return resp;
  }

  /** etcd applierV3backend.DeleteRange; runs inside a write */
  private doDelete(req: DeleteRangeRequest): DeleteRangeResponse {
    const victims: History[] = [];
    this.scan(req.key, upperBound(req.rangeEnd), (h) => {
      if (h[h.length - 1].version !== 0) victims.push(h);
    });
    const prevKvs: KeyValue[] = [];
    for (const h of victims) {
      const prev = h[h.length - 1];
      if (req.prevKv) prevKvs.push(prev);
      this.tombstone(h, prev);
    }
    const revision = victims.length > 0 || this.changes > 0 ? this.rev + 1 : this.rev;
    return { header: { revision }, deleted: victims.length, prevKvs };
  }

  /** calls fn for every key's history in the range, in byte order (the tree is keyed by {@link orderKey}) */
  private scan(key: string, end: string | null, fn: (h: History) => void): void {
    if (end === null) {
      const h = this.byKey.get(key);
      if (h !== undefined) fn(h);
      return;
    }
    const lo = orderKey(key);
    if (end === '') {
      const max = this.tree.maxKey();
      if (max !== undefined && max >= lo)
        this.tree.forRange(lo, max, true, (_k, h) => {
          fn(h);
        });
      return;
    }
    const hi = orderKey(end);
    if (hi > lo)
      this.tree.forRange(lo, hi, false, (_k, h) => {
        fn(h);
      });
  }

  /** etcd applierV3backend.Range + mvcc rangeKeys */
  private doRange(req: RangeRequest): RangeResponse {
    const cur = this.viewRevision();
    const atRev = req.revision !== undefined && req.revision > 0 ? req.revision : 0;
    if (atRev > cur) throw StoreErrors.futureRev();
    if (atRev > 0 && atRev < this.compactRev) throw StoreErrors.compacted();
    const latest = atRev === 0 || atRev === cur;
    const readRev = latest ? cur : atRev;
    const limit = req.limit !== undefined && req.limit > 0 ? req.limit : 0;
    const sortOrder = req.sortOrder ?? 'NONE';
    const sortTarget = req.sortTarget ?? 'KEY';
    const hasFilter = !!(
      req.minModRevision ||
      req.maxModRevision ||
      req.minCreateRevision ||
      req.maxCreateRevision
    );
    // etcd fetches everything when it must sort (by the *requested* order) or filter, else limit+1 for `more`
    const fetch = sortOrder !== 'NONE' || hasFilter ? 0 : limit > 0 ? limit + 1 : 0;
    const countOnly = !!req.countOnly;
    let kvs: KeyValue[] = [];
    let count = 0;
    this.scan(req.key, upperBound(req.rangeEnd), (h) => {
      let kv: KeyValue;
      if (latest) kv = h[h.length - 1];
      else {
        const i = indexAt(h, readRev);
        if (i < 0) return;
        kv = h[i];
      }
      if (kv.version === 0) return;
      count++;
      if (!countOnly && (fetch === 0 || kvs.length < fetch)) kvs.push(kv);
    });
    if (hasFilter) {
      const {
        maxModRevision: maxMod,
        minModRevision: minMod,
        maxCreateRevision: maxCr,
        minCreateRevision: minCr,
      } = req;
      kvs = kvs.filter(
        (kv) =>
          !(maxMod && kv.modRevision > maxMod) &&
          !(minMod && kv.modRevision < minMod) &&
          !(maxCr && kv.createRevision > maxCr) &&
          !(minCr && kv.createRevision < minCr),
      );
    }
    // a non-KEY target with order NONE sorts ascending (keys already come in ascending key order)
    const order = sortTarget !== 'KEY' && sortOrder === 'NONE' ? 'ASCEND' : sortOrder;
    if (order !== 'NONE' && kvs.length > 1) {
      // Go's unstable sort.Sort, step by step, so that ties come out in etcd's order; DESCEND is sort.Reverse
      const cmp = comparator(sortTarget);
      goSort(kvs, order === 'ASCEND' ? (a, b) => cmp(a, b) < 0 : (a, b) => cmp(b, a) < 0);
    }
    let more = false;
    if (limit > 0 && kvs.length > limit) {
      kvs = kvs.slice(0, limit);
      more = true;
    }
    if (req.keysOnly) kvs = kvs.map((kv) => ({ ...kv, value: EMPTY }));
    return { header: { revision: cur }, kvs, more, count };
  }

  private expireLease(id: LeaseId): void {
    const lease = this.lessor.remove(id);
    if (!lease || lease.keys.size === 0) return;
    // etcd lessor.Revoke deletes the keys sorted (sort.StringSlice: byte order)
    const keys = [...lease.keys].sort(compareKeys);
    this.begin();
    for (const key of keys) {
      const h = this.byKey.get(key);
      const kv = h?.[h.length - 1];
      if (h && kv && kv.version !== 0) this.tombstone(h, kv);
    }
    this.end();
  }

  // ── txn ──

  /** etcd v3rpc checkTxnRequest (recursive; nested txns get the remaining op budget) */
  private checkTxn(req: TxnRequest, maxOps: number): void {
    const cmps = req.compare ?? [],
      succ = req.success ?? [],
      fail = req.failure ?? [];
    const opc = Math.max(cmps.length, succ.length, fail.length);
    if (opc > maxOps) throw StoreErrors.tooManyOps();
    for (const c of cmps) checkRange(c.key, c.rangeEnd);
    for (const op of succ) this.checkRequestOp(op, maxOps - opc);
    for (const op of fail) this.checkRequestOp(op, maxOps - opc);
  }

  private checkRequestOp(op: RequestOp, maxOps: number): void {
    if ('requestRange' in op) checkRange(op.requestRange.key, op.requestRange.rangeEnd);
    else if ('requestPut' in op) checkPut(op.requestPut);
    else if ('requestDeleteRange' in op)
      checkRange(op.requestDeleteRange.key, op.requestDeleteRange.rangeEnd);
    else if ('requestTxn' in op) this.checkTxn(op.requestTxn, maxOps);
    else throw StoreErrors.keyNotFound(); // etcd: an empty RequestOp
  }

  private compareToPath(req: TxnRequest, path: boolean[]): void {
    let ok = true;
    if (req.compare !== undefined) {
      for (let i = 0; i < req.compare.length && ok; i++) ok = this.applyCompare(req.compare[i]);
    }
    path.push(ok);
    for (const op of (ok ? req.success : req.failure) ?? []) {
      if ('requestTxn' in op) this.compareToPath(op.requestTxn, path);
    }
  }

  /** etcd applyCompare: every key in the range must satisfy the compare; no key = a zero KeyValue, except VALUE (false) */
  private applyCompare(c: Compare): boolean {
    if (!c.rangeEnd) {
      // the common single-key compare, without collecting
      const kv = this.live(c.key);
      if (kv === undefined) return c.target === 'VALUE' ? false : compareKv(c, ZERO_KV);
      return compareKv(c, kv);
    }
    const kvs: KeyValue[] = [];
    this.scan(c.key, upperBound(c.rangeEnd), (h) => {
      const kv = h[h.length - 1];
      if (kv.version !== 0) kvs.push(kv);
    });
    if (kvs.length === 0) {
      if (c.target === 'VALUE') return false;
      return compareKv(c, ZERO_KV);
    }
    for (const kv of kvs) if (!compareKv(c, kv)) return false;
    return true;
  }

  /**
   * walks the ops of the chosen path (etcd checkRequests): the put checks, or the range checks.
   * `deleted` collects the delete ranges met so far on the path, in op order.
   */
  private checkPath(
    req: TxnRequest,
    path: boolean[],
    pos: { i: number },
    puts: boolean,
    deleted: { key: string; end: string | null }[],
  ): void {
    const ops = path[pos.i++] ? req.success : req.failure;
    if (ops === undefined) return;
    for (const op of ops) {
      if ('requestTxn' in op) this.checkPath(op.requestTxn, path, pos, puts, deleted);
      else if (puts) this.checkPutOp(op, deleted);
      else this.checkRangeOp(op);
    }
  }

  private checkPutOp(op: RequestOp, deleted: { key: string; end: string | null }[]): void {
    if ('requestDeleteRange' in op) {
      deleted.push({ key: op.requestDeleteRange.key, end: upperBound(op.requestDeleteRange.rangeEnd) });
      return;
    }
    if (!('requestPut' in op)) return;
    const p = op.requestPut;
    if ((p.ignoreValue || p.ignoreLease) && !this.live(p.key)) throw StoreErrors.keyNotFound();
    // A delete to the end of the keyspace ("\0") slips past etcd's duplicate-key check, and etcd
    // 3.4.23 then panics applying an ignoreValue/ignoreLease put of a key it deleted. Rejecting the
    // txn here, before anything is applied, keeps it atomic (docs/store-etcd.md).
    if ((p.ignoreValue || p.ignoreLease) && deleted.some((d) => inRange(p.key, d.key, d.end)))
      throw StoreErrors.keyNotFound();
    if (p.lease && !this.lessor.lookup(p.lease)) throw StoreErrors.leaseNotFound();
  }

  private checkRangeOp(op: RequestOp): void {
    if (!('requestRange' in op)) return;
    const rev = op.requestRange.revision ?? 0;
    if (rev === 0) return;
    if (rev > this.rev) throw StoreErrors.futureRev();
    if (rev < this.compactRev) throw StoreErrors.compacted();
  }

  private applyTxn(req: TxnRequest, path: boolean[], pos: { i: number }): ResponseOp[] {
    const ops = (path[pos.i++] ? req.success : req.failure) ?? [];
    const out: ResponseOp[] = [];
    for (const op of ops) {
      if ('requestRange' in op) out.push({ responseRange: this.doRange(op.requestRange) });
      else if ('requestPut' in op) out.push({ responsePut: this.doPut(op.requestPut) });
      else if ('requestDeleteRange' in op)
        out.push({ responseDeleteRange: this.doDelete(op.requestDeleteRange) });
      else {
        const succeeded = path[pos.i];
        const responses = this.applyTxn(op.requestTxn, path, pos);
        // etcd 3.4 leaves the nested txn's header unset (revision 0): quirk "nested-txn-header-revision-0"
        out.push({ responseTxn: { header: { revision: 0 }, succeeded, responses } });
      }
    }
    return out;
  }
}

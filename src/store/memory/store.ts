/**
 * MemoryStore: etcd 3.4's MVCC key-value store, in memory, with the KvStore contract.
 *
 * Data structure (a worked example, as etcd's key_index.go does it). After
 *
 *   rev 2: put a=1     rev 3: put a=2     rev 4: delete a     rev 5: put a=3     rev 6: put b=x
 *
 * the store holds
 *
 *   records (records.ts: columns, in change-log order = revision and op order):
 *     #0 a=1 c2 m2 v1 · #1 a=2 c2 m3 v2 prev #0 · #2 a tomb m4 v0 prev #1 · #3 a=3 c5 m5 v1 prev #2
 *     · #4 b=x c6 m6 v1
 *   index (sorted-btree, and a Map for point lookups): "a" → key 0, latest #3; "b" → key 1, latest #4
 *   (a key's history: its latest record, then the `prev` links back: two generations for "a")
 *   change log (for watchers replaying history): the records from `logStart` on.
 *
 * A read at revision R takes, per key, the last record with modRevision <= R; a tombstone (version
 * 0) or no record means the key did not exist at R. Compaction at C keeps, per key, the last record
 * <= C unless it is a tombstone, drops everything older, and drops log entries below C (and the
 * tombstones at C, which is what etcd's "tombstone-at-compact-revision" quirk shows). The records
 * kept below C (a key's value as of C) precede every record >= C in the renumbered columns, so the
 * change log is the tail of the records from `logStart`.
 *
 * Writes run inside a write "transaction" (begin/end): every record it adds gets revision
 * current+1, and the revision only moves when something changed. Returned KeyValue objects are made
 * per read from the columns: treat them (values included) as immutable, and do not rely on their
 * identity across reads.
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
import { NO_RECORD, Records } from './records.js';

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

/** the order a range sorts in: a non-KEY target with order NONE sorts ascending (keys already come in ascending key order) */
function order(sortOrder: string, sortTarget: string): string {
  return sortTarget !== 'KEY' && sortOrder === 'NONE' ? 'ASCEND' : sortOrder;
}

export class MemoryStore implements KvStore, ChangeLog {
  private rev = 1;
  private compactRev = -1;
  /** every record (records.ts); the change log is records [logStart, recs.n) */
  private recs = new Records();
  private logStart = 0;

  readonly clock: Clock;
  /** key → key number; keys[id], latest[id] (its newest record), tree: orderKey(key) → id */
  private readonly keyIds = new Map<string, number>();
  private readonly keys: string[] = [];
  private readonly latest: number[] = [];
  private readonly freeIds: number[] = [];
  /**
   * the last record written under each parent of a key (the key up to its last '/'): a key's first
   * value is stored as a delta from it when they share enough (records.ts), cleared by compaction
   */
  private lastUnder = new Map<string, number>();
  private readonly tree = new BTree<string, number>();
  private readonly lessor: Lessor;
  private readonly hub: WatchHub;
  private readonly maxTxnOps: number;
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
    const out: KeyValue[] = [];
    for (let i = this.logStart; i < this.recs.n; i++) out.push(this.kvOf(i));
    return out;
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
    if ((req.ignoreValue || req.ignoreLease) && this.live(req.key) === NO_RECORD)
      throw StoreErrors.keyNotFound();
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
    const r = this.live(key);
    return r === NO_RECORD ? undefined : this.kvOf(r);
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
    const recs = this.recs;
    // per key: every record above rev, and the last one <= rev unless it is a tombstone
    const keep = new Uint8Array(recs.n);
    let kept = 0;
    for (const [key, id] of this.keyIds) {
      let r = this.latest[id];
      while (r !== NO_RECORD && recs.mod[r] > rev) {
        keep[r] = 1;
        kept++;
        r = recs.prev[r];
      }
      if (r !== NO_RECORD && recs.ver[r] !== 0) {
        keep[r] = 1;
        kept++;
      } else if (r === this.latest[id]) this.dropKey(key, id);
    }
    const list = new Int32Array(kept);
    for (let r = 0, k = 0; r < recs.n; r++) if (keep[r] === 1) list[k++] = r;
    const renumber = new Int32Array(recs.n).fill(NO_RECORD);
    // the survivors move to fresh blocks, so that the blocks of what was dropped can be freed
    this.recs = recs.compacted(list, renumber);
    this.lastUnder = new Map();
    for (const id of this.keyIds.values()) this.latest[id] = renumber[this.latest[id]];
    // the change log keeps revisions >= rev (the tombstones at rev are gone with their keys' history)
    this.logStart = this.firstAtOrAbove(rev, 0);
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
    const id = this.keyIds.get(kv.key);
    if (id === undefined) return null;
    const r = this.recordAt(id, kv.modRevision - 1);
    return r !== NO_RECORD && this.recs.ver[r] !== 0 ? this.kvOf(r) : null;
  }

  logIndexOf(rev: number): number {
    return this.firstAtOrAbove(rev, this.logStart);
  }

  get logEnd(): number {
    return this.recs.n;
  }

  logKey(i: number): string {
    return this.keys[this.recs.keyId[i]];
  }

  logRev(i: number): number {
    return this.recs.mod[i];
  }

  logVersion(i: number): number {
    return this.recs.ver[i];
  }

  kvAt(i: number): KeyValue {
    return this.kvOf(i);
  }

  // ───────────────────────────── internals ─────────────────────────────

  /** first record number >= from whose revision is >= rev */
  private firstAtOrAbove(rev: number, from: number): number {
    const mod = this.recs.mod;
    let lo = from,
      hi = this.recs.n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (mod[mid] < rev) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** the KeyValue of record r (made on each read; its value a view of the blocks or a new array) */
  private kvOf(r: number, keysOnly = false): KeyValue {
    const recs = this.recs;
    return {
      key: this.keys[recs.keyId[r]],
      value: keysOnly ? EMPTY : recs.value(r),
      createRevision: recs.create[r],
      modRevision: recs.mod[r],
      version: recs.ver[r],
      lease: recs.lease[r],
    };
  }

  /** the key's last record with modRevision <= rev, or NO_RECORD */
  private recordAt(id: number, rev: number): number {
    const recs = this.recs;
    let r = this.latest[id];
    while (r !== NO_RECORD && recs.mod[r] > rev) r = recs.prev[r];
    return r;
  }

  private newKey(key: string): number {
    const id = this.freeIds.length > 0 ? this.freeIds.pop()! : this.keys.length;
    this.keys[id] = key;
    this.latest[id] = NO_RECORD;
    this.keyIds.set(key, id);
    this.tree.set(orderKey(key), id);
    return id;
  }

  private dropKey(key: string, id: number): void {
    this.keyIds.delete(key);
    this.tree.delete(orderKey(key));
    this.keys[id] = '';
    this.latest[id] = NO_RECORD;
    this.freeIds.push(id);
  }

  private begin(): void {
    this.writing = true;
    this.changes = 0;
    this.logMark = this.recs.n;
  }

  private end(): void {
    this.writing = false;
    if (this.changes > 0) {
      this.rev++;
      this.changes = 0;
      this.hub.onCommit(this.logMark, this.recs.n);
    }
  }

  /** the revision a read inside the current write sees (etcd storeTxnWrite.Range: beginRev, +1 after a change) */
  private viewRevision(): number {
    return this.writing && this.changes > 0 ? this.rev + 1 : this.rev;
  }

  /** the live record of a key, or NO_RECORD */
  private live(key: string): number {
    const id = this.keyIds.get(key);
    if (id === undefined) return NO_RECORD;
    const r = this.latest[id];
    return r === NO_RECORD || this.recs.ver[r] === 0 ? NO_RECORD : r;
  }

  /** add a record for key at the write revision (etcd storeTxnWrite.put) */
  private write(key: string, value: Uint8Array, lease: LeaseId): void {
    const rev = this.rev + 1;
    const recs = this.recs;
    let id = this.keyIds.get(key);
    let last = NO_RECORD;
    if (id === undefined) id = this.newKey(key);
    else last = this.latest[id];
    const prev = last !== NO_RECORD && recs.ver[last] !== 0 ? last : NO_RECORD;
    const parent = key.slice(0, key.lastIndexOf('/') + 1);
    const r = recs.add(
      id,
      last,
      rev,
      prev === NO_RECORD ? rev : recs.create[prev],
      prev === NO_RECORD ? 1 : recs.ver[prev] + 1,
      lease,
      value,
      prev === NO_RECORD ? (this.lastUnder.get(parent) ?? NO_RECORD) : prev,
    );
    this.latest[id] = r;
    this.lastUnder.set(parent, r);
    this.changes++;
    if (prev !== NO_RECORD && recs.lease[prev] !== 0) this.lessor.detach(recs.lease[prev], key);
    if (lease !== 0) this.lessor.attach(lease, key);
  }

  /** add a tombstone for the live record r of key id (etcd storeTxnWrite.delete) */
  private tombstone(id: number, r: number): void {
    const recs = this.recs;
    const lease = recs.lease[r];
    this.latest[id] = recs.add(id, r, this.rev + 1, 0, 0, 0, EMPTY);
    this.changes++;
    if (lease !== 0) this.lessor.detach(lease, this.keys[id]);
  }

  /** etcd applierV3backend.Put after validation; runs inside a write */
  private doPut(req: PutRequest): PutResponse {
    const prev = req.ignoreValue || req.ignoreLease || req.prevKv ? this.live(req.key) : NO_RECORD;
    const prevKv = prev === NO_RECORD ? undefined : this.kvOf(prev);
    const value = req.ignoreValue ? prevKv!.value : req.value;
    const lease = req.ignoreLease ? prevKv!.lease : (req.lease ?? 0);
    this.write(req.key, value, lease);
    const resp: PutResponse = { header: { revision: this.rev + 1 } };
    if (req.prevKv && prevKv !== undefined) resp.prevKv = prevKv;
    return resp;
  }

  /** etcd applierV3backend.DeleteRange; runs inside a write */
  private doDelete(req: DeleteRangeRequest): DeleteRangeResponse {
    const victims: number[] = [];
    const ver = this.recs.ver;
    this.scan(req.key, upperBound(req.rangeEnd), (id) => {
      const r = this.latest[id];
      if (ver[r] !== 0) victims.push(id);
    });
    const prevKvs: KeyValue[] = [];
    for (const id of victims) {
      const prev = this.latest[id];
      if (req.prevKv) prevKvs.push(this.kvOf(prev));
      this.tombstone(id, prev);
    }
    const revision = victims.length > 0 || this.changes > 0 ? this.rev + 1 : this.rev;
    return { header: { revision }, deleted: victims.length, prevKvs };
  }

  /** calls fn for every key number in the range, in byte order (the tree is keyed by {@link orderKey}) */
  private scan(key: string, end: string | null, fn: (id: number) => void): void {
    if (end === null) {
      const id = this.keyIds.get(key);
      if (id !== undefined) fn(id);
      return;
    }
    const lo = orderKey(key);
    if (end === '') {
      const max = this.tree.maxKey();
      if (max !== undefined && max >= lo)
        this.tree.forRange(lo, max, true, (_k, id) => {
          fn(id);
        });
      return;
    }
    const hi = orderKey(end);
    if (hi > lo)
      this.tree.forRange(lo, hi, false, (_k, id) => {
        fn(id);
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
    const ver = this.recs.ver;
    // sorting by VALUE needs the values before the keysOnly cut
    const keysOnly = !!req.keysOnly && !(order(sortOrder, sortTarget) !== 'NONE' && sortTarget === 'VALUE');
    this.scan(req.key, upperBound(req.rangeEnd), (id) => {
      const r = latest ? this.latest[id] : this.recordAt(id, readRev);
      if (r === NO_RECORD || ver[r] === 0) return;
      count++;
      if (!countOnly && (fetch === 0 || kvs.length < fetch)) kvs.push(this.kvOf(r, keysOnly));
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
    const sortAs = order(sortOrder, sortTarget);
    if (sortAs !== 'NONE' && kvs.length > 1) {
      // Go's unstable sort.Sort, step by step, so that ties come out in etcd's order; DESCEND is sort.Reverse
      const cmp = comparator(sortTarget);
      goSort(kvs, sortAs === 'ASCEND' ? (a, b) => cmp(a, b) < 0 : (a, b) => cmp(b, a) < 0);
    }
    let more = false;
    if (limit > 0 && kvs.length > limit) {
      kvs = kvs.slice(0, limit);
      more = true;
    }
    if (req.keysOnly && !keysOnly) kvs = kvs.map((kv) => ({ ...kv, value: EMPTY }));
    return { header: { revision: cur }, kvs, more, count };
  }

  private expireLease(id: LeaseId): void {
    const lease = this.lessor.remove(id);
    if (!lease || lease.keys.size === 0) return;
    // etcd lessor.Revoke deletes the keys sorted (sort.StringSlice: byte order)
    const keys = [...lease.keys].sort(compareKeys);
    this.begin();
    for (const key of keys) {
      const id = this.keyIds.get(key);
      if (id === undefined) continue;
      const r = this.latest[id];
      if (r !== NO_RECORD && this.recs.ver[r] !== 0) this.tombstone(id, r);
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
      const r = this.live(c.key);
      if (r === NO_RECORD) return c.target === 'VALUE' ? false : compareKv(c, ZERO_KV);
      return compareKv(c, this.kvOf(r, c.target !== 'VALUE'));
    }
    const kvs: KeyValue[] = [];
    this.scan(c.key, upperBound(c.rangeEnd), (id) => {
      const r = this.latest[id];
      if (this.recs.ver[r] !== 0) kvs.push(this.kvOf(r, c.target !== 'VALUE'));
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
    if ((p.ignoreValue || p.ignoreLease) && this.live(p.key) === NO_RECORD) throw StoreErrors.keyNotFound();
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

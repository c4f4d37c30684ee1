/**
 * Watchers of the in-memory store, organised like etcd's watchableStore:
 *
 * - **synced** watchers have seen every change up to the current revision. A commit hands each of
 *   them its matching events at once (exact-key watchers through a Map, range/prefix watchers
 *   through groups of identical ranges, so 10,000 informers on one prefix cost one range test per
 *   event). Events wait in the watcher's `pending` buffer and are delivered in a microtask, never
 *   inside the writer's call.
 * - **unsynced** watchers started at an old revision. They read the store's change log from their
 *   cursor in batches of at most {@link MAX_REVISIONS_PER_BATCH} revisions (etcd's
 *   watchBatchMaxRevs) and join the synced set once they reach the current revision. A cursor
 *   below the compaction point cancels the watcher with `compactRevision` (etcd's ErrCompacted path).
 *
 * A delivery carries whole revisions only: a synced watcher receives everything pending (one or
 * more whole revisions), an unsynced one a batch of whole revisions. Progress notifications
 * (requested, or every `progressNotifyIntervalMs` for watchers with progressNotify that received
 * no events since the previous tick, as etcd's v3rpc sendLoop does) go only to synced watchers and
 * carry the current revision.
 *
 * A watch over an empty range (`rangeEnd <= key` in byte order) is created and canceled at once
 * with etcd's reason, as v3rpc's recvLoop answers mvcc watchStream.Watch's ErrEmptyWatcherRange.
 */
import type { Clock, TimerHandle } from '../../util/clock.js';
import type { KeyValue, Watcher, WatchCreateRequest, WatchEvent, WatchResponse } from '../types.js';
import { compareKeys, orderKey } from '../keybytes.js';
import { inRange, upperBound } from '../keyrange.js';

/** etcd's watchBatchMaxRevs: an unsynced watcher receives at most this many revisions per response. */
export const MAX_REVISIONS_PER_BATCH = 1000;

/** etcd mvcc ErrEmptyWatcherRange, the cancel reason of a watch over an empty range */
export const EMPTY_WATCH_RANGE = 'mvcc: watcher range is empty';

/**
 * What the hub reads from the store: the change log and the revision bookkeeping. The log holds
 * every change still in history, in (revision, op) order, at indexes below {@link logEnd}; a record
 * with version 0 is a deletion. Its KeyValue is made on request ({@link kvAt}), so the hub reads
 * key, revision and version first and makes the KeyValue only for an event some watcher takes.
 */
export interface ChangeLog {
  /** one past the last log index */
  readonly logEnd: number;
  logKey(i: number): string;
  logRev(i: number): number;
  logVersion(i: number): number;
  kvAt(i: number): KeyValue;
  /** the key as of the revision before the record (a watch event's prevKv), or null */
  prevKvOf(kv: KeyValue): KeyValue | null;
  readonly revision: number;
  /** the compaction revision, -1 before the first compaction */
  readonly compactRevision: number;
  /** first log index whose revision is >= rev */
  logIndexOf(rev: number): number;
}

interface RangeGroup {
  /** the range in {@link orderKey} form, compared with `<` */
  readonly lo: string;
  /** '' = unbounded */
  readonly hi: string;
  readonly watchers: MemWatcher[];
}

class MemWatcher implements Watcher {
  /** synced: lowest revision still to deliver (a future startRevision); unsynced: the log cursor */
  nextRev: number;
  synced = false;
  pending: WatchEvent[] = [];
  dirty = false;
  canceled = false;
  progressWanted = false;
  /** etcd's sws.progress[id]: true when no events were sent since the last progress tick (set false at commit) */
  quiet = true;
  readonly key: string;
  readonly end: string | null;
  readonly noPut: boolean;
  readonly noDelete: boolean;
  readonly wantPrev: boolean;
  readonly progressNotify: boolean;

  constructor(
    private readonly hub: WatchHub,
    readonly watchId: number,
    readonly createdRevision: number,
    req: WatchCreateRequest,
    readonly cb: (resp: WatchResponse) => void,
  ) {
    // etcd v3rpc recvLoop: an empty key is "\x00", the smallest key
    this.key = req.key === '' ? '\0' : req.key;
    this.end = upperBound(req.rangeEnd);
    this.noPut = req.filters?.includes('NOPUT') ?? false;
    this.noDelete = req.filters?.includes('NODELETE') ?? false;
    this.wantPrev = req.prevKv ?? false;
    this.progressNotify = req.progressNotify ?? false;
    this.nextRev = 0;
  }

  cancel(): Promise<void> {
    this.hub.cancel(this);
    return Promise.resolve();
  }

  requestProgress(): void {
    this.hub.requestProgress(this);
  }
}

const EMPTY_EVENTS: WatchEvent[] = [];

export class WatchHub {
  private readonly exact = new Map<string, MemWatcher[]>();
  private readonly groupsById = new Map<string, RangeGroup>();
  private groups: RangeGroup[] = [];
  private readonly unsynced = new Set<MemWatcher>();
  private readonly progressSet = new Set<MemWatcher>();
  private dirty: MemWatcher[] = [];
  private spare: MemWatcher[] = [];
  private syncedCount = 0;
  private nextId = 1;
  private flushQueued = false;
  private catchUpQueued = false;
  private progressTimer: TimerHandle | null = null;
  private closed = false;
  private readonly flushFn = () => this.flush();

  constructor(
    private readonly log: ChangeLog,
    private readonly clock: Clock,
    private readonly progressIntervalMs: number,
  ) {}

  /** number of live watchers */
  get size(): number {
    return this.syncedCount + this.unsynced.size;
  }

  /** true while some delivery is queued or some watcher is still catching up */
  get busy(): boolean {
    return this.flushQueued || this.catchUpQueued || this.unsynced.size > 0 || this.dirty.length > 0;
  }

  add(req: WatchCreateRequest, cb: (resp: WatchResponse) => void): Watcher {
    const cur = this.log.revision;
    const w = new MemWatcher(this, this.nextId++, cur, req, cb);
    if (w.end !== null && w.end !== '' && compareKeys(w.key, w.end) >= 0) {
      // mvcc watchStream.Watch refuses it; v3rpc answers created and canceled in one response
      w.canceled = true;
      queueMicrotask(() => {
        if (this.closed) return;
        cb({
          header: { revision: cur },
          watchId: w.watchId,
          events: [],
          created: true,
          canceled: true,
          cancelReason: EMPTY_WATCH_RANGE,
        });
      });
      return w;
    }
    const start = req.startRevision ?? 0;
    // etcd watchableStore.watch: start 0 or in the future → synced from max(cur+1, start)
    if (start <= 0 || start > cur) {
      w.nextRev = Math.max(cur + 1, start);
      this.register(w);
    } else {
      w.nextRev = start;
      this.unsynced.add(w);
      this.schedule();
    }
    if (w.progressNotify) {
      this.progressSet.add(w);
      this.armProgress();
    }
    return w;
  }

  cancel(w: MemWatcher): void {
    if (w.canceled) return;
    w.canceled = true;
    w.pending = EMPTY_EVENTS;
    if (w.synced) this.unregister(w);
    else this.unsynced.delete(w);
    this.progressSet.delete(w);
  }

  requestProgress(w: MemWatcher): void {
    if (w.canceled) return;
    w.progressWanted = true;
    // once per flush: a virtual clock can tick many intervals before the flush runs
    if (!w.dirty) this.markDirty(w);
  }

  /**
   * Called by the store after a write committed log entries [from, to) (all of one revision).
   * Hands the matching events to synced watchers; delivery happens later in a microtask.
   */
  onCommit(from: number, to: number): void {
    if (this.syncedCount === 0) return;
    const log = this.log;
    const compactRev = log.compactRevision;
    const groups = this.groups;
    for (let i = from; i < to; i++) {
      const key = log.logKey(i);
      const modRev = log.logRev(i);
      const version = log.logVersion(i);
      const isDelete = version === 0;
      const type = isDelete ? 'DELETE' : 'PUT';
      // the record's KeyValue, made once for every watcher that takes the event
      let kv: KeyValue | null = null;
      // prevKv as etcd's v3rpc reads it: the key at modRevision-1, unless that is compacted, never
      // for a creation; looked up once per event, and only when a prevKv watcher matches
      let prev: KeyValue | null | undefined = version === 1 || modRev - 1 < compactRev ? null : undefined;
      let ev: WatchEvent | null = null;
      let evPrev: WatchEvent | null = null;
      const order = groups.length > 0 ? orderKey(key) : '';
      const list = this.exact.get(key);
      if (list !== undefined) {
        for (let j = 0; j < list.length; j++) {
          const w = list[j];
          if ((isDelete ? w.noDelete : w.noPut) || modRev < w.nextRev) continue;
          kv ??= log.kvAt(i);
          if (w.wantPrev && prev === undefined) prev = log.prevKvOf(kv);
          if (w.wantPrev && prev) w.pending.push((evPrev ??= { type, kv, prevKv: prev }));
          else w.pending.push((ev ??= { type, kv }));
          w.quiet = false;
          if (!w.dirty) this.markDirty(w);
        }
      }
      for (let g = 0; g < groups.length; g++) {
        const grp = groups[g];
        if (order < grp.lo || (grp.hi !== '' && order >= grp.hi)) continue;
        const ws = grp.watchers;
        for (let j = 0; j < ws.length; j++) {
          const w = ws[j];
          if ((isDelete ? w.noDelete : w.noPut) || modRev < w.nextRev) continue;
          kv ??= log.kvAt(i);
          if (w.wantPrev && prev === undefined) prev = log.prevKvOf(kv);
          if (w.wantPrev && prev) w.pending.push((evPrev ??= { type, kv, prevKv: prev }));
          else w.pending.push((ev ??= { type, kv }));
          w.quiet = false;
          if (!w.dirty) this.markDirty(w);
        }
      }
    }
  }

  /** the store compacted: unsynced watchers below the compaction point get canceled at the next flush */
  onCompact(): void {
    if (this.unsynced.size > 0) this.schedule();
  }

  /** stop everything; no response is delivered afterwards */
  close(): void {
    this.closed = true;
    for (const w of [...this.unsynced]) this.cancel(w);
    for (const list of this.exact.values()) for (const w of [...list]) this.cancel(w);
    for (const g of this.groups) for (const w of [...g.watchers]) this.cancel(w);
    if (this.progressTimer) this.clock.clearTimer(this.progressTimer);
    this.progressTimer = null;
  }

  private register(w: MemWatcher): void {
    w.synced = true;
    this.syncedCount++;
    if (w.end === null) {
      const list = this.exact.get(w.key);
      if (list) list.push(w);
      else this.exact.set(w.key, [w]);
      return;
    }
    const id = JSON.stringify([w.key, w.end]);
    let g = this.groupsById.get(id);
    if (!g) {
      g = { lo: orderKey(w.key), hi: w.end === '' ? '' : orderKey(w.end), watchers: [] };
      this.groupsById.set(id, g);
      this.groups = [...this.groups, g];
    }
    g.watchers.push(w);
  }

  private unregister(w: MemWatcher): void {
    w.synced = false;
    this.syncedCount--;
    if (w.end === null) {
      const list = this.exact.get(w.key)!;
      list.splice(list.indexOf(w), 1);
      if (list.length === 0) this.exact.delete(w.key);
      return;
    }
    const id = JSON.stringify([w.key, w.end]);
    const g = this.groupsById.get(id)!;
    g.watchers.splice(g.watchers.indexOf(w), 1);
    if (g.watchers.length === 0) {
      this.groupsById.delete(id);
      // a new array, so that an onCommit loop in progress keeps a consistent view
      this.groups = this.groups.filter((x) => x !== g);
    }
  }

  private markDirty(w: MemWatcher): void {
    w.dirty = true;
    this.dirty.push(w);
    this.schedule();
  }

  private schedule(): void {
    if (this.flushQueued || this.closed) return;
    this.flushQueued = true;
    queueMicrotask(this.flushFn);
  }

  private flush(): void {
    this.flushQueued = false;
    if (this.closed) return;
    const list = this.dirty;
    this.dirty = this.spare;
    let error: unknown;
    for (let i = 0; i < list.length; i++) {
      const w = list[i];
      w.dirty = false;
      if (w.canceled) continue;
      if (w.pending.length > 0) {
        const events = w.pending;
        w.pending = [];
        error = deliver(w, { header: { revision: this.log.revision }, watchId: w.watchId, events }, error);
      }
      if (w.progressWanted && w.synced && !w.canceled && w.pending.length === 0) {
        w.progressWanted = false;
        error = deliver(
          w,
          { header: { revision: this.log.revision }, watchId: w.watchId, events: [], progress: true },
          error,
        );
      }
    }
    list.length = 0;
    this.spare = list;
    if (this.unsynced.size > 0) error = this.catchUp(error);
    if (error !== undefined) throw error;
  }

  /** one batch for every unsynced watcher (etcd's syncWatchers) */
  private catchUp(error: unknown): unknown {
    const cur = this.log.revision;
    const compactRev = this.log.compactRevision;
    let more = false;
    for (const w of [...this.unsynced]) {
      if (w.canceled) {
        this.unsynced.delete(w);
        continue;
      }
      if (w.nextRev < compactRev) {
        this.cancel(w);
        error = deliver(
          w,
          {
            header: { revision: cur },
            watchId: w.watchId,
            events: [],
            canceled: true,
            compactRevision: compactRev,
          },
          error,
        );
        continue;
      }
      const events: WatchEvent[] = [];
      const log = this.log;
      const logEnd = log.logEnd;
      let i = log.logIndexOf(w.nextRev);
      let revs = 0;
      let lastRev = 0;
      for (; i < logEnd; i++) {
        const modRev = log.logRev(i);
        if (modRev !== lastRev) {
          if (revs === MAX_REVISIONS_PER_BATCH) break;
          revs++;
          lastRev = modRev;
        }
        if (!inRange(log.logKey(i), w.key, w.end)) continue;
        const version = log.logVersion(i);
        const isDelete = version === 0;
        if (isDelete ? w.noDelete : w.noPut) continue;
        const kv = log.kvAt(i);
        const prev = w.wantPrev && version !== 1 && modRev - 1 >= compactRev ? log.prevKvOf(kv) : null;
        events.push(
          prev !== null
            ? { type: isDelete ? 'DELETE' : 'PUT', kv, prevKv: prev }
            : { type: isDelete ? 'DELETE' : 'PUT', kv },
        );
      }
      // update state before calling back, so a write made by the callback is neither lost nor duplicated
      if (i >= logEnd) {
        w.nextRev = cur + 1;
        this.unsynced.delete(w);
        this.register(w);
        if (w.progressWanted) this.markDirty(w);
      } else {
        w.nextRev = log.logRev(i);
        more = true;
      }
      if (events.length > 0) {
        w.quiet = false;
        error = deliver(w, { header: { revision: cur }, watchId: w.watchId, events }, error);
      }
    }
    if (more && !this.catchUpQueued) {
      // yield to I/O between batches, as etcd's 100 ms syncWatchers loop does
      this.catchUpQueued = true;
      setImmediate(() => {
        this.catchUpQueued = false;
        this.schedule();
      });
    }
    return error;
  }

  private armProgress(): void {
    if (this.progressTimer || this.closed || this.progressSet.size === 0) return;
    this.progressTimer = this.clock.setTimer(() => {
      this.progressTimer = null;
      for (const w of this.progressSet) {
        if (w.quiet && w.synced) this.requestProgress(w);
        w.quiet = true;
      }
      this.armProgress();
    }, this.progressIntervalMs);
  }
}

function deliver(w: MemWatcher, resp: WatchResponse, error: unknown): unknown {
  try {
    w.cb(resp);
  } catch (e) {
    return error === undefined ? e : error;
  }
  return error;
}

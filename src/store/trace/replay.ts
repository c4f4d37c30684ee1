/**
 * Replays an etcd golden trace against any {@link KvStore} and returns the answers in the trace's
 * own JSON shapes, ready for {@link compareTrace} or for writing out as a new trace. The same
 * replayer records traces on a real etcd (through EtcdStore) and checks MemoryStore against them.
 *
 * What a store cannot do by itself is let time pass; the caller supplies that through hooks:
 * `expireLease` (real etcd: wait out the TTL; virtual clock: advance past the expiry) and `sleep`.
 * `settle` delivers pending watch responses before a watchCancel and at the end of the trace; by
 * default the replayer waits until no watch response arrived for `quietMs`.
 */
import type {
  Compare,
  KeyValue,
  KvStore,
  LeaseId,
  RangeRequest,
  RequestOp,
  ResponseOp,
  TxnRequest,
  WatchEvent,
  WatchResponse,
  Watcher,
  RangeResponse,
  PutResponse,
  DeleteRangeResponse,
  TxnResponse,
  SortOrder,
  SortTarget,
  WatchFilter,
} from '../types.js';
import { compareKeys, keyBytes, keyFromBytes } from '../keybytes.js';
import {
  GRPC_CODE_NAMES,
  type GoldenTrace,
  type TraceKv,
  type TraceOp,
  type TraceResult,
  type TraceWatchEvent,
  type TraceWatchMeta,
} from './format.js';

export interface ReplayHooks {
  /** make the lease's TTL run out and return once the store has expired it */
  expireLease(leaseId: LeaseId): Promise<void>;
  /** let `ms` milliseconds pass (progress notifications fire meanwhile) */
  sleep(ms: number): Promise<void>;
  /** deliver every pending watch response (default: wait until none arrived for `quietMs`) */
  settle?(): Promise<void>;
}

export interface ReplayOptions {
  /** default settle: how long without watch responses counts as "delivered everything" (default 150 ms) */
  quietMs?: number;
  /** default settle: give up waiting after this long (default 5 s) */
  maxSettleMs?: number;
  /** called after each op with its index and answer (progress output, recording) */
  onOp?: (index: number, op: TraceOp, answer: unknown) => void;
}

/** Lease IDs for symbols that were never granted: far from what stores hand out, still safe integers. */
const MISSING_LEASE_BASE = 0x1f00_0000_0000;

/** Maps the trace's lease symbols to real lease IDs and back. */
class LeaseNames {
  private readonly byName = new Map<string, LeaseId>();
  private readonly byId = new Map<LeaseId, string>();
  private missing = 0;

  bind(sym: string, id: LeaseId): void {
    this.byName.set(sym, id);
    this.byId.set(id, sym);
  }

  id(sym: unknown): LeaseId {
    if (sym === null || sym === undefined) return 0;
    const s = String(sym);
    let id = this.byName.get(s);
    if (id === undefined) {
      id = MISSING_LEASE_BASE + this.missing++;
      this.bind(s, id);
    }
    return id;
  }

  name(id: LeaseId): string | null {
    if (id === 0) return null;
    return this.byId.get(id) ?? `#${id}`;
  }
}

interface WatchState {
  id: string;
  watcher: Watcher | null;
  progressNotify: boolean;
  canceledByClient: boolean;
  events: TraceWatchEvent[];
  meta: TraceWatchMeta;
  /** the last progress revision seen since the current sleep began */
  sleepProgress: number | null;
}

/**
 * Replay `trace.ops` on `store` (which must be empty, at revision 1) and return
 * `{ expected, watchEvents, watchMeta }` in the trace's shapes.
 */
export async function replayTrace(
  store: KvStore,
  trace: GoldenTrace,
  hooks: ReplayHooks,
  opts: ReplayOptions = {},
): Promise<TraceResult> {
  const leases = new LeaseNames();
  const watches = new Map<string, WatchState>();
  const expected: unknown[] = [];
  let lastResponseAt = Date.now();

  const kv = (k: KeyValue): TraceKv => ({
    key: k.key,
    value: keyFromBytes(k.value),
    createRevision: k.createRevision,
    modRevision: k.modRevision,
    version: k.version,
    lease: leases.name(k.lease),
  });
  const event = (e: WatchEvent): TraceWatchEvent =>
    e.prevKv ? { type: e.type, kv: kv(e.kv), prevKv: kv(e.prevKv) } : { type: e.type, kv: kv(e.kv) };

  const settle = async () => {
    if (hooks.settle) return hooks.settle();
    const quiet = opts.quietMs ?? 150;
    const deadline = Date.now() + (opts.maxSettleMs ?? 5000);
    for (;;) {
      await new Promise((r) => setTimeout(r, Math.min(quiet, 25)));
      if (Date.now() - lastResponseAt >= quiet || Date.now() > deadline) return;
    }
  };

  const rangeReq = (op: Record<string, unknown>): RangeRequest => {
    const r: RangeRequest = { key: op.key as string };
    if (op.rangeEnd !== undefined) r.rangeEnd = op.rangeEnd as string;
    for (const f of [
      'limit',
      'revision',
      'minModRevision',
      'maxModRevision',
      'minCreateRevision',
      'maxCreateRevision',
    ] as const) {
      if (op[f] !== undefined) r[f] = op[f] as number;
    }
    for (const f of ['serializable', 'keysOnly', 'countOnly'] as const)
      if (op[f] !== undefined) r[f] = !!op[f];
    if (op.sortOrder !== undefined) r.sortOrder = op.sortOrder as SortOrder;
    if (op.sortTarget !== undefined) r.sortTarget = op.sortTarget as SortTarget;
    return r;
  };
  const rangeOut = (r: RangeResponse) => ({
    revision: r.header.revision,
    kvs: r.kvs.map(kv),
    count: r.count,
    more: r.more,
  });
  const putOut = (r: PutResponse) => ({
    revision: r.header.revision,
    prevKv: r.prevKv ? kv(r.prevKv) : null,
  });
  const deleteOut = (r: DeleteRangeResponse) => ({
    revision: r.header.revision,
    deleted: r.deleted,
    prevKvs: r.prevKvs.map(kv),
  });

  const compare = (c: Record<string, unknown>): Compare => {
    const out: Compare = {
      key: c.key as string,
      target: c.target as Compare['target'],
      result: c.result as Compare['result'],
    };
    if (c.rangeEnd !== undefined) out.rangeEnd = c.rangeEnd as string;
    if (c.value !== undefined) out.value = keyBytes(c.value as string);
    if (c.version !== undefined) out.version = c.version as number;
    if (c.createRevision !== undefined) out.createRevision = c.createRevision as number;
    if (c.modRevision !== undefined) out.modRevision = c.modRevision as number;
    if (c.lease !== undefined) out.lease = leases.id(c.lease);
    return out;
  };
  const requestOp = (o: Record<string, unknown>): RequestOp => {
    switch (o.op) {
      case 'range':
        return { requestRange: rangeReq(o) };
      case 'put':
        return {
          requestPut: {
            key: o.key as string,
            value: keyBytes((o.value as string | undefined) ?? ''),
            lease: leases.id(o.lease),
            prevKv: !!o.prevKv,
            ignoreValue: !!o.ignoreValue,
            ignoreLease: !!o.ignoreLease,
          },
        };
      case 'delete':
        return {
          requestDeleteRange: {
            key: o.key as string,
            rangeEnd: o.rangeEnd as string | undefined,
            prevKv: !!o.prevKv,
          },
        };
      default:
        return { requestTxn: txnReq(o) };
    }
  };
  const txnReq = (o: Record<string, unknown>): TxnRequest => ({
    compare: ((o.compare as Record<string, unknown>[]) ?? []).map(compare),
    success: ((o.success as Record<string, unknown>[]) ?? []).map(requestOp),
    failure: ((o.failure as Record<string, unknown>[]) ?? []).map(requestOp),
  });
  const responseOp = (r: ResponseOp): unknown => {
    if ('responseRange' in r) return { range: rangeOut(r.responseRange) };
    if ('responsePut' in r) return { put: putOut(r.responsePut) };
    if ('responseDeleteRange' in r) return { delete: deleteOut(r.responseDeleteRange) };
    return { txn: txnOut(r.responseTxn) };
  };
  const txnOut = (r: TxnResponse): unknown => ({
    revision: r.header.revision,
    succeeded: r.succeeded,
    responses: r.responses.map(responseOp),
  });

  const onWatch = (w: WatchState, r: WatchResponse) => {
    lastResponseAt = Date.now();
    if (w.canceledByClient) {
      w.meta.errors.push(`response after client cancel at revision ${r.header.revision}`);
      return;
    }
    if (r.events.length > 0) {
      const revs: number[] = [];
      for (const e of r.events) if (revs[revs.length - 1] !== e.kv.modRevision) revs.push(e.kv.modRevision);
      w.meta.responses.push({ revision: r.header.revision, eventRevisions: revs });
      for (const e of r.events) w.events.push(event(e));
    }
    if (r.canceled) {
      if (r.compactRevision && r.compactRevision > 0) {
        w.meta.canceled = 'compacted';
        w.meta.compactRevision = r.compactRevision;
      } else if (r.cancelReason) {
        // e.g. a watch over an empty range: created, then canceled with etcd's reason
        w.meta.canceled = 'server';
        w.meta.cancelReason = r.cancelReason;
      } else {
        w.meta.errors.push('canceled by the server without a reason');
      }
    } else if (r.events.length === 0) {
      w.meta.progressRevisions.push(r.header.revision);
      w.sleepProgress = r.header.revision;
    }
  };

  const run = async (op: TraceOp): Promise<unknown> => {
    switch (op.op) {
      case 'put': {
        const { requestPut } = requestOp(op) as { requestPut: Parameters<KvStore['put']>[0] };
        return putOut(await store.put(requestPut));
      }
      case 'range':
        return rangeOut(await store.range(rangeReq(op)));
      case 'delete':
        return deleteOut(
          await store.deleteRange({
            key: op.key as string,
            rangeEnd: op.rangeEnd as string | undefined,
            prevKv: !!op.prevKv,
          }),
        );
      case 'txn':
        return txnOut(await store.txn(txnReq(op)));
      case 'compact':
        return {
          revision: (await store.compact({ revision: op.revision as number, physical: !!op.physical })).header
            .revision,
        };
      case 'leaseGrant': {
        const r = await store.leaseGrant(op.ttl as number);
        leases.bind(op.lease as string, r.id);
        return { revision: r.header.revision, lease: op.lease, ttl: r.ttl };
      }
      case 'leaseRevoke':
        return { revision: (await store.leaseRevoke(leases.id(op.lease))).header.revision };
      case 'leaseKeepAlive': {
        const r = await store.leaseKeepAlive(leases.id(op.lease));
        return { revision: r.header.revision, lease: op.lease, ttl: r.ttl };
      }
      case 'leaseTimeToLive': {
        const r = await store.leaseTimeToLive(leases.id(op.lease), { keys: !!op.keys });
        return {
          revision: r.header.revision,
          lease: op.lease,
          ttl: r.ttl,
          grantedTTL: r.grantedTtl,
          keys: [...r.keys].sort(compareKeys),
        };
      }
      case 'leaseExpire': {
        await hooks.expireLease(leases.id(op.lease));
        await settle();
        return { revision: await store.currentRevision() };
      }
      case 'watch': {
        const id = String(op.id);
        const w: WatchState = {
          id,
          watcher: null,
          progressNotify: !!op.progressNotify,
          canceledByClient: false,
          events: [],
          sleepProgress: null,
          meta: {
            createdRevision: null,
            canceled: null,
            compactRevision: null,
            responses: [],
            progressRevisions: [],
            errors: [],
          },
        };
        watches.set(id, w);
        w.watcher = await store.watch(
          {
            key: op.key as string,
            rangeEnd: op.rangeEnd as string | undefined,
            startRevision: op.startRevision as number | undefined,
            prevKv: !!op.prevKv,
            filters: op.filters as WatchFilter[] | undefined,
            progressNotify: !!op.progressNotify,
            fragment: !!op.fragment,
          },
          (r) => onWatch(w, r),
        );
        w.meta.createdRevision = w.watcher.createdRevision;
        return { created: true, revision: w.watcher.createdRevision };
      }
      case 'watchCancel': {
        const w = watches.get(String(op.id));
        if (!w?.watcher) throw new Error(`watchCancel of unknown watcher ${JSON.stringify(op.id)}`);
        await settle();
        await w.watcher.cancel();
        w.canceledByClient = true;
        if (w.meta.canceled === null) w.meta.canceled = 'client';
        return { canceled: true };
      }
      case 'sleep': {
        const active = [...watches.values()].filter(
          (w) => w.progressNotify && !w.canceledByClient && w.meta.canceled === null,
        );
        for (const w of active) w.sleepProgress = null;
        await hooks.sleep(op.ms as number);
        await settle();
        const progress: Record<string, number | null> = {};
        for (const w of active) progress[w.id] = w.sleepProgress;
        return { progress };
      }
      default:
        throw new Error(`unknown op ${JSON.stringify(op.op)}`);
    }
  };

  for (let i = 0; i < trace.ops.length; i++) {
    const op = trace.ops[i];
    let answer: unknown;
    try {
      answer = await run(op);
    } catch (err) {
      const e = err as { code?: unknown; message?: string };
      if (typeof e?.code !== 'number')
        throw new Error(`${trace.name}: ops[${i}] (${op.op}): ${e?.message ?? String(err)}`);
      const msg = e.message ?? '';
      answer = {
        error: {
          code: e.code,
          codeName: GRPC_CODE_NAMES[e.code] ?? `CODE_${e.code}`,
          message: msg.startsWith('etcdserver: ') ? msg : `etcdserver: ${msg}`,
        },
      };
    }
    expected.push(answer);
    opts.onOp?.(i, op, answer);
  }

  await settle();
  const watchEvents: Record<string, TraceWatchEvent[]> = {};
  const watchMeta: Record<string, TraceWatchMeta> = {};
  for (const w of watches.values()) {
    if (!w.canceledByClient && w.watcher) {
      w.canceledByClient = true; // stop recording; the trace ended, the watcher was not canceled by the trace
      await w.watcher.cancel();
    }
    watchEvents[w.id] = w.events;
    watchMeta[w.id] = w.meta;
  }
  return { expected, watchEvents, watchMeta };
}

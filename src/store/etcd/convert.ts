/**
 * Conversions between kubesim's camelCased KvStore shapes (src/store/types.ts) and etcd's
 * protobuf-shaped messages as the etcd3 package's raw gRPC clients send and receive them
 * (snake_case fields, int64 as decimal strings, bytes as Buffer, enums as names).
 *
 * Everything here is pure: the key prefix (namespace) and the lease-ID table are passed in.
 */
import type {
  ICompare,
  IDeleteRangeRequest,
  IEvent,
  IKeyValue,
  IPutRequest,
  IRangeRequest,
  IRequestOp,
  IResponseHeader,
  IResponseOp,
  ITxnRequest,
  IWatchCreateRequest,
} from 'etcd3';
import {
  GrpcCode,
  StoreError,
  type Compare,
  type DeleteRangeRequest,
  type DeleteRangeResponse,
  type KeyValue,
  type PutRequest,
  type PutResponse,
  type RangeRequest,
  type RangeResponse,
  type RequestOp,
  type ResponseOp,
  type TxnRequest,
  type TxnResponse,
  type WatchCreateRequest,
  type WatchEvent,
} from '../types.js';
import type { Keyspace } from './keyspace.js';
import type { LeaseIdTable } from './lease-ids.js';

/** Context every conversion needs: the namespace and the lease-ID translation table. */
export interface ConvertContext {
  keys: Keyspace;
  leases: LeaseIdTable;
}

/** int64 decimal string (or number) → number. Revisions, versions and counts stay far below 2^53. */
export function num(v: string | number | null | undefined): number {
  if (v === null || v === undefined || v === '') return 0;
  return typeof v === 'number' ? v : Number(v);
}

const EMPTY = new Uint8Array(0);

// etcd's protobuf enum numbers (rpc.proto), sent as numbers: unambiguous whatever enum-name
// spelling the loader expects.
const SORT_ORDER = { NONE: 0, ASCEND: 1, DESCEND: 2 } as const;
const SORT_TARGET = { KEY: 0, VERSION: 1, CREATE: 2, MOD: 3, VALUE: 4 } as const;
const COMPARE_RESULT = { EQUAL: 0, GREATER: 1, LESS: 2, NOT_EQUAL: 3 } as const;
const COMPARE_TARGET = { VERSION: 0, CREATE: 1, MOD: 2, VALUE: 3, LEASE: 4 } as const;
const FILTER = { NOPUT: 0, NODELETE: 1 } as const;

function enumNumber<T extends Record<string, number>>(table: T, value: string, what: string): T[keyof T] {
  const n = table[value];
  if (n === undefined) {
    throw new StoreError(
      `invalid ${what} ${JSON.stringify(value)} (expected one of ${Object.keys(table).join(', ')})`,
      GrpcCode.INVALID_ARGUMENT,
    );
  }
  return n as T[keyof T];
}

/** Buffer → plain Uint8Array view (no copy), so results deep-equal MemoryStore's. */
export function bytes(b: Buffer | Uint8Array | null | undefined): Uint8Array {
  if (!b || b.length === 0) return EMPTY.slice();
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

function buf(v: Uint8Array | undefined): Buffer {
  if (!v) return Buffer.alloc(0);
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

export function headerRevision(h: IResponseHeader | null | undefined): number {
  return h ? num(h.revision) : 0;
}

export function fromKv(kv: IKeyValue, ctx: ConvertContext): KeyValue {
  return {
    key: ctx.keys.fromEtcd(kv.key),
    value: bytes(kv.value),
    createRevision: num(kv.create_revision),
    modRevision: num(kv.mod_revision),
    version: num(kv.version),
    lease: ctx.leases.toLocal(kv.lease),
  };
}

export function toRangeRequest(r: RangeRequest, ctx: ConvertContext): IRangeRequest {
  const [key, rangeEnd] = ctx.keys.toEtcdRange(r.key, r.rangeEnd);
  const out: IRangeRequest = { key };
  if (rangeEnd) out.range_end = rangeEnd;
  if (r.limit) out.limit = r.limit;
  if (r.revision && r.revision > 0) out.revision = r.revision;
  if (r.sortOrder) out.sort_order = enumNumber(SORT_ORDER, r.sortOrder, 'sortOrder');
  if (r.sortTarget) out.sort_target = enumNumber(SORT_TARGET, r.sortTarget, 'sortTarget');
  if (r.serializable) out.serializable = true;
  if (r.keysOnly) out.keys_only = true;
  if (r.countOnly) out.count_only = true;
  if (r.minModRevision) out.min_mod_revision = r.minModRevision;
  if (r.maxModRevision) out.max_mod_revision = r.maxModRevision;
  if (r.minCreateRevision) out.min_create_revision = r.minCreateRevision;
  if (r.maxCreateRevision) out.max_create_revision = r.maxCreateRevision;
  return out;
}

interface RawRangeResponse {
  header: IResponseHeader | null;
  kvs: IKeyValue[] | null;
  more: boolean;
  count: string;
}

export function fromRangeResponse(r: RawRangeResponse, ctx: ConvertContext): RangeResponse {
  return {
    header: { revision: headerRevision(r.header) },
    kvs: (r.kvs ?? []).map((kv) => fromKv(kv, ctx)),
    more: !!r.more,
    count: num(r.count),
  };
}

export function toPutRequest(p: PutRequest, ctx: ConvertContext): IPutRequest {
  const out: IPutRequest = { key: ctx.keys.toEtcdKey(p.key), value: buf(p.value) };
  if (p.lease) out.lease = ctx.leases.toEtcd(p.lease);
  if (p.prevKv) out.prev_kv = true;
  if (p.ignoreValue) out.ignore_value = true;
  if (p.ignoreLease) out.ignore_lease = true;
  return out;
}

interface RawPutResponse {
  header: IResponseHeader | null;
  prev_kv: IKeyValue | null;
}

export function fromPutResponse(r: RawPutResponse, ctx: ConvertContext): PutResponse {
  const out: PutResponse = { header: { revision: headerRevision(r.header) } };
  if (r.prev_kv) out.prevKv = fromKv(r.prev_kv, ctx);
  return out;
}

export function toDeleteRequest(d: DeleteRangeRequest, ctx: ConvertContext): IDeleteRangeRequest {
  const [key, rangeEnd] = ctx.keys.toEtcdRange(d.key, d.rangeEnd);
  const out: IDeleteRangeRequest = { key };
  if (rangeEnd) out.range_end = rangeEnd;
  if (d.prevKv) out.prev_kv = true;
  return out;
}

interface RawDeleteResponse {
  header: IResponseHeader | null;
  deleted: string;
  prev_kvs: IKeyValue[] | null;
}

export function fromDeleteResponse(r: RawDeleteResponse, ctx: ConvertContext): DeleteRangeResponse {
  return {
    header: { revision: headerRevision(r.header) },
    deleted: num(r.deleted),
    prevKvs: (r.prev_kvs ?? []).map((kv) => fromKv(kv, ctx)),
  };
}

/** Compare: only the operand that matches the target is sent (as clientv3 does). */
export function toCompare(c: Compare, ctx: ConvertContext): ICompare {
  const [key, rangeEnd] = ctx.keys.toEtcdRange(c.key, c.rangeEnd);
  const out: ICompare = {
    key,
    target: enumNumber(COMPARE_TARGET, c.target, 'compare target'),
    result: enumNumber(COMPARE_RESULT, c.result, 'compare result'),
  };
  if (rangeEnd) out.range_end = rangeEnd;
  switch (c.target) {
    case 'VERSION':
      out.version = c.version ?? 0;
      break;
    case 'CREATE':
      out.create_revision = c.createRevision ?? 0;
      break;
    case 'MOD':
      out.mod_revision = c.modRevision ?? 0;
      break;
    case 'VALUE':
      out.value = buf(c.value);
      break;
    case 'LEASE':
      out.lease = c.lease ? ctx.leases.toEtcd(c.lease) : 0;
      break;
  }
  return out;
}

export function toRequestOp(op: RequestOp, ctx: ConvertContext): IRequestOp {
  if ('requestRange' in op) return { request_range: toRangeRequest(op.requestRange, ctx) };
  if ('requestPut' in op) return { request_put: toPutRequest(op.requestPut, ctx) };
  if ('requestDeleteRange' in op)
    return { request_delete_range: toDeleteRequest(op.requestDeleteRange, ctx) };
  if ('requestTxn' in op) return { request_txn: toTxnRequest(op.requestTxn, ctx) };
  throw new StoreError(
    'txn: request op must hold one of requestRange, requestPut, requestDeleteRange, requestTxn',
    GrpcCode.INVALID_ARGUMENT,
  );
}

export function toTxnRequest(t: TxnRequest, ctx: ConvertContext): ITxnRequest {
  return {
    compare: (t.compare ?? []).map((c) => toCompare(c, ctx)),
    success: (t.success ?? []).map((o) => toRequestOp(o, ctx)),
    failure: (t.failure ?? []).map((o) => toRequestOp(o, ctx)),
  };
}

interface RawTxnResponse {
  header: IResponseHeader | null;
  succeeded: boolean;
  responses: (IResponseOp & { response?: string })[] | null;
}

function fromResponseOp(r: IResponseOp, ctx: ConvertContext): ResponseOp {
  if (r.response_range)
    return { responseRange: fromRangeResponse(r.response_range as RawRangeResponse, ctx) };
  if (r.response_put) return { responsePut: fromPutResponse(r.response_put as RawPutResponse, ctx) };
  if (r.response_delete_range)
    return { responseDeleteRange: fromDeleteResponse(r.response_delete_range as RawDeleteResponse, ctx) };
  if (r.response_txn) return { responseTxn: fromTxnResponse(r.response_txn as RawTxnResponse, ctx) };
  throw new StoreError('etcd returned an empty ResponseOp', GrpcCode.FAILED_PRECONDITION);
}

/** Note: a nested txn's response has no header in etcd 3.4, so its revision reads as 0 (trace quirk nested-txn-header-revision-0). */
export function fromTxnResponse(r: RawTxnResponse, ctx: ConvertContext): TxnResponse {
  return {
    header: { revision: headerRevision(r.header) },
    succeeded: !!r.succeeded,
    responses: (r.responses ?? []).map((o) => fromResponseOp(o, ctx)),
  };
}

export function toWatchCreate(w: WatchCreateRequest, ctx: ConvertContext): IWatchCreateRequest {
  const [key, rangeEnd] = ctx.keys.toEtcdRange(w.key, w.rangeEnd);
  const out: IWatchCreateRequest = { key };
  if (rangeEnd) out.range_end = rangeEnd;
  if (w.startRevision && w.startRevision > 0) out.start_revision = w.startRevision;
  if (w.progressNotify) out.progress_notify = true;
  if (w.filters && w.filters.length > 0)
    out.filters = w.filters.map((f) => enumNumber(FILTER, f, 'watch filter'));
  if (w.prevKv) out.prev_kv = true;
  if (w.fragment) out.fragment = true;
  return out;
}

/** etcd3's bundled kv.proto spells the event types "Put"/"Delete" (etcd's own: PUT/DELETE). */
function isDelete(type: unknown): boolean {
  return type === 1 || (typeof type === 'string' && type.toUpperCase() === 'DELETE');
}

export function fromEvent(e: IEvent, ctx: ConvertContext): WatchEvent {
  const out: WatchEvent = { type: isDelete(e.type) ? 'DELETE' : 'PUT', kv: fromKv(e.kv, ctx) };
  if (e.prev_kv) out.prevKv = fromKv(e.prev_kv, ctx);
  return out;
}

/**
 * A failed gRPC call → StoreError(etcd's text without "etcdserver: ", gRPC code).
 * etcd3 turns gRPC errors into its own classes whose message still carries grpc-js's
 * "<code> <NAME>: <details>" text, so the code is read back from there.
 */
export function toStoreError(err: unknown): Error {
  if (err instanceof StoreError) return err;
  if (!(err instanceof Error)) return new StoreError(String(err), 2);
  const m = /(\d+) [A-Z_]+: (.*?)(?: is expired or revoked)?$/s.exec(err.message);
  if (m) {
    const code = Number(m[1]);
    const text = m[2]!.replace(/^etcdserver: /, '');
    return new StoreError(text, code);
  }
  const direct = (err as { code?: unknown }).code;
  if (typeof direct === 'number') return new StoreError(err.message.replace(/^etcdserver: /, ''), direct);
  return err;
}

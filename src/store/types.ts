/**
 * KvStore: etcd v3's KV, Watch and Lease services, camelCased, with etcd's field names.
 * Implemented by MemoryStore (in-memory MVCC, the default) and EtcdStore (a real etcd via etcd3);
 * both pass one shared conformance suite (test/store/conformance.ts).
 *
 * Keys are strings standing for etcd's byte keys (UTF-8; U+DC80..U+DCFF are raw bytes 0x80..0xFF)
 * and are ordered by those bytes, as etcd orders them (keybytes.ts). Values are bytes (the
 * ApiServer stores msgpackr-encoded objects).
 * "\0" as rangeEnd means "every key >= key"; key "\0" with rangeEnd "\0" means all keys.
 */

export type LeaseId = number; // 0 = no lease (etcd's lease ID 0)

export interface ResponseHeader {
  /** the store's current revision when the request was served */
  revision: number;
}

export interface KeyValue {
  key: string;
  value: Uint8Array;
  createRevision: number;
  modRevision: number;
  version: number;
  lease: LeaseId;
}

export type SortOrder = 'NONE' | 'ASCEND' | 'DESCEND';
export type SortTarget = 'KEY' | 'VERSION' | 'CREATE' | 'MOD' | 'VALUE';

export interface RangeRequest {
  key: string;
  rangeEnd?: string;
  limit?: number;
  /** read at this revision; absent or <= 0 means the latest */
  revision?: number;
  sortOrder?: SortOrder;
  sortTarget?: SortTarget;
  serializable?: boolean;
  keysOnly?: boolean;
  countOnly?: boolean;
  minModRevision?: number;
  maxModRevision?: number;
  minCreateRevision?: number;
  maxCreateRevision?: number;
}

export interface RangeResponse {
  header: ResponseHeader;
  kvs: KeyValue[];
  more: boolean;
  count: number;
}

export interface PutRequest {
  key: string;
  value: Uint8Array;
  lease?: LeaseId;
  prevKv?: boolean;
  ignoreValue?: boolean;
  ignoreLease?: boolean;
}

export interface PutResponse {
  header: ResponseHeader;
  prevKv?: KeyValue;
}

export interface DeleteRangeRequest {
  key: string;
  rangeEnd?: string;
  prevKv?: boolean;
}

export interface DeleteRangeResponse {
  header: ResponseHeader;
  deleted: number;
  prevKvs: KeyValue[];
}

export type CompareTarget = 'VERSION' | 'CREATE' | 'MOD' | 'VALUE' | 'LEASE';
export type CompareResult = 'EQUAL' | 'NOT_EQUAL' | 'GREATER' | 'LESS';

export interface Compare {
  key: string;
  rangeEnd?: string;
  target: CompareTarget;
  result: CompareResult;
  version?: number;
  createRevision?: number;
  modRevision?: number;
  value?: Uint8Array;
  lease?: LeaseId;
}

export type RequestOp =
  | { requestRange: RangeRequest }
  | { requestPut: PutRequest }
  | { requestDeleteRange: DeleteRangeRequest }
  | { requestTxn: TxnRequest };

export type ResponseOp =
  | { responseRange: RangeResponse }
  | { responsePut: PutResponse }
  | { responseDeleteRange: DeleteRangeResponse }
  | { responseTxn: TxnResponse };

export interface TxnRequest {
  compare?: Compare[];
  success?: RequestOp[];
  failure?: RequestOp[];
}

export interface TxnResponse {
  header: ResponseHeader;
  succeeded: boolean;
  responses: ResponseOp[];
}

export interface CompactionRequest {
  revision: number;
  /** wait until the compaction is physically applied (always true in memory) */
  physical?: boolean;
}

export interface CompactionResponse {
  header: ResponseHeader;
}

export type WatchFilter = 'NOPUT' | 'NODELETE';

export interface WatchCreateRequest {
  key: string;
  rangeEnd?: string;
  /** absent or 0: from the current revision + 1 */
  startRevision?: number;
  progressNotify?: boolean;
  filters?: WatchFilter[];
  prevKv?: boolean;
  fragment?: boolean;
}

export interface WatchEvent {
  type: 'PUT' | 'DELETE';
  kv: KeyValue;
  prevKv?: KeyValue;
}

/** One delivery to a watcher: all events of a revision arrive in one response, never split. */
export interface WatchResponse {
  header: ResponseHeader;
  watchId: number;
  events: WatchEvent[];
  /** a progress notification (no events; header.revision is the store revision) */
  progress?: boolean;
  /**
   * the watch's creation response (etcd's `created`); only sent together with `canceled`, when the
   * watch is refused as it is created (an empty or inverted range: v3rpc recvLoop answers
   * created and canceled in one response with mvcc's ErrEmptyWatcherRange)
   */
  created?: boolean;
  /** set when the watch was canceled; compactRevision > 0 when canceled by compaction */
  canceled?: boolean;
  compactRevision?: number;
  cancelReason?: string;
}

export interface Watcher {
  readonly watchId: number;
  /** the store revision when the watch was created */
  readonly createdRevision: number;
  /** stop delivery; no response arrives after the returned promise resolves */
  cancel(): Promise<void>;
  /** ask for a progress notification now (etcd's WatchProgressRequest) */
  requestProgress(): void;
}

export interface LeaseGrantResponse {
  header: ResponseHeader;
  id: LeaseId;
  ttl: number;
}

export interface LeaseKeepAliveResponse {
  header: ResponseHeader;
  id: LeaseId;
  /** 0 when the lease is unknown or expired */
  ttl: number;
}

export interface LeaseTimeToLiveResponse {
  header: ResponseHeader;
  id: LeaseId;
  /** remaining seconds; -1 when the lease is unknown or expired */
  ttl: number;
  grantedTtl: number;
  keys: string[];
}

export interface LeaseRevokeResponse {
  header: ResponseHeader;
}

/** etcd v3 KV + Watch + Lease. Every method rejects with a {@link StoreError} on expected failures. */
export interface KvStore {
  /**
   * Values outlive this process (a real etcd): writers encode them so another process can read
   * them (api/codec.ts portableCodec), not with a process-local codec. Absent: false.
   */
  readonly durable?: boolean;
  range(req: RangeRequest): Promise<RangeResponse>;
  put(req: PutRequest): Promise<PutResponse>;
  deleteRange(req: DeleteRangeRequest): Promise<DeleteRangeResponse>;
  txn(req: TxnRequest): Promise<TxnResponse>;
  compact(req: CompactionRequest): Promise<CompactionResponse>;
  watch(req: WatchCreateRequest, onResponse: (resp: WatchResponse) => void): Promise<Watcher>;
  leaseGrant(ttl: number, id?: LeaseId): Promise<LeaseGrantResponse>;
  leaseRevoke(id: LeaseId): Promise<LeaseRevokeResponse>;
  leaseKeepAlive(id: LeaseId): Promise<LeaseKeepAliveResponse>;
  leaseTimeToLive(id: LeaseId, opts?: { keys?: boolean }): Promise<LeaseTimeToLiveResponse>;
  /** the current revision (a cheap header read) */
  currentRevision(): Promise<number>;
  close(): Promise<void>;
}

/** gRPC status codes etcd uses for store errors. */
export const GrpcCode = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  FAILED_PRECONDITION: 9,
  OUT_OF_RANGE: 11,
} as const;

/** A store error with etcd's text (without the "etcdserver: " prefix) and gRPC code. */
export class StoreError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

/** etcd 3.4's error texts, as sentinels (compare with `err.message === ErrCompacted.message`). */
export const StoreErrors = {
  compacted: () => new StoreError('mvcc: required revision has been compacted', GrpcCode.OUT_OF_RANGE),
  futureRev: () => new StoreError('mvcc: required revision is a future revision', GrpcCode.OUT_OF_RANGE),
  leaseNotFound: () => new StoreError('requested lease not found', GrpcCode.NOT_FOUND),
  leaseTtlTooLarge: () => new StoreError('too large lease TTL', GrpcCode.OUT_OF_RANGE),
  keyNotProvided: () => new StoreError('key is not provided', GrpcCode.INVALID_ARGUMENT),
  keyNotFound: () => new StoreError('key not found', GrpcCode.INVALID_ARGUMENT),
  valueProvided: () => new StoreError('value is provided', GrpcCode.INVALID_ARGUMENT),
  leaseProvided: () => new StoreError('lease is provided', GrpcCode.INVALID_ARGUMENT),
  duplicateKey: () => new StoreError('duplicate key given in txn request', GrpcCode.INVALID_ARGUMENT),
  tooManyOps: () => new StoreError('too many operations in txn request', GrpcCode.INVALID_ARGUMENT),
  leaseExists: () => new StoreError('lease already exists', GrpcCode.FAILED_PRECONDITION),
} as const;

/**
 * The etcd golden-trace format (`etcd-golden-trace/v1`, /work/shared/etcd-trace-format.md): JSON
 * records of what a real etcd answered to a deterministic op sequence. Keys and values are strings,
 * leases are symbols ("L1"), watchers are named, errors are `{code, codeName, message}`.
 *
 * This module holds the JSON shapes; validate.ts checks a trace before replay (parseTrace).
 */

export const TRACE_FORMAT = 'etcd-golden-trace/v1';

/** One op: `op` names the operation, the other fields are its request (see the format document). */
export type TraceOp = { op: string; note?: string; quirk?: string } & Record<string, unknown>;

/** A KeyValue in trace form. */
export interface TraceKv {
  key: string;
  value: string;
  createRevision: number;
  modRevision: number;
  version: number;
  lease: string | null;
}

export interface TraceWatchEvent {
  type: 'PUT' | 'DELETE';
  kv: TraceKv;
  prevKv?: TraceKv;
}

export interface TraceWatchMeta {
  createdRevision: number | null;
  /** 'server': canceled by the server for another reason than compaction (see cancelReason) */
  canceled: null | 'client' | 'compacted' | 'server';
  compactRevision: number | null;
  /** the server's reason when it canceled the watch, e.g. "mvcc: watcher range is empty" (absent in older traces) */
  cancelReason?: string | null;
  responses: { revision: number; eventRevisions: number[] }[];
  progressRevisions: number[];
  errors: string[];
}

/** What a replay produces, in the shapes of the trace's `expected` / `watchEvents` / `watchMeta`. */
export interface TraceResult {
  expected: unknown[];
  watchEvents: Record<string, TraceWatchEvent[]>;
  watchMeta: Record<string, TraceWatchMeta>;
}

export interface GoldenTrace extends Partial<TraceResult> {
  format: string;
  name: string;
  description?: string;
  recordedWith?: {
    etcdVersion?: string;
    limits?: {
      maxTxnOps?: number;
      minLeaseTTLSeconds?: number;
      maxLeaseTTLSeconds?: number;
      progressNotifyInterval?: string;
    };
    [k: string]: unknown;
  };
  initialRevision?: number;
  opCount?: number;
  ops: TraceOp[];
  warnings?: string[];
}

/** A malformed trace: the message names the source, the op and the field. */
export class TraceFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TraceFormatError';
  }
}

/** gRPC status code names for the `codeName` of errors. */
export const GRPC_CODE_NAMES: Record<number, string> = {
  0: 'OK',
  1: 'CANCELLED',
  2: 'UNKNOWN',
  3: 'INVALID_ARGUMENT',
  4: 'DEADLINE_EXCEEDED',
  5: 'NOT_FOUND',
  6: 'ALREADY_EXISTS',
  7: 'PERMISSION_DENIED',
  8: 'RESOURCE_EXHAUSTED',
  9: 'FAILED_PRECONDITION',
  10: 'ABORTED',
  11: 'OUT_OF_RANGE',
  12: 'UNIMPLEMENTED',
  13: 'INTERNAL',
  14: 'UNAVAILABLE',
  15: 'DATA_LOSS',
  16: 'UNAUTHENTICATED',
};

/** Parse "1s", "500ms", "2m" (Go duration subset used in `recordedWith.limits`) into milliseconds. */
export function parseDurationMs(s: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(s.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  return n * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const)[m[2] as 'ms' | 's' | 'm' | 'h'];
}

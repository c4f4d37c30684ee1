/**
 * The etcd golden-trace format (`etcd-golden-trace/v1`, /work/shared/etcd-trace-format.md): JSON
 * records of what a real etcd answered to a deterministic op sequence. Keys and values are strings,
 * leases are symbols ("L1"), watchers are named, errors are `{code, codeName, message}`.
 *
 * This module holds the JSON shapes and {@link parseTrace}, which checks a trace before replay and
 * names the file, op index and field of anything malformed.
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

export interface TraceError {
  error: { code: number; codeName: string; message: string };
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

const KNOWN_OPS = new Set([
  'put',
  'range',
  'delete',
  'txn',
  'compact',
  'leaseGrant',
  'leaseRevoke',
  'leaseKeepAlive',
  'leaseTimeToLive',
  'leaseExpire',
  'watch',
  'watchCancel',
  'sleep',
]);
const BRANCH_OPS = new Set(['put', 'range', 'delete', 'txn']);

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

/**
 * Validate a parsed JSON value as a golden trace. `source` (a file name) prefixes every message.
 * Checks the format tag, that `ops` is an array of known ops with the fields replay needs, and
 * that `expected` (when present) has one entry per op.
 */
export function parseTrace(json: unknown, source = 'trace'): GoldenTrace {
  const fail = (msg: string): never => {
    throw new TraceFormatError(`${source}: ${msg}`);
  };
  if (typeof json !== 'object' || json === null || Array.isArray(json)) fail('not a JSON object');
  const t = json as Record<string, unknown>;
  if (t.format !== TRACE_FORMAT)
    fail(`field "format" is ${JSON.stringify(t.format)}, expected "${TRACE_FORMAT}"`);
  if (!Array.isArray(t.ops)) fail('field "ops" must be an array');
  const ops = t.ops as unknown[];
  ops.forEach((op, i) => checkOp(op, `ops[${i}]`, fail, false));
  if (t.expected !== undefined) {
    if (!Array.isArray(t.expected)) fail('field "expected" must be an array');
    if ((t.expected as unknown[]).length !== ops.length)
      fail(`"expected" has ${(t.expected as unknown[]).length} entries for ${ops.length} ops`);
  }
  for (const f of ['watchEvents', 'watchMeta'] as const) {
    if (t[f] !== undefined && (typeof t[f] !== 'object' || t[f] === null || Array.isArray(t[f])))
      fail(`field "${f}" must be an object keyed by watch id`);
  }
  return { name: typeof t.name === 'string' ? t.name : source, ...t } as GoldenTrace;
}

function checkOp(raw: unknown, where: string, fail: (m: string) => never, inTxn: boolean): void {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(`${where} is not an object`);
  const op = raw as Record<string, unknown>;
  const name = op.op;
  if (typeof name !== 'string') fail(`${where}: field "op" is missing`);
  const allowed = inTxn ? BRANCH_OPS : KNOWN_OPS;
  if (!allowed.has(name as string))
    fail(`${where}: unknown op ${JSON.stringify(name)}${inTxn ? ' in a txn branch' : ''}`);
  const str = (f: string, optional = false) => {
    if (op[f] === undefined && optional) return;
    if (typeof op[f] !== 'string') fail(`${where} (${name}): field "${f}" must be a string`);
  };
  const num = (f: string, optional = false) => {
    if (op[f] === undefined && optional) return;
    if (typeof op[f] !== 'number' || !Number.isFinite(op[f]))
      fail(`${where} (${name}): field "${f}" must be a number`);
  };
  const lease = (f: string, optional = false) => {
    if (op[f] === undefined && optional) return;
    if (op[f] !== null && typeof op[f] !== 'string')
      fail(`${where} (${name}): field "${f}" must be a lease symbol or null`);
  };
  switch (name) {
    case 'put':
      str('key');
      str('value', !!op.ignoreValue);
      lease('lease', true);
      break;
    case 'range':
    case 'delete':
      str('key');
      str('rangeEnd', true);
      num('revision', true);
      num('limit', true);
      break;
    case 'txn':
      for (const f of ['compare', 'success', 'failure']) {
        if (op[f] !== undefined && !Array.isArray(op[f]))
          fail(`${where} (txn): field "${f}" must be an array`);
      }
      ((op.compare as unknown[]) ?? []).forEach((c, i) => {
        const cw = `${where}.compare[${i}]`;
        if (typeof c !== 'object' || c === null) fail(`${cw} is not an object`);
        const cc = c as Record<string, unknown>;
        if (typeof cc.key !== 'string') fail(`${cw}: field "key" must be a string`);
        if (!['VALUE', 'VERSION', 'CREATE', 'MOD', 'LEASE'].includes(cc.target as string))
          fail(`${cw}: field "target" must be VALUE, VERSION, CREATE, MOD or LEASE`);
        if (!['EQUAL', 'NOT_EQUAL', 'GREATER', 'LESS'].includes(cc.result as string))
          fail(`${cw}: field "result" must be EQUAL, NOT_EQUAL, GREATER or LESS`);
      });
      ((op.success as unknown[]) ?? []).forEach((o, i) => checkOp(o, `${where}.success[${i}]`, fail, true));
      ((op.failure as unknown[]) ?? []).forEach((o, i) => checkOp(o, `${where}.failure[${i}]`, fail, true));
      break;
    case 'compact':
      num('revision');
      break;
    case 'leaseGrant':
      str('lease');
      num('ttl');
      break;
    case 'leaseRevoke':
    case 'leaseKeepAlive':
    case 'leaseTimeToLive':
    case 'leaseExpire':
      str('lease');
      break;
    case 'watch':
      if (typeof op.id !== 'string' && typeof op.id !== 'number')
        fail(`${where} (watch): field "id" must be a string or number`);
      str('key');
      str('rangeEnd', true);
      num('startRevision', true);
      break;
    case 'watchCancel':
      if (typeof op.id !== 'string' && typeof op.id !== 'number')
        fail(`${where} (watchCancel): field "id" must be a string or number`);
      break;
    case 'sleep':
      num('ms');
      break;
  }
}

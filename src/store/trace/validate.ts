/**
 * Strict validation of a golden trace (`etcd-golden-trace/v1`) before anything is replayed: every
 * field of every op is known and of the right type, numbers are integers within their bounds,
 * keys and values name byte strings, range helpers agree with the range they stand for, watch
 * cancels refer to live watches, and the trace stays within documented limits. A malformed trace
 * is a {@link TraceFormatError} naming the source, the op index (`ops[3]`, `ops[0].success[1]`)
 * and the field; nothing malformed reaches a store.
 *
 * Limits (the reasons: a replay on the in-memory store advances a virtual clock through every
 * progress-notification tick, and the checks and the replay recurse per nesting level):
 *   - JSON nesting depth ≤ {@link MAX_TRACE_DEPTH}; ops ≤ {@link MAX_TRACE_OPS};
 *   - `sleep.ms` ≤ {@link MAX_SLEEP_MS} (1 h); the trace's virtual time (sleeps plus the TTLs of
 *     the leases `leaseExpire` waits out) ≤ {@link MAX_TRACE_TIME_MS} (24 h);
 *   - `recordedWith.limits.progressNotifyInterval` between 10 ms and 24 h.
 */
import { keyBytes } from '../keybytes.js';
import { prefixEnd } from '../keyrange.js';
import { StoreError } from '../types.js';
import { type GoldenTrace, parseDurationMs, TRACE_FORMAT, TraceFormatError } from './format.js';

/** Deepest JSON nesting a trace may have. */
export const MAX_TRACE_DEPTH = 100;
/** Most top-level ops a trace may have. */
export const MAX_TRACE_OPS = 100_000;
/** Longest `sleep` op, in ms (1 hour). */
export const MAX_SLEEP_MS = 3_600_000;
/** Most virtual time a trace may spend in sleeps and lease expiries, in ms (24 hours). */
export const MAX_TRACE_TIME_MS = 86_400_000;
/** Bounds of `recordedWith.limits.progressNotifyInterval`, in ms. */
export const PROGRESS_INTERVAL_BOUNDS_MS = [10, 86_400_000] as const;

type Kind =
  | 'string'
  | 'key'
  | 'bool'
  | 'int'
  | 'lease'
  | 'leaseOrNull'
  | 'watchId'
  | 'filters'
  | 'compares'
  | 'branch'
  | readonly string[];

interface OpSpec {
  fields: Record<string, Kind>;
  required: string[];
  /** allowed as an element of a txn branch */
  inTxn?: boolean;
}

const COMMON: Record<string, Kind> = { op: 'string', note: 'string', quirk: 'string' };
const HELPERS: Record<string, Kind> = { prefix: 'bool', fromKey: 'bool', allKeys: 'bool' };
const SORT_ORDERS = ['NONE', 'ASCEND', 'DESCEND'] as const;
const SORT_TARGETS = ['KEY', 'VERSION', 'CREATE', 'MOD', 'VALUE'] as const;
const FILTERS = ['NOPUT', 'NODELETE'];
const TARGETS = ['VALUE', 'VERSION', 'CREATE', 'MOD', 'LEASE'] as const;
const RESULTS = ['EQUAL', 'NOT_EQUAL', 'GREATER', 'LESS'] as const;
/** the operand field of each compare target */
const OPERAND: Record<string, string> = {
  VALUE: 'value',
  VERSION: 'version',
  CREATE: 'createRevision',
  MOD: 'modRevision',
  LEASE: 'lease',
};

const OPS = new Map<string, OpSpec>([
  [
    'put',
    {
      inTxn: true,
      required: ['key'],
      fields: {
        key: 'key',
        value: 'key',
        lease: 'leaseOrNull',
        prevKv: 'bool',
        ignoreValue: 'bool',
        ignoreLease: 'bool',
      },
    },
  ],
  [
    'range',
    {
      inTxn: true,
      required: ['key'],
      fields: {
        key: 'key',
        rangeEnd: 'key',
        ...HELPERS,
        limit: 'int',
        revision: 'int',
        countOnly: 'bool',
        keysOnly: 'bool',
        serializable: 'bool',
        sortOrder: SORT_ORDERS,
        sortTarget: SORT_TARGETS,
        minModRevision: 'int',
        maxModRevision: 'int',
        minCreateRevision: 'int',
        maxCreateRevision: 'int',
      },
    },
  ],
  [
    'delete',
    { inTxn: true, required: ['key'], fields: { key: 'key', rangeEnd: 'key', ...HELPERS, prevKv: 'bool' } },
  ],
  [
    'txn',
    { inTxn: true, required: [], fields: { compare: 'compares', success: 'branch', failure: 'branch' } },
  ],
  ['compact', { required: ['revision'], fields: { revision: 'int', physical: 'bool' } }],
  ['leaseGrant', { required: ['lease', 'ttl'], fields: { lease: 'lease', ttl: 'int' } }],
  ['leaseRevoke', { required: ['lease'], fields: { lease: 'lease' } }],
  ['leaseKeepAlive', { required: ['lease'], fields: { lease: 'lease' } }],
  ['leaseTimeToLive', { required: ['lease'], fields: { lease: 'lease', keys: 'bool' } }],
  ['leaseExpire', { required: ['lease'], fields: { lease: 'lease' } }],
  [
    'watch',
    {
      required: ['id', 'key'],
      fields: {
        id: 'watchId',
        key: 'key',
        rangeEnd: 'key',
        ...HELPERS,
        startRevision: 'int',
        prevKv: 'bool',
        progressNotify: 'bool',
        fragment: 'bool',
        filters: 'filters',
      },
    },
  ],
  ['watchCancel', { required: ['id'], fields: { id: 'watchId' } }],
  ['sleep', { required: ['ms'], fields: { ms: 'int' } }],
]);

const COMPARE_FIELDS: Record<string, Kind> = {
  key: 'key',
  rangeEnd: 'key',
  target: TARGETS,
  result: RESULTS,
  value: 'key',
  version: 'int',
  createRevision: 'int',
  modRevision: 'int',
  lease: 'leaseOrNull',
};

const TOP_FIELDS = new Set([
  'format',
  'name',
  'description',
  'recordedWith',
  'initialRevision',
  'opCount',
  'ops',
  'expected',
  'watchEvents',
  'watchMeta',
  'warnings',
]);

type Fail = (msg: string) => never;

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);
const show = (x: unknown) => {
  const s = JSON.stringify(x) ?? String(x);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

/**
 * Validate a parsed JSON value as a golden trace; `source` (a file name) prefixes every message.
 * Returns the trace typed; throws {@link TraceFormatError} on the first problem.
 */
export function parseTrace(json: unknown, source = 'trace'): GoldenTrace {
  const fail: Fail = (msg) => {
    throw new TraceFormatError(`${source}: ${msg}`);
  };
  checkDepth(json, fail);
  if (!isObject(json)) fail('not a JSON object');
  const t = json as Record<string, unknown>;
  for (const k of Object.keys(t)) if (!TOP_FIELDS.has(k)) fail(`unknown field ${show(k)}`);
  if (t.format !== TRACE_FORMAT) fail(`field "format" is ${show(t.format)}, expected "${TRACE_FORMAT}"`);
  for (const f of ['name', 'description'] as const)
    if (t[f] !== undefined && typeof t[f] !== 'string') fail(`field "${f}" must be a string`);
  if (t.initialRevision !== undefined && t.initialRevision !== 1)
    fail(
      `field "initialRevision" is ${show(t.initialRevision)}: a trace starts on an empty store at revision 1`,
    );
  if (!Array.isArray(t.ops)) fail('field "ops" must be an array');
  const ops = t.ops as unknown[];
  if (ops.length > MAX_TRACE_OPS) fail(`${ops.length} ops; the maximum is ${MAX_TRACE_OPS}`);
  if (t.opCount !== undefined && t.opCount !== ops.length)
    fail(`field "opCount" is ${show(t.opCount)} but there are ${ops.length} ops`);
  const limits = checkRecordedWith(t.recordedWith, fail);
  const state: TraceState = {
    watches: new Map(),
    leaseTtlMs: new Map(),
    timeMs: 0,
    minLeaseTtlMs: (limits.minLeaseTTLSeconds ?? 2) * 1000,
  };
  ops.forEach((op, i) => checkOp(op, `ops[${i}]`, fail, false, state));
  checkAnswers(t, ops.length, fail);
  return { ...t, name: typeof t.name === 'string' ? t.name : source } as GoldenTrace;
}

/** what the checks carry from op to op: watch ids, granted lease TTLs, virtual time */
interface TraceState {
  /** watch id → still active */
  watches: Map<string, boolean>;
  leaseTtlMs: Map<string, number>;
  timeMs: number;
  minLeaseTtlMs: number;
}

/**
 * JSON nesting depth, walked without recursion so that a hostile depth cannot overflow the stack.
 * The message names the top-level field, or the op, that holds the deep part.
 */
function checkDepth(json: unknown, fail: Fail): void {
  const stack: [value: unknown, depth: number, where: string][] = [[json, 1, '']];
  while (stack.length > 0) {
    const [v, d, where] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d > MAX_TRACE_DEPTH) fail(`${where ? `${where}: ` : ''}nested deeper than ${MAX_TRACE_DEPTH} levels`);
    const entries = Array.isArray(v) ? v.map((c, i) => [String(i), c] as const) : Object.entries(v);
    for (const [k, c] of entries) {
      const at = d === 1 ? `field ${show(k)}` : d === 2 && where === 'field "ops"' ? `ops[${k}]` : where;
      stack.push([c, d + 1, at]);
    }
  }
}

function checkRecordedWith(raw: unknown, fail: Fail): { minLeaseTTLSeconds?: number } {
  if (raw === undefined) return {};
  if (!isObject(raw)) fail('field "recordedWith" must be an object');
  const limits = (raw as Record<string, unknown>).limits;
  if (limits === undefined) return {};
  if (!isObject(limits)) fail('field "recordedWith.limits" must be an object');
  const l = limits as Record<string, unknown>;
  const int = (f: string, lo: number, hi: number) => {
    const v = l[f];
    if (v === undefined) return;
    if (!Number.isSafeInteger(v) || (v as number) < lo || (v as number) > hi)
      fail(`field "recordedWith.limits.${f}" is ${show(v)}; expected an integer from ${lo} to ${hi}`);
  };
  int('maxTxnOps', 1, 100_000);
  int('minLeaseTTLSeconds', 1, 9_000_000_000);
  int('maxLeaseTTLSeconds', 1, 9_000_000_000);
  const p = l.progressNotifyInterval;
  if (p !== undefined) {
    const ms = typeof p === 'string' ? parseDurationMs(p) : undefined;
    const [lo, hi] = PROGRESS_INTERVAL_BOUNDS_MS;
    if (ms === undefined || ms < lo || ms > hi)
      fail(
        `field "recordedWith.limits.progressNotifyInterval" is ${show(p)}; expected a duration from 10ms to 24h`,
      );
  }
  return l as { minLeaseTTLSeconds?: number };
}

function checkOp(raw: unknown, where: string, fail: Fail, inTxn: boolean, state: TraceState): void {
  if (!isObject(raw)) fail(`${where} is not an object`);
  const op = raw as Record<string, unknown>;
  if (typeof op.op !== 'string') fail(`${where}: field "op" is missing`);
  const name = op.op as string;
  const spec = OPS.get(name);
  if (!spec || (inTxn && !spec.inTxn))
    fail(`${where}: unknown op ${show(name)}${inTxn ? ' in a txn branch' : ''}`);
  const at = `${where} (${name})`;
  checkFields(op, { ...COMMON, ...spec!.fields }, at, fail, state, inTxn);
  for (const f of spec!.required) if (op[f] === undefined) fail(`${at}: field "${f}" is required`);
  if (name === 'put' && op.value === undefined && !op.ignoreValue) fail(`${at}: field "value" is required`);
  checkHelpers(op, at, fail);
  switch (name) {
    case 'txn':
      for (const f of ['success', 'failure'] as const)
        ((op[f] as unknown[] | undefined) ?? []).forEach((o, i) =>
          checkOp(o, `${where}.${f}[${i}]`, fail, true, state),
        );
      break;
    case 'sleep':
      if ((op.ms as number) < 0 || (op.ms as number) > MAX_SLEEP_MS)
        fail(`${at}: field "ms" is ${op.ms}; expected 0 to ${MAX_SLEEP_MS} (1 h)`);
      addTime(op.ms as number, at, fail, state);
      break;
    case 'leaseGrant':
      state.leaseTtlMs.set(op.lease as string, Math.max((op.ttl as number) * 1000, state.minLeaseTtlMs));
      break;
    case 'leaseExpire':
      addTime(state.leaseTtlMs.get(op.lease as string) ?? 0, at, fail, state);
      break;
    case 'watch': {
      const id = String(op.id);
      if (state.watches.has(id)) fail(`${at}: watch id ${show(op.id)} is already used`);
      state.watches.set(id, true);
      break;
    }
    case 'watchCancel': {
      const id = String(op.id);
      const active = state.watches.get(id);
      if (active === undefined) fail(`${at}: no watch with id ${show(op.id)} was created before`);
      if (active === false) fail(`${at}: watch ${show(op.id)} is already canceled`);
      state.watches.set(id, false);
      break;
    }
  }
}

function addTime(ms: number, at: string, fail: Fail, state: TraceState): void {
  state.timeMs += ms;
  if (state.timeMs > MAX_TRACE_TIME_MS)
    fail(
      `${at}: the trace's virtual time (sleeps and expired lease TTLs) reaches ${state.timeMs} ms; the maximum is ${MAX_TRACE_TIME_MS} (24 h)`,
    );
}

function checkFields(
  o: Record<string, unknown>,
  fields: Record<string, Kind>,
  at: string,
  fail: Fail,
  state: TraceState,
  inTxn: boolean,
): void {
  for (const [f, v] of Object.entries(o)) {
    const kind = Object.hasOwn(fields, f) ? fields[f] : undefined;
    if (kind === undefined) fail(`${at}: unknown field ${show(f)}`);
    const bad = (expected: string): never => fail(`${at}: field "${f}" is ${show(v)}; expected ${expected}`);
    if (Array.isArray(kind)) {
      if (!kind.includes(v as string)) bad(`one of ${kind.join(', ')}`);
      continue;
    }
    switch (kind) {
      case 'string':
      case 'lease':
        if (typeof v !== 'string') bad(kind === 'lease' ? 'a lease symbol (a string)' : 'a string');
        break;
      case 'leaseOrNull':
        if (v !== null && typeof v !== 'string') bad('a lease symbol (a string) or null');
        break;
      case 'key':
        if (typeof v !== 'string') bad('a string');
        try {
          keyBytes(v as string);
        } catch (e) {
          if (!(e instanceof StoreError)) throw e;
          fail(`${at}: field "${f}": ${e.message.replace(/^key /, '')}`);
        }
        break;
      case 'bool':
        if (typeof v !== 'boolean') bad('true or false');
        break;
      case 'int':
        if (!Number.isSafeInteger(v))
          bad(`an integer from ${Number.MIN_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`);
        break;
      case 'watchId':
        if (typeof v !== 'string' && !Number.isSafeInteger(v)) bad('a string or an integer');
        break;
      case 'filters':
        if (!Array.isArray(v) || v.some((x) => !FILTERS.includes(x as string)))
          bad('a list of NOPUT, NODELETE');
        break;
      case 'branch':
        if (!Array.isArray(v)) bad('a list of ops');
        break;
      case 'compares':
        if (!Array.isArray(v)) bad('a list of compares');
        (v as unknown[]).forEach((c, i) =>
          checkCompare(c, `${at.replace(/ \(txn\)$/, '')}.compare[${i}]`, fail, state, inTxn),
        );
        break;
    }
  }
}

function checkCompare(raw: unknown, where: string, fail: Fail, state: TraceState, inTxn: boolean): void {
  if (!isObject(raw)) fail(`${where} is not an object`);
  const c = raw as Record<string, unknown>;
  checkFields(c, COMPARE_FIELDS, where, fail, state, inTxn);
  for (const f of ['key', 'target', 'result'])
    if (c[f] === undefined) fail(`${where}: field "${f}" is required`);
  const operand = OPERAND[c.target as string]!;
  if (c[operand] === undefined) fail(`${where}: field "${operand}" is required with target ${c.target}`);
  for (const f of Object.values(OPERAND))
    if (f !== operand && c[f] !== undefined)
      fail(`${where}: field "${f}" is not used with target ${c.target} (its operand is "${operand}")`);
}

/** a range helper must agree with the range it stands for (the format: always use key/rangeEnd) */
function checkHelpers(op: Record<string, unknown>, at: string, fail: Fail): void {
  const key = op.key as string;
  if (op.prefix === true && op.rangeEnd !== prefixEnd(key))
    fail(`${at}: "prefix": true needs "rangeEnd": ${show(prefixEnd(key))} (the prefix end of ${show(key)})`);
  if (op.fromKey === true && op.rangeEnd !== '\0') fail(`${at}: "fromKey": true needs "rangeEnd": "\\u0000"`);
  if (op.allKeys === true && (key !== '\0' || op.rangeEnd !== '\0'))
    fail(`${at}: "allKeys": true needs "key" and "rangeEnd" "\\u0000"`);
}

function checkAnswers(t: Record<string, unknown>, opCount: number, fail: Fail): void {
  if (t.expected !== undefined) {
    if (!Array.isArray(t.expected)) fail('field "expected" must be an array');
    if ((t.expected as unknown[]).length !== opCount)
      fail(`"expected" has ${(t.expected as unknown[]).length} entries for ${opCount} ops`);
  }
  if (t.watchEvents !== undefined) {
    if (!isObject(t.watchEvents)) fail('field "watchEvents" must be an object keyed by watch id');
    for (const [id, evs] of Object.entries(t.watchEvents as object))
      if (!Array.isArray(evs)) fail(`watchEvents[${show(id)}] must be a list of events`);
  }
  if (t.watchMeta !== undefined) {
    if (!isObject(t.watchMeta)) fail('field "watchMeta" must be an object keyed by watch id');
    for (const [id, m] of Object.entries(t.watchMeta as object)) {
      if (!isObject(m)) fail(`watchMeta[${show(id)}] must be an object`);
      const meta = m as Record<string, unknown>;
      if (meta.compactRevision != null && !Number.isSafeInteger(meta.compactRevision))
        fail(`watchMeta[${show(id)}].compactRevision must be an integer or null`);
      if (meta.cancelReason != null && typeof meta.cancelReason !== 'string')
        fail(`watchMeta[${show(id)}].cancelReason must be a string or null`);
      if (meta.responses !== undefined && !Array.isArray(meta.responses))
        fail(`watchMeta[${show(id)}].responses must be a list`);
      if (meta.errors !== undefined && !Array.isArray(meta.errors))
        fail(`watchMeta[${show(id)}].errors must be a list`);
    }
  }
  if (
    t.warnings !== undefined &&
    (!Array.isArray(t.warnings) || t.warnings.some((w) => typeof w !== 'string'))
  )
    fail('field "warnings" must be a list of strings');
}

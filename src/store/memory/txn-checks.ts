/**
 * The request checks and comparisons of etcd's KV service that do not need the store's state:
 * v3rpc's request validation (checkPutRequest, checkIntervals), isTxnReadonly, applyCompare's
 * comparison of one KeyValue, and the range sort orders. Pure functions over requests.
 */
import { compareKeys, isAscii, keyBytes } from '../keybytes.js';
import {
  StoreErrors,
  type Compare,
  type KeyValue,
  type PutRequest,
  type RequestOp,
  type TxnRequest,
} from '../types.js';

const EMPTY = new Uint8Array(0);

/** etcd's bytes.Compare on values */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i] - b[i];
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** what a compare sees for a missing key (etcd: the zero mvccpb.KeyValue) */
export const ZERO_KV: KeyValue = {
  key: '',
  value: EMPTY,
  createRevision: 0,
  modRevision: 0,
  version: 0,
  lease: 0,
};

/** a key names a byte string (keybytes.ts); ASCII keys cost one scan */
export function checkKey(key: string): void {
  if (!isAscii(key)) keyBytes(key);
}

/** etcd checkRangeRequest / checkDeleteRequest: a key is required; key and range end must be keys */
export function checkRange(key: string, rangeEnd: string | undefined): void {
  if (!key) throw StoreErrors.keyNotProvided();
  checkKey(key);
  if (rangeEnd) checkKey(rangeEnd);
}

export function checkPut(req: PutRequest): void {
  if (!req.key) throw StoreErrors.keyNotProvided();
  checkKey(req.key);
  if (req.ignoreValue && req.value && req.value.length !== 0) throw StoreErrors.valueProvided();
  if (req.ignoreLease && req.lease) throw StoreErrors.leaseProvided();
}

export function compareKv(c: Compare, kv: KeyValue): boolean {
  let r: number;
  switch (c.target) {
    case 'VALUE':
      r = compareBytes(kv.value, c.value ?? EMPTY);
      break;
    case 'VERSION':
      r = Math.sign(kv.version - (c.version ?? 0));
      break;
    case 'CREATE':
      r = Math.sign(kv.createRevision - (c.createRevision ?? 0));
      break;
    case 'MOD':
      r = Math.sign(kv.modRevision - (c.modRevision ?? 0));
      break;
    case 'LEASE':
      r = Math.sign(kv.lease - (c.lease ?? 0));
      break;
    default:
      r = 0;
  }
  switch (c.result) {
    case 'EQUAL':
      return r === 0;
    case 'NOT_EQUAL':
      return r !== 0;
    case 'GREATER':
      return r > 0;
    case 'LESS':
      return r < 0;
    default:
      return true;
  }
}

export function comparator(target: string): (a: KeyValue, b: KeyValue) => number {
  switch (target) {
    case 'VERSION':
      return (a, b) => a.version - b.version;
    case 'CREATE':
      return (a, b) => a.createRevision - b.createRevision;
    case 'MOD':
      return (a, b) => a.modRevision - b.modRevision;
    case 'VALUE':
      return (a, b) => compareBytes(a.value, b.value);
    default:
      return (a, b) => compareKeys(a.key, b.key);
  }
}

/** etcd isTxnReadonly: no put or delete anywhere in the request, either branch, nested included */
export function isReadOnly(req: TxnRequest): boolean {
  return branchReadOnly(req.success) && branchReadOnly(req.failure);
}

function branchReadOnly(ops: RequestOp[] | undefined): boolean {
  if (ops === undefined) return true;
  for (const op of ops) {
    if ('requestPut' in op || 'requestDeleteRange' in op) return false;
    if ('requestTxn' in op && !isReadOnly(op.requestTxn)) return false;
  }
  return true;
}

/** a branch with at most one write and no nested txn cannot hold duplicates (the common CAS shape) */
export function needsIntervalCheck(ops: RequestOp[] | undefined): boolean {
  if (ops === undefined || ops.length < 2)
    return ops !== undefined && ops.length === 1 && 'requestTxn' in ops[0];
  let writes = 0;
  for (const op of ops) {
    if ('requestTxn' in op) return true;
    if (('requestPut' in op || 'requestDeleteRange' in op) && ++writes > 1) return true;
  }
  return false;
}

/**
 * etcd v3rpc checkIntervals: within one branch no key may be put twice or put inside a deleted
 * range, counting nested txns (whose then/else branches may put the same key, being exclusive).
 * Deleted ranges compare as plain byte strings here, as in etcd's interval tree ("\0" is not special).
 */
export function checkIntervals(reqs: RequestOp[]): { puts: Set<string>; dels: [string, string | null][] } {
  const dels: [string, string | null][] = [];
  for (const r of reqs) {
    if ('requestDeleteRange' in r) {
      const d = r.requestDeleteRange;
      dels.push([d.key, d.rangeEnd ? d.rangeEnd : null]);
    }
  }
  const hits = (k: string) =>
    dels.some(([a, b]) => (b === null ? k === a : compareKeys(k, a) >= 0 && compareKeys(k, b) < 0));
  const puts = new Set<string>();
  for (const r of reqs) {
    if (!('requestTxn' in r)) continue;
    const t = checkIntervals(r.requestTxn.success ?? []);
    const e = checkIntervals(r.requestTxn.failure ?? []);
    for (const k of t.puts) {
      if (puts.has(k) || hits(k)) throw StoreErrors.duplicateKey();
      puts.add(k);
    }
    for (const k of e.puts) {
      if ((puts.has(k) && !t.puts.has(k)) || hits(k)) throw StoreErrors.duplicateKey();
      puts.add(k);
    }
    dels.push(...t.dels, ...e.dels);
  }
  for (const r of reqs) {
    if (!('requestPut' in r)) continue;
    const k = r.requestPut.key;
    if (puts.has(k) || hits(k)) throw StoreErrors.duplicateKey();
    puts.add(k);
  }
  return { puts, dels };
}

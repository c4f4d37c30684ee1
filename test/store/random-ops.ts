/**
 * Seeded random operation sequences in the golden-trace vocabulary (see src/store/etcd/trace-ops.ts), for
 * differential testing: the same sequence is replayed on a real etcd and on MemoryStore and the
 * answers and watch streams must be identical.
 *
 * The sequences avoid what depends on wall time (lease expiry, progress notifications; the
 * remaining TTL of leaseTimeToLive is compared through a range matcher) and on server timing, and they deliberately include failing requests
 * (future/compacted revisions, duplicate keys in txns, unknown leases, ignoreValue on missing keys).
 * A small key pool makes collisions, re-creations and multi-key ranges frequent. The `bytes` pool
 * holds keys whose byte order differs from JavaScript's UTF-16 order (supplementary characters
 * against U+E000..U+FFFF, raw bytes 0x80..0xFF against UTF-8 text) and prefixes whose range end is
 * no UTF-8 text (src/store/keybytes.ts).
 */
import { Rng } from '../../src/util/rng.js';
import { prefixEnd } from '../../src/store/keyrange.js';
import type { TraceOp } from '../../src/store/trace/format.js';

/** Options of {@link randomOps}. */
export interface RandomOpsOptions {
  /** number of ops (default 120) */
  count?: number;
  /** include compactions (default true) */
  compaction?: boolean;
  /** include watches (default true) */
  watches?: boolean;
  /** include leases (default true) */
  leases?: boolean;
  /** the key pool: ASCII keys, or non-ASCII and binary keys (default 'ascii') */
  keys?: 'ascii' | 'bytes';
}

interface KeyPool {
  keys: string[];
  /** prefixes for prefix ranges */
  prefixes: string[];
  /** range ends of range compares */
  compareEnds: string[];
}

const POOLS: Record<'ascii' | 'bytes', KeyPool> = {
  ascii: {
    keys: ['a', 'b', 'c', 'd/1', 'd/2', 'd/3', 'd/4', 'e', 'f/x', 'f/y'],
    prefixes: ['d/', 'f/', 'a', 'z/'],
    compareEnds: ['\u0000', 'e', 'f/z'],
  },
  // in byte order; "😀" sorts before "\uffff" and "\udc80"-style raw bytes after "é" in UTF-16
  bytes: {
    keys: ['a', 'a\u0000', 'a\u007f', 'a\udc80', 'd/1', 'é', 'ÿ', 'ÿ/x', '\uffff', '😀', '\udcff'],
    prefixes: ['a', 'a\u007f', 'd/', 'é', 'ÿ', '😀', '\udcff'],
    compareEnds: ['\u0000', '\uffff', '\udcf1'],
  },
};
const VALUES = ['', '0', '1', '2', 'x', 'y', 'zz', 'long-value'];
const SORT_ORDERS = ['NONE', 'ASCEND', 'DESCEND'];
const SORT_TARGETS = ['KEY', 'VERSION', 'CREATE', 'MOD', 'VALUE'];
const RESULTS = ['EQUAL', 'NOT_EQUAL', 'GREATER', 'LESS'];
const TARGETS = ['VALUE', 'VERSION', 'CREATE', 'MOD', 'LEASE'];

/**
 * A seeded op sequence. The same seed always yields the same ops (Rng is xoshiro128**).
 * The generator tracks an upper bound of the store revision (one per mutating op) to pick
 * revisions that are mostly valid, sometimes compacted or in the future.
 */
export function randomOps(seed: number, opts: RandomOpsOptions = {}): TraceOp[] {
  const rng = new Rng(seed);
  const count = opts.count ?? 120;
  const ops: TraceOp[] = [];
  let revBound = 1; // >= the store revision
  let compacted = 0; // highest compaction requested (may have failed)
  const leases: string[] = [];
  let nextLease = 1;
  const watchers: string[] = [];
  let nextWatch = 1;

  const pool = POOLS[opts.keys ?? 'ascii'];
  const key = () => rng.pick(pool.keys);
  const value = () => rng.pick(VALUES);
  const chance = (p: number) => rng.next() < p;
  const revision = () => {
    // mostly in [compacted, revBound], sometimes below the compact revision or in the future
    const r = rng.next();
    if (r < 0.1) return revBound + rng.range(1, 3);
    if (r < 0.2 && compacted > 1) return rng.range(1, compacted);
    return rng.range(Math.max(1, compacted), revBound);
  };
  const keyRange = (): { key: string; rangeEnd?: string } => {
    const r = rng.next();
    if (r < 0.4) return { key: key() };
    if (r < 0.6) {
      const p = rng.pick(pool.prefixes);
      return { key: p, rangeEnd: prefixEnd(p) };
    }
    if (r < 0.75) return { key: key(), rangeEnd: '\u0000' };
    if (r < 0.85) return { key: '\u0000', rangeEnd: '\u0000' };
    const [x, y] = [key(), key()];
    return { key: x, rangeEnd: y }; // may be empty (rangeEnd <= key)
  };
  const leaseRef = () => (leases.length > 0 && chance(0.8) ? rng.pick(leases) : 'Lmissing');

  const rangeOp = (inTxn: boolean): TraceOp => {
    const op: TraceOp = { op: 'range', ...keyRange() };
    if (chance(0.3)) op.limit = rng.range(1, 4);
    if (chance(0.25)) op.revision = revision();
    if (chance(0.3)) {
      op.sortOrder = rng.pick(SORT_ORDERS);
      op.sortTarget = rng.pick(SORT_TARGETS);
      // (with sortOrder NONE, a non-KEY target and a limit, etcd 3.4 sorts only the first limit+1
      // keys: a quirk MemoryStore copies, so it stays in the mix. Ties keep key order: etcd's
      // sort.Sort is an insertion sort below 12 elements, and the key pools have at most 11 keys.)
    }
    if (chance(0.15)) op.keysOnly = true;
    if (chance(0.1)) op.countOnly = true;
    if (chance(0.1)) op.minModRevision = rng.range(1, revBound);
    if (chance(0.1)) op.maxModRevision = rng.range(1, revBound);
    if (chance(0.1)) op.minCreateRevision = rng.range(1, revBound);
    if (chance(0.1)) op.maxCreateRevision = rng.range(1, revBound);
    if (!inTxn && chance(0.1)) op.serializable = true;
    return op;
  };
  const putOp = (): TraceOp => {
    const op: TraceOp = { op: 'put', key: key(), value: value() };
    if (chance(0.3)) op.prevKv = true;
    if (chance(0.15)) op.lease = leaseRef();
    if (chance(0.06)) {
      op.ignoreValue = true;
      if (chance(0.7)) op.value = '';
    }
    if (chance(0.06)) {
      op.ignoreLease = true;
      if (chance(0.7)) delete op.lease;
    }
    return op;
  };
  const deleteOp = (): TraceOp => {
    const op: TraceOp = { op: 'delete', ...keyRange() };
    if (chance(0.4)) op.prevKv = true;
    return op;
  };
  const compare = () => {
    const target = rng.pick(TARGETS);
    const c: Record<string, unknown> = { key: key(), target, result: rng.pick(RESULTS) };
    if (chance(0.15)) c.rangeEnd = rng.pick(pool.compareEnds);
    switch (target) {
      case 'VALUE':
        c.value = value();
        break;
      case 'VERSION':
        c.version = rng.range(0, 3);
        break;
      case 'CREATE':
        c.createRevision = rng.range(0, revBound);
        break;
      case 'MOD':
        c.modRevision = rng.range(0, revBound);
        break;
      case 'LEASE':
        // GREATER/LESS against another lease compares lease IDs, whose values are the server's
        // choice (etcd: ~2^62, MemoryStore: 1, 2, ...): only meaningful against "no lease" (0)
        c.lease = chance(0.5) || c.result === 'GREATER' || c.result === 'LESS' ? null : leaseRef();
        break;
    }
    return c;
  };
  const branch = (depth: number): TraceOp[] => {
    const n = rng.range(0, 3);
    const out: TraceOp[] = [];
    for (let i = 0; i < n; i++) {
      const r = rng.next();
      if (r < 0.4) out.push(putOp());
      else if (r < 0.6) out.push(deleteOp());
      else if (r < 0.9 || depth > 0) out.push(rangeOp(true));
      else out.push(txnOp(depth + 1));
    }
    return out;
  };
  const txnOp = (depth: number): TraceOp => {
    const compares = [];
    for (let i = rng.range(0, 2); i > 0; i--) compares.push(compare());
    const t: TraceOp = { op: 'txn', compare: compares, success: branch(depth), failure: branch(depth) };
    if (depth === 0 && hasFromKeyDelete(t)) stripIgnoreFlags(t);
    return t;
  };

  for (let i = 0; i < count; i++) {
    const r = rng.next();
    let op: TraceOp;
    if (r < 0.3) op = putOp();
    else if (r < 0.4) op = deleteOp();
    else if (r < 0.58) op = rangeOp(false);
    else if (r < 0.75) op = txnOp(0);
    else if (r < 0.8 && opts.compaction !== false) {
      // etcd syncs catching-up watchers every 100 ms and reads prevKv when it sends an event: a
      // compaction right behind a watch or a write would make the outcome timing-dependent there
      if (watchers.length > 0) ops.push({ op: 'sleep', ms: 300, note: 'let etcd deliver before compacting' });
      op = {
        op: 'compact',
        revision: chance(0.8) ? rng.range(Math.max(1, compacted), revBound) : revBound + 1,
      };
      if (chance(0.3)) op.physical = true;
      compacted = Math.max(compacted, Math.min(op.revision as number, revBound));
    } else if (r < 0.88 && opts.watches !== false) {
      const id = `w${nextWatch++}`;
      // an empty range (rangeEnd <= key) is created and canceled at once by etcd: part of the mix
      op = { op: 'watch', id, ...keyRange() };
      if (chance(0.5))
        op.startRevision = chance(0.2) ? 0 : rng.range(Math.max(1, compacted - 1), revBound + 1);
      if (chance(0.4)) op.prevKv = true;
      if (chance(0.2)) op.filters = [rng.pick(['NOPUT', 'NODELETE'])];
      watchers.push(id);
    } else if (r < 0.9 && watchers.length > 0) {
      const id = watchers.splice(rng.int(watchers.length), 1)[0]!;
      op = { op: 'watchCancel', id };
    } else if (opts.leases !== false) {
      const lr = rng.next();
      if (lr < 0.4 || leases.length === 0) {
        const name = `L${nextLease++}`;
        leases.push(name);
        op = { op: 'leaseGrant', lease: name, ttl: rng.pick([1000, 3600, 100000]) };
      } else if (lr < 0.55) {
        // remaining TTL depends on wall time: the differential test turns etcd's ttl into a $range matcher
        op = { op: 'leaseTimeToLive', lease: leaseRef(), keys: chance(0.7) };
      } else if (lr < 0.75) {
        const name = rng.pick(leases);
        op = { op: 'leaseRevoke', lease: name };
      } else {
        op = { op: 'leaseKeepAlive', lease: leaseRef() };
      }
    } else {
      op = putOp();
    }
    ops.push(op);
    if (op.op === 'put' || op.op === 'delete' || op.op === 'txn' || op.op === 'leaseRevoke') revBound++;
  }
  return ops;
}

/** whether a txn (with its nested txns) deletes a "\0"-ended range */
function hasFromKeyDelete(op: TraceOp): boolean {
  if (op.op === 'delete') return op.rangeEnd === '\u0000';
  if (op.op !== 'txn') return false;
  return [...((op.success as TraceOp[]) ?? []), ...((op.failure as TraceOp[]) ?? [])].some(hasFromKeyDelete);
}

/**
 * etcd 3.4.23 PANICS ("unexpected error during txn": key not found) on a txn that deletes a key
 * through a "\0"-ended range and then puts it with ignoreValue/ignoreLease: the duplicate-key
 * check lets the pair through (the range [key, "\0") is an inverted interval), the
 * ignoreValue/ignoreLease check passes before the txn runs, and the put then finds no key while
 * applying. Such txns are kept out of the random mix by dropping the flags.
 */
function stripIgnoreFlags(op: TraceOp): void {
  if (op.op === 'put') {
    delete op.ignoreValue;
    delete op.ignoreLease;
  }
  if (op.op === 'txn')
    for (const o of [...((op.success as TraceOp[]) ?? []), ...((op.failure as TraceOp[]) ?? [])])
      stripIgnoreFlags(o);
}

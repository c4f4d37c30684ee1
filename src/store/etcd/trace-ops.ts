/**
 * The deterministic operation sequences behind kubesim's golden etcd traces
 * (test/fixtures/etcd/<name>.json, format etcd-golden-trace/v1, see docs/store-etcd.md).
 *
 * Each set is recorded against a freshly launched real etcd (revision 1, empty) by
 * `kubesim store record --builtin <name>` and replayed against MemoryStore and EtcdStore by the
 * tests. Ops use the trace format's vocabulary: keys/values are strings, leases are symbols
 * ("L1"), watchers are named ("w1"). Range helpers (`prefix`, `fromKey`, `allKeys`) always carry
 * the resolved `rangeEnd` too, as the format requires.
 *
 * Every op may carry a `note` (why it is there) and a `quirk` tag (etcd behaviour an
 * implementation may choose not to copy; replayers can skip those).
 */

import { prefixEnd } from '../keyrange.js';
import type { TraceOp } from '../trace/format.js';

/** A named op sequence. */
export interface TraceOpSet {
  name: string;
  description: string;
  ops: TraceOp[];
}

// ---- small builders, so the sequences read like the scenario they test ----------------------

const put = (key: string, value: string, extra: Record<string, unknown> = {}): TraceOp => ({
  op: 'put',
  key,
  value,
  ...extra,
});
const get = (key: string, extra: Record<string, unknown> = {}): TraceOp => ({ op: 'range', key, ...extra });
const del = (key: string, extra: Record<string, unknown> = {}): TraceOp => ({ op: 'delete', key, ...extra });

const prefix = (p: string) => ({ prefix: true, rangeEnd: prefixEnd(p) });
const fromKey = { fromKey: true, rangeEnd: '\u0000' };
const allKeys = { key: '\u0000', allKeys: true, rangeEnd: '\u0000' };
const note = (n: string) => ({ note: n });

/** txn branch elements: the same objects as top-level ops, without ids */
const cmp = (
  key: string,
  target: string,
  result: string,
  operand: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) => ({
  key,
  target,
  result,
  ...operand,
  ...extra,
});
const txn = (
  compare: unknown[],
  success: TraceOp[],
  failure: TraceOp[] = [],
  extra: Record<string, unknown> = {},
): TraceOp => ({
  op: 'txn',
  compare,
  success,
  failure,
  ...extra,
});

// ---- the sets --------------------------------------------------------------------------------

const kvBasic: TraceOpSet = {
  name: 'kv-basic',
  description:
    'put/range/delete on an empty store: revisions, versions, createRevision on re-creation, prevKv, ' +
    'identical rewrites, deletes of nothing, historical reads, empty-key and ignoreValue errors.',
  ops: [
    get('a', note('empty store: revision 1, no kvs')),
    put('a', 'v1', note('first write creates revision 2')),
    put('a', 'v2', { prevKv: true, ...note('prevKv returns the overwritten version') }),
    put('a', 'v2', note('rewriting an identical value still creates a revision and bumps version')),
    get('a'),
    put('b', 'x'),
    put('c', 'y', { prevKv: true, ...note('prevKv on a new key: absent') }),
    get('a', { rangeEnd: 'c', ...note('[a, c) excludes c') }),
    get('', { ...allKeys, ...note('all keys') }),
    get('b', { ...fromKey, ...note('every key >= b') }),
    del('a', { prevKv: true }),
    del('a', note('deleting nothing does not create a revision')),
    get('a', note('deleted key: count 0')),
    put('a', 'v3', note('re-creation: new createRevision, version back to 1')),
    get('a'),
    get('a', { revision: 3, ...note('historical read at revision 3') }),
    get('a', { revision: 5, ...note('historical read: "a" at 5 is still version 3') }),
    get('a', { revision: 100, ...note('future revision') }),
    get('a', { revision: -1, ...note('negative revision = latest') }),
    put('', 'x', note('empty key is rejected')),
    get('', note('empty key is rejected for ranges too')),
    del('', note('and for deletes')),
    put('missing', '', { ignoreValue: true, ...note('ignoreValue needs an existing key') }),
    put('a', 'zzz', { ignoreValue: true, ...note('ignoreValue with a value') }),
    put('a', '', {
      ignoreValue: true,
      prevKv: true,
      ...note('ignoreValue keeps the value, bumps version and modRevision'),
    }),
    get('a'),
    put('d', 'v', { lease: 'Lmissing', ...note('unknown lease') }),
    put('p/1', '1'),
    put('p/2', '2'),
    put('p/3', '3'),
    put('q', 'q'),
    get('p/', { ...prefix('p/'), keysOnly: true }),
    del('p/', { ...prefix('p/'), prevKv: true, ...note('one revision for all three deletes') }),
    get('', { ...allKeys, countOnly: true }),
    put('\u00e9t\u00e9', 'utf8', note('non-ASCII (2-byte UTF-8) key')),
    get('\u00e9t\u00e9'),
    del('b', { rangeEnd: 'a', ...note('rangeEnd < key: empty range, deletes nothing') }),
    del('', { ...allKeys, ...note('delete everything') }),
    get('', { ...allKeys }),
  ],
};

/** keys r/a..r/e built so that key, version, create, mod and value orders all differ */
const rangeSetup: TraceOp[] = [
  put('r/c', 'm'), // 2
  put('r/a', 'z'), // 3
  put('r/e', 'a'), // 4
  put('r/b', 'q'), // 5
  put('r/a', 'y'), // 6   r/a version 2
  put('r/d', 'b'), // 7
  put('r/e', 'c'), // 8   r/e version 2
  put('r/a', 'x'), // 9   r/a version 3
  put('s', 'outside'), // 10
];

const rangeOpts: TraceOpSet = {
  name: 'range',
  description:
    'RangeRequest options on five keys whose key, version, create, mod and value orders differ: ' +
    'limit/more/count, countOnly, keysOnly, every sort target and order, min/max mod/create filters, ' +
    'historical reads with options, serializable.',
  ops: [
    ...rangeSetup,
    get('r/', { ...prefix('r/') }),
    get('r/', { ...prefix('r/'), limit: 2, ...note('more=true, count ignores limit') }),
    get('r/', { ...prefix('r/'), limit: 5, ...note('limit == count: more=false') }),
    get('r/', { ...prefix('r/'), limit: 6 }),
    get('r/', { ...prefix('r/'), countOnly: true }),
    get('r/', { ...prefix('r/'), countOnly: true, limit: 2, ...note('countOnly with limit') }),
    get('r/', { ...prefix('r/'), keysOnly: true, limit: 3 }),
    get('r/', { ...prefix('r/'), sortOrder: 'DESCEND', sortTarget: 'KEY' }),
    get('r/', { ...prefix('r/'), sortOrder: 'DESCEND', limit: 2, ...note('sort then limit') }),
    get('r/', { ...prefix('r/'), sortOrder: 'ASCEND', sortTarget: 'VERSION' }),
    get('r/', { ...prefix('r/'), sortOrder: 'DESCEND', sortTarget: 'VERSION' }),
    get('r/', { ...prefix('r/'), sortOrder: 'ASCEND', sortTarget: 'CREATE' }),
    get('r/', { ...prefix('r/'), sortOrder: 'DESCEND', sortTarget: 'CREATE', limit: 2 }),
    get('r/', { ...prefix('r/'), sortOrder: 'ASCEND', sortTarget: 'MOD' }),
    get('r/', { ...prefix('r/'), sortOrder: 'DESCEND', sortTarget: 'MOD', limit: 3 }),
    get('r/', { ...prefix('r/'), sortOrder: 'ASCEND', sortTarget: 'VALUE' }),
    get('r/', { ...prefix('r/'), sortOrder: 'DESCEND', sortTarget: 'VALUE', limit: 1 }),
    get('r/', {
      ...prefix('r/'),
      sortOrder: 'NONE',
      sortTarget: 'VALUE',
      ...note('target other than KEY with order NONE sorts ASCEND'),
    }),
    get('r/', {
      ...prefix('r/'),
      sortTarget: 'MOD',
      ...note('sortOrder absent = NONE; target MOD → ascending'),
    }),
    get('r/', {
      ...prefix('r/'),
      sortOrder: 'NONE',
      sortTarget: 'VALUE',
      limit: 2,
      quirk: 'sort-target-without-order-limits-first',
      note: 'etcd 3.4 fetches limit+1 keys in key order when sortOrder is NONE (r/a, r/b, r/c), then sorts those by the target and truncates: r/c, r/b (a global ascending sort would give r/d, r/e)',
    }),
    get('r/', { ...prefix('r/'), minModRevision: 6 }),
    get('r/', { ...prefix('r/'), maxModRevision: 6 }),
    get('r/', {
      ...prefix('r/'),
      minModRevision: 5,
      maxModRevision: 8,
      ...note('count ignores the filters'),
    }),
    get('r/', { ...prefix('r/'), minCreateRevision: 4 }),
    get('r/', { ...prefix('r/'), maxCreateRevision: 4 }),
    get('r/', {
      ...prefix('r/'),
      minCreateRevision: 3,
      maxCreateRevision: 5,
      limit: 1,
      ...note('filters then limit: more=true'),
    }),
    get('r/', {
      ...prefix('r/'),
      minModRevision: 9,
      limit: 1,
      ...note('one key passes the filter: more=false, count=5'),
    }),
    get('r/', { ...prefix('r/'), revision: 5, ...note('historical: r/d and r/e v2 not there yet') }),
    get('r/', { ...prefix('r/'), revision: 5, sortOrder: 'DESCEND', sortTarget: 'VALUE', limit: 2 }),
    get('r/', { ...prefix('r/'), revision: 1, ...note('revision 1: before any write') }),
    get('r/', { ...prefix('r/'), serializable: true }),
    get('r/b', { rangeEnd: 'r/d' }),
    get('r/b', { ...fromKey, limit: 3, sortOrder: 'DESCEND' }),
    get('r/d', { rangeEnd: 'r/b', ...note('rangeEnd < key: empty') }),
    get('r/a', { rangeEnd: 'r/a', ...note('rangeEnd == key: empty') }),
    get('', { ...allKeys, limit: 1, sortOrder: 'DESCEND', sortTarget: 'MOD' }),
    del('r/a'),
    get('r/', {
      ...prefix('r/'),
      revision: 9,
      sortOrder: 'ASCEND',
      sortTarget: 'VERSION',
      ...note('deleted key still visible at its old revision'),
    }),
    get('r/', { ...prefix('r/'), sortOrder: 'ASCEND', sortTarget: 'VERSION' }),
  ],
};

function manyOps(n: number, kind: 'put' | 'range'): TraceOp[] {
  const out: TraceOp[] = [];
  for (let i = 0; i < n; i++)
    out.push(
      kind === 'put' ? put(`m/${String(i).padStart(3, '0')}`, 'v') : get(`m/${String(i).padStart(3, '0')}`),
    );
  return out;
}

const txnSet: TraceOpSet = {
  name: 'txn',
  description:
    'Txn: every compare target and result, missing keys, range compares, both branches, read-only and empty txns, ' +
    'reads after writes inside a txn, inner header revisions, nested txns, duplicate-key and too-many-ops errors.',
  ops: [
    put('t/a', '1'), // 2
    put('t/b', '2'), // 3
    put('t/a', '11'), // 4 (t/a version 2)
    txn(
      [cmp('t/a', 'VALUE', 'EQUAL', { value: '11' })],
      [put('t/c', '3'), get('t/c'), get('t/a')],
      [get('t/a')],
      note('succeeds; the range sees the put of the same txn'),
    ),
    txn(
      [cmp('t/a', 'VALUE', 'EQUAL', { value: 'nope' })],
      [put('t/c', 'x')],
      [get('t/a'), get('t/', { ...prefix('t/'), countOnly: true })],
      note('fails: failure branch, read-only → no new revision'),
    ),
    txn([cmp('t/a', 'VERSION', 'EQUAL', { version: 2 })], [put('t/a', '12', { prevKv: true })]),
    txn(
      [cmp('t/a', 'VERSION', 'GREATER', { version: 2 }), cmp('t/b', 'VERSION', 'LESS', { version: 2 })],
      [del('t/b', { prevKv: true })],
      [],
      note('conjunction of two compares'),
    ),
    txn([cmp('t/a', 'CREATE', 'EQUAL', { createRevision: 2 })], [get('t/a')]),
    txn([cmp('t/a', 'CREATE', 'LESS', { createRevision: 2 })], [get('t/a')], [get('t/b')]),
    txn([cmp('t/a', 'MOD', 'GREATER', { modRevision: 3 })], [get('t/a', { keysOnly: true })]),
    txn([cmp('t/a', 'MOD', 'NOT_EQUAL', { modRevision: 3 })], [put('t/d', 'd')]),
    txn(
      [
        cmp('t/a', 'VALUE', 'NOT_EQUAL', { value: 'x' }),
        cmp('t/a', 'VALUE', 'GREATER', { value: '1' }),
        cmp('t/a', 'VALUE', 'LESS', { value: '2' }),
      ],
      [get('t/a')],
      [],
      note('byte-wise value compares'),
    ),
    txn(
      [cmp('t/zz', 'VALUE', 'NOT_EQUAL', { value: 'x' })],
      [get('t/zz')],
      [put('t/e', 'e')],
      note('any VALUE compare on a missing key is false, even NOT_EQUAL'),
    ),
    txn(
      [cmp('t/new', 'VERSION', 'EQUAL', { version: 0 })],
      [put('t/new', 'created')],
      [get('t/new')],
      note('create-if-absent (version 0)'),
    ),
    txn(
      [cmp('t/new', 'VERSION', 'EQUAL', { version: 0 })],
      [put('t/new', 'again')],
      [get('t/new')],
      note('the second create-if-absent fails'),
    ),
    txn(
      [
        cmp('t/zz', 'CREATE', 'EQUAL', { createRevision: 0 }),
        cmp('t/zz', 'MOD', 'EQUAL', { modRevision: 0 }),
        cmp('t/zz', 'LEASE', 'EQUAL', { lease: null }),
      ],
      [get('t/zz')],
      [],
      note('missing key: create/mod/lease compare as 0'),
    ),
    txn(
      [cmp('t/a', 'VERSION', 'GREATER', { version: 0 }, { rangeEnd: 't/e' })],
      [get('t/', { ...prefix('t/') })],
      [get('t/', { ...prefix('t/'), keysOnly: true })],
      note('range compare: every key in [t/a, t/e) must satisfy it'),
    ),
    txn(
      [cmp('t/a', 'MOD', 'LESS', { modRevision: 7 }, { rangeEnd: 't/e' })],
      [put('t/x', 'x')],
      [get('t/a', { rangeEnd: 't/e' })],
      note('one key in the range fails the compare'),
    ),
    txn(
      [cmp('t/q', 'VERSION', 'EQUAL', { version: 5 }, { rangeEnd: 't/r' })],
      [put('t/x', 'vacuous')],
      [],
      note('range compare over an empty range: compared as one missing key (version 0 != 5), so false'),
    ),
    txn([], [], [], note('empty txn: succeeds, no revision')),
    txn([], [get('t/a'), get('t/none')], [], note('read-only txn: no revision')),
    txn(
      [],
      [put('t/f', 'f'), del('t/f', { prevKv: true })],
      [],
      note('put then delete of the same key: duplicate key'),
    ),
    txn(
      [],
      [del('t/', { ...prefix('t/') }), put('t/a', 'again')],
      [],
      note('put inside a deleted range: duplicate key'),
    ),
    txn([], [put('t/g', '1'), put('t/g', '2')], [], note('two puts of one key: duplicate key')),
    txn(
      [],
      [del('t/a'), del('t/', { ...prefix('t/'), prevKv: true })],
      [],
      note('overlapping deletes are allowed'),
    ),
    get('t/', { ...prefix('t/') }),
    txn(
      [],
      [put('t/h', 'h'), del('t/none'), put('t/i', 'i', { prevKv: true }), get('t/', { ...prefix('t/') })],
      [],
      note('inner put/delete/range responses carry the revision seen at that point'),
    ),
    txn(
      [],
      [
        put('t/h', 'h2', { prevKv: true }),
        txn([cmp('t/h', 'VALUE', 'EQUAL', { value: 'h2' })], [put('t/j', 'j'), get('t/h')], [get('t/i')]),
      ],
      [],
      {
        note: 'nested txn sees the outer put; its own response has no header',
        quirk: 'nested-txn-header-revision-0',
      },
    ),
    txn([cmp('t/i', 'VERSION', 'EQUAL', { version: 99 })], [], [txn([], [put('t/k', 'k')], []), get('t/k')], {
      note: 'nested txn in the failure branch',
      quirk: 'nested-txn-header-revision-0',
    }),
    txn(
      [],
      [put('t/h', 'h3'), txn([], [put('t/h', 'h4')], [])],
      [],
      note('the same key put in an outer and a nested txn: duplicate key'),
    ),
    txn(
      [],
      [
        put('t/l', 'l'),
        txn(
          [cmp('t/l', 'VERSION', 'EQUAL', { version: 0 })],
          [put('t/m', 'in-success')],
          [put('t/m', 'in-failure')],
        ),
      ],
      [],
      {
        note: 'a key put in both branches of a nested txn is not a duplicate',
        quirk: 'nested-txn-header-revision-0',
      },
    ),
    txn([], [get('t/a', { revision: 100 })], [], note('a future-revision read fails the whole txn')),
    txn([], [put('t/n', 'v', { lease: 'Lmissing' })], [], note('unknown lease inside a txn')),
    txn([], [put('t/n', '', { ignoreValue: true })], [], note('ignoreValue on a missing key inside a txn')),
    txn([], manyOps(128, 'put'), [], note('128 ops: the limit')),
    txn([], manyOps(129, 'range'), [], note('129 ops: too many')),
    txn(
      [cmp('t/a', 'VERSION', 'GREATER', { version: 0 })],
      [],
      manyOps(129, 'range'),
      note('too many ops in the failure branch (checked even though unused)'),
    ),
    get('m/', { ...prefix('m/'), countOnly: true }),
    get('t/', { ...prefix('t/') }),
  ],
};

const compactSet: TraceOpSet = {
  name: 'compact',
  description:
    'Compaction: reads below/at/above the compact revision, repeated and future compactions, compaction never creating a revision, ' +
    'compacted reads inside txns, key history surviving compaction (version, createRevision).',
  ops: [
    put('k1', 'a'), // 2
    put('k2', 'a'), // 3
    put('k1', 'b'), // 4
    del('k2'), // 5
    put('k3', 'a'), // 6
    put('k1', 'c'), // 7
    { op: 'compact', revision: 4, note: 'compaction does not create a revision' },
    get('k1', { revision: 3, ...note('below the compact revision') }),
    get('k1', { revision: 4, ...note('at the compact revision: readable') }),
    get('k', { rangeEnd: 'l', revision: 5, ...note('after the compact revision; k2 deleted at 5') }),
    get('k', { rangeEnd: 'l' }),
    { op: 'compact', revision: 4, note: 'same revision again: compacted' },
    { op: 'compact', revision: 2, note: 'older revision: compacted' },
    { op: 'compact', revision: 100, note: 'future revision' },
    put('k1', 'd', note('next revision follows the last write (8)')),
    txn([], [get('k1', { revision: 3 })], [], note('compacted read inside a txn fails the txn')),
    txn([], [get('k1', { revision: 4 })]),
    { op: 'compact', revision: 6, physical: true },
    get('k2', { revision: 6, ...note('k2 deleted at 5, compacted at 6: absent') }),
    get('k', { rangeEnd: 'l', revision: 6 }),
    get('k1', { revision: 5 }),
    get('k1', note('version and createRevision survive compaction')),
    put('k2', 're', note('re-created after its tombstone was compacted')),
    get('k', { rangeEnd: 'l', sortOrder: 'ASCEND', sortTarget: 'CREATE' }),
    { op: 'compact', revision: 9 },
    { op: 'compact', revision: 9, note: 'compacting at the current revision twice' },
    get('', { ...allKeys, revision: 9 }),
    get('', { ...allKeys, revision: 8 }),
    del('', { ...allKeys }),
    { op: 'compact', revision: 10 },
    get('', { ...allKeys, revision: 10 }),
    get('', { ...allKeys }),
  ],
};

const watchSet: TraceOpSet = {
  name: 'watch',
  description:
    'Watch: prefix/single-key/from-key watchers created before writes, history replay from a past startRevision, ' +
    'prevKv, NOPUT/NODELETE filters, txn events in op order, multi-key deletes in one revision, a future startRevision, ' +
    'cancellation, and a progress notification during a sleep.',
  ops: [
    put('w/a', '1'), // 2
    put('w/b', '1'), // 3
    put('w/a', '2'), // 4
    { op: 'watch', id: 'wPrefix', key: 'w/', ...prefix('w/') },
    { op: 'watch', id: 'wKey', key: 'w/a', prevKv: true },
    { op: 'watch', id: 'wFrom', key: 'w/b', ...fromKey },
    {
      op: 'watch',
      id: 'wHistory',
      key: 'w/',
      ...prefix('w/'),
      startRevision: 2,
      prevKv: true,
      note: 'replays revisions 2..4 first',
    },
    { op: 'watch', id: 'wNoPut', key: 'w/', ...prefix('w/'), filters: ['NOPUT'] },
    { op: 'watch', id: 'wNoDelete', key: 'w/', ...prefix('w/'), filters: ['NODELETE'], prevKv: true },
    {
      op: 'watch',
      id: 'wFuture',
      key: 'w/',
      ...prefix('w/'),
      startRevision: 8,
      note: 'start in the future: first event at revision 8',
    },
    { op: 'watch', id: 'wProgress', key: 'nothing/', ...prefix('nothing/'), progressNotify: true },
    put('w/c', '1'), // 5
    put('x', 'outside', note('outside every watched range except wFrom')), // 6
    txn([], [put('w/a', '3'), put('w/d', '1'), del('w/b')], [], note('one revision, events in op order')), // 7
    put('w/a', '3', note('identical value: still an event')), // 8
    del('w/zzz', note('deleting nothing: no event')),
    del('w/', { ...prefix('w/'), note: 'one revision, DELETE events in key order' }), // 9
    {
      op: 'sleep',
      ms: 2500,
      note: 'etcd sends a progress notification per second to an idle progressNotify watcher',
    },
    { op: 'watchCancel', id: 'wPrefix' },
    { op: 'watchCancel', id: 'wKey' },
    put('w/a', 'after-cancel'), // 10
    txn(
      [cmp('w/a', 'VERSION', 'EQUAL', { version: 99 })],
      [put('w/q', 'q')],
      [get('w/a')],
      note('failed txn: no events'),
    ),
    {
      op: 'watch',
      id: 'wLate',
      key: 'w/a',
      startRevision: 1,
      note: 'startRevision 1 replays the full history of w/a',
    },
    { op: 'watch', id: 'wNow', key: 'w/', ...prefix('w/'), startRevision: 0, prevKv: true },
    put('w/a', 'last', { prevKv: true }), // 11
    put('w/p', '1'), // 12
    txn([], [put('w/p', '2'), del('w/o', { ...fromKey })], [], {
      quirk: 'fromkey-delete-skips-duplicate-check',
      note:
        'etcd 3.4 checks txn puts against deletes as intervals, and [w/o, "\\0") is an inverted interval, so this put and ' +
        'the delete of the same key pass the duplicate-key check and run in one revision. Watch events read prevKv at ' +
        'modRevision-1: the DELETE of w/p carries w/p@12 (the value before the txn), not the put of the same txn',
    }), // 13
    put('w/p', '3'), // 14
    txn([], [del('w/o', { ...fromKey }), put('w/p', '4')], [], {
      quirk: 'fromkey-delete-skips-duplicate-check',
      note: 'delete then put in one txn: the PUT event (version 1, createRevision 15) is a creation event, so it has no prevKv',
    }), // 15
    txn([], [put('w/r', 'new'), del('w/o', { ...fromKey })], [], {
      quirk: 'fromkey-delete-skips-duplicate-check',
      note: 'a key created and deleted in one txn: its DELETE event has no prevKv (w/r did not exist at revision 15)',
    }), // 16
    {
      op: 'watch',
      id: 'wReplay',
      key: 'w/',
      ...prefix('w/'),
      startRevision: 12,
      prevKv: true,
      note: 'the same events (12..16) replayed from history: prevKv is read at modRevision-1 here too',
    },
  ],
};

const watchCompactSet: TraceOpSet = {
  name: 'watch-compact',
  description:
    'Watch and compaction: a watch below the compact revision is created then canceled with compactRevision; ' +
    'watches at and above the compact revision replay history; the tombstone-at-compact-revision quirk.',
  ops: [
    put('c/a', '1'), // 2
    put('c/b', '1'), // 3
    put('c/a', '2'), // 4
    del('c/b'), // 5
    put('c/c', '1'), // 6
    { op: 'compact', revision: 5, physical: true, note: 'compact at the revision whose change was a delete' },
    {
      op: 'watch',
      id: 'wOld',
      key: 'c/',
      ...prefix('c/'),
      startRevision: 3,
      note: 'below the compact revision: canceled',
    },
    {
      op: 'watch',
      id: 'wOlder',
      key: 'c/a',
      startRevision: 1,
      note: 'revision 1 < compact revision: canceled',
    },
    {
      op: 'watch',
      id: 'wAtTomb',
      key: 'c/',
      ...prefix('c/'),
      startRevision: 5,
      quirk: 'tombstone-at-compact-revision',
      note: 'starting at the compact revision: etcd has removed the DELETE tombstone of revision 5, so it is not delivered',
    },
    get('c/b', { revision: 5, ...note('while a range at the compact revision is served') }),
    { op: 'watch', id: 'wAfter', key: 'c/', ...prefix('c/'), startRevision: 6, prevKv: true },
    {
      op: 'sleep',
      ms: 600,
      note: 'let etcd sync the catching-up watchers (every 100 ms) and send live events (prevKv is read at send time) before compacting again; otherwise the outcome depends on timing',
    },
    put('c/a', '3'), // 7
    {
      op: 'sleep',
      ms: 300,
      note: 'wAfter reads the prevKv of revision 7 at send time: send before the next compaction',
    },
    { op: 'compact', revision: 7 },
    {
      op: 'watch',
      id: 'wAtPut',
      key: 'c/',
      ...prefix('c/'),
      startRevision: 7,
      prevKv: true,
      note: 'at the compact revision of a put: delivered; its prevKv (revision 4) is compacted',
    },
    { op: 'watch', id: 'wBelow', key: 'c/', ...prefix('c/'), startRevision: 6 },
    put('c/d', '1'), // 8
  ],
};

const leaseSet: TraceOpSet = {
  name: 'lease',
  description:
    'Leases: TTL clamping and limits, attaching/moving/detaching keys, ignoreLease, LEASE compares, keep-alive and ' +
    'time-to-live of live and unknown leases, revoke deleting all keys in one revision (watched), expiry.',
  // Short leases are granted right before they are used and never hold keys while the trace waits
  // for another lease to expire, so real-time expiry cannot reorder revisions.
  ops: [
    { op: 'leaseGrant', lease: 'L1', ttl: 1, note: 'clamped up to the minimum TTL (2 s); holds no keys' },
    { op: 'leaseGrant', lease: 'Lbig', ttl: 9000000001, note: 'above the maximum TTL' },
    { op: 'leaseGrant', lease: 'Lmax', ttl: 9000000000, note: 'exactly the maximum TTL' },
    { op: 'leaseGrant', lease: 'L2', ttl: 100 },
    { op: 'leaseGrant', lease: 'L5', ttl: 200 },
    { op: 'watch', id: 'wAll', key: 'l/', ...prefix('l/'), prevKv: true },
    put('l/a', 'a', { lease: 'L2' }), // 2
    put('l/c', 'c', { lease: 'L2' }), // 3
    put('l/b', 'b', { lease: 'L2' }), // 4
    put('l/d', 'd', { lease: 'L5' }), // 5
    put('l/d', 'd2', { lease: 'L2', ...note('moves l/d from L5 to L2') }), // 6
    put('l/e', 'e', { lease: 'L2' }), // 7
    put('l/e', 'e2', note('a put without lease detaches the key')), // 8
    put('l/f', 'f', { lease: 'L2' }), // 9
    del('l/f', note('delete detaches')), // 10
    put('l/a', 'a2', { ignoreLease: true, prevKv: true, ...note('ignoreLease keeps L2') }), // 11
    put('l/a', 'a3', { ignoreLease: true, lease: 'L2', ...note('ignoreLease with a lease') }),
    put('l/none', 'x', { ignoreLease: true, ...note('ignoreLease on a missing key') }),
    get('l/', { ...prefix('l/') }),
    { op: 'leaseTimeToLive', lease: 'L2', keys: true, note: 'keys sorted; ttl depends on wall time' },
    { op: 'leaseTimeToLive', lease: 'L5', keys: true, note: 'L5 lost its only key' },
    { op: 'leaseTimeToLive', lease: 'L2', keys: false },
    { op: 'leaseTimeToLive', lease: 'Lmissing', keys: true, note: 'unknown lease: ttl -1, no error' },
    { op: 'leaseKeepAlive', lease: 'L2' },
    { op: 'leaseKeepAlive', lease: 'Lmissing', note: 'unknown lease: ttl 0, no error' },
    { op: 'leaseRevoke', lease: 'Lmissing', note: 'revoking an unknown lease' },
    txn(
      [cmp('l/a', 'LEASE', 'EQUAL', { lease: 'L2' }), cmp('l/e', 'LEASE', 'EQUAL', { lease: null })],
      [get('l/a')],
      [get('l/e')],
      note('LEASE compares'),
    ),
    txn([cmp('l/a', 'LEASE', 'NOT_EQUAL', { lease: 'L2' })], [], [put('l/g', 'g', { lease: 'L2' })]), // 12
    txn(
      [cmp('l/a', 'LEASE', 'EQUAL', { lease: 'Lmissing' })],
      [],
      [get('l/g')],
      note('compare against a lease that does not exist'),
    ),
    { op: 'leaseRevoke', lease: 'L2', note: 'l/a, l/b, l/c, l/d, l/g deleted in ONE revision, in key order' }, // 13
    get('l/', { ...prefix('l/') }),
    { op: 'leaseRevoke', lease: 'L2', note: 'already revoked' },
    { op: 'leaseKeepAlive', lease: 'L2', note: 'revoked lease: ttl 0' },
    { op: 'leaseTimeToLive', lease: 'L2', keys: true, note: 'revoked lease: ttl -1' },
    put('l/h', 'h', { lease: 'L2', ...note('revoked lease on put') }),
    { op: 'leaseGrant', lease: 'L4', ttl: 50 },
    { op: 'leaseRevoke', lease: 'L4', note: 'revoking a lease without keys creates no revision' },
    { op: 'leaseRevoke', lease: 'Lmax' },
    { op: 'leaseExpire', lease: 'L1', note: 'a lease without keys expires without a revision' },
    { op: 'leaseGrant', lease: 'L3', ttl: 2 },
    put('l/y', 'y', { lease: 'L3' }), // 14
    put('l/x', 'x', { lease: 'L3' }), // 15
    { op: 'leaseExpire', lease: 'L3', note: 'expiry deletes l/x and l/y in one revision, in key order' }, // 16
    { op: 'leaseTimeToLive', lease: 'L3', keys: true },
    { op: 'leaseKeepAlive', lease: 'L3' },
    put('l/z', 'z', { lease: 'L3', ...note('expired lease on put') }),
    get('l/', { ...prefix('l/') }),
    { op: 'leaseRevoke', lease: 'L5' },
  ],
};

const keyBytesSet: TraceOpSet = {
  name: 'key-bytes',
  description:
    'keys compare as bytes: non-ASCII and binary keys (U+DC80..U+DCFF stand for raw bytes) in ranges, counts, ' +
    'prefixes whose end is no UTF-8 text, sorting, txn delete ranges, watches and lease revocation; ' +
    'watches over empty ranges are created and canceled.',
  ops: [
    put('😀', '1', note('F0 9F 98 80: after "\\uffff" in bytes, before it in UTF-16')),
    put('\uffff', '2', note('EF BF BF')),
    put('é', '3', note('C3 A9')),
    put('\udc80', '4', note('the raw byte 80: before "é" in bytes, after it in UTF-16')),
    put('\udcff', '5', note('the raw byte FF: the last key')),
    put('a\u007f', '6'),
    put('a\u0000', '7'),
    put('ÿ', '8', note('C3 BF: its prefix end C3 C0 is no UTF-8 text')),
    put('ÿ/x', '9'),
    get('\u0000', { ...allKeys, ...note('every key, in byte order') }),
    get('\uffff', { ...fromKey, ...note('keys >= EF BF BF: three') }),
    get('\u0000', { ...allKeys, countOnly: true }),
    get('\udc80', { rangeEnd: 'ÿ', ...note('[80, C3 BF): the raw byte and "é"') }),
    get('ÿ', { ...prefix('ÿ'), ...note('prefix "ÿ": range end "\\udcc3\\udcc0"') }),
    get('a\u007f', { ...prefix('a\u007f'), ...note('prefix end 61 80 = "a\\udc80"') }),
    get('\udcff', { ...prefix('\udcff'), ...note('prefix FF has no end: every key >= FF') }),
    get('\u0000', { ...allKeys, sortOrder: 'DESCEND', sortTarget: 'KEY', limit: 4 }),
    txn(
      [],
      [del('\uffff', { rangeEnd: '\udcf1' }), put('😀', 'x')],
      [],
      note('"😀" lies in the deleted range [EF BF BF, F1) in bytes: duplicate key'),
    ),
    txn(
      [cmp('é', 'VERSION', 'EQUAL', { version: 1 }, { rangeEnd: '\uffff' })],
      [del('é', { rangeEnd: '\uffff', prevKv: true }), put('\udc80', 'x')],
      [],
      note('range compare and delete over [C3 A9, EF BF BF); the raw byte 80 lies outside'),
    ),
    { op: 'watch', id: 'wHigh', key: '\uffff', ...fromKey, note: 'every key >= EF BF BF' },
    { op: 'watch', id: 'wSame', key: 'a', rangeEnd: 'a', note: 'key == rangeEnd: empty, canceled' },
    {
      op: 'watch',
      id: 'wInverted',
      key: '😀',
      rangeEnd: '\uffff',
      note: 'empty in bytes (F0 > EF), though not in UTF-16',
    },
    { op: 'watch', id: 'wAll', key: '\u0000', rangeEnd: '\u0000', startRevision: 1, prevKv: true },
    { op: 'leaseGrant', lease: 'L1', ttl: 60 },
    put('l/😀', 'a', { lease: 'L1' }),
    put('l/\uffff', 'b', { lease: 'L1' }),
    put('l/\udc80', 'c', { lease: 'L1' }),
    put('l/é', 'd', { lease: 'L1' }),
    { op: 'leaseTimeToLive', lease: 'L1', keys: true },
    { op: 'leaseRevoke', lease: 'L1', note: 'deletes the keys in byte order, in one revision' },
    put('😀', 'again'),
    put('\udcff', 'again'),
    { op: 'watchCancel', id: 'wHigh' },
    { op: 'watchCancel', id: 'wSame' },
  ],
};

/** Every built-in set, in recording order. */
export const traceOpSets: readonly TraceOpSet[] = [
  kvBasic,
  rangeOpts,
  txnSet,
  compactSet,
  watchSet,
  watchCompactSet,
  leaseSet,
  keyBytesSet,
];

/** The built-in set with this name, or undefined. */
export function traceOpSet(name: string): TraceOpSet | undefined {
  return traceOpSets.find((s) => s.name === name);
}

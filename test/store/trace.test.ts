/**
 * The golden-trace replayer and comparer: hand-written traces (test/fixtures/store) replayed on
 * MemoryStore, traces recorded on real etcd (test/fixtures/etcd, when present) replayed on
 * MemoryStore with check semantics, and the comparer's own rules (so that a check can fail).
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  compareTrace,
  formatDifferences,
  parseTrace,
  replayOnMemory,
  TraceFormatError,
  type GoldenTrace,
  type TraceResult,
} from '../../src/store/trace/index.js';

const root = join(import.meta.dirname, '..', 'fixtures');
const load = (dir: string, f: string): GoldenTrace =>
  parseTrace(JSON.parse(readFileSync(join(root, dir, f), 'utf8')), `${dir}/${f}`);
const jsonFiles = (dir: string) =>
  existsSync(join(root, dir))
    ? readdirSync(join(root, dir))
        .filter((f) => f.endsWith('.json'))
        .sort()
    : [];

describe('hand-written traces replay on MemoryStore', () => {
  // the shipped example trace (kubesim store replay --help) is one of them
  for (const [dir, f] of ['store', '../../examples/store'].flatMap((d) => jsonFiles(d).map((f) => [d, f]))) {
    it(f, async () => {
      const trace = load(dir, f);
      const actual = await replayOnMemory(trace);
      const diffs = compareTrace(trace, actual);
      expect(diffs, formatDifferences(diffs)).toEqual([]);
    });
  }

  it('quirks are implemented, not only skipped: the full comparison passes without skipQuirks', async () => {
    const trace = load('store', 'compact-progress.json');
    expect(trace.ops.some((op) => op.quirk)).toBe(true);
    expect(compareTrace(trace, await replayOnMemory(trace), { skipQuirks: false })).toEqual([]);
  });
});

describe('traces recorded on real etcd replay on MemoryStore', () => {
  const files = jsonFiles('etcd');
  if (files.length === 0) it.todo('record traces into test/fixtures/etcd (kubesim store record)');
  for (const f of files) {
    it(f, async () => {
      const trace = load('etcd', f);
      const actual = await replayOnMemory(trace);
      const diffs = compareTrace(trace, actual);
      expect(diffs, formatDifferences(diffs)).toEqual([]);
    });
  }
});

describe('compareTrace', () => {
  const base = async (): Promise<{ trace: GoldenTrace; actual: TraceResult }> => {
    const trace = load('../../examples/store', 'kv-watch-lease.json');
    return { trace, actual: await replayOnMemory(trace) };
  };

  it('reports a changed value with its op and field', async () => {
    const { trace, actual } = await base();
    (actual.expected[3] as { prevKv: { version: number } }).prevKv.version = 7;
    const diffs = compareTrace(trace, actual);
    expect(diffs).toHaveLength(1);
    expect(diffs[0]).toMatchObject({ where: 'ops[3] put "a".prevKv.version', expected: 1, actual: 7 });
  });

  it('reports missing and extra fields in both directions', async () => {
    const { trace, actual } = await base();
    delete (actual.expected[1] as Record<string, unknown>).prevKv;
    (actual.expected[0] as Record<string, unknown>).extra = 1;
    const wheres = compareTrace(trace, actual).map((d) => `${d.where}: ${d.message}`);
    expect(wheres).toEqual([
      'ops[0] range "a".extra: unexpected field',
      'ops[1] put "a".prevKv: missing field',
    ]);
  });

  it('errors match on code and on the message without "etcdserver: "', async () => {
    const { trace, actual } = await base();
    const err = (actual.expected[7] as { error: { message: string; code: number } }).error;
    err.message = 'requested lease not found';
    expect(compareTrace(trace, actual)).toEqual([]);
    err.message = 'something else';
    expect(compareTrace(trace, actual).map((d) => d.where)).toEqual(['ops[7] put "b".error.message']);
    expect(compareTrace(trace, actual, { ignoreErrorMessages: true })).toEqual([]);
    err.code = 3;
    expect(compareTrace(trace, actual, { ignoreErrorMessages: true }).map((d) => d.where)).toEqual([
      'ops[7] put "b".error.code',
    ]);
  });

  it('matchers $range, $oneOf, $any', async () => {
    const { trace, actual } = await base();
    const ttl = actual.expected[8] as { ttl: number };
    ttl.ttl = 3;
    expect(compareTrace(trace, actual).map((d) => d.message)).toEqual(['expected a number in [0, 2]']);
    (trace.expected![8] as { ttl: unknown }).ttl = { $oneOf: [3, 4] };
    expect(compareTrace(trace, actual)).toEqual([]);
    (trace.expected![8] as { ttl: unknown }).ttl = { $any: true };
    ttl.ttl = 99;
    expect(compareTrace(trace, actual)).toEqual([]);
  });

  it('watch events must be equal, compactRevision too, and revisions never split', async () => {
    const { trace, actual } = await base();
    actual.watchEvents.w1.pop();
    actual.watchMeta.w2.compactRevision = 4;
    actual.watchMeta.w1.responses = [
      { revision: 5, eventRevisions: [3, 4] },
      { revision: 6, eventRevisions: [4, 5] },
    ];
    const wheres = compareTrace(trace, actual).map((d) => d.where);
    expect(wheres).toEqual([
      'watchEvents.w1.length',
      'watchMeta.w2.compactRevision',
      'watchMeta.w1.responses[1]',
    ]);
  });

  it('skipQuirks skips tagged ops and the watchers they create', async () => {
    const trace = load('store', 'compact-progress.json');
    const actual = await replayOnMemory(trace);
    actual.watchEvents.wTomb = [];
    (actual.expected[9] as { responses: { txn: { revision: number } }[] }).responses[0].txn.revision = 6;
    expect(compareTrace(trace, actual).map((d) => d.where)).toEqual([
      'ops[9] txn.responses[0].txn.revision',
      'watchEvents.wTomb.length',
    ]);
    expect(compareTrace(trace, actual, { skipQuirks: true })).toEqual([]);
  });
});

describe('parseTrace', () => {
  const ok = { format: 'etcd-golden-trace/v1', name: 't', ops: [{ op: 'put', key: 'a', value: 'b' }] };
  const one = (op: unknown) => ({ ...ok, ops: [op] });
  const cases: [string, unknown, string][] = [
    [
      'wrong format tag',
      { ...ok, format: 'x' },
      'f.json: field "format" is "x", expected "etcd-golden-trace/v1"',
    ],
    ['ops not an array', { ...ok, ops: {} }, 'f.json: field "ops" must be an array'],
    ['unknown top-level field', { ...ok, opz: [] }, 'f.json: unknown field "opz"'],
    [
      'initial revision',
      { ...ok, initialRevision: 3 },
      'f.json: field "initialRevision" is 3: a trace starts',
    ],
    ['opCount', { ...ok, opCount: 2 }, 'f.json: field "opCount" is 2 but there are 1 ops'],
    ['unknown op', one({ op: 'frobnicate' }), 'f.json: ops[0]: unknown op "frobnicate"'],
    ['op not an object', one(7), 'f.json: ops[0] is not an object'],
    ['put without key', one({ op: 'put', value: 'x' }), 'f.json: ops[0] (put): field "key" is required'],
    ['put without value', one({ op: 'put', key: 'a' }), 'f.json: ops[0] (put): field "value" is required'],
    [
      'wrong type',
      one({ op: 'put', key: 'a', value: 3 }),
      'f.json: ops[0] (put): field "value" is 3; expected a string',
    ],
    [
      'unknown field',
      one({ op: 'put', key: 'a', value: 'b', prevkv: true }),
      'f.json: ops[0] (put): unknown field "prevkv"',
    ],
    [
      'prototype key',
      JSON.parse('{"format":"etcd-golden-trace/v1","ops":[{"op":"put","key":"a","value":"","__proto__":1}]}'),
      'ops[0] (put): unknown field "__proto__"',
    ],
    [
      'boolean flag',
      one({ op: 'put', key: 'a', value: 'b', prevKv: 'yes' }),
      'field "prevKv" is "yes"; expected true or false',
    ],
    [
      'fractional revision',
      one({ op: 'range', key: 'a', revision: 1.5 }),
      'ops[0] (range): field "revision" is 1.5; expected an integer',
    ],
    [
      'huge number',
      one({ op: 'compact', revision: 1e300 }),
      'ops[0] (compact): field "revision" is 1e+300; expected an integer',
    ],
    [
      'sort order',
      one({ op: 'range', key: 'a', sortOrder: 'UP' }),
      'field "sortOrder" is "UP"; expected one of NONE, ASCEND, DESCEND',
    ],
    [
      'key naming no bytes',
      one({ op: 'put', key: 'a\ud800', value: '' }),
      'ops[0] (put): field "key": "a\\ud800" names no byte string',
    ],
    [
      'prefix helper without its end',
      one({ op: 'range', key: 'a/', prefix: true, rangeEnd: 'b' }),
      '"prefix": true needs "rangeEnd": "a0"',
    ],
    [
      'bad compare target',
      one({ op: 'txn', compare: [{ key: 'a', target: 'SIZE', result: 'EQUAL' }] }),
      'f.json: ops[0].compare[0]: field "target" is "SIZE"; expected one of VALUE, VERSION, CREATE, MOD, LEASE',
    ],
    [
      'compare without operand',
      one({ op: 'txn', compare: [{ key: 'a', target: 'MOD', result: 'EQUAL' }] }),
      'ops[0].compare[0]: field "modRevision" is required with target MOD',
    ],
    [
      'compare with another operand',
      one({ op: 'txn', compare: [{ key: 'a', target: 'MOD', result: 'EQUAL', modRevision: 1, version: 2 }] }),
      'field "version" is not used with target MOD',
    ],
    [
      'watch in a txn branch',
      one({ op: 'txn', success: [{ op: 'watch', id: 1, key: 'a' }] }),
      'f.json: ops[0].success[0]: unknown op "watch" in a txn branch',
    ],
    [
      'nested op error',
      one({ op: 'txn', failure: [{ op: 'txn', success: [{ op: 'delete' }] }] }),
      'f.json: ops[0].failure[0].success[0] (delete): field "key" is required',
    ],
    [
      'watch filters',
      one({ op: 'watch', id: 'w', key: 'a', filters: ['NOPOST'] }),
      'field "filters" is ["NOPOST"]; expected a list of NOPUT, NODELETE',
    ],
    [
      'duplicate watch id',
      {
        ...ok,
        ops: [
          { op: 'watch', id: 'w', key: 'a' },
          { op: 'watch', id: 'w', key: 'b' },
        ],
      },
      'ops[1] (watch): watch id "w" is already used',
    ],
    [
      'cancel of an unknown watch',
      one({ op: 'watchCancel', id: 'w9' }),
      'ops[0] (watchCancel): no watch with id "w9" was created before',
    ],
    [
      'cancel twice',
      {
        ...ok,
        ops: [
          { op: 'watch', id: 1, key: 'a' },
          { op: 'watchCancel', id: 1 },
          { op: 'watchCancel', id: 1 },
        ],
      },
      'ops[2] (watchCancel): watch 1 is already canceled',
    ],
    [
      'sleep of 1e12 ms',
      one({ op: 'sleep', ms: 1e12 }),
      'ops[0] (sleep): field "ms" is 1000000000000; expected 0 to 3600000 (1 h)',
    ],
    ['negative sleep', one({ op: 'sleep', ms: -1 }), 'ops[0] (sleep): field "ms" is -1'],
    [
      'too much virtual time',
      { ...ok, ops: Array.from({ length: 25 }, () => ({ op: 'sleep', ms: 3_600_000 })) },
      "ops[24] (sleep): the trace's virtual time (sleeps and expired lease TTLs) reaches 90000000 ms; the maximum is 86400000 (24 h)",
    ],
    [
      'a long lease waited out',
      {
        ...ok,
        ops: [
          { op: 'leaseGrant', lease: 'L', ttl: 100_000 },
          { op: 'leaseExpire', lease: 'L' },
        ],
      },
      "ops[1] (leaseExpire): the trace's virtual time",
    ],
    [
      'progress interval',
      { ...ok, recordedWith: { limits: { progressNotifyInterval: '1us' } } },
      'field "recordedWith.limits.progressNotifyInterval" is "1us"; expected a duration from 10ms to 24h',
    ],
    [
      'max txn ops',
      { ...ok, recordedWith: { limits: { maxTxnOps: 0 } } },
      'field "recordedWith.limits.maxTxnOps" is 0; expected an integer from 1 to 100000',
    ],
    [
      'deep nesting',
      one(
        JSON.parse(`${'{"op":"txn","success":['.repeat(2000)}{"op":"range","key":"a"}${']}'.repeat(2000)}`),
      ),
      'f.json: ops[0]: nested deeper than 100 levels',
    ],
    ['expected length', { ...ok, expected: [] }, 'f.json: "expected" has 0 entries for 1 ops'],
    ['watch meta', { ...ok, watchMeta: { w: null } }, 'f.json: watchMeta["w"] must be an object'],
    ['watch events', { ...ok, watchEvents: { w: {} } }, 'f.json: watchEvents["w"] must be a list of events'],
  ];
  for (const [name, json, message] of cases) {
    it(name, () => {
      expect(() => parseTrace(json, 'f.json')).toThrow(TraceFormatError);
      expect(() => parseTrace(json, 'f.json')).toThrow(message);
    });
  }
});

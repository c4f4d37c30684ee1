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
  for (const f of jsonFiles('store')) {
    it(f, async () => {
      const trace = load('store', f);
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
    const trace = load('store', 'kv-watch-lease.json');
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
  const cases: [string, unknown, string][] = [
    [
      'wrong format tag',
      { ...ok, format: 'x' },
      'f.json: field "format" is "x", expected "etcd-golden-trace/v1"',
    ],
    ['ops not an array', { ...ok, ops: {} }, 'f.json: field "ops" must be an array'],
    ['unknown op', { ...ok, ops: [{ op: 'frobnicate' }] }, 'f.json: ops[0]: unknown op "frobnicate"'],
    [
      'put without key',
      { ...ok, ops: [{ op: 'put', value: 'x' }] },
      'f.json: ops[0] (put): field "key" must be a string',
    ],
    [
      'bad compare target',
      { ...ok, ops: [{ op: 'txn', compare: [{ key: 'a', target: 'SIZE', result: 'EQUAL' }] }] },
      'f.json: ops[0].compare[0]: field "target" must be VALUE, VERSION, CREATE, MOD or LEASE',
    ],
    [
      'watch in a txn branch',
      { ...ok, ops: [{ op: 'txn', success: [{ op: 'watch', id: 1, key: 'a' }] }] },
      'f.json: ops[0].success[0]: unknown op "watch" in a txn branch',
    ],
    ['expected length', { ...ok, expected: [] }, 'f.json: "expected" has 0 entries for 1 ops'],
  ];
  for (const [name, json, message] of cases) {
    it(name, () => {
      expect(() => parseTrace(json, 'f.json')).toThrow(TraceFormatError);
      expect(() => parseTrace(json, 'f.json')).toThrow(message);
    });
  }
});

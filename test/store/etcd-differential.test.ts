/**
 * Differential test: seeded random op sequences (test/store/random-ops.ts: puts, deletes,
 * ranges with options, txns with compares and nested txns, compactions, watches with history,
 * prevKv and filters, empty-range watches, leases) run on a fresh real etcd and on MemoryStore;
 * every answer and every watcher's event stream must be identical. etcd's answers play the part of
 * the golden trace. Each seed runs with ASCII keys and with non-ASCII and binary keys (the `bytes`
 * pool: byte order against UTF-16 order, raw bytes 0x80..0xFF, prefixes whose end is no UTF-8 text).
 *
 * A failure names the seed; reproduce it alone with KUBESIM_DIFF_SEEDS=<seed>. More seeds:
 * KUBESIM_DIFF_SEEDS=1-50 (a range) or 3,17,42 (a list); longer sequences: KUBESIM_DIFF_OPS=400;
 * one key pool: KUBESIM_DIFF_KEYS=ascii or bytes.
 */
import { describe, expect, it } from 'vitest';
import { randomOps } from './random-ops.js';
import { addTimeMatchers, assertEtcdAnswered, replayOnEtcd } from '../../src/store/etcd/record.js';
import {
  compareTrace,
  formatDifferences,
  replayOnMemory,
  TRACE_FORMAT,
  type GoldenTrace,
} from '../../src/store/trace/index.js';
import { describeEtcd } from '../helpers/etcd.js';

function seeds(): number[] {
  const env = process.env.KUBESIM_DIFF_SEEDS;
  if (!env) return [1, 2, 3, 4, 5, 6];
  const range = /^(\d+)-(\d+)$/.exec(env);
  if (range) {
    const out: number[] = [];
    for (let s = Number(range[1]); s <= Number(range[2]); s++) out.push(s);
    return out;
  }
  return env.split(',').map((s) => Number(s.trim()));
}

const OPS_PER_SEED = Number(process.env.KUBESIM_DIFF_OPS ?? 150);
const POOLS = (process.env.KUBESIM_DIFF_KEYS ?? 'ascii,bytes').split(',') as ('ascii' | 'bytes')[];

describe('random op sequences are deterministic', () => {
  it('the same seed gives the same ops, another seed other ops', () => {
    expect(randomOps(7, { count: 50 })).toEqual(randomOps(7, { count: 50 }));
    expect(randomOps(7, { count: 50 })).not.toEqual(randomOps(8, { count: 50 }));
    const kinds = new Set(randomOps(1, { count: OPS_PER_SEED }).map((o) => o.op));
    for (const k of [
      'put',
      'delete',
      'range',
      'txn',
      'compact',
      'watch',
      'watchCancel',
      'leaseGrant',
      'leaseRevoke',
      'leaseTimeToLive',
      'leaseKeepAlive',
    ])
      expect(kinds).toContain(k);
  });

  it('the bytes pool puts non-ASCII and binary keys, prefixes and empty watch ranges in the mix', () => {
    const ops = randomOps(1, { count: OPS_PER_SEED, keys: 'bytes' });
    const keys = new Set(ops.flatMap((o) => (typeof o.key === 'string' ? [o.key] : [])));
    for (const k of ['😀', '\uffff', '\udcff', 'a\u007f']) expect(keys).toContain(k);
    expect(ops.some((o) => o.rangeEnd === '\udcc3\udcc0')).toBe(true); // prefixEnd("ÿ")
    expect(
      randomOps(2, { count: 400, keys: 'bytes' }).some(
        (o) =>
          o.op === 'watch' &&
          typeof o.rangeEnd === 'string' &&
          o.rangeEnd !== '\u0000' &&
          o.rangeEnd <= (o.key as string),
      ),
    ).toBe(true);
  });
});

describe('guards', () => {
  it('a replay where etcd stopped answering (UNAVAILABLE) is rejected, naming the op', () => {
    const ops = [
      { op: 'put', key: 'a', value: '1' },
      { op: 'txn', compare: [], success: [], failure: [] },
    ];
    expect(() =>
      assertEtcdAnswered('t', ops, [
        { revision: 2, prevKv: null },
        { revision: 2, succeeded: true, responses: [] },
      ]),
    ).not.toThrow();
    expect(() =>
      assertEtcdAnswered('t', ops, [
        { revision: 2, prevKv: null },
        { error: { code: 14, codeName: 'UNAVAILABLE', message: 'x' } },
      ]),
    ).toThrow(/t: etcd stopped answering at ops\[1\] \(txn\)/);
  });

  it('txns that would crash etcd 3.4 (fromKey delete + ignoreValue/ignoreLease put) never appear', () => {
    const walk = (op: Record<string, unknown>, fromKey: { seen: boolean }, flags: { seen: boolean }) => {
      if (op.op === 'delete' && op.rangeEnd === '\u0000') fromKey.seen = true;
      if (op.op === 'put' && (op.ignoreValue || op.ignoreLease)) flags.seen = true;
      for (const o of [...((op.success as []) ?? []), ...((op.failure as []) ?? [])]) walk(o, fromKey, flags);
    };
    let checked = 0;
    for (let seed = 1; seed <= 200; seed++) {
      for (const op of randomOps(seed, { count: 100 })) {
        if (op.op !== 'txn') continue;
        const fromKey = { seen: false };
        const flags = { seen: false };
        walk(op, fromKey, flags);
        if (fromKey.seen) checked++;
        expect(fromKey.seen && flags.seen, `seed ${seed}: ${JSON.stringify(op)}`).toBe(false);
      }
    }
    expect(checked).toBeGreaterThan(50);
  });
});

describeEtcd(
  'MemoryStore vs real etcd on seeded random op sequences',
  () => {
    describe.concurrent('seeds', () => {
      for (const seed of seeds()) {
        for (const keys of POOLS)
          it(`seed ${seed}, ${keys} keys`, async () => {
            const ops = randomOps(seed, { count: OPS_PER_SEED, keys });
            const input: GoldenTrace = { format: TRACE_FORMAT, name: `random-${seed}-${keys}`, ops };
            const onEtcd = await replayOnEtcd(input);
            const onMemory = await replayOnMemory(input);
            const reference: GoldenTrace = {
              ...input,
              ...onEtcd,
              expected: addTimeMatchers(ops, onEtcd.expected),
            };
            const diffs = compareTrace(reference, onMemory);
            const errors = Object.entries(onEtcd.watchMeta).flatMap(([id, m]) =>
              m.errors.map((e) => `${id}: ${e}`),
            );
            expect(errors, `seed ${seed}: watcher errors on etcd`).toEqual([]);
            expect(
              diffs,
              `seed ${seed}, ${keys} keys (reproduce: KUBESIM_DIFF_SEEDS=${seed} KUBESIM_DIFF_KEYS=${keys} npx vitest run test/store/etcd-differential.test.ts):\n${formatDifferences(diffs)}`,
            ).toEqual([]);
            // the comparison must have had something to compare
            expect(
              onEtcd.expected.filter((a) => !(typeof a === 'object' && a !== null && 'error' in a)).length,
            ).toBeGreaterThan(OPS_PER_SEED / 2);
          });
      }
    });
  },
  { shared: false },
);

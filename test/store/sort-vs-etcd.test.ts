/**
 * Sorted ranges with many equal sort keys: etcd sorts with Go's unstable sort.Sort, so the order
 * of ties depends on the algorithm. MemoryStore follows Go 1.19's pdqsort step by step
 * (src/store/memory/go-sort.ts); this test loads the same data into a real etcd and MemoryStore and
 * requires the same key order for every target, order and limit. Skipped without etcd.
 */
import { expect, it } from 'vitest';
import { Rng } from '../../src/util/rng.js';
import { MemoryStore } from '../../src/store/memory/store.js';
import { goSort } from '../../src/store/memory/go-sort.js';
import type { KvStore, RangeRequest, SortOrder, SortTarget } from '../../src/store/types.js';
import { describeEtcd } from '../helpers/etcd.js';
import { v } from './conformance.js';

/** 200 keys; values from 4 choices, versions 1–3, keys written 10 per txn (shared mod/create revisions) */
async function load(store: KvStore, seed: number): Promise<void> {
  const rng = new Rng(seed);
  const keys = Array.from({ length: 200 }, (_, i) => `k${String(i).padStart(3, '0')}`);
  for (let i = 0; i < keys.length; i += 10) {
    await store.txn({
      success: keys.slice(i, i + 10).map((key) => ({ requestPut: { key, value: v(String(rng.int(4))) } })),
    });
  }
  for (let round = 0; round < 2; round++) {
    const some = keys.filter(() => rng.int(3) === 0);
    for (let i = 0; i < some.length; i += 10) {
      await store.txn({
        success: some.slice(i, i + 10).map((key) => ({ requestPut: { key, value: v(String(rng.int(4))) } })),
      });
    }
  }
}

/** values in a sawtooth over the key order (i mod 17): unbalanced partitions make pdqsort call breakPatterns */
async function loadSawtooth(store: KvStore): Promise<void> {
  const keys = Array.from({ length: 200 }, (_, i) => `k${String(i).padStart(3, '0')}`);
  for (let i = 0; i < keys.length; i += 50) {
    await store.txn({
      success: keys
        .slice(i, i + 50)
        .map((key, j) => ({ requestPut: { key, value: v(String((i + j) % 17).padStart(2, '0')) } })),
    });
  }
}

const requests: RangeRequest[] = [];
for (const sortTarget of ['VERSION', 'VALUE', 'MOD', 'CREATE', 'KEY'] as SortTarget[]) {
  for (const sortOrder of ['ASCEND', 'DESCEND', 'NONE'] as SortOrder[]) {
    for (const limit of [0, 7, 60]) requests.push({ key: 'k', rangeEnd: 'l', sortTarget, sortOrder, limit });
  }
}

describeEtcd('range sort order of ties: MemoryStore vs real etcd', (etcd) => {
  it("sawtooth values sorted by VALUE (exercises pdqsort's breakPatterns and its xorshift)", async () => {
    const remote = etcd.store('sort-saw/');
    const local = new MemoryStore();
    await loadSawtooth(remote);
    await loadSawtooth(local);
    for (const sortOrder of ['ASCEND', 'DESCEND'] as SortOrder[]) {
      for (const sortTarget of ['VALUE', 'MOD'] as SortTarget[]) {
        const req: RangeRequest = { key: 'k', rangeEnd: 'l', sortTarget, sortOrder };
        const [a, b] = await Promise.all([remote.range(req), local.range(req)]);
        expect(
          b.kvs.map((kv) => kv.key),
          `${sortTarget} ${sortOrder}`,
        ).toEqual(a.kvs.map((kv) => kv.key));
      }
    }
    await local.close();
  });

  for (const seed of [1, 2]) {
    it(`seed ${seed}: ${requests.length} sorted ranges over 200 keys`, async () => {
      const remote = etcd.store(`sort-${seed}/`);
      const local = new MemoryStore();
      await load(remote, seed);
      await load(local, seed);
      for (const req of requests) {
        const [a, b] = await Promise.all([remote.range(req), local.range(req)]);
        const label = `${req.sortTarget} ${req.sortOrder} limit ${req.limit}`;
        expect(
          b.kvs.map((kv) => kv.key),
          label,
        ).toEqual(a.kvs.map((kv) => kv.key));
        expect([b.count, b.more], label).toEqual([a.count, a.more]);
      }
      await local.close();
    });
  }
});

it('goSort sorts (a self-check independent of etcd)', () => {
  const rng = new Rng(9);
  for (const n of [0, 1, 5, 12, 13, 49, 50, 51, 200, 1000]) {
    const xs = Array.from({ length: n }, () => rng.int(n > 100 ? 40 : 5));
    const got = xs.map((x, i) => ({ x, i }));
    goSort(got, (a, b) => a.x < b.x);
    expect(got.map((e) => e.x)).toEqual([...xs].sort((a, b) => a - b));
    expect(new Set(got.map((e) => e.i)).size).toBe(n);
  }
  const desc = Array.from({ length: 300 }, (_, i) => 300 - i);
  goSort(desc, (a, b) => a < b);
  expect(desc).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
});

/**
 * The KvStore conformance suite: one test body, run against every implementation (MemoryStore in
 * memory.test.ts, EtcdStore on a real etcd 3.4 in the etcd engineer's test). Assertions are written
 * to hold on real etcd: revisions are relative to the revision at the start of each test, every test
 * writes under its own key prefix, lease IDs are never assumed, and watch assertions flatten the
 * responses (how events are grouped into responses is timing-dependent; only "a revision is never
 * split" is checked).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prefixEnd } from '../../src/store/keyrange.js';
import type {
  KeyValue,
  KvStore,
  RequestOp,
  TxnRequest,
  WatchCreateRequest,
  WatchEvent,
  WatchResponse,
  Watcher,
  Compare,
} from '../../src/store/types.js';

export interface ConformanceFixture {
  store: KvStore;
  /** let lease time pass (virtual clock: advance; real etcd: wait) */
  advanceLeaseTime?: (ms: number) => Promise<void>;
  /**
   * factor on the lease-expiry test's TTLs and waits (default 1): with real time a larger scale
   * widens the windows the test must hit (keep-alive before the first expiry, check before the
   * renewed one) so that a saturated machine, whose timers and etcd run late, still hits them
   */
  leaseScale?: number;
  cleanup(): Promise<void>;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
export const v = (s: string): Uint8Array => enc.encode(s);
export const str = (b: Uint8Array): string => dec.decode(b);

/** A KeyValue with the value as a string, for readable expectations. */
export function plain(kv: KeyValue): Omit<KeyValue, 'value'> & { value: string } {
  return { ...kv, value: str(kv.value) };
}

let counter = 0;

/** Collects every response of a watcher and waits for conditions on them. */
export class WatchLog {
  readonly responses: WatchResponse[] = [];
  watcher!: Watcher;

  get events(): WatchEvent[] {
    return this.responses.flatMap((r) => r.events);
  }

  static async open(store: KvStore, req: WatchCreateRequest): Promise<WatchLog> {
    const log = new WatchLog();
    log.watcher = await store.watch(req, (r) => log.responses.push(r));
    return log;
  }

  async waitFor(
    pred: (log: WatchLog) => boolean,
    what = 'watch condition',
    // a hang guard: each wait ends as soon as its condition holds
    timeoutMs = 60_000,
  ): Promise<void> {
    const start = Date.now();
    while (!pred(this)) {
      if (Date.now() - start > timeoutMs) {
        throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.responses.map(summary))}`);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  async waitEvents(n: number): Promise<WatchEvent[]> {
    await this.waitFor((l) => l.events.length >= n, `${n} events`);
    return this.events;
  }

  /** no response may carry part of a revision that another response also carries */
  assertRevisionsNotSplit(): void {
    const seen = new Map<number, number>();
    this.responses.forEach((r, i) => {
      for (const e of r.events) {
        const first = seen.get(e.kv.modRevision);
        if (first !== undefined && first !== i)
          throw new Error(`revision ${e.kv.modRevision} split across responses ${first} and ${i}`);
        seen.set(e.kv.modRevision, i);
      }
    });
  }
}

function summary(r: WatchResponse): unknown {
  return {
    rev: r.header.revision,
    events: r.events.map((e) => `${e.type} ${e.kv.key}@${e.kv.modRevision}`),
    progress: r.progress,
    canceled: r.canceled,
    compactRevision: r.compactRevision,
  };
}

/** short pause so that a real etcd has a chance to deliver what must NOT arrive */
const quiet = (ms = 150) => new Promise((r) => setTimeout(r, ms));

const put = (
  key: string,
  value: string,
  extra: Partial<{ lease: number; prevKv: boolean }> = {},
): RequestOp => ({ requestPut: { key, value: v(value), ...extra } });
const get = (key: string, rangeEnd?: string): RequestOp => ({ requestRange: { key, rangeEnd } });
const del = (key: string, rangeEnd?: string): RequestOp => ({ requestDeleteRange: { key, rangeEnd } });

/**
 * Registers the conformance suite. `makeStore` is called before every test; the fixture's cleanup
 * after it. Implementations may hand out the same underlying server every time: tests isolate
 * themselves by key prefix.
 */
export function runKvStoreConformance(name: string, makeStore: () => Promise<ConformanceFixture>): void {
  describe(`KvStore conformance: ${name}`, () => {
    let fx: ConformanceFixture;
    let s: KvStore;
    let p: string; // this test's key prefix
    let base: number; // revision at the start of the test
    const watchers: WatchLog[] = [];

    beforeEach(async () => {
      fx = await makeStore();
      s = fx.store;
      p = `conf/${String(++counter).padStart(4, '0')}/`;
      base = await s.currentRevision();
    });
    afterEach(async () => {
      for (const w of watchers.splice(0)) await w.watcher.cancel();
      await fx.cleanup();
    });
    const watch = async (req: WatchCreateRequest) => {
      const w = await WatchLog.open(s, req);
      watchers.push(w);
      return w;
    };
    const rangeEnd = () => p.slice(0, -1) + String.fromCharCode(p.charCodeAt(p.length - 1) + 1);

    describe('revisions and versions', () => {
      it('starts each write at revision+1 and reads report the current revision', async () => {
        const r1 = await s.put({ key: p + 'a', value: v('1') });
        expect(r1.header.revision).toBe(base + 1);
        const r2 = await s.put({ key: p + 'b', value: v('2') });
        expect(r2.header.revision).toBe(base + 2);
        const got = await s.range({ key: p + 'a' });
        expect(got.header.revision).toBe(base + 2);
        expect(got.kvs.map(plain)).toEqual([
          { key: p + 'a', value: '1', createRevision: base + 1, modRevision: base + 1, version: 1, lease: 0 },
        ]);
        expect(await s.currentRevision()).toBe(base + 2);
      });

      it('counts versions, keeps createRevision, bumps on an identical value', async () => {
        await s.put({ key: p + 'k', value: v('x') });
        await s.put({ key: p + 'k', value: v('x') });
        const r = await s.put({ key: p + 'k', value: v('y') });
        expect(r.header.revision).toBe(base + 3);
        const got = await s.range({ key: p + 'k' });
        expect(plain(got.kvs[0])).toEqual({
          key: p + 'k',
          value: 'y',
          createRevision: base + 1,
          modRevision: base + 3,
          version: 3,
          lease: 0,
        });
      });

      it('delete resets the version; re-creation gets a new createRevision', async () => {
        await s.put({ key: p + 'k', value: v('1') });
        await s.put({ key: p + 'k', value: v('2') });
        const d = await s.deleteRange({ key: p + 'k' });
        expect(d).toMatchObject({ header: { revision: base + 3 }, deleted: 1 });
        expect((await s.range({ key: p + 'k' })).kvs).toEqual([]);
        await s.put({ key: p + 'k', value: v('3') });
        const got = await s.range({ key: p + 'k' });
        expect(plain(got.kvs[0])).toMatchObject({
          createRevision: base + 4,
          modRevision: base + 4,
          version: 1,
        });
      });

      it('a delete of nothing does not create a revision', async () => {
        await s.put({ key: p + 'a', value: v('1') });
        const d = await s.deleteRange({ key: p + 'zz' });
        expect(d).toEqual({ header: { revision: base + 1 }, deleted: 0, prevKvs: [] });
        const d2 = await s.deleteRange({ key: p + 'x', rangeEnd: p + 'y' });
        expect(d2.header.revision).toBe(base + 1);
      });

      it('deleteRange over a range deletes in one revision and returns prevKvs in key order', async () => {
        for (const k of ['c', 'a', 'b']) await s.put({ key: p + k, value: v(k) });
        await s.put({ key: p.slice(0, -1) + '~other', value: v('outside') });
        const d = await s.deleteRange({ key: p, rangeEnd: rangeEnd(), prevKv: true });
        expect(d.deleted).toBe(3);
        expect(d.header.revision).toBe(base + 5);
        expect(d.prevKvs.map((kv) => kv.key)).toEqual([p + 'a', p + 'b', p + 'c']);
        expect(d.prevKvs.map((kv) => str(kv.value))).toEqual(['a', 'b', 'c']);
      });

      it('rejects an empty key', async () => {
        await expect(s.put({ key: '', value: v('x') })).rejects.toMatchObject({
          message: 'key is not provided',
          code: 3,
        });
        await expect(s.range({ key: '' })).rejects.toMatchObject({ message: 'key is not provided', code: 3 });
        await expect(s.deleteRange({ key: '' })).rejects.toMatchObject({
          message: 'key is not provided',
          code: 3,
        });
      });
    });

    describe('range', () => {
      beforeEach(async () => {
        // a@+1 b@+2 c@+3 d@+4, then b rewritten at +5 (version 2), values chosen to sort differently from keys
        await s.put({ key: p + 'a', value: v('30') });
        await s.put({ key: p + 'b', value: v('10') });
        await s.put({ key: p + 'c', value: v('40') });
        await s.put({ key: p + 'd', value: v('20') });
        await s.put({ key: p + 'b', value: v('50') });
      });
      const keys = (kvs: KeyValue[]) => kvs.map((kv) => kv.key.slice(p.length)).join('');

      const cases: {
        name: string;
        req: () => Parameters<KvStore['range']>[0];
        keys: string;
        count: number;
        more?: boolean;
      }[] = [
        { name: 'single key', req: () => ({ key: p + 'b' }), keys: 'b', count: 1 },
        { name: 'missing key', req: () => ({ key: p + 'zz' }), keys: '', count: 0 },
        { name: '[key, rangeEnd)', req: () => ({ key: p + 'b', rangeEnd: p + 'd' }), keys: 'bc', count: 2 },
        { name: 'prefix', req: () => ({ key: p, rangeEnd: rangeEnd() }), keys: 'abcd', count: 4 },
        {
          name: 'rangeEnd <= key is empty',
          req: () => ({ key: p + 'c', rangeEnd: p + 'b' }),
          keys: '',
          count: 0,
        },
        {
          name: 'limit sets more, count ignores limit',
          req: () => ({ key: p, rangeEnd: rangeEnd(), limit: 2 }),
          keys: 'ab',
          count: 4,
          more: true,
        },
        {
          name: 'limit equal to the size: no more',
          req: () => ({ key: p, rangeEnd: rangeEnd(), limit: 4 }),
          keys: 'abcd',
          count: 4,
          more: false,
        },
        {
          name: 'sort KEY DESCEND',
          req: () => ({ key: p, rangeEnd: rangeEnd(), sortOrder: 'DESCEND', sortTarget: 'KEY' }),
          keys: 'dcba',
          count: 4,
        },
        {
          name: 'sort VALUE ASCEND',
          req: () => ({ key: p, rangeEnd: rangeEnd(), sortOrder: 'ASCEND', sortTarget: 'VALUE' }),
          keys: 'dacb',
          count: 4,
        },
        {
          name: 'sort VALUE DESCEND limit 2',
          req: () => ({ key: p, rangeEnd: rangeEnd(), sortOrder: 'DESCEND', sortTarget: 'VALUE', limit: 2 }),
          keys: 'bc',
          count: 4,
          more: true,
        },
        {
          name: 'sort MOD DESCEND',
          req: () => ({ key: p, rangeEnd: rangeEnd(), sortOrder: 'DESCEND', sortTarget: 'MOD' }),
          keys: 'bdca',
          count: 4,
        },
        {
          name: 'sort CREATE DESCEND',
          req: () => ({ key: p, rangeEnd: rangeEnd(), sortOrder: 'DESCEND', sortTarget: 'CREATE' }),
          keys: 'dcba',
          count: 4,
        },
        {
          name: 'sort VERSION DESCEND (ties keep key order)',
          req: () => ({ key: p, rangeEnd: rangeEnd(), sortOrder: 'DESCEND', sortTarget: 'VERSION' }),
          keys: 'bacd',
          count: 4,
        },
        {
          name: 'non-KEY target with NONE order sorts ascending',
          req: () => ({ key: p, rangeEnd: rangeEnd(), sortOrder: 'NONE', sortTarget: 'MOD' }),
          keys: 'acdb',
          count: 4,
        },
        {
          name: 'minModRevision filters, count does not',
          req: () => ({ key: p, rangeEnd: rangeEnd(), minModRevision: base + 3 }),
          keys: 'bcd',
          count: 4,
        },
        {
          name: 'maxModRevision',
          req: () => ({ key: p, rangeEnd: rangeEnd(), maxModRevision: base + 3 }),
          keys: 'ac',
          count: 4,
        },
        {
          name: 'minCreateRevision',
          req: () => ({ key: p, rangeEnd: rangeEnd(), minCreateRevision: base + 2 }),
          keys: 'bcd',
          count: 4,
        },
        {
          name: 'maxCreateRevision + limit',
          req: () => ({ key: p, rangeEnd: rangeEnd(), maxCreateRevision: base + 3, limit: 2 }),
          keys: 'ab',
          count: 4,
          more: true,
        },
        {
          name: 'at an old revision',
          req: () => ({ key: p, rangeEnd: rangeEnd(), revision: base + 2 }),
          keys: 'ab',
          count: 2,
        },
        {
          name: 'countOnly',
          req: () => ({ key: p, rangeEnd: rangeEnd(), countOnly: true }),
          keys: '',
          count: 4,
        },
      ];
      for (const c of cases) {
        it(c.name, async () => {
          const r = await s.range(c.req());
          expect(keys(r.kvs)).toBe(c.keys);
          expect(r.count).toBe(c.count);
          expect(r.more).toBe(c.more ?? false);
          expect(r.header.revision).toBe(base + 5);
        });
      }

      it('"\\0" as rangeEnd means every key >= key', async () => {
        const r = await s.range({ key: p + 'c', rangeEnd: '\0' });
        expect(keys(r.kvs).startsWith('cd')).toBe(true);
        expect(r.kvs.every((kv) => kv.key >= p + 'c')).toBe(true);
      });

      it('keysOnly returns empty values', async () => {
        const r = await s.range({ key: p + 'a', keysOnly: true });
        expect(plain(r.kvs[0])).toEqual({
          key: p + 'a',
          value: '',
          createRevision: base + 1,
          modRevision: base + 1,
          version: 1,
          lease: 0,
        });
      });

      it('reads an old revision with the versions of that time', async () => {
        const r = await s.range({ key: p + 'b', revision: base + 4 });
        expect(plain(r.kvs[0])).toMatchObject({ value: '10', version: 1, modRevision: base + 2 });
        expect(r.header.revision).toBe(base + 5);
      });

      it('rejects a future revision', async () => {
        await expect(s.range({ key: p + 'a', revision: base + 6 })).rejects.toMatchObject({
          message: 'mvcc: required revision is a future revision',
          code: 11,
        });
      });

      it('compaction: below is an error, at the compact revision is served', async () => {
        await s.compact({ revision: base + 3, physical: true });
        await expect(s.range({ key: p + 'a', revision: base + 2 })).rejects.toMatchObject({
          message: 'mvcc: required revision has been compacted',
          code: 11,
        });
        const at = await s.range({ key: p, rangeEnd: rangeEnd(), revision: base + 3 });
        expect(keys(at.kvs)).toBe('abc');
        expect(at.kvs.map((kv) => str(kv.value))).toEqual(['30', '10', '40']);
        const now = await s.range({ key: p, rangeEnd: rangeEnd() });
        expect(keys(now.kvs)).toBe('abcd');
      });
    });

    describe('keys compare as bytes (UTF-8; U+DC80..U+DCFF are raw bytes), as etcd compares them', () => {
      // in byte order; JavaScript's UTF-16 `<` puts "😀" before "\uffff" and "\udc80" after "é"
      const ordered = ['a', 'a\u0000', 'a\u007f', 'a\udc80', '\udc80', 'é', 'ÿ', '\uffff', '😀', '\udcff'];
      const shuffled = ['😀', 'é', '\udcff', 'a\udc80', 'ÿ', 'a', '\udc80', 'a\u007f', '\uffff', 'a\u0000'];
      const suffixes = (kvs: KeyValue[]) => kvs.map((kv) => kv.key.slice(p.length));
      beforeEach(async () => {
        for (const k of shuffled) await s.put({ key: p + k, value: v(k.length.toString()) });
      });

      it('a range lists them in byte order; KEY DESCEND reverses it', async () => {
        const r = await s.range({ key: p, rangeEnd: rangeEnd() });
        expect(suffixes(r.kvs)).toEqual(ordered);
        const d = await s.range({ key: p, rangeEnd: rangeEnd(), sortOrder: 'DESCEND', sortTarget: 'KEY' });
        expect(suffixes(d.kvs)).toEqual([...ordered].reverse());
      });

      it('[key, rangeEnd) and "\\0"-ended ranges count in byte order', async () => {
        const inner = await s.range({ key: p + '\uffff', rangeEnd: rangeEnd(), countOnly: true });
        expect(inner.count).toBe(3);
        const between = await s.range({ key: p + '\udc80', rangeEnd: p + 'ÿ' });
        expect(suffixes(between.kvs)).toEqual(['\udc80', 'é']);
        const fromKey = await s.range({ key: p + '😀', rangeEnd: '\0' });
        expect(suffixes(fromKey.kvs.filter((kv) => kv.key.startsWith(p)))).toEqual(['😀', '\udcff']);
        expect(fromKey.count).toBe(fromKey.kvs.length);
        const deleted = await s.deleteRange({ key: p + 'é', rangeEnd: p + '😀' });
        expect(deleted.deleted).toBe(3);
      });

      it('a prefix range end is computed on bytes (prefixEnd), even where it is no UTF-8 text', async () => {
        await s.put({ key: `${p}ÿ/x`, value: v('1') });
        expect(prefixEnd(`${p}ÿ`)).toBe(`${p}\udcc3\udcc0`);
        const r = await s.range({ key: `${p}ÿ`, rangeEnd: prefixEnd(`${p}ÿ`) });
        expect(suffixes(r.kvs)).toEqual(['ÿ', 'ÿ/x']);
        const q = await s.range({ key: `${p}a\u007f`, rangeEnd: prefixEnd(`${p}a\u007f`) });
        expect(suffixes(q.kvs)).toEqual(['a\u007f']);
      });

      it('a watch on a byte range receives exactly the keys in it', async () => {
        const w = await watch({ key: p + '\uffff', rangeEnd: rangeEnd() });
        for (const k of shuffled) await s.put({ key: p + k, value: v('again') });
        await s.put({ key: `${p}end`, value: v('marker') });
        const all = await watch({ key: p + 'a', rangeEnd: p + 'b', startRevision: base + 1 });
        await all.waitEvents(8);
        await quiet();
        expect(w.events.map((e) => e.kv.key.slice(p.length))).toEqual(['😀', '\udcff', '\uffff']);
        expect(all.events.map((e) => e.kv.key.slice(p.length))).toEqual([
          'a\udc80',
          'a',
          'a\u007f',
          'a\u0000',
          'a\udc80',
          'a',
          'a\u007f',
          'a\u0000',
        ]);
      });

      it('a txn put inside a byte range deleted in the same branch is a duplicate key', async () => {
        await expect(
          s.txn({ success: [del(p + '\uffff', p + '\udcf1'), put(p + '😀', 'x')] }),
        ).rejects.toMatchObject({ message: 'duplicate key given in txn request', code: 3 });
        // outside the range in byte order (though inside it in UTF-16 order): allowed
        const r = await s.txn({ success: [del(p + 'é', p + '\uffff'), put(p + '\udc80', 'x')] });
        expect(r.succeeded).toBe(true);
      });

      it('lease revocation deletes the keys in byte order', async () => {
        const l = await s.leaseGrant(60);
        for (const k of ['😀', 'é', '\uffff', '\udc80'])
          await s.put({ key: `${p}l/${k}`, value: v('x'), lease: l.id });
        expect((await s.leaseTimeToLive(l.id, { keys: true })).keys).toEqual(
          ['\udc80', 'é', '\uffff', '😀'].map((k) => `${p}l/${k}`),
        );
        const w = await watch({ key: `${p}l/`, rangeEnd: prefixEnd(`${p}l/`) });
        await s.leaseRevoke(l.id);
        const evs = await w.waitEvents(4);
        expect(evs.map((e) => e.kv.key.slice(p.length + 2))).toEqual(['\udc80', 'é', '\uffff', '😀']);
      });

      it('a string that names no byte string is rejected with INVALID_ARGUMENT', async () => {
        const bad = [`${p}\ud800`, `${p}\udc00`, `${p}\udcc3\udca9`];
        for (const key of bad) {
          await expect(s.put({ key, value: v('x') }), key).rejects.toMatchObject({
            code: 3,
            message: expect.stringContaining('names no byte string'),
          });
          await expect(s.range({ key }), key).rejects.toMatchObject({ code: 3 });
          await expect(s.range({ key: p, rangeEnd: key }), key).rejects.toMatchObject({ code: 3 });
        }
        await expect(s.txn({ success: [put(`${p}ok`, 'x'), put(`${p}\ud800`, 'y')] })).rejects.toMatchObject({
          code: 3,
        });
        expect((await s.range({ key: `${p}ok` })).count).toBe(0);
        expect(await s.currentRevision()).toBe(base + shuffled.length);
      });
    });

    describe('put options', () => {
      it('prevKv returns the previous pair, none for a new key', async () => {
        const r1 = await s.put({ key: p + 'k', value: v('1'), prevKv: true });
        expect(r1.prevKv).toBeUndefined();
        const r2 = await s.put({ key: p + 'k', value: v('2'), prevKv: true });
        expect(plain(r2.prevKv!)).toEqual({
          key: p + 'k',
          value: '1',
          createRevision: base + 1,
          modRevision: base + 1,
          version: 1,
          lease: 0,
        });
      });

      it('ignoreValue keeps the value, ignoreLease keeps the lease', async () => {
        const l = await s.leaseGrant(60);
        await s.put({ key: p + 'k', value: v('keep'), lease: l.id });
        await s.put({ key: p + 'k', value: new Uint8Array(0), ignoreValue: true, ignoreLease: true });
        const got = (await s.range({ key: p + 'k' })).kvs[0];
        expect(plain(got)).toMatchObject({ value: 'keep', version: 2, lease: l.id });
        await s.put({ key: p + 'k', value: v('new'), ignoreLease: true });
        expect(plain((await s.range({ key: p + 'k' })).kvs[0])).toMatchObject({ value: 'new', lease: l.id });
        await s.leaseRevoke(l.id);
      });

      const errors: {
        name: string;
        req: (p: string) => Parameters<KvStore['put']>[0];
        message: string;
        code: number;
      }[] = [
        {
          name: 'ignoreValue on a missing key',
          req: (p) => ({ key: p + 'missing', value: new Uint8Array(0), ignoreValue: true }),
          message: 'key not found',
          code: 3,
        },
        {
          name: 'ignoreLease on a missing key',
          req: (p) => ({ key: p + 'missing', value: v('x'), ignoreLease: true }),
          message: 'key not found',
          code: 3,
        },
        {
          name: 'ignoreValue with a value',
          req: (p) => ({ key: p + 'k', value: v('x'), ignoreValue: true }),
          message: 'value is provided',
          code: 3,
        },
        {
          name: 'ignoreLease with a lease',
          req: (p) => ({ key: p + 'k', value: v('x'), ignoreLease: true, lease: 12345 }),
          message: 'lease is provided',
          code: 3,
        },
        {
          name: 'unknown lease',
          req: (p) => ({ key: p + 'k', value: v('x'), lease: 0x7ead }),
          message: 'requested lease not found',
          code: 5,
        },
      ];
      for (const e of errors) {
        it(`error: ${e.name}`, async () => {
          await expect(s.put(e.req(p))).rejects.toMatchObject({ message: e.message, code: e.code });
          expect(await s.currentRevision()).toBe(base);
        });
      }
    });

    describe('txn', () => {
      beforeEach(async () => {
        await s.put({ key: p + 'a', value: v('m') }); // base+1
        await s.put({ key: p + 'a', value: v('m') }); // base+2, version 2
        await s.put({ key: p + 'b', value: v('x') }); // base+3
      });
      const cmp = (
        target: Compare['target'],
        result: Compare['result'],
        operand: Partial<Compare>,
        key = 'a',
        end?: string,
      ): Compare => ({ key: p + key, rangeEnd: end, target, result, ...operand });

      const compares: { name: string; c: () => Compare; ok: boolean }[] = [
        { name: 'VALUE EQUAL', c: () => cmp('VALUE', 'EQUAL', { value: v('m') }), ok: true },
        { name: 'VALUE NOT_EQUAL', c: () => cmp('VALUE', 'NOT_EQUAL', { value: v('m') }), ok: false },
        { name: 'VALUE GREATER', c: () => cmp('VALUE', 'GREATER', { value: v('a') }), ok: true },
        { name: 'VALUE LESS', c: () => cmp('VALUE', 'LESS', { value: v('a') }), ok: false },
        { name: 'VERSION EQUAL 2', c: () => cmp('VERSION', 'EQUAL', { version: 2 }), ok: true },
        { name: 'VERSION GREATER 1', c: () => cmp('VERSION', 'GREATER', { version: 1 }), ok: true },
        { name: 'VERSION LESS 2', c: () => cmp('VERSION', 'LESS', { version: 2 }), ok: false },
        { name: 'CREATE EQUAL', c: () => cmp('CREATE', 'EQUAL', { createRevision: base + 1 }), ok: true },
        {
          name: 'CREATE NOT_EQUAL',
          c: () => cmp('CREATE', 'NOT_EQUAL', { createRevision: base + 1 }),
          ok: false,
        },
        { name: 'MOD EQUAL', c: () => cmp('MOD', 'EQUAL', { modRevision: base + 2 }), ok: true },
        { name: 'MOD LESS', c: () => cmp('MOD', 'LESS', { modRevision: base + 3 }), ok: true },
        { name: 'LEASE EQUAL 0', c: () => cmp('LEASE', 'EQUAL', { lease: 0 }), ok: true },
        {
          name: 'missing key: VERSION EQUAL 0',
          c: () => cmp('VERSION', 'EQUAL', { version: 0 }, 'zz'),
          ok: true,
        },
        {
          name: 'missing key: CREATE EQUAL 0',
          c: () => cmp('CREATE', 'EQUAL', { createRevision: 0 }, 'zz'),
          ok: true,
        },
        {
          name: 'missing key: MOD GREATER 0',
          c: () => cmp('MOD', 'GREATER', { modRevision: 0 }, 'zz'),
          ok: false,
        },
        {
          name: 'missing key: VALUE EQUAL ""',
          c: () => cmp('VALUE', 'EQUAL', { value: new Uint8Array(0) }, 'zz'),
          ok: false,
        },
        {
          name: 'missing key: VALUE NOT_EQUAL is still false',
          c: () => cmp('VALUE', 'NOT_EQUAL', { value: v('m') }, 'zz'),
          ok: false,
        },
        {
          name: 'range: every key must match (VERSION GREATER 0)',
          c: () => cmp('VERSION', 'GREATER', { version: 0 }, 'a', p + 'c'),
          ok: true,
        },
        {
          name: 'range: one key fails (VALUE EQUAL m)',
          c: () => cmp('VALUE', 'EQUAL', { value: v('m') }, 'a', p + 'c'),
          ok: false,
        },
        {
          name: 'empty range compares as a zero key',
          c: () => cmp('CREATE', 'EQUAL', { createRevision: 0 }, 'x', p + 'y'),
          ok: true,
        },
      ];
      for (const c of compares) {
        it(`compare ${c.name}`, async () => {
          const r = await s.txn({ compare: [c.c()], success: [get(p + 'a')], failure: [get(p + 'b')] });
          expect(r.succeeded).toBe(c.ok);
          expect(r.header.revision).toBe(base + 3);
          const inner = r.responses[0] as {
            responseRange: { kvs: KeyValue[]; header: { revision: number } };
          };
          expect(inner.responseRange.kvs[0].key).toBe(c.ok ? p + 'a' : p + 'b');
          expect(inner.responseRange.header.revision).toBe(base + 3);
        });
      }

      it('compares are a conjunction', async () => {
        const r = await s.txn({
          compare: [
            cmp('VERSION', 'EQUAL', { version: 2 }),
            cmp('VALUE', 'EQUAL', { value: v('nope') }, 'b'),
          ],
        });
        expect(r.succeeded).toBe(false);
      });

      it('all writes share one revision; later ops see earlier writes; inner revisions', async () => {
        const r = await s.txn({
          compare: [cmp('MOD', 'EQUAL', { modRevision: base + 2 })],
          success: [
            get(p + 'a'),
            put(p + 'c', 'new'),
            get(p + 'c'),
            del(p + 'b'),
            put(p + 'a', 'n2', { prevKv: true }),
            del(p + 'zz'),
          ],
        });
        expect(r.succeeded).toBe(true);
        expect(r.header.revision).toBe(base + 4);
        const revs = r.responses.map((x) => Object.values(x)[0].header.revision);
        expect(revs).toEqual([base + 3, base + 4, base + 4, base + 4, base + 4, base + 4]);
        const seen = (r.responses[2] as { responseRange: { kvs: KeyValue[] } }).responseRange.kvs.map(plain);
        expect(seen).toEqual([
          {
            key: p + 'c',
            value: 'new',
            createRevision: base + 4,
            modRevision: base + 4,
            version: 1,
            lease: 0,
          },
        ]);
        expect(
          (r.responses[3] as { responseDeleteRange: { deleted: number } }).responseDeleteRange.deleted,
        ).toBe(1);
        expect(
          plain((r.responses[4] as { responsePut: { prevKv?: KeyValue } }).responsePut.prevKv!),
        ).toMatchObject({ value: 'm', version: 2 });
        const all = await s.range({ key: p, rangeEnd: rangeEnd() });
        expect(all.kvs.map((kv) => [kv.key.slice(p.length), str(kv.value), kv.modRevision])).toEqual([
          ['a', 'n2', base + 4],
          ['c', 'new', base + 4],
        ]);
      });

      it('a failed txn runs the failure branch; read-only and empty txns do not bump the revision', async () => {
        const f = await s.txn({
          compare: [cmp('VERSION', 'EQUAL', { version: 9 })],
          success: [put(p + 's', '1')],
          failure: [get(p + 'a')],
        });
        expect(f.succeeded).toBe(false);
        expect(f.header.revision).toBe(base + 3);
        const e = await s.txn({});
        expect(e).toEqual({ header: { revision: base + 3 }, succeeded: true, responses: [] });
        const w = await s.txn({
          compare: [cmp('VERSION', 'EQUAL', { version: 9 })],
          failure: [put(p + 'f', '1')],
        });
        expect(w.header.revision).toBe(base + 4);
        expect(
          (w.responses[0] as { responsePut: { header: { revision: number } } }).responsePut.header.revision,
        ).toBe(base + 4);
      });

      it('nested txns: compares see the state before the txn; ops run in order', async () => {
        const r = await s.txn({
          success: [
            put(p + 'n', '1'),
            {
              requestTxn: {
                compare: [cmp('VERSION', 'EQUAL', { version: 0 }, 'n')],
                success: [put(p + 'm', 'inner'), get(p + 'n')],
                failure: [put(p + 'o', 'x')],
              },
            },
          ],
        });
        expect(r.succeeded).toBe(true);
        expect(r.header.revision).toBe(base + 4);
        const nested = (r.responses[1] as { responseTxn: { succeeded: boolean; responses: unknown[] } })
          .responseTxn;
        expect(nested.succeeded).toBe(true);
        const innerGet = (
          nested.responses[1] as { responseRange: { kvs: KeyValue[]; header: { revision: number } } }
        ).responseRange;
        expect(innerGet.kvs.map(plain)).toEqual([
          { key: p + 'n', value: '1', createRevision: base + 4, modRevision: base + 4, version: 1, lease: 0 },
        ]);
        expect(innerGet.header.revision).toBe(base + 4);
        expect((await s.range({ key: p + 'm' })).kvs.map((kv) => str(kv.value))).toEqual(['inner']);
      });

      const dupes: { name: string; txn: () => TxnRequest; message: string }[] = [
        {
          name: 'the same key put twice',
          txn: () => ({ success: [put(p + 'k', '1'), put(p + 'k', '2')] }),
          message: 'duplicate key given in txn request',
        },
        {
          name: 'a put inside a deleted range',
          txn: () => ({ success: [del(p + 'a', p + 'z'), put(p + 'k', '2')] }),
          message: 'duplicate key given in txn request',
        },
        {
          name: 'a put in a nested txn on a key put outside',
          txn: () => ({ success: [put(p + 'k', '1'), { requestTxn: { success: [put(p + 'k', '2')] } }] }),
          message: 'duplicate key given in txn request',
        },
        {
          name: 'the same key twice in the failure branch',
          txn: () => ({ failure: [put(p + 'k', '1'), put(p + 'k', '2')] }),
          message: 'duplicate key given in txn request',
        },
        {
          name: 'more than 128 ops',
          txn: () => ({ success: Array.from({ length: 129 }, (_, i) => put(p + 'k' + i, 'x')) }),
          message: 'too many operations in txn request',
        },
        {
          name: 'more than 128 compares',
          txn: () => ({
            compare: Array.from({ length: 129 }, () => cmp('VERSION', 'GREATER', { version: 0 })),
          }),
          message: 'too many operations in txn request',
        },
      ];
      for (const d of dupes) {
        it(`rejects ${d.name}`, async () => {
          await expect(s.txn(d.txn())).rejects.toMatchObject({ message: d.message, code: 3 });
          expect(await s.currentRevision()).toBe(base + 3);
        });
      }

      it('allows the same key in the success and failure branches, and 128 ops', async () => {
        const r = await s.txn({ success: [put(p + 'k', '1')], failure: [put(p + 'k', '2')] });
        expect(r.succeeded).toBe(true);
        const big = await s.txn({ success: Array.from({ length: 128 }, (_, i) => put(p + 'k' + i, 'x')) });
        expect(big.header.revision).toBe(base + 5);
      });

      it('nested txns get the op budget left by their parent (etcd checkTxnRequest)', async () => {
        // the outer branch holds 101 ops (100 puts + the nested txn): the nested txn may hold 128 - 101 = 27
        const outer = (nested: number): TxnRequest => ({
          success: [
            ...Array.from({ length: 100 }, (_, i) => put(p + 'o' + i, 'x')),
            { requestTxn: { success: Array.from({ length: nested }, (_, i) => put(p + 'n' + i, 'x')) } },
          ],
        });
        await expect(s.txn(outer(28))).rejects.toMatchObject({
          message: 'too many operations in txn request',
          code: 3,
        });
        const ok = await s.txn(outer(27));
        expect(ok.header.revision).toBe(base + 4);
      });

      it('ignoreValue on a key missing before the txn fails the whole txn with key not found', async () => {
        await expect(
          s.txn({
            success: [{ requestPut: { key: p + 'missing', value: new Uint8Array(0), ignoreValue: true } }],
          }),
        ).rejects.toMatchObject({ message: 'key not found', code: 3 });
        const ok = await s.txn({
          success: [{ requestPut: { key: p + 'a', value: new Uint8Array(0), ignoreValue: true } }],
        });
        expect(ok.header.revision).toBe(base + 4);
        expect(plain((await s.range({ key: p + 'a' })).kvs[0])).toMatchObject({ value: 'm', version: 3 });
        expect(await s.currentRevision()).toBe(base + 4);
      });

      it('a put with an unknown lease or a range at a future revision fails the whole txn', async () => {
        await expect(s.txn({ success: [put(p + 'k', '1', { lease: 0x7ead })] })).rejects.toMatchObject({
          message: 'requested lease not found',
        });
        await expect(
          s.txn({ success: [{ requestRange: { key: p + 'a', revision: base + 10 } }] }),
        ).rejects.toMatchObject({ message: 'mvcc: required revision is a future revision' });
        expect(await s.currentRevision()).toBe(base + 3);
      });
    });

    describe('compaction', () => {
      it('errors at or below the compact revision and above the current one', async () => {
        await s.put({ key: p + 'a', value: v('1') });
        await s.put({ key: p + 'a', value: v('2') });
        const c = await s.compact({ revision: base + 1 });
        expect(c.header.revision).toBe(base + 2);
        await expect(s.compact({ revision: base + 1 })).rejects.toMatchObject({
          message: 'mvcc: required revision has been compacted',
          code: 11,
        });
        await expect(s.compact({ revision: base + 3 })).rejects.toMatchObject({
          message: 'mvcc: required revision is a future revision',
          code: 11,
        });
        await s.compact({ revision: base + 2 });
        expect(await s.currentRevision()).toBe(base + 2);
        expect(plain((await s.range({ key: p + 'a', revision: base + 2 })).kvs[0])).toMatchObject({
          value: '2',
          version: 2,
        });
      });
    });

    describe('watch', () => {
      it('delivers puts and deletes from now on, with DELETE events zeroed', async () => {
        await s.put({ key: p + 'a', value: v('old') });
        const w = await watch({ key: p + 'a' });
        expect(w.watcher.createdRevision).toBe(base + 1);
        await s.put({ key: p + 'a', value: v('1') });
        await s.put({ key: p + 'b', value: v('other key') });
        await s.deleteRange({ key: p + 'a' });
        const evs = await w.waitEvents(2);
        expect(evs.map((e) => ({ type: e.type, kv: plain(e.kv), prevKv: e.prevKv }))).toEqual([
          {
            type: 'PUT',
            kv: {
              key: p + 'a',
              value: '1',
              createRevision: base + 1,
              modRevision: base + 2,
              version: 2,
              lease: 0,
            },
            prevKv: undefined,
          },
          {
            type: 'DELETE',
            kv: { key: p + 'a', value: '', createRevision: 0, modRevision: base + 4, version: 0, lease: 0 },
            prevKv: undefined,
          },
        ]);
        await quiet();
        expect(w.events).toHaveLength(2);
      });

      it('replays history from startRevision, then continues live', async () => {
        await s.put({ key: p + 'a', value: v('1') });
        await s.put({ key: p + 'b', value: v('2') });
        await s.put({ key: p + 'a', value: v('3') });
        const w = await watch({ key: p, rangeEnd: rangeEnd(), startRevision: base + 2 });
        await w.waitEvents(2);
        await s.deleteRange({ key: p + 'b' });
        const evs = await w.waitEvents(3);
        expect(evs.map((e) => `${e.type} ${e.kv.key.slice(p.length)}@${e.kv.modRevision - base}`)).toEqual([
          'PUT b@2',
          'PUT a@3',
          'DELETE b@4',
        ]);
        w.assertRevisionsNotSplit();
      });

      it('a startRevision in the future waits for that revision', async () => {
        const w = await watch({ key: p + 'f', startRevision: base + 3 });
        for (let i = 1; i <= 4; i++) await s.put({ key: p + 'f', value: v(String(i)) });
        const evs = await w.waitEvents(2);
        expect(evs.map((e) => e.kv.modRevision - base)).toEqual([3, 4]);
      });

      it('prevKv carries the previous value (not for creations)', async () => {
        const w = await watch({ key: p, rangeEnd: rangeEnd(), prevKv: true });
        await s.put({ key: p + 'a', value: v('1') });
        await s.put({ key: p + 'a', value: v('2') });
        await s.deleteRange({ key: p + 'a' });
        const evs = await w.waitEvents(3);
        expect(evs.map((e) => e.prevKv && str(e.prevKv.value))).toEqual([undefined, '1', '2']);
        expect(plain(evs[2].prevKv!)).toEqual({
          key: p + 'a',
          value: '2',
          createRevision: base + 1,
          modRevision: base + 2,
          version: 2,
          lease: 0,
        });
      });

      it('NOPUT and NODELETE filters', async () => {
        const noPut = await watch({ key: p, rangeEnd: rangeEnd(), filters: ['NOPUT'] });
        const noDel = await watch({ key: p, rangeEnd: rangeEnd(), filters: ['NODELETE'] });
        await s.put({ key: p + 'a', value: v('1') });
        await s.deleteRange({ key: p + 'a' });
        await s.put({ key: p + 'b', value: v('1') });
        await noDel.waitEvents(2);
        await noPut.waitEvents(1);
        await quiet();
        expect(noPut.events.map((e) => e.type + ' ' + e.kv.key.slice(p.length))).toEqual(['DELETE a']);
        expect(noDel.events.map((e) => e.type + ' ' + e.kv.key.slice(p.length))).toEqual(['PUT a', 'PUT b']);
      });

      it('events of one txn arrive in one response, in op order', async () => {
        const w = await watch({ key: p, rangeEnd: rangeEnd() });
        await s.put({ key: p + 'z', value: v('0') });
        await s.txn({ success: [put(p + 'c', '1'), put(p + 'a', '2'), del(p + 'z')] });
        await w.waitEvents(4);
        const resp = w.responses.find((r) => r.events.some((e) => e.kv.key === p + 'c'))!;
        expect(
          resp.events
            .filter((e) => e.kv.modRevision === base + 2)
            .map((e) => e.type + ' ' + e.kv.key.slice(p.length)),
        ).toEqual(['PUT c', 'PUT a', 'DELETE z']);
        w.assertRevisionsNotSplit();
      });

      it('a watch below the compaction point is canceled with compactRevision', async () => {
        await s.put({ key: p + 'a', value: v('1') });
        await s.put({ key: p + 'a', value: v('2') });
        await s.put({ key: p + 'a', value: v('3') });
        await s.compact({ revision: base + 2 });
        const w = await watch({ key: p + 'a', startRevision: base + 1 });
        await w.waitFor((l) => l.responses.some((r) => r.canceled), 'cancellation');
        const c = w.responses.find((r) => r.canceled)!;
        expect(c.compactRevision).toBe(base + 2);
        expect(w.events).toEqual([]);
        // at the compact revision itself the watch is served
        const ok = await watch({ key: p + 'a', startRevision: base + 2 });
        const evs = await ok.waitEvents(2);
        expect(evs.map((e) => str(e.kv.value))).toEqual(['2', '3']);
        expect(ok.responses.some((r) => r.canceled)).toBe(false);
      });

      // etcd's TestWatcherWatchWrongRange (server/storage/mvcc/watcher_test.go): key == end and
      // key > end are ErrEmptyWatcherRange; a from-key watch ("\0" end) is a live watch
      it('a watch over an empty range (rangeEnd <= key in byte order) is created and canceled at once', async () => {
        const cases = [
          { key: p + 'foa', rangeEnd: p + 'foa' },
          { key: p + 'fob', rangeEnd: p + 'foa' },
          { key: p + 'a', rangeEnd: p + 'a' },
          { key: p + 'b', rangeEnd: p + 'a' },
          { key: p + '😀', rangeEnd: p + '\uffff' },
        ];
        for (const req of cases) {
          const w = await watch(req);
          await w.waitFor((l) => l.responses.length > 0, 'the cancel response');
          expect(w.watcher.createdRevision).toBe(base);
          expect(w.responses).toEqual([
            {
              header: { revision: base },
              watchId: w.watcher.watchId,
              events: [],
              created: true,
              canceled: true,
              cancelReason: 'mvcc: watcher range is empty',
            },
          ]);
        }
        // a from-key watch ("\0" end, clientv3 WithFromKey) is not an empty range
        const fromKey = await watch({ key: p + 'z', rangeEnd: '\0' });
        await s.put({ key: p + 'zz', value: v('0') });
        expect((await fromKey.waitEvents(1)).map((e) => e.kv.key)).toEqual([p + 'zz']);
        expect(fromKey.responses.every((r) => !r.canceled && !r.created)).toBe(true);
        // not empty in byte order, though it is in UTF-16 order
        const open = await watch({ key: p + '\uffff', rangeEnd: p + '😀' });
        await s.put({ key: p + 'a', value: v('1') });
        await s.put({ key: p + '\uffff', value: v('2') });
        expect((await open.waitEvents(1)).map((e) => e.kv.key)).toEqual([p + '\uffff']);
        await quiet();
        expect(open.responses.every((r) => !r.canceled)).toBe(true);
      });

      it('cancel stops delivery', async () => {
        const w = await watch({ key: p + 'a' });
        await s.put({ key: p + 'a', value: v('1') });
        await w.waitEvents(1);
        await w.watcher.cancel();
        await s.put({ key: p + 'a', value: v('2') });
        await quiet();
        expect(w.events).toHaveLength(1);
      });

      it('requestProgress answers with the current revision and no events', async () => {
        const w = await watch({ key: p + 'a' });
        await s.put({ key: p + 'other', value: v('1') });
        w.watcher.requestProgress();
        await w.waitFor(
          (l) => l.responses.some((r) => r.events.length === 0 && r.header.revision >= base + 1),
          'progress',
        );
        expect(w.events).toEqual([]);
      });

      it('many watchers on one prefix each receive every event in order', async () => {
        const ws = await Promise.all(
          Array.from({ length: 20 }, () => watch({ key: p, rangeEnd: rangeEnd() })),
        );
        for (let i = 0; i < 30; i++) await s.put({ key: p + (i % 3), value: v(String(i)) });
        for (const w of ws) {
          const evs = await w.waitEvents(30);
          expect(evs.map((e) => e.kv.modRevision)).toEqual(
            Array.from({ length: 30 }, (_, i) => base + 1 + i),
          );
        }
      });
    });

    describe('leases', () => {
      it('grant clamps the TTL up to the minimum and rejects too large TTLs', async () => {
        const l = await s.leaseGrant(1);
        expect(l.ttl).toBe(2);
        expect(l.id).not.toBe(0);
        const l2 = await s.leaseGrant(30);
        expect(l2.ttl).toBe(30);
        await expect(s.leaseGrant(9_000_000_001)).rejects.toMatchObject({
          message: 'too large lease TTL',
          code: 11,
        });
        expect(await s.currentRevision()).toBe(base);
        await s.leaseRevoke(l.id);
        await s.leaseRevoke(l2.id);
      });

      it('revoke deletes the attached keys in one revision, in key order', async () => {
        const l = await s.leaseGrant(60);
        for (const k of ['c', 'a', 'b']) await s.put({ key: p + k, value: v(k), lease: l.id });
        await s.put({ key: p + 'free', value: v('x') });
        const ttl = await s.leaseTimeToLive(l.id, { keys: true });
        expect(ttl.keys).toEqual([p + 'a', p + 'b', p + 'c']);
        expect(ttl.grantedTtl).toBe(60);
        expect(ttl.ttl).toBeGreaterThan(50);
        const w = await watch({ key: p, rangeEnd: rangeEnd() });
        const r = await s.leaseRevoke(l.id);
        expect(r.header.revision).toBe(base + 5);
        const evs = await w.waitEvents(3);
        expect(evs.map((e) => `${e.type} ${e.kv.key.slice(p.length)}@${e.kv.modRevision - base}`)).toEqual([
          'DELETE a@5',
          'DELETE b@5',
          'DELETE c@5',
        ]);
        expect((await s.range({ key: p, rangeEnd: rangeEnd() })).kvs.map((kv) => kv.key)).toEqual([
          p + 'free',
        ]);
        await expect(s.leaseRevoke(l.id)).rejects.toMatchObject({
          message: 'requested lease not found',
          code: 5,
        });
      });

      it('revoking a lease without keys creates no revision', async () => {
        const l = await s.leaseGrant(60);
        const r = await s.leaseRevoke(l.id);
        expect(r.header.revision).toBe(base);
      });

      it('keepAlive and timeToLive of an unknown lease', async () => {
        const l = await s.leaseGrant(60);
        await s.leaseRevoke(l.id);
        expect((await s.leaseKeepAlive(l.id)).ttl).toBe(0);
        const t = await s.leaseTimeToLive(l.id, { keys: true });
        expect(t.ttl).toBe(-1);
        expect(t.keys).toEqual([]);
      });

      it('a put without lease detaches, a put with another lease moves, a delete detaches', async () => {
        const l1 = await s.leaseGrant(60);
        const l2 = await s.leaseGrant(60);
        await s.put({ key: p + 'a', value: v('1'), lease: l1.id });
        await s.put({ key: p + 'b', value: v('1'), lease: l1.id });
        await s.put({ key: p + 'c', value: v('1'), lease: l1.id });
        await s.put({ key: p + 'a', value: v('2') });
        await s.put({ key: p + 'b', value: v('2'), lease: l2.id });
        await s.deleteRange({ key: p + 'c' });
        expect((await s.leaseTimeToLive(l1.id, { keys: true })).keys).toEqual([]);
        expect((await s.leaseTimeToLive(l2.id, { keys: true })).keys).toEqual([p + 'b']);
        expect((await s.range({ key: p + 'a' })).kvs[0].lease).toBe(0);
        const rev = await s.currentRevision();
        await s.leaseRevoke(l1.id);
        expect(await s.currentRevision()).toBe(rev);
        await s.leaseRevoke(l2.id);
        expect((await s.range({ key: p, rangeEnd: rangeEnd() })).kvs.map((kv) => kv.key)).toEqual([p + 'a']);
      });

      it('txn compare on LEASE', async () => {
        const l = await s.leaseGrant(60);
        await s.put({ key: p + 'a', value: v('1'), lease: l.id });
        const ok = await s.txn({
          compare: [{ key: p + 'a', target: 'LEASE', result: 'EQUAL', lease: l.id }],
        });
        expect(ok.succeeded).toBe(true);
        const no = await s.txn({ compare: [{ key: p + 'a', target: 'LEASE', result: 'EQUAL', lease: 0 }] });
        expect(no.succeeded).toBe(false);
        await s.leaseRevoke(l.id);
      });

      it('expiry deletes the keys; keepAlive postpones it', async () => {
        if (!fx.advanceLeaseTime) return;
        const k = fx.leaseScale ?? 1;
        const short = await s.leaseGrant(2 * k);
        const kept = await s.leaseGrant(3 * k);
        await s.put({ key: p + 'short/1', value: v('1'), lease: short.id });
        await s.put({ key: p + 'short/0', value: v('1'), lease: short.id });
        await s.put({ key: p + 'kept', value: v('1'), lease: kept.id });
        await fx.advanceLeaseTime(1500 * k);
        // without it, `kept` would expire at 3 s (× k) too
        expect((await s.leaseKeepAlive(kept.id)).ttl).toBe(3 * k);
        await fx.advanceLeaseTime(1500 * k);
        // a hang guard, not the check: etcd's expiry loop runs late on a loaded machine
        const deadline = Date.now() + 60_000;
        while (
          (await s.range({ key: p + 'short/', rangeEnd: p + 'short0', countOnly: true })).count > 0 &&
          Date.now() < deadline
        )
          await quiet(50);
        expect((await s.range({ key: p, rangeEnd: rangeEnd() })).kvs.map((kv) => kv.key)).toEqual([
          p + 'kept',
        ]);
        expect((await s.leaseTimeToLive(short.id)).ttl).toBe(-1);
        const after = await s.range({ key: p + 'kept' });
        expect(after.header.revision).toBe(base + 4);
        await s.leaseRevoke(kept.id);
      });
    });
  });
}

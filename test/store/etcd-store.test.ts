/**
 * EtcdStore specifics against a real etcd: field mapping, error mapping, lease-ID aliasing,
 * namespacing, watch delivery/progress/compaction cancel, keep-alive. The generic KvStore
 * behaviour is covered by the shared conformance suite (etcd.test.ts) and the golden traces.
 */
import { describe, expect, it } from 'vitest';
import { EtcdStore } from '../../src/store/etcd/etcd-store.js';
import { StoreError, type WatchResponse } from '../../src/store/types.js';
import { describeEtcd } from '../helpers/etcd.js';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

function collector() {
  const got: WatchResponse[] = [];
  const waiters: Array<() => void> = [];
  return {
    got,
    on: (r: WatchResponse) => {
      got.push(r);
      for (const w of waiters.splice(0)) w();
    },
    async until(pred: (all: WatchResponse[]) => boolean, ms = 5000) {
      const end = Date.now() + ms;
      while (!pred(got)) {
        if (Date.now() > end) throw new Error('watch: condition not met; got ' + JSON.stringify(got));
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 50);
        });
      }
    },
  };
}

describe('EtcdStore options', () => {
  it('are validated eagerly with the field in the message', () => {
    expect(() => new EtcdStore({} as never)).toThrow(/options.endpoints must be a URL string/);
    expect(() => new EtcdStore({ endpoints: 'http://127.0.0.1:1', prefix: 3 as never })).toThrow(
      /options.prefix must be a string, got number/,
    );
    expect(() => new EtcdStore({ endpoints: 'http://127.0.0.1:1', callTimeoutMs: -1 })).toThrow(
      /options.callTimeoutMs must be a number >= 0, got -1/,
    );
  });
});

describeEtcd('EtcdStore on a real etcd', (etcd) => {
  it('maps put/range/delete fields exactly (numbers, Uint8Array values, prevKv)', async () => {
    const s = etcd.store('t1/');
    const p1 = await s.put({ key: 'a', value: enc('1') });
    expect(p1.prevKv).toBeUndefined();
    const p2 = await s.put({ key: 'a', value: enc('2'), prevKv: true });
    expect(p2.header.revision).toBe(p1.header.revision + 1);
    expect(p2.prevKv).toEqual({
      key: 'a',
      value: enc('1'),
      createRevision: p1.header.revision,
      modRevision: p1.header.revision,
      version: 1,
      lease: 0,
    });
    const r = await s.range({ key: 'a' });
    expect(r.count).toBe(1);
    expect(r.more).toBe(false);
    expect(r.kvs[0]!.value).toBeInstanceOf(Uint8Array);
    expect(dec(r.kvs[0]!.value)).toBe('2');
    expect(r.kvs[0]).toMatchObject({
      key: 'a',
      version: 2,
      createRevision: p1.header.revision,
      modRevision: p2.header.revision,
    });
    const d = await s.deleteRange({ key: 'a', prevKv: true });
    expect(d.deleted).toBe(1);
    expect(d.prevKvs.map((kv) => kv.key)).toEqual(['a']);
    expect(d.header.revision).toBe(p2.header.revision + 1);
    expect(await s.currentRevision()).toBe(d.header.revision);
  });

  it('keeps every key inside its prefix, including "\\0" ranges', async () => {
    const a = etcd.store('ns-a/');
    const b = etcd.store('ns-b/');
    await a.put({ key: 'x', value: enc('a') });
    await b.put({ key: 'x', value: enc('b') });
    await b.put({ key: 'y', value: enc('b') });
    const all = await a.range({ key: '\0', rangeEnd: '\0' });
    expect(all.kvs.map((kv) => [kv.key, dec(kv.value)])).toEqual([['x', 'a']]);
    const fromX = await b.range({ key: 'x', rangeEnd: '\0' });
    expect(fromX.kvs.map((kv) => kv.key)).toEqual(['x', 'y']);
  });

  it('maps gRPC errors to StoreError with etcd text and code', async () => {
    const s = etcd.store('t2/');
    const rev = await s.currentRevision();
    await expect(s.range({ key: 'a', revision: rev + 100 })).rejects.toMatchObject({
      name: 'StoreError',
      code: 11,
      message: 'mvcc: required revision is a future revision',
    });
    await expect(s.put({ key: 'a', value: enc('v'), lease: 12345 })).rejects.toMatchObject({
      code: 5,
      message: 'requested lease not found',
    });
    await expect(
      s.txn({
        success: [
          { requestPut: { key: 'k', value: enc('1') } },
          { requestPut: { key: 'k', value: enc('2') } },
        ],
      }),
    ).rejects.toMatchObject({ code: 3, message: 'duplicate key given in txn request' });
    await expect(
      s.put({ key: 'missing', value: new Uint8Array(0), ignoreValue: true }),
    ).rejects.toMatchObject({ code: 3, message: 'key not found' });
    const err = await s.range({ key: 'a', revision: rev + 100 }).catch((e) => e);
    expect(err).toBeInstanceOf(StoreError);
  });

  it('aliases 64-bit lease IDs to safe numbers and round-trips them', async () => {
    const s = etcd.store('t3/');
    const g = await s.leaseGrant(60);
    expect(Number.isSafeInteger(g.id)).toBe(true);
    expect(g.ttl).toBe(60);
    await s.put({ key: 'l', value: enc('v'), lease: g.id });
    const r = await s.range({ key: 'l' });
    expect(r.kvs[0]!.lease).toBe(g.id);
    const ka = await s.leaseKeepAlive(g.id);
    expect(ka).toMatchObject({ id: g.id, ttl: 60 });
    const ttl = await s.leaseTimeToLive(g.id, { keys: true });
    expect(ttl.grantedTtl).toBe(60);
    expect(ttl.ttl).toBeGreaterThan(50);
    expect(ttl.keys).toEqual(['l']);
    const explicit = await s.leaseGrant(1, 4242);
    expect(explicit).toMatchObject({ id: 4242, ttl: 2 }); // clamped to the minimum TTL
    await s.leaseRevoke(g.id);
    expect((await s.range({ key: 'l' })).count).toBe(0);
    expect((await s.leaseKeepAlive(g.id)).ttl).toBe(0);
    expect((await s.leaseTimeToLive(g.id)).ttl).toBe(-1);
    await expect(s.leaseRevoke(g.id)).rejects.toMatchObject({
      code: 5,
      message: 'requested lease not found',
    });
  });

  it('delivers watch events per revision with prevKv, progress on request, and stops after cancel', async () => {
    const s = etcd.store('t4/');
    const c = collector();
    const w = await s.watch({ key: 'w/', rangeEnd: 'w0', prevKv: true }, c.on);
    expect(w.createdRevision).toBe(await s.currentRevision());
    await s.put({ key: 'w/a', value: enc('1') });
    await s.txn({
      success: [
        { requestPut: { key: 'w/a', value: enc('2') } },
        { requestPut: { key: 'w/b', value: enc('3') } },
      ],
    });
    const del = await s.deleteRange({ key: 'w/', rangeEnd: 'w0' });
    await c.until((g) => g.some((r) => r.events.some((e) => e.type === 'DELETE' && e.kv.key === 'w/b')));
    const events = c.got.flatMap((r) => r.events);
    expect(
      events.map((e) => [e.type, e.kv.key, e.kv.modRevision, e.prevKv ? dec(e.prevKv.value) : null]),
    ).toEqual([
      ['PUT', 'w/a', del.header.revision - 2, null],
      ['PUT', 'w/a', del.header.revision - 1, '1'],
      ['PUT', 'w/b', del.header.revision - 1, null],
      ['DELETE', 'w/a', del.header.revision, '2'],
      ['DELETE', 'w/b', del.header.revision, '3'],
    ]);
    for (const r of c.got) expect(new Set(r.events.map((e) => e.kv.modRevision)).size).toBe(1);
    w.requestProgress();
    await c.until((g) => g.some((r) => r.progress));
    expect(c.got.find((r) => r.progress)!.header.revision).toBe(del.header.revision);
    await w.cancel();
    const n = c.got.length;
    await s.put({ key: 'w/c', value: enc('x') });
    await new Promise((r) => setTimeout(r, 200));
    expect(c.got.length).toBe(n);
  });

  it('cancels a watch below the compact revision with compactRevision', async () => {
    const s = etcd.store('t5/');
    const p = await s.put({ key: 'c', value: enc('1') });
    await s.put({ key: 'c', value: enc('2') });
    const rev = await s.currentRevision();
    await s.compact({ revision: rev, physical: true });
    const c = collector();
    await s.watch({ key: 'c', startRevision: p.header.revision }, c.on);
    await c.until((g) => g.some((r) => r.canceled));
    // etcd 3.4 sends this cancellation with an empty header (revision 0): the mvcc layer's compacted
    // WatchResponse carries no revision.
    expect(c.got).toEqual([
      {
        header: { revision: 0 },
        watchId: expect.any(Number),
        events: [],
        canceled: true,
        compactRevision: rev,
      },
    ]);
    await expect(s.range({ key: 'c', revision: p.header.revision })).rejects.toMatchObject({
      code: 11,
      message: 'mvcc: required revision has been compacted',
    });
  });

  it('joins the fragments of a fragmented watch response (fragment: true) into one delivery', async () => {
    const s = etcd.store('t6/');
    const big = new Uint8Array(700 * 1024).fill(65);
    const first = await s.put({ key: 'f/1', value: big });
    await s.put({ key: 'f/2', value: big });
    await s.put({ key: 'f/3', value: big });
    const c = collector();
    // a catching-up watcher gets the three revisions (2.1 MB) in one response, above etcd's
    // 1.5 MiB request limit, so etcd splits it into fragments
    await s.watch({ key: 'f/', rangeEnd: 'f0', startRevision: first.header.revision, fragment: true }, c.on);
    await c.until((g) => g.flatMap((r) => r.events).length === 3);
    expect(c.got.flatMap((r) => r.events).map((e) => [e.kv.key, e.kv.value.length])).toEqual([
      ['f/1', big.length],
      ['f/2', big.length],
      ['f/3', big.length],
    ]);
    for (const r of c.got) expect(r.events.length).toBeGreaterThan(0);
  });

  it('sends periodic progress notifications to a progressNotify watcher (1 s in tests)', async () => {
    const s = etcd.store('t7/');
    const c = collector();
    await s.watch({ key: 'idle', progressNotify: true }, c.on);
    await c.until((g) => g.some((r) => r.progress), 5000);
    expect(c.got[0]).toEqual({
      header: { revision: await s.currentRevision() },
      watchId: expect.any(Number),
      events: [],
      progress: true,
    });
  });

  it("creates and immediately cancels a watch over an empty range, with etcd's reason", async () => {
    const s = etcd.store('t8/');
    const c = collector();
    const w = await s.watch({ key: 'b', rangeEnd: 'a' }, c.on);
    await c.until((g) => g.length > 0);
    expect(c.got).toEqual([
      {
        header: { revision: w.createdRevision },
        watchId: w.watchId,
        events: [],
        created: true,
        canceled: true,
        cancelReason: 'mvcc: watcher range is empty',
      },
    ]);
  });

  it('rejects calls after close()', async () => {
    const s = etcd.store('t9/');
    await s.close();
    await expect(s.range({ key: 'a' })).rejects.toMatchObject({
      name: 'StoreError',
      message: 'store is closed',
    });
  });

  it('reports a dying etcd as a canceled watch and UNAVAILABLE errors, without crashing', async () => {
    const { server, store } = await etcd.fresh();
    const c = collector();
    await store.watch({ key: 'x' }, c.on);
    await server.stop();
    await c.until((g) => g.some((r) => r.canceled), 10_000);
    expect(c.got.at(-1)).toMatchObject({ canceled: true, events: [] });
    const err = await store.range({ key: 'x' }).catch((e) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err.code).toBe(14); // UNAVAILABLE
    await store.close();
  });

  it('close() while a watch is being created rejects that watch() instead of hanging', async () => {
    const s = etcd.store('t10/');
    const pending = s.watch({ key: 'a' }, () => undefined);
    const closing = s.close();
    const outcome = await pending.then(
      () => 'created',
      (e) => e,
    );
    await closing;
    // either etcd confirmed the watch first (then close() canceled it) or the watch was aborted
    if (outcome !== 'created') expect(outcome).toMatchObject({ name: 'StoreError' });
  });
});

/**
 * MemoryStore behaviour the shared conformance suite cannot pin down on a real etcd: delivery
 * timing and batching, re-entrant callbacks, the virtual clock (lease expiry, periodic progress
 * notifications), compaction of the in-memory structures, and a seeded differential test against
 * a naive copy-every-revision model.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/util/clock.js';
import { Rng } from '../../src/util/rng.js';
import { MemoryStore } from '../../src/store/memory/store.js';
import { MAX_REVISIONS_PER_BATCH } from '../../src/store/memory/watch-hub.js';
import type { KeyValue, WatchResponse, RangeRequest } from '../../src/store/types.js';
import { str, v } from './conformance.js';

const collect = () => {
  const responses: WatchResponse[] = [];
  return {
    responses,
    cb: (r: WatchResponse) => {
      responses.push(r);
    },
    events: () => responses.flatMap((r) => r.events),
  };
};

describe('MemoryStore watch delivery', () => {
  it('never calls back inside put; delivers before the next await continues', async () => {
    const s = new MemoryStore();
    const c = collect();
    s.watchSync({ key: 'a' }, c.cb);
    s.putSync({ key: 'a', value: v('1') });
    expect(c.responses).toHaveLength(0);
    await s.put({ key: 'a', value: v('2') });
    expect(c.events().map((e) => str(e.kv.value))).toEqual(['1', '2']);
  });

  it(`catches up from history in batches of at most ${MAX_REVISIONS_PER_BATCH} revisions, then goes live`, async () => {
    const s = new MemoryStore();
    for (let i = 0; i < 2500; i++) s.putSync({ key: `k${i % 7}`, value: v(String(i)) });
    s.txnSync({
      success: Array.from({ length: 50 }, (_, i) => ({ requestPut: { key: `t${i}`, value: v('x') } })),
    }); // rev 2502
    const c = collect();
    s.watchSync({ key: 'k', rangeEnd: 'u', startRevision: 1 }, c.cb);
    await s.settle();
    s.putSync({ key: 'k0', value: v('live') });
    await s.settle();
    const revs = c.events().map((e) => e.kv.modRevision);
    expect(revs.length).toBe(2500 + 50 + 1);
    expect(revs.slice(0, 2500)).toEqual(Array.from({ length: 2500 }, (_, i) => i + 2));
    expect(c.responses.length).toBeGreaterThanOrEqual(4);
    for (const r of c.responses) {
      expect(new Set(r.events.map((e) => e.kv.modRevision)).size).toBeLessThanOrEqual(
        MAX_REVISIONS_PER_BATCH,
      );
    }
    // the 50 events of the txn revision arrive in one response, in op order
    const txnResp = c.responses.filter((r) => r.events.some((e) => e.kv.modRevision === 2502));
    expect(txnResp).toHaveLength(1);
    expect(txnResp[0].events.filter((e) => e.kv.modRevision === 2502).map((e) => e.kv.key)).toEqual(
      Array.from({ length: 50 }, (_, i) => `t${i}`),
    );
    expect(str(c.events().at(-1)!.kv.value)).toBe('live');
  });

  it('a callback that writes: nothing lost, nothing duplicated, order kept', async () => {
    const s = new MemoryStore();
    const seen: string[] = [];
    s.watchSync({ key: 'q/', rangeEnd: 'q0' }, (r) => {
      for (const e of r.events) {
        seen.push(str(e.kv.value));
        const n = Number(str(e.kv.value));
        if (n < 20) s.putSync({ key: `q/${n % 3}`, value: v(String(n + 1)) });
      }
    });
    s.putSync({ key: 'q/0', value: v('0') });
    await s.settle();
    expect(seen).toEqual(Array.from({ length: 21 }, (_, i) => String(i)));
  });

  it('a callback that writes while its watcher is still catching up', async () => {
    const s = new MemoryStore();
    for (let i = 0; i < 2100; i++) s.putSync({ key: 'h', value: v(String(i)) });
    const revs: number[] = [];
    let wrote = false;
    s.watchSync({ key: 'h', startRevision: 2 }, (r) => {
      for (const e of r.events) revs.push(e.kv.modRevision);
      if (!wrote) {
        wrote = true;
        s.putSync({ key: 'h', value: v('from-callback') });
      }
    });
    await s.settle();
    expect(revs).toEqual(Array.from({ length: 2101 }, (_, i) => i + 2));
  });

  it("cancel inside another watcher's callback stops delivery at once", async () => {
    const s = new MemoryStore();
    const b = collect();
    const wb = s.watchSync({ key: 'x' }, b.cb);
    s.watchSync({ key: 'x' }, () => {
      void wb.cancel();
    });
    // registration order: wb first, so it gets revision 2; its cancellation then blocks revision 3
    s.putSync({ key: 'x', value: v('1') });
    await s.settle();
    s.putSync({ key: 'x', value: v('2') });
    await s.settle();
    expect(b.events().map((e) => str(e.kv.value))).toEqual(['1']);
  });

  it('a future startRevision waits for that revision', async () => {
    const s = new MemoryStore();
    const c = collect();
    s.watchSync({ key: 'f', startRevision: 4 }, c.cb);
    for (let i = 0; i < 4; i++) s.putSync({ key: 'f', value: v(String(i)) });
    await s.settle();
    expect(c.events().map((e) => e.kv.modRevision)).toEqual([4, 5]);
  });

  it('periodic progress notifications on the Clock, only when no events were sent in the interval', async () => {
    const clock = new ManualClock();
    const s = new MemoryStore({ clock, progressNotifyIntervalMs: 1000 });
    const p = collect(),
      plain = collect();
    s.watchSync({ key: 'p', progressNotify: true }, p.cb);
    s.watchSync({ key: 'p' }, plain.cb);
    clock.advance(1000);
    await s.settle();
    expect(p.responses.map((r) => [r.progress, r.header.revision])).toEqual([[true, 1]]);
    s.putSync({ key: 'p', value: v('1') });
    clock.advance(1000); // events went out in this interval: no progress
    await s.settle();
    expect(p.responses.filter((r) => r.progress)).toHaveLength(1);
    s.putSync({ key: 'other', value: v('1') });
    clock.advance(1000);
    await s.settle();
    expect(p.responses.filter((r) => r.progress).map((r) => r.header.revision)).toEqual([1, 3]);
    expect(plain.responses.filter((r) => r.progress)).toEqual([]);
  });

  it('no progress timer is left armed without progressNotify watchers', async () => {
    const clock = new ManualClock();
    const s = new MemoryStore({ clock, progressNotifyIntervalMs: 1000 });
    const w = s.watchSync({ key: 'p', progressNotify: true }, () => {});
    expect(clock.pending).toBe(1);
    await w.cancel();
    clock.advance(1000);
    expect(clock.pending).toBe(0);
  });
});

describe('MemoryStore leases on a virtual clock', () => {
  it('expires exactly at the TTL, in one revision, and keepAlive postpones', async () => {
    const clock = new ManualClock();
    const s = new MemoryStore({ clock });
    const l = s.leaseGrantSync(5);
    s.putSync({ key: 'b', value: v('1'), lease: l.id });
    s.putSync({ key: 'a', value: v('1'), lease: l.id });
    clock.advance(3000);
    expect(s.leaseTimeToLiveSync(l.id).ttl).toBe(2);
    clock.advance(1999);
    expect(s.leaseTimeToLiveSync(l.id).ttl).toBe(0);
    expect(s.leaseKeepAliveSync(l.id).ttl).toBe(5);
    clock.advance(4999);
    expect(s.revision).toBe(3);
    clock.advance(1);
    expect(s.revision).toBe(4);
    expect(s.rangeSync({ key: 'a', rangeEnd: '\0' }).count).toBe(0);
    expect(s.leaseTimeToLiveSync(l.id).ttl).toBe(-1);
    expect(clock.pending).toBe(0);
  });

  it('a TTL beyond the Node timer limit does not fire early', () => {
    const clock = new ManualClock();
    const s = new MemoryStore({ clock });
    const l = s.leaseGrantSync(9_000_000_000);
    s.putSync({ key: 'k', value: v('1'), lease: l.id });
    clock.advance(2 ** 31 + 5);
    expect(s.get('k')).toBeDefined();
    expect(s.leaseTimeToLiveSync(l.id).ttl).toBe(9_000_000_000 - Math.trunc((2 ** 31 + 5) / 1000) - 1);
  });

  it("granting an ID that exists fails with etcd's text", () => {
    const s = new MemoryStore({ clock: new ManualClock() });
    s.leaseGrantSync(10, 42);
    expect(() => s.leaseGrantSync(10, 42)).toThrow('lease already exists');
  });
});

describe('MemoryStore compaction', () => {
  it('drops deleted keys and old history from the index, keeps what a read at the compact revision needs', async () => {
    const s = new MemoryStore();
    for (let i = 0; i < 10; i++) s.putSync({ key: `k${i}`, value: v('a') }); // revs 2..11
    for (let i = 0; i < 5; i++) s.deleteRangeSync({ key: `k${i}` }); // revs 12..16
    s.putSync({ key: 'k9', value: v('b') }); // 17
    expect(s.indexSize).toBe(10);
    s.compactSync({ revision: 16 });
    expect(s.indexSize).toBe(5);
    expect(s.rangeSync({ key: 'k', rangeEnd: 'l', revision: 16 }).kvs.map((kv) => kv.key)).toEqual([
      'k5',
      'k6',
      'k7',
      'k8',
      'k9',
    ]);
    expect(str(s.rangeSync({ key: 'k9', revision: 16 }).kvs[0].value)).toBe('a');
    expect(() => s.rangeSync({ key: 'k9', revision: 15 })).toThrow(
      'mvcc: required revision has been compacted',
    );
    expect(s.logKv.map((kv) => kv.modRevision)).toEqual([17]); // the tombstone at 16 is gone
    const c = collect();
    s.watchSync({ key: 'k', rangeEnd: 'l', startRevision: 16, prevKv: true }, c.cb);
    await s.settle();
    expect(c.events().map((e) => [e.type, e.kv.key, e.prevKv && str(e.prevKv.value)])).toEqual([
      ['PUT', 'k9', 'a'],
    ]);
  });
});

// ───────────────────────── differential test against a naive model ─────────────────────────

/** Every revision's full key→record map, copied on each write: obviously right, hopelessly slow. */
class NaiveMvcc {
  snaps: Map<string, KeyValue>[] = [new Map(), new Map()]; // index = revision (1 = empty)
  compacted = 0;
  get rev() {
    return this.snaps.length - 1;
  }
  cur() {
    return this.snaps[this.rev];
  }
  write(ops: ({ put: string; value: string } | { del: string; end?: string })[]): void {
    const next = new Map(this.cur());
    const rev = this.rev + 1;
    let changed = false;
    for (const op of ops) {
      if ('put' in op) {
        const prev = next.get(op.put);
        next.set(op.put, {
          key: op.put,
          value: v(op.value),
          createRevision: prev?.createRevision ?? rev,
          modRevision: rev,
          version: (prev?.version ?? 0) + 1,
          lease: 0,
        });
        changed = true;
      } else {
        for (const k of [...next.keys()].sort()) {
          if (op.end === undefined ? k === op.del : k >= op.del && k < op.end) {
            next.delete(k);
            changed = true;
          }
        }
      }
    }
    if (changed) this.snaps.push(next);
  }
  range(key: string, end: string | undefined, rev: number): KeyValue[] {
    const snap = this.snaps[rev > 0 ? rev : this.rev];
    return [...snap.values()]
      .filter((kv) => (end === undefined ? kv.key === key : kv.key >= key && kv.key < end))
      .sort((a, b) => (a.key < b.key ? -1 : 1));
  }
}

/** a random string over a small alphabet (so that edges of an edit often match by chance) */
const randomText = (rng: Rng, n: number): string =>
  Array.from({ length: n }, () => 'abc{}:"'[rng.int(7)]).join('');

/**
 * The next value of a key: a short number, or (long) an edit of the key's current value — an
 * insertion, deletion or replacement somewhere in it, or now and then a new value — so that most
 * later revisions share a prefix and a suffix with the one before and are stored as deltas
 * (records.ts), at every depth of the delta chain and across compactions; a key's first value is
 * often an edit of the value written last, under another key (a delta from that key's record).
 */
const valueKinds: [string, (rng: Rng, prev: string | undefined, other: string | undefined) => string][] = [
  ['short values', (rng) => String(rng.int(5))],
  [
    'long values stored as deltas',
    (rng, prev, other) => {
      // a key's first value: often an edit of the value written last (under another key)
      if (prev === undefined && other !== undefined && other.length >= 40 && rng.int(2) === 0) prev = other;
      if (prev === undefined || prev.length < 40 || rng.int(12) === 0)
        return randomText(rng, 40 + rng.int(400));
      const at = rng.int(prev.length);
      const cut = rng.int(Math.min(24, prev.length - at) + 1);
      return prev.slice(0, at) + randomText(rng, rng.int(24)) + prev.slice(at + cut);
    },
  ],
];

describe.each(valueKinds)('MemoryStore vs a naive MVCC model (seeded random ops, %s)', (_kind, nextValue) => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`seed ${seed}`, async () => {
      const rng = new Rng(seed);
      const s = new MemoryStore();
      const m = new NaiveMvcc();
      const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
      const key = () => keys[rng.int(keys.length)];
      const events: KeyValue[] = [];
      s.watchSync({ key: 'a', rangeEnd: 'z' }, (r) => {
        for (const e of r.events) {
          events.push(e.kv);
          // every PUT event carries the value as of its revision
          if (e.type === 'PUT')
            expect(str(e.kv.value)).toBe(str(m.snaps[e.kv.modRevision].get(e.kv.key)!.value));
        }
      });
      for (let step = 0; step < 600; step++) {
        const roll = rng.int(100);
        if (roll < 45) {
          const k = key();
          const cur = m.cur().get(k);
          let last: KeyValue | undefined;
          for (const kv of m.cur().values()) if (!last || kv.modRevision > last.modRevision) last = kv;
          const val = nextValue(rng, cur && str(cur.value), last && str(last.value));
          s.putSync({ key: k, value: v(val) });
          m.write([{ put: k, value: val }]);
        } else if (roll < 60) {
          const a = key(),
            b = key();
          const end = rng.int(2) ? (a < b ? b : undefined) : undefined;
          s.deleteRangeSync({ key: a, rangeEnd: end });
          m.write([{ del: a, end }]);
        } else if (roll < 72) {
          const k1 = key(),
            k2 = keys[(keys.indexOf(k1) + 1 + rng.int(keys.length - 1)) % keys.length];
          const want = rng.int(4);
          const live = m.cur().get(k1)?.version ?? 0;
          const r = s.txnSync({
            compare: [{ key: k1, target: 'VERSION', result: 'EQUAL', version: want }],
            success: [{ requestPut: { key: k1, value: v('s') } }, { requestDeleteRange: { key: k2 } }],
            failure: [{ requestPut: { key: k2, value: v('f') } }],
          });
          expect(r.succeeded).toBe(live === want);
          m.write(live === want ? [{ put: k1, value: 's' }, { del: k2 }] : [{ put: k2, value: 'f' }]);
        } else if (roll < 75 && m.rev > 2) {
          const c = m.compacted + 1 + rng.int(Math.max(1, m.rev - m.compacted - 1));
          if (c <= m.rev && c > m.compacted) {
            s.compactSync({ revision: c });
            m.compacted = c;
          }
        } else {
          const a = key(),
            b = key();
          const end = a < b ? b : undefined;
          const rev = rng.int(3) === 0 ? m.compacted + rng.int(m.rev - m.compacted + 1) : 0;
          const req: RangeRequest = { key: a, rangeEnd: end, revision: rev };
          if (rev > 0 && rev < m.compacted) {
            expect(() => s.rangeSync(req)).toThrow('compacted');
            continue;
          }
          const got = s.rangeSync(req);
          const want = m.range(a, end, rev);
          expect(got.kvs.map((kv) => ({ ...kv, value: str(kv.value) }))).toEqual(
            want.map((kv) => ({ ...kv, value: str(kv.value) })),
          );
          expect(got.count).toBe(want.length);
          expect(got.header.revision).toBe(m.rev);
        }
        expect(s.revision).toBe(m.rev);
      }
      await s.settle();
      // the watcher saw every change: rebuild each revision's changes from the model
      const expected: string[] = [];
      for (let r = 2; r <= m.rev; r++) {
        const before = m.snaps[r - 1],
          after = m.snaps[r];
        for (const k of new Set([...before.keys(), ...after.keys()])) {
          const a = after.get(k);
          if (a && a.modRevision === r) expected.push(`${r} PUT ${k} v${a.version}`);
          else if (!a && before.has(k)) expected.push(`${r} DELETE ${k}`);
        }
      }
      const got = events.map((kv) =>
        kv.version === 0
          ? `${kv.modRevision} DELETE ${kv.key}`
          : `${kv.modRevision} PUT ${kv.key} v${kv.version}`,
      );
      // within a revision the model has no op order; compare per revision as sorted sets
      const norm = (xs: string[]) =>
        [...xs].sort((x, y) => Number(x.split(' ')[0]) - Number(y.split(' ')[0]) || (x < y ? -1 : 1));
      expect(norm(got)).toEqual(norm(expected));
    });
  }
});

describe('MemoryStore: a key put and deleted in one txn (found by the etcd differential test, seed 5)', () => {
  it('the DELETE event carries the key as of the previous revision, like etcd', async () => {
    const s = new MemoryStore();
    s.putSync({ key: 'f/old', value: v('before') }); // 2
    const c = collect();
    s.watchSync({ key: 'f/', rangeEnd: 'f0', prevKv: true }, c.cb);
    // "\0" is not open-ended in etcd's duplicate check, so these puts inside the deleted range pass
    const r = s.txnSync({
      success: [
        { requestPut: { key: 'f/new', value: v('0') } },
        { requestPut: { key: 'f/old', value: v('1') } },
        { requestDeleteRange: { key: 'f/', rangeEnd: '\0' } },
      ],
    });
    expect(r.header.revision).toBe(3);
    await s.settle();
    expect(c.events().map((e) => [e.type, e.kv.key, e.prevKv ? str(e.prevKv.value) : null])).toEqual([
      ['PUT', 'f/new', null],
      ['PUT', 'f/old', 'before'],
      ['DELETE', 'f/new', null],
      ['DELETE', 'f/old', 'before'],
    ]);
  });
});

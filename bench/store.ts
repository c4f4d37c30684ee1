/**
 * `kubesim bench store`: the KvStore workloads the control plane leans on — puts, a 1k-key range
 * (a list), compare-and-swap txns (every ApiServer update), and watch fan-out to 1, 100 and
 * 10,000 watchers (informers) — on the in-memory MVCC store and, side by side, on a real etcd
 * 3.4 started for the run (skipped with the reason when no etcd binary is installed).
 *
 * Memory workloads use the synchronous fast path (putSync/rangeSync/txnSync) and, for comparison,
 * the async KvStore interface. Watch throughput counts events handed to watcher callbacks per
 * second, measured from the first put to the last delivery. The etcd workloads are kept small
 * (hundreds of ops per iteration, at most 100 watchers) so that the whole suite takes about a minute.
 */
import type { BenchOptions, BenchRecorder, BenchSuite } from './harness.js';
import { MemoryStore } from '../src/store/memory/store.js';
import { prefixEnd } from '../src/store/keyrange.js';
import type { KvStore, Watcher } from '../src/store/types.js';
import { EtcdStore, findEtcdBinary, launchEtcd } from '../src/store/etcd/index.js';

const PREFIX = '/registry/pods/default/';
const VALUE = new Uint8Array(256).fill(0x61); // a small Kubernetes object, msgpack-sized
const KEYS = Array.from({ length: 10_000 }, (_, i) => `${PREFIX}pod-${String(i).padStart(6, '0')}`);
/** precomputed, so that the timed loops measure the store and not string building */
const keyOf = (i: number) => KEYS[i];

export const suite: BenchSuite = {
  name: 'store',
  description: 'KvStore: puts, 1k-key range, CAS txns and watch fan-out, in memory and on a real etcd 3.4',
  sizeUnit: 'watchers',
  defaultSizes: [1, 100, 10_000],
  quickSizes: [1, 100],
  options: [{ flags: '--no-etcd', description: 'skip the real-etcd side (memory only)' }],
  async run(opts, rec) {
    await memoryWorkloads(opts, rec);
    if (opts.args.etcd === false) {
      rec.skip('etcd workloads', 'disabled with --no-etcd', { mode: 'etcd' });
      return;
    }
    if (!findEtcdBinary().path) {
      rec.skip('etcd workloads', 'etcd is not installed (Debian: apt-get install etcd-server)', {
        mode: 'etcd',
      });
      return;
    }
    await etcdWorkloads(opts, rec);
  },
};

// ───────────────────────────── memory ─────────────────────────────

async function memoryWorkloads(opts: BenchOptions, rec: BenchRecorder): Promise<void> {
  const keys = 10_000;
  const batch = opts.quick ? 2_000 : 10_000;
  const s = new MemoryStore();
  for (let i = 0; i < keys; i++) s.set(keyOf(i), VALUE);
  let n = 0;
  // history is kept until compaction, as in etcd; compact every ~1M revisions (Kubernetes compacts
  // every 5 minutes) so that long runs measure steady state, not an ever-growing heap
  const maybeCompact = () => {
    if (s.revision - Math.max(s.compactRevision, 0) > 1_000_000) s.compactSync({ revision: s.revision });
  };

  rec.note(
    'memory: one store of 10,000 keys under /registry/pods/default/, 256-byte values; compaction at the current revision every ~1M revisions is included in the put/txn timings',
  );

  await rec.measure(
    'put',
    () => {
      for (let i = 0; i < batch; i++) s.putSync({ key: keyOf(n++ % keys), value: VALUE });
      maybeCompact();
    },
    { mode: 'memory', units: batch, unit: 'puts' },
  );

  await rec.measure(
    'put (async interface)',
    async () => {
      for (let i = 0; i < batch; i++) await s.put({ key: keyOf(n++ % keys), value: VALUE });
      maybeCompact();
    },
    { mode: 'memory', units: batch, unit: 'puts' },
  );

  const from = keyOf(1000),
    to = keyOf(2000);
  await rec.measure(
    'range 1k keys',
    () => {
      const r = s.rangeSync({ key: from, rangeEnd: to });
      if (r.kvs.length !== 1000) throw new Error(`range returned ${r.kvs.length} keys`);
    },
    { mode: 'memory', units: 1, unit: 'ranges', figures: { keysPerRange: 1000 } },
  );

  await rec.measure(
    'txn CAS',
    () => {
      for (let i = 0; i < batch; i++) {
        const key = keyOf(n++ % keys);
        const cur = s.get(key)!;
        const r = s.txnSync({
          compare: [{ key, target: 'MOD', result: 'EQUAL', modRevision: cur.modRevision }],
          success: [{ requestPut: { key, value: VALUE } }],
          failure: [{ requestRange: { key } }],
        });
        if (!r.succeeded) throw new Error('CAS failed');
      }
      maybeCompact();
    },
    { mode: 'memory', units: batch, unit: 'txns' },
  );
  await s.close();

  for (const w of opts.sizes ?? (opts.quick ? suite.quickSizes : suite.defaultSizes)) {
    await memoryWatch(w, opts, rec);
  }
}

async function memoryWatch(watchers: number, opts: BenchOptions, rec: BenchRecorder): Promise<void> {
  const s = new MemoryStore();
  const keys = 10_000;
  for (let i = 0; i < keys; i++) s.set(keyOf(i), VALUE);
  let delivered = 0;
  const ws: Watcher[] = [];
  for (let i = 0; i < watchers; i++) {
    ws.push(
      s.watchSync({ key: PREFIX, rangeEnd: prefixEnd(PREFIX) }, (r) => {
        delivered += r.events.length;
      }),
    );
  }
  // about 200k deliveries per iteration whatever the fan-out (50k with --quick)
  const puts = Math.max(10, Math.floor((opts.quick ? 50_000 : 200_000) / watchers));
  let n = 0;
  await rec.measure(
    'watch events delivered',
    async () => {
      const target = delivered + puts * watchers;
      for (let i = 0; i < puts; i++) s.set(keyOf(n++ % keys), VALUE);
      await s.settle();
      if (delivered !== target) throw new Error(`delivered ${delivered}, expected ${target}`);
      if (s.revision - Math.max(s.compactRevision, 0) > 1_000_000) s.compactSync({ revision: s.revision });
    },
    {
      mode: 'memory',
      size: watchers,
      units: puts * watchers,
      unit: 'events',
      figures: { putsPerIteration: puts },
    },
  );
  for (const w of ws) await w.cancel();
  await s.close();
}

// ───────────────────────────── etcd ─────────────────────────────

async function etcdWorkloads(opts: BenchOptions, rec: BenchRecorder): Promise<void> {
  opts.progress('launching etcd');
  const etcd = await launchEtcd();
  const store = new EtcdStore({ endpoints: etcd.endpoint });
  const timeMs = Math.min(opts.timeMs, opts.quick ? 300 : 1000);
  const batch = opts.quick ? 50 : 200;
  const inflight = 50;
  try {
    rec.note(
      `etcd ${etcd.version} on 127.0.0.1, data dir ${etcd.dataDir.startsWith('/dev/shm') ? 'in /dev/shm (no disk fsync cost)' : 'on disk'}, through EtcdStore (etcd3 gRPC client), ${inflight} requests in flight`,
    );
    const keys = 1000;
    for (let i = 0; i < keys; i += 100) {
      await store.txn({
        success: Array.from({ length: 100 }, (_, j) => ({ requestPut: { key: keyOf(i + j), value: VALUE } })),
      });
    }
    let n = 0;
    await rec.measure(
      'put',
      () => parallel(batch, inflight, () => store.put({ key: keyOf(n++ % keys), value: VALUE })),
      { mode: 'etcd', units: batch, unit: 'puts', timeMs, iterations: 3 },
    );

    await rec.measure(
      'range 1k keys',
      async () => {
        const r = await store.range({ key: keyOf(0), rangeEnd: keyOf(keys) });
        if (r.kvs.length !== keys) throw new Error(`range returned ${r.kvs.length} keys`);
      },
      { mode: 'etcd', units: 1, unit: 'ranges', timeMs, iterations: 3, figures: { keysPerRange: 1000 } },
    );

    await rec.measure(
      'txn CAS',
      () =>
        parallel(batch, inflight, async () => {
          const key = keyOf(n++ % keys);
          const cur = (await store.range({ key })).kvs[0];
          const r = await store.txn({
            compare: [{ key, target: 'MOD', result: 'EQUAL', modRevision: cur.modRevision }],
            success: [{ requestPut: { key, value: VALUE } }],
            failure: [{ requestRange: { key } }],
          });
          if (!r.succeeded) throw new Error('CAS failed');
        }),
      { mode: 'etcd', units: batch, unit: 'txns (read + CAS)', timeMs, iterations: 3 },
    );

    for (const w of opts.sizes ?? (opts.quick ? suite.quickSizes : suite.defaultSizes)) {
      if (w > 100) {
        rec.skip(
          'watch events delivered',
          'etcd side limited to 100 watchers to keep the suite near a minute',
          { mode: 'etcd', size: w },
        );
        continue;
      }
      await etcdWatch(store, w, batch, timeMs, rec);
    }
  } finally {
    await store.close();
    await etcd.stop();
  }
}

async function etcdWatch(
  store: KvStore,
  watchers: number,
  batch: number,
  timeMs: number,
  rec: BenchRecorder,
): Promise<void> {
  let delivered = 0;
  const ws: Watcher[] = [];
  for (let i = 0; i < watchers; i++) {
    ws.push(
      await store.watch({ key: PREFIX, rangeEnd: prefixEnd(PREFIX) }, (r) => {
        delivered += r.events.length;
      }),
    );
  }
  const puts = Math.max(10, Math.floor(batch / Math.sqrt(watchers)));
  let n = 0;
  await rec.measure(
    'watch events delivered',
    async () => {
      const target = delivered + puts * watchers;
      await parallel(puts, 50, () => store.put({ key: keyOf(n++ % 1000), value: VALUE }));
      const deadline = Date.now() + 30_000;
      while (delivered < target) {
        if (Date.now() > deadline) throw new Error(`delivered ${delivered} of ${target} events`);
        await new Promise((r) => setTimeout(r, 1));
      }
    },
    {
      mode: 'etcd',
      size: watchers,
      units: puts * watchers,
      unit: 'events',
      timeMs,
      iterations: 3,
      figures: { putsPerIteration: puts },
    },
  );
  for (const w of ws) await w.cancel();
}

/** run `total` calls of fn with at most `width` in flight */
async function parallel(total: number, width: number, fn: () => Promise<unknown>): Promise<void> {
  let started = 0;
  const lane = async () => {
    while (started < total) {
      started++;
      await fn();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, total) }, lane));
}

// kube-apiserver's compactor on a real etcd (compact.go): several servers compact once per
// interval between them through the compact_rev_key transaction, each time to the revision noted
// one tick earlier; and through `kubesim serve --etcd-compaction-interval`, a watch or an Exact
// list from a compacted resourceVersion is 410 Gone.
import { expect, it } from 'vitest';
import { COMPACT_REV_KEY, type CompactState, compactOnce } from '../../src/server/etcd-compactor.js';
import { describeEtcd } from '../helpers/etcd.js';
import { builtCli, startServe } from './serve-process.js';

const enc = new TextEncoder();

describeEtcd('etcd compactor', (etcd) => {
  it('two servers: one compaction per round, to the revision noted a round before; none at bootstrap', async () => {
    const { store } = await etcd.fresh();
    const put = async (k: string) => (await store.put({ key: k, value: enc.encode(k) })).header.revision;
    let a: CompactState = { version: 0, revision: 0 };
    let b: CompactState = { version: 0, revision: 0 };

    // round 1: A wins the CAS but compacts nothing (bootstrap); B sees A's record
    const r1 = await put('/registry/x/1');
    let ra = await compactOnce(store, a);
    expect(ra.compacted).toBe(0);
    a = ra.state;
    expect(a.version).toBe(1);
    let rb = await compactOnce(store, b);
    expect(rb.compacted).toBe(0);
    b = rb.state;
    expect(b.version).toBe(1);
    const noted = b.revision; // B's view of "now" in round 1
    expect(noted).toBeGreaterThan(r1);

    // round 2: B goes first; it compacts to the revision it noted in round 1; A then compacts nothing
    await put('/registry/x/2');
    rb = await compactOnce(store, b);
    expect(rb.compacted).toBe(noted);
    b = rb.state;
    ra = await compactOnce(store, a);
    expect(ra.compacted).toBe(0);
    a = ra.state;
    expect(a.version).toBe(b.version);

    // history below the compacted revision is gone, at it still readable
    await expect(store.range({ key: '/registry/x/1', revision: r1 })).rejects.toThrow(/compacted/);
    const at = await store.range({ key: '/registry/x/', rangeEnd: '/registry/x0', revision: noted });
    expect(at.kvs.map((kv) => kv.key)).toEqual(['/registry/x/1']);
    // the record: compact_rev_key holds the compacted revision, version = compactions + 1
    const rec = await store.range({ key: COMPACT_REV_KEY });
    expect(new TextDecoder().decode(rec.kvs[0]!.value)).toBe(String(noted));
    expect(rec.kvs[0]!.version).toBe(2);
  });

  it.skipIf(!builtCli)(
    'serve --etcd-compaction-interval: a watch and an Exact list from before the compaction get 410',
    async () => {
      const { server } = await etcd.fresh();
      const s = await startServe([
        '--etcd-servers',
        server.endpoint,
        '--etcd-compaction-interval',
        '500ms',
        '--leader-elect=false',
      ]);
      const cm = `${s.url}/api/v1/namespaces/default/configmaps`;
      try {
        const post = await fetch(cm, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'old' }, data: {} }),
        });
        const old = ((await post.json()) as { metadata: { resourceVersion: string } }).metadata
          .resourceVersion;
        // writes after it, so that a compaction lands above the watch's start
        for (const v of ['1', '2'])
          await fetch(`${cm}/old`, {
            method: 'PATCH',
            headers: { 'content-type': 'application/merge-patch+json' },
            body: JSON.stringify({ data: { v } }),
          });
        let first: { type: string; object: { code: number; reason: string; message: string } };
        const end = Date.now() + 60_000; // a hang guard: the loop ends at the first ERROR
        for (;;) {
          const res = await fetch(`${cm}?watch=1&resourceVersion=${old}&timeoutSeconds=1`);
          const line = (await res.text()).split('\n')[0]!;
          first = JSON.parse(line);
          if (first.type === 'ERROR' || Date.now() > end) break;
          await new Promise((r) => setTimeout(r, 200));
        }
        expect(first.type).toBe('ERROR');
        expect(first.object.code).toBe(410);
        expect(first.object.reason).toBe('Expired');
        expect(first.object.message).toMatch(new RegExp(`^too old resource version: ${old} \\(\\d+\\)$`));
        const list = await fetch(`${cm}?resourceVersion=${old}&resourceVersionMatch=Exact`);
        expect(list.status).toBe(410);
      } finally {
        await s.stop();
      }
    },
    240_000,
  );
});

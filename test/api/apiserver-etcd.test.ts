/**
 * Differential test: one scripted ApiServer session on the in-memory store and on a fresh real
 * etcd must produce the same transcript — namespaces bootstrapped, objects (with resourceVersions),
 * CAS conflicts, binding, status, errors, label/field-selected and paged lists, deletes, a live
 * watch, a historical watch from the first revision, and the 410 after compaction. Skipped (with
 * the reason) where etcd is absent.
 */
import { expect, it } from 'vitest';
import { ApiServer, type ApiWatchEvent } from '../../src/api/apiserver.js';
import { ApiError } from '../../src/api/errors.js';
import type { KubeObject, Pod } from '../../src/api/types.js';
import type { KvStore } from '../../src/store/types.js';
import { MemoryStore } from '../../src/store/memory/store.js';
import { ManualClock } from '../../src/util/clock.js';
import { describeEtcd } from '../helpers/etcd.js';
import { makePod } from '../helpers/builders.js';

const pod = (name: string, app: string): Pod =>
  makePod(name)
    .uid(undefined)
    .label('app', app)
    .containers({ name: 'c', image: 'nginx:1.27', resources: { requests: { cpu: '100m' } } })
    .obj();

async function waitFor(pred: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out waiting for watch events');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Run the script; every step appends a JSON-able record. */
async function session(store: KvStore): Promise<unknown[]> {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const api = new ApiServer(store, { clock, seed: 3 });
  const out: unknown[] = [];
  const rec = async (label: string, p: Promise<unknown>) => {
    try {
      out.push([label, await p]);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      out.push([label, e.status()]);
    }
  };
  await rec('bootstrap namespaces', api.bootstrapNamespaces());
  const live: ApiWatchEvent<KubeObject>[] = [];
  const liveWatch = await api.watch('pods', { namespace: 'default' }, (ev) => live.push(ev));
  for (let i = 0; i < 6; i++) await rec(`create p${i}`, api.create(pod(`p${i}`, i % 2 ? 'web' : 'db')));
  await rec('create dup', api.create(pod('p0', 'db')));
  await rec(
    'create node',
    api.create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1' },
      status: { allocatable: { cpu: '4' } },
    } as KubeObject),
  );
  await rec(
    'create svc',
    api.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default' },
      spec: { type: 'NodePort', selector: { app: 'web' }, ports: [{ port: 80 }] },
    } as KubeObject),
  );
  const p1 = await api.get<Pod>('pods', 'default', 'p1');
  const events: ApiWatchEvent<KubeObject>[] = [];
  const h = await api.watch(
    'pods',
    { resourceVersion: p1.metadata.resourceVersion, labelSelector: 'app=web' },
    (ev) => events.push(ev),
  );
  await rec('update p1', api.update({ ...p1, metadata: { ...p1.metadata, labels: { app: 'web', v: '2' } } }));
  await rec('update p1 stale', api.update({ ...p1, metadata: { ...p1.metadata, labels: { app: 'stale' } } }));
  await rec(
    'bind p1',
    api.bind({
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'p1', namespace: 'default' },
      target: { kind: 'Node', name: 'n1' },
    }),
  );
  await rec(
    'bind p1 again',
    api.bind({
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'p1', namespace: 'default' },
      target: { kind: 'Node', name: 'n2' },
    }),
  );
  const p3 = await api.get<Pod>('pods', 'default', 'p3');
  await rec('status p3', api.updateStatus({ ...p3, status: { phase: 'Running' } }));
  await rec(
    'relabel p3 out of the selector',
    api.update({
      ...(await api.get<Pod>('pods', 'default', 'p3')),
      metadata: { ...p3.metadata, resourceVersion: undefined, labels: { app: 'db' } },
    }),
  );
  await rec('delete p5 bad uid', api.delete('pods', 'default', 'p5', { preconditions: { uid: 'nope' } }));
  await rec('delete p5', api.delete('pods', 'default', 'p5'));
  await rec('get p5', api.get('pods', 'default', 'p5'));
  await rec('list web', api.list('pods', { labelSelector: 'app=web' }));
  const page1 = await api.list('pods', { limit: 2 });
  out.push(['page1', page1]);
  await rec('create p9', api.create(pod('p9', 'web')));
  await rec('page2', api.list('pods', { limit: 2, continue: page1.metadata.continue }));
  await rec('field selector', api.list('pods', { fieldSelector: 'spec.nodeName=n1' }));
  await rec(
    'exact list at an old resourceVersion',
    api.list('pods', { resourceVersion: '7', resourceVersionMatch: 'Exact' }),
  );
  const history: ApiWatchEvent<KubeObject>[] = [];
  const historyWatch = await api.watch('pods', { namespace: 'default', resourceVersion: '1' }, (ev) =>
    history.push(ev),
  );
  await waitFor(() => events.length >= 5 && live.length >= 12 && history.length >= 12);
  await h.stop();
  await liveWatch.stop();
  await historyWatch.stop();
  out.push(['watch', events], ['live watch', live], ['historical watch', history]);
  // compaction → 410 on an old watch
  const rev = await store.currentRevision();
  await store.compact({ revision: rev, physical: true });
  const late: ApiWatchEvent<any>[] = [];
  await api.watch('pods', { resourceVersion: '2' }, (ev) => late.push(ev));
  await waitFor(() => late.length >= 1);
  out.push(['410', late]);
  await rec(
    'exact list compacted',
    api.list('pods', { resourceVersion: '3', resourceVersionMatch: 'Exact' }),
  );
  return out;
}

describeEtcd(
  'ApiServer: memory store vs real etcd',
  (etcd) => {
    it('produces the same transcript', async () => {
      const mem = await session(new MemoryStore({ clock: new ManualClock() }));
      const { store } = await etcd.fresh();
      const real = await session(store);
      expect(JSON.parse(JSON.stringify(real))).toEqual(JSON.parse(JSON.stringify(mem)));
      // sanity: the transcript contains the interesting answers
      const flat = JSON.stringify(mem);
      expect(flat).toContain(
        'the object has been modified; please apply your changes to the latest version and try again',
      );
      expect(flat).toContain('pod p1 is already assigned to node \\"n1\\"');
      expect(flat).toContain('too old resource version: 2 (');
    }, 240_000);
  },
  { shared: false },
);

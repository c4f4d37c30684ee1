/**
 * kubesim's ApiServer on a real etcd: the same Kubernetes API scenario (namespaces, pods, a node,
 * optimistic-concurrency updates and conflicts, binding, status, label-selected and paged lists,
 * deletes, live and historical watches) run on MemoryStore and on EtcdStore over a fresh etcd must
 * give identical objects, resourceVersions, errors and watch events. Both stores start empty at
 * revision 1 and share a virtual clock for timestamps, so every field can be compared.
 */
import { expect, it } from 'vitest';
import { ApiServer, type ApiWatchEvent } from '../../src/api/apiserver.js';
import type { Binding, KubeObject, Node, Pod } from '../../src/api/types.js';
import { EtcdStore } from '../../src/store/etcd/etcd-store.js';
import { launchEtcd } from '../../src/store/etcd/launcher.js';
import { MemoryStore } from '../../src/store/memory/store.js';
import type { KvStore } from '../../src/store/types.js';
import { ManualClock } from '../../src/util/clock.js';
import { describeEtcd } from '../helpers/etcd.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

const pod = (name: string, app: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels: { app } },
  spec: {
    containers: [
      { name: 'c', image: 'nginx:1.27', resources: { requests: { cpu: '100m', memory: '64Mi' } } },
    ],
  },
});
const node = (name: string): Node =>
  ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    status: {
      capacity: { cpu: '4', memory: '8Gi', pods: '110' },
      allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
    },
  }) as Node;

/** Runs the scenario and returns everything observable, as JSON-able data. */
async function scenario(store: KvStore, settle: () => Promise<void>): Promise<unknown> {
  const clock = new ManualClock(T0);
  const api = new ApiServer(store, { clock, seed: 7 });
  const log: unknown[] = [];
  const step = async (name: string, fn: () => Promise<unknown>) => {
    try {
      log.push([name, await fn()]);
    } catch (e) {
      const err = e as { name?: string; code?: unknown; reason?: unknown; message?: string };
      log.push([name, { error: err.name, code: err.code, reason: err.reason, message: err.message }]);
    }
    clock.advance(1000);
  };
  const live: ApiWatchEvent<KubeObject>[] = [];
  const history: ApiWatchEvent<KubeObject>[] = [];

  await step('bootstrap', () => api.bootstrapNamespaces());
  const w = await api.watch('pods', { namespace: 'default' }, (ev) => live.push(ev));
  await step('create node', () => api.create(node('n1')));
  let web0: Pod | undefined;
  await step('create web-0', async () => (web0 = await api.create(pod('web-0', 'web'))));
  await step('create web-1', () => api.create(pod('web-1', 'web')));
  await step('create db-0', () => api.create(pod('db-0', 'db')));
  await step('create web-0 again', () => api.create(pod('web-0', 'web')));
  await step('get web-0', () => api.get('pods', 'default', 'web-0'));
  await step('update web-0', async () => {
    const cur = await api.get<Pod>('pods', 'default', 'web-0');
    return api.update({ ...cur, metadata: { ...cur.metadata, labels: { app: 'web', tier: 'front' } } });
  });
  await step('update web-0 with a stale resourceVersion', () =>
    api.update({ ...web0!, metadata: { ...web0!.metadata, labels: { app: 'stale' } } }),
  );
  const binding: Binding = {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name: 'web-1', namespace: 'default' },
    target: { kind: 'Node', name: 'n1' },
  };
  await step('bind web-1', () => api.bind(binding));
  await step('bind web-1 again', () => api.bind(binding));
  await step('status web-1', async () => {
    const cur = await api.get<Pod>('pods', 'default', 'web-1');
    return api.updateStatus({ ...cur, status: { ...cur.status, phase: 'Running' } });
  });
  await step('list app=web', () => api.list('pods', { namespace: 'default', labelSelector: 'app=web' }));
  await step('list page 1', () => api.list('pods', { namespace: 'default', limit: 2 }));
  await step('list page 2', async () => {
    const first = await api.list('pods', { namespace: 'default', limit: 2 });
    return api.list('pods', {
      namespace: 'default',
      limit: 2,
      continue: (first as { metadata?: { continue?: string } }).metadata?.continue,
    });
  });
  await step('delete db-0', () => api.delete('pods', 'default', 'db-0'));
  await step('get db-0', () => api.get('pods', 'default', 'db-0'));
  await step('list at an exact old resourceVersion', () =>
    api.list('pods', { namespace: 'default', resourceVersion: '7', resourceVersionMatch: 'Exact' }),
  );
  const h = await api.watch('pods', { namespace: 'default', resourceVersion: '1' }, (ev) => history.push(ev));
  await settle();
  await w.stop();
  await h.stop();
  return { log, live, history };
}

describeEtcd(
  'ApiServer on EtcdStore vs MemoryStore',
  () => {
    it('answers and watch events are identical', async () => {
      const onMemory = await scenario(new MemoryStore({ clock: new ManualClock(T0) }), async () => undefined);
      const etcd = await launchEtcd();
      const store = new EtcdStore({ endpoints: etcd.endpoint });
      try {
        const onEtcd = await scenario(store, () => new Promise((r) => setTimeout(r, 600)));
        expect(onEtcd).toEqual(onMemory);
        // the comparison had something to compare: objects, at least one conflict, events in both watches
        const text = JSON.stringify(onEtcd);
        expect(text).toMatch(/"reason":"Conflict"/);
        expect(text).toMatch(/"reason":"AlreadyExists"/);
        expect((onEtcd as { live: unknown[] }).live.length).toBeGreaterThan(5);
        expect((onEtcd as { history: unknown[] }).history.length).toBeGreaterThan(5);
      } finally {
        await store.close();
        await etcd.stop();
      }
    });
  },
  { shared: false },
);

// @kubernetes/client-node informers against `kubesim serve`: list+watch fills the cache and follows
// changes, and when the server ends the watch (--min-request-timeout) after the store compacted past
// the informer's resourceVersion, the re-watch gets 410 Gone and the informer relists by itself.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeProcess, builtCli, startServe } from './serve-process.js';

const NS = 'informer';

const pod = (name: string): k8s.V1Pod => ({
  metadata: { name, namespace: NS, labels: { app: 'inf' } },
  spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '10m' } } }] },
});

async function until(what: string, test: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!builtCli)('client-node informers against kubesim serve', () => {
  let srv: ServeProcess;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;
  let informer: k8s.Informer<k8s.V1Pod> & k8s.ObjectCache<k8s.V1Pod>;
  let lists = 0;
  const events: string[] = [];
  const errors: unknown[] = [];

  beforeAll(async () => {
    // 100 virtual seconds per wall second: the store compacts (every 5 virtual minutes, keeping the
    // last 1000 revisions) every 3 wall seconds; watches end after 2 to 4 wall seconds
    srv = await startServe(['--tls', '--speed', '100', '--min-request-timeout', '2s']);
    kc = new k8s.KubeConfig();
    kc.loadFromFile(srv.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: NS } } });
    informer = k8s.makeInformer(kc, `/api/v1/namespaces/${NS}/pods`, () => {
      lists++;
      return core.listNamespacedPod({ namespace: NS });
    });
    informer.on('add', (p) => events.push(`add ${p.metadata!.name}`));
    informer.on('delete', (p) => events.push(`delete ${p.metadata!.name}`));
    informer.on('error', (e) => errors.push(e));
    await informer.start();
  }, 240_000);
  afterAll(async () => {
    await informer?.stop();
    await srv?.stop();
  });

  it('lists, then follows creates, status updates and deletes through the watch', async () => {
    expect(lists).toBe(1);
    await core.createNamespacedPod({ namespace: NS, body: pod('a') });
    await core.createNamespacedPod({ namespace: NS, body: pod('b') });
    await until('a and b Running in the cache', () =>
      ['a', 'b'].every((n) => informer.get(n, NS)?.status?.phase === 'Running'),
    );
    expect(informer.get('a', NS)?.spec?.nodeName).toMatch(/^node-000\d$/);
    await core.deleteNamespacedPod({ namespace: NS, name: 'b', gracePeriodSeconds: 0 });
    await until('b gone from the cache', () => informer.get('b', NS) === undefined);
    expect(events).toEqual(['add a', 'add b', 'delete b']);
    expect(informer.list(NS).map((p) => p.metadata!.name)).toEqual(['a']);
  });

  it('relists after 410 Gone once the store compacted past its resourceVersion', async () => {
    const rvBefore = informer.latestResourceVersion();
    // 1100 writes the pod watch does not see: its resourceVersion falls out of the kept window
    for (let i = 0; i < 1100; i += 50)
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          core.createNamespacedConfigMap({
            namespace: 'default',
            body: { metadata: { name: `cm-${i + j}` }, data: { i: String(i + j) } },
          }),
        ),
      );
    // `lists` counts calls of the list function; the informer takes the new resourceVersion only
    // once that list has answered, so wait for both (on a loaded machine they are seconds apart)
    await until(
      'a relist, answered',
      () => lists >= 2 && Number(informer.latestResourceVersion()) > Number(rvBefore),
      30_000,
    );
    expect(errors).toEqual([]);
    // the relisted cache is whole, and the new watch follows changes from the new resourceVersion
    expect(informer.list(NS).map((p) => p.metadata!.name)).toEqual(['a']);
    await core.createNamespacedPod({ namespace: NS, body: pod('c') });
    await until('c in the cache', () => informer.get('c', NS) !== undefined);
    expect(events).toEqual(['add a', 'add b', 'delete b', 'add c']);
  }, 240_000);
});

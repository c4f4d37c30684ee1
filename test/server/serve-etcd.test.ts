// `kubesim serve --etcd-servers`: the cluster kept in a real etcd survives a restart of serve —
// objects, resourceVersions and watch history — through the built CLI and HTTP, as a user runs it.
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { EtcdStore } from '../../src/store/etcd/etcd-store.js';
import { describeEtcd } from '../helpers/etcd.js';
import { builtCli, cli, startServe } from './serve-process.js';

const cmPath = '/api/v1/namespaces/default/configmaps';

async function json<T>(res: Response): Promise<T> {
  if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

interface Obj {
  metadata: { name: string; uid: string; resourceVersion: string };
  data?: Record<string, string>;
}

/** the first watch event on `url` that `match` accepts (the stream is aborted then) */
async function firstEvent(url: string, match: (e: { type: string; object: Obj }) => boolean) {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), 60_000); // a hang guard: the first match ends it
  try {
    const res = await fetch(url, { signal: ac.signal });
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`watch ended: ${buf}`);
      buf += dec.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const e = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (match(e)) return e as { type: string; object: Obj };
      }
    }
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
}

describeEtcd('kubesim serve --etcd-servers', (etcd) => {
  it.skipIf(!builtCli)(
    'keeps the cluster across a restart: objects, resourceVersions, watch history',
    async () => {
      const args = ['--etcd-servers', etcd.endpoint, '--seed', '7'];
      const first = await startServe(args);
      let cm: Obj;
      let updated: Obj;
      let node: Obj;
      try {
        cm = await json<Obj>(
          await fetch(first.url + cmPath, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'durable' },
              data: { a: '1' },
            }),
          }),
        );
        updated = await json<Obj>(
          await fetch(`${first.url}${cmPath}/durable`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ ...cm, apiVersion: 'v1', kind: 'ConfigMap', data: { a: '2' } }),
          }),
        );
        node = (await json<{ items: Obj[] }>(await fetch(`${first.url}/api/v1/nodes`))).items[0]!;
      } finally {
        await first.stop();
      }
      // kube-apiserver's layout: etcdctl get --prefix /registry/configmaps/ shows it
      const raw = etcd.store();
      const kv = await raw.range({ key: '/registry/configmaps/default/durable' });
      expect(kv.kvs[0]?.modRevision).toBe(Number(updated.metadata.resourceVersion));

      const second = await startServe(args);
      try {
        const back = await json<Obj>(await fetch(`${second.url}${cmPath}/durable`));
        expect(back.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
        expect(back.metadata.uid).toBe(cm.metadata.uid);
        expect(back.data).toEqual({ a: '2' });
        // the scenario's nodes were not created again: the same object, not a new one
        const again = await json<Obj>(await fetch(`${second.url}/api/v1/nodes/${node.metadata.name}`));
        expect(again.metadata.uid).toBe(node.metadata.uid);
        // a watch from the create's resourceVersion replays the update made before the restart
        const ev = await firstEvent(
          `${second.url}${cmPath}?watch=1&resourceVersion=${cm.metadata.resourceVersion}`,
          (e) => e.object?.metadata?.name === 'durable',
        );
        expect(ev.type).toBe('MODIFIED');
        expect(ev.object.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
      } finally {
        await second.stop();
      }
    },
    240_000,
  );

  it.skipIf(!builtCli)(
    'two serves started together on an empty etcd: exactly one makes the cluster',
    async () => {
      const { server } = await etcd.fresh();
      const args = ['--etcd-servers', server.endpoint];
      const both = await Promise.all([startServe(args), startServe(args)]);
      try {
        const joined = both.filter((s) =>
          /another serve is making the cluster there|resuming that cluster/.test(s.stderr()),
        );
        expect(joined).toHaveLength(1);
        const nodes = await json<{ items: Obj[] }>(await fetch(`${both[0]!.url}/api/v1/nodes`));
        expect(nodes.items).toHaveLength(3);
      } finally {
        await Promise.all(both.map((s) => s.stop()));
      }
    },
    240_000,
  );

  it.skipIf(!builtCli)(
    'a restarted serve allocates no ClusterIP or NodePort a stored Service holds',
    async () => {
      const { server } = await etcd.fresh();
      const args = ['--etcd-servers', server.endpoint];
      const svc = (name: string) => ({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name },
        spec: { type: 'NodePort', selector: { app: name }, ports: [{ port: 80 }] },
      });
      interface Svc {
        spec: { clusterIP: string; ports: { nodePort: number }[] };
      }
      const post = async (url: string, name: string) =>
        json<Svc>(
          await fetch(`${url}/api/v1/namespaces/default/services`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(svc(name)),
          }),
        );
      const first = await startServe(args);
      let a: Svc;
      try {
        a = await post(first.url, 'a');
      } finally {
        await first.stop();
      }
      const second = await startServe(args);
      try {
        const b = await post(second.url, 'b');
        expect(b.spec.clusterIP).not.toBe(a.spec.clusterIP);
        expect(b.spec.ports[0]!.nodePort).not.toBe(a.spec.ports[0]!.nodePort);
        // asking for the stored Service's values explicitly is refused as upstream refuses it
        const c = await fetch(`${second.url}/api/v1/namespaces/default/services`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...svc('c'), spec: { ...svc('c').spec, clusterIP: a.spec.clusterIP } }),
        });
        expect(c.status).toBe(422);
        expect(await c.text()).toContain('provided IP is already allocated');
      } finally {
        await second.stop();
      }
    },
    240_000,
  );

  it.skipIf(!builtCli)(
    'a fresh etcd is not a resumed one; an unreachable etcd is a one-line CLI error',
    async () => {
      const { server } = await etcd.fresh();
      const s = await startServe(['--etcd-servers', server.endpoint]);
      await s.stop();
      const probe = new EtcdStore({ endpoints: server.endpoint });
      const n = await probe.range({
        key: '/registry/namespaces/',
        rangeEnd: '/registry/namespaces0',
        countOnly: true,
      });
      await probe.close();
      expect(n.count).toBeGreaterThanOrEqual(4);
      // port 1 on loopback: nothing listens
      const r = spawnSync(process.execPath, [cli, 'serve', '--etcd-servers', 'http://127.0.0.1:1'], {
        encoding: 'utf8',
        timeout: 90_000,
      });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/--etcd-servers http:\/\/127\.0\.0\.1:1: etcd is unreachable \(ECONNREFUSED/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    },
    240_000,
  );
});

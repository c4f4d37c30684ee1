// Two `kubesim serve` over one etcd hand out ClusterIPs and NodePorts: each server's allocators
// are in memory, so without the claims each Service's create writes to etcd (service-claims.ts)
// both would give their first Service 10.96.0.1 and port 30000.
import { expect, it } from 'vitest';
import { describeEtcd } from '../helpers/etcd.js';
import { builtCli, startServe, type ServeProcess } from './serve-process.js';
import { ELECTION } from './serve-ha.js';

const svcPath = '/api/v1/namespaces/default/services';

interface Svc {
  metadata: { name: string };
  spec: { clusterIP: string; ports: { nodePort: number }[] };
}

async function call(url: string, method = 'GET', body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const service = (name: string, clusterIP?: string) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec: { type: 'NodePort', clusterIP, selector: { app: name }, ports: [{ port: 80, protocol: 'TCP' }] },
});

describeEtcd('Service addresses over several serves', (etcd) => {
  it.skipIf(!builtCli)(
    'creates through two serves at once never share a ClusterIP or a NodePort',
    async () => {
      const args = ['--etcd-servers', etcd.endpoint, ...ELECTION];
      const servers: ServeProcess[] = [];
      try {
        servers.push(await startServe(args));
        servers.push(await startServe(args));
        const [a, b] = servers as [ServeProcess, ServeProcess];
        const made = await Promise.all(
          Array.from({ length: 16 }, (_, i) =>
            call(`${(i % 2 ? b : a).url}${svcPath}`, 'POST', service(`s${i}`)),
          ),
        );
        for (const r of made) expect(r.status, JSON.stringify(r.body)).toBe(201);
        const list = (await call(`${a.url}${svcPath}`)).body.items as Svc[];
        const ips = list.map((s) => s.spec.clusterIP);
        const ports = list.map((s) => s.spec.ports[0]!.nodePort);
        expect(list).toHaveLength(16);
        expect(new Set(ips).size).toBe(16);
        expect(new Set(ports).size).toBe(16);

        // an address taken through one serve is refused through the other, as upstream says it
        const viaB = list.find((s) => s.metadata.name === 's1')!.spec.clusterIP;
        const again = await call(`${a.url}${svcPath}`, 'POST', service('dup', viaB));
        expect(again.status).toBe(422);
        expect(JSON.stringify(again.body)).toContain('provided IP is already allocated');

        // a deleted Service gives its address back in etcd: the other serve can claim it
        const del = await call(`${a.url}${svcPath}/s0`, 'DELETE');
        expect(del.status).toBe(200);
        const next = await call(`${b.url}${svcPath}`, 'POST', service('later'));
        expect(next.status).toBe(201);
        const all = (await call(`${b.url}${svcPath}`)).body.items as Svc[];
        expect(new Set(all.map((s) => s.spec.clusterIP)).size).toBe(all.length);
      } finally {
        for (const s of servers) await s.stop();
      }
    },
    240_000,
  );
});

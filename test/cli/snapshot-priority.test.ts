// Pods of a snapshot were admitted when they were created (issue 29, class 1): plan, simulate and
// serve --cluster take the same kubeadm-style snapshot (mirror pods with a Node owner, the
// kube-proxy DaemonSet's pods, CoreDNS with system-cluster-critical) whose shop pods name a
// PriorityClass the snapshot lacks: their stored priority stands, and each command names the
// missing class in the same warning.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/paths.js';
import { startServe } from '../server/serve-process.js';
import { kubesim } from './harness.js';

const snapshot = join(packageRoot(), 'test', 'fixtures', 'snapshots', 'kubeadm-kube-system.yaml');
const WARNING =
  'warning: PriorityClass "high-priority" is not in the snapshot: 2 pod(s) keep their stored priority (1000); capture priorityclasses too';
const dir = mkdtempSync(join(tmpdir(), 'kubesim-snapshot-priority-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a kubeadm snapshot without its PriorityClasses, in every command', () => {
  it('plan reads it and warns once', () => {
    const pod = join(dir, 'pod.yaml');
    writeFileSync(
      pod,
      'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]\n',
    );
    const r = kubesim(['plan', '--cluster', snapshot, '--pod', pod]);
    expect(r.stderr).toContain(WARNING);
    expect(r.status).toBe(0);
  });

  it('simulate loads it as admitted: no pod is forbidden', () => {
    const sc = join(dir, 'kubeadm.yaml');
    writeFileSync(sc, `name: kubeadm\nduration: 30s\ncluster:\n  snapshot: ${snapshot}\n`);
    const r = kubesim(['simulate', sc, '--no-progress', '-o', 'json']);
    expect(r.stderr).toContain(WARNING);
    expect(r.stderr).not.toContain('forbidden');
    expect(r.status).toBe(0);
  });

  it('serve --cluster serves it with the stored priorities', async () => {
    const srv = await startServe(['--cluster', snapshot]);
    try {
      const get = async (path: string) => (await fetch(`${srv.url}${path}`)).json() as Promise<any>;
      const db = await get('/api/v1/namespaces/shop/pods/db-0');
      expect([db.spec.priorityClassName, db.spec.priority]).toEqual(['high-priority', 1000]);
      const dns = await get('/api/v1/namespaces/kube-system/pods/coredns-674b8bbfcf-0x9z');
      expect(dns.spec.priority).toBe(2000000000);
      const etcd = await get('/api/v1/namespaces/kube-system/pods/etcd-cp-1');
      expect(etcd.metadata.annotations['kubernetes.io/config.mirror']).toBe('0a1b2c3d4e5f');
      expect(etcd.spec.priority).toBe(2000001000);
    } finally {
      await srv.stop();
    }
  }, 240_000);
});

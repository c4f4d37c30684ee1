// `kubesim snapshot` against `kubesim serve` (a real client library against a real HTTP server):
// the snapshot of a served cluster plans exactly like the file the cluster was served from, holds
// every kind capacity planning and the proxy read, and has none of the fields the server set.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { SNAPSHOT_KINDS } from '../../src/scheduler/index.js';
import { collectionPath } from '../../src/server/live/snapshot.js';
import { packageRoot } from '../../src/util/paths.js';
import { type ServeProcess, builtCli, cli, startServe } from './serve-process.js';

const root = packageRoot();
const source = join(root, 'examples', 'snapshot', 'cluster.yaml');

const EXTRA = `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: fast.example.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: fast.example.com}
spec: {storageCapacity: true, attachRequired: false}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: fast-zone-a, namespace: kube-system}
storageClassName: fast
capacity: 40Gi
nodeTopology:
  matchLabels: {topology.kubernetes.io/zone: zone-a}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: api, namespace: shop}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: api}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: shop, annotations: {kubectl.kubernetes.io/last-applied-configuration: "{}"}}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: fast
  resources: {requests: {storage: 1Gi}}
`;

/** the CLI without progress lines, which a loaded machine would add to stderr */
function run(args: string[]) {
  const r = spawnSync(
    process.execPath,
    [cli, ...args, ...(args[0] === 'snapshot' ? ['--no-progress'] : [])],
    {
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe.skipIf(!builtCli)('kubesim snapshot against kubesim serve', () => {
  let srv: ServeProcess;
  const inputs = mkdtempSync(join(tmpdir(), 'kubesim-snapshot-'));
  beforeAll(async () => {
    writeFileSync(join(inputs, 'extra.yaml'), EXTRA);
    srv = await startServe(['--tls', '--paused', '--cluster', source, join(inputs, 'extra.yaml')]);
  }, 240_000);
  afterAll(async () => {
    await srv?.stop();
    rmSync(inputs, { recursive: true, force: true });
  });

  it('the snapshot plans exactly like the served source (15 replicas of pod-api)', () => {
    const snap = join(srv.dir, 'snapshot.yaml');
    // --no-progress: stderr is compared whole, and a loaded machine can take the 2 s after which
    // progress lines appear
    const r = run(['snapshot', '--kubeconfig', srv.kubeconfig, '--out', snap, '--no-progress']);
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^kubesim snapshot: \d+ objects from https:\/\/127\.0\.0\.1:\d+\n$/);
    const plan = (...cluster: string[]) => {
      const p = run([
        'plan',
        '--cluster',
        ...cluster,
        '--pod',
        join(root, 'examples/snapshot/pod-api.yaml'),
        '-o',
        'json',
      ]);
      expect(p.code).toBe(0);
      // plan names the kinds it does not read (PDBs without a drain) for both inputs; the storage
      // kinds go to the volume plugins
      const unused = /^warning: not used by the plan: (.*) \(--cluster\)\n$/.exec(p.err)?.[1];
      expect(unused?.split(', ').sort()).toEqual(['1 PodDisruptionBudget']);
      return JSON.parse(p.out);
    };
    const captured = plan(snap);
    expect(captured.shapes[0].fits).toBe(15);
    expect(captured).toEqual(plan(source, join(inputs, 'extra.yaml')));
  }, 240_000);

  it('holds every kind, stripped of server-set fields and last-applied', () => {
    const r = run(['snapshot', '--kubeconfig', srv.kubeconfig, '-o', 'json']);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.out);
    expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List' });
    const items = list.items as { kind: string; apiVersion: string; metadata: Record<string, unknown> }[];
    const byKind = (k: string) => items.filter((i) => i.kind === k);
    expect(byKind('Node')).toHaveLength(6);
    expect(byKind('Pod')).toHaveLength(6);
    expect(byKind('PriorityClass')).toMatchObject([{ apiVersion: 'scheduling.k8s.io/v1', value: 1000 }]);
    expect(byKind('StorageClass')).toMatchObject([
      { metadata: { name: 'fast' }, volumeBindingMode: 'WaitForFirstConsumer' },
    ]);
    expect(byKind('PodDisruptionBudget')).toMatchObject([
      { apiVersion: 'policy/v1', spec: { minAvailable: 1 } },
    ]);
    expect(byKind('PersistentVolumeClaim')).toMatchObject([
      { metadata: { name: 'data', namespace: 'shop' } },
    ]);
    // the storage kinds the README's kubectl command captures for VolumeBinding's capacity check
    expect(byKind('CSIDriver')).toMatchObject([
      {
        apiVersion: 'storage.k8s.io/v1',
        metadata: { name: 'fast.example.com' },
        spec: { storageCapacity: true },
      },
    ]);
    expect(byKind('CSIStorageCapacity')).toMatchObject([
      {
        apiVersion: 'storage.k8s.io/v1',
        metadata: { name: 'fast-zone-a', namespace: 'kube-system' },
        storageClassName: 'fast',
        capacity: '40Gi',
      },
    ]);
    for (const i of items) {
      for (const f of ['resourceVersion', 'uid', 'creationTimestamp', 'managedFields', 'generation'])
        expect(i.metadata[f], `${i.kind} ${i.metadata.name} ${f}`).toBeUndefined();
      expect(JSON.stringify(i.metadata)).not.toContain('last-applied-configuration');
    }
    // the same objects, written as YAML by default
    const y = parseYaml(run(['snapshot', '--kubeconfig', srv.kubeconfig]).out);
    expect(y.items).toEqual(items);
  });

  it('-o table counts each kind; a missing context or kubeconfig is one line and exit 1', () => {
    const t = run(['snapshot', '--kubeconfig', srv.kubeconfig, '-o', 'table']);
    expect(t.out).toMatch(/^KIND\s+OBJECTS\nNamespace\s+\d+\nNode\s+6\n/);
    expect(t.out).toMatch(/\nPod\s+6\n$/);
    const ctx = run(['snapshot', '--kubeconfig', srv.kubeconfig, '--context', 'prod']);
    expect(ctx.code).toBe(1);
    expect(ctx.err).toBe(
      `kubesim: --context prod: ${srv.kubeconfig} has no such context (it has: kubesim)\n`,
    );
    const missing = run(['snapshot', '--kubeconfig', join(srv.dir, 'nope')]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/^kubesim: .*nope: not a kubeconfig: ENOENT/);
  });

  it('-o table lists every kind the README kubectl command captures', () => {
    const t = run(['snapshot', '--kubeconfig', srv.kubeconfig, '-o', 'table']);
    expect(t.code).toBe(0);
    const kinds = new Set(
      t.out
        .split('\n')
        .slice(1, -1)
        .map((l) => l.split(/\s+/)[0]),
    );
    for (const k of [...SNAPSHOT_KINDS, 'PriorityClass']) expect(kinds, k).toContain(k);
    expect(t.out).toMatch(/\nCSIDriver\s+1\n/);
    expect(t.out).toMatch(/\nCSIStorageCapacity\s+1\n/);
  });

  it('an unreachable server names the URL', () => {
    const kc = readFileSync(srv.kubeconfig, 'utf8').replace(/127\.0\.0\.1:\d+/, '127.0.0.1:1');
    const file = join(srv.dir, 'closed');
    writeFileSync(file, kc);
    const r = run(['snapshot', '--kubeconfig', file, '--no-progress']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^kubesim: GET https:\/\/127\.0\.0\.1:1\/api\/v1\/namespaces\?limit=500: connect ECONNREFUSED/,
    );
  });
});

// A cluster older than v1.34 serves no resource.k8s.io/v1: its DRA kinds are skipped with a
// warning, every other kind is captured. A plain HTTP server stands in for it (404 on that group,
// empty lists elsewhere), as kube-apiserver answers an unserved group version.
describe.skipIf(!builtCli)('kubesim snapshot of a cluster without resource.k8s.io/v1', () => {
  it('skips the DRA kinds with one warning each and captures the rest', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.setHeader('Content-Type', 'application/json');
      if (req.url?.startsWith('/apis/resource.k8s.io/')) {
        res.statusCode = 404;
        res.end(
          JSON.stringify({
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            message: 'the server could not find the requested resource',
            reason: 'NotFound',
            code: 404,
          }),
        );
        return;
      }
      res.end(
        JSON.stringify({ kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items: [] }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-snapshot-old-'));
    try {
      const port = (server.address() as AddressInfo).port;
      const kc = join(dir, 'kubeconfig');
      writeFileSync(
        kc,
        `apiVersion: v1
kind: Config
# client-node refuses plain HTTP unless TLS verification is off
clusters: [{name: old, cluster: {server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {}}]
contexts: [{name: old, context: {cluster: old, user: u}}]
current-context: old
`,
      );
      const r = await runAsync(['snapshot', '--kubeconfig', kc, '-o', 'table', '--no-progress']);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toBe(
        ['DeviceClass', 'ResourceSlice', 'ResourceClaimTemplate', 'ResourceClaim']
          .map(
            (k) =>
              `warning: ${k}: not served by this cluster (${collectionPath(k).path}: 404), none captured\n`,
          )
          .join('') + `kubesim snapshot: 0 objects from http://127.0.0.1:${port}\n`,
      );
      expect(r.out).toMatch(/\nCSIStorageCapacity\s+0\n/);
      expect(r.out).not.toContain('ResourceClaim');
      expect(seen).toContain('/apis/storage.k8s.io/v1/csidrivers?limit=500');
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** the CLI run without blocking the event loop (the test's own HTTP server answers it) */
function runAsync(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [cli, ...args]);
    let out = '';
    let err = '';
    p.stdout.on('data', (c) => (out += c));
    p.stderr.on('data', (c) => (err += c));
    p.on('close', (code) => resolve({ code, out, err }));
  });
}

// `kubesim snapshot` against `kubesim serve` (a real client library against a real HTTP server):
// the snapshot of a served cluster plans exactly like the file the cluster was served from, holds
// every kind capacity planning and the proxy read, and has none of the fields the server set.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
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
provisioner: example.com/fast
volumeBindingMode: WaitForFirstConsumer
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
  }, 90_000);

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

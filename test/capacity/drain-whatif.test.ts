// `plan --what-if drain=NODE`: cordon, evict what the PodDisruptionBudgets allow, keep the rest on
// the node; checked by hand on a two-node snapshot through the CLI.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/paths.js';

const cli = join(packageRoot(), 'dist', 'src', 'cli', 'index.js');
const run = (...args: string[]) =>
  spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 60_000 });

const node = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name } },
  status: {
    allocatable: { cpu: '4', memory: '16Gi', pods: '110' },
    capacity: { cpu: '4', memory: '16Gi', pods: '110' },
  },
});
const owner = (kind: string, name: string) => [
  { apiVersion: 'apps/v1', kind, name, uid: `u-${name}`, controller: true },
];
const pod = (name: string, app: string, ownerRefs: object[]) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels: { app }, ownerReferences: ownerRefs },
  spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '1' } } }] },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
});
const workload = (kind: string, name: string, replicas: number) => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name, namespace: 'default', uid: `u-${name}` },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
  },
});
const pdb = (name: string, spec: object) => ({
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name, namespace: 'default' },
  spec: { selector: { matchLabels: { app: name } }, ...spec },
});

const dir = mkdtempSync(join(tmpdir(), 'kubesim-drain-'));
const snapshot = join(dir, 'cluster.json');
const shape = join(dir, 'pod.json');
writeFileSync(
  snapshot,
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      node('n1'),
      node('n2'),
      workload('StatefulSet', 'db', 2),
      workload('ReplicaSet', 'web', 1),
      pod('db-0', 'db', owner('StatefulSet', 'db')),
      pod('db-1', 'db', owner('StatefulSet', 'db')),
      pod('web-x', 'web', owner('ReplicaSet', 'web')),
      pdb('db', { maxUnavailable: 0 }), // 2 expected, 2 desired: never a disruption
      pdb('web', { minAvailable: 0 }), // 1 healthy, 0 desired: one disruption allowed
    ],
  }),
);
writeFileSync(
  shape,
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'job' },
    spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '1' } } }] },
  }),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!existsSync(cli))('plan --what-if drain=', () => {
  it('evicts the pod its budget allows, keeps the budget-blocked ones, cordons the node', () => {
    const r = run('plan', '--cluster', snapshot, '--pod', shape, '--what-if', 'drain=n1', '-o', 'json');
    expect(r.status).toBe(0);
    const rep = JSON.parse(r.stdout);
    expect(rep.applied).toEqual([
      'drained 1 node(s): 1 pod(s) evicted and displaced, 2 blocked (2 by default/db)',
    ]);
    // n1 is cordoned (db-0, db-1 stay on it); web-x moves to n2 (1 of its 4 cpu): 3 more fit
    expect(rep.shapes[0].fits).toBe(3);
    expect(r.stderr).not.toContain('PodDisruptionBudget');
  });
  it('without a drain the budgets are named as unused input', () => {
    const r = run('plan', '--cluster', snapshot, '--pod', shape, '-o', 'json');
    expect(r.status).toBe(0);
    // n1: 4 − 3 = 1, n2: 4
    expect(JSON.parse(r.stdout).shapes[0].fits).toBe(5);
    expect(r.stderr).toContain('2 PodDisruptionBudget');
  });
  it('an unknown node is a clear error', () => {
    const r = run('plan', '--cluster', snapshot, '--pod', shape, '--what-if', 'drain=n9');
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('drain: no node named "n9" in the cluster');
  });
});

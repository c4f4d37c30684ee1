import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/api/manifest.js';
import type { Pod } from '../../src/api/types.js';
import { loadPlanCluster, toPlanCluster } from '../../src/capacity/cluster-input.js';
import { planCapacity } from '../../src/capacity/planner.js';
import { daemonPodEligible, daemonSetPods, missingReplicas } from '../../src/capacity/workloads.js';
import { podFromWorkload } from '../../src/api/workload-pod.js';
import { packageRoot } from '../../src/util/paths.js';

/*
 * The snapshot (test/fixtures/capacity-workloads/snapshot.yaml), checked by hand. cpu binds;
 * every node has 4100m.
 *   n1: log DaemonSet pod 100m, web pod 1000m, db-0 1000m           → 2000m free
 *   n2: web pod 1000m                                                → 3100m free
 *   n3: tainted dedicated=gpu:NoSchedule, gpu=true                   → only gpu-plugin goes there
 * What the workloads still create, placed before counting:
 *   DaemonSet log (no toleration for the gpu taint): eligible n1, n2; n1 runs it → 1 pod on n2 (100m)
 *   DaemonSet gpu-plugin (nodeSelector gpu=true, tolerates it): eligible n3 → 1 pod on n3 (500m)
 *   Deployment web: 4 replicas, its ReplicaSet has 2 pods → 2 more (1000m each, priority 1000 from class "high")
 *   StatefulSet db: 2 replicas, db-0 exists → db-1 (1000m)
 *   Pod batch-x, pending → 500m; Pod gated has a scheduling gate → never tried
 * n1 + n2 free after them: 2000 + 3000 − 2000 − 1000 − 500 = 1500m, and every amount but the
 * DaemonSet's 100m is a multiple of 500m, so the 500m worker fits exactly 3 times wherever the
 * scheduler puts things (n3's taint keeps it off n3). Counting only running pods it was 10.
 * add-nodes=1:n2 adds a 4100m node; log's DaemonSet pod takes 100m → 8 more → 11.
 */
const dir = join(packageRoot(), 'test', 'fixtures', 'capacity-workloads');
const snapshot = join(dir, 'snapshot.yaml');
const shapeFile = join(dir, 'shape.yaml');
const cli = join(packageRoot(), 'dist', 'src', 'cli', 'index.js');
const run = (...args: string[]) =>
  spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 60_000 });

describe('capacity counts what workloads will consume', () => {
  it('plans the hand-checked answer: pending replicas, DaemonSet pods, overhead per node', async () => {
    const { cluster, unused } = await loadPlanCluster([snapshot]);
    const shape = (await loadManifests([shapeFile]))[0]!.object as Pod;
    const rep = planCapacity(cluster, [shape], { kernel: 'js' });
    expect(rep.shapes[0]!.fits).toBe(3);
    expect(rep.workloads.pending).toEqual({
      total: 5,
      placed: 4,
      unschedulable: [],
      blocked: [
        { pod: 'shop/gated', reason: 'SchedulingGated: waiting for scheduling gates example.com/quota' },
      ],
    });
    expect(rep.workloads.daemonSets).toEqual([
      { daemonSet: 'DaemonSet kube-system/log', eligible: 2, running: 1, created: 1, placed: 1 },
      { daemonSet: 'DaemonSet kube-system/gpu-plugin', eligible: 1, running: 0, created: 1, placed: 1 },
    ]);
    expect(rep.workloads.daemonSetOverhead).toEqual([
      { node: 'n1', pods: 1, requests: { cpu: 100, memory: 128 * 2 ** 20 } },
      { node: 'n2', pods: 1, requests: { cpu: 100, memory: 128 * 2 ** 20 } },
      { node: 'n3', pods: 1, requests: { cpu: 500, memory: 512 * 2 ** 20 } },
    ]);
    expect([...unused]).toEqual([
      ['ConfigMap', 1],
      ['PodDisruptionBudget', 1],
    ]);
    const added = planCapacity(cluster, [shape], {
      kernel: 'js',
      whatIfs: [{ kind: 'add-nodes', count: 1, template: 'n2' }],
    });
    expect(added.shapes[0]!.fits).toBe(11);
    expect(added.workloads.daemonSets[0]).toMatchObject({ eligible: 3, created: 2, placed: 2 });
  });

  it('new pods take their priority from their class and their names from their controller', async () => {
    const { cluster } = toPlanCluster(await loadManifests([snapshot]));
    const pods = [...cluster.boundPods, ...cluster.pendingPods];
    const missing = missingReplicas(cluster.workloads, cluster.replicaSets, pods);
    expect(missing.map((m) => [m.pod.metadata.name, m.owner, m.pod.spec.priority])).toEqual([
      ['web-7d9f-planned-0', 'Deployment shop/web', 1000],
      ['web-7d9f-planned-1', 'Deployment shop/web', 1000],
      ['db-1', 'StatefulSet shop/db', 0],
    ]);
    expect(missing[0]!.pod.metadata.labels).toEqual({ app: 'web', 'pod-template-hash': '7d9f' });
    expect(missing[2]!.pod.spec).toMatchObject({ hostname: 'db-1', subdomain: 'db' });
    const ds = daemonSetPods(cluster.workloads, cluster.nodes, pods);
    const logPod = ds[0]!.pods[0]!.pod;
    expect(logPod.spec.priority).toBe(2000001000); // system-node-critical
    expect(logPod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toEqual({
      nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }],
    });
  });

  it("a DaemonSet's default tolerations let it run on cordoned and not-ready nodes, not on tainted ones", async () => {
    const { cluster } = toPlanCluster(await loadManifests([snapshot]));
    const log = podFromWorkload(cluster.workloads.daemonSets[0]!);
    const node = (taints: { key: string; value?: string; effect: string }[], unschedulable = false) =>
      ({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'x', labels: {} },
        spec: { taints, unschedulable },
      }) as never;
    expect(
      daemonPodEligible(log, node([{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }], true)),
    ).toBe(true);
    expect(daemonPodEligible(log, node([{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }]))).toBe(
      true,
    );
    expect(daemonPodEligible(log, node([{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]))).toBe(
      false,
    );
    expect(
      daemonPodEligible(log, node([{ key: 'dedicated', value: 'gpu', effect: 'PreferNoSchedule' }])),
    ).toBe(true);
  });
});

describe.skipIf(!existsSync(cli))('kubesim plan on a snapshot with workloads', () => {
  it('prints the answer, the DaemonSet overhead and one warning line for what it does not use', () => {
    const r = run('plan', '--cluster', snapshot, '--pod', shapeFile, '--kernel', 'js');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(
      'pending pods and missing replicas: 5, placed 4, unschedulable 0, never tried 1',
    );
    expect(r.stdout).toContain(
      'DaemonSet overhead per node: cpu=100m memory=128Mi (1 pod) on 2 nodes; cpu=500m memory=512Mi (1 pod) on 1 node',
    );
    expect(r.stdout).toMatch(/shop\/worker\s+cpu=500m memory=512Mi\s+3\s/);
    expect(r.stderr).toBe('warning: not used by the plan: 1 ConfigMap, 1 PodDisruptionBudget (--cluster)\n');
    const min = run(
      'plan',
      '--cluster',
      snapshot,
      '--pod',
      shapeFile,
      '--min-nodes',
      'n2',
      '--replicas',
      '11',
    );
    expect(min.stdout).toContain('add 1 node(s) like n2 (a: 1) for 11 replica(s) to fit');
  });
});

describe.skipIf(!existsSync(cli))('quantities as kubectl prints them (issue 29, class 8)', () => {
  it('a third of a core is 333m, one and a half Gi is 1536Mi, whole cores are plain numbers', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'kubesim-qty-'));
    const pod = (name: string, cpu: string, memory: string) =>
      `apiVersion: v1\nkind: Pod\nmetadata: { name: ${name} }\nspec:\n  containers:\n    - { name: c, image: x, resources: { requests: { cpu: "${cpu}", memory: "${memory}" } } }\n`;
    writeFileSync(join(tmp, 'third.yaml'), pod('third', '0.333', '1.5Gi'));
    writeFileSync(join(tmp, 'two.yaml'), pod('two', '2', '512Mi'));
    const r = run('plan', '--cluster', snapshot, '--pod', join(tmp, 'third.yaml'), '--kernel', 'js');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('cpu=333m memory=1536Mi');
    expect(r.stdout).not.toContain('0.333');
    const two = run('plan', '--cluster', snapshot, '--pod', join(tmp, 'two.yaml'), '--kernel', 'js');
    expect(two.stdout).toContain('cpu=2 memory=512Mi');
    rmSync(tmp, { recursive: true, force: true });
  });
});

// `kubesim plan` with CSI attach limits (test/fixtures/storage/attach-limits.yaml): three nodes
// with room for 4 EBS volumes each; n1 already holds db-0's volume, n2 one attached by a
// VolumeAttachment. Each replica of the shape has its own generic ephemeral volume, so by hand:
// 4 − 1 = 3 on n1, 4 − 1 = 3 on n2, 4 on n3 — 10, although CPU alone would allow 478.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPlanCluster } from '../../src/capacity/cluster-input.js';
import { planCapacity } from '../../src/capacity/planner.js';
import { kubesimInProcess } from '../cli/harness.js';

const dir = join(import.meta.dirname, '..', 'fixtures', 'storage');
const cluster = join(dir, 'attach-limits.yaml');
const pod = join(dir, 'worker-pod.yaml');

describe('plan bounded by CSI attach limits', () => {
  it('counts 3 + 3 + 4 = 10 replicas and names NodeVolumeLimits as what stops the next', async () => {
    const { cluster: c } = await loadPlanCluster([cluster]);
    const shape = (await loadPlanCluster([pod])).cluster.pendingPods[0];
    const r = planCapacity(c, [shape!], { kernel: 'js' });
    const s = r.shapes[0]!;
    expect(s.fits).toBe(10);
    expect(Object.fromEntries(s.perNode.map((n) => [n.node, n.count]))).toEqual({ n1: 3, n2: 3, n3: 4 });
    expect(s.stopReasons).toEqual({ 'node(s) exceed max volume count': 3 });
    expect(s.stopReason).toBe(
      '0/3 nodes are available: 3 node(s) exceed max volume count. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
    );
    expect(s.volumeStop).toEqual([
      '3 node(s) exceed max volume count — NodeVolumeLimits (CSI attach limits)',
    ]);
    // resources alone would fit far more: the volumes are the bound
    expect(s.fragmentation.fitsByResources).toBeGreaterThan(100);
  });

  it('the CLI says so: 10 more replicas, stopped by volumes', async () => {
    const r = await kubesimInProcess(['plan', '--cluster', cluster, '--pod', pod, '--no-progress']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('── default/worker: 10 more replica(s)');
    expect(r.stdout).toContain(
      'stopped by volumes: 3 node(s) exceed max volume count — NodeVolumeLimits (CSI attach limits)',
    );
  });
});

describe('explain shows the volume plugins verdicts', () => {
  it('VolumeBinding rejects the node outside the volume zone; the others pass', async () => {
    const r = await kubesimInProcess([
      'explain',
      '--cluster',
      join(dir, 'zonal-claim.yaml'),
      '--pod',
      join(dir, 'db-1.yaml'),
      '-o',
      'json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const ex = JSON.parse(r.stdout);
    expect(ex.chosen).toBe('a1');
    const b1 = ex.nodes.find((n: { name: string }) => n.name === 'b1');
    const verdict = (plugin: string) =>
      b1.filters.find((f: { plugin: string }) => f.plugin === plugin) as {
        result: string;
        reasons?: string[];
      };
    expect(verdict('VolumeBinding')).toMatchObject({
      reasons: ["node(s) didn't match PersistentVolume's node affinity"],
    });
    expect(verdict('VolumeBinding').result).toBe('UnschedulableAndUnresolvable');
    expect(verdict('NodeVolumeLimits').result).toBe('pass');
    // no RWOP claim, no in-line disk: VolumeRestrictions skips; no zone labels on the PV: VolumeZone too
    expect(verdict('VolumeRestrictions').result).toBe('skip');
    expect(verdict('VolumeZone').result).toBe('skip');
  });
});

describe('a zone loss with a zonal volume', () => {
  it('plan --what-if remove-zone=zone-a: db-0 is displaced and fits nowhere, its volume stays in zone-a', async () => {
    const r = await kubesimInProcess([
      'plan',
      '--cluster',
      cluster,
      '--pod',
      pod,
      '--what-if',
      'remove-zone=zone-a',
      '--no-progress',
      '-o',
      'json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.displaced).toEqual({
      total: 1,
      placed: 0,
      unschedulable: [
        {
          pod: 'default/db-0',
          reason:
            "0/2 nodes are available: 2 node(s) didn't match PersistentVolume's node affinity. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
        },
      ],
    });
    // n2 and n3 keep their attach room: 3 + 4 more workers
    expect(j.shapes[0].fits).toBe(7);
  });
});

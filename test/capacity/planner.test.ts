import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { loadClusterFiles } from '../../src/scheduler/framework/cluster-file.js';
import { loadManifests } from '../../src/api/manifest.js';
import type { Pod } from '../../src/api/types.js';
import { planCapacity, minNodesToAdd } from '../../src/capacity/planner.js';
import { parseWhatIf } from '../../src/capacity/whatif.js';

const fx = (f: string) => join(__dirname, '..', '..', 'examples', 'snapshot', f);
const cluster = await loadClusterFiles([fx('cluster.yaml')]);
const pod = async (f: string) => (await loadManifests([fx(f)]))[0].object as Pod;
const api = await pod('pod-api.yaml');
const worker = await pod('pod-worker.yaml');

// Hand-checked free room (allocatable − requests) for the shape api = 1 CPU / 2Gi:
//   cp-1 (a, control-plane taint)  3.5 CPU  7Gi   → 0 (taint), 3 by resources alone
//   a-1 (a)  2 CPU 12Gi → 2     a-2 (a)  2 CPU 8Gi → 2
//   b-1 (b)  2 CPU 28Gi → 2     b-2 (b)  8 CPU 32Gi → 8
//   c-1 (c)  1.9 CPU 3968Mi → 1
describe.each(['js', 'wasm'] as const)('planCapacity (%s kernel) on a kubectl List snapshot', (kernel) => {
  it('counts how many replicas fit, per node and zone, and why the next one does not', () => {
    const rep = planCapacity(cluster, [api], { kernel, seed: 7 });
    const s = rep.shapes[0];
    expect(s.fits).toBe(15);
    expect(s.limitReached).toBe(false);
    expect(Object.fromEntries(s.perNode.map((n) => [n.node, n.count]))).toEqual({
      'b-2': 8,
      'a-1': 2,
      'a-2': 2,
      'b-1': 2,
      'c-1': 1,
    });
    expect(s.perZone).toEqual({ 'eu-west-1a': 4, 'eu-west-1b': 10, 'eu-west-1c': 1 });
    // after 15: c-1 has 900m and 1920Mi left (both short), the rest are out of CPU, cp-1 is tainted
    expect(s.stopReason).toMatch(
      /^0\/6 nodes are available: 1 Insufficient memory, 1 node\(s\) had untolerated taint\(s\), 5 Insufficient cpu\./,
    );
    expect(s.stopReasons).toEqual({
      'Insufficient cpu': 5,
      'Insufficient memory': 1,
      'node(s) had untolerated taint(s)': 1,
    });
    // the resource-only bound counts cp-1's 3: the difference is what the taint costs
    expect(s.fragmentation.fitsByResources).toBe(18);
  });

  it('losing zone b displaces the Job pod (no room left for 6 CPU) and leaves 5 replicas', () => {
    const rep = planCapacity(cluster, [api], { kernel, whatIfs: [parseWhatIf('lose-zone=eu-west-1b')] });
    expect(rep.nodes).toBe(4);
    expect(rep.displaced.total).toBe(1);
    expect(rep.displaced.placed).toBe(0);
    expect(rep.displaced.unschedulable[0].pod).toBe('batch/report-28890-xk2p9');
    expect(rep.displaced.unschedulable[0].reason).toMatch(/^0\/4 nodes are available: /);
    expect(rep.shapes[0].fits).toBe(5);
  });

  it('plans several shapes independently, or mixed into one cluster', () => {
    const rep = planCapacity(cluster, [api, worker], { kernel });
    expect(rep.shapes.map((s) => s.fits)).toEqual([15, 2]); // worker (3 CPU) fits only on b-2, twice
    const mixed = planCapacity(cluster, [api, worker], { kernel, mix: true });
    const cpu = mixed.shapes[0].fits * 1000 + mixed.shapes[1].fits * 3000;
    expect(cpu).toBeLessThanOrEqual(15_400); // never more CPU than the schedulable nodes have free
    expect(mixed.shapes[0].fits + mixed.shapes[1].fits).toBeGreaterThan(2);
  });

  it('finds the fewest nodes to add for a target (hand-checked: 1 b-2 for 20; 3 after losing zone b)', () => {
    const r = minNodesToAdd(cluster, api, 20, 'b-2', { kernel });
    expect(r.nodes).toBe(1);
    // lose b: 5 fit; the displaced Job takes 6 of a new node's 8 CPU → 5 + 8k − 6 ≥ 20 → k = 3
    const r2 = minNodesToAdd(cluster, api, 20, 'b-2', {
      kernel,
      whatIfs: [parseWhatIf('lose-zone=eu-west-1b')],
      zone: 'eu-west-1b',
    });
    expect(r2.nodes).toBe(3);
    expect(r2.tried.find((t) => t.add === 2)!.fits).toBeLessThan(20);
  });

  it('stops at maxReplicas and says so', () => {
    const rep = planCapacity(cluster, [api], { kernel, maxReplicas: 4 });
    expect(rep.shapes[0].fits).toBe(4);
    expect(rep.shapes[0].limitReached).toBe(true);
    expect(rep.shapes[0].stopReason).toBeUndefined();
  });
});

describe('planCapacity determinism and kernels', () => {
  it('the same seed gives the same placements; js and wasm agree', () => {
    const a = planCapacity(cluster, [api], { kernel: 'js', seed: 3 });
    const b = planCapacity(cluster, [api], { kernel: 'js', seed: 3 });
    const w = planCapacity(cluster, [api], { kernel: 'wasm', seed: 3 });
    expect(b.shapes).toEqual(a.shapes);
    expect(w.shapes).toEqual(a.shapes);
  });

  it('rejects a shape with a bad quantity naming the pod and field', async () => {
    const bad: Pod = structuredClone(api);
    bad.spec.containers[0].resources!.requests!.cpu = '1.5x';
    expect(() => planCapacity(cluster, [bad])).toThrow(
      /shop\/api.*spec\.containers\[0\]\.resources\.requests.*cpu/,
    );
  });
});

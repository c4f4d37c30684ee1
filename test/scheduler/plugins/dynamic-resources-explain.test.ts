// `kubesim explain` per ResourceClaim, on the hand-checked GPU snapshot (test/fixtures/dra/): each
// claim of a pending pod on each node — the devices it would get alone, or DynamicResources' v1.34
// reason with the node's device counts per request; an allocated claim shared by a second pod.
import { describe, expect, it } from 'vitest';
import { kubesim } from '../../cli/harness.js';

const cluster = [
  '--cluster',
  'test/fixtures/dra/gpu-cluster.yaml',
  'test/fixtures/dra/pair-and-quad-templates.yaml',
];

function explain(...args: string[]) {
  const r = kubesim(['explain', ...args]);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}

describe('kubesim explain with ResourceClaims', () => {
  it('shows why each claim of a pending pod cannot be allocated, per node (by hand: pair-and-quad.yaml)', () => {
    const ex = JSON.parse(explain(...cluster, '--pod', 'test/fixtures/dra/pair-and-quad.yaml', '-o', 'json'));
    expect(ex.chosen).toBeUndefined();
    expect(ex.fitError).toBe(
      '0/3 nodes are available: 3 cannot allocate all claims. still not schedulable, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    );
    const claim = (name: string) => ex.claims.find((c: { podClaim: string }) => c.podClaim === name);
    const byNode = (name: string) =>
      Object.fromEntries(
        claim(name).nodes.map(
          (n: {
            node: string;
            reason?: string;
            devices?: string[];
            requests: { free: number; selectable: number; devices: number }[];
          }) => [
            n.node,
            [n.reason ?? n.devices, n.requests[0].devices, n.requests[0].selectable, n.requests[0].free],
          ],
        ),
      );
    // made from its template as the ResourceClaim controller would, named <pod>-<claim> offline
    expect(claim('pair')).toMatchObject({ claim: 'pair-and-quad-pair', state: 'pending' });
    // gpu-1 (numa 0) has no free NUMA partner on gpu-a (gpu-0 is trainer-0's): gpu-2 and gpu-3
    expect(byNode('pair')).toEqual({
      'gpu-a': [['gpu-a/gpu-2', 'gpu-a/gpu-3'], 4, 4, 3],
      'gpu-b': [['gpu-b/gpu-0', 'gpu-b/gpu-1'], 4, 4, 4],
      'cpu-a': ['cannot allocate all claims', 0, 0, 0],
    });
    expect(byNode('quad')).toEqual({
      'gpu-a': ['cannot allocate all claims', 4, 4, 3],
      'gpu-b': [['gpu-b/gpu-0', 'gpu-b/gpu-1', 'gpu-b/gpu-2', 'gpu-b/gpu-3'], 4, 4, 4],
      'cpu-a': ['cannot allocate all claims', 0, 0, 0],
    });
    // the text form: one table per claim
    const text = explain(...cluster, '--pod', 'test/fixtures/dra/pair-and-quad.yaml');
    expect(text).toContain(
      'Claim quad (ResourceClaim pair-and-quad-quad): pending allocation, each node tried for this claim alone:',
    );
    expect(text).toMatch(/gpu-a +gpus +gpu\.example\.com +4 +4 +4 +3 +✗ cannot allocate all claims/);
  });

  it('shows an allocated claim shared with another pod and the nodes it is not available on', () => {
    const ex = JSON.parse(explain(...cluster, '--pod', 'test/fixtures/dra/shares-claim.yaml', '-o', 'json'));
    expect(ex.chosen).toBe('gpu-a');
    expect(ex.claims).toEqual([
      {
        podClaim: 'gpu',
        claim: 'trainer-0-gpu-8s7df',
        state: 'allocated',
        devices: ['gpu.example.com/gpu-a/gpu-0'],
        nodes: [
          { node: 'gpu-a' },
          { node: 'gpu-b', reason: 'resourceclaim not available on the node' },
          { node: 'cpu-a', reason: 'resourceclaim not available on the node' },
        ],
      },
    ]);
  });

  it('names a claim the pod cannot use (a template that does not exist)', () => {
    const ex = JSON.parse(
      explain(
        '--cluster',
        'test/fixtures/dra/gpu-cluster.yaml',
        '--pod',
        'test/fixtures/dra/pair-and-quad.yaml',
        '-o',
        'json',
      ),
    );
    expect(ex.claims[0]).toEqual({
      podClaim: 'pair',
      state: 'unusable',
      message: 'pod "ml/pair-and-quad": ResourceClaim not created yet',
    });
  });
});

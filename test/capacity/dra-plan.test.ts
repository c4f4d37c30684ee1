/**
 * `kubesim plan` over a GPU snapshot (test/fixtures/dra/gpu-cluster.yaml: a kubectl List with v1 and
 * v1beta1 ResourceSlices, a DeviceClass, a claim template and one allocated claim), hand-checked:
 * gpu-a has 4 GPUs of which trainer-0 holds gpu-0, gpu-b has 4 free, cpu-a has none — 7 one-GPU
 * replicas fit (3 + 4) though CPU and memory alone would take 24, and the 8th stops with upstream's
 * "cannot allocate all claims" on all three nodes.
 */
import { describe, expect, it } from 'vitest';
import { kubesim } from '../cli/harness.js';

describe('plan with ResourceClaims (DRA)', () => {
  it('counts replicas limited by devices, per node, with the DynamicResources stop reason', () => {
    const r = kubesim([
      'plan',
      '--cluster',
      'test/fixtures/dra/gpu-cluster.yaml',
      '--pod',
      'test/fixtures/dra/trainer.yaml',
      '-o',
      'json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const shape = JSON.parse(r.stdout).shapes[0];
    expect(shape.fits).toBe(7);
    expect(shape.stopReasons).toEqual({ 'cannot allocate all claims': 3 });
    expect(
      Object.fromEntries(shape.perNode.map((n: { node: string; count: number }) => [n.node, n.count])),
    ).toEqual({ 'gpu-a': 3, 'gpu-b': 4 });
  });

  it('add-nodes clones the template node with its ResourceSlices (by hand: 3 + 4 + 2 × 4 = 15)', () => {
    const r = kubesim([
      'plan',
      '--cluster',
      'test/fixtures/dra/gpu-cluster.yaml',
      '--pod',
      'test/fixtures/dra/trainer.yaml',
      '--what-if',
      'add-nodes=2:gpu-b',
      '-o',
      'json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const shape = JSON.parse(r.stdout).shapes[0];
    expect(shape.fits).toBe(15);
    // each clone publishes gpu-b's 4 GPUs in a pool of its own
    expect(
      Object.fromEntries(shape.perNode.map((n: { node: string; count: number }) => [n.node, n.count])),
    ).toEqual({ 'gpu-a': 3, 'gpu-b': 4, 'gpu-b-whatif-1': 4, 'gpu-b-whatif-2': 4 });
    expect(shape.stopReasons).toEqual({ 'cannot allocate all claims': 5 });
  });

  it('--min-nodes over a GPU node template: 7 fit, each node like gpu-a adds 4, so 20 need 4', () => {
    const r = kubesim([
      'plan',
      '--cluster',
      'test/fixtures/dra/gpu-cluster.yaml',
      '--pod',
      'test/fixtures/dra/trainer.yaml',
      '--replicas',
      '20',
      '--min-nodes',
      'gpu-a',
      '-o',
      'json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const m = JSON.parse(r.stdout);
    expect(m.nodes).toBe(4);
    expect(m.tried.map((t: { add: number; fits: number }) => [t.add, t.fits])).toEqual(
      expect.arrayContaining([
        [0, 7],
        [2, 15],
        [3, 19],
        [4, 20],
      ]),
    );
  });

  it('kubesim strategies: every strategy makes its own claims (7 of 8 one-GPU replicas each)', () => {
    const r = kubesim([
      'strategies',
      '--cluster',
      'test/fixtures/dra/gpu-cluster.yaml',
      '--pod',
      'test/fixtures/dra/trainer.yaml',
      '--replicas',
      '8',
      '--no-progress',
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    for (const s of ['LeastAllocated', 'MostAllocated', 'RequestedToCapacityRatio']) {
      expect(r.stdout).toMatch(new RegExp(`^${s}\\s+7\\s+1\\s`, 'm'));
      expect(r.stdout).toContain(
        `${s}: first unschedulable ml/trainer-7: 0/3 nodes are available: 3 cannot allocate all claims.`,
      );
    }
  });

  it('rejects an invalid ResourceSlice with file, line and v1 field path', () => {
    const r = kubesim([
      'plan',
      '--cluster',
      'test/fixtures/dra/bad-slice.yaml',
      '--pod',
      'test/fixtures/dra/trainer.yaml',
    ]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(
      'ResourceSlice "bad": spec.devices[0].attributes[numa]: Required value: exactly one value must be specified',
    );
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});

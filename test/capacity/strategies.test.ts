import { describe, it, expect } from 'vitest';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Node, Pod } from '../../src/api/types.js';
import type { ClusterFile } from '../../src/scheduler/framework/cluster-file.js';
import { compareStrategies, resolveStrategy, BUILTIN_STRATEGIES } from '../../src/capacity/strategies.js';
import { replicaOf } from '../../src/capacity/planner.js';
import { makeNode } from '../helpers/builders.js';

const node = (name: string): Node =>
  makeNode(name)
    .labels({ 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': 'z' })
    .allocatable({ cpu: '4', memory: '16Gi', pods: '110' })
    .obj();
const cluster: ClusterFile = {
  sources: new Map(),
  nodes: ['n1', 'n2', 'n3', 'n4'].map(node),
  boundPods: [],
  pendingPods: [],
  services: [],
  replicaSets: [],
  others: [],
  namespaces: [],
};
const shape: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'w', namespace: 'default' },
  spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1', memory: '2Gi' } } }] },
};
const workload = (n: number) => Array.from({ length: n }, (_, i) => replicaOf(shape, i));

describe('strategy comparison', () => {
  it('LeastAllocated spreads 4 pods over 4 nodes; MostAllocated and the bin-packing ratio fill one (hand-checked)', async () => {
    const strategies = await Promise.all(BUILTIN_STRATEGIES.map((s) => resolveStrategy(s)));
    const [least, most, ratio] = compareStrategies(cluster, workload(4), strategies);
    expect(least).toMatchObject({
      strategy: 'LeastAllocated',
      placed: 4,
      unschedulable: 0,
      nodesUsed: 4,
      emptyNodes: 0,
    });
    expect(least.cpu.mean).toBe(25);
    expect(most).toMatchObject({ strategy: 'MostAllocated', placed: 4, nodesUsed: 1, emptyNodes: 3 });
    expect(most.cpu.max).toBe(100);
    expect(ratio).toMatchObject({ strategy: 'RequestedToCapacityRatio', nodesUsed: 1 });
  });

  it('reports unschedulable pods with the scheduler reason', async () => {
    const [most] = compareStrategies(cluster, workload(18), [await resolveStrategy('MostAllocated')]);
    expect(most.placed).toBe(16);
    expect(most.unschedulable).toBe(2);
    expect(most.failures[0].reason).toMatch(/^0\/4 nodes are available: 4 Insufficient cpu\./);
  });

  it('a user TS score plugin replaces NodeResourcesFit scoring', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-plugin-'));
    try {
      // prefers the node with the most pods already: a pod-count bin-packer
      const file = join(dir, 'pack.mjs');
      writeFileSync(
        file,
        `export default { name: 'PackByPods', score: (pod, node, pods) => Math.min(100, pods.length * 25) };\n`,
      );
      const s = await resolveStrategy(`plugin:${file}:5`);
      expect(s.name).toBe('PackByPods');
      const [r] = compareStrategies(cluster, workload(4), [s]);
      expect(r.nodesUsed).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects unknown strategies with the accepted forms', async () => {
    await expect(resolveStrategy('BestFit')).rejects.toThrow(
      /unknown strategy "BestFit" \(expected LeastAllocated, MostAllocated, RequestedToCapacityRatio, config:<file.yaml> or plugin:<module>\[:weight\]\)/,
    );
  });
});

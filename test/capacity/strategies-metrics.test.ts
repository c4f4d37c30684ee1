// `kubesim strategies` on a real snapshot: finished pods hold nothing, nodes used by the workload
// beside nodes used by anything, and where each strategy put the pods (-o wide, JSON).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kubesimInProcess, root } from '../cli/harness.js';

const SNAPSHOT = join(root, 'examples/snapshot/cluster.yaml');
const POD = join(root, 'examples/snapshot/pod-api.yaml');
const dir = mkdtempSync(join(tmpdir(), 'kubesim-strategies-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Row {
  strategy: string;
  nodesUsed: number;
  workloadNodes: number;
  emptyNodes: number;
  cpu: { mean: number };
  placements: { node: string; workloadPods: number; pods: number; cpu: number; memory: number }[];
}

async function rows(cluster: string, ...args: string[]): Promise<Row[]> {
  const r = await kubesimInProcess([
    'strategies',
    '--cluster',
    cluster,
    '--pod',
    POD,
    '--no-progress',
    '-o',
    'json',
    ...args,
  ]);
  expect(r.status).toBe(0);
  return (JSON.parse(r.stdout) as { strategies: Row[] }).strategies;
}

describe('strategies metrics on a snapshot', () => {
  it('nodes used by the workload beside nodes used by anything, with per-node placements', async () => {
    const [least, most] = await rows(
      SNAPSHOT,
      '--replicas',
      '3',
      '--strategy',
      'LeastAllocated',
      'MostAllocated',
    );
    // every node of the snapshot runs a pod already (6 nodes)
    expect(least.nodesUsed).toBe(6);
    expect(least.placements.map((p) => p.node).sort()).toEqual(['a-1', 'a-2', 'b-1', 'b-2', 'c-1', 'cp-1']);
    for (const r of [least, most]) {
      expect(r.placements.reduce((n, p) => n + p.workloadPods, 0)).toBe(3);
      expect(r.workloadNodes).toBe(r.placements.filter((p) => p.workloadPods > 0).length);
      expect(r.workloadNodes).toBeLessThanOrEqual(r.nodesUsed);
      expect(r.emptyNodes).toBe(6 - r.nodesUsed);
    }
    // b-1 runs the report Job's pod (6 of 8 CPUs)
    expect(least.placements.find((p) => p.node === 'b-1')).toMatchObject({
      pods: 1,
      workloadPods: 0,
      cpu: 75,
    });
    const wide = await kubesimInProcess([
      'strategies',
      '--cluster',
      SNAPSHOT,
      '--pod',
      POD,
      '--replicas',
      '3',
      '--strategy',
      'LeastAllocated',
      '--no-progress',
      '-o',
      'wide',
    ]);
    expect(wide.stdout).toMatch(/^LeastAllocated: pods per node$/m);
    expect(wide.stdout).toMatch(/^b-1\s+0\s+1\s+75\.0%\s+12\.5%$/m);
  });

  it('a finished pod requests nothing: its node is empty and does not count toward utilization', async () => {
    // the report Job's pod Succeeded: b-1 holds nothing any more
    const done = join(dir, 'finished.yaml');
    const text = readFileSync(SNAPSHOT, 'utf8');
    const at = text.indexOf('name: report-28890-xk2p9');
    const phase = text.indexOf('phase: Running', at);
    writeFileSync(
      done,
      text.slice(0, phase) + 'phase: Succeeded' + text.slice(phase + 'phase: Running'.length),
    );
    const [least] = await rows(done, '--replicas', '1', '--strategy', 'LeastAllocated');
    const [before] = await rows(SNAPSHOT, '--replicas', '1', '--strategy', 'LeastAllocated');
    // b-1 runs nothing now: an empty node, outside the utilization (the replica went to b-2)
    expect(least.placements.find((p) => p.node === 'b-1')).toBeUndefined();
    expect(least).toMatchObject({ nodesUsed: 5, emptyNodes: 1 });
    expect(before).toMatchObject({ nodesUsed: 6, emptyNodes: 0 });
    expect(least.cpu.mean).toBeLessThan(before.cpu.mean);
    expect(before.placements.find((p) => p.node === 'b-1')).toMatchObject({
      pods: 1,
      workloadPods: 0,
      cpu: 75,
    });
  });
});

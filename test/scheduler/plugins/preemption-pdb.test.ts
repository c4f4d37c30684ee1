// DefaultPreemption's PodDisruptionBudget criterion: rows of upstream's
// TestSelectNodesForPreemption / TestDryRunPreemption (pkg/scheduler/framework/plugins/
// defaultpreemption/default_preemption_test.go, v1.34) with their PDBs, resources as upstream
// (node capacity veryLargeRes 500m/500Mi, mediumRes 200, largeRes 300), and pickOneNodeForPreemption's
// first criterion.
import { describe, expect, it } from 'vitest';
import type { PodDisruptionBudget } from '../../../src/api/batch-types.js';
import type { Pod } from '../../../src/api/types.js';
import { pickOneNodeForPreemption } from '../../../src/scheduler/plugins/default-preemption.js';
import { SchedulerCore } from '../../../src/scheduler/scheduler.js';
import { makeNode, makePod } from '../../helpers/builders.js';

const VERY_LARGE = { cpu: '500m', memory: '500Mi' };
const LARGE = { cpu: '300m', memory: '300Mi' };
const MEDIUM = { cpu: '200m', memory: '200Mi' };
const node = (name: string) =>
  makeNode(name)
    .label('kubernetes.io/hostname', name)
    .capacity({ ...VERY_LARGE, pods: '110' })
    .obj();
const pdb = (allowed: number, disrupted: string[] = []): PodDisruptionBudget => ({
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name: 'pdb', namespace: 'default' },
  spec: { selector: { matchLabels: { app: 'foo' } } },
  status: {
    disruptionsAllowed: allowed,
    currentHealthy: 0,
    desiredHealthy: 0,
    expectedPods: 0,
    disruptedPods: Object.fromEntries(disrupted.map((d) => [d, '2026-01-01T00:00:00Z'])),
  },
});
const foo = (name: string, n: string, req: Record<string, string>): Pod =>
  makePod(name).node(n).label('app', 'foo').priority(100).req(req).obj();

function preempt(
  nodes: string[],
  pods: Pod[],
  pdbs: PodDisruptionBudget[],
  req: Record<string, string>,
  args?: object,
) {
  const core = new SchedulerCore({
    nodes: nodes.map(node),
    pods,
    seed: 4,
    objects: { podDisruptionBudgets: pdbs },
    config: args ? { profiles: [{ pluginConfig: [{ name: 'DefaultPreemption', args }] }] } : undefined,
  } as ConstructorParameters<typeof SchedulerCore>[0]);
  const out = core.schedule(makePod('p').priority(1000).req(req).obj());
  if (out.kind !== 'unschedulable' || !out.postFilter) throw new Error(`no preemption: ${out.kind}`);
  return out.postFilter;
}

describe('DefaultPreemption with PodDisruptionBudgets (default_preemption_test.go)', () => {
  it('preemption with violation of same pdb', () => {
    const r = preempt(
      ['node1'],
      [foo('p1.1', 'node1', MEDIUM), foo('p1.2', 'node1', MEDIUM)],
      [pdb(1, ['p2'])],
      VERY_LARGE,
    );
    expect(r.nominatedNodeName).toBe('node1');
    expect(r.victims?.map((v) => v.metadata.name).sort()).toEqual(['p1.1', 'p1.2']);
    expect(r.numPDBViolations).toBe(1);
  });
  it('preemption with violation of the pdb with pod whose eviction was processed, the victim belongs to DisruptedPods', () => {
    const r = preempt(
      ['node1'],
      [foo('p1.1', 'node1', MEDIUM), foo('p1.2', 'node1', MEDIUM)],
      [pdb(1, ['p1.2'])],
      VERY_LARGE,
    );
    expect(r.victims?.map((v) => v.metadata.name).sort()).toEqual(['p1.1', 'p1.2']);
    expect(r.numPDBViolations).toBe(0);
  });
  it("preemption with violation of the pdb with pod whose eviction was processed, the victim which belongs to DisruptedPods is treated as 'nonViolating'", () => {
    const r = preempt(
      ['node1'],
      [foo('p1.1', 'node1', MEDIUM), foo('p1.2', 'node1', MEDIUM), foo('p1.3', 'node1', MEDIUM)],
      [pdb(1, ['p1.3'])],
      VERY_LARGE,
    );
    expect(r.victims?.map((v) => v.metadata.name).sort()).toEqual(['p1.1', 'p1.2', 'p1.3']);
    expect(r.numPDBViolations).toBe(1);
  });
  it('preemption looks past numCandidates until a non-PDB violating node is found', () => {
    const pods = [
      foo('p1', 'node1', LARGE),
      foo('p2', 'node2', LARGE),
      makePod('p3').node('node3').priority(100).req(LARGE).obj(),
      makePod('p4').node('node4').priority(100).req(LARGE).obj(),
      foo('p5', 'node5', LARGE),
    ];
    const nodes = ['node1', 'node2', 'node3', 'node4', 'node5'];
    // whatever the random offset, the dry run goes on until a candidate without violations exists,
    // and the fewest-violations criterion picks it
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const core = new SchedulerCore({
        nodes: nodes.map(node),
        pods,
        seed,
        objects: { podDisruptionBudgets: [pdb(0)] },
      });
      const out = core.schedule(makePod('p').priority(1000).req(LARGE).obj());
      const r = out.kind === 'unschedulable' ? out.postFilter : undefined;
      expect(['node3', 'node4']).toContain(r?.nominatedNodeName);
      expect(r?.numPDBViolations).toBe(0);
    }
  });
});

describe('pickOneNodeForPreemption: fewest PDB violations first', () => {
  it('a node with more violations loses even with lower-priority victims', () => {
    const v = (n: string, prio: number) => makePod(n).priority(prio).obj();
    const best = pickOneNodeForPreemption([
      { nodeName: 'n1', victims: [v('a', 1)], numPDBViolations: 1 },
      { nodeName: 'n2', victims: [v('b', 50), v('c', 50)], numPDBViolations: 0 },
    ]);
    expect(best.nodeName).toBe('n2');
  });
});

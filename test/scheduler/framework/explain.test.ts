// SchedulerCore.explain on a sampled cluster (≥ 100 nodes): the explanation's chosen node is the scheduler's
// own choice for the same seed, every node has a verdict for every filter, and the scored nodes'
// totals are the weighted sums of their cells.
import { describe, expect, it } from 'vitest';
import { generateCluster, generatePods } from '../../../src/sim/cluster-gen.js';
import { numFeasibleNodesToFind } from '../../../src/scheduler/engine/types.js';
import { SchedulerCore } from '../../../src/scheduler/scheduler.js';

describe('SchedulerCore.explain', () => {
  it('agrees with the scheduler on a 300-node cluster', () => {
    const cluster = generateCluster({ seed: 21, nodes: 300, utilization: 0.7 });
    const pods = generatePods({ seed: 22, count: 12, cluster });
    const a = new SchedulerCore({ nodes: cluster.nodes, pods: cluster.pods, seed: 9 });
    const b = new SchedulerCore({ nodes: cluster.nodes, pods: cluster.pods, seed: 9 });
    for (const pod of pods) {
      const ex = a.explain(pod);
      const out = b.schedule(pod);
      expect(ex.chosen).toBe(out.kind === 'scheduled' ? out.nodeName : undefined);
      if (out.kind === 'unschedulable') expect(ex.fitError).toBe(out.fitError.message);
      expect(ex.nodes).toHaveLength(300);
      for (const n of ex.nodes) {
        expect(n.filters.map((f) => f.plugin)).toEqual(ex.filterPlugins);
        expect(n.feasible).toBe(n.decisive === undefined);
        if (n.scores) expect(n.total).toBe(n.scores.reduce((s, c) => s + c.normalized * c.weight, 0));
      }
      // sampling: at most numFeasibleNodesToFind (48% of 300 = 144) nodes were scored
      expect(ex.nodes.filter((n) => n.scores).length).toBeLessThanOrEqual(
        numFeasibleNodesToFind(undefined, 300),
      );
      // keep both schedulers' clusters in step
      if (out.kind === 'scheduled') {
        a.assume(pod, out.nodeName);
        b.reserveAndAssume(out);
      }
    }
  });
});

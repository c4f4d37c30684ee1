// Differential test: the kernel's sampling window (fast path) and the framework's per-node filter
// loop (general path, taken when PodTopologySpread/InterPodAffinity are active) must make the same
// decisions: same start index rotation, same feasible sets, same FitError texts, same placements.
import { describe, expect, it } from 'vitest';
import { generateCluster, generatePods } from '../../../src/sim/cluster-gen.js';
import { SchedulerCore } from '../../../src/scheduler/scheduler.js';

function run(
  disableWindow: boolean,
  kernel: 'js' | 'wasm',
  disableFastScorer = false,
  nodes = 260,
  pods = 160,
) {
  const cluster = generateCluster({ seed: 11, nodes, utilization: 0.6 });
  const pending = generatePods({ seed: 12, count: pods, cluster });
  const core = new SchedulerCore({ nodes: cluster.nodes, pods: cluster.pods, seed: 5, kernel });
  if (disableWindow) for (const f of core.frameworks.values()) f.windowFilter = undefined;
  let fastUsed = 0;
  for (const f of core.frameworks.values()) {
    const fs = f.fastScorer;
    if (disableFastScorer || !fs) f.fastScorer = undefined;
    else
      f.fastScorer = {
        totals: (st, pod, nodes) => {
          const r = fs.totals(st, pod, nodes);
          if (r) fastUsed++;
          return r;
        },
      };
  }
  const log: string[] = [];
  for (const p of pending) {
    const out = core.schedule(p);
    if (out.kind === 'scheduled') {
      core.reserveAndAssume(out);
      log.push(
        `${p.metadata.name} -> ${out.nodeName} (${out.result.evaluatedNodes}/${out.result.feasibleNodes})`,
      );
    } else if (out.kind === 'unschedulable') log.push(`${p.metadata.name}: ${out.fitError.message}`);
    else log.push(`${p.metadata.name}: error ${out.message}`);
  }
  return { log, next: core.algo.nextStartNodeIndex, core, fastUsed };
}

describe('window fast path vs per-node path', () => {
  it('snapshot order equals the NodeTable scan order', () => {
    const { core } = run(false, 'js');
    const names = core.snapshot.list().map((n) => n.name);
    const order = [...core.engine.table.order].map((s) => core.engine.table.nodeName(s));
    expect(order).toEqual(names);
  });

  it('same placements, feasible counts and FitErrors (js kernel)', () => {
    const a = run(false, 'js');
    const b = run(true, 'js');
    expect(a.log.length).toBe(160);
    expect(a.log).toEqual(b.log);
    expect(a.next).toBe(b.next);
    // the cluster is big enough for sampling to matter (numFeasibleNodesToFind = 100 < 260)
    expect(a.log.some((l) => l.includes('(') && !l.includes('/260)'))).toBe(true);
  });

  it('wasm kernel makes the same decisions as js', () => {
    expect(run(false, 'wasm').log).toEqual(run(false, 'js').log);
  });

  it("the engine's totals (fast scorer) choose exactly what RunScorePlugins + selectHost choose", () => {
    for (const kernel of ['js', 'wasm'] as const) {
      const fast = run(false, kernel);
      const slow = run(false, kernel, true);
      expect(fast.fastUsed).toBeGreaterThan(100); // most pods take it (no cross-pod score plugin active)
      expect(slow.fastUsed).toBe(0);
      expect(fast.log).toEqual(slow.log);
    }
  });

  // above 1,024 nodes the per-node path evaluates the table in chunks (one kernel call per 1,024
  // nodes in scan order, as the loop reaches them) instead of one pass over every node
  it('per-node path in chunks on 2,600 nodes: same decisions as the window, js and wasm', () => {
    for (const kernel of ['js', 'wasm'] as const) {
      const a = run(false, kernel, false, 2600, 40);
      const b = run(true, kernel, false, 2600, 40);
      expect(b.log).toEqual(a.log);
      expect(b.next).toBe(a.next);
      // numFeasibleNodesToFind at 2,600 nodes is 390 + ~140 filtered: windows end inside the table
      expect(a.log.some((l) => /\((\d+)\/\d+\)/.test(l) && Number(/\((\d+)\//.exec(l)![1]) < 2600)).toBe(
        true,
      );
    }
  });
});

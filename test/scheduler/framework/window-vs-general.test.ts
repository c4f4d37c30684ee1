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
  utilization = 0.6,
  /** spec.priority of the pending pods (the cluster's pods have none): preemption finds victims */
  priority?: number,
) {
  const cluster = generateCluster({ seed: 11, nodes, utilization });
  const pending = generatePods({ seed: 12, count: pods, cluster }).map((p) =>
    priority === undefined ? p : { ...p, spec: { ...p.spec, priority } },
  );
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
    } else if (out.kind === 'unschedulable') {
      // the message, the reasons in first-seen order (plan's JSON keeps it), every rejected node's
      // status and plugin in visit order, the plugins that rejected, and preemption's answer
      const d = out.fitError.diagnosis;
      log.push(
        `${p.metadata.name}: ${out.fitError.message}`,
        JSON.stringify([...out.fitError.histogram()]),
        [...d.nodeToStatus].map(([n, s]) => `${n}=${s.code}/${s.plugin}/${s.message()}`).join(';'),
        [...d.unschedulablePlugins].join(','),
        JSON.stringify(out.postFilter ?? null),
      );
    } else log.push(`${p.metadata.name}: error ${out.message}`);
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

  it('pods that fit nowhere: same FitErrors, reason order, per-node statuses and preemption answers', () => {
    for (const kernel of ['js', 'wasm'] as const) {
      // a 90 % full cluster: dozens of the 100 pods fit nowhere; without a priority nothing can be
      // preempted, with priority 1,000 preemption finds victims on some nodes
      for (const priority of [undefined, 1000]) {
        const a = run(false, kernel, false, 260, 100, 0.9, priority);
        const b = run(true, kernel, false, 260, 100, 0.9, priority);
        expect(a.log.filter((l) => l.includes('nodes are available')).length).toBeGreaterThan(20);
        expect(b.log).toEqual(a.log);
        expect(b.next).toBe(a.next);
        if (priority !== undefined)
          expect(a.log.some((l) => l.startsWith('{"nominatedNodeName":"node-'))).toBe(true);
      }
    }
    expect(run(false, 'wasm', false, 260, 100, 0.9, 1000).log).toEqual(
      run(false, 'js', false, 260, 100, 0.9, 1000).log,
    );
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

// A contained WASM plugin reads a copy of the node table that is refreshed only where the table
// changed (the header and the pod cells of nodes whose pods changed; everything after a node,
// layout or scan-order change). Here the cluster changes between cycles in every way the copy must
// follow — pods assumed and forgotten, nodes added, relabelled (new label keys) and removed — and
// the contained plugin must still place every pod as the trusted one, which
// reads the table itself. Pods of one template share a compiled query (engine/querycache.ts), so
// this also checks that those queries follow node changes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../../src/api/types.js';
import { SchedulerCore } from '../../../src/scheduler/scheduler.js';
import { loadUserPlugin, wasmScorePlugin } from '../../../src/scheduler/plugins/user.js';
import type { PluginFactory } from '../../../src/scheduler/framework/types.js';
import { generateCluster, generatePods } from '../../../src/sim/cluster-gen.js';
import { Rng } from '../../../src/util/rng.js';

const FILE = 'examples/plugins/wasm-binpack/build/binpack.wasm';
const cluster = generateCluster({ seed: 11, nodes: 40 });
const extra = generateCluster({ seed: 12, nodes: 60 }).nodes.map((n) => ({
  ...n,
  metadata: { ...n.metadata, name: `extra-${n.metadata.name}` },
}));
// 20 templates, each pod a distinct object (as a ReplicaSet's pods are)
const templates = generatePods({ seed: 13, count: 20, cluster });
const pods: Pod[] = Array.from({ length: 240 }, (_, i) => {
  const t = templates[i % templates.length];
  return { ...t, metadata: { ...t.metadata, name: `${t.metadata.name}-r${i}` } };
});

/** the same seeded sequence of cycles and cluster changes; what each cycle decided */
function run(kernel: 'js' | 'wasm', factory: PluginFactory): string[] {
  const core = new SchedulerCore({
    nodes: cluster.nodes,
    pods: cluster.pods,
    kernel,
    seed: 5,
    outOfTree: new Map([['binpack', factory]]),
    extraScore: new Map([['binpack', 20]]),
  });
  const rng = new Rng(99);
  const placed: Pod[] = [];
  const live: Node[] = [...cluster.nodes];
  const spare = [...extra];
  const log: string[] = [];
  for (const pod of pods) {
    const r = rng.int(20);
    if (r === 0 && spare.length > 0) {
      const n = spare.pop()!;
      core.snapshot.addNode(n);
      live.push(n);
    } else if (r === 1 && live.length > 10) {
      const n = live.splice(rng.int(live.length), 1)[0];
      core.snapshot.removeNode(n.metadata.name);
    } else if (r === 2) {
      const i = rng.int(live.length);
      const n = live[i];
      live[i] = {
        ...n,
        metadata: { ...n.metadata, labels: { ...n.metadata.labels, [`relabel-${rng.int(3)}`]: 'x' } },
      };
      core.snapshot.updateNode(live[i]);
    } else if (r < 6 && placed.length > 0) core.forget(placed.splice(rng.int(placed.length), 1)[0]);
    const out = core.schedule(pod);
    if (out.kind === 'scheduled') {
      core.reserveAndAssume(out);
      placed.push(pod);
      log.push(out.nodeName);
    } else
      log.push(
        out.kind === 'unschedulable' ? `unschedulable: ${out.fitError.message}` : `error: ${out.message}`,
      );
  }
  return log;
}

describe('a contained WASM plugin follows every table change', () => {
  for (const kernel of ['js', 'wasm'] as const)
    it(`same placements as the trusted plugin while pods and nodes change, ${kernel} kernel`, async () => {
      const loaded = await loadUserPlugin(FILE);
      try {
        const contained = run(kernel, loaded.factory);
        expect(contained).toEqual(run(kernel, wasmScorePlugin('binpack', readFileSync(FILE))));
        // the sequence placed most pods and left some out (the plugin's scores decided)
        expect(contained.filter((p) => !p.startsWith('unschedulable')).length).toBeGreaterThan(100);
      } finally {
        await loaded.close();
      }
    });
});

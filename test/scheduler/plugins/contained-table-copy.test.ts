// A contained Filter plugin answers a cycle's Filter calls from one batch (the nodes the
// framework's loop will reach) and preemption's what-if checks one node at a time; with
// high-priority pods that fit only by preempting, it must nominate the same nodes and victims as
// the same plugin run trusted.
//
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
import { loadUserPlugin, tsPlugin, wasmScorePlugin } from '../../../src/scheduler/plugins/user.js';
import preferLabel from '../../../examples/plugins/prefer-label/index.js';
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

describe('a contained Filter plugin through preemption', () => {
  // every node labelled for prefer-label: a fast tier and draining nodes
  const labelled = cluster.nodes.map((n, i) => ({
    ...n,
    metadata: {
      ...n.metadata,
      labels: {
        ...n.metadata.labels,
        ...(i % 3 === 0 ? { 'kubesim.io/tier': 'fast' } : {}),
        ...(i % 4 === 0 ? { 'kubesim.io/draining': 'true' } : {}),
      },
    },
  }));
  // high-priority pods asking for most of a node's cpu: they fit only after evicting running pods
  const big: Pod[] = pods.slice(0, 40).map((p, i) => ({
    ...p,
    metadata: { ...p.metadata, name: `big-${i}` },
    spec: {
      ...p.spec,
      priority: 1000,
      containers: [
        { name: 'c', image: 'busybox', resources: { requests: { cpu: `${3 + (i % 4)}`, memory: '1Gi' } } },
      ],
    },
  }));

  function preempt(kernel: 'js' | 'wasm', factory: PluginFactory): string[] {
    const core = new SchedulerCore({
      nodes: labelled,
      pods: cluster.pods,
      kernel,
      seed: 5,
      outOfTree: new Map([['PreferLabel', factory]]),
      extraScore: new Map([['PreferLabel', 5]]),
      extraFilter: ['PreferLabel'],
    });
    return big.map((pod) => {
      const out = core.schedule(pod);
      if (out.kind === 'scheduled') {
        core.reserveAndAssume(out);
        return out.nodeName;
      }
      if (out.kind === 'error') return `error: ${out.message}`;
      const v = (out.postFilter?.victims ?? []).map((p) => p.metadata.name).sort();
      return `nominated ${out.postFilter?.nominatedNodeName ?? '-'} evicting ${v.join(',')}`;
    });
  }

  for (const kernel of ['js', 'wasm'] as const)
    it(`same placements, nominations and victims as the trusted plugin, ${kernel} kernel`, async () => {
      const loaded = await loadUserPlugin('examples/plugins/prefer-label/index.ts');
      try {
        const contained = preempt(kernel, loaded.factory);
        expect(contained).toEqual(preempt(kernel, tsPlugin(preferLabel)));
        // preemption ran: some pods were nominated with victims
        expect(contained.filter((p) => /^nominated node-\S+ evicting \S/.test(p)).length).toBeGreaterThan(3);
      } finally {
        await loaded.close();
      }
    });
});

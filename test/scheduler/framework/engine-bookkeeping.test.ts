// The engine's NodeTable keeps no pod map of its own under a scheduler: each pod's accounting rides
// on the snapshot's PodInfo (NodeTable.attachPod). Differential: after every random change (assume,
// forget, a node removed with its pods and added back, a node relabelled) the scheduler's table
// holds the same requested amounts and pod counts per node as a NodeTable fed by key.
import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../../src/api/types.js';
import { NodeTable } from '../../../src/scheduler/engine/table.js';
import { SchedulerCore } from '../../../src/scheduler/scheduler.js';
import { Rng } from '../../../src/util/rng.js';
import { makeNode, makePod } from '../../helpers/builders.js';

const node = (i: number, rev = 0): Node =>
  makeNode(`n${i}`)
    .label('topology.kubernetes.io/zone', `z${i % 3}`)
    .label('rev', String(rev))
    .capacity({ cpu: '16', memory: '64Gi', pods: '110', 'example.com/gpu': '4' })
    .obj();

function expectSame(core: SchedulerCore, nodes: Map<string, Node>, pods: Map<string, Pod>): void {
  const ref = new NodeTable();
  for (const n of nodes.values()) ref.addNode(n);
  for (const p of pods.values()) ref.addPod(p);
  const table = core.engine.table;
  for (const name of nodes.keys()) {
    const ni = core.snapshot.get(name)!;
    const refSlot = ref.nodeIndex(name);
    for (const r of ['cpu', 'memory', 'pods', 'example.com/gpu'])
      expect(table.requested(ni.slot, r), `${name} ${r}`).toBe(ref.requested(refSlot, r));
    expect(table.nodePods(ni.slot).length, name).toBe(ni.pods.length);
  }
  // pods of absent nodes wait in the reference table and in the snapshot, not in the engine's
  const onListed = [...pods.values()].filter((p) => nodes.has(p.spec.nodeName!)).length;
  expect(table.podCount).toBe(onListed);
}

describe('the engine table follows the snapshot without a pod map of its own', () => {
  it('assume, forget, node removal and return, relabel (200 random steps)', () => {
    const rng = new Rng(3);
    const nodes = new Map<string, Node>();
    for (let i = 0; i < 6; i++) nodes.set(`n${i}`, node(i));
    const pods = new Map<string, Pod>();
    const core = new SchedulerCore({ nodes: [...nodes.values()], kernel: 'js', seed: 1 });
    const gone = new Map<string, Node>();
    let seq = 0;
    for (let step = 0; step < 200; step++) {
      const r = rng.int(10);
      if (r < 5) {
        const pod = makePod(`p${seq++}`)
          .req({
            cpu: `${100 * (1 + rng.int(8))}m`,
            memory: `${1 + rng.int(4)}Gi`,
            'example.com/gpu': `${rng.int(2)}`,
          })
          .obj();
        const out = core.schedule(pod);
        if (out.kind === 'scheduled' && core.reserveAndAssume(out) === null)
          pods.set(pod.metadata.name!, { ...pod, spec: { ...pod.spec, nodeName: out.nodeName } });
      } else if (r < 8 && pods.size > 0) {
        const key = [...pods.keys()][rng.int(pods.size)];
        core.forget(pods.get(key)!);
        pods.delete(key);
      } else if (r === 8 && nodes.size > 2) {
        const name = [...nodes.keys()][rng.int(nodes.size)];
        gone.set(name, nodes.get(name)!);
        nodes.delete(name);
        core.snapshot.removeNode(name);
      } else if (gone.size > 0) {
        const name = [...gone.keys()][0];
        gone.delete(name);
        const back = node(Number(name.slice(1)), step);
        nodes.set(name, back);
        core.snapshot.addNode(back);
      }
      expectSame(core, nodes, pods);
    }
  });
});

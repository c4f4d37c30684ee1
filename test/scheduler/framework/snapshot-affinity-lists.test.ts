// ClusterSnapshot keeps havePodsWithAffinity / havePodsWithRequiredAntiAffinity incrementally (the
// InterPodAffinity PreFilter and PreScore read them every cycle). Differential: after every random
// change they equal the straightforward filter over the node list, in the same order.
import { describe, expect, it } from 'vitest';
import { labelSelectorAsSelector } from '../../../src/api/label-selector.js';
import { ClusterSnapshot, type NodeInfo } from '../../../src/scheduler/framework/snapshot.js';
import { Rng } from '../../../src/util/rng.js';
import { makeNode, makePod, sel } from '../../helpers/builders.js';

const names = (l: readonly NodeInfo[]) => l.map((n) => n.name);

function expectLists(snap: ClusterSnapshot): void {
  const all = snap.list();
  // the label index holds exactly the pods on listed nodes, each pointing at its node
  for (const value of ['x', 'y']) {
    const fromIndex = (
      snap.candidatePods(labelSelectorAsSelector({ matchLabels: { app: value } })) ?? []
    ).flatMap((set) => [...set]);
    const walked = all.flatMap((ni) => ni.pods.filter((p) => p.pod.metadata.labels?.app === value));
    expect(fromIndex.map((p) => p.key).sort()).toEqual(walked.map((p) => p.key).sort());
    for (const p of fromIndex) expect(p.node!.pods).toContain(p);
  }
  expect(names(snap.havePodsWithAffinity())).toEqual(names(all.filter((n) => n.podsWithAffinity.length > 0)));
  expect(names(snap.havePodsWithRequiredAntiAffinity())).toEqual(
    names(all.filter((n) => n.podsWithRequiredAntiAffinity.length > 0)),
  );
}

describe('ClusterSnapshot affinity node lists and label index', () => {
  it('equal the filtered node list after random pod and node changes', () => {
    const rng = new Rng(42);
    const snap = new ClusterSnapshot();
    const zones = ['a', 'b', 'c'];
    const nodeName = (i: number) => `n${i}`;
    for (let i = 0; i < 30; i++)
      snap.addNode(
        makeNode(nodeName(i))
          .label('topology.kubernetes.io/zone', zones[i % 3])
          .obj(),
      );
    const term = { labelSelector: sel().label('app', 'x').obj(), topologyKey: 'kubernetes.io/hostname' };
    const live: string[] = [];
    let seq = 0;
    for (let step = 0; step < 1500; step++) {
      const op = rng.int(10);
      if (op < 5) {
        // bind a pod: plain, preferred (anti-)affinity only, or required anti-affinity
        const kind = rng.int(4);
        const b = makePod(`p${seq++}`)
          .label('app', rng.pick(['x', 'y']))
          .node(nodeName(rng.int(34))); // some nodes do not exist (yet)
        if (kind === 1) b.preferredPodAffinity(5, term);
        if (kind === 2) b.podAntiAffinity(term);
        if (kind === 3) b.preferredPodAntiAffinity(3, term).podAffinity(term);
        const p = b.obj();
        snap.addPod(p);
        live.push(`default/${p.metadata.name}`);
      } else if (op < 8 && live.length > 0) {
        const i = rng.int(live.length);
        snap.removePod(live[i]);
        live.splice(i, 1);
      } else if (op === 8) {
        const i = rng.int(34);
        if (snap.get(nodeName(i))) snap.removeNode(nodeName(i));
        else
          snap.addNode(
            makeNode(nodeName(i))
              .label('topology.kubernetes.io/zone', zones[i % 3])
              .obj(),
          );
      } else {
        // move a node to another zone (reorders the list)
        const i = rng.int(30);
        if (snap.get(nodeName(i)))
          snap.updateNode(
            makeNode(nodeName(i)).label('topology.kubernetes.io/zone', zones[rng.int(3)]).obj(),
          );
      }
      // read the lists only sometimes, so that both the rebuilt and the incrementally kept ones are checked
      if (rng.int(3) === 0) expectLists(snap);
    }
    expectLists(snap);
    expect(snap.havePodsWithAffinity().length).toBeGreaterThan(0);
    expect(snap.havePodsWithRequiredAntiAffinity().length).toBeGreaterThan(0);
  });

  it('a list handed out earlier is not changed under its reader', () => {
    const snap = new ClusterSnapshot([makeNode('n1').obj(), makeNode('n2').obj()]);
    const term = { labelSelector: sel().label('app', 'x').obj(), topologyKey: 'kubernetes.io/hostname' };
    snap.addPod(makePod('a').node('n1').podAntiAffinity(term).obj());
    const before = snap.havePodsWithRequiredAntiAffinity();
    snap.addPod(makePod('b').node('n2').podAntiAffinity(term).obj());
    expect(names(before)).toEqual(['n1']);
    expect(names(snap.havePodsWithRequiredAntiAffinity())).toEqual(['n1', 'n2']);
  });
});

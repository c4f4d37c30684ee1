// ClusterSnapshot keeps, as pods and nodes come and go, a label index of the pods on listed nodes,
// per-node counts of the pods matching a selector (podMatchCounts) and the existing pods' affinity
// terms grouped per node (termGroups); the cross-pod plugins read them every cycle. Differential:
// after every random change they equal a walk over every pod of every listed node.
import { describe, expect, it } from 'vitest';
import { labelSelectorAsSelector, type Selector } from '../../../src/api/label-selector.js';
import {
  ClusterSnapshot,
  termMatchKey,
  type NodeCounts,
  type PodInfo,
  type TermKind,
} from '../../../src/scheduler/framework/snapshot.js';
import { Rng } from '../../../src/util/rng.js';
import { makeNode, makePod, sel } from '../../helpers/builders.js';

const KINDS: TermKind[] = ['requiredAffinity', 'requiredAnti', 'preferredAffinity', 'preferredAnti'];
const SELECTORS: Selector[] = [
  labelSelectorAsSelector({ matchLabels: { app: 'x' } }),
  labelSelectorAsSelector({ matchExpressions: [{ key: 'app', operator: 'In', values: ['x', 'y'] }] }),
  labelSelectorAsSelector({ matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['y'] }] }), // no In
];

/** node name → count, nodes with none left out */
const byName = (m: NodeCounts) => Object.fromEntries([...m].map(([ni, n]) => [ni.name, n]).sort());

function termsOf(p: PodInfo, kind: TermKind) {
  return {
    requiredAffinity: p.requiredAffinityTerms,
    requiredAnti: p.requiredAntiAffinityTerms,
    preferredAffinity: p.preferredAffinityTerms,
    preferredAnti: p.preferredAntiAffinityTerms,
  }[kind];
}

function expectCounts(snap: ClusterSnapshot): void {
  const all = snap.list();
  for (const s of SELECTORS) {
    const walked = new Map<string, number>();
    for (const ni of all)
      for (const p of ni.pods)
        if (s.matches(p.pod.metadata.labels)) walked.set(ni.name, (walked.get(ni.name) ?? 0) + 1);
    const counts = snap.podMatchCounts(`test\0${s.key}`, s, (p) => s.matches(p.pod.metadata.labels));
    expect(byName(counts)).toEqual(Object.fromEntries([...walked].sort()));
    // by node index too (asked once, then kept in step by every change in between)
    expect(Array.from(snap.denseCounts(counts)!)).toEqual(all.map((ni) => walked.get(ni.name) ?? 0));
    // per zone over the nodes a mask keeps (kept in step while the same domains and mask are asked)
    for (const key of ['topology.kubernetes.io/zone', 'rack']) {
      const domains = snap.topologyDomains(key);
      for (const eligible of masksFor(domains.list)) {
        const kept = snap.domainSums(counts, domains, eligible)!;
        const sums = new Array<number>(domains.values.length).fill(0);
        let missing = 0;
        all.forEach((ni, j) => {
          if (!eligible[j]) return;
          const n = walked.get(ni.name) ?? 0;
          if (domains.ids[j] < 0) missing += n;
          else sums[domains.ids[j]] += n;
        });
        expect(Array.from(kept.sums)).toEqual(sums);
        expect(kept.missing).toBe(missing);
      }
    }
  }
  for (const kind of KINDS) {
    // "node term-key topology weight" → count, from the groups and from every pod's terms
    const fromGroups = new Map<string, number>();
    for (const g of snap.termGroups(kind))
      for (const [ni, n] of g.perNode) {
        const k = `${ni.name} ${termMatchKey(g.term)} ${g.term.topologyKey} ${g.weight}`;
        fromGroups.set(k, (fromGroups.get(k) ?? 0) + n);
      }
    const walked = new Map<string, number>();
    for (const ni of all)
      for (const p of ni.pods)
        for (const t of termsOf(p, kind)) {
          const k = `${ni.name} ${termMatchKey(t)} ${t.topologyKey} ${'weight' in t ? t.weight : 1}`;
          walked.set(k, (walked.get(k) ?? 0) + 1);
        }
    expect([...fromGroups].sort()).toEqual([...walked].sort());
    for (const g of snap.termGroups(kind))
      expect(Array.from(snap.denseCounts(g.perNode)!)).toEqual(all.map((ni) => g.perNode.get(ni) ?? 0));
  }
}

/**
 * Two eligibility masks per node list — every node, and the even positions — the same objects
 * while the list holds, as a plugin's cached masks are (domainSums keys its kept sums by them)
 */
const masks = new WeakMap<object, Uint8Array[]>();
function masksFor(list: readonly unknown[]): Uint8Array[] {
  let m = masks.get(list);
  if (!m) {
    m = [new Uint8Array(list.length).fill(1), Uint8Array.from(list, (_, j) => (j % 2 === 0 ? 1 : 0))];
    masks.set(list, m);
  }
  return m;
}

function expectIndex(snap: ClusterSnapshot): void {
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
}

describe('ClusterSnapshot label index, match counts and term groups', () => {
  it('equal a walk over every pod after random pod and node changes', () => {
    const rng = new Rng(42);
    const snap = new ClusterSnapshot();
    const zones = ['a', 'b', 'c'];
    const nodeName = (i: number) => `n${i}`;
    // (every third node without a rack: the sums' `missing`)
    const node = (i: number, zone: string) => {
      const b = makeNode(nodeName(i)).label('topology.kubernetes.io/zone', zone);
      if (i % 3 !== 0) b.label('rack', `r${i % 4}`);
      return b.obj();
    };
    for (let i = 0; i < 30; i++) snap.addNode(node(i, zones[i % 3]));
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
        else snap.addNode(node(i, zones[i % 3]));
      } else {
        // move a node to another zone (reorders the list)
        const i = rng.int(30);
        if (snap.get(nodeName(i))) snap.updateNode(node(i, zones[rng.int(3)]));
      }
      if (rng.int(3) === 0) {
        expectIndex(snap);
        expectCounts(snap);
      }
    }
    expectIndex(snap);
    expectCounts(snap);
    expect([...snap.termGroups('requiredAnti')].length).toBeGreaterThan(0);
    expect([...snap.termGroups('preferredAnti')].length).toBeGreaterThan(0);
  });
});

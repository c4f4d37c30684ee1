// PodTopologySpread PreScore/Score/NormalizeScore, translated from upstream's
// pkg/scheduler/framework/plugins/podtopologyspread/scoring_test.go (TestPodTopologySpreadScore).
import { describe, expect, it } from 'vitest';
import type { Node, Pod, Service } from '../../../src/api/types.js';
import { CycleState } from '../../../src/scheduler/framework/cycle-state.js';
import { ClusterSnapshot } from '../../../src/scheduler/framework/snapshot.js';
import { Code } from '../../../src/scheduler/framework/status.js';
import { PodTopologySpread } from '../../../src/scheduler/plugins/pod-topology-spread.js';
import { makeNode, makePod, sel } from '../../helpers/builders.js';

const H = 'kubernetes.io/hostname';
const foo = () => sel().exists('foo').obj();
const fp = (name: string, node: string) => makePod(name).node(node).label('foo', '').obj();
const pods = (spec: Record<string, number>) =>
  Object.entries(spec).flatMap(([node, n]) =>
    Array.from({ length: n }, (_, i) => fp(`p-${node.slice(-1)}${i + 1}`, node)),
  );
const hn = (name: string) => makeNode(name).label(H, name).obj();

function scoreAll(
  pod: Pod,
  nodes: Node[],
  failed: Node[],
  existing: Pod[],
  services: Service[] = [],
): Record<string, number> | 'skip' {
  const snap = new ClusterSnapshot([...nodes, ...failed], existing);
  const pl = new PodTopologySpread(undefined, snap, { services });
  const state = new CycleState();
  const filtered = nodes.map((n) => snap.get(n.metadata.name!)!);
  const s = pl.preScore(state, pod, filtered);
  if (s?.code === Code.Skip) return 'skip';
  expect(s).toBeNull();
  const scores = filtered.map((ni) => pl.score(state, pod, ni));
  pl.normalizeScore(state, pod, filtered, scores);
  return Object.fromEntries(filtered.map((ni, i) => [ni.name, scores[i]]));
}

const cases: {
  name: string;
  pod: Pod;
  nodes: Node[];
  failed?: Node[];
  existing: Pod[];
  services?: Service[];
  want: Record<string, number>;
}[] = [
  {
    name: 'one constraint on node, no existing pods',
    pod: makePod('p').label('foo', '').spreadConstraint(1, H, 'ScheduleAnyway', foo()).obj(),
    nodes: [hn('node-a'), hn('node-b')],
    existing: [],
    want: { 'node-a': 100, 'node-b': 100 },
  },
  {
    name: 'one constraint on node, only one node is candidate',
    pod: makePod('p').label('foo', '').spreadConstraint(1, H, 'ScheduleAnyway', foo()).obj(),
    nodes: [hn('node-a')],
    failed: [hn('node-b')],
    existing: pods({ 'node-a': 2, 'node-b': 1 }),
    want: { 'node-a': 100 },
  },
  {
    name: 'one constraint on node, all nodes have the same number of matching pods',
    pod: makePod('p').label('foo', '').spreadConstraint(1, H, 'ScheduleAnyway', foo()).obj(),
    nodes: [hn('node-a'), hn('node-b')],
    existing: pods({ 'node-a': 1, 'node-b': 1 }),
    want: { 'node-a': 100, 'node-b': 100 },
  },
  {
    name: 'one constraint on node, all 4 nodes are candidates',
    pod: makePod('p').label('foo', '').spreadConstraint(1, H, 'ScheduleAnyway', foo()).obj(),
    nodes: [hn('node-a'), hn('node-b'), hn('node-c'), hn('node-d')],
    existing: pods({ 'node-a': 2, 'node-b': 1, 'node-d': 3 }),
    want: { 'node-a': 20, 'node-b': 60, 'node-c': 100, 'node-d': 0 },
  },
  {
    name: 'one constraint on node, null selector',
    pod: makePod('p').label('foo', '').spreadConstraint(1, H, 'ScheduleAnyway', undefined).obj(),
    nodes: [hn('node-a'), hn('node-b'), hn('node-c'), hn('node-d')],
    existing: pods({ 'node-a': 2, 'node-b': 1, 'node-d': 3 }),
    want: { 'node-a': 100, 'node-b': 100, 'node-c': 100, 'node-d': 100 },
  },
  {
    name: 'one constraint on node, all 4 nodes are candidates, maxSkew=2',
    pod: makePod('p').label('foo', '').spreadConstraint(2, H, 'ScheduleAnyway', foo()).obj(),
    nodes: [hn('node-a'), hn('node-b'), hn('node-c'), hn('node-d')],
    existing: pods({ 'node-a': 2, 'node-b': 1, 'node-d': 3 }),
    want: { 'node-a': 33, 'node-b': 66, 'node-c': 100, 'node-d': 16 },
  },
  {
    name: 'one constraint on node, all 4 nodes are candidates, maxSkew=3',
    pod: makePod('p').label('foo', '').spreadConstraint(3, H, 'ScheduleAnyway', foo()).obj(),
    nodes: [hn('node-a'), hn('node-b'), hn('node-c'), hn('node-d')],
    existing: pods({ 'node-a': 4, 'node-b': 3, 'node-c': 2, 'node-d': 1 }),
    want: { 'node-a': 44, 'node-b': 66, 'node-c': 77, 'node-d': 100 },
  },
  {
    name: "system defaulting, nodes don't have zone, pods match service",
    pod: makePod('p').label('foo', '').obj(),
    nodes: [hn('node-a'), hn('node-b'), hn('node-c'), hn('node-d')],
    existing: pods({ 'node-a': 4, 'node-b': 3, 'node-c': 2, 'node-d': 1 }),
    services: [
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 's', namespace: 'default' },
        spec: { selector: { foo: '' } },
      },
    ],
    want: { 'node-a': 44, 'node-b': 66, 'node-c': 77, 'node-d': 100 },
  },
  {
    name: 'one constraint on node, 3 out of 4 nodes are candidates',
    pod: makePod('p').label('foo', '').spreadConstraint(1, H, 'ScheduleAnyway', foo()).obj(),
    nodes: [hn('node-a'), hn('node-b'), hn('node-x')],
    failed: [hn('node-y')],
    existing: pods({ 'node-a': 4, 'node-b': 2, 'node-x': 1, 'node-y': 3 }),
    want: { 'node-a': 33, 'node-b': 83, 'node-x': 100 },
  },
  {
    name: "one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
    pod: makePod('p').label('foo', '').spreadConstraint(1, H, 'ScheduleAnyway', foo()).obj(),
    nodes: [hn('node-a'), makeNode('node-b').label('n', 'node-b').obj(), hn('node-x')],
    failed: [hn('node-y')],
    existing: pods({ 'node-a': 4, 'node-b': 2, 'node-x': 1, 'node-y': 3 }),
    want: { 'node-a': 16, 'node-b': 0, 'node-x': 100 },
  },
  {
    name: 'one constraint on zone, 3 out of 4 nodes are candidates',
    pod: makePod('p').label('foo', '').spreadConstraint(1, 'zone', 'ScheduleAnyway', foo()).obj(),
    nodes: [
      makeNode('node-a').label('zone', 'zone1').label(H, 'node-a').obj(),
      makeNode('node-b').label('zone', 'zone1').label(H, 'node-b').obj(),
      makeNode('node-x').label('zone', 'zone2').label(H, 'node-x').obj(),
    ],
    failed: [makeNode('node-y').label('zone', 'zone2').label(H, 'node-y').obj()],
    existing: pods({ 'node-a': 4, 'node-b': 2, 'node-x': 1, 'node-y': 3 }),
    want: { 'node-a': 75, 'node-b': 75, 'node-x': 100 },
  },
];

describe('PodTopologySpread score: TestPodTopologySpreadScore', () => {
  for (const tt of cases) {
    it(tt.name, () =>
      expect(scoreAll(tt.pod, tt.nodes, tt.failed ?? [], tt.existing, tt.services)).toEqual(tt.want),
    );
  }

  it('system defaulting without a selecting Service/ReplicaSet skips scoring', () => {
    expect(
      scoreAll(makePod('p').label('foo', '').obj(), [hn('node-a'), hn('node-b')], [], pods({ 'node-a': 1 })),
    ).toBe('skip');
  });

  // upstream reads a missing topology label as "" (Go's map zero value) when PreScore builds and
  // counts the domains of the system default constraints, so a node without the zone label and a
  // node whose zone label is "" share one domain; Score then skips only the node without the label
  it('system defaulting: a node without the zone label counts in the "" zone domain', () => {
    const Z = 'topology.kubernetes.io/zone';
    const svc: Service[] = [
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 's', namespace: 'default' },
        spec: { selector: { foo: '' } },
      },
    ];
    const nodeA = (zone?: string) => {
      const b = makeNode('node-a').label(H, 'node-a');
      if (zone !== undefined) b.label(Z, zone);
      return b.obj();
    };
    const others = [
      makeNode('node-b').label(H, 'node-b').label(Z, '').obj(),
      makeNode('node-c').label(H, 'node-c').label(Z, 'z1').obj(),
    ];
    const existing = pods({ 'node-a': 3, 'node-b': 1, 'node-c': 1 });
    // raw Score values (before NormalizeScore, which also sees node-a's own score)
    const raw = (a: Node) => {
      const snap = new ClusterSnapshot([a, ...others], existing);
      const pl = new PodTopologySpread(undefined, snap, { services: svc });
      const state = new CycleState();
      const pod = makePod('p').label('foo', '').obj();
      const filtered = snap.list();
      expect(pl.preScore(state, pod, filtered)).toBeNull();
      return Object.fromEntries(filtered.map((ni) => [ni.name, pl.score(state, pod, ni)]));
    };
    const missing = raw(nodeA());
    const empty = raw(nodeA(''));
    expect([missing['node-b'], missing['node-c']]).toEqual([empty['node-b'], empty['node-c']]);
    // node-b's "" zone holds node-a's 3 pods and its own 1; node-c's z1 only its own 1
    expect(missing['node-b']).toBeGreaterThan(missing['node-c']);
    expect(missing['node-a']).toBeLessThan(empty['node-a']); // no zone label: no zone part in its score
  });
});

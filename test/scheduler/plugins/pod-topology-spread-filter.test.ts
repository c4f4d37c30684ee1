// Table-driven tests for PodTopologySpread's PreFilter/Filter, translated from upstream's
// pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go (TestSingleConstraint,
// TestMultipleConstraints, TestPreFilterStateAddPod) plus minDomains / node inclusion policies.
import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../../src/api/types.js';
import { CycleState } from '../../../src/scheduler/framework/cycle-state.js';
import { ClusterSnapshot, PodInfo } from '../../../src/scheduler/framework/snapshot.js';
import { Code } from '../../../src/scheduler/framework/status.js';
import {
  PodTopologySpread,
  ERR_REASON_CONSTRAINTS_NOT_MATCH,
  ERR_REASON_NODE_LABEL_NOT_MATCH,
} from '../../../src/scheduler/plugins/pod-topology-spread.js';
import { makeNode, makePod, sel } from '../../helpers/builders.js';

type Want = Record<string, Code>;
const S = Code.Success,
  U = Code.Unschedulable,
  UU = Code.UnschedulableAndUnresolvable;

const fourNodes = () => [
  makeNode('node-a').label('zone', 'zone1').label('node', 'node-a').obj(),
  makeNode('node-b').label('zone', 'zone1').label('node', 'node-b').obj(),
  makeNode('node-x').label('zone', 'zone2').label('node', 'node-x').obj(),
  makeNode('node-y').label('zone', 'zone2').label('node', 'node-y').obj(),
];
const foo = () => sel().exists('foo').obj();
const bar = () => sel().exists('bar').obj();
const ex = (name: string, node: string, ...labels: string[]) => {
  const b = makePod(name).node(node);
  for (const l of labels) b.label(l, '');
  return b;
};
const spread2103 = () => [
  ex('p-a1', 'node-a', 'foo').obj(),
  ex('p-a2', 'node-a', 'foo').obj(),
  ex('p-b1', 'node-b', 'foo').obj(),
  ex('p-y1', 'node-y', 'foo').obj(),
  ex('p-y2', 'node-y', 'foo').obj(),
  ex('p-y3', 'node-y', 'foo').obj(),
];

function run(pod: Pod, nodes: Node[], existing: Pod[]): Record<string, Code> {
  const snap = new ClusterSnapshot(nodes, existing);
  const pl = new PodTopologySpread(undefined, snap);
  const state = new CycleState();
  const pre = pl.preFilter(state, pod, snap.list());
  expect(pre === null || pre.code === Code.Success).toBe(true);
  const got: Record<string, Code> = {};
  for (const n of nodes) {
    const s = pl.filter(state, pod, snap.get(n.metadata.name!)!);
    got[n.metadata.name!] = s === null ? S : s.code;
  }
  return got;
}

const single: { name: string; pod: Pod; nodes: Node[]; existing: Pod[]; want: Want }[] = [
  {
    name: 'no existing pods',
    pod: makePod('p').label('foo', '').spreadConstraint(1, 'zone', 'DoNotSchedule', foo()).obj(),
    nodes: fourNodes(),
    existing: [],
    want: { 'node-a': S, 'node-b': S, 'node-x': S, 'node-y': S },
  },
  {
    name: "no existing pods, incoming pod doesn't match itself",
    pod: makePod('p').label('foo', '').spreadConstraint(1, 'zone', 'DoNotSchedule', bar()).obj(),
    nodes: fourNodes(),
    existing: [],
    want: { 'node-a': S, 'node-b': S, 'node-x': S, 'node-y': S },
  },
  {
    name: 'existing pods in a different namespace do not count',
    pod: makePod('p').label('foo', '').spreadConstraint(1, 'zone', 'DoNotSchedule', foo()).obj(),
    nodes: fourNodes(),
    existing: [
      ex('p-a1', 'node-a', 'foo').namespace('ns1').obj(),
      ex('p-b1', 'node-a', 'foo').namespace('ns2').obj(),
      ex('p-x1', 'node-x', 'foo').obj(),
      ex('p-y1', 'node-y', 'foo').obj(),
    ],
    want: { 'node-a': S, 'node-b': S, 'node-x': U, 'node-y': U },
  },
  {
    name: 'pods spread across zones as 3/3, all nodes fit',
    pod: makePod('p').label('foo', '').spreadConstraint(1, 'zone', 'DoNotSchedule', foo()).obj(),
    nodes: fourNodes(),
    existing: spread2103(),
    want: { 'node-a': S, 'node-b': S, 'node-x': S, 'node-y': S },
  },
  {
    name: "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
    pod: makePod('p').label('foo', '').spreadConstraint(1, 'zone', 'DoNotSchedule', foo()).obj(),
    nodes: [
      makeNode('node-a').label('zone', 'zone1').label('node', 'node-a').obj(),
      makeNode('node-b').label('zon', 'zone1').label('node', 'node-b').obj(),
      makeNode('node-x').label('zone', 'zone2').label('node', 'node-x').obj(),
      makeNode('node-y').label('zone', 'zone2').label('node', 'node-y').obj(),
    ],
    existing: [
      ex('p-a1', 'node-a', 'foo').obj(),
      ex('p-b1', 'node-b', 'foo').obj(),
      ex('p-x1', 'node-x', 'foo').obj(),
      ex('p-y1', 'node-y', 'foo').obj(),
    ],
    want: { 'node-a': S, 'node-b': UU, 'node-x': U, 'node-y': U },
  },
  {
    name: "pod cannot be scheduled as all nodes don't have label 'rack'",
    pod: makePod('p').label('foo', '').spreadConstraint(1, 'rack', 'DoNotSchedule', foo()).obj(),
    nodes: [
      makeNode('node-a').label('zone', 'zone1').label('node', 'node-a').obj(),
      makeNode('node-x').label('zone', 'zone2').label('node', 'node-x').obj(),
    ],
    existing: [],
    want: { 'node-a': UU, 'node-x': UU },
  },
  {
    name: 'pods spread across nodes as 2/1/0/3, only node-x fits',
    pod: makePod('p').label('foo', '').spreadConstraint(1, 'node', 'DoNotSchedule', foo()).obj(),
    nodes: fourNodes(),
    existing: spread2103(),
    want: { 'node-a': U, 'node-b': U, 'node-x': S, 'node-y': U },
  },
  {
    name: 'pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit',
    pod: makePod('p').label('foo', '').spreadConstraint(2, 'node', 'DoNotSchedule', foo()).obj(),
    nodes: fourNodes(),
    existing: spread2103(),
    want: { 'node-a': U, 'node-b': S, 'node-x': S, 'node-y': U },
  },
  {
    name: "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
    pod: makePod('p').label('bar', '').spreadConstraint(1, 'node', 'DoNotSchedule', foo()).obj(),
    nodes: fourNodes(),
    existing: spread2103(),
    want: { 'node-a': U, 'node-b': S, 'node-x': S, 'node-y': U },
  },
  {
    name: 'incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits',
    pod: makePod('p')
      .label('foo', '')
      .nodeAffinityIn('node', ['node-a', 'node-y'])
      .spreadConstraint(1, 'node', 'DoNotSchedule', foo())
      .obj(),
    nodes: fourNodes(),
    existing: spread2103(),
    want: { 'node-a': S, 'node-b': S, 'node-x': S, 'node-y': U },
  },
  {
    name: 'terminating Pods should be excluded',
    pod: makePod('p').label('foo', '').spreadConstraint(1, 'node', 'DoNotSchedule', foo()).obj(),
    nodes: [
      makeNode('node-a').label('node', 'node-a').obj(),
      makeNode('node-b').label('node', 'node-b').obj(),
    ],
    existing: [ex('p-a', 'node-a', 'foo').terminating().obj(), ex('p-b', 'node-b', 'foo').obj()],
    want: { 'node-a': S, 'node-b': U },
  },
];

const zoneNode = (p: ReturnType<typeof makePod>, a = foo(), b = foo()) =>
  p.spreadConstraint(1, 'zone', 'DoNotSchedule', a).spreadConstraint(1, 'node', 'DoNotSchedule', b).obj();

const multiple: typeof single = [
  {
    name: 'two Constraints on zone and node, spreads = [3/3, 2/1/0/3]',
    pod: zoneNode(makePod('p').label('foo', '')),
    nodes: fourNodes(),
    existing: spread2103(),
    want: { 'node-a': U, 'node-b': U, 'node-x': S, 'node-y': U },
  },
  {
    name: 'two Constraints on zone and node, spreads = [3/4, 2/1/0/4]',
    pod: zoneNode(makePod('p').label('foo', '')),
    nodes: fourNodes(),
    existing: [...spread2103(), ex('p-y4', 'node-y', 'foo').obj()],
    want: { 'node-a': U, 'node-b': U, 'node-x': U, 'node-y': U },
  },
  {
    name: 'Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]',
    pod: zoneNode(makePod('p').label('foo', '').label('bar', ''), foo(), bar()),
    nodes: fourNodes(),
    existing: [ex('p-a1', 'node-a', 'foo').obj(), ex('p-y1', 'node-y', 'bar').obj()],
    want: { 'node-a': U, 'node-b': U, 'node-x': S, 'node-y': U },
  },
  {
    name: 'Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]',
    pod: zoneNode(makePod('p').label('foo', '').label('bar', ''), foo(), bar()),
    nodes: fourNodes(),
    existing: [
      ex('p-a1', 'node-a', 'foo').obj(),
      ex('p-x1', 'node-x', 'bar').obj(),
      ex('p-y1', 'node-y', 'bar').obj(),
    ],
    want: { 'node-a': U, 'node-b': U, 'node-x': U, 'node-y': U },
  },
  {
    name: 'Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]',
    pod: zoneNode(makePod('p').label('foo', '').label('bar', ''), foo(), bar()),
    nodes: fourNodes(),
    existing: [
      ex('p-a1', 'node-a', 'foo').obj(),
      ex('p-a2', 'node-a', 'foo', 'bar').obj(),
      ex('p-y1', 'node-y', 'foo').obj(),
      ex('p-y2', 'node-y', 'foo', 'bar').obj(),
      ex('p-y3', 'node-y', 'foo').obj(),
    ],
    want: { 'node-a': U, 'node-b': S, 'node-x': U, 'node-y': U },
  },
  {
    name: "Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
    pod: zoneNode(makePod('p').label('bar', ''), foo(), bar()),
    nodes: fourNodes(),
    existing: [
      ex('p-a1', 'node-a', 'foo').obj(),
      ex('p-x1', 'node-x', 'bar').obj(),
      ex('p-y1', 'node-y', 'bar').obj(),
    ],
    want: { 'node-a': S, 'node-b': S, 'node-x': U, 'node-y': U },
  },
  {
    name: "two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
    pod: zoneNode(makePod('p').label('foo', '')),
    nodes: [
      makeNode('node-a').label('zone', 'zone1').label('node', 'node-a').obj(),
      makeNode('node-b').label('zone', 'zone1').label('node', 'node-b').obj(),
      makeNode('node-x').label('zone', 'zone2').obj(),
      makeNode('node-y').label('zone', 'zone2').label('node', 'node-y').obj(),
    ],
    existing: [ex('p-a1', 'node-a', 'foo').obj(), ex('p-y3', 'node-y', 'foo').obj()],
    want: { 'node-a': U, 'node-b': S, 'node-x': UU, 'node-y': U },
  },
];

describe('PodTopologySpread filter: TestSingleConstraint', () => {
  for (const tt of single) it(tt.name, () => expect(run(tt.pod, tt.nodes, tt.existing)).toEqual(tt.want));
});

describe('PodTopologySpread filter: TestMultipleConstraints', () => {
  for (const tt of multiple) it(tt.name, () => expect(run(tt.pod, tt.nodes, tt.existing)).toEqual(tt.want));
});

describe('PodTopologySpread filter: minDomains and node inclusion policies', () => {
  it('minDomains greater than the number of domains treats the global minimum as 0', () => {
    // 2 zones, 1 foo pod in each; minDomains 3 → min 0 → every node 1+1-0 = 2 > 1
    const pod = makePod('p').label('foo', '').spreadConstraint(1, 'zone', 'DoNotSchedule', foo(), 3).obj();
    const got = run(pod, fourNodes(), [ex('p-a1', 'node-a', 'foo').obj(), ex('p-x1', 'node-x', 'foo').obj()]);
    expect(got).toEqual({ 'node-a': U, 'node-b': U, 'node-x': U, 'node-y': U });
    // minDomains 2 (= number of domains) → min 1 → 1+1-1 = 1 fits
    const pod2 = makePod('p').label('foo', '').spreadConstraint(1, 'zone', 'DoNotSchedule', foo(), 2).obj();
    expect(
      run(pod2, fourNodes(), [ex('p-a1', 'node-a', 'foo').obj(), ex('p-x1', 'node-x', 'foo').obj()]),
    ).toEqual({ 'node-a': S, 'node-b': S, 'node-x': S, 'node-y': S });
  });

  it('nodeTaintsPolicy Honor leaves tainted nodes out of the domains', () => {
    const nodes = [
      makeNode('node-a').label('node', 'node-a').obj(),
      makeNode('node-b').label('node', 'node-b').taint({ key: 'k', value: 'v', effect: 'NoSchedule' }).obj(),
    ];
    const existing = [ex('p-a1', 'node-a', 'foo').obj()];
    // Ignore (default): node-b is a domain with 0 → min 0 → node-a 1+1-0 = 2 > 1
    expect(
      run(
        makePod('p').label('foo', '').spreadConstraint(1, 'node', 'DoNotSchedule', foo()).obj(),
        nodes,
        existing,
      ),
    ).toEqual({ 'node-a': U, 'node-b': S });
    // Honor: node-b is not a domain → min 1 → node-a fits (the taint itself is TaintToleration's business)
    expect(
      run(
        makePod('p')
          .label('foo', '')
          .spreadConstraint(1, 'node', 'DoNotSchedule', foo(), undefined, undefined, 'Honor')
          .obj(),
        nodes,
        existing,
      ),
    ).toEqual({ 'node-a': S, 'node-b': S });
  });

  it('nodeAffinityPolicy Ignore counts nodes the pod cannot go to', () => {
    const pod = makePod('p')
      .label('foo', '')
      .nodeAffinityIn('node', ['node-a', 'node-y'])
      .spreadConstraint(1, 'node', 'DoNotSchedule', foo(), undefined, 'Ignore')
      .obj();
    // with node-b (1) and node-x (0) counted, min is 0: node-a 2+1 > 1, node-b 1+1 > 1
    expect(run(pod, fourNodes(), spread2103())).toEqual({
      'node-a': U,
      'node-b': U,
      'node-x': S,
      'node-y': U,
    });
  });

  it('reasons are upstream strings', () => {
    const snap = new ClusterSnapshot(
      [makeNode('n1').label('zone', 'z1').obj(), makeNode('n2').obj()],
      [ex('p1', 'n1', 'foo').obj()],
    );
    const pl = new PodTopologySpread(undefined, snap);
    const pod = makePod('p').label('foo', '').spreadConstraint(0, 'zone', 'DoNotSchedule', foo()).obj();
    const st = new CycleState();
    pl.preFilter(st, pod, snap.list());
    expect(pl.filter(st, pod, snap.get('n1')!)!.reasons).toEqual([ERR_REASON_CONSTRAINTS_NOT_MATCH]);
    expect(pl.filter(st, pod, snap.get('n2')!)!.reasons).toEqual([ERR_REASON_NODE_LABEL_NOT_MATCH]);
    expect(ERR_REASON_NODE_LABEL_NOT_MATCH).toBe(
      "node(s) didn't match pod topology spread constraints (missing required label)",
    );
  });

  it('PreFilter skips pods without DoNotSchedule constraints', () => {
    const snap = new ClusterSnapshot(fourNodes(), []);
    const pl = new PodTopologySpread(undefined, snap);
    const s = pl.preFilter(
      new CycleState(),
      makePod('p').spreadConstraint(1, 'zone', 'ScheduleAnyway', foo()).obj(),
      snap.list(),
    );
    expect(s?.code).toBe(Code.Skip);
  });
});

describe('PodTopologySpread PreFilterExtensions (TestPreFilterStateAddPod)', () => {
  // checks through Filter outcomes: adding p-a1 on node-a makes node-a the max, so only node-b fits
  it('node a and b both impact current min match', () => {
    const nodes = [
      makeNode('node-a').label('zone', 'zone1').label('node', 'node-a').obj(),
      makeNode('node-b').label('zone', 'zone1').label('node', 'node-b').obj(),
    ];
    const snap = new ClusterSnapshot(nodes, []);
    const pl = new PodTopologySpread(undefined, snap);
    const pod = makePod('p').label('foo', '').spreadConstraint(1, 'node', 'DoNotSchedule', foo()).obj();
    const st = new CycleState();
    pl.preFilter(st, pod, snap.list());
    expect(pl.filter(st, pod, snap.get('node-a')!)).toBeNull();
    pl.addPod(st, pod, new PodInfo(ex('p-a1', 'node-a', 'foo').obj()), snap.get('node-a')!);
    expect(pl.filter(st, pod, snap.get('node-a')!)?.code).toBe(U);
    expect(pl.filter(st, pod, snap.get('node-b')!)).toBeNull();
    // a clone is independent (preemption evaluates each node on its own copy)
    const c = st.clone();
    pl.removePod(c, pod, new PodInfo(ex('p-a1', 'node-a', 'foo').obj()), snap.get('node-a')!);
    expect(pl.filter(c, pod, snap.get('node-a')!)).toBeNull();
    expect(pl.filter(st, pod, snap.get('node-a')!)?.code).toBe(U);
  });

  it('add a pod in a different namespace does not change the counts', () => {
    const nodes = [
      makeNode('node-a').label('node', 'node-a').obj(),
      makeNode('node-b').label('node', 'node-b').obj(),
    ];
    const snap = new ClusterSnapshot(nodes, [ex('p-b1', 'node-b', 'foo').obj()]);
    const pl = new PodTopologySpread(undefined, snap);
    const pod = makePod('p').label('foo', '').spreadConstraint(1, 'node', 'DoNotSchedule', foo()).obj();
    const st = new CycleState();
    pl.preFilter(st, pod, snap.list());
    pl.addPod(st, pod, new PodInfo(ex('p-a1', 'node-a', 'foo').namespace('ns1').obj()), snap.get('node-a')!);
    // node-a still has 0 → node-a fits, node-b (1+1-0) does not
    expect(pl.filter(st, pod, snap.get('node-a')!)).toBeNull();
    expect(pl.filter(st, pod, snap.get('node-b')!)?.code).toBe(U);
  });
});

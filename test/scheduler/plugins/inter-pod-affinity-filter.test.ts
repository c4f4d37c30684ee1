// InterPodAffinity PreFilter/Filter on one node, translated from upstream's
// pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go (TestRequiredAffinitySingleNode).
import { describe, expect, it } from 'vitest';
import type { Node, Pod, PodAffinityTerm } from '../../../src/api/types.js';
import { CycleState } from '../../../src/scheduler/framework/cycle-state.js';
import { ClusterSnapshot } from '../../../src/scheduler/framework/snapshot.js';
import { Code, type Status } from '../../../src/scheduler/framework/status.js';
import {
  ERR_REASON_AFFINITY_RULES_NOT_MATCH as AFF,
  ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH as ANTI,
  ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH as EXISTING,
  InterPodAffinity,
} from '../../../src/scheduler/plugins/inter-pod-affinity.js';
import { makeNode, makePod, type PodBuilder } from '../../helpers/builders.js';

const term = (
  key: string,
  op: 'In' | 'NotIn' | 'Exists',
  values: string[] | undefined,
  topologyKey: string,
): PodAffinityTerm => ({
  labelSelector: { matchExpressions: [{ key, operator: op, ...(values ? { values } : {}) }] },
  topologyKey,
});
const labels = (b: PodBuilder, l: Record<string, string>) => {
  for (const [k, v] of Object.entries(l)) b.label(k, v);
  return b;
};
const podLabel = { service: 'securityscan' };
const podLabel2 = { security: 'S1' };
const node1 = () => makeNode('node1').label('region', 'r1').label('zone', 'z11').obj();
const existingPod = () => labels(makePod('e').node('node1'), podLabel).obj();

type Want = { pre?: Code; filter?: [Code, string] };

function run(pod: Pod, pods: Pod[], node: Node): { pre: Status | null; filter: Status | null } {
  const snap = new ClusterSnapshot([node], pods);
  const pl = new InterPodAffinity(undefined, snap);
  const st = new CycleState();
  const pre = pl.preFilter(st, pod, snap.list());
  if (pre) return { pre, filter: null };
  return { pre, filter: pl.filter(st, pod, snap.get(node.metadata.name!)!) };
}

const cases: { name: string; pod: Pod; pods: Pod[]; want: Want }[] = [
  {
    name: 'A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods',
    pod: makePod('p').obj(),
    pods: [],
    want: { pre: Code.Skip },
  },
  {
    name: 'satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that matches the existing pod',
    pod: labels(makePod('p'), podLabel2)
      .podAffinity(term('service', 'In', ['securityscan', 'value2'], 'region'))
      .obj(),
    pods: [existingPod()],
    want: {},
  },
  {
    name: 'satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator in labelSelector that matches the existing pod',
    pod: labels(makePod('p'), podLabel2)
      .podAffinity(term('service', 'NotIn', ['securityscan3', 'value3'], 'region'))
      .obj(),
    pods: [existingPod()],
    want: {},
  },
  {
    name: 'Does not satisfy the PodAffinity with labelSelector because of diff Namespace',
    pod: labels(makePod('p'), podLabel2)
      .podAffinity({
        ...term('service', 'In', ['securityscan', 'value2'], ''),
        namespaces: ['DiffNameSpace'],
      })
      .obj(),
    pods: [makePod('e').namespace('ns').label('service', 'securityscan').node('node1').obj()],
    want: { filter: [Code.UnschedulableAndUnresolvable, AFF] },
  },
  {
    name: "Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
    pod: labels(makePod('p'), podLabel)
      .podAffinity(term('service', 'In', ['antivirusscan', 'value2'], ''))
      .obj(),
    pods: [existingPod()],
    want: { filter: [Code.UnschedulableAndUnresolvable, AFF] },
  },
  {
    name: 'satisfies the PodAffinity with different label Operators in multiple RequiredDuringSchedulingIgnoredDuringExecution',
    pod: labels(makePod('p'), podLabel2)
      .podAffinity({
        labelSelector: {
          matchExpressions: [
            { key: 'service', operator: 'Exists' },
            { key: 'wrongkey', operator: 'DoesNotExist' },
          ],
        },
        topologyKey: 'region',
      })
      .podAffinity({
        labelSelector: {
          matchExpressions: [
            { key: 'service', operator: 'In', values: ['securityscan'] },
            { key: 'service', operator: 'NotIn', values: ['WrongValue'] },
          ],
        },
        topologyKey: 'region',
      })
      .obj(),
    pods: [existingPod()],
    want: {},
  },
  {
    name: "The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto the node because one of the matchExpression item don't match.",
    pod: labels(makePod('p'), podLabel2)
      .podAffinity({
        labelSelector: {
          matchExpressions: [
            { key: 'service', operator: 'Exists' },
            { key: 'wrongkey', operator: 'DoesNotExist' },
          ],
        },
        topologyKey: 'region',
      })
      .podAffinity({
        labelSelector: {
          matchExpressions: [
            { key: 'service', operator: 'In', values: ['securityscan2'] },
            { key: 'service', operator: 'NotIn', values: ['WrongValue'] },
          ],
        },
        topologyKey: 'region',
      })
      .obj(),
    pods: [existingPod()],
    want: { filter: [Code.UnschedulableAndUnresolvable, AFF] },
  },
  {
    name: 'satisfies the PodAffinity and PodAntiAffinity with the existing pod',
    pod: labels(makePod('p'), podLabel2)
      .podAffinity(term('service', 'In', ['securityscan', 'value2'], 'region'))
      .podAntiAffinity(term('service', 'In', ['antivirusscan', 'value2'], 'node'))
      .obj(),
    pods: [existingPod()],
    want: {},
  },
  {
    name: 'satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod',
    pod: labels(makePod('p'), podLabel2)
      .podAffinity(term('service', 'In', ['securityscan', 'value2'], 'region'))
      .podAntiAffinity(term('service', 'In', ['antivirusscan', 'value2'], 'node'))
      .obj(),
    pods: [
      labels(makePod('e').node('node1'), podLabel)
        .podAntiAffinity(term('service', 'In', ['antivirusscan', 'value2'], 'node'))
        .obj(),
    ],
    want: {},
  },
  {
    name: "satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
    pod: labels(makePod('p'), podLabel2)
      .podAffinity(term('service', 'In', ['securityscan', 'value2'], 'region'))
      .podAntiAffinity(term('service', 'In', ['securityscan', 'value2'], 'zone'))
      .obj(),
    pods: [existingPod()],
    want: { filter: [Code.Unschedulable, ANTI] },
  },
  {
    name: "satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
    pod: labels(makePod('p'), podLabel)
      .podAffinity(term('service', 'In', ['securityscan', 'value2'], 'region'))
      .podAntiAffinity(term('service', 'In', ['antivirusscan', 'value2'], 'node'))
      .obj(),
    pods: [
      labels(makePod('e').node('node1'), podLabel)
        .podAntiAffinity(term('service', 'In', ['securityscan', 'value2'], 'zone'))
        .obj(),
    ],
    want: { filter: [Code.Unschedulable, EXISTING] },
  },
  {
    name: 'pod matches its own Label in PodAffinity and that matches the existing pod Labels',
    pod: labels(makePod('p'), podLabel)
      .podAffinity(term('service', 'NotIn', ['securityscan', 'value2'], 'region'))
      .obj(),
    pods: [makePod('e').label('service', 'securityscan').node('node2').obj()],
    want: { filter: [Code.UnschedulableAndUnresolvable, AFF] },
  },
  {
    name: "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
    pod: labels(makePod('p'), podLabel).obj(),
    pods: [
      labels(makePod('e').node('node1'), podLabel)
        .podAntiAffinity(term('service', 'In', ['securityscan', 'value2'], 'zone'))
        .obj(),
    ],
    want: { filter: [Code.Unschedulable, EXISTING] },
  },
  {
    name: 'verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod',
    pod: labels(makePod('p'), podLabel).obj(),
    pods: [
      labels(makePod('e').node('node1'), podLabel)
        .podAntiAffinity(term('service', 'NotIn', ['securityscan', 'value2'], 'zone'))
        .obj(),
    ],
    want: { pre: Code.Skip },
  },
  {
    name: "satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with incoming pod",
    pod: labels(makePod('p'), podLabel)
      .podAntiAffinity(term('service', 'Exists', undefined, 'region'))
      .podAntiAffinity(term('security', 'Exists', undefined, 'region'))
      .obj(),
    pods: [
      labels(makePod('e').node('node1'), podLabel2)
        .podAntiAffinity(term('security', 'Exists', undefined, 'zone'))
        .obj(),
    ],
    want: { filter: [Code.Unschedulable, ANTI] },
  },
  {
    name: 'PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on AffinityTerms',
    pod: labels(makePod('p'), podLabel)
      .podAntiAffinity(term('service', 'Exists', undefined, 'zone'))
      .podAntiAffinity(term('security', 'Exists', undefined, 'zone'))
      .obj(),
    pods: [
      labels(makePod('e').node('node1'), podLabel2)
        .podAntiAffinity(term('security', 'Exists', undefined, 'zone'))
        .obj(),
    ],
    want: { filter: [Code.Unschedulable, ANTI] },
  },
  {
    name: 'PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on AffinityTerms',
    pod: labels(makePod('p'), podLabel2)
      .podAntiAffinity(term('security', 'Exists', undefined, 'zone'))
      .obj(),
    pods: [
      labels(makePod('e').node('node1'), podLabel)
        .podAntiAffinity(term('service', 'Exists', undefined, 'zone'))
        .podAntiAffinity(term('security', 'Exists', undefined, 'zone'))
        .obj(),
    ],
    want: { filter: [Code.Unschedulable, EXISTING] },
  },
  {
    name: 'PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on AffinityTerms',
    pod: labels(makePod('p'), { abc: '', xyz: '' })
      .podAntiAffinity(term('abc', 'Exists', undefined, 'zone'))
      .podAntiAffinity(term('def', 'Exists', undefined, 'zone'))
      .obj(),
    pods: [
      labels(makePod('e').node('node1'), { def: '', xyz: '' })
        .podAntiAffinity(term('abc', 'Exists', undefined, 'zone'))
        .podAntiAffinity(term('def', 'Exists', undefined, 'zone'))
        .obj(),
    ],
    want: { filter: [Code.Unschedulable, ANTI] },
  },
  {
    name: 'PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on AffinityTerms',
    pod: labels(makePod('p'), { def: '', xyz: '' })
      .podAntiAffinity(term('abc', 'Exists', undefined, 'zone'))
      .podAntiAffinity(term('def', 'Exists', undefined, 'zone'))
      .obj(),
    pods: [
      labels(makePod('e').node('node1'), { abc: '', xyz: '' })
        .podAntiAffinity(term('abc', 'Exists', undefined, 'zone'))
        .podAntiAffinity(term('def', 'Exists', undefined, 'zone'))
        .obj(),
    ],
    want: { filter: [Code.Unschedulable, ANTI] },
  },
];

describe('InterPodAffinity filter: TestRequiredAffinitySingleNode', () => {
  for (const tt of cases) {
    it(tt.name, () => {
      const got = run(tt.pod, tt.pods, node1());
      if (tt.want.pre !== undefined) {
        expect(got.pre?.code).toBe(tt.want.pre);
        return;
      }
      expect(got.pre).toBeNull();
      if (!tt.want.filter) expect(got.filter).toBeNull();
      else {
        expect(got.filter?.code).toBe(tt.want.filter[0]);
        expect(got.filter?.reasons).toEqual([tt.want.filter[1]]);
      }
    });
  }
});

describe('InterPodAffinity filter: multiple nodes', () => {
  it('the first pod of a self-affine group may go to any node with the topology label', () => {
    const nodes = [
      makeNode('n1').label('zone', 'a').obj(),
      makeNode('n2').label('zone', 'b').obj(),
      makeNode('n3').obj(),
    ];
    const snap = new ClusterSnapshot(nodes, []);
    const pl = new InterPodAffinity(undefined, snap);
    const pod = makePod('p')
      .label('app', 'web')
      .podAffinity({ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'zone' })
      .obj();
    const st = new CycleState();
    expect(pl.preFilter(st, pod, snap.list())).toBeNull();
    expect(pl.filter(st, pod, snap.get('n1')!)).toBeNull();
    expect(pl.filter(st, pod, snap.get('n2')!)).toBeNull();
    expect(pl.filter(st, pod, snap.get('n3')!)?.reasons).toEqual([AFF]);
  });

  it('affinity to a pod in zone a admits only zone-a nodes; anti-affinity rejects them', () => {
    const nodes = [
      makeNode('n1').label('zone', 'a').obj(),
      makeNode('n2').label('zone', 'a').obj(),
      makeNode('n3').label('zone', 'b').obj(),
    ];
    const snap = new ClusterSnapshot(nodes, [makePod('db').label('app', 'db').node('n1').obj()]);
    const pl = new InterPodAffinity(undefined, snap);
    const aff = makePod('p')
      .podAffinity({ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'zone' })
      .obj();
    const st = new CycleState();
    pl.preFilter(st, aff, snap.list());
    expect(['n1', 'n2', 'n3'].map((n) => pl.filter(st, aff, snap.get(n)!)?.code ?? Code.Success)).toEqual([
      Code.Success,
      Code.Success,
      Code.UnschedulableAndUnresolvable,
    ]);
    const anti = makePod('q')
      .podAntiAffinity({ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'zone' })
      .obj();
    const st2 = new CycleState();
    pl.preFilter(st2, anti, snap.list());
    expect(['n1', 'n2', 'n3'].map((n) => pl.filter(st2, anti, snap.get(n)!)?.code ?? Code.Success)).toEqual([
      Code.Unschedulable,
      Code.Unschedulable,
      Code.Success,
    ]);
  });

  it('namespaceSelector selects namespaces by their labels', () => {
    const nodes = [makeNode('n1').label('zone', 'a').obj(), makeNode('n2').label('zone', 'b').obj()];
    const snap = new ClusterSnapshot(nodes, [
      makePod('db').namespace('prod').label('app', 'db').node('n1').obj(),
    ]);
    snap.setNamespace({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'prod', labels: { env: 'prod' } },
    });
    const pl = new InterPodAffinity(undefined, snap);
    const pod = makePod('p')
      .podAffinity({
        labelSelector: { matchLabels: { app: 'db' } },
        namespaceSelector: { matchLabels: { env: 'prod' } },
        topologyKey: 'zone',
      })
      .obj();
    const st = new CycleState();
    pl.preFilter(st, pod, snap.list());
    expect(pl.filter(st, pod, snap.get('n1')!)).toBeNull();
    expect(pl.filter(st, pod, snap.get('n2')!)?.code).toBe(Code.UnschedulableAndUnresolvable);
  });
});

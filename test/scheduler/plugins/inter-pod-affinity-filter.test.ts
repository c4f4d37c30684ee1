// InterPodAffinity PreFilter/Filter on one node (through the public PluginRunner), translated from upstream's
// pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go (TestRequiredAffinitySingleNode).
import { describe, expect, it } from 'vitest';
import type { Namespace, Node, Pod, PodAffinityTerm } from '../../../src/api/types.js';
import { CODE_NAMES, Code } from '../../../src/scheduler/framework/status.js';
import { PluginRunner, type PluginRunResult } from '../../../src/scheduler/index.js';
import {
  ERR_REASON_AFFINITY_RULES_NOT_MATCH as AFF,
  ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH as ANTI,
  ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH as EXISTING,
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

/** PreFilter, then Filter on the node, through the public PluginRunner (as upstream's test runs them) */
function run(pod: Pod, pods: Pod[], node: Node): PluginRunResult {
  return new PluginRunner({ plugin: 'InterPodAffinity', nodes: [node], pods }).run(pod);
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
        expect(got.preFilter?.code).toBe(CODE_NAMES[tt.want.pre]);
        expect(got.filter).toBeUndefined();
        return;
      }
      expect(got.preFilter).toEqual({ code: 'Success', reasons: [] });
      expect(got.filter?.node1).toEqual(
        tt.want.filter
          ? { code: CODE_NAMES[tt.want.filter[0]], reasons: [tt.want.filter[1]] }
          : { code: 'Success', reasons: [] },
      );
    });
  }
});

describe('InterPodAffinity filter: multiple nodes', () => {
  /** Filter's code per node after PreFilter, through the PluginRunner */
  const codes = (nodes: Node[], pods: Pod[], pod: Pod, namespaces: Namespace[] = []) => {
    const r = new PluginRunner({ plugin: 'InterPodAffinity', nodes, pods, namespaces }).run(pod);
    expect(r.preFilter?.code).toBe('Success');
    return nodes.map((n) => r.filter?.[n.metadata.name!]);
  };
  const OK = { code: 'Success', reasons: [] };

  it('the first pod of a self-affine group may go to any node with the topology label', () => {
    const nodes = [
      makeNode('n1').label('zone', 'a').obj(),
      makeNode('n2').label('zone', 'b').obj(),
      makeNode('n3').obj(),
    ];
    const pod = makePod('p')
      .label('app', 'web')
      .podAffinity({ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'zone' })
      .obj();
    expect(codes(nodes, [], pod)).toEqual([OK, OK, { code: 'UnschedulableAndUnresolvable', reasons: [AFF] }]);
  });

  it('affinity to a pod in zone a admits only zone-a nodes; anti-affinity rejects them', () => {
    const nodes = [
      makeNode('n1').label('zone', 'a').obj(),
      makeNode('n2').label('zone', 'a').obj(),
      makeNode('n3').label('zone', 'b').obj(),
    ];
    const pods = [makePod('db').label('app', 'db').node('n1').obj()];
    const aff = makePod('p')
      .podAffinity({ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'zone' })
      .obj();
    expect(codes(nodes, pods, aff).map((s) => s?.code)).toEqual([
      'Success',
      'Success',
      'UnschedulableAndUnresolvable',
    ]);
    const anti = makePod('q')
      .podAntiAffinity({ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'zone' })
      .obj();
    expect(codes(nodes, pods, anti).map((s) => s?.code)).toEqual([
      'Unschedulable',
      'Unschedulable',
      'Success',
    ]);
  });

  it('namespaceSelector selects namespaces by their labels', () => {
    const nodes = [makeNode('n1').label('zone', 'a').obj(), makeNode('n2').label('zone', 'b').obj()];
    const pods = [makePod('db').namespace('prod').label('app', 'db').node('n1').obj()];
    const prod: Namespace = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'prod', labels: { env: 'prod' } },
    };
    const pod = makePod('p')
      .podAffinity({
        labelSelector: { matchLabels: { app: 'db' } },
        namespaceSelector: { matchLabels: { env: 'prod' } },
        topologyKey: 'zone',
      })
      .obj();
    expect(codes(nodes, pods, pod, [prod]).map((s) => s?.code)).toEqual([
      'Success',
      'UnschedulableAndUnresolvable',
    ]);
  });
});

// InterPodAffinity PreScore/Score/NormalizeScore, translated from upstream's
// pkg/scheduler/framework/plugins/interpodaffinity/scoring_test.go (TestPreferredAffinity).
import { describe, expect, it } from 'vitest';
import type { Affinity, Labels, Node, Pod } from '../../../src/api/types.js';
import { CycleState } from '../../../src/scheduler/framework/cycle-state.js';
import { ClusterSnapshot } from '../../../src/scheduler/framework/snapshot.js';
import { Code } from '../../../src/scheduler/framework/status.js';
import { InterPodAffinity } from '../../../src/scheduler/plugins/inter-pod-affinity.js';
import { makeNode, makePod } from '../../helpers/builders.js';

const rgChina = { region: 'China' },
  rgIndia = { region: 'India' },
  az1 = { az: 'az1' },
  az2 = { az: 'az2' },
  rgChinaAz1 = { region: 'China', az: 'az1' };
const S1 = { security: 'S1' },
  S2 = { security: 'S2' };
const w = (
  weight: number,
  exprs: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[],
  topologyKey: string,
  extra: object = {},
) => ({ weight, podAffinityTerm: { labelSelector: { matchExpressions: exprs }, topologyKey, ...extra } });
const stayWithS1InRegion: Affinity = {
  podAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      w(5, [{ key: 'security', operator: 'In', values: ['S1'] }], 'region'),
    ],
  },
};
const stayWithS2InRegion: Affinity = {
  podAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      w(6, [{ key: 'security', operator: 'In', values: ['S2'] }], 'region'),
    ],
  },
};
const affinity3: Affinity = {
  podAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      w(
        8,
        [
          { key: 'security', operator: 'NotIn', values: ['S1'] },
          { key: 'security', operator: 'In', values: ['S2'] },
        ],
        'region',
      ),
      w(
        2,
        [
          { key: 'security', operator: 'Exists' },
          { key: 'wrongkey', operator: 'DoesNotExist' },
        ],
        'region',
      ),
    ],
  },
};
const hardAffinity: Affinity = {
  podAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: [
      {
        labelSelector: { matchExpressions: [{ key: 'security', operator: 'In', values: ['S1', 'value2'] }] },
        topologyKey: 'region',
      },
      {
        labelSelector: {
          matchExpressions: [
            { key: 'security', operator: 'Exists' },
            { key: 'wrongkey', operator: 'DoesNotExist' },
          ],
        },
        topologyKey: 'region',
      },
    ],
  },
};
const awayFromS1InAz: Affinity = {
  podAntiAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      w(5, [{ key: 'security', operator: 'In', values: ['S1'] }], 'az'),
    ],
  },
};
const awayFromS2InAz: Affinity = {
  podAntiAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      w(5, [{ key: 'security', operator: 'In', values: ['S2'] }], 'az'),
    ],
  },
};
const stayWithS1InRegionAwayFromS2InAz: Affinity = {
  podAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      w(8, [{ key: 'security', operator: 'In', values: ['S1'] }], 'region'),
    ],
  },
  podAntiAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      w(5, [{ key: 'security', operator: 'In', values: ['S2'] }], 'az'),
    ],
  },
};
const nsSel = {
  namespaces: ['subteam2.team2'],
  namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'In' as const, values: ['team1'] }] },
};
const affinityNamespaceSelector: Affinity = {
  podAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      w(5, [{ key: 'security', operator: 'In', values: ['S1'] }], 'region', nsSel),
    ],
  },
};
const antiAffinityNamespaceSelector: Affinity = {
  podAntiAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      w(5, [{ key: 'security', operator: 'In', values: ['S1'] }], 'region', nsSel),
    ],
  },
};

let seq = 0;
const pod = (
  labels: Labels | undefined,
  affinity?: Affinity,
  nodeName?: string,
  namespace = 'default',
): Pod =>
  makePod(`p${seq++}`)
    .uid(undefined)
    .namespace(namespace)
    .labels(labels)
    .containers()
    .spec({ nodeName, affinity })
    .obj();
const node = (name: string, labels: Labels): Node => makeNode(name).labels(labels).obj();

function score(
  incoming: Pod,
  pods: Pod[],
  nodes: Node[],
  args?: { hardPodAffinityWeight?: number; ignorePreferredTermsOfExistingPods?: boolean },
): number[] | 'skip' {
  const snap = new ClusterSnapshot(nodes, pods);
  for (const [n, team] of [
    ['subteam1.team1', 'team1'],
    ['subteam2.team1', 'team1'],
    ['subteam1.team2', 'team2'],
    ['subteam2.team2', 'team2'],
  ]) {
    snap.setNamespace({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n, labels: { team } } });
  }
  const pl = new InterPodAffinity(args, snap);
  const st = new CycleState();
  const list = nodes.map((n) => snap.get(n.metadata.name!)!);
  const s = pl.preScore(st, incoming, list);
  if (s?.code === Code.Skip) return 'skip';
  const scores = list.map((ni) => pl.score(st, incoming, ni));
  pl.normalizeScore(st, incoming, list, scores);
  return scores;
}

const M = 100;
const cases: {
  name: string;
  pod: Pod;
  pods: Pod[];
  nodes: Node[];
  want: number[] | 'skip';
  args?: { hardPodAffinityWeight?: number; ignorePreferredTermsOfExistingPods?: boolean };
}[] = [
  {
    name: 'all nodes are same priority as Affinity is nil',
    pod: pod(S1),
    pods: [],
    nodes: [node('node1', rgChina), node('node2', rgIndia), node('node3', az1)],
    want: 'skip',
  },
  {
    name: "Affinity: pod that matches topology key & pods in nodes will get high score comparing to otherswhich doesn't match either pods in nodes or in topology key",
    pod: pod(S1, stayWithS1InRegion),
    pods: [pod(S1, undefined, 'node1'), pod(S2, undefined, 'node2'), pod(S1, undefined, 'node3')],
    nodes: [node('node1', rgChina), node('node2', rgIndia), node('node3', az1)],
    want: [M, 0, 0],
  },
  {
    name: 'All the nodes that have the same topology key & label value with one of them has an existing pod that match the affinity rules, have the same score',
    pod: pod(undefined, stayWithS1InRegion),
    pods: [pod(S1, undefined, 'node1')],
    nodes: [node('node1', rgChina), node('node2', rgChinaAz1), node('node3', rgIndia)],
    want: [M, M, 0],
  },
  {
    name: 'Affinity: nodes in one region has more matching pods comparing to other region, so the region which has more matches will get high score',
    pod: pod(S1, stayWithS2InRegion),
    pods: [
      pod(S2, undefined, 'node1'),
      pod(S2, undefined, 'node1'),
      pod(S2, undefined, 'node2'),
      pod(S2, undefined, 'node3'),
      pod(S2, undefined, 'node4'),
      pod(S2, undefined, 'node5'),
    ],
    nodes: [
      node('node1', rgChina),
      node('node2', rgIndia),
      node('node3', rgChina),
      node('node4', rgChina),
      node('node5', rgIndia),
    ],
    want: [M, 0, M, M, 0],
  },
  {
    name: 'Affinity: different Label operators and values for pod affinity scheduling preference, including some match failures',
    pod: pod(S1, affinity3),
    pods: [pod(S1, undefined, 'node1'), pod(S2, undefined, 'node2'), pod(S1, undefined, 'node3')],
    nodes: [node('node1', rgChina), node('node2', rgIndia), node('node3', az1)],
    want: [20, M, 0],
  },
  {
    name: 'Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry',
    pod: pod(S2),
    pods: [pod(S1, stayWithS1InRegion, 'node1'), pod(S2, stayWithS2InRegion, 'node2')],
    nodes: [node('node1', rgChina), node('node2', rgIndia), node('node3', az1)],
    want: [0, M, 0],
  },
  {
    name: 'Affinity symmetry with namespace selector',
    pod: pod(S1, undefined, undefined, 'subteam1.team1'),
    pods: [pod(S1, affinityNamespaceSelector, 'node1'), pod(S2, stayWithS2InRegion, 'node2')],
    nodes: [node('node1', rgChina), node('node2', rgIndia), node('node3', az1)],
    want: [M, 0, 0],
  },
  {
    name: 'AntiAffinity symmetry with namespace selector',
    pod: pod(S1, undefined, undefined, 'subteam1.team1'),
    pods: [pod(S1, antiAffinityNamespaceSelector, 'node1'), pod(S2, stayWithS2InRegion, 'node2')],
    nodes: [node('node1', rgChina), node('node2', rgIndia), node('node3', az1)],
    want: [0, M, M],
  },
  {
    name: 'Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry',
    pod: pod(S1),
    pods: [pod(S1, hardAffinity, 'node1'), pod(S2, hardAffinity, 'node2')],
    nodes: [node('node1', rgChina), node('node2', rgIndia), node('node3', az1)],
    want: [M, M, 0],
  },
  {
    name: 'Anti Affinity: pod that does not match existing pods in node will get high score',
    pod: pod(S1, awayFromS1InAz),
    pods: [pod(S1, undefined, 'node1'), pod(S2, undefined, 'node2')],
    nodes: [node('node1', az1), node('node2', rgChina)],
    want: [0, M],
  },
  {
    name: 'Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher score comparing to others',
    pod: pod(S1, awayFromS1InAz),
    pods: [pod(S1, undefined, 'node1'), pod(S1, undefined, 'node2')],
    nodes: [node('node1', az1), node('node2', rgChina)],
    want: [0, M],
  },
  {
    name: 'Anti Affinity: one node has more matching pods comparing to other node, so the node which has more unmatches will get high score',
    pod: pod(S1, awayFromS1InAz),
    pods: [pod(S1, undefined, 'node1'), pod(S1, undefined, 'node1'), pod(S2, undefined, 'node2')],
    nodes: [node('node1', az1), node('node2', rgIndia)],
    want: [0, M],
  },
  {
    name: 'Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high score',
    pod: pod(S2),
    pods: [pod(S1, awayFromS2InAz, 'node1'), pod(S2, awayFromS1InAz, 'node2')],
    nodes: [node('node1', az1), node('node2', az2)],
    want: [0, M],
  },
  {
    name: 'Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity',
    pod: pod(S1, stayWithS1InRegionAwayFromS2InAz),
    pods: [pod(S1, undefined, 'node1'), pod(S1, undefined, 'node2')],
    nodes: [node('node1', rgChina), node('node2', az1)],
    want: [M, 0],
  },
  {
    name: 'Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and existing pods have the same labels',
    pod: pod(S1, stayWithS1InRegionAwayFromS2InAz),
    pods: ['node1', 'node1', 'node2', 'node3', 'node3', 'node4', 'node5'].map((n) => pod(S1, undefined, n)),
    nodes: [
      node('node1', rgChinaAz1),
      node('node2', rgIndia),
      node('node3', rgChina),
      node('node4', rgChina),
      node('node5', rgIndia),
    ],
    want: [M, 0, M, M, 0],
  },
  {
    name: 'Affinity and Anti Affinity and symmetry: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity & symmetry',
    pod: pod(S1, stayWithS1InRegionAwayFromS2InAz),
    pods: [
      pod(S1, undefined, 'node1'),
      pod(S2, undefined, 'node2'),
      pod(undefined, stayWithS1InRegionAwayFromS2InAz, 'node3'),
      pod(undefined, awayFromS1InAz, 'node4'),
    ],
    nodes: [node('node1', rgChina), node('node2', az1), node('node3', rgIndia), node('node4', az2)],
    want: [M, 0, M, 0],
  },
  {
    name: "Avoid panic when partial nodes in a topology don't have pods with affinity",
    pod: pod(S1),
    pods: [pod(S1, undefined, 'node1'), pod(undefined, stayWithS1InRegionAwayFromS2InAz, 'node2')],
    nodes: [node('node1', rgChina), node('node2', rgChina)],
    want: [0, 0],
  },
  {
    name: 'ignorePreferredTermsOfExistingPods skips pods without preferred terms',
    pod: pod(S2),
    pods: [pod(S1, stayWithS1InRegion, 'node1'), pod(S2, stayWithS2InRegion, 'node2')],
    nodes: [node('node1', rgChina), node('node2', rgIndia)],
    want: 'skip',
    args: { ignorePreferredTermsOfExistingPods: true },
  },
  {
    name: "hardPodAffinityWeight 0 ignores existing pods' required terms",
    pod: pod(S1),
    pods: [pod(S1, hardAffinity, 'node1'), pod(S2, hardAffinity, 'node2')],
    nodes: [node('node1', rgChina), node('node2', rgIndia), node('node3', az1)],
    want: 'skip',
    args: { hardPodAffinityWeight: 0 },
  },
];

describe('InterPodAffinity score: TestPreferredAffinity', () => {
  for (const tt of cases)
    it(tt.name, () => expect(score(tt.pod, tt.pods, tt.nodes, tt.args)).toEqual(tt.want));
});

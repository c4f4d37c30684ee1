// PluginRunner, the public API to run one plugin's extension points against given nodes and pods,
// exercised the way upstream's plugin tests are: their tables transcribed as data (Kubernetes
// v1.34 nodeaffinity/node_affinity_test.go TestNodeAffinity and TestNodeAffinityPriority,
// nodeports/node_ports_test.go TestNodePorts, tainttoleration/taint_toleration_test.go
// TestTaintTolerationScore, noderesources/fit_test.go TestEnoughRequests), on both kernels.
import { describe, expect, it } from 'vitest';
import type { Node, NodeSelectorTerm, Pod, Taint, Toleration } from '../../src/api/types.js';
import { PluginRunner, type PluginRunResult } from '../../src/scheduler/index.js';
import { nodeOf, podOf } from '../helpers/builders.js';

const KERNELS = ['js', 'wasm'] as const;
const ok = { code: 'Success', reasons: [] };

function run(
  plugin: string,
  nodes: Node[],
  pod: Pod,
  pods: Pod[] = [],
  kernel: 'js' | 'wasm' = 'js',
): PluginRunResult {
  return new PluginRunner({ plugin, nodes, pods, kernel }).run(pod);
}

describe('NodeAffinity Filter (TestNodeAffinity)', () => {
  const REASON = {
    code: 'UnschedulableAndUnresolvable',
    reasons: ["node(s) didn't match Pod's node affinity/selector"],
  };
  const req = (...terms: NodeSelectorTerm[]) => ({
    nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } },
  });
  // [name, pod, node labels, node name, fits]
  const rows: [string, Pod, Record<string, string>, string, boolean][] = [
    ['missing labels', podOf({ nodeSelector: { foo: 'bar' } }), {}, 'node1', false],
    ['same labels', podOf({ nodeSelector: { foo: 'bar' } }), { foo: 'bar' }, 'node1', true],
    [
      'node labels are superset',
      podOf({ nodeSelector: { foo: 'bar' } }),
      { foo: 'bar', baz: 'blah' },
      'node1',
      true,
    ],
    [
      'node labels are subset',
      podOf({ nodeSelector: { foo: 'bar', baz: 'blah' } }),
      { foo: 'bar' },
      'node1',
      false,
    ],
    [
      'Pod with matchExpressions using In operator that matches the existing node',
      podOf({
        affinity: req({ matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar', 'value2'] }] }),
      }),
      { foo: 'bar' },
      'node1',
      true,
    ],
    [
      'Pod with matchExpressions using Gt operator that matches the existing node',
      podOf({
        affinity: req({ matchExpressions: [{ key: 'kernel-version', operator: 'Gt', values: ['0204'] }] }),
      }),
      { 'kernel-version': '0206' },
      'node1',
      true,
    ],
    [
      'Pod with matchExpressions using NotIn operator that matches the existing node',
      podOf({
        affinity: req({
          matchExpressions: [{ key: 'mem-type', operator: 'NotIn', values: ['DDR', 'DDR2'] }],
        }),
      }),
      { 'mem-type': 'DDR3' },
      'node1',
      true,
    ],
    [
      'Pod with matchExpressions using Exists operator that matches the existing node',
      podOf({ affinity: req({ matchExpressions: [{ key: 'GPU', operator: 'Exists' }] }) }),
      { GPU: 'NVIDIA-GRID-K1' },
      'node1',
      true,
    ],
    [
      "Pod with affinity that don't match node's labels won't schedule onto the node",
      podOf({
        affinity: req({ matchExpressions: [{ key: 'foo', operator: 'In', values: ['value1', 'value2'] }] }),
      }),
      { foo: 'bar' },
      'node1',
      false,
    ],
    [
      "Pod with an invalid value in Affinity term won't be scheduled onto the node",
      podOf({
        affinity: req({
          matchExpressions: [{ key: 'foo', operator: 'NotIn', values: ['invalid value: ___@#$%^'] }],
        }),
      }),
      { foo: 'bar' },
      'node1',
      false,
    ],
    [
      'Pod with matchFields using In operator that matches the existing node',
      podOf({
        affinity: req({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }] }),
      }),
      {},
      'node1',
      true,
    ],
    [
      'Pod with matchFields using In operator that does not match the existing node',
      podOf({
        affinity: req({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }] }),
      }),
      {},
      'node2',
      false,
    ],
    [
      'Pod with two terms: matchFields does not match, but matchExpressions matches',
      podOf({
        affinity: req(
          { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }] },
          { matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }] },
        ),
      }),
      { foo: 'bar' },
      'node2',
      true,
    ],
  ];
  for (const kernel of KERNELS)
    for (const [name, pod, labels, nodeName, fits] of rows)
      it(`${name} (${kernel})`, () => {
        const r = run(
          'NodeAffinity',
          [nodeOf(nodeName, { labels, capacity: { pods: '110' } })],
          pod,
          [],
          kernel,
        );
        expect(r.filter?.[nodeName]).toEqual(fits ? ok : REASON);
      });
});

// (the nil-affinity row is PreScore's Skip upstream: not a score row)
describe('NodeAffinity Score + NormalizeScore (TestNodeAffinityPriority)', () => {
  const pref = (...terms: [number, [string, string][]][]) => ({
    nodeAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: terms.map(([weight, exprs]) => ({
        weight,
        preference: {
          matchExpressions: exprs.map(([key, v]) => ({ key, operator: 'In' as const, values: [v] })),
        },
      })),
    },
  });
  const affinity1 = pref([2, [['foo', 'bar']]]);
  const affinity2 = pref(
    [2, [['foo', 'bar']]],
    [4, [['key', 'value']]],
    [
      5,
      [
        ['foo', 'bar'],
        ['key', 'value'],
        ['az', 'az1'],
      ],
    ],
  );
  const label1 = { foo: 'bar' };
  const label2 = { key: 'value' };
  const label3 = { az: 'az1' };
  const label5 = { foo: 'bar', key: 'value', az: 'az1' };
  const rows: [string, Pod, Record<string, string>[], number[], number[]][] = [
    [
      'only machine1 matches the preferred scheduling requirements of pod',
      podOf({ affinity: affinity1 }),
      [label1, label2, label3],
      [2, 0, 0],
      [100, 0, 0],
    ],
    [
      'all machines match the preferred scheduling requirements of pod but with different priorities',
      podOf({ affinity: affinity2 }),
      [label1, label5, label2],
      [2, 11, 4],
      [18, 100, 36],
    ],
  ];
  for (const kernel of KERNELS)
    for (const [name, pod, labels, raw, normalized] of rows)
      it(`${name} (${kernel})`, () => {
        const names = labels.map((_, i) => `machine${i + 1}`);
        const r = run(
          'NodeAffinity',
          labels.map((l, i) => nodeOf(names[i]!, { labels: l })),
          pod,
          [],
          kernel,
        );
        expect(names.map((n) => r.score?.[n])).toEqual(raw);
        expect(names.map((n) => r.normalizedScore?.[n])).toEqual(normalized);
      });
});

describe('NodePorts Filter (TestNodePorts) and sidecar ports (GetHostPorts)', () => {
  const REASON = {
    code: 'Unschedulable',
    reasons: ["node(s) didn't have free ports for the requested pod ports"],
  };
  const ports = (...specs: string[]) =>
    specs.map((s) => {
      const [protocol, ip, port] = s.split('/');
      return { protocol: protocol as 'TCP' | 'UDP', ip, port: Number(port) };
    });
  const rows: [string, string[], string[], boolean][] = [
    ['nothing of it in use', ['TCP/0.0.0.0/80'], [], true],
    ['other port', ['UDP/127.0.0.1/8080'], ['UDP/127.0.0.1/9090'], true],
    ['same udp port', ['UDP/127.0.0.1/8080'], ['UDP/127.0.0.1/8080'], false],
    ['same tcp port', ['TCP/127.0.0.1/8080'], ['TCP/127.0.0.1/8080'], false],
    ['different host ip', ['TCP/127.0.0.1/8080'], ['TCP/127.0.0.2/8080'], true],
    ['different protocol', ['UDP/127.0.0.1/8080'], ['TCP/127.0.0.1/8080'], true],
    ['second udp port conflict', ['UDP/127.0.0.1/8000', 'UDP/127.0.0.1/8080'], ['UDP/127.0.0.1/8080'], false],
    [
      'first tcp port conflict',
      ['TCP/127.0.0.1/8001', 'UDP/127.0.0.1/8080'],
      ['TCP/127.0.0.1/8001', 'UDP/127.0.0.1/8081'],
      false,
    ],
    ['first tcp port conflict due to 0.0.0.0 hostIP', ['TCP/0.0.0.0/8001'], ['TCP/127.0.0.1/8001'], false],
    [
      'TCP hostPort conflict due to 0.0.0.0 hostIP',
      ['TCP/10.0.10.10/8001', 'TCP/0.0.0.0/8001'],
      ['TCP/127.0.0.1/8001'],
      false,
    ],
    ['second tcp port conflict to 0.0.0.0 hostIP', ['TCP/127.0.0.1/8001'], ['TCP/0.0.0.0/8001'], false],
    ['second different protocol', ['UDP/127.0.0.1/8001'], ['TCP/0.0.0.0/8001'], true],
    [
      'UDP hostPort conflict due to 0.0.0.0 hostIP',
      ['UDP/127.0.0.1/8001'],
      ['TCP/0.0.0.0/8001', 'UDP/0.0.0.0/8001'],
      false,
    ],
  ];
  const node = nodeOf('m1', { capacity: { pods: '110' } });
  for (const kernel of KERNELS) {
    for (const [name, want, used, fits] of rows)
      it(`${name} (${kernel})`, () => {
        const r = run(
          'NodePorts',
          [node],
          podOf({ hostPorts: ports(...want) }),
          [podOf({ node: 'm1', hostPorts: ports(...used) })],
          kernel,
        );
        expect(r.filter?.m1).toEqual(fits ? ok : REASON);
      });
    it(`a running pod's sidecar holds its host port (${kernel})`, () => {
      const running = podOf({ node: 'm1' });
      running.spec.initContainers = [
        { name: 'proxy', restartPolicy: 'Always', ports: [{ containerPort: 8080, hostPort: 8080 }] },
      ];
      const r = run('NodePorts', [node], podOf({ hostPorts: ports('TCP/0.0.0.0/8080') }), [running], kernel);
      expect(r.filter?.m1).toEqual(REASON);
    });
  }
});

describe('TaintToleration Score + NormalizeScore (TestTaintTolerationScore)', () => {
  const taint = (key: string, value: string, effect: Taint['effect']): Taint => ({ key, value, effect });
  const tol = (key: string, value: string, effect: Toleration['effect']): Toleration => ({
    key,
    operator: 'Equal',
    value,
    effect,
  });
  const rows: [string, Toleration[], Taint[][], number[]][] = [
    [
      'node with taints tolerated by the pod gets a higher score than those node with intolerable taints',
      [tol('foo', 'bar', 'PreferNoSchedule')],
      [[taint('foo', 'bar', 'PreferNoSchedule')], [taint('foo', 'blah', 'PreferNoSchedule')]],
      [100, 0],
    ],
    [
      'the nodes that all of their taints are tolerated by the pod get the same score, no matter how many tolerable taints a node has',
      [tol('cpu-type', 'arm64', 'PreferNoSchedule'), tol('disk-type', 'ssd', 'PreferNoSchedule')],
      [
        [],
        [taint('cpu-type', 'arm64', 'PreferNoSchedule')],
        [taint('cpu-type', 'arm64', 'PreferNoSchedule'), taint('disk-type', 'ssd', 'PreferNoSchedule')],
      ],
      [100, 100, 100],
    ],
    [
      'the more intolerable taints a node has, the lower score it gets.',
      [tol('foo', 'bar', 'PreferNoSchedule')],
      [
        [],
        [taint('cpu-type', 'arm64', 'PreferNoSchedule')],
        [taint('cpu-type', 'arm64', 'PreferNoSchedule'), taint('disk-type', 'ssd', 'PreferNoSchedule')],
      ],
      [100, 50, 0],
    ],
    [
      'only taints and tolerations that have effect PreferNoSchedule are checked by prioritizeTaintToleration function',
      [tol('cpu-type', 'arm64', 'NoSchedule'), tol('disk-type', 'ssd', 'NoSchedule')],
      [
        [],
        [taint('cpu-type', 'arm64', 'NoSchedule')],
        [taint('cpu-type', 'arm64', 'PreferNoSchedule'), taint('disk-type', 'ssd', 'PreferNoSchedule')],
      ],
      [100, 100, 0],
    ],
  ];
  for (const kernel of KERNELS)
    for (const [name, tolerations, taints, want] of rows)
      it(`${name} (${kernel})`, () => {
        const names = taints.map((_, i) => `node${i + 1}`);
        const r = run(
          'TaintToleration',
          taints.map((t, i) => nodeOf(names[i]!, { taints: t })),
          podOf({ tolerations }),
          [],
          kernel,
        );
        expect(names.map((n) => r.normalizedScore?.[n])).toEqual(want);
      });
});

describe('NodeResourcesFit Filter (TestEnoughRequests: requests within the node, not its free room)', () => {
  // makeAllocatableResources(10, 20, 32, 5, 20, 5): cpu 10m, memory 20, pods 32
  const node = () => nodeOf('machine1', { capacity: { cpu: '10m', memory: '20', pods: '32' } });
  const used = (cpu: number, mem: number) =>
    podOf({ node: 'machine1', reqs: [{ cpu: `${cpu}m`, memory: `${mem}` }] });
  const want = (cpu: number, mem: number) => podOf({ reqs: [{ cpu: `${cpu}m`, memory: `${mem}` }] });
  const rows: [string, Pod, Pod[], string[]][] = [
    ['no resources requested always fits', podOf({ reqs: [{}] }), [used(10, 20)], []],
    ['too many resources fails', want(1, 1), [used(10, 20)], ['Insufficient cpu', 'Insufficient memory']],
    ['equal edge case', want(5, 19), [used(5, 1)], []],
    ['one resource memory fits', want(2, 1), [used(9, 5)], ['Insufficient cpu']],
    ['one resource cpu fits', want(1, 2), [used(5, 19)], ['Insufficient memory']],
  ];
  for (const kernel of KERNELS)
    for (const [name, pod, existing, reasons] of rows)
      it(`${name} (${kernel})`, () => {
        const r = run('NodeResourcesFit', [node()], pod, existing, kernel);
        expect(r.filter?.machine1).toEqual(reasons.length ? { code: 'Unschedulable', reasons } : ok);
      });
});

describe('PluginRunner', () => {
  it('reports the nodes a PreFilterResult narrows to (NodeAffinity matchFields metadata.name)', () => {
    const pod = podOf({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }] },
            ],
          },
        },
      },
    });
    const r = run('NodeAffinity', [nodeOf('node1'), nodeOf('node2')], pod);
    expect(r.preFilter).toEqual(ok);
    expect(r.preFilterResult).toEqual(['node1']);
  });
  it('checks plugin args as a configuration would, naming the field', () =>
    expect(
      () =>
        new PluginRunner({
          plugin: 'InterPodAffinity',
          args: { hardPodAffinityWeight: 500 },
          nodes: [],
        }),
    ).toThrow('hardPodAffinityWeight: Invalid value: 500'));
  it('an unknown plugin is named', () =>
    expect(() => new PluginRunner({ plugin: 'Nope', nodes: [] })).toThrow('"Nope" does not exist'));
});

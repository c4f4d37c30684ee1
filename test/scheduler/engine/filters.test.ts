// Filter plugins against upstream's test tables: noderesources/fit_test.go (TestEnoughRequests),
// nodeports/node_ports_test.go, tainttoleration/taint_toleration_test.go (TestTaintTolerationFilter),
// nodeunschedulable/node_unschedulable_test.go, nodename/node_name_test.go,
// nodeaffinity/node_affinity_test.go (TestNodeAffinity, TestNodeAffinityPriority).
import { describe, expect, it } from 'vitest';
import type { Node, NodeSelectorTerm, Pod, Taint, Toleration } from '../../../src/api/types.js';
import { NodeTable } from '../../../src/scheduler/engine/table.js';
import { reasonStrings } from '../../../src/scheduler/engine/reasons.js';
import { ALL_FILTER_BITS, ScorePlugin } from '../../../src/scheduler/engine/types.js';
import { nodeOf, podOf } from '../../helpers/builders.js';
import { profileNorm, profileScores } from '../../helpers/profile-scores.js';
import { runBoth } from './helpers.js';

/** reasons of `node` for `pod` on a one-node table holding `existing` */
function reasonsOf(node: Node, existing: Pod[], pod: Pod): string[] {
  const r = runBoth([node], existing, pod);
  const n = r.nodes.get(node.metadata.name!)!;
  const table = new NodeTable();
  table.addNode(node);
  for (const p of existing) table.addPod(p);
  // resource names are interned in the same order by both tables (node allocatable, then pod requests)
  for (const c of [...(pod.spec.containers ?? []), ...(pod.spec.initContainers ?? [])])
    for (const k of Object.keys(c.resources?.requests ?? {})) table.resourceIndex(k);
  return reasonStrings(table, n.reasons);
}

describe('NodeResourcesFit filter (TestEnoughRequests)', () => {
  // makeAllocatableResources(10, 20, 32, 5, 20, 5): milliCPU, memory, pods, example.com/aaa, ephemeral-storage, hugepages-2Mi
  const node = () =>
    nodeOf('n', {
      capacity: {
        cpu: '10m',
        memory: '20',
        pods: '32',
        'example.com/aaa': '5',
        'ephemeral-storage': '20',
        'hugepages-2Mi': '5',
      },
    });
  type R = { cpu?: number; mem?: number; x?: Record<string, number> };
  const req = (r: R) => {
    const out: Record<string, string> = {};
    if (r.cpu !== undefined) out.cpu = `${r.cpu}m`;
    if (r.mem !== undefined) out.memory = `${r.mem}`;
    for (const [k, v] of Object.entries(r.x ?? {})) out[k] = `${v}`;
    return out;
  };
  const pod = (containers: R[], inits: R[] = [], overhead?: Record<string, string>) =>
    podOf({ reqs: containers.map(req), initReqs: inits.map((r) => ({ req: req(r) })), overhead });
  const existing = (r: R) => podOf({ node: 'n', reqs: [req(r)] });
  const A = 'example.com/aaa',
    B = 'example.com/bbb',
    K8S_A = 'kubernetes.io/something',
    K8S_B = 'subdomain.kubernetes.io/something',
    HP = 'hugepages-2Mi';
  const cases: [string, Pod, Pod, string[]][] = [
    ['no resources requested always fits', podOf(), existing({ cpu: 10, mem: 20 }), []],
    [
      'too many resources fails',
      pod([{ cpu: 1, mem: 1 }]),
      existing({ cpu: 10, mem: 20 }),
      ['Insufficient cpu', 'Insufficient memory'],
    ],
    [
      'too many resources fails due to init container cpu',
      pod([{ cpu: 1, mem: 1 }], [{ cpu: 3, mem: 1 }]),
      existing({ cpu: 8, mem: 19 }),
      ['Insufficient cpu'],
    ],
    [
      'too many resources fails due to highest init container cpu',
      pod(
        [{ cpu: 1, mem: 1 }],
        [
          { cpu: 3, mem: 1 },
          { cpu: 2, mem: 1 },
        ],
      ),
      existing({ cpu: 8, mem: 19 }),
      ['Insufficient cpu'],
    ],
    [
      'too many resources fails due to init container memory',
      pod([{ cpu: 1, mem: 1 }], [{ cpu: 1, mem: 3 }]),
      existing({ cpu: 9, mem: 19 }),
      ['Insufficient memory'],
    ],
    [
      'too many resources fails due to highest init container memory',
      pod(
        [{ cpu: 1, mem: 1 }],
        [
          { cpu: 1, mem: 3 },
          { cpu: 1, mem: 2 },
        ],
      ),
      existing({ cpu: 9, mem: 19 }),
      ['Insufficient memory'],
    ],
    [
      "init container fits because it's the max, not sum, of containers and init containers",
      pod([{ cpu: 1, mem: 1 }], [{ cpu: 1, mem: 1 }]),
      existing({ cpu: 9, mem: 19 }),
      [],
    ],
    [
      "multiple init containers fit because it's the max",
      pod(
        [{ cpu: 1, mem: 1 }],
        [
          { cpu: 1, mem: 1 },
          { cpu: 1, mem: 1 },
        ],
      ),
      existing({ cpu: 9, mem: 19 }),
      [],
    ],
    ['both resources fit', pod([{ cpu: 1, mem: 1 }]), existing({ cpu: 5, mem: 5 }), []],
    [
      'one resource memory fits',
      pod([{ cpu: 2, mem: 1 }]),
      existing({ cpu: 9, mem: 5 }),
      ['Insufficient cpu'],
    ],
    [
      'one resource cpu fits',
      pod([{ cpu: 1, mem: 2 }]),
      existing({ cpu: 5, mem: 19 }),
      ['Insufficient memory'],
    ],
    ['equal edge case', pod([{ cpu: 5, mem: 1 }]), existing({ cpu: 5, mem: 19 }), []],
    [
      'equal edge case for init container',
      pod([{ cpu: 4, mem: 1 }], [{ cpu: 5, mem: 1 }]),
      existing({ cpu: 5, mem: 19 }),
      [],
    ],
    ['extended resource fits', pod([{ x: { [A]: 1 } }]), existing({}), []],
    ['extended resource fits for init container', pod([{}], [{ x: { [A]: 1 } }]), existing({}), []],
    [
      'extended resource capacity enforced',
      pod([{ cpu: 1, mem: 1, x: { [A]: 10 } }]),
      existing({ cpu: 0, mem: 0, x: { [A]: 0 } }),
      [`Insufficient ${A}`],
    ],
    [
      'extended resource capacity enforced for init container',
      pod([{}], [{ cpu: 1, mem: 1, x: { [A]: 10 } }]),
      existing({ cpu: 0, mem: 0, x: { [A]: 0 } }),
      [`Insufficient ${A}`],
    ],
    [
      'extended resource allocatable enforced',
      pod([{ cpu: 1, mem: 1, x: { [A]: 1 } }]),
      existing({ cpu: 0, mem: 0, x: { [A]: 5 } }),
      [`Insufficient ${A}`],
    ],
    [
      'extended resource allocatable enforced for multiple containers',
      pod([
        { cpu: 1, mem: 1, x: { [A]: 3 } },
        { cpu: 1, mem: 1, x: { [A]: 3 } },
      ]),
      existing({ cpu: 0, mem: 0, x: { [A]: 2 } }),
      [`Insufficient ${A}`],
    ],
    [
      'extended resource allocatable admits multiple init containers',
      pod(
        [{}],
        [
          { cpu: 1, mem: 1, x: { [A]: 3 } },
          { cpu: 1, mem: 1, x: { [A]: 3 } },
        ],
      ),
      existing({ cpu: 0, mem: 0, x: { [A]: 2 } }),
      [],
    ],
    [
      'extended resource allocatable enforced for multiple init containers',
      pod(
        [{}],
        [
          { cpu: 1, mem: 1, x: { [A]: 6 } },
          { cpu: 1, mem: 1, x: { [A]: 3 } },
        ],
      ),
      existing({ cpu: 0, mem: 0, x: { [A]: 2 } }),
      [`Insufficient ${A}`],
    ],
    [
      'extended resource allocatable enforced for unknown resource',
      pod([{ cpu: 1, mem: 1, x: { [B]: 1 } }]),
      existing({ cpu: 0, mem: 0 }),
      [`Insufficient ${B}`],
    ],
    [
      'kubernetes.io resource capacity enforced',
      pod([{ cpu: 1, mem: 1, x: { [K8S_A]: 10 } }]),
      existing({ cpu: 0, mem: 0 }),
      [`Insufficient ${K8S_A}`],
    ],
    [
      'kubernetes.io resource capacity enforced for init container',
      pod([{}], [{ cpu: 1, mem: 1, x: { [K8S_B]: 10 } }]),
      existing({ cpu: 0, mem: 0 }),
      [`Insufficient ${K8S_B}`],
    ],
    [
      'hugepages resource capacity enforced',
      pod([{ cpu: 1, mem: 1, x: { [HP]: 10 } }]),
      existing({ cpu: 0, mem: 0, x: { [HP]: 0 } }),
      [`Insufficient ${HP}`],
    ],
    [
      'skip checking resource request with quantity zero',
      pod([{ cpu: 1, mem: 1, x: { [A]: 0 } }]),
      existing({ cpu: 0, mem: 0 }),
      [],
    ],
    [
      'resources + pod overhead fits',
      pod([{ cpu: 1, mem: 1 }], [], { cpu: '3m', memory: '13' }),
      existing({ cpu: 5, mem: 5 }),
      [],
    ],
    [
      'requests + overhead does not fit for memory',
      pod([{ cpu: 1, mem: 1 }], [], { cpu: '1m', memory: '15' }),
      existing({ cpu: 5, mem: 5 }),
      ['Insufficient memory'],
    ],
  ];
  for (const [name, p, ex, want] of cases) {
    it(name, () => {
      expect(reasonsOf(node(), [ex], p)).toEqual(want);
    });
  }
  it('even without specified resources, predicate fails when there is no space for an additional pod (TestNotEnoughRequests)', () => {
    const n = nodeOf('n', { capacity: { cpu: '10m', memory: '20', pods: '1' } });
    expect(reasonsOf(n, [existing({ cpu: 10, mem: 20 })], podOf())).toEqual(['Too many pods']);
  });
  it('even if both resources fit, predicate fails when there is no space for an additional pod', () => {
    const n = nodeOf('n', { capacity: { cpu: '10m', memory: '20', pods: '1' } });
    expect(reasonsOf(n, [existing({ cpu: 5, mem: 5 })], pod([{ cpu: 1, mem: 1 }]))).toEqual([
      'Too many pods',
    ]);
  });
  it('sidecar (restartable init container) requests add to the regular containers', () => {
    const n = nodeOf('n', { capacity: { cpu: '10m', memory: '20', pods: '32' } });
    const p = podOf({
      reqs: [{ cpu: '5m', memory: '1' }],
      initReqs: [{ req: { cpu: '3m', memory: '1' }, sidecar: true }, { req: { cpu: '4m', memory: '1' } }],
    });
    // sum = 5 + 3 = 8 ≤ 10; init peak = 4 + 3 (sidecar started before it) = 7; existing 3 → 11 > 10
    expect(reasonsOf(n, [existing({ cpu: 3, mem: 0 })], p)).toEqual(['Insufficient cpu']);
    expect(reasonsOf(n, [existing({ cpu: 2, mem: 0 })], p)).toEqual([]);
  });
});

// NodePorts: upstream's TestNodePorts table runs through the public PluginRunner on both kernels
// (test/scheduler/plugin-runner.test.ts, with the nothing-running case); here the table's bookkeeping.
describe('NodePorts used-port bookkeeping', () => {
  const node = () => nodeOf('n', { capacity: { pods: '10' } });
  it('a removed pod frees its ports', () => {
    const table = new NodeTable();
    table.addNode(node());
    const user = podOf({ node: 'n', hostPorts: [{ port: 80, protocol: 'TCP', ip: '0.0.0.0' }] });
    table.addPod(user);
    expect(table.usedPorts(0)).toEqual([{ ip: '0.0.0.0', protocol: 'TCP', port: 80 }]);
    table.removePod(user);
    expect(table.usedPorts(0)).toEqual([]);
  });
});

describe('TaintToleration filter (TestTaintTolerationFilter)', () => {
  const TR = 'node(s) had untolerated taint(s)';
  const node = (taints: Taint[]) => nodeOf('nodeA', { taints, capacity: { pods: '10' } });
  const cases: [string, Toleration[], Taint[], boolean][] = [
    [
      "A pod having no tolerations can't be scheduled onto a node with nonempty taints",
      [],
      [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
      false,
    ],
    [
      'A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule',
      [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
      [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
      true,
    ],
    [
      "A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
      [{ key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' }],
      [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
      false,
    ],
    [
      'toleration with operator Exists tolerates the taints',
      [{ key: 'foo', operator: 'Exists', effect: 'NoSchedule' }],
      [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }],
      true,
    ],
    [
      'multiple tolerations, multiple taints, all tolerated',
      [
        { key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' },
        { key: 'foo', operator: 'Exists', effect: 'NoSchedule' },
      ],
      [
        { key: 'dedicated', value: 'user2', effect: 'NoSchedule' },
        { key: 'foo', value: 'bar', effect: 'NoSchedule' },
      ],
      true,
    ],
    [
      "toleration key/value match but (non-empty) effect doesn't",
      [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'PreferNoSchedule' }],
      [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }],
      false,
    ],
    [
      'toleration effect empty matches NoSchedule',
      [{ key: 'foo', operator: 'Equal', value: 'bar' }],
      [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }],
      true,
    ],
    [
      'untolerated PreferNoSchedule taint does not filter',
      [{ key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' }],
      [{ key: 'dedicated', value: 'user1', effect: 'PreferNoSchedule' }],
      true,
    ],
    [
      'no toleration, PreferNoSchedule taint',
      [],
      [{ key: 'dedicated', value: 'user1', effect: 'PreferNoSchedule' }],
      true,
    ],
    [
      'NoExecute taints filter too',
      [],
      [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }],
      false,
    ],
    [
      'empty key with Exists tolerates every taint',
      [{ operator: 'Exists' }],
      [
        { key: 'a', value: 'b', effect: 'NoSchedule' },
        { key: 'c', effect: 'NoExecute' },
      ],
      true,
    ],
  ];
  for (const [name, tols, taints, fits] of cases) {
    it(name, () =>
      expect(reasonsOf(node(taints), [], podOf({ tolerations: tols }))).toEqual(fits ? [] : [TR]),
    );
  }
});

describe('NodeUnschedulable and NodeName filters', () => {
  const UR = 'node(s) were unschedulable';
  it('unschedulable node filters a pod without toleration', () => {
    expect(reasonsOf(nodeOf('n', { unschedulable: true, capacity: { pods: '10' } }), [], podOf())).toEqual([
      UR,
    ]);
  });
  it('a pod tolerating node.kubernetes.io/unschedulable:NoSchedule passes', () => {
    expect(
      reasonsOf(
        nodeOf('n', { unschedulable: true, capacity: { pods: '10' } }),
        [],
        podOf({
          tolerations: [
            { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
          ],
        }),
      ),
    ).toEqual([]);
  });
  it('schedulable node passes', () => {
    expect(reasonsOf(nodeOf('n', { unschedulable: false, capacity: { pods: '10' } }), [], podOf())).toEqual(
      [],
    );
  });
  it('NodeName: only the named node passes', () => {
    const p = podOf();
    p.spec.nodeName = 'bar';
    const r = runBoth(
      [nodeOf('foo', { capacity: { pods: '10' } }), nodeOf('bar', { capacity: { pods: '10' } })],
      [],
      p,
    );
    expect(r.feasible).toEqual(['bar']);
    expect(r.nodes.get('foo')!.reasons).toBe(2);
  });
});

describe('NodeAffinity filter (TestNodeAffinity)', () => {
  const AR = "node(s) didn't match Pod's node affinity/selector";
  const node = (labels: Record<string, string>, name = 'node1') =>
    nodeOf(name, { labels, capacity: { pods: '10' } });
  const req = (...terms: NodeSelectorTerm[]) => ({
    nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } },
  });
  const fits = (labels: Record<string, string>, pod: Pod, name = 'node1') =>
    reasonsOf(node(labels, name), [], pod).length === 0;
  it('missing labels', () => expect(fits({}, podOf({ nodeSelector: { foo: 'bar' } }))).toBe(false));
  it('same labels', () => expect(fits({ foo: 'bar' }, podOf({ nodeSelector: { foo: 'bar' } }))).toBe(true));
  it('node labels are superset', () =>
    expect(fits({ foo: 'bar', baz: 'blah' }, podOf({ nodeSelector: { foo: 'bar' } }))).toBe(true));
  it('node labels are subset', () =>
    expect(fits({ foo: 'bar' }, podOf({ nodeSelector: { foo: 'bar', baz: 'blah' } }))).toBe(false));
  it('In operator that matches', () =>
    expect(
      fits(
        { foo: 'bar' },
        podOf({
          affinity: req({ matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar', 'value2'] }] }),
        }),
      ),
    ).toBe(true));
  it('Gt operator that matches', () =>
    expect(
      fits(
        { 'kernel-version': '0206' },
        podOf({
          affinity: req({ matchExpressions: [{ key: 'kernel-version', operator: 'Gt', values: ['0204'] }] }),
        }),
      ),
    ).toBe(true));
  it('NotIn operator that matches', () =>
    expect(
      fits(
        { mem: 'middle' },
        podOf({
          affinity: req({ matchExpressions: [{ key: 'mem', operator: 'NotIn', values: ['big', 'small'] }] }),
        }),
      ),
    ).toBe(true));
  it('Exists operator that matches', () =>
    expect(
      fits(
        { GPU: 'NVIDIA-GRID-K1' },
        podOf({ affinity: req({ matchExpressions: [{ key: 'GPU', operator: 'Exists' }] }) }),
      ),
    ).toBe(true));
  it("affinity that doesn't match node's labels", () =>
    expect(
      fits(
        { foo: 'bar' },
        podOf({
          affinity: req({ matchExpressions: [{ key: 'foo', operator: 'In', values: ['value1', 'value2'] }] }),
        }),
      ),
    ).toBe(false));
  it('empty []NodeSelectorTerm matches nothing', () =>
    expect(fits({ foo: 'bar' }, podOf({ affinity: req() }))).toBe(false));
  it('empty MatchExpressions term matches nothing', () =>
    expect(fits({ foo: 'bar' }, podOf({ affinity: req({ matchExpressions: [] }) }))).toBe(false));
  it('no Affinity schedules', () => expect(fits({ foo: 'bar' }, podOf())).toBe(true));
  it('Affinity but nil NodeSelector schedules', () =>
    expect(fits({ foo: 'bar' }, podOf({ affinity: { nodeAffinity: {} } }))).toBe(true));
  it('multiple matchExpressions ANDed that matches', () =>
    expect(
      fits(
        { GPU: 'NVIDIA-GRID-K1' },
        podOf({
          affinity: req({
            matchExpressions: [
              { key: 'GPU', operator: 'Exists' },
              { key: 'GPU', operator: 'NotIn', values: ['AMD', 'INTER'] },
            ],
          }),
        }),
      ),
    ).toBe(true));
  it("multiple matchExpressions ANDed that doesn't match", () =>
    expect(
      fits(
        { GPU: 'NVIDIA-GRID-K1' },
        podOf({
          affinity: req({
            matchExpressions: [
              { key: 'GPU', operator: 'Exists' },
              { key: 'GPU', operator: 'In', values: ['AMD', 'INTER'] },
            ],
          }),
        }),
      ),
    ).toBe(false));
  it('multiple NodeSelectorTerms ORed', () =>
    expect(
      fits(
        { foo: 'bar' },
        podOf({
          affinity: req(
            { matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar', 'value2'] }] },
            { matchExpressions: [{ key: 'diffkey', operator: 'In', values: ['wrong', 'value2'] }] },
          ),
        }),
      ),
    ).toBe(true));
  it('Affinity and nodeSelector both satisfied', () =>
    expect(
      fits(
        { foo: 'bar' },
        podOf({
          nodeSelector: { foo: 'bar' },
          affinity: req({ matchExpressions: [{ key: 'foo', operator: 'Exists' }] }),
        }),
      ),
    ).toBe(true));
  it('Affinity matches but nodeSelector not', () =>
    expect(
      fits(
        { foo: 'bar' },
        podOf({
          nodeSelector: { foo: 'barrrrrr' },
          affinity: req({ matchExpressions: [{ key: 'foo', operator: 'Exists' }] }),
        }),
      ),
    ).toBe(false));
  it('invalid Gt value: the term is skipped, so nothing matches', () =>
    expect(
      fits(
        { foo: '1' },
        podOf({ affinity: req({ matchExpressions: [{ key: 'foo', operator: 'Gt', values: ['x'] }] }) }),
      ),
    ).toBe(false));
  // upstream: "Pod with an invalid value in Affinity term won't be scheduled onto the node" — the
  // apiserver does not check value syntax; labels.NewRequirement does, and the term is dropped
  it('invalid value in an affinity term (NotIn a value that is no label value)', () =>
    expect(
      fits(
        { foo: 'bar' },
        podOf({
          affinity: req({
            matchExpressions: [{ key: 'foo', operator: 'NotIn', values: ['invalid value: ___@#$%^'] }],
          }),
        }),
      ),
    ).toBe(false));
  it('only the term that does not parse is dropped; the next one still admits the node', () =>
    expect(
      fits(
        { foo: 'bar' },
        podOf({
          affinity: req(
            { matchExpressions: [{ key: 'foo', operator: 'NotIn', values: ['x'.repeat(64)] }] },
            { matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }] },
          ),
        }),
      ),
    ).toBe(true));
  it('a Gt bound that is an integer but no label value ("-1") does not parse either', () =>
    expect(
      fits(
        { foo: '1' },
        podOf({ affinity: req({ matchExpressions: [{ key: 'foo', operator: 'Gt', values: ['-1'] }] }) }),
      ),
    ).toBe(false));
  it('matchFields In that matches', () =>
    expect(
      fits(
        {},
        podOf({
          affinity: req({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }] }),
        }),
      ),
    ).toBe(true));
  it("matchFields In that doesn't match", () =>
    expect(
      fits(
        {},
        podOf({
          affinity: req({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }] }),
        }),
        'node2',
      ),
    ).toBe(false));
  it('two terms: matchFields does not match, but matchExpressions matches', () =>
    expect(
      fits(
        { foo: 'bar' },
        podOf({
          affinity: req(
            { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }] },
            { matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }] },
          ),
        }),
        'node2',
      ),
    ).toBe(true));
  it('one term: matchFields does not match, but matchExpressions matches', () =>
    expect(
      fits(
        { foo: 'bar' },
        podOf({
          affinity: req({
            matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }],
            matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }],
          }),
        }),
        'node2',
      ),
    ).toBe(false));
  it('one term: both matchFields and matchExpressions match', () =>
    expect(
      fits(
        { foo: 'bar' },
        podOf({
          affinity: req({
            matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }],
            matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }],
          }),
        }),
      ),
    ).toBe(true));
  it('two terms: both do not match', () =>
    expect(
      fits(
        { foo: 'bar' },
        podOf({
          affinity: req(
            { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }] },
            { matchExpressions: [{ key: 'foo', operator: 'In', values: ['not-match-to-bar'] }] },
          ),
        }),
        'node2',
      ),
    ).toBe(false));
  it('reason text', () =>
    expect(reasonsOf(node({}), [], podOf({ nodeSelector: { foo: 'bar' } }))).toEqual([AR]));
});

describe('NodeAffinity filter: one requirement on a multi-node table (not upstream cases)', () => {
  // the kernel evaluates a lone requirement from registers; every operator, against labelled and
  // unlabelled nodes, with values interned (so In/NotIn compile to value sets)
  const nodes = [
    ['big', 'n-big'],
    ['middle', 'n-middle'],
    ['small', 'n-small'],
    [undefined, 'n-none'],
  ].map(([v, name]) =>
    nodeOf(name!, {
      labels: v ? { mem: v, gen: v === 'big' ? '3' : '1' } : {},
      capacity: { pods: '10', cpu: '1', memory: '1Gi' },
    }),
  );
  const req = (e: NodeSelectorTerm['matchExpressions']) => ({
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: e }] },
    },
  });
  const fitting = (pod: Pod) => runBoth(nodes, [], pod).feasible.slice().sort();
  it('In', () =>
    expect(
      fitting(podOf({ affinity: req([{ key: 'mem', operator: 'In', values: ['big', 'small'] }]) })),
    ).toEqual(['n-big', 'n-small']));
  it('NotIn (an unlabelled node matches)', () =>
    expect(
      fitting(podOf({ affinity: req([{ key: 'mem', operator: 'NotIn', values: ['big', 'small'] }]) })),
    ).toEqual(['n-middle', 'n-none']));
  it('Exists', () =>
    expect(fitting(podOf({ affinity: req([{ key: 'mem', operator: 'Exists' }]) }))).toEqual([
      'n-big',
      'n-middle',
      'n-small',
    ]));
  it('DoesNotExist', () =>
    expect(fitting(podOf({ affinity: req([{ key: 'mem', operator: 'DoesNotExist' }]) }))).toEqual([
      'n-none',
    ]));
  it('Gt', () =>
    expect(fitting(podOf({ affinity: req([{ key: 'gen', operator: 'Gt', values: ['2'] }]) }))).toEqual([
      'n-big',
    ]));
  it('Lt', () =>
    expect(fitting(podOf({ affinity: req([{ key: 'gen', operator: 'Lt', values: ['2'] }]) }))).toEqual([
      'n-middle',
      'n-small',
    ]));
  it('nodeSelector with one label', () =>
    expect(fitting(podOf({ nodeSelector: { mem: 'middle' } }))).toEqual(['n-middle']));
  it('matchFields metadata.name NotIn', () =>
    expect(
      fitting(
        podOf({
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [
                  { matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n-big'] }] },
                ],
              },
            },
          },
        }),
      ),
    ).toEqual(['n-middle', 'n-none', 'n-small']));
  // two expressions, also decoded once: each half must be able to reject a node on its own
  it('nodeSelector with two labels', () =>
    expect(fitting(podOf({ nodeSelector: { mem: 'small', gen: '1' } }))).toEqual(['n-small']));
  it('nodeSelector and one required requirement', () =>
    expect(
      fitting(
        podOf({
          nodeSelector: { gen: '1' },
          affinity: req([{ key: 'mem', operator: 'NotIn', values: ['small'] }]),
        }),
      ),
    ).toEqual(['n-middle']));
  it('one required term with two requirements', () =>
    expect(
      fitting(
        podOf({
          affinity: req([
            { key: 'mem', operator: 'Exists' },
            { key: 'gen', operator: 'Lt', values: ['3'] },
          ]),
        }),
      ),
    ).toEqual(['n-middle', 'n-small']));
  it('two requirements of which the second rejects every node', () =>
    expect(
      fitting(
        podOf({
          affinity: req([
            { key: 'mem', operator: 'Exists' },
            { key: 'gen', operator: 'Gt', values: ['5'] },
          ]),
        }),
      ),
    ).toEqual([]));
  it('three requirements (the general evaluation)', () =>
    expect(
      fitting(
        podOf({
          nodeSelector: { gen: '1' },
          affinity: req([
            { key: 'mem', operator: 'Exists' },
            { key: 'mem', operator: 'NotIn', values: ['middle'] },
          ]),
        }),
      ),
    ).toEqual(['n-small']));
  it('two required terms (OR; the general evaluation)', () =>
    expect(
      fitting(
        podOf({
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [
                  { matchExpressions: [{ key: 'mem', operator: 'In', values: ['big'] }] },
                  { matchExpressions: [{ key: 'mem', operator: 'DoesNotExist' }] },
                ],
              },
            },
          },
        }),
      ),
    ).toEqual(['n-big', 'n-none']));
});

describe('NodeAffinity score (TestNodeAffinityPriority)', () => {
  const pref = (...terms: [number, [string, string][]][]) => ({
    nodeAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: terms.map(([weight, exprs]) => ({
        weight,
        preference: {
          matchExpressions: exprs.map(([key, value]) => ({ key, operator: 'In' as const, values: [value] })),
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
  const label1 = { foo: 'bar' },
    label2 = { key: 'value' },
    label3 = { az: 'az1' },
    label4 = { abc: 'az11', def: 'az22' },
    label5 = { foo: 'bar', key: 'value', az: 'az1' };
  // through a profile without filters (upstream calls Score on every node), both kernels
  const run = (pod: Pod, nodes: [string, Record<string, string>][]) =>
    profileNorm(
      profileScores(
        nodes.map(([n, l]) => nodeOf(n, { labels: l })),
        [],
        pod,
      ),
      ScorePlugin.NodeAffinity,
      nodes.map(([n]) => n),
    );
  // v1.34: PreScore returns Skip without preferred terms (node_affinity.go), so Score never runs
  it('all nodes are same priority as NodeAffinity is nil (skipped at PreScore)', () =>
    expect(
      run(podOf(), [
        ['machine1', label1],
        ['machine2', label2],
        ['machine3', label3],
      ]),
    ).toEqual([undefined, undefined, undefined]));
  it('no node matches preferred scheduling requirements', () =>
    expect(
      run(podOf({ affinity: affinity1 }), [
        ['machine1', label4],
        ['machine2', label2],
        ['machine3', label3],
      ]),
    ).toEqual([0, 0, 0]));
  it('only node1 matches the preferred scheduling requirements of pod', () =>
    expect(
      run(podOf({ affinity: affinity1 }), [
        ['machine1', label1],
        ['machine2', label2],
        ['machine3', label3],
      ]),
    ).toEqual([100, 0, 0]));
  it('all nodes match with different priorities', () =>
    expect(
      run(podOf({ affinity: affinity2 }), [
        ['machine1', label1],
        ['machine5', label5],
        ['machine2', label2],
      ]),
    ).toEqual([18, 100, 36]));
  // 'total' mode folds a lone preferred term into the totals without a normalize pass; its totals
  // must equal the full mode's on nodes matching all, some or none of the term's expressions
  const totals = (pod: Pod, nodes: [string, Record<string, string>][], output: 'all' | 'total') =>
    nodes.map(
      ([n]) =>
        runBoth(
          nodes.map(([name, l]) => nodeOf(name, { labels: l })),
          [],
          pod,
          {},
          { disabledFilters: ALL_FILTER_BITS, output },
        ).nodes.get(n)!.total,
    );
  const mixed: [string, Record<string, string>][] = [
    ['all3', label5],
    ['foo-only', label1],
    ['none', label4],
    ['foo-key', { foo: 'bar', key: 'value' }],
  ];
  for (const [what, pod] of [
    ['one term, one expression', podOf({ affinity: affinity1 })],
    [
      'one term, three expressions',
      podOf({
        affinity: pref([
          5,
          [
            ['foo', 'bar'],
            ['key', 'value'],
            ['az', 'az1'],
          ],
        ]),
      }),
    ],
    ['one term that no node matches', podOf({ affinity: pref([3, [['foo', 'nope']]]) })],
    ['three terms', podOf({ affinity: affinity2 })],
  ] as const) {
    it(`'total' mode equals the full mode: ${what}`, () =>
      expect(totals(pod, mixed, 'total')).toEqual(totals(pod, mixed, 'all')));
  }
  it("'total' mode gives a lone term's matching nodes 100 × weight more", () => {
    const t = totals(
      podOf({
        affinity: pref([
          5,
          [
            ['foo', 'bar'],
            ['key', 'value'],
          ],
        ]),
      }),
      mixed,
      'total',
    );
    expect([t[0] - t[2], t[1] - t[2], t[3] - t[2]]).toEqual([200, 0, 200]);
  });
});

describe('FitError summary (framework FitError.Error)', () => {
  it('counts reasons over nodes and sorts the "<count> <reason>" strings', async () => {
    const { fitErrorMessage } = await import('../../../src/scheduler/engine/reasons.js');
    const nodes = [
      ...Array.from({ length: 10 }, (_, i) =>
        nodeOf(`t${i}`, {
          capacity: { cpu: '1', pods: '10' },
          taints: [{ key: 'k', effect: 'NoSchedule' }],
        }),
      ),
      nodeOf('small', { capacity: { cpu: '100m', pods: '10' } }),
      nodeOf('small2', { capacity: { cpu: '100m', pods: '10' } }),
    ];
    const table = new NodeTable();
    for (const n of nodes) table.addNode(n);
    const pod = podOf({ reqs: [{ cpu: '500m' }] });
    const r = runBoth(nodes, [], pod);
    table.resourceIndex('cpu');
    const msg = fitErrorMessage(
      table,
      nodes.length,
      [...r.nodes.values()].map((n) => n.reasons),
    );
    // upstream sorts "10 node(s)…" before "2 Insufficient cpu" (byte order of the whole string)
    expect(msg).toBe('0/12 nodes are available: 10 node(s) had untolerated taint(s), 2 Insufficient cpu.');
  });
});

describe('sampling window (findNodesThatPassFilters)', () => {
  // 10 nodes in one zone (scan order = insertion order n0..n9); odd nodes are cordoned
  const nodes = Array.from({ length: 10 }, (_, i) =>
    nodeOf(`n${i}`, { capacity: { pods: '10' }, unschedulable: i % 2 === 1 }),
  );
  it('stops after numNodesToFind feasible nodes, wrapping around from start, and reports nodes processed', () => {
    const r = runBoth(nodes, [], podOf(), {}, { start: 7, numNodesToFind: 3 });
    // examined n7 (filtered), n8, n9 (filtered), n0, n1 (filtered), n2 → 3 feasible after 6 nodes
    expect(r.feasible).toEqual(['n8', 'n0', 'n2']);
    expect(r.processed).toBe(6);
    expect([...r.nodes.keys()].sort()).toEqual(['n0', 'n1', 'n2', 'n7', 'n8', 'n9']);
  });
  it('examines every node when fewer feasible nodes exist than requested', () => {
    const r = runBoth(nodes, [], podOf(), {}, { start: 3, numNodesToFind: 8 });
    expect(r.processed).toBe(10);
    expect(r.feasible).toEqual(['n4', 'n6', 'n8', 'n0', 'n2']);
  });
  it('normalizes over the feasible nodes of the window only', () => {
    const tainted = nodes.map((n, i) =>
      nodeOf(n.metadata.name!, {
        capacity: { pods: '10' },
        taints: i < 5 ? [{ key: 'p', effect: 'PreferNoSchedule' }] : undefined,
      }),
    );
    const all = runBoth(tainted, [], podOf(), {}, {});
    expect(all.nodes.get('n0')!.norm[ScorePlugin.TaintToleration]).toBe(0);
    expect(all.nodes.get('n9')!.norm[ScorePlugin.TaintToleration]).toBe(100);
    // a window holding only tainted nodes: max count 1 everywhere → all 0 after reverse normalization
    const win = runBoth(tainted, [], podOf(), {}, { start: 0, numNodesToFind: 3 });
    expect(win.feasible).toEqual(['n0', 'n1', 'n2']);
    expect(win.feasible.map((n) => win.nodes.get(n)!.norm[ScorePlugin.TaintToleration])).toEqual([0, 0, 0]);
    expect(win.feasible.map((n) => win.nodes.get(n)!.total)).toEqual(
      win.feasible.map((n) => {
        const x = win.nodes.get(n)!;
        return 3 * x.norm[0] + 2 * x.norm[1] + x.norm[2] + x.norm[3] + x.norm[4];
      }),
    );
  });
});

describe('explainNode (InsufficientResource detail, FindMatchingUntoleratedTaint)', () => {
  it('reports requested/used/capacity like fit_test.go wantInsufficientResources', async () => {
    const { explainNode } = await import('../../../src/scheduler/engine/explain.js');
    const t = new NodeTable();
    t.addNode(
      nodeOf('n', {
        capacity: { cpu: '10m', memory: '20', pods: '32', 'example.com/aaa': '5' },
        taints: [
          { key: 'a', effect: 'PreferNoSchedule' },
          { key: 'dedicated', value: 'user1', effect: 'NoSchedule' },
        ],
      }),
    );
    t.addPod(podOf({ node: 'n', reqs: [{ cpu: '10m', memory: '20' }] }));
    const e = explainNode(t, podOf({ reqs: [{ cpu: '1m', memory: '1', 'example.com/aaa': '10' }] }), 0);
    // upstream "too many resources fails": {cpu, 1, 10, 10}, {memory, 1, 20, 20}
    expect(e.insufficient).toEqual([
      {
        resourceName: 'cpu',
        reason: 'Insufficient cpu',
        requested: 1,
        used: 10,
        capacity: 10,
        unresolvable: false,
      },
      {
        resourceName: 'memory',
        reason: 'Insufficient memory',
        requested: 1,
        used: 20,
        capacity: 20,
        unresolvable: false,
      },
      // "extended resource capacity enforced": 10 > 5 allocatable, Unresolvable: true
      {
        resourceName: 'example.com/aaa',
        reason: 'Insufficient example.com/aaa',
        requested: 10,
        used: 0,
        capacity: 5,
        unresolvable: true,
      },
    ]);
    expect(e.untoleratedTaint).toEqual({ key: 'dedicated', value: 'user1', effect: 'NoSchedule' });
    expect(e.unschedulable).toBe(false);
  });
});

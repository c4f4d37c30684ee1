// Status codes and reason texts of Kubernetes v1.34, through the public path (SchedulerCore +
// explainPod / schedule): rows of upstream's fit_test.go TestEnoughRequests with their wantStatus
// codes, taint_toleration_test.go TestTaintTolerationFilter's constant reason, and the Score error
// texts of runtime/framework.go RunScorePlugins (framework_test.go TestRunScorePlugins).
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/types.js';
import {
  Code,
  explainPod,
  parseSchedulerConfig,
  SchedulerCore,
  Status,
  type Plugin,
  type PluginFactory,
} from '../../../src/scheduler/index.js';
import { makeNode, makePod, nodeOf, podOf } from '../../helpers/builders.js';

const KERNELS = ['js', 'wasm'] as const;

/** the verdict of one filter plugin on the only node, from explain */
function verdict(
  kernel: (typeof KERNELS)[number],
  node: ReturnType<typeof nodeOf>,
  existing: Pod[],
  pod: Pod,
  plugin: string,
) {
  const core = new SchedulerCore({ nodes: [node], pods: existing, kernel, seed: 1 });
  const ex = explainPod(core.algo, core.frameworkFor(pod)!, core.snapshot, pod);
  const f = ex.nodes[0].filters.find((v) => v.plugin === plugin)!;
  return { result: f.result, reasons: f.reasons ?? [], fitError: ex.fitError };
}

describe('NodeResourcesFit status code (fit_test.go TestEnoughRequests, v1.34: Unresolvable beyond allocatable)', () => {
  // makeAllocatableResources(10, 20, 32, 5, 20, 5)
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
    podOf({ name: 'p', reqs: containers.map(req), initReqs: inits.map((r) => ({ req: req(r) })), overhead });
  const existing = (r: R) => podOf({ name: 'e', node: 'n', reqs: [req(r)] });
  const A = 'example.com/aaa',
    B = 'example.com/bbb',
    K8S_A = 'kubernetes.io/something',
    HP = 'hugepages-2Mi';
  const U = 'Unschedulable',
    UU = 'UnschedulableAndUnresolvable';
  const cases: [string, Pod, Pod, string, string[]][] = [
    [
      'too many resources fails',
      pod([{ cpu: 1, mem: 1 }]),
      existing({ cpu: 10, mem: 20 }),
      U,
      ['Insufficient cpu', 'Insufficient memory'],
    ],
    [
      'too many resources fails due to init container cpu',
      pod([{ cpu: 1, mem: 1 }], [{ cpu: 3, mem: 1 }]),
      existing({ cpu: 8, mem: 19 }),
      U,
      ['Insufficient cpu'],
    ],
    [
      'one resource memory fits',
      pod([{ cpu: 2, mem: 1 }]),
      existing({ cpu: 9, mem: 5 }),
      U,
      ['Insufficient cpu'],
    ],
    [
      'one resource cpu fits',
      pod([{ cpu: 1, mem: 2 }]),
      existing({ cpu: 5, mem: 19 }),
      U,
      ['Insufficient memory'],
    ],
    [
      'extended resource capacity enforced',
      pod([{ cpu: 1, mem: 1, x: { [A]: 10 } }]),
      existing({ cpu: 0, mem: 0, x: { [A]: 0 } }),
      UU,
      [`Insufficient ${A}`],
    ],
    [
      'extended resource capacity enforced for init container',
      pod([{}], [{ cpu: 1, mem: 1, x: { [A]: 10 } }]),
      existing({ cpu: 0, mem: 0, x: { [A]: 0 } }),
      UU,
      [`Insufficient ${A}`],
    ],
    [
      'extended resource allocatable enforced',
      pod([{ cpu: 1, mem: 1, x: { [A]: 1 } }]),
      existing({ cpu: 0, mem: 0, x: { [A]: 5 } }),
      U,
      [`Insufficient ${A}`],
    ],
    [
      'extended resource allocatable enforced for multiple containers',
      pod([
        { cpu: 1, mem: 1, x: { [A]: 3 } },
        { cpu: 1, mem: 1, x: { [A]: 3 } },
      ]),
      existing({ cpu: 0, mem: 0, x: { [A]: 2 } }),
      UU,
      [`Insufficient ${A}`],
    ],
    [
      'extended resource allocatable enforced for unknown resource',
      pod([{ cpu: 1, mem: 1, x: { [B]: 1 } }]),
      existing({ cpu: 0, mem: 0 }),
      UU,
      [`Insufficient ${B}`],
    ],
    [
      'kubernetes.io resource capacity enforced',
      pod([{ cpu: 1, mem: 1, x: { [K8S_A]: 10 } }]),
      existing({ cpu: 0, mem: 0 }),
      UU,
      [`Insufficient ${K8S_A}`],
    ],
    [
      'hugepages resource capacity enforced',
      pod([{ cpu: 1, mem: 1, x: { [HP]: 10 } }]),
      existing({ cpu: 0, mem: 0, x: { [HP]: 0 } }),
      UU,
      [`Insufficient ${HP}`],
    ],
    [
      'requests + overhead does not fit for memory',
      pod([{ cpu: 1, mem: 1 }], [], { cpu: '1m', memory: '15' }),
      existing({ cpu: 5, mem: 5 }),
      U,
      ['Insufficient memory'],
    ],
  ];
  for (const kernel of KERNELS)
    for (const [name, p, ex, code, reasons] of cases)
      it(`${name} (${kernel})`, () => {
        const v = verdict(kernel, node(), [ex], p, 'NodeResourcesFit');
        expect([v.result, v.reasons]).toEqual([code, reasons]);
      });
  it('"Too many pods" is never unresolvable, even beside a request larger than the node', () => {
    const n = nodeOf('n', { capacity: { cpu: '10m', memory: '20', pods: '1' } });
    const v = verdict('js', n, [existing({ cpu: 5, mem: 5 })], pod([{ cpu: 1, mem: 1 }]), 'NodeResourcesFit');
    expect([v.result, v.reasons]).toEqual([U, ['Too many pods']]);
    const w = verdict(
      'wasm',
      n,
      [existing({ cpu: 5, mem: 5 })],
      pod([{ cpu: 11, mem: 1 }]),
      'NodeResourcesFit',
    );
    expect([w.result, w.reasons]).toEqual([UU, ['Too many pods', 'Insufficient cpu']]);
  });
  it('preemption counts a node whose allocatable is too small as not helpful', () => {
    const core = new SchedulerCore({
      nodes: [
        makeNode('small').capacity({ cpu: '1', memory: '8Gi', pods: '110' }).obj(),
        makeNode('busy').capacity({ cpu: '4', memory: '8Gi', pods: '110' }).obj(),
      ],
      pods: [makePod('big').node('busy').req({ cpu: '3' }).priority(1000).obj()],
      seed: 1,
    });
    const out = core.schedule(makePod('web').req({ cpu: '2' }).obj());
    expect(out.kind === 'unschedulable' && out.fitError.message).toBe(
      '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.',
    );
  });
});

describe('TaintToleration filter reason (taint_toleration_test.go TestTaintTolerationFilter, v1.34)', () => {
  const taint = (key: string, value: string, effect: 'NoSchedule' | 'NoExecute' | 'PreferNoSchedule') => ({
    key,
    value,
    effect,
  });
  const cases: [string, ReturnType<typeof nodeOf>, Pod, string | null][] = [
    [
      "A pod having no tolerations can't be scheduled onto a node with nonempty taints",
      nodeOf('nodeA', { taints: [taint('dedicated', 'user1', 'NoSchedule')] }),
      podOf({ name: 'pod0' }),
      'node(s) had untolerated taint(s)',
    ],
    [
      'A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule',
      nodeOf('nodeA', { taints: [taint('dedicated', 'user1', 'NoSchedule')] }),
      podOf({ name: 'pod1', tolerations: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }] }),
      null,
    ],
    [
      "A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
      nodeOf('nodeA', { taints: [taint('dedicated', 'user1', 'NoSchedule')] }),
      podOf({
        name: 'pod1',
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' }],
      }),
      'node(s) had untolerated taint(s)',
    ],
    [
      "The pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't match, can't be scheduled onto the node",
      nodeOf('nodeA', { taints: [taint('foo', 'bar', 'NoSchedule')] }),
      podOf({
        name: 'pod1',
        tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'PreferNoSchedule' }],
      }),
      'node(s) had untolerated taint(s)',
    ],
    [
      'The pod has no toleration, but the node has a PreferNoSchedule taint, can be scheduled',
      nodeOf('nodeA', { taints: [taint('dedicated', 'user1', 'PreferNoSchedule')] }),
      podOf({ name: 'pod0' }),
      null,
    ],
  ];
  for (const kernel of KERNELS)
    for (const [name, node, pod, reason] of cases)
      it(`${name} (${kernel})`, () => {
        const v = verdict(kernel, node, [], pod, 'TaintToleration');
        expect(v.result === 'pass' ? null : [v.result, v.reasons]).toEqual(
          reason === null ? null : ['UnschedulableAndUnresolvable', [reason]],
        );
      });
});

describe('Score error texts (runtime/framework.go RunScorePlugins, v1.34)', () => {
  const nodes = [makeNode('n1').obj(), makeNode('n2').obj()];
  const plugin =
    (name: string, body: Partial<Plugin & Record<string, unknown>>): PluginFactory =>
    () =>
      ({ name, ...body }) as Plugin;
  const run = (name: string, p: PluginFactory) => {
    const config = parseSchedulerConfig(
      {
        apiVersion: 'kubescheduler.config.k8s.io/v1',
        kind: 'KubeSchedulerConfiguration',
        profiles: [
          { schedulerName: 'default-scheduler', plugins: { score: { enabled: [{ name, weight: 1 }] } } },
        ],
      },
      'sched.yaml',
    );
    const core = new SchedulerCore({ nodes, config, outOfTree: new Map([[name, p]]), seed: 1 });
    const out = core.schedule(makePod('p').obj());
    return out.kind === 'error' ? out.message : out.kind;
  };
  it('a Score plugin that fails', () =>
    expect(
      run(
        'Broken',
        plugin('Broken', {
          score: () => {
            throw new Error('injecting failure');
          },
        }),
      ),
    ).toBe('running Score plugins: plugin "Broken" failed with: injecting failure'));
  it('a NormalizeScore that fails', () =>
    expect(
      run(
        'BadNormalize',
        plugin('BadNormalize', {
          score: () => 1,
          normalizeScore: () => new Status(Code.Error, ['injecting failure']),
        }),
      ),
    ).toBe('running Normalize on Score plugins: plugin "BadNormalize" failed with: injecting failure'));
  it('a score outside 0..100 after normalizing', () =>
    expect(run('TooHigh', plugin('TooHigh', { score: () => 101 }))).toBe(
      'applying score defaultWeights on Score plugins: plugin "TooHigh" returns an invalid score 101, it should in the range of [0, 100] after normalizing',
    ));
});

describe('Skip is a result (v1.34 PreFilter/PreScore of the node-local plugins)', () => {
  const nodes = () => [
    makeNode('n1').label('zone', 'a').capacity({ cpu: '4', memory: '8Gi', pods: '110' }).obj(),
    makeNode('n2').label('zone', 'b').capacity({ cpu: '4', memory: '8Gi', pods: '110' }).obj(),
  ];
  const explain = (kernel: (typeof KERNELS)[number], pod: Pod) => {
    const core = new SchedulerCore({ nodes: nodes(), kernel, seed: 1 });
    return explainPod(core.algo, core.frameworkFor(pod)!, core.snapshot, pod);
  };
  const verdicts = (ex: ReturnType<typeof explain>) =>
    Object.fromEntries(ex.nodes[0].filters.map((f) => [f.plugin, f.result]));
  for (const kernel of KERNELS) {
    it(`node_ports_test.go "skip filter" and node_affinity_test.go: a pod with neither is skipped (${kernel})`, () => {
      const ex = explain(kernel, podOf({ name: 'plain', reqs: [{ cpu: '1', memory: '1Gi' }] }));
      expect(verdicts(ex)).toMatchObject({
        NodeUnschedulable: 'pass',
        NodeName: 'pass',
        TaintToleration: 'pass',
        NodeAffinity: 'skip',
        NodePorts: 'skip',
        NodeResourcesFit: 'pass',
      });
      // no preferred terms: NodeAffinity's PreScore skips; the pod requests something: BalancedAllocation scores
      expect(ex.skippedScorePlugins).toContain('NodeAffinity');
      expect(ex.skippedScorePlugins).not.toContain('NodeResourcesBalancedAllocation');
      expect(ex.nodes[0].scores!.map((c) => c.plugin)).not.toContain('NodeAffinity');
    });
    it(`a nodeSelector, a host port and a best-effort pod (${kernel})`, () => {
      const pod = podOf({ name: 'be', nodeSelector: { zone: 'a' }, hostPorts: [{ port: 8080 }] });
      const ex = explain(kernel, pod);
      expect(verdicts(ex)).toMatchObject({ NodeAffinity: 'pass', NodePorts: 'pass' });
      expect(ex.nodes.find((n) => n.name === 'n2')!.decisive).toMatchObject({ plugin: 'NodeAffinity' });
      // balanced_allocation.go PreScore: Skip for a best-effort pod (not a zero score)
      const core = new SchedulerCore({ nodes: nodes(), kernel, seed: 1 });
      const two = podOf({ name: 'be2' });
      const ex2 = explainPod(core.algo, core.frameworkFor(two)!, core.snapshot, two);
      expect(ex2.skippedScorePlugins).toEqual(
        expect.arrayContaining(['NodeAffinity', 'NodeResourcesBalancedAllocation']),
      );
      expect(
        ex2.nodes.every((n) => n.scores!.every((c) => c.plugin !== 'NodeResourcesBalancedAllocation')),
      ).toBe(true);
    });
  }
  it('the cycle records the skips in its CycleState (PreFilter: filters not run; PreScore: scores not run)', () => {
    const core = new SchedulerCore({ nodes: nodes(), seed: 1 });
    const out = core.schedule(podOf({ name: 'be3' }));
    expect(out.kind).toBe('scheduled');
    // a pod without volumes or claims: the four volume plugins and DynamicResources skip too
    expect([...out.state.skipFilterPlugins].sort()).toEqual([
      'DynamicResources',
      'InterPodAffinity',
      'NodeAffinity',
      'NodePorts',
      'NodeVolumeLimits',
      'PodTopologySpread',
      'VolumeBinding',
      'VolumeRestrictions',
      'VolumeZone',
    ]);
    expect([...out.state.skipScorePlugins].sort()).toEqual([
      'InterPodAffinity',
      'NodeAffinity',
      'NodeResourcesBalancedAllocation',
      'PodTopologySpread',
      'VolumeBinding',
    ]);
  });
});

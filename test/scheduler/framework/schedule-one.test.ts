// The scheduling cycle against rows of upstream's schedule_one_test.go TestSchedulerSchedulePod
// (Kubernetes v1.34), with its fake plugins written as out-of-tree plugins of a
// KubeSchedulerConfiguration profile and run through SchedulerCore.schedule — the public path.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/types.js';
import {
  Code,
  explainPod,
  parseSchedulerConfig,
  SchedulerCore,
  Status,
  type KernelName,
  type PlacementOutcome,
  type Plugin,
  type PluginFactory,
} from '../../../src/scheduler/index.js';
import { makeNode, makePod, podOf } from '../../helpers/builders.js';

/** a node as the table builds them: name and the hostname label */
const node = (name: string) => makeNode(name).label('kubernetes.io/hostname', name).obj();
const KERNELS: KernelName[] = ['js', 'wasm'];

// ---- upstream's fakes (pkg/scheduler/testing/framework/fake_plugins.go), as plugin objects
const fake = (name: string, methods: Record<string, unknown>): [string, PluginFactory] => [
  name,
  () => ({ name, ...methods }) as Plugin,
];
/** TrueFilter: every node passes */
const trueFilter = (name = 'TrueFilter') => fake(name, { filter: () => null });
/** FakeFilterPlugin: the listed nodes fail with the given code */
const fakeFilter = (name: string, failed: Record<string, Code>) =>
  fake(name, {
    filter: (_s: unknown, pod: Pod, ni: { name: string }) =>
      failed[ni.name] === undefined
        ? null
        : new Status(failed[ni.name], [`injecting failure for pod ${pod.metadata.name}`]),
  });
/** EqualPrioritizerPlugin: score 1 on every node */
const equalPrioritizer = (name = 'EqualPrioritizerPlugin') => fake(name, { score: () => 1 });

/**
 * A profile with only these plugins (PrioritySort and DefaultBinder kept, as the table registers
 * them), weight 1 for score plugins.
 */
function coreWith(
  plugins: [string, PluginFactory][],
  nodes: string[],
  kernel: KernelName = 'wasm',
  seed = 1,
) {
  const config = parseSchedulerConfig(
    {
      apiVersion: 'kubescheduler.config.k8s.io/v1',
      kind: 'KubeSchedulerConfiguration',
      profiles: [
        {
          schedulerName: 'default-scheduler',
          plugins: {
            multiPoint: {
              disabled: [{ name: '*' }],
              enabled: [
                { name: 'PrioritySort' },
                { name: 'DefaultBinder' },
                ...plugins.map(([name]) => ({ name })),
              ],
            },
          },
        },
      ],
    },
    'sched.yaml',
  );
  return new SchedulerCore({ config, nodes: nodes.map(node), outOfTree: new Map(plugins), kernel, seed });
}

const placed = (out: PlacementOutcome) =>
  out.kind === 'scheduled'
    ? { node: out.nodeName, evaluated: out.result.evaluatedNodes }
    : { error: out.kind === 'error' ? out.message : out.fitError.message };

describe('no score plugin: the first feasible node (schedule_one.go: !hasScoring → numNodesToFind = 1)', () => {
  it('test without score plugin no extra nodes are evaluated', () => {
    const core = coreWith([trueFilter()], ['node1', 'node2', 'node3']);
    const out = placed(core.schedule(makePod('pod1').obj()));
    expect(['node1', 'node2', 'node3']).toContain(out.node);
    expect(out.evaluated).toBe(1);
  });
  it('with a score plugin every node is evaluated (test all prescore plugins return skip, EqualPrioritizer)', () => {
    const core = coreWith([trueFilter(), equalPrioritizer()], ['node1', 'node2', 'node3']);
    expect(placed(core.schedule(makePod('pod1').obj())).evaluated).toBe(3);
  });
  for (const kernel of KERNELS)
    it(`the default filters without score plugins place pods on the nodes in turn, not at random (${kernel})`, () => {
      const config = parseSchedulerConfig(
        {
          apiVersion: 'kubescheduler.config.k8s.io/v1',
          kind: 'KubeSchedulerConfiguration',
          profiles: [
            { schedulerName: 'default-scheduler', plugins: { score: { disabled: [{ name: '*' }] } } },
          ],
        },
        'sched.yaml',
      );
      const nodes = ['a', 'b', 'c', 'd'].map((n) =>
        makeNode(n).capacity({ cpu: '4', memory: '8Gi', pods: '110' }).obj(),
      );
      // 'b' is full: the cycle filters it and goes on to the next node
      const full = makePod('full').node('b').req({ cpu: '4' }).obj();
      for (const seed of [1, 2, 3]) {
        const core = new SchedulerCore({ config, nodes, pods: [full], kernel, seed });
        const got = ['p1', 'p2', 'p3'].map((n) => placed(core.schedule(makePod(n).req({ cpu: '1' }).obj())));
        // nextStartNodeIndex advances by the nodes processed: a (1), then b (filtered) and c (2), then d
        expect(got).toEqual([
          { node: 'a', evaluated: 1 },
          { node: 'c', evaluated: 2 },
          { node: 'd', evaluated: 1 },
        ]);
      }
    });
});

// FakePreFilterPlugin: a PreFilterResult (node names) or a status
const fakePreFilter = (name: string, result?: string[], status?: Status) =>
  fake(name, { preFilter: () => (status ? status : result ? { nodeNames: new Set(result) } : null) });

describe('PreFilterResult node subsets (schedule_one.go findNodesThatFitPod, runtime RunPreFilterPlugins)', () => {
  const rows: {
    name: string;
    plugins: [string, PluginFactory][];
    nodes: string[];
    want: string[] | string;
    evaluated?: number;
  }[] = [
    {
      name: 'test prefilter plugin returning node',
      plugins: [
        fakePreFilter('FakePreFilter1'),
        fakePreFilter('FakePreFilter2', ['node2']),
        fakePreFilter('FakePreFilter3', ['node1', 'node2']),
      ],
      nodes: ['node1', 'node2', 'node3'],
      want: ['node2'],
      // since this case has no score plugin, we'll only try to find one node in Filter stage
      evaluated: 1,
    },
    {
      name: 'test prefilter plugin returning non-intersecting nodes',
      plugins: [
        fakePreFilter('FakePreFilter1'),
        fakePreFilter('FakePreFilter2', ['node2']),
        fakePreFilter('FakePreFilter3', ['node1']),
      ],
      nodes: ['node1', 'node2', 'node3'],
      want: "0/3 nodes are available: node(s) didn't satisfy plugin(s) [FakePreFilter2 FakePreFilter3] simultaneously.",
    },
    {
      name: 'test prefilter plugin returning empty node set',
      plugins: [fakePreFilter('FakePreFilter1'), fakePreFilter('FakePreFilter2', [])],
      nodes: ['node1'],
      want: "0/1 nodes are available: node(s) didn't satisfy plugin FakePreFilter2.",
    },
    {
      name: 'test some nodes are filtered out by prefilter plugin and other are filtered out by filter plugin',
      plugins: [
        fakePreFilter('FakePreFilter', ['node2']),
        fakeFilter('FakeFilter', { node2: Code.Unschedulable }),
      ],
      nodes: ['node1', 'node2'],
      want: "0/2 nodes are available: 1 injecting failure for pod test-prefilter, 1 node(s) didn't satisfy plugin(s) [FakePreFilter].",
    },
    {
      name: 'test no score plugin, prefilter plugin returning 2 nodes',
      plugins: [fakePreFilter('FakePreFilter', ['node1', 'node2'])],
      nodes: ['node1', 'node2', 'node3'],
      want: ['node1', 'node2'],
      evaluated: 1,
    },
    {
      name: 'test prefilter plugin returned an invalid node',
      plugins: [fakePreFilter('FakePreFilter', ['invalid-node']), trueFilter()],
      nodes: ['1', '2'],
      want: "0/2 nodes are available: 2 node(s) didn't satisfy plugin(s) [FakePreFilter].",
    },
    {
      name: 'test prefilter plugin returning Unschedulable status',
      plugins: [
        fakePreFilter(
          'FakePreFilter',
          undefined,
          new Status(Code.UnschedulableAndUnresolvable, ['injected unschedulable status']),
        ),
      ],
      nodes: ['1', '2'],
      want: '0/2 nodes are available: injected unschedulable status.',
    },
    {
      name: 'test prefilter plugin returning error status',
      plugins: [fakePreFilter('FakePreFilter', undefined, new Status(Code.Error, ['injected error status']))],
      nodes: ['1', '2'],
      want: 'running PreFilter plugin "FakePreFilter": injected error status',
    },
  ];
  for (const kernel of KERNELS)
    for (const r of rows)
      it(`${r.name} (${kernel})`, () => {
        const core = coreWith(r.plugins, r.nodes, kernel);
        const out = placed(
          core.schedule(makePod(r.name.includes('prefilter') ? 'test-prefilter' : 'p').obj()),
        );
        if (typeof r.want === 'string') expect(out).toEqual({ error: r.want });
        else {
          expect(r.want).toContain(out.node);
          if (r.evaluated !== undefined) expect(out.evaluated).toBe(r.evaluated);
        }
      });
  it('the nodes outside the subset are UnschedulableAndUnresolvable for preemption and in the diagnosis', () => {
    const core = coreWith(
      [fakePreFilter('FakePreFilter', ['node2']), fakeFilter('FakeFilter', { node2: Code.Unschedulable })],
      ['node1', 'node2'],
    );
    const out = core.schedule(makePod('test-prefilter').obj());
    if (out.kind !== 'unschedulable') throw new Error(out.kind);
    const d = out.fitError.diagnosis;
    expect([...d.unschedulablePlugins].sort()).toEqual(['FakeFilter', 'FakePreFilter']);
    expect(d.nodeToStatus.get('node1')?.code).toBe(Code.UnschedulableAndUnresolvable);
    expect(d.nodeToStatus.get('node2')?.plugin).toBe('FakeFilter');
  });
});

describe("NodeAffinity's PreFilterResult (node_affinity_test.go TestNodeAffinity, matchFields metadata.name)", () => {
  const byName = (...terms: string[][][]) => ({
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: terms.map((reqs) => ({
          matchFields: reqs.map((values) => ({ key: 'metadata.name', operator: 'In' as const, values })),
        })),
      },
    },
  });
  const nodes = () =>
    ['node1', 'node2', 'node3'].map((n) =>
      makeNode(n).capacity({ cpu: '4', memory: '8Gi', pods: '110' }).obj(),
    );
  const cycle = (kernel: KernelName, pod: Pod) => {
    const core = new SchedulerCore({ nodes: nodes(), kernel, seed: 1 });
    return core.schedule(pod);
  };
  for (const kernel of KERNELS) {
    it(`Pod with matchFields using In operator that matches the existing node: only node1 is filtered (${kernel})`, () => {
      const out = cycle(kernel, podOf({ name: 'p', affinity: byName([['node1']]) }));
      expect(placed(out)).toEqual({ node: 'node1', evaluated: 1 });
    });
    it(`a subset that does not fit reports upstream's "didn't satisfy plugin(s)" for the others (${kernel})`, () => {
      const pod = podOf({ name: 'p', affinity: byName([['node1']], [['node2']]), reqs: [{ cpu: '8' }] });
      const out = cycle(kernel, pod);
      expect(out.kind === 'unschedulable' && out.fitError.message).toBe(
        "0/3 nodes are available: 1 node(s) didn't satisfy plugin(s) [NodeAffinity], 2 Insufficient cpu. " +
          'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
      );
    });
    it(`Pod with two conflicting mach field requirements: "pod affinity terms conflict" at PreFilter (${kernel})`, () => {
      const out = cycle(kernel, podOf({ name: 'p', affinity: byName([['node1'], ['node2']]) }));
      expect(out.kind === 'unschedulable' && out.fitError.message).toBe(
        '0/3 nodes are available: pod affinity terms conflict. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
      );
    });
    it(`a term without a metadata.name requirement lets every node through (${kernel})`, () => {
      const pod = podOf({
        name: 'p',
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }] },
                { matchExpressions: [{ key: 'kubernetes.io/os', operator: 'DoesNotExist' }] },
              ],
            },
          },
        },
      });
      const out = cycle(kernel, pod);
      expect(out.kind === 'scheduled' && out.result.evaluatedNodes).toBe(3);
    });
  }
  it('explain shows the excluded nodes with that status and no filter run', () => {
    const core = new SchedulerCore({ nodes: nodes(), seed: 1 });
    const pod = podOf({ name: 'p', affinity: byName([['node2']]) });
    const ex = explainPod(core.algo, core.frameworkFor(pod)!, core.snapshot, pod);
    expect(ex.chosen).toBe('node2');
    const n1 = ex.nodes.find((n) => n.name === 'node1')!;
    expect(n1.decisive).toMatchObject({
      code: 'UnschedulableAndUnresolvable',
      reasons: ["node(s) didn't satisfy plugin(s) [NodeAffinity]"],
    });
    expect(n1.filters.every((f) => f.result === 'not run')).toBe(true);
  });
});

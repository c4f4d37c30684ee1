// The scheduling cycle against rows of upstream's schedule_one_test.go TestSchedulerSchedulePod
// (Kubernetes v1.34), with its fake plugins written as out-of-tree plugins of a
// KubeSchedulerConfiguration profile and run through SchedulerCore.schedule — the public path.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/types.js';
import {
  Code,
  parseSchedulerConfig,
  SchedulerCore,
  Status,
  type KernelName,
  type PlacementOutcome,
  type Plugin,
  type PluginFactory,
} from '../../../src/scheduler/index.js';
import { makeNode, makePod } from '../../helpers/builders.js';

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

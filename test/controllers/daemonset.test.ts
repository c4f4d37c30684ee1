// The DaemonSet controller: upstream's NodeShouldRunDaemonPod table, then the controller in a
// simulation (ApiServer, informers, scheduler, kubelet model) — placement, status, new and deleted
// nodes, NoExecute taints and a rolling update within maxUnavailable.
import { describe, expect, it } from 'vitest';
import type { DaemonSet, Node, Pod, Taint } from '../../src/api/types.js';
import { podFromWorkload } from '../../src/api/workload-pod.js';
import {
  getTargetNodeName,
  nodeShouldRunDaemonPod,
  replaceDaemonSetPodNodeNameNodeAffinity,
} from '../../src/controllers/daemonset-util.js';
import { parseScenario } from '../../src/sim/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';

const simpleDaemonSetLabel = { name: 'simple-daemon', type: 'production' };
const simpleDaemonSetLabel2 = { name: 'simple-daemon', type: 'test' };

function ds(spec: Partial<Pod['spec']>): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'ds', namespace: 'default' },
    spec: {
      selector: { matchLabels: simpleDaemonSetLabel },
      template: {
        metadata: { labels: simpleDaemonSetLabel },
        spec: { containers: [{ name: 'c' }], ...spec },
      },
    },
  };
}
const affinityType = (v: string) => ({
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchExpressions: [{ key: 'type', operator: 'In' as const, values: [v] }] }],
    },
  },
});
const resources = { containers: [{ name: 'c', resources: { requests: { memory: '50M', cpu: '0.5' } } }] };

// upstream: pkg/controller/daemon/daemon_controller_test.go TestNodeShouldRunDaemonPod (node
// "test-node" labelled simpleDaemonSetLabel, allocatable 100M / 1 cpu); resources and host ports
// no longer matter (the scheduler decides them), so those rows expect true/true. The taint rows
// come from the same file's TestTaintedNodeDaemonDoesNotLaunchIntolerantPod,
// TestTaintedNodeDaemonLaunchesToleratePod, TestNodeDaemonLaunchesToleratePod and
// TestDaemonSetRespectsTermination-style NoExecute cases (a NoSchedule taint stops new pods only).
const rows: {
  name: string;
  spec: Partial<Pod['spec']>;
  unschedulable?: boolean;
  taints?: Taint[];
  shouldRun: boolean;
  shouldContinueRunning: boolean;
}[] = [
  { name: 'ShouldRunDaemonPod', spec: resources, shouldRun: true, shouldContinueRunning: true },
  {
    name: 'InsufficientResourceError (200M)',
    spec: { containers: [{ name: 'c', resources: { requests: { memory: '200M', cpu: '0.5' } } }] },
    shouldRun: true,
    shouldContinueRunning: true,
  },
  {
    name: 'ErrPodNotMatchHostName',
    spec: { ...resources, nodeName: 'other-node' },
    shouldRun: false,
    shouldContinueRunning: false,
  },
  {
    name: 'ErrPodNotFitsHostPorts',
    spec: { containers: [{ name: 'c', ports: [{ containerPort: 666, hostPort: 666 }] }] },
    shouldRun: true,
    shouldContinueRunning: true,
  },
  {
    name: 'ErrNodeSelectorNotMatch',
    spec: { nodeSelector: simpleDaemonSetLabel2 },
    shouldRun: false,
    shouldContinueRunning: false,
  },
  {
    name: 'ShouldRunDaemonPod (nodeSelector)',
    spec: { nodeSelector: simpleDaemonSetLabel },
    shouldRun: true,
    shouldContinueRunning: true,
  },
  {
    name: 'ErrPodAffinityNotMatch',
    spec: { affinity: affinityType('test') },
    shouldRun: false,
    shouldContinueRunning: false,
  },
  {
    name: 'ShouldRunDaemonPod (affinity)',
    spec: { affinity: affinityType('production') },
    shouldRun: true,
    shouldContinueRunning: true,
  },
  {
    name: 'ShouldRunDaemonPodOnUnschedulableNode',
    spec: resources,
    unschedulable: true,
    taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }],
    shouldRun: true,
    shouldContinueRunning: true,
  },
  {
    name: 'untolerated NoSchedule taint: no new pod, a running one stays',
    spec: resources,
    taints: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
    shouldRun: false,
    shouldContinueRunning: true,
  },
  {
    name: 'untolerated NoExecute taint: no pod at all',
    spec: resources,
    taints: [{ key: 'dedicated', value: 'user1', effect: 'NoExecute' }],
    shouldRun: false,
    shouldContinueRunning: false,
  },
  {
    name: 'tolerated NoSchedule taint',
    spec: { ...resources, tolerations: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }] },
    taints: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
    shouldRun: true,
    shouldContinueRunning: true,
  },
  {
    name: 'not-ready and unreachable NoExecute taints: tolerated by every daemon pod',
    spec: resources,
    taints: [
      { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
      { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
    ],
    shouldRun: true,
    shouldContinueRunning: true,
  },
  {
    name: 'memory-pressure NoSchedule: tolerated by every daemon pod',
    spec: resources,
    taints: [{ key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule' }],
    shouldRun: true,
    shouldContinueRunning: true,
  },
  {
    name: 'network-unavailable NoSchedule: tolerated only with hostNetwork',
    spec: resources,
    taints: [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }],
    shouldRun: false,
    shouldContinueRunning: true,
  },
  {
    name: 'network-unavailable NoSchedule with hostNetwork',
    spec: { ...resources, hostNetwork: true },
    taints: [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }],
    shouldRun: true,
    shouldContinueRunning: true,
  },
];

describe('NodeShouldRunDaemonPod (upstream table)', () => {
  for (const r of rows) {
    it(r.name, () => {
      const node: Node = {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'test-node', labels: simpleDaemonSetLabel },
        spec: { unschedulable: r.unschedulable, taints: r.taints },
        status: { allocatable: { memory: '100M', cpu: '1', pods: '100' } },
      };
      expect(nodeShouldRunDaemonPod(podFromWorkload(ds(r.spec)), node)).toEqual({
        shouldRun: r.shouldRun,
        shouldContinueRunning: r.shouldContinueRunning,
      });
    });
  }
});

describe('ReplaceDaemonSetPodNodeNameNodeAffinity / GetTargetNodeName', () => {
  it('replaces required terms by metadata.name In [node], keeps preferred terms', () => {
    const preferred = [
      { weight: 1, preference: { matchExpressions: [{ key: 'a', operator: 'Exists' as const }] } },
    ];
    const a = replaceDaemonSetPodNodeNameNodeAffinity(
      {
        nodeAffinity: {
          ...affinityType('x').nodeAffinity,
          preferredDuringSchedulingIgnoredDuringExecution: preferred,
        },
      },
      'n1',
    );
    expect(a.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toEqual({
      nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }],
    });
    expect(a.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution).toEqual(preferred);
    const pod = podFromWorkload(ds({ affinity: a }));
    expect(getTargetNodeName(pod)).toBe('n1');
    pod.spec.nodeName = 'n2';
    expect(getTargetNodeName(pod)).toBe('n2');
  });
});

const SCENARIO = `
name: daemonset
seed: 3
duration: 30m
cluster:
  pools:
    - { name: general, count: 3, cpu: "4", memory: 16Gi, zones: [zone-a] }
    - name: gpu
      count: 1
      cpu: "8"
      memory: 32Gi
      zones: [zone-b]
      taints: [{ key: dedicated, value: ml, effect: NoSchedule }]
workloads:
  - manifest:
      apiVersion: apps/v1
      kind: DaemonSet
      metadata: { name: agent, namespace: kube-system }
      spec:
        selector: { matchLabels: { app: agent } }
        template:
          metadata: { labels: { app: agent } }
          spec:
            containers:
              - { name: agent, image: example/agent:1, resources: { requests: { cpu: 100m, memory: 64Mi } } }
settings:
  scheduler: real
`;

async function daemonPods(sim: Simulation): Promise<Pod[]> {
  const pods = (await sim.server.list<Pod>('pods', { namespace: 'kube-system' })).items;
  return pods.filter(
    (p) => p.metadata.ownerReferences?.[0]?.kind === 'DaemonSet' && !p.metadata.deletionTimestamp,
  );
}
const agent = (sim: Simulation) => sim.server.get<DaemonSet>('daemonsets', 'kube-system', 'agent');

describe('DaemonSet controller in a simulation', () => {
  it('runs one pod per eligible node, follows new, tainted and deleted nodes, rolls within maxUnavailable', async () => {
    const sim = new Simulation(parseScenario(SCENARIO, 'daemonset.yaml', '.'));
    await sim.setup();
    await sim.loop.runFor(60_000);
    let pods = await daemonPods(sim);
    // 3 general nodes; the gpu node's NoSchedule taint is not tolerated
    expect(pods.map((p) => p.spec.nodeName).sort()).toEqual(['general-0000', 'general-0001', 'general-0002']);
    for (const p of pods) {
      expect(getTargetNodeName({ ...p, spec: { ...p.spec, nodeName: undefined } })).toBe(p.spec.nodeName);
      expect(p.metadata.name).toMatch(/^agent-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      expect(p.metadata.labels?.['controller-revision-hash']).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
      expect(p.spec.tolerations?.map((t) => t.key)).toContain('node.kubernetes.io/unreachable');
    }
    expect((await agent(sim)).status).toMatchObject({
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      numberMisscheduled: 0,
      numberReady: 3,
      updatedNumberScheduled: 3,
      numberAvailable: 3,
      numberUnavailable: 0,
      observedGeneration: 1,
    });

    // a new node gets its pod
    await sim.server.create<Node>({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'late-0000', labels: { 'kubernetes.io/hostname': 'late-0000' } },
      status: {
        capacity: { cpu: '4', memory: '16Gi', pods: '110' },
        allocatable: { cpu: '4', memory: '16Gi', pods: '110' },
        conditions: [{ type: 'Ready', status: 'True' }],
      },
    } as Node);
    await sim.loop.runFor(60_000);
    pods = await daemonPods(sim);
    expect(pods.map((p) => p.spec.nodeName).sort()).toEqual([
      'general-0000',
      'general-0001',
      'general-0002',
      'late-0000',
    ]);
    expect((await agent(sim)).status?.desiredNumberScheduled).toBe(4);

    // rolling update: a new image replaces every pod, never more than maxUnavailable (1) down
    const d = await agent(sim);
    d.spec.template.spec.containers[0].image = 'example/agent:2';
    await sim.server.update(d);
    let worst = 0;
    for (let i = 0; i < 120; i++) {
      await sim.loop.runFor(1000);
      const live = (await daemonPods(sim)).filter((p) =>
        p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      worst = Math.max(worst, 4 - live.length);
    }
    pods = await daemonPods(sim);
    expect(pods.length).toBe(4);
    expect(pods.every((p) => p.spec.containers[0].image === 'example/agent:2')).toBe(true);
    expect(worst).toBe(1);
    expect((await agent(sim)).status).toMatchObject({ updatedNumberScheduled: 4, numberAvailable: 4 });

    // an untolerated NoExecute taint removes the pod; a NoSchedule one would not
    const n = await sim.server.get<Node>('nodes', undefined, 'general-0001');
    n.spec = { ...(n.spec ?? {}), taints: [{ key: 'maintenance', effect: 'NoExecute' }] };
    await sim.server.update(n);
    await sim.loop.runFor(60_000);
    pods = await daemonPods(sim);
    expect(pods.map((p) => p.spec.nodeName).sort()).toEqual(['general-0000', 'general-0002', 'late-0000']);
    expect((await agent(sim)).status).toMatchObject({ desiredNumberScheduled: 3, numberMisscheduled: 0 });

    // a deleted node's pod is garbage-collected (pod GC, orphaned pods)
    await sim.apply({ kind: 'deleteNode', nodes: ['late-0000'] });
    await sim.loop.runFor(120_000);
    const all = (await sim.server.list<Pod>('pods', { namespace: 'kube-system' })).items;
    expect(all.some((p) => p.spec.nodeName === 'late-0000')).toBe(false);
    expect((await agent(sim)).status).toMatchObject({ desiredNumberScheduled: 2, currentNumberScheduled: 2 });
    await sim.shutdown();
  }, 240_000);
});

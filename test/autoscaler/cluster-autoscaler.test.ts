// The cluster-autoscaler model: upstream's utilization and expander cases transcribed as data
// (cluster-autoscaler simulator/utilization/info_test.go TestCalculate, expander/waste/waste_test.go
// TestLeastWaste, expander/mostpods), the balancing of similar node groups, and scenarios run end
// to end through `simulate` whose node counts over time are worked out by hand.
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../src/api/types.js';
import {
  balanceScaleUp,
  checkEligibility,
  chooseOption,
  type ExpansionOption,
  nodeUtilization,
} from '../../src/autoscaler/autoscaler-rules.js';
import { loadScenario, parseScenario } from '../../src/sim/scenario.js';
import { ScenarioError } from '../../src/util/scenario-input.js';
import { simulate } from '../../src/sim/simulation.js';
import { formatSummary, renderReport } from '../../src/sim/report.js';
import { Rng } from '../../src/util/rng.js';

/** upstream utils/test BuildTestPod(name, cpu millis, memory bytes); -1 leaves the request out */
function buildTestPod(name: string, cpu: number, mem: number): Pod {
  const requests: Record<string, string> = {};
  if (cpu >= 0) requests.cpu = `${cpu}m`;
  if (mem >= 0) requests.memory = String(mem);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'i', resources: { requests } }] },
  };
}

/** upstream BuildTestNode(name, cpu millis, memory bytes): capacity = allocatable, 100 pods */
function buildTestNode(name: string, cpu: number, mem: number): Node {
  const res: Record<string, string> = { pods: '100' };
  if (cpu >= 0) res.cpu = `${cpu}m`;
  if (mem >= 0) res.memory = String(mem);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    status: { capacity: res, allocatable: res, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

describe('utilization (simulator/utilization/info_test.go TestCalculate)', () => {
  const testTime = Date.parse('2020-12-18T17:00:00Z');
  const pod = buildTestPod('p1', 100, 200000);
  const pod2 = buildTestPod('p2', -1, -1);
  const node = buildTestNode('node1', 2000, 2000000);
  const daemonSetPod3 = {
    ...buildTestPod('p3', 100, 200000),
    metadata: {
      name: 'p3',
      namespace: 'default',
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'ds', controller: true },
      ],
    },
  };
  const daemonSetPod4 = {
    ...buildTestPod('p4', 100, 200000),
    metadata: {
      name: 'p4',
      namespace: 'default',
      annotations: { 'cluster-autoscaler.kubernetes.io/daemonset-pod': 'true' },
      ownerReferences: [
        { apiVersion: 'crd/v1', kind: 'CustomDaemonSet', name: 'ds', uid: 'ds', controller: true },
      ],
    },
  };
  const mirrorPod = {
    ...buildTestPod('p4', 100, 200000),
    metadata: { name: 'p4', namespace: 'default', annotations: { 'kubernetes.io/config.mirror': '' } },
  };
  const terminatedPod = {
    ...buildTestPod('podTerminated', 100, 200000),
    metadata: {
      name: 'podTerminated',
      namespace: 'default',
      deletionTimestamp: new Date(testTime - 10 * 60_000).toISOString(),
    },
  };
  const withInit = buildTestPod('p-init', 100, 200000);
  withInit.spec.initContainers = [
    {
      name: 'sidecar',
      image: 'i',
      restartPolicy: 'Always',
      resources: { requests: { cpu: '50m', memory: '100000' } },
    },
    { name: 'init', image: 'i', resources: { requests: { cpu: '5m', memory: '100' } } },
  ];
  const largeInit = buildTestPod('p-large-init', 100, 200000);
  largeInit.spec.initContainers = [
    { name: 'init', image: 'i', resources: { requests: { cpu: '50000m', memory: '100000000' } } },
  ];

  it.each([
    ['two pods and one without requests', node, [pod, pod, pod2], {}, 2 / 10, 0.1],
    [
      'DaemonSet pods factored out',
      node,
      [pod, pod, pod2, daemonSetPod3, daemonSetPod4],
      { skipDaemonSetPods: true },
      2.5 / 10,
      undefined,
    ],
    ['DaemonSet pods counted by default', node, [pod, pod2, daemonSetPod3], {}, 2 / 10, undefined],
    [
      'a pod terminating for 10 min is not counted',
      node,
      [pod, pod, pod2, terminatedPod],
      {},
      2 / 10,
      undefined,
    ],
    [
      'mirror pods factored out',
      node,
      [pod, pod, pod2, mirrorPod],
      { skipMirrorPods: true },
      2 / 9,
      undefined,
    ],
    ['mirror pods counted by default', node, [pod, pod2, mirrorPod], {}, 2 / 10, undefined],
    [
      'DaemonSet and mirror pods factored out',
      node,
      [pod, mirrorPod, daemonSetPod3],
      { skipDaemonSetPods: true, skipMirrorPods: true },
      1 / 8,
      undefined,
    ],
    [
      'sidecars and a large init container',
      buildTestNode('node3', 2000, 2000000),
      [pod, withInit, largeInit],
      {},
      50.25,
      25.125,
    ],
  ] as const)('%s', (_name, n, pods, o, want, cpu) => {
    const u = nodeUtilization(n, pods as Pod[], testTime, o);
    expect(u.utilization).toBeCloseTo(want, 4);
    if (cpu !== undefined) expect(u.cpu).toBeCloseTo(cpu, 6);
  });

  it('a node without allocatable memory is an error', () => {
    expect(() => nodeUtilization(buildTestNode('node2', 2000, -1), [pod, pod, pod2], testTime)).toThrow(
      /memory/,
    );
  });
});

describe('expanders', () => {
  const cpuPerPod = 500;
  const memoryPerPod = 1000 * 1024 * 1024;
  const opt = (group: string, node: Node, pods: Pod[], nodeCount = 1, costPerHour = 1): ExpansionOption => ({
    group,
    node,
    pods,
    nodeCount,
    costPerHour,
  });
  const p = buildTestPod('p', cpuPerPod, memoryPerPod);

  it('least-waste (waste_test.go TestLeastWaste)', () => {
    const balanced = buildTestNode('balanced', 16 * cpuPerPod, 16 * memoryPerPod);
    const highmem = buildTestNode('highmem', 16 * cpuPerPod, 32 * memoryPerPod);
    const lowcpu = buildTestNode('lowcpu', 8 * cpuPerPod, 16 * memoryPerPod);
    const rng = new Rng(1);
    // one option, no pods / one pod
    expect(chooseOption('least-waste', [opt('balanced', balanced, [])], rng)!.option.group).toBe('balanced');
    expect(chooseOption('least-waste', [opt('balanced', balanced, [p])], rng)!.option.group).toBe('balanced');
    // one pod, lots of RAM vs less: balanced wastes less
    expect(
      chooseOption('least-waste', [opt('balanced', balanced, [p]), opt('highmem', highmem, [p])], rng)!.option
        .group,
    ).toBe('balanced');
    // and a node with less cpu wastes least
    const three = [opt('balanced', balanced, [p]), opt('highmem', highmem, [p]), opt('lowcpu', lowcpu, [p])];
    const c = chooseOption('least-waste', three, rng)!;
    expect(c.option.group).toBe('lowcpu');
    // (8-1)/8 + (16-1)/16 = 0.875 + 0.9375
    expect(c.why).toBe('least waste: cpu 87.5%, memory 93.75%');
  });

  it('most-pods picks the option that schedules the most pods; ties go to the seeded random expander', () => {
    const n = buildTestNode('n', 4000, 16 * memoryPerPod);
    const rng = new Rng(1);
    const a = opt('a', n, [p]);
    const b = opt('b', n, [p, p, p]);
    const c = opt('c', n, [p, p]);
    expect(chooseOption('most-pods', [a, b, c], rng)!.option.group).toBe('b');
    const tie = [opt('x', n, [p, p]), opt('y', n, [p, p])];
    const picks = new Set(
      Array.from({ length: 20 }, (_, i) => chooseOption('most-pods', tie, new Rng(i))!.option.group),
    );
    expect(picks).toEqual(new Set(['x', 'y']));
    // the same seed, the same pick
    expect(chooseOption('random', tie, new Rng(7))!.option.group).toBe(
      chooseOption('random', tie, new Rng(7))!.option.group,
    );
  });

  it('price picks the lowest node price per pod helped', () => {
    const n = buildTestNode('n', 4000, 16 * memoryPerPod);
    const rng = new Rng(1);
    // small: 3 nodes at 0.1 for 6 pods (0.05/pod); large: 1 node at 0.4 for 6 pods (0.0667/pod)
    const small = opt('small', n, [p, p, p, p, p, p], 3, 0.1);
    const large = opt('large', n, [p, p, p, p, p, p], 1, 0.4);
    expect(chooseOption('price', [large, small], rng)!.option.group).toBe('small');
    expect(chooseOption('price', [large, { ...small, costPerHour: 0.2 }], rng)!.option.group).toBe('large');
  });

  it('no option, no choice', () => {
    expect(chooseOption('least-waste', [], new Rng(1))).toBeUndefined();
  });
});

describe('balance-similar-node-groups (BalanceScaleUpBetweenGroups)', () => {
  it.each([
    // sizes [1, 3, 5], 4 new nodes: the smallest fills first → 4, 4, 5 (3 + 1)
    [[1, 3, 5], [10, 10, 10], 4, { a: 3, b: 1 }, 0],
    // an even spread from equal sizes, in input order on ties
    [[2, 2, 2], [10, 10, 10], 5, { a: 2, b: 2, c: 1 }, 0],
    // max sizes bound it; what fits nowhere is left over
    [[0, 0], [1, 2], 5, { a: 1, b: 2 }, 2],
  ] as const)('sizes %j max %j + %i', (sizes, max, n, want, left) => {
    const groups = sizes.map((size, i) => ({ group: 'abc'[i]!, size, max: max[i]! }));
    const r = balanceScaleUp(groups, n);
    expect(Object.fromEntries(r.add)).toEqual(want);
    expect(r.left).toBe(left);
  });
});

const at = (series: { t: number[]; nodes: number[]; upcoming: number[] }, s: number) => {
  const i = series.t.findIndex((t) => t >= s);
  return { nodes: series.nodes[i], upcoming: series.upcoming[i] };
};

describe('scenario: a burst of pending pods, then quiet (examples/scenarios/autoscaler-burst.yaml)', () => {
  it('1 node → 4 at 130 s (3 requested at the 70 s scan, 60 s latency) → 1 at 1270 s; cost by hand', async () => {
    const r = await simulate(loadScenario(join(__dirname, '../../examples/scenarios/autoscaler-burst.yaml')));
    const a = r.autoscaler!;
    const s = a.series;
    // by hand: before the burst one node; the scan at 70 s finds 10 pods Pending (2 of the 12 new
    // ones fit the first node: 4 × 1 cpu on 4 cpu) and binpacks them 4 + 4 + 2 onto 3 template nodes
    expect(at(s, 60)).toEqual({ nodes: 1, upcoming: 0 });
    expect(at(s, 80)).toEqual({ nodes: 1, upcoming: 3 });
    expect(at(s, 130)).toEqual({ nodes: 4, upcoming: 0 });
    // quiet from 5 min; scale-down waits 10 min after the scale-up (670 s), then 10 min unneeded
    expect(at(s, 1260)).toEqual({ nodes: 4, upcoming: 0 });
    expect(at(s, 1280)).toEqual({ nodes: 1, upcoming: 0 });
    expect(s.nodes[s.nodes.length - 1]).toBe(1);
    expect(a.groups[0]).toMatchObject({ name: 'general', nodesAtStart: 1, peakNodes: 4, nodesAtEnd: 1 });
    expect(a).toMatchObject({ scaleUps: 1, nodesAdded: 3, nodesRemoved: 3, failedScaleUps: 0 });
    // node-hours sampled every 10 s: 1 node for 80 s, 4 (requested or registered) for 1200 s, 1 for 520 s
    expect(a.nodeHours).toBeCloseTo((80 + 4 * 1200 + 520) / 3600, 3);
    expect(a.cost).toBeCloseTo(0.2 * a.nodeHours, 3);
    const up = a.decisions.find((d) => d.kind === 'scale-up')!;
    expect(up.atS).toBe(70);
    expect(up.message).toMatch(/^scale-up \[\{general 1->4 \(max: 10\)\}\] for 10 pod\(s\)/);
    expect(up.message).toContain(
      'expander least-waste chose general among 1 option(s): least waste: cpu 16.667%',
    );
    const downs = a.decisions.filter((d) => d.kind === 'scale-down');
    expect(downs.map((d) => d.atS)).toEqual([1270, 1270, 1270]);
    expect(a.decisions.find((d) => d.kind === 'unneeded')!.atS).toBe(670);
    // the node that keeps both pods is 50 % busy: not below the threshold
    expect(
      a.decisions.some(
        (d) =>
          d.kind === 'not-removed' &&
          /utilization 50% \(cpu\) is not below the threshold 50%/.test(d.message),
      ),
    ).toBe(true);
    // upstream's Events
    expect(r.events.filter((e) => e.reason === 'TriggeredScaleUp').length).toBe(10);
    expect(r.events.find((e) => e.reason === 'ScaledUpGroup')?.message).toBe(
      'Scale-up: setting group general size to 4 instead of 1 (max: 10)',
    );
    expect(r.events.filter((e) => e.reason === 'ScaleDownEmpty').length).toBe(3);
    expect(r.pods.pendingAtEnd).toBe(0);
    // the report: the summary's node-group table and decisions, the HTML page's series
    const text = formatSummary(r);
    expect(text).toContain(
      'Cluster autoscaler (expander least-waste): 1 scale-up(s), 3 node(s) added, 3 removed, 0 failed scale-up(s); 1.5 node-hours, cost 0.3',
    );
    expect(text).toMatch(/21m10s\s+scale-down\s+node general-0000 removed from general \(now 3\)/);
    const html = renderReport(r);
    expect(html).toContain('Nodes per node group');
    expect(html).toContain('Cost per hour (total 0.3 over 1.5 node-hours)');
  });
});

function scenario(body: string): string {
  return `
name: ca
seed: 1
duration: 20m
settings: { scheduler: real }
${body}`;
}

describe('scale-up decisions', () => {
  it('price expander: the cheaper group per pod; a pod no group fits is explained', async () => {
    const sc = parseScenario(
      scenario(`
workloads:
  - manifest:
      apiVersion: apps/v1
      kind: Deployment
      metadata: { name: web, namespace: default }
      spec:
        replicas: 4
        selector: { matchLabels: { app: web } }
        template:
          metadata: { labels: { app: web } }
          spec:
            containers: [{ name: web, image: nginx, resources: { requests: { cpu: "1", memory: 1Gi } } }]
  - manifest:
      apiVersion: v1
      kind: Pod
      metadata: { name: huge, namespace: default }
      spec:
        containers: [{ name: c, image: nginx, resources: { requests: { cpu: "12" } } }]
autoscaler:
  expander: price
  scaleDown: false
  nodeGroups:
    - { name: small, cpu: "2", memory: 8Gi, min: 0, max: 5, cost: 0.1, provisioningLatency: 30s }
    - { name: large, cpu: "8", memory: 32Gi, min: 0, max: 5, cost: 0.5, provisioningLatency: 30s }
`),
      'ca.yaml',
      tmpdir(),
    );
    const r = await simulate(sc);
    const a = r.autoscaler!;
    // small: 2 nodes for 4 pods (0.05 per pod); large: 1 node for 4 pods (0.125 per pod)
    const up = a.decisions.find((d) => d.kind === 'scale-up')!;
    expect(up.message).toMatch(/^scale-up \[\{small 0->2 \(max: 5\)\}\] for 4 pod\(s\)/);
    expect(up.message).toContain('chose small among 2 option(s): cheapest: 0.05/h per pod');
    const huge = a.decisions.find((d) => d.kind === 'no-scale-up' && d.subject === 'default/huge')!;
    expect(huge.message).toBe(
      'pod default/huge: no group fits: small: Insufficient cpu; large: Insufficient cpu',
    );
    expect(r.events.find((e) => e.reason === 'NotTriggerScaleUp')?.message).toBe(
      "pod didn't trigger scale-up: small: Insufficient cpu; large: Insufficient cpu",
    );
    expect(a.groups.map((g) => g.nodesAtEnd)).toEqual([2, 0]);
    expect(r.deployments[0]).toMatchObject({ ready: 4 });
  });

  it('max-node-provision-time: nodes that never register are given up and the group backs off', async () => {
    const sc = parseScenario(
      scenario(`
workloads:
  - manifest:
      apiVersion: v1
      kind: Pod
      metadata: { name: p, namespace: default }
      spec:
        containers: [{ name: c, image: nginx, resources: { requests: { cpu: "1" } } }]
autoscaler:
  expander: least-waste
  maxNodeProvisionTime: 5m
  nodeGroups:
    - { name: stuck, cpu: "2", memory: 8Gi, min: 0, max: 3, provisioningLatency: 1h }
`),
      'ca.yaml',
      tmpdir(),
    );
    const r = await simulate(sc);
    const a = r.autoscaler!;
    const failed = a.decisions.filter((d) => d.kind === 'scale-up-failed');
    // requested at 10 s, given up at the first scan 5 min later (310 s); back off 5 min, ask again
    // at 610 s, give up at 910 s and back off 10 min
    expect(failed.map((d) => d.atS)).toEqual([310, 910]);
    expect(failed[0]!.message).toBe(
      '1 node(s) did not register within max-node-provision-time 300s; target back to 0, group backs off for 300s',
    );
    expect(failed[1]!.message).toContain('backs off for 600s');
    expect(
      a.decisions.some(
        (d) => d.kind === 'no-scale-up' && /stuck: in backoff after a failed scale-up/.test(d.message),
      ),
    ).toBe(true);
    expect(a.failedScaleUps).toBe(2);
    expect(r.events.some((e) => e.reason === 'FailedToScaleUpGroup')).toBe(true);
    expect(r.pods.pendingAtEnd).toBe(1);
  });
});

describe('balance-similar-node-groups in a scenario', () => {
  it('spreads one scale-up over the template in both zones', async () => {
    const sc = parseScenario(
      scenario(`
workloads:
  - manifest:
      apiVersion: apps/v1
      kind: Deployment
      metadata: { name: web, namespace: default }
      spec:
        replicas: 10
        selector: { matchLabels: { app: web } }
        template:
          metadata: { labels: { app: web } }
          spec:
            containers: [{ name: web, image: nginx, resources: { requests: { cpu: "1", memory: 1Gi } } }]
autoscaler:
  expander: random
  balanceSimilarNodeGroups: true
  scaleDown: false
  nodeGroups:
    - { name: g, cpu: "4", memory: 16Gi, zones: [zone-a, zone-b], min: 0, max: 5, provisioningLatency: 30s }
`),
      'ca.yaml',
      tmpdir(),
    );
    const r = await simulate(sc);
    const a = r.autoscaler!;
    // 10 pods of 1 cpu on 4-cpu nodes: 3 nodes, spread a, b, a (both groups start empty)
    const up = a.decisions.find((d) => d.kind === 'scale-up')!;
    expect(up.message).toMatch(
      /^scale-up \[\{g-zone-a 0->2 \(max: 5\)\} \{g-zone-b 0->1 \(max: 5\)\}\] for 10 pod\(s\)|^scale-up \[\{g-zone-b 0->2 \(max: 5\)\} \{g-zone-a 0->1 \(max: 5\)\}\] for 10 pod\(s\)/,
    );
    expect(a.groups.map((g) => g.nodesAtEnd).sort()).toEqual([1, 2]);
    expect(r.deployments[0]).toMatchObject({ ready: 10 });
  });
});

describe('scale-down decisions', () => {
  it('a pod with safe-to-evict "false" keeps its node; a budget with no disruption allowed too', async () => {
    const sc = parseScenario(
      scenario(`
workloads:
  - manifest:
      apiVersion: apps/v1
      kind: Deployment
      metadata: { name: pinned, namespace: default }
      spec:
        replicas: 1
        selector: { matchLabels: { app: pinned } }
        template:
          metadata:
            labels: { app: pinned }
            annotations: { cluster-autoscaler.kubernetes.io/safe-to-evict: "false" }
          spec:
            nodeSelector: { kubernetes.io/hostname: g-0000 }
            containers: [{ name: c, image: nginx, resources: { requests: { cpu: 100m } } }]
  - manifest:
      apiVersion: apps/v1
      kind: Deployment
      metadata: { name: db, namespace: default }
      spec:
        replicas: 1
        selector: { matchLabels: { app: db } }
        template:
          metadata: { labels: { app: db } }
          spec:
            nodeSelector: { kubernetes.io/hostname: g-0001 }
            containers: [{ name: c, image: nginx, resources: { requests: { cpu: 100m } } }]
  - manifest:
      apiVersion: policy/v1
      kind: PodDisruptionBudget
      metadata: { name: db, namespace: default }
      spec: { minAvailable: 1, selector: { matchLabels: { app: db } } }
autoscaler:
  nodeGroups:
    - { name: g, cpu: "4", memory: 16Gi, min: 0, max: 5, initial: 3 }
`),
      'ca.yaml',
      tmpdir(),
    );
    const r = await simulate(sc);
    const a = r.autoscaler!;
    const why = (node: string) => a.decisions.filter((d) => d.subject === node).map((d) => d.message);
    expect(why('g-0000')[0]).toMatch(
      /^node g-0000 not removed: pod default\/pinned-\S+ is annotated cluster-autoscaler.kubernetes.io\/safe-to-evict: "false"$/,
    );
    expect(why('g-0001')[0]).toMatch(
      /^node g-0001 not removed: not enough pod disruption budget to move default\/db-\S+ \(default\/db allows 0\)$/,
    );
    // the empty node goes after 10 min unneeded (no scale-up, so no delay after add)
    expect(why('g-0002')).toEqual([
      'node g-0002 unneeded: utilization 0% (memory) < 50%; empty',
      'node g-0002 removed from g (now 2): unneeded since 600s ago, empty',
    ]);
    expect(a.groups[0]).toMatchObject({ nodesAtStart: 3, nodesAtEnd: 2 });
  });
});

describe('scenario input', () => {
  it('names the field of a bad autoscaler section', () => {
    const bad = (s: string) => () => parseScenario(scenario(s), 'ca.yaml', tmpdir());
    expect(
      bad('autoscaler: { expander: cheapest, nodeGroups: [{ name: g, cpu: "1", memory: 1Gi, max: 1 }] }'),
    ).toThrow(
      'ca.yaml: autoscaler.expander: unknown expander "cheapest" (expected least-waste, most-pods, random, price)',
    );
    expect(bad('autoscaler: { nodeGroups: [{ name: g, cpu: "1", memory: 1Gi }] }')).toThrow(
      'ca.yaml: autoscaler.nodeGroups[0].max: expected an integer between 0',
    );
    expect(bad('autoscaler: { nodeGroups: [{ name: g, cpu: "1", memory: 1Gi, min: 3, max: 2 }] }')).toThrow(
      ScenarioError,
    );
  });
});

describe('scale-down eligibility (core/scaledown/eligibility/eligibility_test.go TestFilterOutUnremovable)', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  const ready = (n: Node, on: boolean): Node => ({
    ...n,
    status: { ...n.status, conditions: [{ type: 'Ready', status: on ? 'True' : 'False' }] },
  });
  const regular = ready(buildTestNode('regular', 1000, 10), true);
  const justDeleted: Node = {
    ...ready(buildTestNode('justDeleted', 1000, 10), true),
    spec: {
      taints: [
        { key: 'ToBeDeletedByClusterAutoscaler', value: String(now / 1000 - 30), effect: 'NoSchedule' },
      ],
    },
  };
  const noScaleDown: Node = {
    ...ready(buildTestNode('noScaleDown', 1000, 10), true),
    metadata: {
      name: 'noScaleDown',
      annotations: { 'cluster-autoscaler.kubernetes.io/scale-down-disabled': 'true' },
    },
  };
  const unready = ready(buildTestNode('unready', 1000, 10), false);
  const bigPod = buildTestPod('bigPod', 600, 0);
  const smallPod = buildTestPod('smallPod', 100, 0);
  const dsPod: Pod = {
    ...buildTestPod('dsPod', 500, 0),
    metadata: {
      name: 'dsPod',
      namespace: 'default',
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'ds', controller: true },
      ],
    },
  };
  it.each([
    ['regular node stays', [regular], [], ['regular'], true, false],
    ['recently deleted node is filtered out', [regular, justDeleted], [], ['regular'], true, false],
    ['marked no scale down is filtered out', [noScaleDown, regular], [], ['regular'], true, false],
    ['highly utilized node is filtered out', [regular], [bigPod], [], true, false],
    ['underutilized node stays', [regular], [smallPod], ['regular'], true, false],
    ['unready node stays', [unready], [], ['unready'], true, false],
    ['unready node is filtered out when scale-down of unready is disabled', [unready], [], [], false, false],
    ['high utilization daemonsets node is filtered out', [regular], [smallPod, dsPod], [], true, false],
    ['high utilization daemonsets node stays', [regular], [smallPod, dsPod], ['regular'], true, true],
  ] as const)('%s', (_d, nodes, pods, want, scaleDownUnready, ignoreDaemonSetsUtilization) => {
    const got = nodes
      .filter(
        (n) =>
          checkEligibility(n, pods as readonly Pod[], now, {
            threshold: 0.5,
            scaleDownUnready,
            ignoreDaemonSetsUtilization,
          }).removable,
      )
      .map((n) => n.metadata.name);
    expect(got).toEqual(want);
  });
});

// Score plugins against upstream's own test tables (expected numbers copied from the Go tests named
// in each describe block, not computed by this code), run through the public path: a profile that
// enables the node-local score plugins and no filter, explained on both kernels
// (test/helpers/profile-scores.ts) — upstream's tests call Score on every node.
import { describe, expect, it } from 'vitest';
import { ALL_FILTER_BITS, ScorePlugin } from '../../../src/scheduler/engine/types.js';
import { normalizedImageName } from '../../../src/scheduler/engine/podquery.js';
import { makeNode, nodeOf, podOf, resNode } from '../../helpers/builders.js';
import { explainPod, parseSchedulerConfig, SchedulerCore } from '../../../src/scheduler/index.js';
import { profileNorm, profileRaw, profileScores } from '../../helpers/profile-scores.js';
import { runBoth } from '../engine/helpers.js';

const FIT = ScorePlugin.NodeResourcesFit;
const BAL = ScorePlugin.NodeResourcesBalancedAllocation;
const IMG = ScorePlugin.ImageLocality;
const TAINT = ScorePlugin.TaintToleration;
const AFF = ScorePlugin.NodeAffinity;
const cap = (cpu: string, memory: string, extra: Record<string, string> = {}) => ({ cpu, memory, ...extra });
const N12 = ['node1', 'node2'];

describe('NodeResourcesFit LeastAllocated (least_allocated_test.go)', () => {
  const cases: {
    name: string;
    pod: ReturnType<typeof makePod>;
    nodes: [string, string, Record<string, string>?][];
    existing?: ReturnType<typeof makePod>[];
    want: number[];
    resources?: { name: string; weight: number }[];
  }[] = [
    {
      name: 'nothing scheduled, nothing requested',
      pod: podOf(),
      nodes: [
        ['4000', '10000'],
        ['4000', '10000'],
      ],
      want: [100, 100],
    },
    {
      name: 'nothing scheduled, resources requested, differently sized nodes',
      pod: podOf({
        reqs: [
          { cpu: '1000', memory: '2000' },
          { cpu: '2000', memory: '3000' },
        ],
      }),
      nodes: [
        ['4000', '10000'],
        ['6000', '10000'],
      ],
      want: [37, 50],
    },
    {
      name: 'no resources requested, pods scheduled',
      pod: podOf(),
      nodes: [
        ['4000', '10000'],
        ['4000', '10000'],
      ],
      existing: [
        podOf({ node: 'node1' }),
        podOf({ node: 'node1' }),
        podOf({ node: 'node2' }),
        podOf({ node: 'node2' }),
      ],
      want: [100, 100],
    },
    {
      name: 'no resources requested, pods scheduled with resources',
      pod: podOf(),
      nodes: [
        ['10000', '20000'],
        ['10000', '20000'],
      ],
      existing: [
        podOf({ node: 'node1', reqs: [{ cpu: '3000', memory: '0' }] }),
        podOf({ node: 'node1', reqs: [{ cpu: '3000', memory: '0' }] }),
        podOf({ node: 'node2', reqs: [{ cpu: '3000', memory: '0' }] }),
        podOf({ node: 'node2', reqs: [{ cpu: '3000', memory: '5000' }] }),
      ],
      want: [70, 57],
    },
    {
      name: 'resources requested, pods scheduled with resources',
      pod: podOf({
        reqs: [
          { cpu: '1000', memory: '2000' },
          { cpu: '2000', memory: '3000' },
        ],
      }),
      nodes: [
        ['10000', '20000'],
        ['10000', '20000'],
      ],
      existing: [
        podOf({ node: 'node1', reqs: [{ cpu: '3000', memory: '0' }] }),
        podOf({ node: 'node2', reqs: [{ cpu: '3000', memory: '5000' }] }),
      ],
      want: [57, 45],
    },
    {
      name: 'resources requested, pods scheduled with resources, differently sized nodes',
      pod: podOf({
        reqs: [
          { cpu: '1000', memory: '2000' },
          { cpu: '2000', memory: '3000' },
        ],
      }),
      nodes: [
        ['10000', '20000'],
        ['10000', '50000'],
      ],
      existing: [
        podOf({ node: 'node1', reqs: [{ cpu: '3000', memory: '0' }] }),
        podOf({ node: 'node2', reqs: [{ cpu: '3000', memory: '5000' }] }),
      ],
      want: [57, 60],
    },
    {
      name: 'requested resources exceed node capacity',
      pod: podOf({ reqs: [{ cpu: '3000', memory: '0' }] }),
      nodes: [
        ['4000', '10000'],
        ['4000', '10000'],
      ],
      existing: [
        podOf({ node: 'node1', reqs: [{ cpu: '3000', memory: '0' }] }),
        podOf({ node: 'node2', reqs: [{ cpu: '3000', memory: '5000' }] }),
      ],
      want: [50, 25],
    },
    {
      name: 'nothing scheduled, resources requested with different weight on CPU and memory',
      pod: podOf({
        reqs: [
          { cpu: '1000', memory: '2000' },
          { cpu: '2000', memory: '3000' },
        ],
      }),
      nodes: [
        ['4000', '10000'],
        ['6000', '10000'],
      ],
      want: [41, 50],
      resources: [
        { name: 'memory', weight: 2 },
        { name: 'cpu', weight: 1 },
      ],
    },
    {
      name: 'bypass extended resource if the pod does not request',
      pod: podOf({
        reqs: [
          { cpu: '1000', memory: '2000' },
          { cpu: '2000', memory: '3000' },
        ],
      }),
      nodes: [
        ['6000', '10000'],
        ['6000', '10000', { 'abc.com/xyz': '4' }],
      ],
      want: [50, 50],
      resources: [
        { name: 'cpu', weight: 1 },
        { name: 'memory', weight: 1 },
        { name: 'abc.com/xyz', weight: 1 },
      ],
    },
    {
      name: 'honor extended resource if the pod requests',
      pod: podOf({
        reqs: [
          { cpu: '1000', memory: '2000' },
          { cpu: '2000', memory: '3000', 'abc.com/xyz': '2' },
        ],
      }),
      nodes: [
        ['6000', '10000', { 'abc.com/xyz': '4' }],
        ['6000', '10000', { 'abc.com/xyz': '10' }],
      ],
      want: [50, 60],
      resources: [
        { name: 'cpu', weight: 1 },
        { name: 'memory', weight: 1 },
        { name: 'abc.com/xyz', weight: 1 },
      ],
    },
    {
      name: "if the node doesn't have a resource",
      pod: podOf({ reqs: [{ cpu: '3000', memory: '4000' }] }),
      nodes: [
        ['6000', '10000'],
        ['6000', '10000', { 'abc.com/xyz': '4' }],
      ],
      want: [55, 55],
      resources: [
        { name: 'abc.com/xyz', weight: 2 },
        { name: 'cpu', weight: 1 },
        { name: 'memory', weight: 1 },
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const nodes = c.nodes.map(([cpu, mem, extra], i) =>
        nodeOf(`node${i + 1}`, { capacity: cap(cpu, mem, extra) }),
      );
      const r = profileScores(nodes, c.existing ?? [], c.pod, {
        fit: { type: 'LeastAllocated', resources: c.resources },
      });
      expect(profileRaw(r, FIT, N12)).toEqual(c.want);
    });
  }
  it('zero node resources score MinNodeScore', () => {
    const r = profileScores(
      [nodeOf('node1'), nodeOf('node2')],
      [
        podOf({ node: 'node1', reqs: [{ cpu: '3000', memory: '0' }] }),
        podOf({ node: 'node2', reqs: [{ cpu: '3000', memory: '5000' }] }),
      ],
      podOf(),
      {},
    );
    expect(profileRaw(r, FIT, N12)).toEqual([0, 0]);
  });
  it('rejects invalid weights like ValidateNodeResourcesFitArgs', () => {
    expect(() =>
      runBoth([], [], podOf(), {
        fit: {
          type: 'LeastAllocated',
          resources: [
            { name: 'memory', weight: -1 },
            { name: 'cpu', weight: 1 },
          ],
        },
      }),
    ).toThrow(/resources\[0\]\.weight/);
    expect(() =>
      runBoth([], [], podOf(), {
        fit: {
          type: 'LeastAllocated',
          resources: [
            { name: 'memory', weight: 1 },
            { name: 'cpu', weight: 101 },
          ],
        },
      }),
    ).toThrow(/resources\[1\]\.weight/);
  });
});

describe('NodeResourcesFit LeastAllocated: exact floors at the arithmetic edges (not upstream cases)', () => {
  // the WASM kernel floors x·(1/b) + 1e-13 for divisors below 2^42 and corrects the quotient
  // otherwise; both must equal Go's int64 division. node1: (64000-1000)·100/64000 = 98.4375 → 98,
  // (8Ti-1Ti)·100/8Ti = 87.5 → 87, (98+87)/2 = 92.5 → 92. node2 (exact quotients):
  // (4000-1000)·100/4000 = 75, (2Ti-1Ti)·100/2Ti = 50, (75+50)/2 = 62.5 → 62.
  it('a node with 8 TiB of memory (divisor above 2^42) and exact-integer quotients', () => {
    const ti = 1024 ** 4;
    const nodes = [resNode('node1', 64000, 8 * ti), resNode('node2', 4000, 2 * ti)];
    const pod = podOf({ reqs: [{ cpu: '1000m', memory: String(ti) }] });
    const r = profileScores(nodes, [], pod, {});
    expect(profileRaw(r, FIT, N12)).toEqual([92, 62]);
  });
  // explicit zero requests on nodes of 1002m/1003m cpu and 1006/1015 bytes: x = 100·b, so the
  // quotient is exactly 100, but x·fl(1/b) is just below 100 — a plain floor would give 99
  it('exact quotients that a plain floor of x·(1/b) gets wrong (pairs and the odd node)', () => {
    const nodes = [resNode('node1', 1002, 1006), resNode('node2', 1003, 1015), resNode('node3', 1019, 1382)];
    const r = profileScores(nodes, [], podOf({ reqs: [{ cpu: '0', memory: '0' }] }), {});
    expect(profileRaw(r, FIT, ['node1', 'node2', 'node3'])).toEqual([100, 100, 100]);
    const t = runBoth(
      nodes,
      [],
      podOf({ reqs: [{ cpu: '0', memory: '0' }] }),
      {},
      { disabledFilters: ALL_FILTER_BITS, output: 'total' },
    );
    // total-only (the fused pair loop): 3×100 (no taints) + 1×100 fit + 1×(balanced) + 0 images
    // (BalancedAllocation skips the best-effort pod: the kernel adds 0 for it)
    for (const n of ['node1', 'node2', 'node3'])
      expect(t.nodes.get(n)!.total).toBe(300 + 100 + (r.nodes.get(n)!.raw[BAL] ?? 0));
  });
  // the same in the two-node SIMD step: an existing pod without requests counts 100m / 200Mi for
  // LeastAllocated (non-zero requests) but nothing for BalancedAllocation, so the pod's 401m on
  // 1002m makes LeastAllocated's cpu quotient exactly 50 while the balanced value is not an integer
  it('exact quotients in the paired (f64x2) step of the total-only kernel', () => {
    const mem = 2 * (200 * 1024 * 1024 + 503);
    const nodes = [resNode('node1', 1002, mem), resNode('node2', 1002, mem)];
    const existing = [podOf({ node: 'node1', reqs: [{}] }), podOf({ node: 'node2', reqs: [{}] })];
    const pod = podOf({ reqs: [{ cpu: '401m', memory: '503' }] });
    const r = profileScores(nodes, existing, pod, {});
    expect(profileRaw(r, FIT, N12)).toEqual([50, 50]);
    const t = runBoth(nodes, existing, pod, {}, { disabledFilters: ALL_FILTER_BITS, output: 'total' });
    for (const n of N12) expect(t.nodes.get(n)!.total).toBe(300 + 50 + r.nodes.get(n)!.raw[BAL]);
  });
  // a node overcommitted on memory (its pods request more than it has; e.g. allocatable shrank
  // after they were bound) still passes a pod that requests no memory: BalancedAllocation clamps the
  // memory fraction to 1, in the paired step too (the value is not near an integer, so the pair
  // stays in f64x2 lanes) — unclamped, 1.5 would give |0.1234 − 1.5|/2 = 0.6883 → 31
  it('BalancedAllocation clamps a fraction above 1 on an overcommitted node, paired step included', () => {
    const nodes = [resNode('node1', 10000, 1000), resNode('node2', 10000, 1000)];
    const existing = [
      podOf({ node: 'node1', reqs: [{ cpu: '0', memory: '1500' }] }),
      podOf({ node: 'node2', reqs: [{ cpu: '0', memory: '1500' }] }),
    ];
    const pod = podOf({ reqs: [{ cpu: '1234m', memory: '0' }] });
    const r = profileScores(nodes, existing, pod, {});
    expect(profileRaw(r, BAL, N12)).toEqual([56, 56]); // (1 − |0.1234 − 1| / 2) × 100 = 56.17
    const t = runBoth(nodes, existing, pod, {}, { disabledFilters: ALL_FILTER_BITS, output: 'total' });
    for (const n of N12) expect(t.nodes.get(n)!.total).toBe(300 + r.nodes.get(n)!.raw[FIT] + 56);
    // and overcommitted on cpu, for a pod that requests memory only
    const cpuNodes = [resNode('node1', 1000, 10000), resNode('node2', 1000, 10000)];
    const cpuHeavy = [
      podOf({ node: 'node1', reqs: [{ cpu: '1500m', memory: '0' }] }),
      podOf({ node: 'node2', reqs: [{ cpu: '1500m', memory: '0' }] }),
    ];
    const memPod = podOf({ reqs: [{ cpu: '0', memory: '1234' }] });
    expect(profileRaw(profileScores(cpuNodes, cpuHeavy, memPod, {}), BAL, N12)).toEqual([56, 56]);
    const tc = runBoth(cpuNodes, cpuHeavy, memPod, {}, { disabledFilters: ALL_FILTER_BITS, output: 'total' });
    expect(N12.map((n) => tc.nodes.get(n)!.total)).toEqual(
      N12.map((n) => 300 + profileScores(cpuNodes, cpuHeavy, memPod, {}).nodes.get(n)!.raw[FIT] + 56),
    );
  });
});

describe('NodeResourcesBalancedAllocation (balanced_allocation_test.go)', () => {
  const cpuAndMemory = (node?: string) =>
    podOf({
      node,
      reqs: [
        { cpu: '1000m', memory: '2000' },
        { cpu: '2000m', memory: '3000' },
      ],
    });
  const cpuOnly = (node?: string) =>
    podOf({
      node,
      reqs: [
        { cpu: '1000m', memory: '0' },
        { cpu: '2000m', memory: '0' },
      ],
    });
  const cpuAndMemoryAndGPU = (node?: string) =>
    podOf({
      node,
      reqs: [
        { cpu: '1000m', memory: '2000' },
        { cpu: '2000m', memory: '3000', 'nvidia.com/gpu': '3' },
      ],
    });
  const withGpu = [
    { name: 'cpu', weight: 1 },
    { name: 'memory', weight: 1 },
    { name: 'nvidia.com/gpu', weight: 1 },
  ];
  it('nothing scheduled, nothing requested, skip in PreScore (a best-effort pod is not scored)', () => {
    const r = profileScores([resNode('node1', 4000, 10000), resNode('node2', 4000, 10000)], [], podOf(), {});
    expect(r.skipped).toContain('NodeResourcesBalancedAllocation');
    expect(profileRaw(r, BAL, N12)).toEqual([undefined, undefined]);
  });
  it('a profile without its PreScore scores a best-effort pod (Score computes the requests itself)', () => {
    // existing 3000m / 5000 on node1: fractions 0.75 and 0.5 → (1 − 0.125) × 100 = 87; node2 empty → 100
    const nodes = ['node1', 'node2'].map((n) =>
      makeNode(n).capacity({ cpu: '4', memory: '10000', pods: '110' }).obj(),
    );
    const existing = [podOf({ node: 'node1', reqs: [{ cpu: '3000m', memory: '5000' }] })];
    const config = parseSchedulerConfig(
      {
        apiVersion: 'kubescheduler.config.k8s.io/v1',
        kind: 'KubeSchedulerConfiguration',
        profiles: [
          {
            schedulerName: 'default-scheduler',
            plugins: { preScore: { disabled: [{ name: 'NodeResourcesBalancedAllocation' }] } },
          },
        ],
      },
      'sched.yaml',
    );
    for (const kernel of ['js', 'wasm'] as const) {
      const core = new SchedulerCore({ config, kernel, nodes, pods: existing, seed: 1 });
      const pod = podOf({ name: 'be' });
      const ex = explainPod(core.algo, core.frameworkFor(pod)!, core.snapshot, pod);
      expect(ex.skippedScorePlugins).not.toContain('NodeResourcesBalancedAllocation');
      const bal = (n: string) =>
        ex.nodes
          .find((e) => e.name === n)!
          .scores!.find((c) => c.plugin === 'NodeResourcesBalancedAllocation')!.raw;
      expect([bal('node1'), bal('node2')]).toEqual([87, 100]);
    }
  });
  it('nothing scheduled, resources requested, differently sized nodes', () => {
    const r = profileScores(
      [resNode('node1', 4000, 10000), resNode('node2', 6000, 10000)],
      [],
      cpuAndMemory(),
      {},
    );
    expect(profileRaw(r, BAL, N12)).toEqual([87, 100]);
  });
  it('resources requested, pods scheduled with resources', () => {
    const r = profileScores(
      [resNode('node1', 10000, 20000), resNode('node2', 10000, 20000)],
      [cpuOnly('node1'), cpuAndMemory('node2')],
      cpuAndMemory(),
      {},
    );
    expect(profileRaw(r, BAL, N12)).toEqual([82, 95]);
  });
  it('resources requested, pods scheduled with resources, differently sized nodes', () => {
    const r = profileScores(
      [resNode('node1', 10000, 20000), resNode('node2', 10000, 50000)],
      [cpuOnly('node1'), cpuAndMemory('node2')],
      cpuAndMemory(),
      {},
    );
    expect(profileRaw(r, BAL, N12)).toEqual([82, 80]);
  });
  it('requested resources at node capacity', () => {
    const r = profileScores(
      [resNode('node1', 6000, 10000), resNode('node2', 6000, 10000)],
      [cpuOnly('node1'), cpuAndMemory('node2')],
      cpuOnly(),
      {},
    );
    expect(profileRaw(r, BAL, N12)).toEqual([50, 75]);
  });
  it('include scalar resource on a node for balanced resource allocation', () => {
    const r = profileScores(
      [
        resNode('node1', 3500, 40000, { 'nvidia.com/gpu': 8 }),
        resNode('node2', 3500, 40000, { 'nvidia.com/gpu': 8 }),
      ],
      [cpuAndMemory('node2'), cpuAndMemoryAndGPU('node1')],
      podOf({ reqs: [{ memory: '0', 'nvidia.com/gpu': '1' }] }),
      { balancedResources: withGpu },
    );
    expect(profileRaw(r, BAL, N12)).toEqual([70, 65]);
  });
  // Not upstream cases: float64 rounding. 1 core / 4Gi nodes, cpu 700m: the fractions 0.7 and 0 (or
  // 0.5) give (1 - 0.35) × 100 = 65 and 90 exactly in IEEE division, but 64 and 89 when divided
  // through a rounded reciprocal — the WASM kernel's fast path must fall back to the division here.
  it('fractions whose score is an exact integer in float64 division (65, 90)', () => {
    const gi = 1024 * 1024 * 1024;
    const nodes = [resNode('node1', 1000, 4 * gi), resNode('node2', 1000, 4 * gi)];
    const r = profileScores(
      nodes,
      [podOf({ node: 'node2', reqs: [{ cpu: '0', memory: String(2 * gi) }] })],
      podOf({ reqs: [{ cpu: '700m', memory: '0' }] }),
      {},
    );
    expect(profileRaw(r, BAL, N12)).toEqual([65, 90]);
  });
  it('node without the scalar resource should skip the scalar resource', () => {
    const r = profileScores(
      [resNode('node1', 3500, 40000, { 'nvidia.com/gpu': 8 }), resNode('node2', 3500, 40000)],
      [],
      cpuAndMemory(),
      { balancedResources: withGpu },
    );
    expect(profileRaw(r, BAL, N12)).toEqual([63, 63]);
  });
});

describe('ImageLocality (image_locality_test.go, current MaxThreshold = 1000Mi × containers)', () => {
  const mb = 1024 * 1024;
  const img = (sizeMb: number, ...names: string[]) => ({ names, sizeBytes: sizeMb * mb });
  const node403002000 = [
    img(40, 'gcr.io/40:latest', 'gcr.io/40:v1', 'gcr.io/40:v1'),
    img(300, 'gcr.io/300:latest', 'gcr.io/300:v1'),
    img(2000, 'gcr.io/2000:latest'),
  ];
  const node25010 = [img(250, 'gcr.io/250:latest'), img(10, 'gcr.io/10:latest', 'gcr.io/10:v1')];
  const node60040900 = [
    img(600, 'gcr.io/600:latest'),
    img(40, 'gcr.io/40:latest'),
    img(900, 'gcr.io/900:latest'),
  ];
  const node300600900 = [
    img(300, 'gcr.io/300:latest'),
    img(600, 'gcr.io/600:latest'),
    img(900, 'gcr.io/900:latest'),
  ];
  const node400030 = [img(4000, 'gcr.io/4000:latest'), img(30, 'gcr.io/30:latest')];
  const node203040 = [img(20, 'gcr.io/20:latest'), img(30, 'gcr.io/30:latest'), img(40, 'gcr.io/40:latest')];
  const N = (...imgs: (typeof node25010 | undefined)[]) =>
    imgs.map((images, i) => nodeOf(`node${i + 1}`, { images }));
  const names = (k: number) => Array.from({ length: k }, (_, i) => `node${i + 1}`);
  const cases: [string, ReturnType<typeof makeNode>[], ReturnType<typeof makePod>, number[]][] = [
    [
      'two images spread on two nodes, prefer the larger image one',
      N(node403002000, node25010),
      podOf({ images: ['gcr.io/40', 'gcr.io/250'] }),
      [0, 5],
    ],
    [
      'two images on one node, prefer this node',
      N(node403002000, node25010),
      podOf({ images: ['gcr.io/40', 'gcr.io/300'] }),
      [7, 0],
    ],
    [
      'if exceed limit, use limit',
      N(node400030, node25010),
      podOf({ images: ['gcr.io/10', 'gcr.io/4000'] }),
      [100, 0],
    ],
    [
      'if exceed limit, use limit (with node which has no images present)',
      N(node400030, node25010, undefined),
      podOf({ images: ['gcr.io/10', 'gcr.io/4000'] }),
      [66, 0, 0],
    ],
    [
      'pod with multiple large images, node2 is preferred',
      N(node60040900, node300600900, undefined),
      podOf({ images: ['gcr.io/300', 'gcr.io/600', 'gcr.io/900'] }),
      [32, 36, 0],
    ],
    [
      'pod with multiple small images',
      N(node203040, node400030),
      podOf({ images: ['gcr.io/30', 'gcr.io/40'] }),
      [1, 0],
    ],
  ];
  for (const [name, nodes, pod, want] of cases) {
    it(name, () => {
      expect(profileRaw(profileScores(nodes, [], pod, {}), IMG, names(want.length))).toEqual(want);
    });
  }
  it('include InitContainers: two images spread on two nodes, prefer the larger image one', () => {
    const pod = podOf({ images: ['gcr.io/30'] });
    pod.spec.initContainers = [{ name: 'init', image: 'gcr.io/300' }];
    expect(profileRaw(profileScores(N(node403002000, node203040), [], pod, {}), IMG, names(2))).toEqual([
      6, 0,
    ]);
  });
  it('normalizedImageName (TestNormalizedImageName)', () => {
    expect(normalizedImageName('root')).toBe('root:latest');
    expect(normalizedImageName('gcr.io:5000/root')).toBe('gcr.io:5000/root:latest');
    expect(normalizedImageName('root:tag')).toBe('root:tag');
    expect(normalizedImageName('root@sha256:abc')).toBe('root@sha256:abc');
  });
});

describe('TaintToleration score + NormalizeScore (taint_toleration_test.go)', () => {
  const P = 'PreferNoSchedule' as const;
  const ABC = ['nodeA', 'nodeB', 'nodeC'];
  it('node with taints tolerated by the pod gets a higher score', () => {
    const r = profileScores(
      [
        nodeOf('nodeA', { taints: [{ key: 'foo', value: 'bar', effect: P }] }),
        nodeOf('nodeB', { taints: [{ key: 'foo', value: 'blah', effect: P }] }),
      ],
      [],
      podOf({ tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: P }] }),
      {},
    );
    expect(profileNorm(r, TAINT, ['nodeA', 'nodeB'])).toEqual([100, 0]);
  });
  const three = () => [
    nodeOf('nodeA'),
    nodeOf('nodeB', { taints: [{ key: 'cpu-type', value: 'arm64', effect: P }] }),
    nodeOf('nodeC', {
      taints: [
        { key: 'cpu-type', value: 'arm64', effect: P },
        { key: 'disk-type', value: 'ssd', effect: P },
      ],
    }),
  ];
  it('all taints tolerated: same score however many', () => {
    const r = profileScores(
      three(),
      [],
      podOf({
        tolerations: [
          { key: 'cpu-type', operator: 'Equal', value: 'arm64', effect: P },
          { key: 'disk-type', operator: 'Equal', value: 'ssd', effect: P },
        ],
      }),
      {},
    );
    expect(profileNorm(r, TAINT, ABC)).toEqual([100, 100, 100]);
  });
  it('the more intolerable taints a node has, the lower score it gets', () => {
    const r = profileScores(
      three(),
      [],
      podOf({ tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: P }] }),
      {},
    );
    expect(profileNorm(r, TAINT, ABC)).toEqual([100, 50, 0]);
  });
  it('only PreferNoSchedule taints and tolerations count', () => {
    const nodes = [
      nodeOf('nodeA'),
      nodeOf('nodeB', { taints: [{ key: 'cpu-type', value: 'arm64', effect: 'NoSchedule' }] }),
      nodeOf('nodeC', {
        taints: [
          { key: 'cpu-type', value: 'arm64', effect: P },
          { key: 'disk-type', value: 'ssd', effect: P },
        ],
      }),
    ];
    const r = profileScores(
      nodes,
      [],
      podOf({
        tolerations: [
          { key: 'cpu-type', operator: 'Equal', value: 'arm64', effect: 'NoSchedule' },
          { key: 'disk-type', operator: 'Equal', value: 'ssd', effect: 'NoSchedule' },
        ],
      }),
      {},
    );
    expect(profileNorm(r, TAINT, ABC)).toEqual([100, 100, 0]);
  });
  it('no taints and tolerations: lands on node with no taints', () => {
    const r = profileScores(
      [nodeOf('nodeA'), nodeOf('nodeB', { taints: [{ key: 'cpu-type', value: 'arm64', effect: P }] })],
      [],
      podOf({ tolerations: [] }),
      {},
    );
    expect(profileNorm(r, TAINT, ['nodeA', 'nodeB'])).toEqual([100, 0]);
  });
});

describe('NodeResourcesFit MostAllocated (most_allocated_test.go)', () => {
  const both = (cpu1: string, mem1: string, cpu2: string, mem2: string) => [
    nodeOf('node1', { capacity: cap(cpu1, mem1) }),
    nodeOf('node2', { capacity: cap(cpu2, mem2) }),
  ];
  const most = (resources?: { name: string; weight: number }[]) => ({
    fit: { type: 'MostAllocated' as const, resources },
  });
  const twoContainers = () =>
    podOf({
      reqs: [
        { cpu: '1000', memory: '2000' },
        { cpu: '2000', memory: '3000' },
      ],
    });
  it('nothing scheduled, nothing requested', () => {
    expect(
      profileRaw(profileScores(both('4000', '10000', '4000', '10000'), [], podOf(), most()), FIT, N12),
    ).toEqual([0, 0]);
  });
  it('nothing scheduled, resources requested, differently sized nodes', () => {
    expect(
      profileRaw(
        profileScores(both('4000', '10000', '6000', '10000'), [], twoContainers(), most()),
        FIT,
        N12,
      ),
    ).toEqual([62, 50]);
  });
  it('no resources requested, pods scheduled with resources', () => {
    const existing = [
      podOf({ node: 'node1', reqs: [{ cpu: '3000', memory: '0' }] }),
      podOf({ node: 'node1', reqs: [{ cpu: '3000', memory: '0' }] }),
      podOf({ node: 'node2', reqs: [{ cpu: '3000', memory: '0' }] }),
      podOf({ node: 'node2', reqs: [{ cpu: '3000', memory: '5000' }] }),
    ];
    expect(
      profileRaw(
        profileScores(both('10000', '20000', '10000', '20000'), existing, podOf(), most()),
        FIT,
        N12,
      ),
    ).toEqual([30, 42]);
  });
  it('resources requested, pods scheduled with resources', () => {
    const existing = [
      podOf({ node: 'node1', reqs: [{ cpu: '3000', memory: '0' }] }),
      podOf({ node: 'node2', reqs: [{ cpu: '3000', memory: '5000' }] }),
    ];
    expect(
      profileRaw(
        profileScores(both('10000', '20000', '10000', '20000'), existing, twoContainers(), most()),
        FIT,
        N12,
      ),
    ).toEqual([42, 55]);
  });
  it('resources requested equal node capacity', () => {
    const pod = podOf({
      reqs: [
        { cpu: '2000', memory: '4000' },
        { cpu: '3000', memory: '5000' },
      ],
    });
    expect(
      profileRaw(profileScores(both('5000', '10000', '10000', '9000'), [], pod, most()), FIT, N12),
    ).toEqual([95, 75]);
  });
  it('different weights on CPU and memory', () => {
    expect(
      profileRaw(
        profileScores(
          both('4000', '10000', '6000', '10000'),
          [],
          twoContainers(),
          most([
            { name: 'memory', weight: 2 },
            { name: 'cpu', weight: 1 },
          ]),
        ),
        FIT,
        N12,
      ),
    ).toEqual([58, 50]);
  });
  it('no resources requested, pods scheduled, nonzero request for resource', () => {
    const c = () => podOf({ node: 'node1' });
    const e1 = c(),
      e2 = c();
    e1.spec.containers = [{ name: 'container' }];
    e2.spec.containers = [{ name: 'container' }];
    const pod = podOf();
    pod.spec.containers = [{ name: 'container' }];
    expect(
      profileRaw(profileScores(both('250m', '1000Mi', '250m', '1000Mi'), [e1, e2], pod, most()), FIT, N12),
    ).toEqual([80, 30]);
  });
  it('honor extended resource if the pod requests', () => {
    const nodes = [
      nodeOf('node1', { capacity: cap('6000', '10000', { 'abc.com/xyz': '4' }) }),
      nodeOf('node2', { capacity: cap('6000', '10000', { 'abc.com/xyz': '10' }) }),
    ];
    const pod = podOf({ reqs: [{ cpu: '3000', memory: '5000', 'abc.com/xyz': '2' }] });
    expect(
      profileRaw(
        profileScores(
          nodes,
          [],
          pod,
          most([
            { name: 'cpu', weight: 1 },
            { name: 'memory', weight: 1 },
            { name: 'abc.com/xyz', weight: 1 },
          ]),
        ),
        FIT,
        N12,
      ),
    ).toEqual([50, 40]);
  });
  it("if the node doesn't have a resource", () => {
    const nodes = [
      nodeOf('node1', { capacity: cap('6000', '10000') }),
      nodeOf('node2', { capacity: cap('6000', '10000', { 'abc.com/xyz': '4' }) }),
    ];
    const pod = podOf({ reqs: [{ cpu: '3000', memory: '4000' }] });
    expect(
      profileRaw(
        profileScores(
          nodes,
          [],
          pod,
          most([
            { name: 'abc.com/xyz', weight: 2 },
            { name: 'cpu', weight: 1 },
            { name: 'memory', weight: 1 },
          ]),
        ),
        FIT,
        N12,
      ),
    ).toEqual([45, 45]);
  });
});

describe('NodeResourcesFit RequestedToCapacityRatio (requested_to_capacity_ratio_test.go)', () => {
  const rtcr = (
    shape: { utilization: number; score: number }[],
    resources = [
      { name: 'cpu', weight: 1 },
      { name: 'memory', weight: 1 },
    ],
  ) => ({ fit: { type: 'RequestedToCapacityRatio' as const, resources, shape } });
  const leastShape = [
    { utilization: 0, score: 10 },
    { utilization: 100, score: 0 },
  ];
  it('nothing scheduled, nothing requested (least requested nodes have priority)', () => {
    const nodes = [
      nodeOf('node1', { capacity: cap('4000', '10000') }),
      nodeOf('node2', { capacity: cap('4000', '10000') }),
    ];
    expect(
      profileRaw(
        profileScores(nodes, [podOf({ node: 'node1' }), podOf({ node: 'node1' })], podOf(), rtcr(leastShape)),
        FIT,
        N12,
      ),
    ).toEqual([100, 100]);
  });
  it('resources requested, differently sized nodes (math.Round of 37.5 is 38)', () => {
    const nodes = [
      nodeOf('node1', { capacity: cap('4000', '10000') }),
      nodeOf('node2', { capacity: cap('6000', '10000') }),
    ];
    const pod = podOf({
      reqs: [
        { cpu: '1000', memory: '2000' },
        { cpu: '2000', memory: '3000' },
      ],
    });
    expect(
      profileRaw(
        profileScores(nodes, [podOf({ node: 'node1' }), podOf({ node: 'node1' })], pod, rtcr(leastShape)),
        FIT,
        N12,
      ),
    ).toEqual([38, 50]);
  });
  it('no resources requested, pods scheduled with resources', () => {
    const nodes = [
      nodeOf('node1', { capacity: cap('4000', '10000') }),
      nodeOf('node2', { capacity: cap('6000', '10000') }),
    ];
    const existing = [
      podOf({ node: 'node1', reqs: [{ cpu: '3000', memory: '5000' }] }),
      podOf({ node: 'node2', reqs: [{ cpu: '3000', memory: '5000' }] }),
    ];
    expect(profileRaw(profileScores(nodes, existing, podOf(), rtcr(leastShape)), FIT, N12)).toEqual([38, 50]);
  });
  const foo4 = { 'intel.com/foo': 4 },
    foo8 = { 'intel.com/foo': 8 };
  const binShape = [
    { utilization: 0, score: 0 },
    { utilization: 100, score: 1 },
  ];
  const fooOnly = [{ name: 'intel.com/foo', weight: 1 }];
  const binNodes = () => [
    resNode('node1', 4000, 10000 * 1024 * 1024, foo8),
    resNode('node2', 4000, 10000 * 1024 * 1024, foo4),
  ];
  // (upstream also lists pods without a node name in the snapshot; they are not on any node)
  it('TestResourceBinPackingSingleExtended: nothing requested', () => {
    expect(profileRaw(profileScores(binNodes(), [], podOf(), rtcr(binShape, fooOnly)), FIT, N12)).toEqual([
      0, 0,
    ]);
  });
  it('TestResourceBinPackingSingleExtended: pods scheduled with less resources', () => {
    expect(
      profileRaw(
        profileScores(binNodes(), [], podOf({ reqs: [{ 'intel.com/foo': '2' }] }), rtcr(binShape, fooOnly)),
        FIT,
        N12,
      ),
    ).toEqual([2, 5]);
  });
  it('TestResourceBinPackingSingleExtended: on node with existing pod running', () => {
    expect(
      profileRaw(
        profileScores(
          binNodes(),
          [podOf({ node: 'node2', reqs: [{ 'intel.com/foo': '2' }] })],
          podOf({ reqs: [{ 'intel.com/foo': '2' }] }),
          rtcr(binShape, fooOnly),
        ),
        FIT,
        N12,
      ),
    ).toEqual([2, 10]);
  });
  it('TestResourceBinPackingSingleExtended: pods scheduled with more resources', () => {
    expect(
      profileRaw(
        profileScores(binNodes(), [], podOf({ reqs: [{ 'intel.com/foo': '4' }] }), rtcr(binShape, fooOnly)),
        FIT,
        N12,
      ),
    ).toEqual([5, 10]);
  });
  it('TestResourceBinPackingMultipleExtended: weights 3 and 5, rounded mean', () => {
    const nodes = [
      resNode('node1', 4000, 10000 * 1024 * 1024, { 'intel.com/foo': 8, 'intel.com/bar': 4 }),
      resNode('node2', 4000, 10000 * 1024 * 1024, { 'intel.com/foo': 4, 'intel.com/bar': 8 }),
    ];
    const res = [
      { name: 'intel.com/foo', weight: 3 },
      { name: 'intel.com/bar', weight: 5 },
    ];
    const pod = podOf({ reqs: [{ 'intel.com/foo': '2', 'intel.com/bar': '2' }] });
    expect(profileRaw(profileScores(nodes, [], pod, rtcr(binShape, res)), FIT, N12)).toEqual([4, 3]);
    expect(
      profileRaw(
        profileScores(
          nodes,
          [podOf({ node: 'node2', reqs: [{ 'intel.com/foo': '2', 'intel.com/bar': '2' }] })],
          pod,
          rtcr(binShape, res),
        ),
        FIT,
        N12,
      ),
    ).toEqual([4, 7]);
  });
});

describe('scores do not depend on filters the profile turned off (schedule_one.go: Score runs on every node the enabled filters pass)', () => {
  // the default profile without TaintToleration's and NodeResourcesFit's filters: a node with an
  // untolerated NoSchedule taint and one with no pod room are both feasible, so both are scored
  const config = parseSchedulerConfig(
    {
      apiVersion: 'kubescheduler.config.k8s.io/v1',
      kind: 'KubeSchedulerConfiguration',
      profiles: [
        {
          schedulerName: 'default-scheduler',
          plugins: { filter: { disabled: [{ name: 'TaintToleration' }, { name: 'NodeResourcesFit' }] } },
        },
      ],
    },
    'sched.yaml',
  );
  const nodes = [
    makeNode('tainted')
      .capacity({ cpu: '4', memory: '8Gi', pods: '110' })
      .taint({ key: 'dedicated', value: 'db', effect: 'NoSchedule' })
      .taint({ key: 'spot', effect: 'PreferNoSchedule' })
      .obj(),
    makeNode('full').capacity({ cpu: '4', memory: '8Gi', pods: '1' }).obj(),
    makeNode('nopods').capacity({ cpu: '8', memory: '8Gi' }).obj(),
  ];
  const bound = [podOf({ name: 'x', node: 'full', reqs: [{ cpu: '1', memory: '1Gi' }] })];
  const pod = podOf({ name: 'web', reqs: [{ cpu: '2', memory: '2Gi' }] });
  for (const kernel of ['js', 'wasm'] as const) {
    it(`every node is scored with upstream's numbers (${kernel})`, () => {
      const core = new SchedulerCore({ config, kernel, nodes, pods: bound, seed: 1 });
      const ex = explainPod(core.algo, core.frameworkFor(pod)!, core.snapshot, pod);
      const cell = (node: string, plugin: string) =>
        ex.nodes.find((n) => n.name === node)!.scores!.find((c) => c.plugin === plugin)!;
      expect(ex.nodes.every((n) => n.feasible && n.scores)).toBe(true);
      // one PreferNoSchedule taint on 'tainted': raw 1, reversed normalization 0; others 100
      expect(['tainted', 'full', 'nopods'].map((n) => cell(n, 'TaintToleration').normalized)).toEqual([
        0, 100, 100,
      ]);
      // LeastAllocated (cpu, memory): tainted (4-2)/4=50, (8-2)/8=75 → 62; full: cpu (4-3)/4=25,
      // memory (8-3)/8=62 → 43; nopods: (8-2)/8=75, 75 → 75 (no pods allocatable does not matter)
      expect(['tainted', 'full', 'nopods'].map((n) => cell(n, 'NodeResourcesFit').raw)).toEqual([62, 43, 75]);
      expect(ex.chosen).toBe('nopods');
    });
  }
});

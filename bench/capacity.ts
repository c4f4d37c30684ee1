/**
 * `kubesim bench capacity`: independent capacity runs (a what-if sweep of 8 plans: base, each zone
 * lost, nodes added, nodes removed, nodes cordoned) on one thread versus the piscina pool, side by side in one run. Each task plans up
 * to 300 replicas of a 500m/1Gi shape on a generated cluster. The pool's figure includes
 * msgpackr-encoding the cluster into every task, as real sweeps pay it.
 *
 * Plan growth: one plan of a zone-spread Deployment (DoNotSchedule, maxSkew 1) with preferred
 * hostname anti-affinity to itself, timed at checkpoints (⅛, ¼, ½ and all of its replicas) inside
 * the one run, so that the fitted exponent shows whether a plan's cost grows linearly with the
 * replicas it places (each replica is one full scheduling cycle over every earlier one).
 */
import type { BenchSuite } from './harness.js';
import { generateCluster } from '../src/sim/cluster-gen.js';
import type { ClusterFile } from '../src/scheduler/framework/cluster-file.js';
import type { Pod } from '../src/api/types.js';
import { runPoolTask, type PoolTask } from '../src/capacity/pool-tasks.js';
import { PlannerPool } from '../src/capacity/pool.js';
import { planCapacity } from '../src/capacity/planner.js';
import { resourceSliceFor } from '../src/api/resource-slices.js';
import os from 'node:os';

const shape: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'bench-shape', namespace: 'default' },
  spec: {
    containers: [{ name: 'c', image: 'app:1', resources: { requests: { cpu: '500m', memory: '1Gi' } } }],
  },
};

/** the growth shape: spread over zones, and preferably one replica per node (also scripts/plan-growth.mjs) */
export const spreadShape: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
  spec: {
    containers: [{ name: 'c', image: 'app:1', resources: { requests: { cpu: '100m', memory: '128Mi' } } }],
    topologySpreadConstraints: [
      {
        maxSkew: 1,
        topologyKey: 'topology.kubernetes.io/zone',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { app: 'web' } },
      },
    ],
    affinity: {
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 100,
            podAffinityTerm: {
              topologyKey: 'kubernetes.io/hostname',
              labelSelector: { matchLabels: { app: 'web' } },
            },
          },
        ],
      },
    },
  },
};

/** a seeded generated cluster as a plan's input (also scripts/plan-growth.mjs) */
export function clusterOf(
  nodes: number,
  seed: number,
): ReturnType<typeof generateCluster> & { file: ClusterFile } {
  const g = generateCluster({ seed, nodes });
  return {
    ...g,
    file: {
      sources: new Map(),
      nodes: g.nodes,
      boundPods: g.pods.filter((p) => p.spec.nodeName),
      pendingPods: [],
      services: [],
      replicaSets: [],
      others: [],
      namespaces: [],
    },
  };
}

/** "547:4000,5000:40000" → [[547, 4000], [5000, 40000]]; "none" → [] */
function parseGrowth(text: string): [number, number][] {
  if (text === 'none') return [];
  return text.split(',').map((pairText) => {
    const m = /^(\d+):(\d+)$/.exec(pairText.trim());
    if (!m || Number(m[1]) < 1 || Number(m[2]) < 800)
      throw new Error(`--growth: "${pairText}" is not NODES:REPLICAS (replicas ≥ 800)`);
    return [Number(m[1]), Number(m[2])];
  });
}

/** The GPU claim template and the shape the DRA series plans: one GPU per replica, 100m/128Mi. */
const GPU_DRIVER = 'gpu.example.com';
const gpuShape: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'infer', namespace: 'default', labels: { app: 'infer' } },
  spec: {
    containers: [
      {
        name: 'c',
        image: 'app:1',
        resources: {
          requests: { cpu: '100m', memory: '128Mi' },
          claims: [{ name: 'gpu' }],
        } as Pod['spec']['containers'][number]['resources'],
      },
    ],
    resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'one-gpu' }],
  },
};

/**
 * The generated cluster with `perNode` GPUs on every node: one ResourceSlice per node (its own pool),
 * a DeviceClass selecting the driver by CEL, and the one-GPU claim template.
 */
export function gpuClusterOf(nodes: number, perNode: number, seed: number): ClusterFile {
  const { file } = clusterOf(nodes, seed);
  return {
    ...file,
    resources: {
      deviceClasses: [
        {
          apiVersion: 'resource.k8s.io/v1',
          kind: 'DeviceClass',
          metadata: { name: GPU_DRIVER },
          spec: { selectors: [{ cel: { expression: `device.driver == "${GPU_DRIVER}"` } }] },
        },
      ],
      resourceClaimTemplates: [
        {
          apiVersion: 'resource.k8s.io/v1',
          kind: 'ResourceClaimTemplate',
          metadata: { name: 'one-gpu', namespace: 'default' },
          spec: {
            spec: {
              devices: {
                requests: [
                  {
                    name: 'gpu',
                    exactly: { deviceClassName: GPU_DRIVER, allocationMode: 'ExactCount', count: 1 },
                  },
                ],
              },
            },
          },
        },
      ],
      resourceClaims: [],
      resourceSlices: file.nodes.map((n) =>
        resourceSliceFor(n, {
          driver: GPU_DRIVER,
          count: perNode,
          namePrefix: 'gpu',
          attributes: { model: { string: 'H100' } },
          capacity: { memory: '80Gi' },
        }),
      ),
    },
  };
}

/**
 * One plan of `replicas` replicas of `shape`; the time from the 100th placement (the cluster is
 * built and the cycle warm by then) to each checkpoint becomes a row sized in replicas.
 */
function planGrowth(
  rec: Parameters<BenchSuite['run']>[1],
  nodes: number,
  replicas: number,
  seed: number,
  series: { name: string; mode: string; file: ClusterFile; shape: Pod } = {
    name: 'plan growth',
    mode: `zone spread + anti-affinity, ${nodes} nodes`,
    file: clusterOf(nodes, seed).file,
    shape: spreadShape,
  },
): void {
  const { file, mode } = series;
  const checkpoints = [replicas / 8, replicas / 4, replicas / 2, replicas]
    .map((r) => Math.round(r / 100) * 100)
    .filter((r) => r > 100);
  const at = new Map<number, number>();
  let t100 = 0;
  rec.opts.progress(`${series.name} ${mode}`, nodes);
  const t0 = performance.now();
  const rep = planCapacity(file, [series.shape], {
    maxReplicas: replicas,
    kernel: 'wasm',
    seed,
    onProgress: (_shape, placed) => {
      if (placed === 100) t100 = performance.now();
      if (checkpoints.includes(placed)) at.set(placed, performance.now());
    },
  });
  const total = performance.now() - t0;
  const fits = rep.shapes[0].fits;
  // a plan that stops early (devices run out) still gets a row at the replicas it placed
  if (fits < replicas && fits > 100 && !at.has(fits)) {
    at.set(fits, t0 + total);
    checkpoints.push(fits);
  }
  for (const r of checkpoints) {
    const t = at.get(r);
    if (t === undefined) continue;
    rec.timing(series.name, t - t100, {
      mode,
      size: r,
      sizeUnit: 'replicas',
      units: r - 100,
      unit: 'replicas',
      figures: r === replicas || r === fits ? { totalMs: total, fits } : undefined,
    });
  }
  if (fits < replicas)
    rec.note(
      `${series.name} at ${nodes} nodes: ${fits} of ${replicas} replicas fit (${rep.shapes[0].stopReason}); total ${Math.round(total)} ms`,
    );
}

function sweepTasks(nodes: number, seed: number): PoolTask[] {
  const g = clusterOf(nodes, seed);
  const cluster = g.file;
  const template = g.nodes[0].metadata.name!;
  const whatIfs = [
    [],
    ...g.zones.map((zone) => [{ kind: 'lose-zone' as const, zone }]),
    [{ kind: 'add-nodes' as const, count: 10, template }],
    [{ kind: 'add-nodes' as const, count: 50, template }],
    [{ kind: 'remove-nodes' as const, names: g.nodes.slice(0, 20).map((n) => n.metadata.name!) }],
    [{ kind: 'cordon' as const, names: g.nodes.slice(20, 60).map((n) => n.metadata.name!) }],
  ];
  return whatIfs.map((w) => ({
    kind: 'plan',
    cluster,
    shapes: [shape],
    whatIfs: w,
    seed,
    kernel: 'wasm',
    maxReplicas: 300,
  }));
}

export const suite: BenchSuite = {
  name: 'capacity',
  description:
    "capacity what-if sweep: one thread vs the worker pool (tasks/s, speedup on this machine's cores)",
  sizeUnit: 'nodes',
  defaultSizes: [500, 2000],
  quickSizes: [300],
  options: [
    { flags: '--threads <n>', description: 'pool threads (default: cores)' },
    {
      flags: '--dra <list>',
      description:
        'DRA plan runs as NODES:REPLICAS pairs, 8 GPUs per node, one GPU claim per replica (default 1000:10000; quick 100:1000), or none',
    },
    {
      flags: '--growth <list>',
      description:
        'plan-growth runs as NODES:REPLICAS pairs (default 547:4000,5000:40000; quick 300:2000), or none',
    },
  ],
  async run(opts, rec) {
    const growth = parseGrowth(
      typeof opts.args.growth === 'string'
        ? opts.args.growth
        : opts.quick
          ? '300:2000'
          : '547:4000,5000:40000',
    );
    for (const [nodes, replicas] of growth) planGrowth(rec, nodes, replicas, opts.seed);
    const dra = parseGrowth(
      typeof opts.args.dra === 'string' ? opts.args.dra : opts.quick ? '100:1000' : '1000:10000',
    );
    for (const [nodes, replicas] of dra)
      planGrowth(rec, nodes, replicas, opts.seed, {
        name: 'plan DRA',
        mode: `1 GPU claim per replica, ${nodes} nodes × 8 GPUs`,
        file: gpuClusterOf(nodes, 8, opts.seed),
        shape: gpuShape,
      });
    if (dra.length)
      rec.note(
        'plan DRA: one plan per node count of a one-GPU-claim shape (claims made from a template per replica, allocated by the structured allocator); 8 GPUs per node, so the plan stops at nodes × 8 with "cannot allocate all claims"',
      );
    if (growth.length)
      rec.note(
        'plan growth: one plan per node count, timed from its 100th replica to each checkpoint (size = replicas placed); growth k ≈ 1 is linear',
      );
    const threads = opts.args.threads ? Number(opts.args.threads) : os.availableParallelism();
    const pool = new PlannerPool({ threads });
    rec.note(
      `pool: ${threads} worker threads on ${os.availableParallelism()} cores; each task = one what-if plan of ≤ 300 replicas`,
    );
    try {
      for (const size of opts.sizes ?? (opts.quick ? suite.quickSizes : suite.defaultSizes)) {
        const tasks = sweepTasks(size, opts.seed);
        // one untimed pass each: JIT, WASM instantiation in the workers, and a check that they agree
        const a = JSON.stringify(await Promise.all(tasks.map(runPoolTask)));
        const b = JSON.stringify(await pool.runAll(tasks));
        if (a !== b) throw new Error(`pool and single-thread results differ at ${size} nodes`);
        const iterations = opts.quick ? 2 : 3;
        const single = await rec.measure(
          'what-if sweep',
          async () => {
            for (const t of tasks) await runPoolTask(t);
          },
          { mode: 'single thread', size, units: tasks.length, unit: 'plans', iterations, timeMs: 1 },
        );
        const pooled = await rec.measure('what-if sweep', () => pool.runAll(tasks), {
          mode: `pool ×${threads}`,
          size,
          units: tasks.length,
          unit: 'plans',
          iterations,
          timeMs: 1,
        });
        if (single.throughput && pooled.throughput) {
          rec.figure(
            'pool speedup',
            { speedup: pooled.throughput / single.throughput, tasks: tasks.length, threads },
            { size },
          );
        }
      }
    } finally {
      await pool.close();
    }
  },
};

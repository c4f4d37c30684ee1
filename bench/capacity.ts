/**
 * `kubesim bench capacity`: independent capacity runs (a what-if sweep of 8 plans: base, each zone
 * lost, nodes added, nodes removed, nodes cordoned) on one thread versus the piscina pool, side by side in one run. Each task plans up
 * to 300 replicas of a 500m/1Gi shape on a generated cluster. The pool's figure includes
 * msgpackr-encoding the cluster into every task, as real sweeps pay it.
 */
import type { BenchSuite } from './harness.js';
import { generateCluster } from '../src/sim/cluster-gen.js';
import type { ClusterFile } from '../src/scheduler/framework/cluster-file.js';
import type { Pod } from '../src/api/types.js';
import { runPoolTask, type PoolTask } from '../src/capacity/pool-tasks.js';
import { PlannerPool } from '../src/capacity/pool.js';
import os from 'node:os';

const shape: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'bench-shape', namespace: 'default' },
  spec: {
    containers: [{ name: 'c', image: 'app:1', resources: { requests: { cpu: '500m', memory: '1Gi' } } }],
  },
};

function sweepTasks(nodes: number, seed: number): PoolTask[] {
  const g = generateCluster({ seed, nodes });
  const cluster: ClusterFile = {
    sources: new Map(),
    nodes: g.nodes,
    boundPods: g.pods.filter((p) => p.spec.nodeName),
    pendingPods: [],
    services: [],
    replicaSets: [],
    others: [],
    namespaces: [],
  };
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
  options: [{ flags: '--threads <n>', description: 'pool threads (default: cores)' }],
  async run(opts, rec) {
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

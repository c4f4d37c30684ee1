/**
 * `kubesim bench shard`: one cluster's node scan sharded across threads (src/scheduler/shard) against
 * the single-thread full scan, same pods, side by side, and where sharding starts to pay.
 *
 * Per size: a seeded cluster (src/sim/cluster-gen.ts) is loaded twice — into a plain NodeTable for the
 * single-thread run (ReferenceScheduler: the engine's WasmKernel, full scan, merge + selectHost) and
 * into a SharedArrayBuffer-backed one for the sharded run (ShardedScheduler: K windows, the calling
 * thread scans window 0, K−1 workers the rest, same merge + selectHost). Each iteration schedules a
 * batch of mixed pods (compile + scan + merge + select + assume) and then forgets them, so every
 * iteration and mode sees the same cluster. Before timing, the first batch is placed by both modes
 * and the placements compared (figure `placementsDiffering`, expected 0).
 *
 * Also timed: the scan alone (one compiled pod, evaluate() repeated: kernel + merge, no compile or
 * assume), the part that sharding parallelizes. `crossover` = the smallest size from which sharded
 * pods/s beat single-thread pods/s at it and every larger size in this run (−1 if none).
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { BenchOptions, BenchRecorder, BenchSuite } from './harness.js';
import { generateCluster, generatePods, type GeneratedCluster } from '../src/sim/cluster-gen.js';
import { NodeTable } from '../src/scheduler/engine/table.js';
import { compilePod } from '../src/scheduler/engine/podquery.js';
import { ReferenceScheduler, ShardedScheduler } from '../src/scheduler/shard/index.js';
import type { Pod } from '../src/api/types.js';

interface Mode {
  name: string;
  table: NodeTable;
  schedule(pod: Pod): string | undefined;
  evaluate(pod: Pod): number;
  close(): Promise<void>;
}

function load(cluster: GeneratedCluster, shared: boolean): NodeTable {
  const t = new NodeTable({ initialCapacity: cluster.nodes.length, sharedMemory: shared });
  for (const n of cluster.nodes) t.addNode(n);
  for (const p of cluster.pods) t.addPod(p);
  return t;
}

/** Schedules a batch with assume, then forgets it. */
function runBatch(
  m: Mode,
  pods: Pod[],
  from: number,
  batch: number,
  placements?: (string | undefined)[],
): void {
  const assumed: string[] = [];
  for (let b = 0; b < batch; b++) {
    const pod = pods[(from + b) % pods.length];
    const node = m.schedule(pod);
    placements?.push(node);
    if (node !== undefined) assumed.push(`${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`);
  }
  for (const k of assumed) m.table.removePod(k);
}

const BUSY_LOOP = `const { parentPort } = require('node:worker_threads');
let x = 0; const t = performance.now();
for (let i = 0; i < 1e8; i++) x += i % 7;
parentPort.postMessage([performance.now() - t, x]);`;

/** Wall ms for k threads each running the same fixed CPU loop at once (measures the cores this process really gets). */
async function busyThreads(k: number): Promise<number> {
  const t = performance.now();
  await Promise.all(
    Array.from(
      { length: k },
      () =>
        new Promise<void>((resolve, reject) => {
          const w = new Worker(BUSY_LOOP, { eval: true });
          w.once('message', () => {
            void w.terminate();
            resolve();
          });
          w.once('error', reject);
        }),
    ),
  );
  return performance.now() - t;
}

export const suite: BenchSuite = {
  name: 'shard',
  description:
    'one cluster sharded across worker threads over shared memory vs the single-thread full scan (pods/s, crossover)',
  sizeUnit: 'nodes',
  defaultSizes: [5000, 20000, 50000],
  quickSizes: [2000],
  options: [
    {
      flags: '--shards <n>',
      description: 'windows (threads incl. the calling one) for the sharded mode',
      default: '2',
    },
    {
      flags: '--workers-only',
      description: 'also run the sharded mode with K workers and an idle calling thread',
    },
    {
      flags: '--spin <n>',
      description: 'polls of the control word before a worker sleeps (ShardOptions.spin)',
      default: '2000',
    },
    {
      flags: '--wake-spin <n>',
      description:
        'polls for the job after the pre-wake at the start of schedule(); 0 = no pre-wake (ShardOptions.wakeSpin)',
      default: '0',
    },
  ],
  async run(opts: BenchOptions, rec: BenchRecorder) {
    const sizes = opts.sizes ?? (opts.quick ? this.quickSizes : this.defaultSizes);
    const shards = Number(opts.args.shards ?? 2);
    if (!Number.isInteger(shards) || shards < 1)
      throw new Error(`--shards must be a positive integer, got ${opts.args.shards}`);
    const timeMs = opts.quick ? Math.min(opts.timeMs, 500) : opts.timeMs;
    const spin = Number(opts.args.spin ?? 2000);
    if (!Number.isInteger(spin) || spin < 0)
      throw new Error(`--spin must be a non-negative integer, got ${opts.args.spin}`);
    const wakeSpin = Number(opts.args['wake-spin'] ?? opts.args.wakeSpin ?? 0);
    if (!Number.isInteger(wakeSpin) || wakeSpin < 0)
      throw new Error(
        `--wake-spin must be a non-negative integer, got ${opts.args['wake-spin'] ?? opts.args.wakeSpin}`,
      );
    // how much parallel CPU this process gets right now: the same loop in 1 and in `shards` threads
    {
      const one = await busyThreads(1);
      const many = await busyThreads(shards);
      rec.figure('machine parallelism', {
        oneThreadMs: Math.round(one),
        threadsMs: Math.round(many),
        threads: shards,
        effectiveCores: Math.round(((shards * one) / many) * 100) / 100,
        loadAvg1m: Math.round(os.loadavg()[0] * 10) / 10,
      });
    }
    // the fixed cost of one sharded scan: a 64-node cluster, where the kernel work is negligible
    {
      const tiny = generateCluster({ seed: opts.seed, nodes: 64 });
      const t = load(tiny, true);
      const pod = generatePods({ seed: opts.seed + 1, count: 1, cluster: tiny })[0];
      try {
        const s = await ShardedScheduler.start(t, { shards, seed: opts.seed, spin });
        try {
          const q = compilePod(t, pod);
          await rec.measure('hand-off round trip', () => s.evaluate(q), {
            mode: `sharded-${shards}`,
            size: 64,
            unit: 'scans',
            timeMs: Math.min(timeMs, 500),
          });
        } finally {
          await s.close();
        }
      } catch (e) {
        rec.skip('hand-off round trip', (e as Error).message, { mode: `sharded-${shards}`, size: 64 });
      }
    }
    /** per size: did sharded beat single-thread pods/s */
    const wins: [number, boolean][] = [];
    for (const size of sizes) {
      opts.progress(`generating a ${size}-node cluster (seed ${opts.seed})`);
      const cluster = generateCluster({ seed: opts.seed, nodes: size });
      const pods = generatePods({ seed: opts.seed + 1, count: 400, cluster });
      // a batch takes ~0.1–0.5 s at every size (a full scan costs ~size × 0.2 µs per pod)
      const batch = Math.max(10, Math.min(100, Math.round(2_000_000 / size)));
      const modes: Mode[] = [];
      const single = load(cluster, false);
      const ref = new ReferenceScheduler(single, { seed: opts.seed });
      modes.push({
        name: 'single',
        table: single,
        schedule: (p) => ref.schedule(p),
        evaluate: (p) => ref.evaluate(compilePod(single, p)),
        close: async () => {},
      });
      const variants: [string, boolean][] = [[`sharded-${shards}`, true]];
      if (opts.args['workers-only'] || opts.args.workersOnly)
        variants.push([`sharded-${shards}-workers`, false]);
      for (const [name, useMainThread] of variants) {
        const t = load(cluster, true);
        try {
          const s = await ShardedScheduler.start(t, {
            shards,
            seed: opts.seed,
            useMainThread,
            spin,
            wakeSpin,
          });
          modes.push({
            name,
            table: t,
            schedule: (p) => s.schedule(p),
            evaluate: (p) => s.evaluate(compilePod(t, p)),
            close: () => s.close(),
          });
        } catch (e) {
          rec.skip('schedule full-scan', (e as Error).message, { mode: name, size });
        }
      }
      try {
        rec.figure(
          'cluster',
          { nodes: single.size, runningPods: single.podCount, batch, cores: os.availableParallelism() },
          { size },
        );
        // exactness on the benchmark's own data: the first batch placed by every mode
        const want: (string | undefined)[] = [];
        runBatch(modes[0], pods, 0, batch, want);
        for (const m of modes.slice(1)) {
          const got: (string | undefined)[] = [];
          runBatch(m, pods, 0, batch, got);
          rec.figure(
            'placements vs single',
            { placementsDiffering: got.filter((g, i) => g !== want[i]).length, pods: batch },
            { mode: m.name, size },
          );
        }
        // the same batches with the modes ALTERNATING (A B A B …): load drift and the first major GCs
        // after loading the cluster hit both modes alike; the median of the per-round pods/s is recorded.
        // Run first, so it also warms both modes up before the sequential tinybench tasks below.
        const rounds = opts.quick ? 3 : 7;
        const perRound: Record<string, number[]> = {};
        for (let r = 0; r < rounds; r++) {
          for (const m of modes) {
            const t0 = performance.now();
            runBatch(m, pods, (r * batch) % pods.length, batch);
            (perRound[m.name] ??= []).push((batch * 1000) / (performance.now() - t0));
          }
        }
        const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
        for (const m of modes) {
          const med = median(perRound[m.name]);
          rec.figure(
            'schedule full-scan interleaved',
            {
              medianPodsPerSec: Math.round(med),
              ...(m.name === 'single'
                ? {}
                : { speedup: Math.round((med / median(perRound.single)) * 100) / 100 }),
              rounds,
              loadAvg1m: Math.round(os.loadavg()[0] * 10) / 10,
            },
            { mode: m.name, size },
          );
        }
        const tp: Record<string, number> = {};
        for (const m of modes) {
          let next = 0;
          let podsDone = 0;
          const cpu0 = process.cpuUsage();
          const r = await rec.measure(
            'schedule full-scan',
            () => {
              runBatch(m, pods, next, batch);
              next = (next + batch) % pods.length;
              podsDone += batch;
            },
            { mode: m.name, size, units: batch, unit: 'pods', timeMs, iterations: 3 },
          );
          const cpu = process.cpuUsage(cpu0); // process-wide: includes the worker threads
          if (r.state === 'completed' && r.throughput) {
            tp[m.name] = r.throughput;
            r.figures = {
              cpuMsPerPod: Math.round(((cpu.user + cpu.system) / 1000 / Math.max(1, podsDone)) * 1000) / 1000,
              loadAvg1m: Math.round(os.loadavg()[0] * 10) / 10,
            };
          }
        }
        for (const m of modes.slice(1)) {
          if (tp[m.name] && tp.single)
            rec.figure(
              'schedule full-scan speedup',
              { ratio: Math.round((tp[m.name] / tp.single) * 100) / 100 },
              { mode: m.name, size },
            );
        }
        // the crossover uses the interleaved medians (less exposed to load drift than sequential tasks)
        const shardedMed = perRound[`sharded-${shards}`] ? median(perRound[`sharded-${shards}`]) : 0;
        wins.push([size, shardedMed > median(perRound.single)]);
        // the scan alone (kernel + merge over one compiled pod), the part that runs in parallel
        for (const m of modes) {
          const pod = pods[0];
          await rec.measure(
            'scan only',
            () => {
              for (let i = 0; i < 10; i++) m.evaluate(pod);
            },
            {
              mode: m.name,
              size,
              units: 10,
              unit: 'scans',
              timeMs: Math.max(200, timeMs / 2),
              iterations: 3,
            },
          );
        }
      } finally {
        for (const m of modes) await m.close();
      }
    }
    // the smallest size from which sharded wins at that size and every larger one measured
    wins.sort((a, b) => a[0] - b[0]);
    let crossover = -1;
    for (let i = wins.length - 1; i >= 0 && wins[i][1]; i--) crossover = wins[i][0];
    rec.figure('crossover', { nodes: crossover, shards, spin, wakeSpin });
    rec.note(
      `crossover: smallest size from which sharded ×${shards} beat single-thread (median pods/s of the interleaved rounds) at it and every larger size in this run (-1: none); it moves with machine load — sharding needs a core that is free when the pod arrives`,
    );
    rec.note(
      'each iteration: a batch of mixed pods, each compiled, scanned over every node (full scan), merged, selected and assumed; the batch is then forgotten',
    );
    rec.note(
      `machine parallelism: a fixed CPU loop run in 1 and in ${shards} threads at once; effectiveCores = ${shards} × t1 / t${shards} (${shards} on an idle machine, ~1 when other processes already use every core — then sharding cannot pay)`,
    );
    rec.note(
      'cpuMsPerPod is process CPU time (all threads) per pod: the price of sharding in CPU; loadAvg1m is the machine load when the row finished',
    );
  },
};

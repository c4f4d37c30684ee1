/**
 * `kubesim bench scheduler`: the scheduler engine — compile a pod (PreFilter/PreScore work), run
 * every node-local filter and score plugin of the default profile over the NodeTable in one kernel
 * call, pick the highest total, assume the pod on that node (incremental NodeTable update) — for
 * the js and wasm kernels side by side, with a full scan and with upstream's adaptive
 * percentageOfNodesToScore (numFeasibleNodesToFind: 1,000 nodes → 420, 5,000 → 500, 15,000 → 750).
 *
 * Each iteration schedules a batch of pods from a seeded pending list and then forgets the assumed
 * pods, so the cluster state is the same for every iteration and every mode. Throughput is pods/s;
 * node-evaluations/s counts nodes processed by the kernel (filtered or feasible) per second.
 */
import type { BenchOptions, BenchRecorder, BenchSuite } from './harness.js';
import { generateCluster, generatePods } from '../src/sim/cluster-gen.js';
import { NodeTable } from '../src/scheduler/engine/table.js';
import { compilePod } from '../src/scheduler/engine/podquery.js';
import { resolveScoring } from '../src/scheduler/engine/scoring.js';
import { JsKernel } from '../src/scheduler/engine/js.js';
import { WasmKernel } from '../src/scheduler/engine/wasm.js';
import { KernelOutput } from '../src/scheduler/engine/output.js';
import type { Kernel } from '../src/scheduler/engine/types.js';
import { numFeasibleNodesToFind } from '../src/scheduler/engine/types.js';
import type { Pod } from '../src/api/types.js';
import os from 'node:os';

/** pods per iteration of the engine loop (`runBatch`) */
export const BATCH = 200;

export interface Setup {
  table: NodeTable;
  pending: Pod[];
  /** pods with requests and images only (no selectors/affinity/tolerations): the adaptive window's best case */
  uniform: Pod[];
  out: KernelOutput;
}

export function buildSetup(nodes: number, seed: number): Setup {
  const cluster = generateCluster({ seed, nodes });
  const table = new NodeTable({ initialCapacity: nodes });
  for (const n of cluster.nodes) table.addNode(n);
  for (const p of cluster.pods) table.addPod(p);
  const pending = generatePods({ seed: seed + 1, count: 2000, cluster });
  const uniform = generatePods({
    seed: seed + 2,
    count: 2000,
    cluster,
    constraints: false,
    prefix: 'uniform',
  });
  return { table, pending, uniform, out: new KernelOutput(table) };
}

/** One batch: compile, filter+score, select, assume; then forget the batch. Returns nodes processed. */
export function runBatch(
  s: Setup,
  kernel: Kernel<NodeTable, ReturnType<typeof compilePod>, KernelOutput>,
  adaptive: boolean,
  cursor: { next: number; start: number },
  pending: Pod[],
): number {
  const { table, out } = s;
  const scoring = resolvedDefault;
  const assumed: Pod[] = [];
  let processed = 0;
  for (let b = 0; b < BATCH; b++) {
    const pod = pending[cursor.next];
    cursor.next = (cursor.next + 1) % pending.length;
    const q = compilePod(table, pod, scoring);
    const n = kernel.filterAndScore(table, q, out, {
      start: cursor.start,
      numNodesToFind: adaptive ? numFeasibleNodesToFind(undefined, table.size) : undefined,
      output: 'total',
    });
    processed += n;
    cursor.start = (cursor.start + n) % table.size;
    if (out.feasibleCount === 0) continue;
    // the kernel's own selection: the first node with the highest total (selectHost without ties)
    const best = out.bestSlot;
    const bound: Pod = {
      ...pod,
      metadata: { ...pod.metadata, name: `${pod.metadata.name}-b${b}` },
      spec: { ...pod.spec, nodeName: table.nodeName(best) },
    };
    table.addPod(bound, q.accounting); // assume reuses the requests compilePod computed
    assumed.push(bound);
  }
  for (const p of assumed) table.removePod(p);
  return processed;
}

const resolvedDefault = resolveScoring();

export const suite: BenchSuite = {
  name: 'scheduler',
  description:
    'scheduler engine: compile + filter/score (default plugins) + assume per pod, js vs wasm kernels, full scan and adaptive sampling',
  sizeUnit: 'nodes',
  defaultSizes: [1000, 5000, 15000],
  quickSizes: [1000],
  options: [{ flags: '--kernels <list>', description: 'kernels to run (js,wasm)', default: 'js,wasm' }],
  async run(opts: BenchOptions, rec: BenchRecorder) {
    const sizes = opts.sizes ?? (opts.quick ? this.quickSizes : this.defaultSizes);
    const kernels: Kernel<NodeTable, ReturnType<typeof compilePod>, KernelOutput>[] = [];
    const wanted = String(opts.args.kernels ?? 'js,wasm').split(',');
    if (wanted.includes('js')) kernels.push(new JsKernel());
    if (wanted.includes('wasm')) kernels.push(new WasmKernel());
    for (const size of sizes) {
      opts.progress(`generating a ${size}-node cluster (seed ${opts.seed})`);
      const s = buildSetup(size, opts.seed);
      rec.figure(
        'cluster',
        {
          nodes: s.table.size,
          runningPods: s.table.podCount,
          numFeasibleNodesToFind: numFeasibleNodesToFind(undefined, s.table.size),
          memoryBytes: s.table.mem.used,
        },
        { size },
      );
      for (const [adaptive, workload] of [
        [false, 'mixed'],
        [true, 'mixed'],
        [true, 'uniform'],
      ] as const) {
        const name =
          (adaptive ? 'schedule adaptive' : 'schedule full-scan') +
          (workload === 'uniform' ? ' uniform-pods' : '');
        const pods0 = workload === 'uniform' ? s.uniform : s.pending;
        const tp: Record<string, number> = {};
        for (const k of kernels) {
          const cursor = { next: 0, start: 0 };
          let pods = 0;
          let nodesProcessed = 0;
          const cpu0 = process.cpuUsage();
          const r = await rec.measure(
            name,
            () => {
              nodesProcessed += runBatch(s, k, adaptive, cursor, pods0);
              pods += BATCH;
            },
            { mode: k.name, size, units: BATCH, unit: 'pods' },
          );
          const cpu = process.cpuUsage(cpu0);
          if (r.state === 'completed' && r.throughput) {
            const perPod = nodesProcessed / Math.max(1, pods);
            const cpuSec = (cpu.user + cpu.system) / 1e6;
            // CPU time of this process (warm-up included on both sides): less sensitive to a loaded machine than wall time
            r.figures = {
              nodesPerPod: Math.round(perPod),
              nodeEvaluationsPerSec: Math.round(r.throughput * perPod),
              cpuPodsPerSec: Math.round(pods / cpuSec),
              loadAvg1m: Math.round(os.loadavg()[0] * 10) / 10,
            };
            tp[k.name] = r.throughput;
          }
        }
        if (tp.js && tp.wasm)
          rec.figure(`${name} wasm/js`, { ratio: Math.round((tp.wasm / tp.js) * 100) / 100 }, { size });
      }
      // compile alone (PreFilter/PreScore work): fresh pod objects, so no per-object caching helps
      let ci = 0;
      await rec.measure(
        'compile',
        () => {
          for (let b = 0; b < BATCH; b++)
            compilePod(s.table, { ...s.pending[ci++ % s.pending.length] }, resolvedDefault);
        },
        { size, units: BATCH, unit: 'pods' },
      );
      // the kernel alone (no compile, no assume): one compiled pod, repeated
      const q = compilePod(s.table, s.pending[0], resolvedDefault);
      const kernelTp: Record<string, number> = {};
      for (const k of kernels) {
        let calls = 0;
        const cpu0 = process.cpuUsage();
        const r = await rec.measure(
          'kernel full-scan',
          () => {
            k.filterAndScore(s.table, q, s.out);
            calls++;
          },
          { mode: k.name, size, units: size, unit: 'node-evaluations' },
        );
        const cpu = process.cpuUsage(cpu0);
        if (r.state === 'completed' && r.throughput) {
          r.figures = {
            cpuNsPerNode:
              Math.round((((cpu.user + cpu.system) * 1000) / Math.max(1, calls * size)) * 10) / 10,
          };
          kernelTp[k.name] = r.throughput;
        }
      }
      if (kernelTp.js && kernelTp.wasm)
        rec.figure(
          'kernel full-scan wasm/js',
          { ratio: Math.round((kernelTp.wasm / kernelTp.js) * 100) / 100 },
          { size },
        );
    }
    rec.note(
      "batch of 200 pods per iteration; compile (PreFilter) + one kernel call (output 'total': totals and the first best node, no per-plugin columns) + assume (NodeTable.addPod), then the batch is forgotten; 'kernel full-scan' writes every column (output 'all')",
    );
    rec.note(
      'mixed pods: ~10% best-effort, 5% GPU, 10% spot-tolerant, 20% pool nodeSelector, ~20% required node affinity, 25% preferred, 3% host ports; uniform-pods: requests + images only',
    );
    rec.note(
      'adaptive = upstream numFeasibleNodesToFind with percentageOfNodesToScore 0 (stop after that many feasible nodes, rotating the start index)',
    );
  },
};

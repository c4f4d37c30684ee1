/**
 * `kubesim bench scheduler-framework`: the whole scheduling cycle as kube-scheduler runs it —
 * PreFilter, Filter (kernel window or per-node path), PreScore/Score/NormalizeScore for every
 * score plugin of the default profile (node-local plugins from the kernel + PodTopologySpread +
 * InterPodAffinity), selectHost, Reserve, assume — per pod, js vs wasm kernels.
 *
 * Two workloads: "plain" (generated pods; PodTopologySpread/InterPodAffinity skip at PreFilter, so
 * the kernel runs upstream's sampling window in one call) and "spread" (every pod carries a zone
 * topology spread constraint and a preferred anti-affinity, so the framework filters per node and
 * scores the cross-pod plugins). Each iteration schedules a batch and then forgets it.
 *
 * The plain cycle with a user plugin, trusted vs contained, is the scheduler-plugins suite
 * (bench/scheduler-plugins.ts).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { BenchOptions, BenchRecorder, BenchResult, BenchSuite } from './harness.js';
import { generateCluster, generatePods } from '../src/sim/cluster-gen.js';
import { SchedulerCore } from '../src/scheduler/scheduler.js';
import type { Pod } from '../src/api/types.js';
import { WasmKernel } from '../src/scheduler/engine/wasm.js';
import { BATCH as ENGINE_BATCH, buildSetup, runBatch } from './scheduler.js';

const BATCH = 50;
/**
 * Pods each loop schedules before it is timed (tinybench's own warm-up is 250 ms, which a loaded
 * machine turns into a few hundred pods): the engine's 2,000 pending pods once each, every cycle
 * pod five times — the first sight of a pod (compile, parsed terms, domain masks) costs ~20× a
 * steady cycle, and the rows compare steady states.
 */
const WARMUP_PODS = 2000;

function spreadPods(pods: Pod[]): Pod[] {
  return pods.map((p, i) => ({
    ...p,
    metadata: { ...p.metadata, labels: { ...(p.metadata.labels ?? {}), app: `svc-${i % 20}` } },
    spec: {
      ...p.spec,
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: 'topology.kubernetes.io/zone',
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: { app: `svc-${i % 20}` } },
        },
      ],
      affinity: {
        ...(p.spec.affinity ?? {}),
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 50,
              podAffinityTerm: {
                labelSelector: { matchLabels: { app: `svc-${i % 20}` } },
                topologyKey: 'kubernetes.io/hostname',
              },
            },
          ],
        },
      },
    },
  }));
}

/** The plain or spread cycle loop: a batch of pods scheduled and assumed, then forgotten. */
function cycleLoop(core: SchedulerCore, pods: Pod[], counts: { scheduled: number; attempts: number }) {
  let next = 0;
  return () => {
    const assumed: Pod[] = [];
    for (let b = 0; b < BATCH; b++) {
      const pod = pods[next];
      next = (next + 1) % pods.length;
      const out = core.schedule(pod);
      counts.attempts++;
      if (out.kind === 'scheduled' && core.reserveAndAssume(out) === null) {
        assumed.push(pod);
        counts.scheduled++;
      }
    }
    for (const p of assumed) core.forget(p);
  };
}

export const suite: BenchSuite = {
  name: 'scheduler-framework',
  description:
    'full scheduling cycle per pod (framework + kernels + cross-pod plugins): js vs wasm, plain vs topology-spread workloads, ÷ the engine loop in the same run',
  sizeUnit: 'nodes',
  defaultSizes: [1000, 5000],
  quickSizes: [1000],
  options: [{ flags: '--kernels <list>', description: 'kernels to run (js,wasm)', default: 'js,wasm' }],
  async run(opts: BenchOptions, rec: BenchRecorder): Promise<void> {
    const kernels = (['js', 'wasm'] as const).filter((k) =>
      String(opts.args.kernels ?? 'js,wasm')
        .split(',')
        .includes(k),
    );
    for (const size of opts.sizes ?? (opts.quick ? this.quickSizes : this.defaultSizes)) {
      const cluster = generateCluster({ seed: opts.seed, nodes: size });
      const plain = generatePods({ seed: opts.seed + 1, count: 400, cluster });
      const workloads: [string, Pod[]][] = [
        ['plain', plain],
        ['spread', spreadPods(plain)],
      ];
      for (const kernel of kernels) {
        // everything this kernel's rows use is built first and kept until the last of them is
        // measured, and the heap is collected before each timed loop: no row pays for collecting
        // another's garbage (the cluster built for an earlier row, ~100 MB at 5,000 nodes)
        const cores = workloads.map(
          () => new SchedulerCore({ nodes: cluster.nodes, pods: cluster.pods, kernel, seed: opts.seed }),
        );
        // the engine loop of `bench scheduler` (schedule adaptive, mixed pods, wasm) on its own
        // NodeTable of the same cluster, measured in this process right before the cycles it is
        // compared with: same heap, same JIT state, same warm-up, so the ratio rows are side by
        // side (issue 30's measure)
        const engine = kernel === 'wasm' ? await measureEngine(opts, rec, size) : undefined;
        for (let w = 0; w < workloads.length; w++) {
          const [wl, pods] = workloads[w];
          const counts = { scheduled: 0, attempts: 0 };
          const loop = cycleLoop(cores[w], pods, counts);
          for (let i = 0; i < WARMUP_PODS / BATCH; i++) loop();
          const r = await withCpu(
            () =>
              rec.measure(`cycle ${wl}`, loop, {
                mode: kernel,
                size,
                units: BATCH,
                unit: 'pods',
              }),
            () => counts.attempts - WARMUP_PODS,
          );
          rec.notes.push(`${wl}/${kernel}/${size}: ${counts.scheduled}/${counts.attempts} attempts placed`);
          if (engine) {
            const q = rec.ratio(`cycle ${wl} ÷ engine adaptive`, r, engine, { mode: kernel, size });
            const [a, b] = [r.figures?.cpuPodsPerSec, engine.figures?.cpuPodsPerSec];
            if (q.state === 'completed' && a && b) q.figures = { cpu: Math.round((a / b) * 100) / 100 };
          }
        }
      }
    }
    rec.note(
      "engine adaptive: `bench scheduler`'s loop (schedule adaptive, mixed pods, batches of 200: compile + one kernel call + NodeTable assume, then forget), measured right before the wasm cycles; 'cycle … ÷ engine adaptive' is their throughput ratio",
    );
  },
};

/** `bench scheduler`'s `schedule adaptive` row (wasm, mixed pods) on this size's cluster. */
async function measureEngine(opts: BenchOptions, rec: BenchRecorder, size: number) {
  const s = buildSetup(size, opts.seed);
  const kernel = new WasmKernel();
  const cursor = { next: 0, start: 0 };
  for (let i = 0; i < WARMUP_PODS / ENGINE_BATCH; i++) runBatch(s, kernel, true, cursor, s.pending);
  let pods = 0;
  return withCpu(
    () =>
      rec.measure(
        'engine adaptive',
        () => {
          runBatch(s, kernel, true, cursor, s.pending);
          pods += ENGINE_BATCH;
        },
        { mode: 'wasm', size, units: ENGINE_BATCH, unit: 'pods' },
      ),
    () => pods,
  );
}

let gc: (() => void) | undefined;

/** A full garbage collection (V8's gc(), exposed for this process once). */
function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}

/**
 * Runs a measurement (after a full garbage collection) and adds its pods per second of this process's CPU time (warm-up included,
 * worker and GC threads counted): the figure that a loaded machine distorts least.
 */
async function withCpu(measure: () => Promise<BenchResult>, pods: () => number): Promise<BenchResult> {
  collectGarbage();
  const cpu0 = process.cpuUsage();
  const r = await measure();
  const cpu = process.cpuUsage(cpu0);
  if (r.state === 'completed')
    r.figures = { ...r.figures, cpuPodsPerSec: Math.round(pods() / ((cpu.user + cpu.system) / 1e6)) };
  return r;
}

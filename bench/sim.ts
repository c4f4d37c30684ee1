/**
 * `kubesim bench sim`: the discrete-event simulation end to end (in-memory store, ApiServer,
 * controllers, the kube-scheduler model, the kubelet fleet) on the built-in demo scenario
 * (src/sim/demo.ts: ~1.3 pods per node in 5 Deployments behind Services, scale-up, rolling
 * update, node failure, zone outage and recovery), one run per cluster size.
 *
 * The simulation is deterministic for a seed, so every run of a size does the same work: the row's
 * cost is the CPU time (user + system, V8's GC threads included) of the fastest of a few runs —
 * CPU time moves less than wall time when other work shares the machine, which is what a
 * regression check against a baseline needs — and its throughput virtual seconds per CPU second.
 * Virtual seconds per wall second, the figure a user feels, is kept beside it. The growth fit over
 * the sizes shows whether the cost of a simulated minute grows linearly with the cluster (k ≈ 1)
 * or faster.
 */
import type { BenchOptions, BenchRecorder, BenchSuite } from './harness.js';
import { demoScenario } from '../src/sim/demo.js';
import { simulate } from '../src/sim/simulation.js';

/** virtual minutes per run: enough for the scale-up, the rolling update and the node failure */
const DEFAULT_MINUTES = 6;
const QUICK_MINUTES = 3;

export const suite: BenchSuite = {
  name: 'sim',
  description:
    'the simulation end to end on the built-in demo scenario: virtual seconds per wall second and its growth with the cluster size',
  sizeUnit: 'nodes',
  defaultSizes: [250, 500, 1000, 2000],
  quickSizes: [60, 120, 240],
  options: [
    {
      flags: '--minutes <n>',
      description: `virtual minutes per run (default ${DEFAULT_MINUTES}; --quick ${QUICK_MINUTES})`,
    },
  ],
  async run(opts: BenchOptions, rec: BenchRecorder): Promise<void> {
    const minutes =
      opts.args.minutes !== undefined
        ? Number(opts.args.minutes)
        : opts.quick
          ? QUICK_MINUTES
          : DEFAULT_MINUTES;
    if (!(minutes > 0)) throw new Error(`--minutes: "${opts.args.minutes}" is not a positive number`);
    const runs = opts.quick ? 2 : 3;
    const sizes = opts.sizes ?? (opts.quick ? this.quickSizes : this.defaultSizes);
    // a first, unrecorded run compiles the code paths (JIT, the WASM kernel), so the smallest size
    // is not charged for them and the growth fit reads the simulation's own cost
    rec.opts.progress('warm-up', sizes[0]);
    await simulate(demoScenario({ nodes: sizes[0], seed: opts.seed, durationMs: 60_000 }), {
      seed: opts.seed,
    });
    for (const nodes of sizes) {
      rec.opts.progress(`demo ${nodes} nodes, ${minutes} virtual min`, nodes);
      const scenario = demoScenario({ nodes, seed: opts.seed, durationMs: minutes * 60_000 });
      let cpuMs = Infinity;
      let wallMs = 0;
      let r: Awaited<ReturnType<typeof simulate>> | undefined;
      for (let i = 0; i < runs; i++) {
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        r = await simulate(scenario, { seed: opts.seed });
        const wall = performance.now() - t0;
        const cpu = process.cpuUsage(cpu0);
        const ms = (cpu.user + cpu.system) / 1000;
        if (ms < cpuMs) {
          cpuMs = ms;
          wallMs = wall;
        }
      }
      if (!r) continue;
      rec.timing('demo CPU time', cpuMs, {
        mode: 'kube-scheduler model',
        size: nodes,
        units: r.durationS,
        unit: 'virtual s',
        figures: {
          virtualSecondsPerWallSecond: r.durationS / (wallMs / 1000),
          apiRequestsPerWallSecond: r.api.requests / (wallMs / 1000),
          podsCreated: r.pods.created,
          podsRunningAtEnd: r.pods.runningAtEnd,
          heapUsedMB: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
          runs,
        },
      });
    }
    rec.note(
      `sim: the built-in demo scenario, ${minutes} virtual minutes, the fastest of ${runs} runs per size; throughput is virtual seconds per CPU second (virtual seconds per wall second beside it)`,
    );
  },
};

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
 *
 * Then the scale envelope (src/sim/envelope.ts) at reduced sizes, three growth series whose
 * exponents CI's baseline check covers: the whole envelope shrunk (nodes, pods and Services in
 * the envelope's proportions; size = pods), pods at a fixed node count (size = pods) and nodes at
 * a fixed pod count (size = nodes). Cost is the CPU time of the fastest run, as above.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchOptions, BenchRecorder, BenchSuite } from './harness.js';
import { demoScenario } from '../src/sim/demo.js';
import { type EnvelopeShape, envelopeScenarioText, envelopeWorkloads } from '../src/sim/envelope.js';
import { loadScenario } from '../src/sim/scenario.js';
import type { Scenario } from '../src/sim/scenario-types.js';
import { simulate } from '../src/sim/simulation.js';

/** virtual minutes per run: enough for the scale-up, the rolling update and the node failure */
const DEFAULT_MINUTES = 6;
const QUICK_MINUTES = 3;

/** the envelope is 5,000 nodes and 10,000 Services of 15 replicas: these are its 1/k */
const ENVELOPE_FRACTIONS = [100, 50, 25];
const QUICK_ENVELOPE_FRACTIONS = [500, 250, 125];
const REPLICAS = 15;

/**
 * The three envelope series: [series name, size unit, shapes]. Pods grow at the middle
 * fraction's node count; nodes grow (ten times the fraction's, where a node's own cost — Lease
 * renewals, status — shows beside its pods) at the smallest fraction's pod count.
 */
function envelopeSeries(fractions: number[], duration: string): [string, string, EnvelopeShape[]][] {
  const shape = (nodes: number, services: number): EnvelopeShape => ({
    nodes,
    services,
    replicas: REPLICAS,
    duration,
  });
  const mid = fractions[1]!;
  const small = fractions[0]!;
  return [
    ['envelope CPU time', 'pods', fractions.map((k) => shape(5000 / k, 10000 / k))],
    ['pods CPU time (fixed nodes)', 'pods', fractions.map((k) => shape(5000 / mid, 10000 / k))],
    ['nodes CPU time (fixed pods)', 'nodes', fractions.map((k) => shape((10 * 5000) / k, 10000 / small))],
  ];
}

/** the CPU time (user + system) and wall time of the fastest of `runs` runs, and the last result */
async function fastest(scenario: Scenario, seed: number, runs: number) {
  let cpuMs = Infinity;
  let wallMs = 0;
  let r: Awaited<ReturnType<typeof simulate>> | undefined;
  for (let i = 0; i < runs; i++) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    r = await simulate(scenario, { seed });
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const ms = (cpu.user + cpu.system) / 1000;
    if (ms < cpuMs) {
      cpuMs = ms;
      wallMs = wall;
    }
  }
  return { cpuMs, wallMs, r: r! };
}

/** the envelope scenario of a shape, through the scenario file format `simulate` reads */
function envelopeScenario(shape: EnvelopeShape): Scenario {
  const dir = mkdtempSync(join(tmpdir(), 'kubesim-envelope-'));
  try {
    const items = envelopeWorkloads(shape.services, shape.replicas);
    writeFileSync(join(dir, 'workloads.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    writeFileSync(join(dir, 'envelope.yaml'), envelopeScenarioText(shape, 'workloads.json'));
    return loadScenario(join(dir, 'envelope.yaml'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

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
    {
      flags: '--envelope <list>',
      description: `the envelope's fractions 1/k to run, as k (default ${ENVELOPE_FRACTIONS.join(',')}; --quick ${QUICK_ENVELOPE_FRACTIONS.join(',')}), or none`,
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
      const { cpuMs, wallMs, r } = await fastest(scenario, opts.seed, runs);
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
    const fractions = parseFractions(opts.args.envelope, opts.quick);
    if (fractions.length === 0) return;
    const duration = opts.quick ? '1m' : '3m';
    for (const [name, sizeUnit, shapes] of envelopeSeries(fractions, duration)) {
      for (const shape of shapes) {
        const pods = shape.services * shape.replicas;
        const size = sizeUnit === 'pods' ? pods : shape.nodes;
        rec.opts.progress(`${name}: ${shape.nodes} nodes, ${pods} pods, ${duration}`, size);
        const { cpuMs, wallMs, r } = await fastest(envelopeScenario(shape), opts.seed, runs);
        rec.timing(name, cpuMs, {
          mode: 'envelope',
          size,
          sizeUnit,
          units: r.durationS,
          unit: 'virtual s',
          figures: {
            nodes: shape.nodes,
            services: shape.services,
            virtualSecondsPerWallSecond: r.durationS / (wallMs / 1000),
            apiRequests: r.api.requests,
            podsRunningAtEnd: r.pods.runningAtEnd,
            heapUsedMB: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
            runs,
          },
        });
      }
    }
    rec.note(
      `sim: the scale envelope at 1/${fractions.join(', 1/')} (${duration} each, the fastest of ${runs} runs): the whole envelope shrunk, pods at ${5000 / fractions[1]!} nodes, nodes at ${(10000 / fractions[0]!) * REPLICAS} pods; throughput is virtual seconds per CPU second`,
    );
  },
};

/** --envelope: fractions 1/k of the envelope as k (three, for the growth fits), or "none" */
function parseFractions(v: string | boolean | undefined, quick: boolean): number[] {
  if (v === undefined || v === true) return quick ? QUICK_ENVELOPE_FRACTIONS : ENVELOPE_FRACTIONS;
  if (v === 'none' || v === false) return [];
  const ks = String(v).split(',').map(Number);
  if (ks.length !== 3 || ks.some((k) => !Number.isInteger(k) || k <= 0 || 5000 % k !== 0))
    throw new Error(`--envelope: "${v}" is not three divisors k of 5000 (fractions 1/k of the envelope)`);
  return ks;
}

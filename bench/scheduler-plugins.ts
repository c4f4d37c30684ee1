/**
 * `kubesim bench scheduler-plugins`: the cost of containing user plugins
 * (src/scheduler/plugins/contained.ts): the plain cycle of `scheduler-framework` with one of the
 * example plugins added, run trusted in kubesim's thread (tsPlugin / wasmScorePlugin: what every
 * user plugin did before containment) and contained (loadUserPlugin: a worker per plugin, copies
 * of objects and node table), side by side, and their ratio (contained ÷ trusted) as a row of its
 * own, which CI's baseline check compares without the machine factor.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchOptions, BenchRecorder, BenchResult, BenchSuite } from './harness.js';
import type { Pod } from '../src/api/types.js';
import { generateCluster, generatePods, type GeneratedCluster } from '../src/sim/cluster-gen.js';
import { SchedulerCore } from '../src/scheduler/scheduler.js';
import type { PluginFactory } from '../src/scheduler/framework/types.js';
import {
  loadUserPlugin,
  tsPlugin,
  wasmScorePlugin,
  type LoadedUserPlugin,
  type ScorePluginDef,
} from '../src/scheduler/plugins/user.js';
import { importModule } from '../src/util/import-module.js';
import { packageRoot } from '../src/util/paths.js';

interface Example {
  label: string;
  /** the file, relative to the package root */
  file: string;
  trusted(): Promise<{ name: string; factory: PluginFactory; filter: boolean }>;
}

const jsExample = (label: string, file: string): Example => ({
  label,
  file,
  async trusted() {
    const def = (await importModule(join(packageRoot(), file))).default as ScorePluginDef;
    return { name: def.name, factory: tsPlugin(def), filter: typeof def.filter === 'function' };
  },
});

const EXAMPLES: Example[] = [
  jsExample('binpack.mjs (JS score)', 'examples/plugins/binpack.mjs'),
  jsExample('prefer-label (TS score+filter)', 'examples/plugins/prefer-label/index.ts'),
  {
    label: 'binpack.wasm (WASM score)',
    file: 'examples/plugins/wasm-binpack/build/binpack.wasm',
    async trusted() {
      const bytes = readFileSync(join(packageRoot(), this.file));
      return { name: 'binpack', factory: wasmScorePlugin('binpack', bytes), filter: false };
    },
  },
];

const BATCH = 50;

/** Measures `cycle plain + <example>` trusted vs contained at one size (wasm kernel), and the ratio. */
async function measurePluginContainment(
  opts: BenchOptions,
  rec: BenchRecorder,
  size: number,
  cluster: GeneratedCluster,
  pods: Pod[],
  batch: number,
): Promise<void> {
  for (const ex of EXAMPLES) {
    const rows: Partial<Record<'trusted' | 'contained', BenchResult>> = {};
    for (const mode of ['trusted', 'contained'] as const) {
      opts.progress(`${ex.label} ${mode}`, size);
      let loaded: LoadedUserPlugin | undefined;
      let plugin: { name: string; factory: PluginFactory; filter: boolean };
      if (mode === 'trusted') plugin = await ex.trusted();
      else {
        loaded = await loadUserPlugin(join(packageRoot(), ex.file));
        plugin = { name: loaded.name, factory: loaded.factory, filter: loaded.isFilter };
      }
      const core = new SchedulerCore({
        nodes: cluster.nodes,
        pods: cluster.pods,
        kernel: 'wasm',
        seed: opts.seed,
        outOfTree: new Map([[plugin.name, plugin.factory]]),
        extraScore: new Map([[plugin.name, 1]]),
        extraFilter: plugin.filter ? [plugin.name] : [],
      });
      let next = 0;
      try {
        rows[mode] = await rec.measure(
          `cycle plain + ${ex.label}`,
          () => {
            const assumed: Pod[] = [];
            for (let b = 0; b < batch; b++) {
              const pod = pods[next];
              next = (next + 1) % pods.length;
              const out = core.schedule(pod);
              if (out.kind === 'error') throw new Error(out.message);
              if (out.kind === 'scheduled' && core.reserveAndAssume(out) === null) assumed.push(pod);
            }
            for (const p of assumed) core.forget(p);
          },
          { mode, size, units: batch, unit: 'pods', figures: {} },
        );
      } finally {
        await loaded?.close();
      }
    }
    rec.ratio(`contained ÷ trusted: ${ex.label}`, rows.contained!, rows.trusted!, { size });
  }
}

export const suite: BenchSuite = {
  name: 'scheduler-plugins',
  description:
    'user plugins in the full scheduling cycle: each example plugin (JS, TS, WASM) run trusted vs contained in a worker, and the ratio',
  sizeUnit: 'nodes',
  defaultSizes: [1000, 5000],
  quickSizes: [1000],
  async run(opts: BenchOptions, rec: BenchRecorder): Promise<void> {
    for (const size of opts.sizes ?? (opts.quick ? this.quickSizes : this.defaultSizes)) {
      // the cluster and pods of scheduler-framework's plain workload
      const cluster = generateCluster({ seed: opts.seed, nodes: size });
      const plain = generatePods({ seed: opts.seed + 1, count: 400, cluster });
      await measurePluginContainment(opts, rec, size, cluster, plain, BATCH);
    }
  },
};

/**
 * `kubesim strategies`: one workload under several scoring strategies side by side — nodes used,
 * utilization spread, unschedulable pods — including user score plugins that replace
 * NodeResourcesFit's score. Strategies run in parallel in the worker pool with --parallel.
 */
import type { Command } from 'commander';
import type { Pod } from '../api/types.js';
import { loadClusterFiles } from '../scheduler/framework/cluster-file.js';
import {
  compareStrategies,
  resolveStrategy,
  BUILTIN_STRATEGIES,
  type Strategy,
  type StrategyResult,
} from '../capacity/strategies.js';
import { replicaOf } from '../capacity/planner.js';
import { PlannerPool } from '../capacity/pool.js';
import { renderStrategiesText } from '../capacity/report.js';
import { loadShapes, whatIfFlags } from './plan.js';
import { WhatIfError } from '../capacity/whatif.js';
import { CliError, UsageError } from './errors.js';
import { warnUnused } from './inputs.js';
import { addClusterOptions, clusterFiles, intFlag, kernelAndSeed } from './flags.js';
import { addPluginLimitOptions, finishPlugins, pluginOptions, type PluginFlags } from './plugin-flags.js';
import { addOutputOptions, emit, isStructured, type OutputFlags, structured } from './output.js';
import { progress } from './progress.js';
import { LIMITS } from '../util/limits.js';

interface StrategiesFlags extends OutputFlags, PluginFlags {
  cluster?: string[];
  kubeconfig?: string;
  pod: string[];
  replicas?: string;
  strategy: string | string[];
  whatIf?: string[];
  kernel: string;
  seed: string;
  parallel?: boolean;
  progress: boolean;
}

/** --strategy values: repeated, space- or comma-separated. */
export function strategySpecs(v: string | string[]): string[] {
  return (Array.isArray(v) ? v : [v])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
}

export function register(program: Command): void {
  const cmd = program
    .command('strategies')
    .description(
      'compare scoring strategies (LeastAllocated, MostAllocated, RequestedToCapacityRatio, config files, your plugin) on one workload',
    );
  addClusterOptions(cmd, 'cluster snapshot (`kubectl get nodes,pods -A -o yaml` output, manifests, dirs)')
    .requiredOption(
      '--pod <files...>',
      'workload: pods scheduled in order; with --replicas, each shape repeated N times',
    )
    .option('--replicas <n>', 'replicas of each shape in --pod')
    .option(
      '--strategy <spec...>',
      `strategies: ${BUILTIN_STRATEGIES.join(', ')}, config:<file.yaml>, plugin:<module>[:weight]`,
      BUILTIN_STRATEGIES.join(','),
    )
    .option('--what-if <spec...>', 'what-ifs applied before the workload (as in kubesim plan)')
    .option('--kernel <name>', 'node-local kernel: js | wasm', 'wasm')
    .option('--seed <n>', 'seed for tie-breaks', '1')
    .option('--parallel', 'run the strategies in the worker pool (built-ins and config files only)')
    .option('--no-progress', 'no progress on stderr');
  addPluginLimitOptions(cmd);
  addOutputOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  kubesim strategies --cluster snapshot.yaml --pod api.yaml --replicas 40
  kubesim strategies --cluster snapshot.yaml --pod api.yaml --replicas 40 --strategy LeastAllocated plugin:examples/plugins/binpack.mjs:5`,
    )
    .action(async (o: StrategiesFlags) => {
      const files = clusterFiles(o);
      const { kernel, seed } = kernelAndSeed(o);
      const n = o.replicas === undefined ? undefined : intFlag('--replicas', o.replicas, 1, LIMITS.pods);
      const specs = strategySpecs(o.strategy);
      if (o.parallel && specs.some((s) => s.startsWith('plugin:')))
        throw new UsageError(
          '--parallel: user plugins are not run in the worker pool; drop --parallel or the plugin',
        );
      const pluginOpts = pluginOptions(o);
      const whatIfs = whatIfFlags(o.whatIf);
      const cluster = await loadClusterFiles(files);
      const unusedShapes = new Map<string, number>();
      const shapes = await loadShapes(o.pod, unusedShapes);
      warnUnused('strategies', [
        ['--cluster', cluster.unused ?? new Map()],
        ['--pod', unusedShapes],
      ]);
      if (n !== undefined && n * shapes.length > LIMITS.pods)
        throw new UsageError(
          `--replicas ${n} × ${shapes.length} shapes: ${n * shapes.length} pods is above the limit of ${LIMITS.pods} (see "Limits" in the README)`,
        );
      const workload: Pod[] =
        n === undefined
          ? shapes
          : shapes.flatMap((s) => Array.from({ length: n }, (_, i) => replicaOf(s, i)));
      let rows: StrategyResult[];
      if (o.parallel) {
        const bar = progress('strategies', o.progress);
        const pool = new PlannerPool();
        try {
          rows = (await pool.runAll(
            specs.map((strategy) => ({
              kind: 'strategy' as const,
              cluster,
              workload,
              strategy,
              whatIfs,
              seed,
              kernel,
            })),
            (done, total) => bar.update(done, total, `${done}/${total} strategies`),
          )) as StrategyResult[];
        } finally {
          bar.finish();
          await pool.close();
        }
      } else {
        const strategies: Strategy[] = [];
        for (const spec of specs) strategies.push(await resolveStrategy(spec, pluginOpts));
        try {
          rows = compareStrategies(cluster, workload, strategies, { whatIfs, seed, kernel });
        } catch (e) {
          if (e instanceof WhatIfError) throw new CliError(`--what-if: ${e.message}`);
          throw e;
        }
        await finishPlugins(
          strategies.flatMap((s) => (s.plugin ? [s.plugin] : [])),
          o,
        );
      }
      emit(
        o,
        isStructured(o.output)
          ? structured(o.output, { workload: workload.length, strategies: rows })
          : renderStrategiesText(rows, { wide: o.output === 'wide' }),
      );
    });
}

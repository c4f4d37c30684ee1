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
  type StrategyResult,
} from '../capacity/strategies.js';
import { replicaOf } from '../capacity/planner.js';
import { parseWhatIf } from '../capacity/whatif.js';
import { PlannerPool } from '../capacity/pool.js';
import { renderStrategiesText } from '../capacity/report.js';
import { loadShapes } from './plan.js';
import { CliError } from './errors.js';
import { json, parseOutputFormat } from './output.js';

export function register(program: Command): void {
  program
    .command('strategies')
    .description(
      'compare scoring strategies (LeastAllocated, MostAllocated, RequestedToCapacityRatio, config files, your plugin) on one workload',
    )
    .requiredOption(
      '--cluster <files...>',
      'cluster snapshot (`kubectl get nodes,pods -A -o yaml` output, manifests, dirs)',
    )
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
    .option('-o, --output <format>', 'table | json', 'table')
    .addHelpText(
      'after',
      `
Examples:
  kubesim strategies --cluster snapshot.yaml --pod api.yaml --replicas 40
  kubesim strategies --cluster snapshot.yaml --pod api.yaml --replicas 40 --strategy LeastAllocated plugin:examples/plugins/binpack.mjs:5`,
    )
    .action(
      async (o: {
        cluster: string[];
        pod: string[];
        replicas?: string;
        strategy: string | string[];
        whatIf?: string[];
        kernel: string;
        seed: string;
        parallel?: boolean;
        output: string;
      }) => {
        const format = parseOutputFormat(o.output);
        if (o.kernel !== 'js' && o.kernel !== 'wasm')
          throw new CliError(`--kernel: unknown kernel "${o.kernel}" (expected js or wasm)`);
        const seed = Number(o.seed);
        if (!Number.isInteger(seed)) throw new CliError(`--seed: not an integer: "${o.seed}"`);
        const specs = (Array.isArray(o.strategy) ? o.strategy : [o.strategy])
          .flatMap((s) => s.split(','))
          .map((s) => s.trim())
          .filter(Boolean);
        const cluster = await loadClusterFiles(o.cluster);
        const shapes = await loadShapes(o.pod);
        let workload: Pod[] = shapes;
        if (o.replicas !== undefined) {
          const n = Number(o.replicas);
          if (!Number.isInteger(n) || n < 1)
            throw new CliError(`--replicas: expected a positive integer, got "${o.replicas}"`);
          workload = shapes.flatMap((s) => Array.from({ length: n }, (_, i) => replicaOf(s, i)));
        }
        const whatIfs = (o.whatIf ?? []).map(parseWhatIf);
        const kernel = o.kernel as 'js' | 'wasm';
        let rows: StrategyResult[];
        if (o.parallel) {
          if (specs.some((s) => s.startsWith('plugin:')))
            throw new CliError('--parallel: user plugins run in this thread; drop --parallel or the plugin');
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
            )) as StrategyResult[];
          } finally {
            await pool.close();
          }
        } else {
          const strategies = await Promise.all(specs.map(resolveStrategy));
          rows = compareStrategies(cluster, workload, strategies, { whatIfs, seed, kernel });
        }
        process.stdout.write(
          format === 'json'
            ? json({ workload: workload.length, strategies: rows })
            : renderStrategiesText(rows),
        );
      },
    );
}

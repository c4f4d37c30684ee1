/**
 * `kubesim compare-sim <scenario.yaml> --strategy A B …`: one scenario under several scheduler
 * set-ups (built-in scoring strategies, KubeSchedulerConfiguration files, user plugins, or the
 * scenario's own settings), every one run with the same seeds, reported side by side
 * (src/experiments/compare.ts).
 */
import type { Command } from 'commander';
import { BUILTIN_STRATEGIES, resolveStrategy } from '../capacity/strategies.js';
import { ConfigError } from '../scheduler/config.js';
import type { LoadedUserPlugin } from '../scheduler/plugins/user.js';
import { compareSimulations, type SimComparison, type SimStrategy } from '../experiments/compare.js';
import { renderComparisonHtml, renderComparisonText } from '../experiments/compare-report.js';
import { loadScenario } from '../sim/scenario.js';
import type { Scenario } from '../sim/scenario-types.js';
import { ScenarioError } from '../util/scenario-input.js';
import { loadScenarioPlugins } from '../sim/simulation.js';
import { LIMITS } from '../util/limits.js';
import { CliError, UsageError } from './errors.js';
import { intFlag } from './flags.js';
import {
  addOutputOptions,
  BASE_FORMATS,
  emit,
  isStructured,
  type OutputFlags,
  structured,
} from './output.js';
import { addPluginLimitOptions, finishPlugins, pluginOptions, type PluginFlags } from './plugin-flags.js';
import { progress } from './progress.js';
import { strategySpecs } from './strategies.js';

interface CompareFlags extends OutputFlags, PluginFlags {
  strategy: string | string[];
  seed?: string;
  seeds: string;
  progress: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('compare-sim')
    .description(
      'run one scenario under several scheduler strategies (scoring, config files, your plugins) with the same seeds, side by side',
    )
    .argument('<scenario>', 'scenario file (YAML or JSON; format in docs/sim.md)')
    .option(
      '--strategy <spec...>',
      `strategies: ${BUILTIN_STRATEGIES.join(', ')}, config:<file.yaml>, plugin:<module>[:weight] (replaces NodeResourcesFit's score), scenario (its own settings.schedulerConfig and settings.plugins)`,
      BUILTIN_STRATEGIES.join(','),
    )
    .option('--seed <n>', "first seed (default: the scenario's)")
    .option(
      '--seeds <n>',
      'run each strategy with N seeds (seed, seed+1, …): mean and spread per metric',
      '1',
    )
    .option('--no-progress', 'no progress on stderr');
  addPluginLimitOptions(cmd);
  addOutputOptions(cmd, [...BASE_FORMATS, 'html'])
    .addHelpText(
      'after',
      `
Each strategy replaces the scenario's settings.schedulerConfig and settings.plugins; every strategy
runs with the same seeds. Metrics: nodes used over time, CPU utilization and its spread over the
used nodes, pods pending, scheduling and pod start-up latency p50/p99, evictions, preemptions.
Examples:
  kubesim compare-sim examples/scenarios/scale-up-down.yaml --strategy LeastAllocated plugin:examples/plugins/binpack.mjs:5
  kubesim compare-sim examples/scenarios/scale-up-down.yaml --strategy LeastAllocated MostAllocated config:sched.yaml --seeds 3
  kubesim compare-sim examples/scenarios/scale-up-down.yaml --strategy scenario plugin:examples/plugins/binpack.mjs:5 -o html --out compare.html`,
    )
    .action(async (file: string, o: CompareFlags) => {
      const specs = strategySpecs(o.strategy);
      if (!specs.length) throw new UsageError('--strategy: give at least one strategy');
      const n = intFlag('--seeds', o.seeds, 1, LIMITS.simRuns);
      if (n * specs.length > LIMITS.simRuns)
        throw new UsageError(
          `--seeds ${n} × ${specs.length} strategies: ${n * specs.length} runs is above the limit of ${LIMITS.simRuns} (see "Limits" in the README)`,
        );
      const seed0 = o.seed === undefined ? undefined : intFlag('--seed', o.seed, 0, 2 ** 32 - 1);
      const pluginOpts = pluginOptions(o);
      let scenario: Scenario;
      try {
        scenario = loadScenario(file);
      } catch (e) {
        if (e instanceof ScenarioError) throw new CliError(e.message);
        throw e;
      }
      if (scenario.settings.scheduler !== 'real')
        throw new CliError(
          `${file}: settings.scheduler: standin has fixed plugins; compare-sim needs the real scheduler`,
        );
      const plugins: LoadedUserPlugin[] = [];
      let report: SimComparison;
      const bar = progress(`compare-sim ${scenario.name}`, o.progress);
      try {
        const strategies: SimStrategy[] = [];
        for (const spec of specs) strategies.push(await strategyOf(spec, scenario, pluginOpts, plugins));
        const names = new Set<string>();
        for (const s of strategies) {
          if (names.has(s.name))
            throw new UsageError(`--strategy: two strategies are named "${s.name}"; give each once`);
          names.add(s.name);
        }
        const first = seed0 ?? scenario.seed;
        try {
          report = await compareSimulations(scenario, strategies, {
            seeds: Array.from({ length: n }, (_, i) => first + i),
            onRun: (done, total, what) => bar.update(done, total, what),
          });
        } catch (e) {
          throw new CliError((e as Error).message);
        }
        await finishPlugins(plugins, o);
      } finally {
        bar.finish();
        await Promise.all(plugins.map((p) => p.close()));
      }
      const command = `kubesim compare-sim ${file} --strategy ${specs.join(' ')}${o.seed !== undefined ? ` --seed ${o.seed}` : ''}${n > 1 ? ` --seeds ${n}` : ''}`;
      emit(
        o,
        isStructured(o.output)
          ? structured(o.output, report)
          : o.output === 'html'
            ? renderComparisonHtml(report, command)
            : renderComparisonText(report, { wide: o.output === 'wide' }),
      );
    });
}

/** One --strategy spec as a scheduler set-up; the plugins it loads join `plugins` (to close). */
async function strategyOf(
  spec: string,
  scenario: Scenario,
  opts: ReturnType<typeof pluginOptions>,
  plugins: LoadedUserPlugin[],
): Promise<SimStrategy> {
  if (spec === 'scenario') {
    let own: LoadedUserPlugin[];
    try {
      own = await loadScenarioPlugins(scenario, opts);
    } catch (e) {
      throw new CliError((e as Error).message);
    }
    plugins.push(...own);
    return { name: 'scenario', schedulerConfig: scenario.settings.schedulerConfig, plugins: own };
  }
  try {
    const s = await resolveStrategy(spec, opts);
    if (s.plugin) plugins.push(s.plugin);
    return { name: s.name, schedulerConfig: s.config, plugins: s.plugin ? [s.plugin] : [] };
  } catch (e) {
    const m = (e as Error).message;
    if (e instanceof ConfigError) throw new CliError(`--strategy ${spec}: ${m}`);
    // a name that is no strategy is a usage error; a file that cannot be read or loaded is not
    if (m.startsWith('unknown strategy')) throw new UsageError(`--strategy: ${m}`);
    throw new CliError(m.startsWith('--') || m.startsWith('strategy') ? m : `--strategy ${spec}: ${m}`);
  }
}

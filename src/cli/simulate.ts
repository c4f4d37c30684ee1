/**
 * `kubesim simulate <scenario.yaml>`: run a scenario on a virtual clock (controllers, scheduler,
 * kubelets all talking to one in-memory ApiServer) and print what happened.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ScenarioError, loadScenario } from '../sim/scenario.js';
import { simulate } from '../sim/simulation.js';
import { formatEvents, formatSummary, renderReport } from '../sim/report.js';
import { failCleanlyOnStrayRejections, progressReporter } from '../sim/progress.js';
import { CliError } from './errors.js';
import { json, parseOutputFormat } from './output.js';

export function register(program: Command): void {
  program
    .command('simulate')
    .description(
      'run a scenario (cluster, workloads, timeline) through controllers, scheduler and kubelets on a virtual clock',
    )
    .argument('<scenario>', 'scenario file (YAML or JSON; format in docs/sim.md)')
    .option('--seed <n>', "seed for every random choice (overrides the scenario's seed)")
    .option('-o, --output <format>', 'table | json', 'table')
    .option('--html <file>', 'also write a self-contained HTML report with charts')
    .option('--events', 'print the events of the run, like kubectl get events')
    .option('--no-progress', 'no progress on stderr')
    .addHelpText(
      'after',
      `
The simulation is deterministic: the same scenario and seed give the same result.
Examples:
  kubesim simulate examples/scenarios/node-failure-eviction.yaml --events
  kubesim simulate examples/scenarios/mass-create-429.yaml -o json
  kubesim simulate my.yaml --seed 7 --html report.html`,
    )
    .action(
      async (
        file: string,
        opts: { seed?: string; output: string; html?: string; events?: boolean; progress: boolean },
      ) => {
        const format = parseOutputFormat(opts.output);
        let seed: number | undefined;
        if (opts.seed !== undefined) {
          seed = Number(opts.seed);
          if (!Number.isInteger(seed)) throw new CliError(`--seed: not an integer: "${opts.seed}"`);
        }
        let scenario;
        try {
          scenario = loadScenario(file);
        } catch (e) {
          if (e instanceof ScenarioError) throw new CliError(e.message);
          throw e;
        }
        const progress = opts.progress ? progressReporter(`simulate ${scenario.name}`) : undefined;
        failCleanlyOnStrayRejections();
        let result;
        try {
          result = await simulate(scenario, { seed, onProgress: progress?.update });
        } catch (e) {
          throw new CliError((e as Error).message);
        } finally {
          progress?.finish();
        }
        if (opts.html) {
          writeFileSync(
            opts.html,
            renderReport(result, `kubesim simulate ${file}${seed !== undefined ? ` --seed ${seed}` : ''}`),
          );
          process.stderr.write(`wrote ${opts.html}\n`);
        }
        if (format === 'json') {
          process.stdout.write(json(opts.events ? result : { ...result, events: undefined }));
          return;
        }
        process.stdout.write(formatSummary(result));
        if (opts.events) process.stdout.write('\n' + formatEvents(result));
      },
    );
}

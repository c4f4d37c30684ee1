/**
 * `kubesim demo`: the built-in scenario at realistic scale — a three-zone cluster, five
 * Deployments behind Services, a scale-up, a rolling update, a node failure evicted after the
 * grace window, a zone outage and its recovery — summarized in under a minute.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { demoScenario } from '../sim/demo.js';
import { simulate } from '../sim/simulation.js';
import { formatEvents, formatSummary, renderReport } from '../sim/report.js';
import { failCleanlyOnStrayRejections, progressReporter } from '../sim/progress.js';
import { CliError } from './errors.js';
import { json, parseOutputFormat } from './output.js';

export function register(program: Command): void {
  program
    .command('demo')
    .description(
      'run the built-in scenario: a 3-zone cluster, 5 deployments, a rollout, a node failure with eviction, a zone outage',
    )
    .option('--nodes <n>', 'cluster size', '2000')
    .option('--seed <n>', 'seed for every random choice', '1')
    .option('--scheduler <kind>', 'real (src/scheduler) | standin', 'real')
    .option('-o, --output <format>', 'table | json', 'table')
    .option('--html <file>', 'also write a self-contained HTML report with charts')
    .option('--events <n>', 'print the last n events (kubectl get events)', '15')
    .option('--no-progress', 'no progress on stderr')
    .addHelpText(
      'after',
      `
Examples:
  kubesim demo
  kubesim demo --nodes 5000 --html demo.html
  npm run demo -- --nodes 500`,
    )
    .action(
      async (opts: {
        nodes: string;
        seed: string;
        scheduler: string;
        output: string;
        html?: string;
        events: string;
        progress: boolean;
      }) => {
        const format = parseOutputFormat(opts.output);
        const nodes = Number(opts.nodes),
          seed = Number(opts.seed),
          nEvents = Number(opts.events);
        if (!Number.isInteger(nodes) || nodes < 3)
          throw new CliError(`--nodes: expected an integer >= 3, got "${opts.nodes}"`);
        if (!Number.isInteger(seed)) throw new CliError(`--seed: not an integer: "${opts.seed}"`);
        if (!Number.isInteger(nEvents) || nEvents < 0)
          throw new CliError(`--events: expected a non-negative integer, got "${opts.events}"`);
        if (opts.scheduler !== 'real' && opts.scheduler !== 'standin')
          throw new CliError(`--scheduler: expected real or standin, got "${opts.scheduler}"`);
        const scenario = demoScenario({ nodes, seed, scheduler: opts.scheduler });
        const progress = opts.progress ? progressReporter(`demo (${nodes} nodes)`) : undefined;
        failCleanlyOnStrayRejections();
        let result;
        try {
          result = await simulate(scenario, { seed, onProgress: progress?.update });
        } finally {
          progress?.finish();
        }
        if (opts.html) {
          writeFileSync(opts.html, renderReport(result, `kubesim demo --nodes ${nodes} --seed ${seed}`));
          process.stderr.write(`wrote ${opts.html}\n`);
        }
        if (format === 'json') {
          process.stdout.write(json({ ...result, events: undefined }));
          return;
        }
        process.stdout.write(`${scenario.description}\n\n`);
        process.stdout.write(formatSummary(result));
        if (nEvents > 0) {
          const key = result.events.filter((e) =>
            ['NodeNotReady', 'TaintManagerEviction', 'ScalingReplicaSet', 'FailedScheduling'].includes(
              e.reason,
            ),
          );
          process.stdout.write(
            `\nKey events (${key.length} of ${result.events.length}; last ${Math.min(nEvents, key.length)}):\n`,
          );
          process.stdout.write(formatEvents({ ...result, events: key }, nEvents));
        }
      },
    );
}

/**
 * `kubesim demo`: the built-in scenario at realistic scale — a three-zone cluster, five
 * Deployments behind Services, a scale-up, a rolling update, a node failure evicted after the
 * grace window, a zone outage and its recovery — summarized in under a minute.
 */
import type { Command } from 'commander';
import { demoScenario } from '../sim/demo.js';
import { LIMITS } from '../util/limits.js';
import { UsageError } from './errors.js';
import { intFlag } from './flags.js';
import { addRunOptions, eventCount, runAndReport, type RunFlags } from './simulate.js';

const KEY_REASONS = ['NodeNotReady', 'TaintManagerEviction', 'ScalingReplicaSet', 'FailedScheduling'];

export function register(program: Command): void {
  const cmd = program
    .command('demo')
    .description(
      'run the built-in scenario: a 3-zone cluster, 5 deployments, a rollout, a node failure with eviction, a zone outage',
    )
    .option('--nodes <n>', 'cluster size', '2000')
    .option('--seed <n>', 'seed for every random choice', '1')
    .option('--scheduler <kind>', 'real (src/scheduler) | standin', 'real');
  addRunOptions(cmd, 'print the last n key events (default 15; without n: all of them)')
    .addHelpText(
      'after',
      `
Examples:
  kubesim demo
  kubesim demo --nodes 5000 -o html --out demo.html
  kubesim demo --nodes 200 --events 20`,
    )
    .action(async (opts: RunFlags & { nodes: string; seed: string; scheduler: string }) => {
      const nodes = intFlag('--nodes', opts.nodes, 3, LIMITS.nodes);
      const seed = Number(opts.seed);
      if (!Number.isInteger(seed)) throw new UsageError(`--seed: not an integer: "${opts.seed}"`);
      if (opts.scheduler !== 'real' && opts.scheduler !== 'standin')
        throw new UsageError(`--scheduler: expected real or standin, got "${opts.scheduler}"`);
      const events = eventCount(opts.events, 15);
      const scenario = demoScenario({ nodes, seed, scheduler: opts.scheduler });
      await runAndReport(scenario, opts, {
        seed,
        events,
        label: `demo (${nodes} nodes)`,
        command: `kubesim demo --nodes ${nodes} --seed ${seed}`,
        intro: `${scenario.description}\n\n`,
        keyEvents: (e) => KEY_REASONS.includes(e.reason),
      });
    });
}

#!/usr/bin/env node
// kubesim's CLI entry point. Every command lives in its own module under src/cli/ exporting
// `register(program)`; COMMANDS below lists them, in the order `kubesim --help` shows them.
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, EXIT, EXIT_CODES_HELP } from './errors.js';
import { packageRoot } from '../util/paths.js';
import { KUBERNETES_VERSION } from '../api/kinds.js';
import * as validate from './validate.js';
import * as explain from './explain.js';
import * as schedule from './schedule.js';
import * as plan from './plan.js';
import * as strategies from './strategies.js';
import * as simulate from './simulate.js';
import * as compareSim from './compare-sim.js';
import * as demo from './demo.js';
import * as sweep from './sweep.js';
import * as proxy from './proxy.js';
import * as store from './store.js';
import * as bench from './bench.js';
import * as serve from './serve.js';
import * as snapshot from './snapshot.js';
import * as record from './record.js';
import * as version from './version.js';

export interface CommandModule {
  register(program: Command): void | Promise<void>;
}

/** Every command, in help order. A new command is one import and one line here. */
export const COMMANDS: readonly CommandModule[] = [
  validate,
  explain,
  schedule,
  plan,
  strategies,
  simulate,
  compareSim,
  sweep,
  demo,
  proxy,
  store,
  bench,
  serve,
  snapshot,
  record,
  version,
];

export async function buildProgram(): Promise<Command> {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8'));
  const program = new Command('kubesim')
    .version(`${pkg.version} (Kubernetes ${KUBERNETES_VERSION.gitVersion})`)
    .description(
      'Kubernetes control-plane simulator and rule engine: store, ApiServer, scheduler, kube-proxy rules, capacity planning',
    )
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({ outputError: (str, write) => write(str) });
  for (const mod of COMMANDS) await mod.register(program);
  for (const cmd of allCommands(program)) cmd.addHelpText('after', EXIT_CODES_HELP).exitOverride();
  return program;
}

function allCommands(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap(allCommands)];
}

export async function main(argv: string[]): Promise<number> {
  const program = await buildProgram();
  try {
    await program.parseAsync(argv);
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (err) {
    return reportError(err);
  }
}

function reportError(err: unknown): number {
  const e = err as { code?: string; exitCode?: number; message?: string };
  if (typeof e?.code === 'string' && e.code.startsWith('commander.')) {
    // commander has already printed the help, the version or the usage error
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return EXIT.ok;
    return EXIT.usage;
  }
  if (err instanceof CliError) {
    process.stderr.write(`kubesim: ${err.message}\n`);
    return err.exitCode;
  }
  const msg = err instanceof Error ? err.message : String(err);
  process.stderr.write(`kubesim: ${msg}\n`);
  if (process.env.KUBESIM_DEBUG) process.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
  return EXIT.error;
}

/** A failure outside the awaited command (a stray rejection, a throw in a timer): one line, exit 1. */
function failCleanly(err: unknown): void {
  process.stderr.write(`\nkubesim: internal error: ${(err as Error)?.message ?? String(err)}\n`);
  if (process.env.KUBESIM_DEBUG) process.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
  process.exit(EXIT.error);
}

const invokedDirectly =
  process.argv[1] &&
  fileURLToPath(import.meta.url) === (await import('node:fs')).realpathSync(process.argv[1]);
if (invokedDirectly) {
  process.on('unhandledRejection', failCleanly);
  process.on('uncaughtException', failCleanly);
  let settled = false;
  // Node ends a process whose event loop is empty with exit 0, even while the command is still
  // awaiting something that nothing can resolve any more (a simulation waiting on a virtual clock
  // that no longer runs): that would be a silent success, so it is an internal error instead.
  process.on('beforeExit', () => {
    if (!settled)
      failCleanly(
        new Error('the command stopped with work pending that nothing can finish (a wait that never ends)'),
      );
  });
  main(process.argv).then((code) => {
    settled = true;
    // writes to a pipe may still be queued (a ruleset of megabytes): process.exit would cut them
    // off at the pipe's 64 KiB, so exit once stdout has taken everything written before
    process.stdout.write('', () => process.exit(code));
  });
}

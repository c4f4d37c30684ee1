#!/usr/bin/env node
// kubesim's CLI entry point. Each command lives in its own module under src/cli/ and exports
// `register(program)`; this file discovers them so that adding a command never edits a shared list.
import { Command } from 'commander';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CliError } from './errors.js';
import { packageRoot } from '../util/paths.js';

export interface CommandModule {
  register(program: Command): void | Promise<void>;
}

const here = dirname(fileURLToPath(import.meta.url));
const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const NOT_COMMANDS = new Set(['index', 'errors', 'output', 'progress']);

export async function buildProgram(): Promise<Command> {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8'));
  const program = new Command('kubesim')
    .version(pkg.version)
    .description(
      'Kubernetes control-plane simulator and rule engine: store, ApiServer, scheduler, kube-proxy rules, capacity planning',
    )
    .showHelpAfterError()
    .configureOutput({ outputError: (str, write) => write(str) });
  const files = readdirSync(here)
    .filter((f) => f.endsWith(ext) && !f.endsWith('.d.ts') && !f.endsWith('.test.ts'))
    .filter((f) => !NOT_COMMANDS.has(f.slice(0, -ext.length)))
    .sort();
  for (const f of files) {
    const mod = (await import(pathToFileURL(join(here, f)).href)) as Partial<CommandModule>;
    if (typeof mod.register === 'function') await mod.register(program);
  }
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = await buildProgram();
  program.exitOverride();
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
    // commander has already printed help / version / the usage error
    return e.exitCode ?? 1;
  }
  if (err instanceof CliError) {
    process.stderr.write(`kubesim: ${err.message}\n`);
    return err.exitCode;
  }
  const msg = err instanceof Error ? err.message : String(err);
  process.stderr.write(`kubesim: ${msg}\n`);
  if (process.env.KUBESIM_DEBUG) process.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
  return 1;
}

const invokedDirectly =
  process.argv[1] &&
  fileURLToPath(import.meta.url) === (await import('node:fs')).realpathSync(process.argv[1]);
if (invokedDirectly) {
  main(process.argv).then((code) => process.exit(code));
}

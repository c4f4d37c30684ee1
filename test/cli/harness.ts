/**
 * Running the built CLI the way a user does, for the tests over every command (convention.test.ts)
 * and every documented example (help-examples.ts, in the help-examples-N.test.ts shards): the command tree comes from the registry
 * (src/cli/index.ts COMMANDS), so a new command is covered without touching these tests.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { parseAllDocuments } from 'yaml';
import { vi } from 'vitest';
import { buildProgram, main } from '../../src/cli/index.js';
import { packageRoot } from '../../src/util/paths.js';

export const root = packageRoot();
export const cli = join(root, 'dist', 'src', 'cli', 'index.js');

export interface Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A Node stack frame: the CLI prints one line per error, never these. */
export const STACK_FRAME = /^\s+at .*(\(.*:\d+:\d+\)|:\d+:\d+)$/m;

/** `kubesim ARGS` on the built CLI. */
export function kubesim(args: string[], cwd = root, timeoutMs = 120_000): Run {
  const r = spawnSync(process.execPath, [cli, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, KUBESIM_DEBUG: '' },
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** A shell line as a user types it, `kubesim` on PATH being the built CLI (pipes and redirects work). */
export function shell(line: string, cwd: string, timeoutMs: number): Run {
  const r = spawnSync('bash', ['-c', `set -o pipefail; ${line}`], {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, PATH: `${join(cwd, '.bin')}:${process.env.PATH}`, KUBESIM_DEBUG: '' },
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

export interface Leaf {
  /** words after `kubesim`, e.g. ['proxy', 'render'] */
  path: string[];
  cmd: Command;
}

/** Every command that runs something (no subcommands), from the registry; `help` aside. */
export async function leafCommands(): Promise<Leaf[]> {
  const program = await buildProgram();
  const walk = (c: Command, path: string[]): Leaf[] =>
    c.commands.length === 0
      ? [{ path, cmd: c }]
      : c.commands.filter((s) => s.name() !== 'help').flatMap((s) => walk(s, [...path, s.name()]));
  return walk(program, []);
}

/** A command's full --help text (with the lines added after the options), in process. */
export function helpText(cmd: Command): string {
  let out = '';
  cmd.configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (out += s) });
  cmd.outputHelp();
  return out;
}

/** The lines under `Example:` / `Examples:` in a help text that run kubesim. */
export function helpExamples(help: string): string[] {
  const lines = help.split('\n');
  const out: string[] = [];
  let inside = false;
  for (const line of lines) {
    if (/^Examples?:\s*$/.test(line)) inside = true;
    else if (inside && line.trim() === '') inside = false;
    else if (inside && /\bkubesim /.test(line)) out.push(line.trim());
  }
  return out;
}

/**
 * The command a line invokes: the longest run of words after `kubesim` naming a subcommand (or the
 * default subcommand where the next word names none), and the command's options (hidden ones too) by their long and short flags.
 */
export function resolve(program: Command, words: string[]): { path: string[]; cmd: Command } {
  let cmd = program;
  const path: string[] = [];
  for (const w of words) {
    const sub = cmd.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (!sub) {
      // `kubesim sweep FILE` is `kubesim sweep run FILE`: commander's default subcommand
      const dflt = (cmd as unknown as { _defaultCommandName?: string })._defaultCommandName;
      const d = dflt ? cmd.commands.find((c) => c.name() === dflt) : undefined;
      if (d) {
        cmd = d;
        path.push(d.name());
      }
      break;
    }
    cmd = sub;
    path.push(w);
  }
  return { path, cmd };
}

export function flagsOf(cmd: Command): Set<string> {
  const flags = new Set(['--help', '-h']);
  for (const o of cmd.options) {
    if (o.long) flags.add(o.long);
    if (o.short) flags.add(o.short);
  }
  return flags;
}

// ---------------------------------------------------------------------------------------------
// The files the examples name, in the folder they run in (a user's folder: their snapshot.yaml,
// their pod). Each name stands for a shipped example file or a test fixture with that role.

const SNAPSHOT = 'examples/snapshot/cluster.yaml';
const POD = 'examples/snapshot/pod-api.yaml';
const PROXY_CLUSTER = 'test/fixtures/proxy/manifests/shop.yaml';

/** name in the example → file in the repository, per command (the names mean other things per command). */
const LINKS: Record<string, Record<string, string>> = {
  default: {
    'snapshot.yaml': SNAPSHOT,
    'cluster.yaml': SNAPSHOT,
    'c.yaml': SNAPSHOT,
    'api.yaml': POD,
    'api-pod.yaml': POD,
    'my-app.yaml': POD,
    'pending.yaml': POD,
    'web.yaml': POD,
    'p.yaml': POD,
    'pods.yaml': POD,
    'deploy-pods.yaml': POD,
    'worker.yaml': 'examples/snapshot/pod-worker.yaml',
    'sched.yaml': 'test/scheduler/fixtures/sched-config.yaml',
    'snapshot.json': 'test/fixtures/manifests/snapshot.json',
    'deploy/': 'examples/snapshot',
    'my-plugin.mjs': 'examples/plugins/binpack.mjs',
    'my-plugin.ts': 'examples/plugins/prefer-label/index.ts',
    // store record's own op sequence: an existing trace's ops are recorded again
    'my-ops.json': 'examples/store/kv-watch-lease.json',
  },
  sweep: {
    // the two shards of `kubesim sweep … --set apiserver.maxMutatingInflight=20,200 --seeds 2 --shard I/2`
    'shard-0.json': 'test/fixtures/sweep/shard-0.json',
    'shard-1.json': 'test/fixtures/sweep/shard-1.json',
  },
  proxy: {
    'cluster.yaml': PROXY_CLUSTER,
    'before.yaml': PROXY_CLUSTER,
    'after.yaml': 'test/fixtures/proxy/manifests/shop-update.yaml',
    'manifests/': 'test/fixtures/proxy/manifests',
  },
};

/** Files made from others, where no file in the repository has the role. */
const DERIVED: Record<string, Record<string, () => string>> = {
  default: {
    // explain --cluster nodes.yaml pods.yaml: the snapshot's Nodes, and its other objects
    'nodes.yaml': () => listOf(snapshotItems().filter((o) => o.kind === 'Node')),
  },
  explain: {
    'pods.yaml': () => listOf(snapshotItems().filter((o) => o.kind !== 'Node')),
  },
  proxy: {
    // the Service of the proxy cluster, to delete
    'old-service.yaml': () =>
      parseAllDocuments(readFileSync(join(root, PROXY_CLUSTER), 'utf8'))
        .map((d) => d.toString())
        .find((d) => /^kind: Service$/m.test(d)) ?? '',
  },
};

function snapshotItems(): { kind: string }[] {
  return (
    parseAllDocuments(readFileSync(join(root, SNAPSHOT), 'utf8'))[0].toJS() as { items: { kind: string }[] }
  ).items;
}

function listOf(items: unknown[]): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
}

/**
 * A fresh folder to run an example of `command` in: `kubesim` on its PATH (the built CLI),
 * `examples/` as shipped, and the files the examples name.
 */
export function exampleFolder(command: string): string {
  const dir = mkdtempSync(join(tmpdir(), `kubesim-example-${command}-`));
  mkdirSync(join(dir, '.bin'));
  writeFileSync(join(dir, '.bin', 'kubesim'), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`);
  chmodSync(join(dir, '.bin', 'kubesim'), 0o755);
  symlinkSync(join(root, 'examples'), join(dir, 'examples'));
  const derived = { ...DERIVED.default, ...(DERIVED[command] ?? {}) };
  const links = { ...LINKS.default, ...(LINKS[command] ?? {}) };
  for (const [name, target] of Object.entries(links)) {
    if (name in derived) continue; // a made file, not a link (writing through a link would change the target)
    symlinkSync(join(root, target), join(dir, name.replace(/\/$/, '')));
  }
  for (const [name, make] of Object.entries(derived)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), make());
  }
  return dir;
}

/**
 * `kubesim ARGS` through the CLI's entry point (src/cli/index.ts main) in this process: the same
 * parsing, actions and error reporting as the built CLI, without a process start per check.
 */
export async function kubesimInProcess(args: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
    stdout += String(s);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
    stderr += String(s);
    return true;
  });
  const exitCode = process.exitCode;
  try {
    const status = await main(['node', 'kubesim', ...args]);
    return { status, signal: null, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.exitCode = exitCode;
  }
}

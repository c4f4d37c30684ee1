// The output convention (src/cli/output.ts, errors.ts), checked on every command of the registry
// through the built CLI: --help shows -o with its formats, --out and the exit codes; -o bogus and
// -o html where the command has no report are usage errors (exit 2); --out FILE writes the file and
// nothing to stdout, replacing it whole; --kubeconfig is answered 'not supported yet' where it is
// not; an unknown flag and a missing input file are errors with one line on stderr, never exit 0.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import {
  cli,
  exampleFolder,
  helpExamples,
  helpText,
  kubesim,
  kubesimInProcess,
  type Leaf,
  leafCommands,
  STACK_FRAME,
  shell,
} from './harness.js';

/** Commands without -o/--out, and why. */
const NO_OUTPUT: Record<string, string> = {
  serve: 'a server: it prints its URL and then serves until stopped; there is no report to format',
};

/**
 * How --out is exercised where the command's first runnable --help example does not do: the bench
 * suites share one output path (src/cli/bench.ts), so one small run stands for all of them.
 */
const OUT_RUN: Record<string, string[] | string> = {
  'bench scheduler': ['bench', 'scheduler', '--sizes', '100', '--time', '5', '--no-progress'],
  // the first example is the 2,000-node demo (40 s or more): the same story on 50 nodes
  demo: ['demo', '--nodes', '50'],
  'bench all': 'one run of every suite takes minutes; bench scheduler stands for the shared output path',
  'bench api': 'the bench suites share one output path: bench scheduler stands for it',
  'bench capacity': 'the bench suites share one output path: bench scheduler stands for it',
  'bench proxy': 'the bench suites share one output path: bench scheduler stands for it',
  'bench scheduler-framework': 'the bench suites share one output path: bench scheduler stands for it',
  'bench scheduler-plugins': 'the bench suites share one output path: bench scheduler stands for it',
  'bench shard': 'the bench suites share one output path: bench scheduler stands for it',
  'bench store': 'the bench suites share one output path: bench scheduler stands for it',
  'bench watch': 'the bench suites share one output path: bench scheduler stands for it',
  'bench sim': 'the bench suites share one output path: bench scheduler stands for it',
  snapshot: 'reads a live cluster: test/server/snapshot.test.ts writes --out against kubesim serve',
  record: 'watches a live cluster: test/server/record.test.ts writes --out against kubesim serve',
  'proxy check': 'needs root and loads rules into a network namespace: help-examples.ts runs it where it can',
  'store record': 'needs etcd: test/store/etcd-cli.test.ts records with --out',
};

const leaves = await leafCommands();
const name = (path: string[]) => path.join(' ');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The -o formats a command declares (the option's description, 'output format: a | b | c'). */
function formatsOf(path: string[]): string[] {
  const leaf = leaves.find((l) => name(l.path) === name(path))!;
  const o = leaf.cmd.options.find((x) => x.long === '--output');
  return o ? (o.description.match(/output format: (.*)$/)?.[1] ?? '').split(' | ') : [];
}

/**
 * Values for the inputs a command requires besides the one under test (required options are checked
 * first), so that the flag or file under test is what fails.
 */
function requiredArgs(cmd: Leaf['cmd']): string[] {
  return cmd.options.flatMap((o) =>
    o.long === '--pod'
      ? ['--pod', 'examples/snapshot/pod-api.yaml']
      : o.mandatory && o.long
        ? [o.long, 'x']
        : [],
  );
}

const oneLineError = (stderr: string) => {
  expect(stderr).not.toMatch(STACK_FRAME);
  expect(stderr.trim()).not.toBe('');
};

describe.skipIf(!existsSync(cli))('every command follows the CLI convention', () => {
  it('finds the commands in the registry', () => {
    expect(leaves.map((l) => name(l.path))).toEqual(
      expect.arrayContaining(['validate', 'plan', 'proxy render', 'store replay', 'bench all', 'serve']),
    );
    // the exemptions name commands that exist
    const names = new Set(leaves.map((l) => name(l.path)));
    expect([...Object.keys(NO_OUTPUT), ...Object.keys(OUT_RUN)].filter((n) => !names.has(n))).toEqual([]);
  });

  for (const { path, cmd } of leaves) {
    const cmdName = name(path);
    describe(`kubesim ${cmdName}`, () => {
      const hasOutput = !(cmdName in NO_OUTPUT);
      const formats = formatsOf(path);

      it('--help shows -o with its formats, --out, and the exit codes (as run)', () => {
        const r = kubesim([...path, '--help']);
        expect(r.status).toBe(0);
        const help = r.stdout.replace(/\s+/g, ' ');
        for (const line of ['0 success', '1 input or runtime error', '2 usage error'])
          expect(help).toContain(line);
        if (!hasOutput) return;
        expect(formats).toEqual(expect.arrayContaining(['table', 'json', 'yaml']));
        expect(help).toContain(`-o, --output <format> output format: ${formats.join(' | ')}`);
        expect(help).toContain('--out <file> write the output to FILE instead of stdout');
      });

      it.skipIf(!hasOutput)('-o bogus is a usage error (exit 2) naming the formats', async () => {
        const r = await kubesimInProcess([...path, '-o', 'bogus']);
        expect(r.status).toBe(2);
        expect(r.stdout).toBe('');
        oneLineError(r.stderr);
        expect(r.stderr).toContain(`expected ${formats.join(', ')}`);
      });

      it.skipIf(!hasOutput || formats.includes('html'))(
        '-o html without a report is a usage error (exit 2)',
        async () => {
          const r = await kubesimInProcess([...path, '-o', 'html']);
          expect(r.status).toBe(2);
          oneLineError(r.stderr);
          expect(r.stderr).toContain(`argument 'html' is invalid. expected ${formats.join(', ')}`);
        },
      );

      it('-o names no file: a file name gets a hint to use --out', async () => {
        if (!hasOutput) return;
        const r = await kubesimInProcess([...path, '-o', 'report.txt']);
        expect(r.status).toBe(2);
        expect(r.stderr).toContain('-o is a format, to write a file use --out report.txt');
      });

      it('an unknown flag is a usage error (exit 2), one line and the usage hint', async () => {
        const r = await kubesimInProcess([...path, ...requiredArgs(cmd), '--no-such-flag']);
        expect(r.status).toBe(2);
        oneLineError(r.stderr);
        expect(r.stderr).toContain("unknown option '--no-such-flag'");
      });

      const kubeconfig = cmd.options.find((o) => o.long === '--kubeconfig');
      const cluster = cmd.options.find((o) => o.long === '--cluster');
      it.skipIf(!cluster && !kubeconfig)(
        '--kubeconfig: read, or answered "not supported yet" (exit 2)',
        async () => {
          expect(kubeconfig, 'a command reading --cluster answers --kubeconfig').toBeDefined();
          if (!/not supported yet/.test(kubeconfig!.description)) return; // the command reads live clusters
          const r = await kubesimInProcess([
            ...path,
            ...requiredArgs(cmd),
            '--kubeconfig',
            'kc.yaml',
            ...(cluster ? ['--cluster', 'x.yaml'] : []),
          ]);
          expect(r.status).toBe(2);
          oneLineError(r.stderr);
          expect(r.stderr).toContain('--kubeconfig kc.yaml: reading a live cluster is not supported yet');
          expect(r.stderr).toContain('kubesim snapshot --kubeconfig kc.yaml --out snapshot.yaml');
        },
      );

      // a file that does not exist, where the command reads one: an error naming it, never exit 0
      const fileArg = cmd.registeredArguments.find((a) => a.required);
      it.skipIf(!cluster && !fileArg)(
        'a missing input file is an error naming it (exit 1), never exit 0',
        async () => {
          // every required argument names the missing file (bench compare reads two)
          const args = cluster
            ? ['--cluster', 'no-such-file.yaml']
            : cmd.registeredArguments.filter((a) => a.required).map(() => 'no-such-file.yaml');
          const r = await kubesimInProcess([...path, ...requiredArgs(cmd), ...args]);
          expect(r.status).not.toBe(0);
          oneLineError(r.stderr);
          expect(r.stderr).toContain('no-such-file.yaml');
          expect(r.status).toBe(1);
        },
      );

      const outRun = OUT_RUN[cmdName];
      it.skipIf(!hasOutput || typeof outRun === 'string')(
        '--out FILE writes the file, prints nothing on stdout, and replaces an older file whole',
        () => {
          const dir = exampleFolder(path[0]);
          dirs.push(dir);
          const example = Array.isArray(outRun)
            ? `kubesim ${outRun.join(' ')}`
            : helpExamples(helpText(cmd)).find(
                (l) => /^kubesim /.test(l) && !/--out\b|[|>&;]|-o html/.test(l),
              );
          expect(example, 'a runnable --help example without --out (or a row in OUT_RUN)').toBeDefined();
          writeFileSync(join(dir, 'out.txt'), 'an older, longer file '.repeat(10_000));
          const before = new Set(readdirSync(dir));
          const r = shell(`${example!.replace(/\s#.*$/, '')} --out out.txt`, dir, 240_000);
          expect(r.status, r.stderr).toBe(0);
          expect(r.stdout).toBe('');
          const written = readFileSync(join(dir, 'out.txt'), 'utf8');
          expect(written.length).toBeGreaterThan(0);
          expect(written).not.toContain('an older, longer file');
          // written through a temporary file renamed over it: none left behind
          expect(readdirSync(dir).filter((f) => !before.has(f))).toEqual([]);
        },
        300_000,
      );
    });
  }
});

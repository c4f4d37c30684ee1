/**
 * Seeded fuzzing of every loader through the CLI: each case is a file made from valid input by
 * one mutation (test/fuzz/generators.ts) and is given to every command that reads it — validate,
 * plan, explain, schedule, strategies (as --cluster and as --pod), proxy render, simulate (as a
 * scenario's workload file, or as the scenario) — or a --what-if string given to plan. The CLI's
 * main() runs in a worker thread under a watchdog (cli-worker.mjs), with KUBESIM_DEBUG set so an
 * error the CLI did not expect shows its stack.
 *
 * The property, with no hand-picked expectations: every run answers (exit 0) or gives a clear
 * error (non-zero exit, one message naming the file, no stack trace); never an internal error
 * (TypeError, RangeError, …), a hang, or an invalid input accepted: when `kubesim validate`
 * rejects a file every other command rejects it too, and a mutation that makes the input invalid
 * for sure (a wrong type, an invalid quantity, nesting deeper than the limit, bytes that are not
 * UTF-8, an alias bomb) is rejected by validate and by every command.
 *
 * More cases: KUBESIM_FUZZ_CASES=1000; another seed: KUBESIM_FUZZ_SEED=7.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { CLASSES, type FuzzCase, generate, Rng } from './generators.js';

const SEED = Number(process.env.KUBESIM_FUZZ_SEED ?? 1);
const CASES = Number(process.env.KUBESIM_FUZZ_CASES ?? 100);
const HANG_MS = 30_000;
const root = join(import.meta.dirname, '..', '..');
const dist = join(root, 'dist', 'src', 'cli', 'index.js');
const CLUSTER = join(root, 'examples', 'snapshot', 'cluster.yaml');
const POD = join(root, 'examples', 'snapshot', 'pod-api.yaml');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  outcome: 'answered' | 'rejected' | 'unclear' | 'internal' | 'hang';
}

/**
 * With KUBESIM_DEBUG the CLI prints the stack of every error that is not a CliError under its
 * one-line message; the error's class on the stack's first line tells an expected input error
 * (ManifestError, ScenarioError, LimitError, …) from one the code did not expect. V8's own texts
 * catch what is rethrown under another name.
 */
const INTERNAL =
  /^(TypeError|RangeError|ReferenceError|SyntaxError|EvalError|URIError|AggregateError)\b|Maximum call stack|is not a function|Cannot read properties|is not iterable|Invalid array length|out of memory|internal error/m;

class CliRunner {
  private worker?: Worker;

  private start(): Promise<Worker> {
    return new Promise((resolve, reject) => {
      const w = new Worker(new URL('./cli-worker.mjs', import.meta.url), {
        resourceLimits: { maxOldGenerationSizeMb: 1024 },
      });
      w.once('message', () => resolve(w));
      w.once('error', reject);
    });
  }

  async run(args: string[], names: string): Promise<Run> {
    this.worker ??= await this.start();
    const w = this.worker;
    const r = await new Promise<Omit<Run, 'outcome'> & { outcome?: Run['outcome'] }>((resolve) => {
      const timer = setTimeout(() => {
        void w.terminate();
        resolve({ code: -1, stdout: '', stderr: `no answer within ${HANG_MS} ms`, outcome: 'hang' });
      }, HANG_MS);
      w.once('message', (m: Omit<Run, 'outcome'>) => {
        clearTimeout(timer);
        resolve(m);
      });
      w.once('error', (e) => {
        clearTimeout(timer);
        resolve({ code: -1, stdout: '', stderr: `worker died: ${e.message}`, outcome: 'internal' });
      });
      w.postMessage(args);
    });
    if (r.outcome) this.worker = undefined;
    else w.removeAllListeners('error');
    const outcome: Run['outcome'] =
      r.outcome ??
      (INTERNAL.test(r.stderr)
        ? 'internal'
        : r.code === 0
          ? 'answered'
          : `${r.stderr}${r.stdout}`.includes(names)
            ? 'rejected'
            : 'unclear');
    return { ...r, outcome };
  }

  async close(): Promise<void> {
    await this.worker?.terminate();
  }
}

/** The commands that read a manifest file `f`, each as the argument list. */
function manifestRuns(f: string, scenario: string): string[][] {
  return [
    ['plan', '--cluster', f, '--pod', POD, '--no-progress', '--kernel', 'js'],
    ['plan', '--cluster', CLUSTER, '--pod', f, '--no-progress', '--kernel', 'js'],
    ['explain', '--cluster', f, '--pod', POD, '--kernel', 'js'],
    ['explain', '--cluster', CLUSTER, '--pod', f, '--kernel', 'js'],
    ['schedule', '--cluster', CLUSTER, '--pod', f, '--kernel', 'js'],
    ['strategies', '--cluster', f, '--pod', POD, '--replicas', '2', '--kernel', 'js', '--no-progress'],
    ['proxy', 'render', '--cluster', f, '--no-progress'],
    ['simulate', scenario, '--no-progress'],
  ];
}

describe.skipIf(!existsSync(dist))(
  `loader fuzzing through the CLI (seed ${SEED}, ${CASES} cases; needs npm run build)`,
  () => {
    it('a clear error naming the file, or an answer: never an internal error, a hang or an invalid input accepted', async () => {
      const rng = new Rng(SEED);
      const dir = mkdtempSync(join(tmpdir(), 'kubesim-loader-fuzz-'));
      const runner = new CliRunner();
      const bad: string[] = [];
      const tally: Record<string, Record<string, number>> = {};
      const count = (klass: string, outcome: string) => {
        tally[klass] ??= {};
        tally[klass]![outcome] = (tally[klass]![outcome] ?? 0) + 1;
      };
      try {
        for (let i = 0; i < CASES; i++) {
          const c: FuzzCase = generate(rng, i, CLASSES[i % CLASSES.length]!);
          const what = (r: Run, args: string[]) =>
            `case ${i} [${c.class}] ${c.mutation}\n    kubesim ${args.join(' ')}\n    → ${r.outcome} (exit ${r.code}): ${(r.stderr.trim() || r.stdout.trim()).slice(0, 500)}`;
          if (c.class === 'what-if') {
            const args = [
              'plan',
              '--cluster',
              CLUSTER,
              '--pod',
              POD,
              '--what-if',
              c.whatIf!,
              '--no-progress',
              '--kernel',
              'js',
            ];
            const r = await runner.run(args, '--what-if');
            count(c.class, r.outcome);
            if (r.outcome !== 'answered' && r.outcome !== 'rejected') bad.push(what(r, args));
            continue;
          }
          const file = join(
            dir,
            `case-${i}.${c.class === 'scenario' ? 'yaml' : c.bytes![0] === 0x7b ? 'json' : 'yaml'}`,
          );
          writeFileSync(file, c.bytes!);
          if (c.class === 'scenario') {
            const args = ['simulate', file, '--no-progress'];
            const r = await runner.run(args, file);
            count(c.class, r.outcome);
            if (r.outcome === 'answered' ? c.mustReject : r.outcome !== 'rejected') bad.push(what(r, args));
            continue;
          }
          const scenario = join(dir, `case-${i}-scenario.yaml`);
          writeFileSync(
            scenario,
            // the file as the cluster's snapshot (state that exists) or as workloads (created at t=0)
            i % 2
              ? `name: fuzz\nduration: 30s\ncluster:\n  pools: [{ name: w, count: 2, zones: [a, b] }]\nworkloads:\n  - file: ${file}\n`
              : `name: fuzz\nduration: 30s\ncluster:\n  pools: [{ name: w, count: 2, zones: [a, b] }]\n  snapshot: ${file}\n`,
          );
          const validate = await runner.run(['validate', file], file);
          count(c.class, `validate ${validate.outcome}`);
          const rejected = validate.outcome === 'rejected';
          if (
            validate.outcome === 'internal' ||
            validate.outcome === 'hang' ||
            validate.outcome === 'unclear'
          )
            bad.push(what(validate, ['validate', file]));
          else if (c.mustReject && !rejected)
            bad.push(
              `${what(validate, ['validate', file])}\n    validate accepted input that is invalid for sure`,
            );
          for (const args of manifestRuns(file, scenario)) {
            // simulate names the scenario (which names the file) for what happens at run time
            const r = await runner.run(args, args[0] === 'simulate' ? dir : file);
            count(c.class, r.outcome);
            if (r.outcome === 'internal' || r.outcome === 'hang' || r.outcome === 'unclear')
              bad.push(what(r, args));
            else if (rejected && r.outcome !== 'rejected')
              bad.push(
                `${what(r, args)}\n    validate rejects the file: this command must reject it too, naming the file`,
              );
          }
        }
      } finally {
        await runner.close();
      }
      const summary = Object.entries(tally)
        .map(
          ([k, v]) =>
            `${k}: ${Object.entries(v)
              .map(([o, n]) => `${n} ${o}`)
              .join(', ')}`,
        )
        .join('\n');
      process.stdout.write(`loader fuzz (seed ${SEED}, ${CASES} cases):\n${summary}\n`);
      expect(bad, `seed ${SEED} (KUBESIM_FUZZ_SEED=${SEED} KUBESIM_FUZZ_CASES=${CASES})`).toEqual([]);
      // every class ran, and both rejections and answers were seen
      expect(Object.keys(tally).length).toBe(Math.min(CASES, CLASSES.length));
    }, 1_800_000);
  },
);

// `kubesim bench <suite>`: runs the suites listed in bench/suites.ts and reports them.
import { type Command, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../util/atomic-write.js';
import { CliError, EXIT, UsageError } from './errors.js';
import {
  addOutputOptions,
  BASE_FORMATS,
  emit,
  isStructured,
  type OutputFlags,
  structured,
} from './output.js';
import { progress } from './progress.js';
import type { BenchSuite, BenchReport, BenchOptions } from '../../bench/harness.js';
import { runSuite, parseSizes, defaultArgs, BENCH_SCHEMA } from '../../bench/harness.js';
import { formatText, formatMarkdown, compareBaseline } from '../../bench/format.js';
import { renderHtml } from '../../bench/html.js';
import { SUITES } from '../../bench/suites.js';

interface CommonOpts extends OutputFlags {
  sizes?: string;
  quick?: boolean;
  time: string;
  seed: string;
  baseline?: string;
  tolerance: string;
  progress: boolean;
  /** former spellings: also write the JSON / markdown / HTML report to a file */
  json?: string;
  markdown?: string;
  html?: string;
}

/** The versioned JSON document (`--baseline` reads it back). */
function benchDocument(reports: BenchReport[], command: string) {
  return { schema: BENCH_SCHEMA, command, reports };
}

function render(format: string, reports: BenchReport[], command: string): string {
  if (format === 'json' || format === 'yaml') return structured(format, benchDocument(reports, command));
  if (format === 'markdown') return reports.map((r) => formatMarkdown(r, command)).join('\n');
  if (format === 'html') return renderHtml(reports, command);
  return reports.map((r) => `${formatText(r, { wide: format === 'wide' })}\n`).join('');
}

/**
 * Progress through a suite: the share of the sweep's sizes done, each size weighted by itself
 * (larger sizes take longer), so the ETA is rough early and firms up as the sweep goes.
 */
function sizeProgress(suite: BenchSuite, sizes: number[], enabled: boolean) {
  const bar = progress(`bench ${suite.name}`, enabled);
  const total = sizes.reduce((a, b) => a + b, 0) || 1;
  let n = 0;
  return {
    update(message: string, size?: number) {
      n++;
      const i = size === undefined ? -1 : sizes.indexOf(size);
      const before = i < 0 ? 0 : sizes.slice(0, i).reduce((a, b) => a + b, 0);
      bar.update(before, total, `#${n} ${message}`);
    },
    finish: bar.finish,
  };
}

async function runAndReport(
  suites: readonly BenchSuite[],
  o: CommonOpts,
  args: BenchOptions['args'] | 'suite-defaults',
  command: string,
): Promise<void> {
  const timeMs = Number(o.time);
  const seed = Number(o.seed);
  const tolerance = Number(o.tolerance);
  if (!Number.isFinite(timeMs) || timeMs <= 0)
    throw new UsageError(`--time must be a positive number of ms, got "${o.time}"`);
  if (!Number.isInteger(seed)) throw new UsageError(`--seed must be an integer, got "${o.seed}"`);
  if (!(tolerance >= 0)) throw new UsageError(`--tolerance must be a fraction >= 0, got "${o.tolerance}"`);
  let sizes: number[] | undefined;
  try {
    sizes = o.sizes ? parseSizes(o.sizes) : undefined;
  } catch (e) {
    throw new UsageError(`--sizes: ${(e as Error).message}`);
  }
  const base = o.baseline ? readBaseline(o.baseline) : undefined;
  const reports: BenchReport[] = [];
  for (const suite of suites) {
    const bar = sizeProgress(suite, sizes ?? (o.quick ? suite.quickSizes : suite.defaultSizes), o.progress);
    try {
      reports.push(
        await runSuite(suite, {
          sizes,
          quick: !!o.quick,
          timeMs,
          seed,
          args: args === 'suite-defaults' ? defaultArgs(suite) : args,
          progress: bar.update,
        }),
      );
    } finally {
      bar.finish();
    }
  }
  emit(o, render(o.output, reports, command));
  const also: [string | undefined, string][] = [
    [o.json, 'json'],
    [o.markdown, 'markdown'],
    [o.html, 'html'],
  ];
  for (const [file, format] of also) {
    if (!file) continue;
    try {
      writeFileAtomic(file, render(format, reports, command));
    } catch (e) {
      throw new CliError(`--${format} ${file}: cannot write: ${(e as Error).message}`);
    }
  }
  if (base) {
    const regs = compareBaseline(base, reports, tolerance);
    if (regs.length) {
      const lines = regs.map(
        (r) =>
          `  ${r.id}: ${r.before.toPrecision(4)} → ${r.after.toPrecision(4)} (${(r.change * 100).toFixed(1)}%)`,
      );
      throw new CliError(
        `${regs.length} result(s) regressed by more than ${(tolerance * 100).toFixed(0)}% against ${o.baseline}:\n${lines.join('\n')}`,
        EXIT.regression,
      );
    }
    process.stderr.write(`baseline ${o.baseline}: no regression beyond ${(tolerance * 100).toFixed(0)}%\n`);
  }
  const errored = reports.flatMap((r) => r.results).filter((r) => r.state === 'errored');
  if (errored.length)
    throw new CliError(
      `${errored.length} measurement(s) failed: ${errored.map((r) => `${r.id}: ${r.error}`).join('; ')}`,
    );
}

function readBaseline(file: string): BenchReport[] {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8'));
    if (parsed.schema !== BENCH_SCHEMA)
      throw new Error(`schema is "${parsed.schema}", expected "${BENCH_SCHEMA}"`);
    return parsed.reports;
  } catch (e) {
    throw new CliError(`--baseline ${file}: ${(e as Error).message}`);
  }
}

function addCommon(cmd: Command): Command {
  cmd
    .option('--sizes <list>', 'sizes to sweep, comma-separated (e.g. 1000,5000,15000 or 10k)')
    .option('--quick', 'short run: small sizes and time budgets (CI, smoke tests)')
    .option('--time <ms>', 'time budget per timed task in ms', '1000')
    .option('--seed <n>', 'seed for generated inputs', '1')
    .option(
      '--baseline <file>',
      'compare with an earlier -o json report; exit 3 when a throughput regresses beyond --tolerance',
    )
    .option('--tolerance <fraction>', 'allowed regression against --baseline', '0.2')
    .option('--no-progress', 'no progress on stderr')
    .addOption(new Option('--json <file>').hideHelp())
    .addOption(new Option('--markdown <file>').hideHelp())
    .addOption(new Option('--html <file>').hideHelp());
  return addOutputOptions(cmd, [...BASE_FORMATS, 'markdown', 'html']);
}

export function register(program: Command): void {
  const bench = program
    .command('bench')
    .description(
      'benchmarks comparing modes side by side (tinybench: warm-up, p50/p99, margin of error); see BENCHMARKS.md',
    );
  addCommon(
    bench.command('all').description(`run every suite in turn (${SUITES.map((s) => s.name).join(', ')})`),
  )
    .addHelpText(
      'after',
      `
Example:
  kubesim bench all --quick -o json --out bench.json`,
    )
    .action(async (o: CommonOpts) => {
      if (o.sizes)
        throw new UsageError(
          'bench all: --sizes means different things per suite; run one suite to set sizes',
        );
      await runAndReport(SUITES, o, 'suite-defaults', commandLine());
    });
  for (const suite of SUITES) {
    const cmd = addCommon(bench.command(suite.name).description(suite.description));
    for (const opt of suite.options ?? []) cmd.option(opt.flags, opt.description, opt.default);
    cmd.addHelpText(
      'after',
      `\nSizes are ${suite.sizeUnit}; default ${suite.defaultSizes.join(',')}, --quick ${suite.quickSizes.join(',')}.`,
    );
    cmd.action(async (o: CommonOpts & Record<string, string | boolean | undefined>) => {
      await runAndReport([suite], o, o, commandLine());
    });
  }
}

function commandLine(): string {
  return ['kubesim', ...process.argv.slice(2)].join(' ');
}

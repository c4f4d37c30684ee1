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
import {
  type BaselineComparison,
  type BaselineOptions,
  compareBaseline,
  formatMarkdown,
  formatText,
  NOISY_RME,
} from '../../bench/format.js';
import { renderHtml } from '../../bench/html.js';
import { SUITES } from '../../bench/suites.js';

interface CommonOpts extends OutputFlags {
  sizes?: string;
  quick?: boolean;
  time: string;
  seed: string;
  baseline?: string;
  tolerance: string;
  growthTolerance: string;
  normalize?: boolean;
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
  if (!Number.isFinite(timeMs) || timeMs <= 0)
    throw new UsageError(`--time must be a positive number of ms, got "${o.time}"`);
  if (!Number.isInteger(seed)) throw new UsageError(`--seed must be an integer, got "${o.seed}"`);
  let sizes: number[] | undefined;
  try {
    sizes = o.sizes ? parseSizes(o.sizes) : undefined;
  } catch (e) {
    throw new UsageError(`--sizes: ${(e as Error).message}`);
  }
  judgeOptions(o); // usage errors before a long run
  const base = o.baseline ? readBaseline(o.baseline, '--baseline ') : undefined;
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
  if (base) judge(compareBaseline(base, reports, judgeOptions(o)), o, o.baseline!);
  const errored = reports.flatMap((r) => r.results).filter((r) => r.state === 'errored');
  if (errored.length)
    throw new CliError(
      `${errored.length} measurement(s) failed: ${errored.map((r) => `${r.id}: ${r.error}`).join('; ')}`,
    );
}

interface JudgeFlags {
  tolerance: string;
  growthTolerance: string;
  normalize?: boolean;
}

function judgeOptions(o: JudgeFlags): BaselineOptions {
  const tolerance = Number(o.tolerance);
  if (!(tolerance >= 0)) throw new UsageError(`--tolerance must be a fraction >= 0, got "${o.tolerance}"`);
  const growthTolerance = Number(o.growthTolerance);
  if (!(growthTolerance >= 0))
    throw new UsageError(`--growth-tolerance must be a number >= 0, got "${o.growthTolerance}"`);
  return { tolerance, growthTolerance, normalize: !!o.normalize };
}

/**
 * Says what a comparison with a baseline found, on stderr; throws (exit 3) naming every result
 * that regressed beyond the tolerance and every growth exponent that rose beyond its tolerance.
 */
function judge(cmp: BaselineComparison, o: JudgeFlags, baseline: string): void {
  const { tolerance, growthTolerance, normalize } = judgeOptions(o);
  const factor = normalize ? `, machine factor ${cmp.machineFactor.toFixed(2)}× divided out` : '';
  if (cmp.noisy.length)
    process.stderr.write(
      `baseline ${baseline}: not judged (margin of error above ${NOISY_RME}% in either run): ${cmp.noisy.join(', ')}\n`,
    );
  const lines = [
    ...cmp.regressions.map(
      (r) =>
        `  ${r.id}: ${r.before.toPrecision(4)} → ${r.after.toPrecision(4)} (${(r.change * 100).toFixed(1)}%${normalize ? ' after the machine factor' : ''})`,
    ),
    ...cmp.growth.map(
      (g) => `  growth of ${g.series}: size^${g.before.toFixed(2)} → size^${g.after.toFixed(2)}`,
    ),
  ];
  if (lines.length)
    throw new CliError(
      `${lines.length} regression(s) against ${baseline} (throughput beyond ${(tolerance * 100).toFixed(0)}%, growth exponent beyond +${growthTolerance}${factor}):\n${lines.join('\n')}`,
      EXIT.regression,
    );
  process.stderr.write(
    `baseline ${baseline}: ${cmp.compared.length} result(s) compared, no regression beyond ${(tolerance * 100).toFixed(0)}% and no growth exponent up by more than ${growthTolerance}${factor}\n`,
  );
}

/** `bench compare`: the comparison as a table, or as data */
function renderComparison(format: string, cmp: BaselineComparison, tolerance: number): string {
  if (isStructured(format as OutputFlags['output'])) return structured(format as 'json' | 'yaml', cmp);
  const rows = [
    ['result', 'baseline', 'current', 'change', ''],
    ...cmp.compared.map((r) => [
      r.id,
      r.before.toPrecision(4),
      r.after.toPrecision(4),
      `${r.change >= 0 ? '+' : ''}${(r.change * 100).toFixed(1)}%`,
      r.change < -tolerance ? 'REGRESSED' : '',
    ]),
    ...cmp.noisy.map((id) => [id, '', '', '', 'not judged (noisy)']),
    ...cmp.growth.map((g) => [
      `growth of ${g.series}`,
      `k=${g.before.toFixed(2)}`,
      `k=${g.after.toFixed(2)}`,
      '',
      'REGRESSED',
    ]),
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const table = rows
    .map((r) =>
      r
        .map((cell, c) => cell.padEnd(widths[c]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
  return `${table}\nmachine factor (median current ÷ baseline): ${cmp.machineFactor.toFixed(3)}\n`;
}

function readBaseline(file: string, flag = ''): BenchReport[] {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8'));
    if (parsed.schema !== BENCH_SCHEMA)
      throw new Error(`schema is "${parsed.schema}", expected "${BENCH_SCHEMA}"`);
    return parsed.reports;
  } catch (e) {
    throw new CliError(`${flag}${file}: ${(e as Error).message}`);
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
    .option('--no-progress', 'no progress on stderr')
    .addOption(new Option('--json <file>').hideHelp())
    .addOption(new Option('--markdown <file>').hideHelp())
    .addOption(new Option('--html <file>').hideHelp());
  return addOutputOptions(addJudgeOptions(cmd), [...BASE_FORMATS, 'markdown', 'html']);
}

function addJudgeOptions(cmd: Command): Command {
  return cmd
    .option('--tolerance <fraction>', 'allowed throughput regression against the baseline', '0.2')
    .option(
      '--normalize',
      'divide out the median speed ratio first, so a uniformly faster or slower machine is not a regression',
    )
    .option('--growth-tolerance <k>', 'allowed rise of a fitted growth exponent (cost ∝ size^k)', '0.3');
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
  addJudgeOptions(
    addOutputOptions(
      bench
        .command('compare')
        .description(
          'compare two saved bench reports (-o json of earlier runs): exit 3 when a result or a growth exponent regressed',
        )
        .argument('<baseline>', 'the earlier report')
        .argument('<current>', 'the later report'),
    ),
  )
    .addHelpText(
      'after',
      `
Example:
  kubesim bench compare examples/bench/sim-before.json examples/bench/sim-after.json --normalize`,
    )
    .action((baseline: string, current: string, o: OutputFlags & JudgeFlags) => {
      const opts = judgeOptions(o);
      const cmp = compareBaseline(readBaseline(baseline), readBaseline(current), opts);
      emit(o, renderComparison(o.output, cmp, opts.tolerance));
      judge(cmp, o, baseline);
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

// `kubesim bench <suite>`: discovers bench/*.ts (dist/bench/*.js once built) exporting `suite`.
import type { Command } from 'commander';
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../util/paths.js';
import { CliError } from './errors.js';
import type { BenchSuite, BenchReport, BenchOptions } from '../../bench/harness.js';
import { runSuite, parseSizes, defaultArgs, BENCH_SCHEMA } from '../../bench/harness.js';
import { formatText, formatMarkdown, compareBaseline } from '../../bench/format.js';

const NOT_SUITES = new Set(['harness', 'format', 'html']);

/** Loads every suite module under bench/. */
export async function loadSuites(): Promise<BenchSuite[]> {
  const fromSource = import.meta.url.endsWith('.ts');
  const dir = fromSource ? join(packageRoot(), 'bench') : join(packageRoot(), 'dist', 'bench');
  const ext = fromSource ? '.ts' : '.js';
  if (!existsSync(dir)) return [];
  const suites: BenchSuite[] = [];
  for (const f of readdirSync(dir).sort()) {
    if (!f.endsWith(ext) || f.endsWith('.d.ts') || NOT_SUITES.has(f.slice(0, -ext.length))) continue;
    const mod = (await import(pathToFileURL(join(dir, f)).href)) as { suite?: BenchSuite };
    if (mod.suite) suites.push(mod.suite);
  }
  return suites;
}

interface CommonOpts {
  sizes?: string;
  quick?: boolean;
  time: string;
  seed: string;
  json?: string;
  markdown?: string;
  html?: string;
  baseline?: string;
  tolerance: string;
}

function progressWriter(suite: string): (msg: string) => void {
  const tty = process.stderr.isTTY;
  let n = 0;
  return (msg) => {
    n++;
    if (tty) process.stderr.write(`\r\x1b[K[${suite}] #${n} ${msg}`);
    else process.stderr.write(`[${suite}] #${n} ${msg}\n`);
  };
}

async function runAndReport(
  suites: BenchSuite[],
  o: CommonOpts,
  args: BenchOptions['args'] | 'suite-defaults',
  argv: string,
): Promise<void> {
  const timeMs = Number(o.time);
  const seed = Number(o.seed);
  const tolerance = Number(o.tolerance);
  if (!Number.isFinite(timeMs) || timeMs <= 0)
    throw new CliError(`--time must be a positive number of ms, got "${o.time}"`);
  if (!Number.isInteger(seed)) throw new CliError(`--seed must be an integer, got "${o.seed}"`);
  if (!(tolerance >= 0)) throw new CliError(`--tolerance must be a fraction >= 0, got "${o.tolerance}"`);
  let sizes: number[] | undefined;
  try {
    sizes = o.sizes ? parseSizes(o.sizes) : undefined;
  } catch (e) {
    throw new CliError(`--sizes: ${(e as Error).message}`);
  }
  const reports: BenchReport[] = [];
  for (const suite of suites) {
    const progress = progressWriter(suite.name);
    const suiteArgs = args === 'suite-defaults' ? defaultArgs(suite) : args;
    const report = await runSuite(suite, {
      sizes,
      quick: !!o.quick,
      timeMs,
      seed,
      args: suiteArgs,
      progress,
    });
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    reports.push(report);
    process.stdout.write(formatText(report) + '\n');
  }
  if (o.json)
    writeFileSync(o.json, JSON.stringify({ schema: BENCH_SCHEMA, command: argv, reports }, null, 2) + '\n');
  if (o.markdown) writeFileSync(o.markdown, reports.map((r) => formatMarkdown(r, argv)).join('\n'));
  if (o.html) {
    const { renderHtml } = await import('../../bench/html.js');
    writeFileSync(o.html, renderHtml(reports, argv));
  }
  if (o.baseline) {
    let base: BenchReport[];
    try {
      const parsed = JSON.parse(readFileSync(o.baseline, 'utf8'));
      if (parsed.schema !== BENCH_SCHEMA)
        throw new Error(`schema is "${parsed.schema}", expected "${BENCH_SCHEMA}"`);
      base = parsed.reports;
    } catch (e) {
      throw new CliError(`--baseline ${o.baseline}: ${(e as Error).message}`);
    }
    const regs = compareBaseline(base, reports, tolerance);
    if (regs.length) {
      const lines = regs.map(
        (r) =>
          `  ${r.id}: ${r.before.toPrecision(4)} → ${r.after.toPrecision(4)} (${(r.change * 100).toFixed(1)}%)`,
      );
      throw new CliError(
        `${regs.length} result(s) regressed by more than ${(tolerance * 100).toFixed(0)}% against ${o.baseline}:\n${lines.join('\n')}`,
        3,
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

function addCommon(cmd: Command): Command {
  return cmd
    .option('--sizes <list>', 'sizes to sweep, comma-separated (e.g. 1000,5000,15000 or 10k)')
    .option('--quick', 'short run: small sizes and time budgets (CI, smoke tests)')
    .option('--time <ms>', 'time budget per timed task in ms', '1000')
    .option('--seed <n>', 'seed for generated inputs', '1')
    .option('--json <file>', 'write the versioned JSON report (kubesim-bench/v1)')
    .option('--markdown <file>', 'write a markdown table (for BENCHMARKS.md)')
    .option('--html <file>', 'write a self-contained HTML report with SVG charts')
    .option('--baseline <file>', 'compare with an earlier --json report; exit 3 when a throughput regresses')
    .option('--tolerance <fraction>', 'allowed regression against --baseline', '0.2');
}

export async function register(program: Command): Promise<void> {
  const bench = program
    .command('bench')
    .description(
      'benchmarks comparing modes side by side (tinybench: warm-up, p50/p99, margin of error); see BENCHMARKS.md',
    );
  const suites = await loadSuites();
  addCommon(
    bench.command('all').description(`run every suite in turn (${suites.map((s) => s.name).join(', ')})`),
  ).action(async (o: CommonOpts) => {
    if (o.sizes)
      throw new CliError('bench all: --sizes means different things per suite; run one suite to set sizes');
    await runAndReport(suites, o, 'suite-defaults', commandLine());
  });
  for (const suite of suites) {
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

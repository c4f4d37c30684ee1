/**
 * Turns bench reports into text tables (terminal), markdown (BENCHMARKS.md) and a baseline check.
 * Side-by-side modes are printed in one row per (measurement, size) with ratios to the first mode,
 * so "wasm is 4.1× js" is read off one run rather than compared across runs.
 */
import { RATIO_UNIT, type BenchReport, type BenchResult } from './harness.js';

/** 1234567 → "1.23M", 0.5 → "0.5" */
export function human(n: number | undefined): string {
  if (n === undefined || Number.isNaN(n)) return '-';
  if (!Number.isFinite(n)) return '∞';
  const a = Math.abs(n);
  if (a >= 1e9) return (n / 1e9).toFixed(2) + 'G';
  if (a >= 1e6) return (n / 1e6).toFixed(2) + 'M';
  if (a >= 1e4) return (n / 1e3).toFixed(1) + 'k';
  if (a >= 100) return n.toFixed(0);
  if (a >= 1) return n.toFixed(2);
  return n.toPrecision(2);
}

export function ms(n: number | undefined): string {
  if (n === undefined) return '-';
  if (n >= 1000) return (n / 1000).toFixed(2) + ' s';
  if (n >= 1) return n.toFixed(2) + ' ms';
  return (n * 1000).toFixed(1) + ' µs';
}

interface Group {
  name: string;
  size?: number;
  byMode: Map<string, BenchResult>;
}

function groups(results: BenchResult[]): Group[] {
  const out = new Map<string, Group>();
  for (const r of results) {
    const key = `${r.name}|${r.size ?? ''}`;
    let g = out.get(key);
    if (!g) {
      g = { name: r.name, size: r.size, byMode: new Map() };
      out.set(key, g);
    }
    g.byMode.set(r.mode ?? '-', r);
  }
  return [...out.values()];
}

/**
 * A relative margin of error above this (percent) makes a result unreliable: tables and charts
 * flag it, so a reader does not compare modes on noise.
 */
export const NOISY_RME = 10;

export function isNoisy(r: BenchResult): boolean {
  return r.throughput !== undefined && (r.rme ?? 0) > NOISY_RME;
}

/** "±3.1%", or "±66.6% (noisy)" above NOISY_RME */
export function rmeText(r: BenchResult): string {
  return `±${(r.rme ?? 0).toFixed(1)}%${isNoisy(r) ? ' (noisy)' : ''}`;
}

function cell(r: BenchResult, wide = false): string {
  if (r.state === 'skipped') return `skipped (${r.reason})`;
  if (r.state === 'errored') return `error: ${r.error}`;
  const parts: string[] = [];
  if (r.throughput !== undefined)
    parts.push(
      `${human(r.throughput)} ${r.unit ?? 'ops'}/s ${rmeText(r)}  p50 ${ms(r.latency?.p50)} p99 ${ms(r.latency?.p99)}` +
        (wide
          ? ` p99.9 ${ms(r.latency?.p999)} min ${ms(r.latency?.min)} max ${ms(r.latency?.max)} samples ${r.samples ?? '-'}`
          : ''),
    );
  if (r.figures)
    parts.push(
      Object.entries(r.figures)
        .map(([k, v]) => `${k}=${human(v)}`)
        .join(' '),
    );
  return parts.join('  ');
}

/** 2.46 → "2.46× js"; 0.0005 → "1/2150 of memory" (a 0.00× would hide the figure) */
export function ratioText(ratio: number, base: string): string {
  return ratio >= 0.1 ? `${ratio.toFixed(2)}× ${base}` : `1/${Math.round(1 / ratio)} of ${base}`;
}

function rowsOf(report: BenchReport, wide = false): string[][] {
  const rows: string[][] = [];
  for (const g of groups(report.results)) {
    const modes = [...g.byMode.keys()];
    const first = g.byMode.get(modes[0])!;
    for (const m of modes) {
      const r = g.byMode.get(m)!;
      const ratio =
        m !== modes[0] && r.throughput && first.throughput
          ? ratioText(r.throughput / first.throughput, modes[0])
          : '';
      rows.push([
        g.name,
        g.size !== undefined ? `${g.size} ${r.sizeUnit ?? ''}`.trim() : '',
        m === '-' ? '' : m,
        cell(r, wide),
        ratio,
      ]);
    }
  }
  return rows;
}

/** Plain-text table for the terminal; wide adds p99.9, min, max and the sample count. */
export function formatText(report: BenchReport, opts: { wide?: boolean } = {}): string {
  const head = ['measurement', 'size', 'mode', 'result', 'ratio'];
  const rows = rowsOf(report, opts.wide);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  const m = report.machine;
  return [
    `suite ${report.suite} — ${m.cpus} cpus (${m.cpuModel}), ${m.memoryGiB} GiB, node ${m.node}, ${(report.durationMs / 1000).toFixed(1)} s`,
    line(head),
    ...rows.map(line),
    ...fitGrowth(report).map((g) => `growth: ${growthText(g)}`),
    ...report.notes.map((n) => `note: ${n}`),
    ...(report.results.some(isNoisy)
      ? [
          `note: (noisy) marks a margin of error above ${NOISY_RME}%: rerun on a quieter machine or with a larger --time`,
        ]
      : []),
    '',
  ].join('\n');
}

/** Markdown table for BENCHMARKS.md. */
export function formatMarkdown(report: BenchReport, command?: string): string {
  const m = report.machine;
  const out = [`### ${report.suite}`, ''];
  if (command) out.push('```sh', command, '```', '');
  out.push(
    `Machine: ${m.cpus} cpus (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}; ${report.startedAt}.`,
    '',
  );
  out.push('| measurement | size | mode | result | ratio |', '|---|---|---|---|---|');
  for (const r of rowsOf(report)) out.push(`| ${r.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`);
  for (const g of fitGrowth(report)) out.push('', `- growth: ${growthText(g)}`);
  for (const n of report.notes) out.push('', `- ${n}`);
  if (report.results.some(isNoisy)) out.push('', `- (noisy) marks a margin of error above ${NOISY_RME}%.`);
  return out.join('\n') + '\n';
}

export interface Regression {
  id: string;
  before: number;
  after: number;
  /** after ÷ before − 1, after the machine factor is divided out (see {@link BaselineOptions.normalize}) */
  change: number;
}

/** A series whose fitted growth exponent rose: a change in complexity, whatever the machine. */
export interface GrowthRegression {
  series: string;
  before: number;
  after: number;
}

export interface BaselineOptions {
  /** allowed throughput regression as a fraction (0.2 = 20 %) */
  tolerance: number;
  /**
   * Divide every ratio by the median ratio of all compared results first, so that a machine that
   * is uniformly faster or slower than the baseline's (another CPU model, a loaded CI runner) does
   * not read as a regression; one result slower than the rest still does.
   */
  normalize?: boolean;
  /** allowed rise of a fitted growth exponent k (cost ∝ size^k); default 0.3 */
  growthTolerance?: number;
}

export interface BaselineComparison {
  /** every result measured in both reports and not noisy, in the current report's order */
  compared: Regression[];
  regressions: Regression[];
  growth: GrowthRegression[];
  /** median after ÷ before over the compared results (1 when not normalizing) */
  machineFactor: number;
  /** results left out because either run measured them with a margin of error above NOISY_RME */
  noisy: string[];
}

/**
 * Compares throughput with a baseline report: a result regresses when it is slower than the
 * baseline by more than `tolerance`. Results present in only one report are ignored, and so are
 * results either run flagged noisy (they are listed instead). Growth exponents of series fitted in
 * both reports regress when k rises by more than `growthTolerance`: that is independent of the
 * machine's speed.
 */
export function compareBaseline(
  baseline: BenchReport[],
  current: BenchReport[],
  o: BaselineOptions,
): BaselineComparison {
  const before = new Map<string, BenchResult>();
  for (const rep of baseline)
    for (const r of rep.results) if (r.throughput !== undefined) before.set(r.id, r);
  const pairs: { id: string; b: number; a: number }[] = [];
  const noisy: string[] = [];
  for (const rep of current) {
    for (const r of rep.results) {
      const b = before.get(r.id);
      if (!b || r.throughput === undefined || !(b.throughput! > 0) || !Number.isFinite(r.throughput))
        continue;
      if (isNoisy(r) || isNoisy(b)) {
        noisy.push(r.id);
        continue;
      }
      pairs.push({ id: r.id, b: b.throughput!, a: r.throughput });
    }
  }
  // rows whose unit is "ratio" (two modes measured side by side) do not depend on the machine's speed
  const ratioRows = new Set<string>();
  for (const rep of current) for (const r of rep.results) if (r.unit === RATIO_UNIT) ratioRows.add(r.id);
  const ratios = pairs
    .filter((p) => !ratioRows.has(p.id))
    .map((p) => p.a / p.b)
    .sort((x, y) => x - y);
  const machineFactor =
    o.normalize && ratios.length
      ? ratios.length % 2
        ? ratios[(ratios.length - 1) / 2]
        : Math.sqrt(ratios[ratios.length / 2 - 1] * ratios[ratios.length / 2])
      : 1;
  const compared: Regression[] = pairs.map((p) => ({
    id: p.id,
    before: p.b,
    after: p.a,
    change: p.a / p.b / (ratioRows.has(p.id) ? 1 : machineFactor) - 1,
  }));
  const regressions = compared.filter((r) => r.change < -o.tolerance);
  const gTol = o.growthTolerance ?? 0.3;
  const key = (g: Growth) => `${g.name}${g.mode === '-' ? '' : ` (${g.mode})`}`;
  const kBefore = new Map<string, number>();
  for (const rep of baseline)
    for (const g of fitGrowth(rep)) kBefore.set(`${rep.suite}: ${key(g)}`, g.exponent);
  const growth: GrowthRegression[] = [];
  for (const rep of current)
    for (const g of fitGrowth(rep)) {
      const series = `${rep.suite}: ${key(g)}`;
      const k = kBefore.get(series);
      if (k !== undefined && g.exponent - k > gTol) growth.push({ series, before: k, after: g.exponent });
    }
  return { compared, regressions, growth, machineFactor, noisy };
}

export interface Growth {
  name: string;
  mode: string;
  exponent: number;
  points: number;
  label: string;
}

/** "plan growth (zone spread, 5000 nodes): cost ∝ size^1.04 — O(N) over 4 sizes" */
export function growthText(g: Growth): string {
  const mode = g.mode === '-' ? '' : ` (${g.mode})`;
  return `${g.name}${mode}: cost ∝ size^${g.exponent.toFixed(2)} — ${g.label} over ${g.points} sizes`;
}

/**
 * Fits cost ∝ size^k by least squares on log–log (cost = mean iteration latency) for every
 * (measurement, mode) measured at ≥ 3 sizes; k ≈ 0 reads as O(1), ≈ 1 as O(N), ≈ 2 as O(N²).
 */
export function fitGrowth(report: BenchReport): Growth[] {
  const series = new Map<string, { name: string; mode: string; xs: number[]; ys: number[] }>();
  for (const r of report.results) {
    if (r.state !== 'completed' || r.size === undefined || !r.latency || r.latency.mean <= 0) continue;
    const key = `${r.name}|${r.mode ?? '-'}`;
    let s = series.get(key);
    if (!s) {
      s = { name: r.name, mode: r.mode ?? '-', xs: [], ys: [] };
      series.set(key, s);
    }
    s.xs.push(Math.log(r.size));
    s.ys.push(Math.log(r.latency.mean));
  }
  const out: Growth[] = [];
  for (const s of series.values()) {
    const n = s.xs.length;
    if (n < 3) continue;
    const mx = s.xs.reduce((a, b) => a + b, 0) / n,
      my = s.ys.reduce((a, b) => a + b, 0) / n;
    let num = 0,
      den = 0;
    for (let i = 0; i < n; i++) {
      num += (s.xs[i] - mx) * (s.ys[i] - my);
      den += (s.xs[i] - mx) ** 2;
    }
    if (den === 0) continue;
    const k = num / den;
    const label =
      k < 0.25
        ? 'O(1)'
        : k < 0.75
          ? `O(N^${k.toFixed(2)})`
          : k < 1.3
            ? 'O(N)'
            : k < 1.75
              ? 'O(N log N)…O(N^1.5)'
              : 'O(N²)';
    out.push({ name: s.name, mode: s.mode, exponent: k, points: n, label });
  }
  return out;
}

/**
 * Presenting a sweep (sweep.ts): a table with one row per grid point (each metric's mean over the
 * seeds, ± its standard deviation), and an HTML page charting each metric against the first swept
 * parameter, one line per combination of the others, the spread over seeds as min–max in the table.
 */
import { type Page, renderPage } from '../report/html.js';
import { type LineSeries, lineChart } from '../report/svg.js';
import { table } from '../report/table.js';
import { SWEEP_METRICS, type SweepMetricName } from '../sim/sweep-run.js';
import type { MetricSpread, SweepResult } from './sweep.js';

/** The metrics the table shows; -o wide shows every one. */
const TABLE_METRICS: SweepMetricName[] = [
  'convergedS',
  'startupP99S',
  'apiRequests',
  'tooManyRequests',
  'apiLatencyP99Ms',
];

const HEADERS: Record<SweepMetricName, string> = {
  convergedS: 'CONVERGED',
  startupP50S: 'STARTUP P50',
  startupP99S: 'STARTUP P99',
  schedulingP99S: 'SCHEDULING P99',
  podsReady: 'PODS READY',
  pendingAtEnd: 'PENDING',
  apiRequests: 'API REQUESTS',
  tooManyRequests: '429s',
  failedAfterRetries: 'FAILED AFTER RETRIES',
  peakMutatingInflight: 'PEAK MUTATING',
  peakInflight: 'PEAK READ-ONLY',
  apiLatencyP50Ms: 'API P50',
  apiLatencyP99Ms: 'API P99',
  evictions: 'EVICTIONS',
  firstEvictionS: 'FIRST EVICTION',
  kubeletEvictions: 'KUBELET EVICTIONS',
};

function num(v: number, unit: string): string {
  const r = Math.abs(v) >= 100 || Number.isInteger(v) ? Math.round(v) : Math.round(v * 100) / 100;
  return unit === 's' || unit === 'ms' ? `${r}${unit}` : String(r);
}

/** "12.5s ±0.4" (mean ± sd over the seeds), "-" with no value, "12s ±0 (2/3)" when some runs had none */
export function formatSpread(s: MetricSpread, unit: string, runs: number): string {
  if (s.mean === null) return '-';
  let t = num(s.mean, unit);
  if (runs > 1) t += ` ±${num(s.sd ?? 0, '')}`;
  if (s.n < runs) t += ` (${s.n}/${runs})`;
  return t;
}

/** The table's metric columns: `metrics` when given, every one for wide, else the usual few. */
export function formatSweepTable(
  r: SweepResult,
  opts: { wide?: boolean; metrics?: SweepMetricName[] } = {},
): string {
  const metrics =
    opts.metrics ??
    (Object.keys(SWEEP_METRICS) as SweepMetricName[]).filter((m) => opts.wide || TABLE_METRICS.includes(m));
  const runs = r.seeds.length;
  const head = `Sweep of ${r.scenario}: ${r.points.length} point(s) × ${runs} seed(s)${
    r.shard ? `, shard ${r.shard.index}/${r.shard.count} (${r.runs.length} of ${r.totalRuns} runs)` : ''
  }; mean ±sd over the seeds\n\n`;
  return (
    head +
    table(
      [...r.parameters.map((p) => p.path), ...metrics.map((m) => HEADERS[m])],
      r.points.map((p) => [
        ...r.parameters.map((q) => String(p.values[q.path])),
        ...metrics.map((m) =>
          formatSpread(p.metrics[m], SWEEP_METRICS[m].unit, r.runs.filter((x) => x.point === p.point).length),
        ),
      ]),
    )
  );
}

/**
 * The HTML page: per metric, a chart of its mean against the first parameter (numeric values on a
 * numeric axis, otherwise by position), one line per combination of the other parameters.
 */
export function renderSweepReport(r: SweepResult, command?: string): string {
  const [first, ...rest] = r.parameters;
  const numeric = !!first && first.values.every((v) => typeof v === 'number');
  const xOf = (v: unknown) => (numeric ? (v as number) : first ? first.values.indexOf(v) : 0);
  const key = (values: Record<string, unknown>) =>
    rest.map((p) => `${p.path}=${String(values[p.path])}`).join(' ') || 'mean over seeds';
  const metrics = Object.keys(SWEEP_METRICS) as SweepMetricName[];
  const charts = metrics
    .filter((m) => r.points.some((p) => p.metrics[m].mean !== null))
    .map((m) => {
      const lines = new Map<string, [number, number][]>();
      for (const p of r.points) {
        const v = p.metrics[m].mean;
        if (v === null) continue;
        const k = key(p.values);
        lines.set(k, [...(lines.get(k) ?? []), [first ? xOf(p.values[first.path]) : 0, v]]);
      }
      const series: LineSeries[] = [...lines].map(([name, points]) => ({
        name,
        points: points.sort((a, b) => a[0] - b[0]),
      }));
      return {
        kind: 'chart' as const,
        svg: lineChart(series, {
          title: `${HEADERS[m].toLowerCase()} (${SWEEP_METRICS[m].unit}): ${SWEEP_METRICS[m].help}`,
          xLabel: first?.path ?? 'seed',
          yLabel: SWEEP_METRICS[m].unit,
          xFormat: numeric || !first ? undefined : (x: number) => String(first.values[Math.round(x)] ?? ''),
          xInteger: !numeric,
        }),
      };
    });
  const page: Page = {
    title: `kubesim sweep: ${r.scenario}`,
    subtitle: `${r.points.length} point(s) × ${r.seeds.length} seed(s) (${r.seeds.join(', ')})${r.shard ? ` · shard ${r.shard.index}/${r.shard.count}` : ''}`,
    command,
    sections: [
      { title: 'Metrics against the swept values (mean over the seeds)', blocks: charts },
      {
        title: 'Every point (mean, min–max over the seeds)',
        blocks: [
          {
            kind: 'table',
            headers: [...r.parameters.map((p) => p.path), ...metrics.map((m) => HEADERS[m])],
            rows: r.points.map((p) => [
              ...r.parameters.map((q) => String(p.values[q.path])),
              ...metrics.map((m) => {
                const s = p.metrics[m];
                return s.mean === null
                  ? '-'
                  : `${num(s.mean, SWEEP_METRICS[m].unit)} (${num(s.min!, '')}–${num(s.max!, '')})`;
              }),
            ]),
          },
        ],
      },
    ],
  };
  return renderPage(page);
}

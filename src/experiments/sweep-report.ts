/**
 * Presenting a sweep (sweep.ts): a table with one row per grid point (each metric's mean over the
 * seeds, ± its standard deviation), and an HTML page charting each metric against the first swept
 * parameter, one line per combination of the others, the spread over seeds as min–max in the table.
 */
import { type Page, renderPage } from '../report/html.js';
import { type LineSeries, lineChart } from '../report/svg.js';
import { table } from '../report/table.js';
import { formatMetric, formatSpread, RUN_METRICS, type RunMetricName } from '../sim/run-metrics.js';
import type { SweepResult } from './sweep.js';

/** The metrics the table shows; -o wide and the HTML page show every one of SWEEP_METRICS. */
const TABLE_METRICS: RunMetricName[] = [
  'convergedS',
  'startupP99S',
  'apiRequests',
  'tooManyRequests',
  'apiLatencyP99Ms',
];

/** What a sweep reports of each run (`--metrics` may name any other of RUN_METRICS). */
export const SWEEP_METRICS: RunMetricName[] = [
  'convergedS',
  'startupP50S',
  'startupP99S',
  'schedulingP99S',
  'podsReady',
  'pendingAtEnd',
  'apiRequests',
  'tooManyRequests',
  'failedAfterRetries',
  'peakMutatingInflight',
  'peakInflight',
  'apiLatencyP50Ms',
  'apiLatencyP99Ms',
  'evictions',
  'firstEvictionS',
  'kubeletEvictions',
];

const header = (m: RunMetricName) => RUN_METRICS[m].header;

/** The table's metric columns: `metrics` when given, every one for wide, else the usual few. */
export function formatSweepTable(
  r: SweepResult,
  opts: { wide?: boolean; metrics?: RunMetricName[] } = {},
): string {
  const metrics = opts.metrics ?? SWEEP_METRICS.filter((m) => opts.wide || TABLE_METRICS.includes(m));
  const runs = r.seeds.length;
  const head = `Sweep of ${r.scenario}: ${r.points.length} point(s) × ${runs} seed(s)${
    r.shard ? `, shard ${r.shard.index}/${r.shard.count} (${r.runs.length} of ${r.totalRuns} runs)` : ''
  }; mean ±sd over the seeds\n\n`;
  return (
    head +
    table(
      [...r.parameters.map((p) => p.path), ...metrics.map(header)],
      r.points.map((p) => [
        ...r.parameters.map((q) => String(p.values[q.path])),
        ...metrics.map((m) =>
          formatSpread(p.metrics[m], RUN_METRICS[m].unit, r.runs.filter((x) => x.point === p.point).length),
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
  const metrics = SWEEP_METRICS;
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
          title: `${header(m).toLowerCase()} (${RUN_METRICS[m].unit}): ${RUN_METRICS[m].help}`,
          xLabel: first?.path ?? 'seed',
          yLabel: RUN_METRICS[m].unit,
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
            headers: [...r.parameters.map((p) => p.path), ...metrics.map(header)],
            rows: r.points.map((p) => [
              ...r.parameters.map((q) => String(p.values[q.path])),
              ...metrics.map((m) => {
                const s = p.metrics[m];
                return s.mean === null
                  ? '-'
                  : `${formatMetric(s.mean, RUN_METRICS[m].unit)} (${formatMetric(s.min!, '')}–${formatMetric(s.max!, '')})`;
              }),
            ]),
          },
        ],
      },
    ],
  };
  return renderPage(page);
}

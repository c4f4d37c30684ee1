/**
 * The side-by-side report of {@link compareSimulations}: a text table (one column per strategy,
 * one row per metric; with several seeds `mean ±stddev`, and min–max with wide) and a
 * self-contained HTML page with each series of every strategy overlaid on one chart.
 */
import { renderPage, type Section } from '../report/html.js';
import { lineChart } from '../report/svg.js';
import { table } from '../report/table.js';
import { METRICS, type SimComparison, type Spread } from './compare.js';

function fmt(v: number, unit: 'n' | '%' | 'ms'): string {
  if (unit === 'ms') return v >= 1000 ? `${Math.round(v / 10) / 100}s` : `${Math.round(v)}ms`;
  if (unit === '%') return `${Math.round(v * 10) / 10}%`;
  return String(Math.round(v * 10) / 10);
}

function cell(s: Spread, unit: 'n' | '%' | 'ms', seeds: number, wide: boolean): string {
  if (seeds === 1) return fmt(s.mean, unit);
  const base = `${fmt(s.mean, unit)} ±${fmt(s.stddev, unit)}`;
  return wide ? `${base} (${fmt(s.min, unit)}–${fmt(s.max, unit)})` : base;
}

export function renderComparisonText(c: SimComparison, opts: { wide?: boolean } = {}): string {
  const seeds = c.seeds.length;
  const head =
    seeds === 1
      ? `Scenario ${c.scenario}: ${c.strategies.length} strategies, seed ${c.seeds[0]}\n\n`
      : `Scenario ${c.scenario}: ${c.strategies.length} strategies, ${seeds} seeds (${c.seeds[0]}…${c.seeds.at(-1)}): mean ±stddev${opts.wide ? ' (min–max)' : ''}\n\n`;
  const rows = METRICS.map((m) => [
    m.label,
    ...c.strategies.map((s) => cell(s.summary[m.key], m.unit, seeds, !!opts.wide)),
  ]);
  return head + table(['METRIC', ...c.strategies.map((s) => s.strategy)], rows);
}

export function renderComparisonHtml(c: SimComparison, command: string): string {
  const markers = c.timeline.map((e) => ({ x: e.atS, label: e.label }));
  const time = { xTime: true, xLabel: 'time', markers, xDomain: [0, c.durationS] as [number, number] };
  const chart = (
    title: string,
    yLabel: string,
    pick: (s: SimComparison['strategies'][number]['series']) => number[],
  ) =>
    lineChart(
      c.strategies.map((s) => ({
        name: s.strategy,
        points: s.series.t.map((t, i) => [t, pick(s.series)[i] ?? 0] as [number, number]),
      })),
      { title, yLabel, step: true, ...time },
    );
  const seeds = c.seeds.length;
  const sections: Section[] = [
    {
      title: 'Side by side',
      blocks: [
        {
          kind: 'table',
          caption: seeds === 1 ? `seed ${c.seeds[0]}` : `${seeds} seeds: mean ±stddev (min–max)`,
          headers: ['metric', ...c.strategies.map((s) => s.strategy)],
          rows: METRICS.map((m) => [
            m.label,
            ...c.strategies.map((s) => cell(s.summary[m.key], m.unit, seeds, true)),
          ]),
        },
      ],
    },
    {
      title: `Over time (seed ${c.seeds[0]})`,
      blocks: [
        { kind: 'chart', svg: chart('Nodes used', 'nodes', (s) => s.nodesUsed) },
        { kind: 'chart', svg: chart('Pods pending', 'pods', (s) => s.pending) },
        { kind: 'chart', svg: chart('CPU utilization of used nodes', '%', (s) => s.cpuUtilization) },
      ],
    },
  ];
  return renderPage({
    title: `Scheduler strategies: ${c.scenario}`,
    subtitle: `${c.strategies.map((s) => s.strategy).join(' vs ')}; ${c.durationS}s simulated per run`,
    sections,
    command,
  });
}

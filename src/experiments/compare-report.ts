/**
 * The side-by-side report of {@link compareSimulations}: a text table (one column per strategy,
 * one row per metric; with several seeds `mean ±sd`, and min–max with wide: the figures and
 * format of a sweep's table, src/sim/run-metrics.ts) and a
 * self-contained HTML page with each series of every strategy overlaid on one chart.
 */
import { renderPage, type Section } from '../report/html.js';
import { lineChart } from '../report/svg.js';
import { table } from '../report/table.js';
import { formatSpread, RUN_METRICS } from '../sim/run-metrics.js';
import { METRICS, type SimComparison } from './compare.js';

export function renderComparisonText(c: SimComparison, opts: { wide?: boolean } = {}): string {
  const seeds = c.seeds.length;
  const head =
    seeds === 1
      ? `Scenario ${c.scenario}: ${c.strategies.length} strategies, seed ${c.seeds[0]}\n\n`
      : `Scenario ${c.scenario}: ${c.strategies.length} strategies, ${seeds} seeds (${c.seeds[0]}…${c.seeds.at(-1)}): mean ±sd${opts.wide ? ' (min–max)' : ''}\n\n`;
  const rows = METRICS.map((m) => [
    RUN_METRICS[m].label,
    ...c.strategies.map((s) => formatSpread(s.summary[m], RUN_METRICS[m].unit, seeds, !!opts.wide)),
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
          caption: seeds === 1 ? `seed ${c.seeds[0]}` : `${seeds} seeds: mean ±sd (min–max)`,
          headers: ['metric', ...c.strategies.map((s) => s.strategy)],
          rows: METRICS.map((m) => [
            RUN_METRICS[m].label,
            ...c.strategies.map((s) => formatSpread(s.summary[m], RUN_METRICS[m].unit, seeds, true)),
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

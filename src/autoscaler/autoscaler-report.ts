/**
 * The cluster-autoscaler part of a simulation's report: node groups, nodes and cost over time and
 * the decision log, as text (the `simulate` summary) and as an HTML section (sim/report.ts).
 */
import type { Section } from '../report/html.js';
import { lineChart, type ChartOptions } from '../report/svg.js';
import { table } from '../report/table.js';
import { clockTime } from '../report/units.js';
import type { AutoscalerResult } from './cluster-autoscaler.js';

/** One row per node group: zone, bounds, price, nodes at start, peak and end. */
function groupRows(a: AutoscalerResult): (string | number)[][] {
  return a.groups.map((g) => [
    g.name,
    g.zone,
    g.min,
    g.max,
    g.costPerHour,
    g.nodesAtStart,
    g.peakNodes,
    g.nodesAtEnd,
  ]);
}

/** Node groups, totals and the decisions (all with `wide`, else the last 15). */
export function autoscalerText(a: AutoscalerResult, opts: { wide?: boolean } = {}): string {
  const out: string[] = [];
  out.push(
    table(['NODE GROUP', 'ZONE', 'MIN', 'MAX', 'COST/H', 'START', 'PEAK', 'END'], groupRows(a)).trimEnd(),
  );
  out.push(
    `Cluster autoscaler (expander ${a.expander}): ${a.scaleUps} scale-up(s), ${a.nodesAdded} node(s) added, ${a.nodesRemoved} removed, ${a.failedScaleUps} failed scale-up(s); ${a.nodeHours} node-hours, cost ${a.cost}`,
  );
  const shown = opts.wide ? a.decisions : a.decisions.slice(-15);
  if (shown.length) {
    out.push('');
    out.push(
      table(
        ['AT', 'DECISION', 'EXPLANATION'],
        shown.map((d) => [clockTime(d.atS), d.kind, d.message]),
      ).trimEnd(),
    );
  }
  return out.join('\n');
}

/** Nodes per group and cost per hour over time, and the decision log. */
export function autoscalerSection(a: AutoscalerResult, time: Omit<ChartOptions, 'title'>): Section {
  const s = a.series;
  const pts = (ys: number[]) => s.t.map((t, i) => [t, ys[i]!] as [number, number]);
  return {
    title: `Cluster autoscaler (expander ${a.expander})`,
    blocks: [
      {
        kind: 'chart',
        svg: lineChart(
          [
            ...Object.entries(s.perGroup).map(([name, ys]) => ({ name, points: pts(ys) })),
            { name: 'requested, not registered', points: pts(s.upcoming) },
          ],
          { ...time, title: 'Nodes per node group', yLabel: 'nodes', step: true },
        ),
      },
      {
        kind: 'chart',
        svg: lineChart([{ name: 'cost per hour', points: pts(s.costPerHour) }], {
          ...time,
          title: `Cost per hour (total ${a.cost} over ${a.nodeHours} node-hours)`,
          yLabel: 'cost/h',
          step: true,
        }),
      },
      {
        kind: 'table',
        headers: ['node group', 'zone', 'min', 'max', 'cost/h', 'start', 'peak', 'end'],
        rows: groupRows(a),
      },
      {
        kind: 'table',
        headers: ['at', 'decision', 'explanation'],
        rows: a.decisions.slice(-300).map((d) => [clockTime(d.atS), d.kind, d.message]),
      },
    ],
  };
}

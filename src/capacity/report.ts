/**
 * Renders capacity plans for people: text tables (`-o table|wide`) and self-contained HTML pages
 * (src/report: inline SVG, no scripts, no external assets). Amounts are in the units people use
 * (cores, binary bytes); the json/yaml output keeps the exact numbers.
 */
import { type Block, type Page, renderPage, type Section } from '../report/html.js';
import { barChart, lineChart } from '../report/svg.js';
import { table } from '../report/table.js';
import { resourceAmount } from '../report/units.js';
import { formatQuantity, intQuantity, milliQuantity } from '../api/quantity.js';
import type { MinNodesChoice, MinNodesResult, PlanReport, ShapePlan } from './planner.js';
import type { StrategyResult } from './strategies.js';

/** One case of `plan --sweep`: the base cluster or one what-if. */
export interface SweepCase {
  case: string;
  report: PlanReport;
}

/** Requests as kubectl prints them (`cpu=333m memory=1536Mi`): exact, in canonical quantity form. */
function requestsText(r: Record<string, number>): string {
  const parts = Object.entries(r)
    .filter(([k]) => k !== 'pods')
    .map(([k, v]) => `${k}=${exactAmount(k, v)}`);
  return parts.length ? parts.join(' ') : 'no requests';
}

function exactAmount(resource: string, v: number): string {
  if (!Number.isInteger(v)) return resourceAmount(resource, v);
  if (resource === 'cpu') return formatQuantity(milliQuantity(v));
  if (resource === 'memory' || resource === 'ephemeral-storage' || resource.startsWith('hugepages-'))
    return formatQuantity(intQuantity(v, 'BinarySI'));
  return String(v);
}

const fitsText = (s: ShapePlan) => (s.limitReached ? `≥${s.fits}` : String(s.fits));

function stoppedBy(s: ShapePlan): string {
  if (s.limitReached) return 'limit (--max)';
  if (s.stopReasons)
    return Object.entries(s.stopReasons)
      .sort((a, b) => b[1] - a[1])
      .map(([r, n]) => `${n} ${r}`)
      .join(', ');
  return s.stopReason ?? '';
}

function fragmentationLine(s: ShapePlan): string {
  const f = s.fragmentation;
  const parts = Object.entries(f.totals).map(
    ([r, t]) =>
      `${r}: ${resourceAmount(r, t.free)} free, ${resourceAmount(r, t.stranded)} stranded (${t.strandedPct.toFixed(1)}%)`,
  );
  return `fragmentation: ${parts.join('; ')}; ${f.nodesWithStrandedRoom} node(s) have room but not enough for one replica`;
}

function header(rep: PlanReport): string[] {
  const out = [
    `${rep.nodes} nodes${rep.applied.length ? ` after: ${rep.applied.join('; ')}` : ''} (kernel ${rep.kernel}, seed ${rep.seed})`,
  ];
  if (rep.displaced.total) {
    out.push(
      `displaced pods: ${rep.displaced.total}, placed again ${rep.displaced.placed}, unschedulable ${rep.displaced.unschedulable.length}`,
    );
    for (const u of rep.displaced.unschedulable.slice(0, 10)) out.push(`  ${u.pod}: ${u.reason}`);
  }
  out.push(...workloadLines(rep));
  return out;
}

/** The plan as text; `wide` lists every node (not only the top 15) and the per-zone counts inline. */
export function renderPlanText(rep: PlanReport, opts: { wide?: boolean; topNodes?: number } = {}): string {
  const top = opts.wide ? Infinity : (opts.topNodes ?? 15);
  const out = header(rep);
  out.push('');
  out.push(
    table(
      ['SHAPE', 'REQUESTS', 'FITS', 'BY RESOURCES ALONE', { header: 'PER ZONE', wide: true }, 'STOPPED BY'],
      rep.shapes.map((s) => [
        s.shape,
        requestsText(s.requests),
        fitsText(s),
        String(s.fragmentation.fitsByResources),
        Object.entries(s.perZone)
          .sort()
          .map(([z, n]) => `${z}=${n}`)
          .join(' '),
        stoppedBy(s),
      ]),
      opts,
    ).trimEnd(),
  );
  for (const s of rep.shapes) {
    out.push('', `── ${s.shape}: ${s.fits} more replica(s)`);
    if (s.stopReason) out.push(`next replica: ${s.stopReason}`);
    for (const v of s.volumeStop ?? []) out.push(`stopped by volumes: ${v}`);
    out.push(
      table(
        ['ZONE', 'REPLICAS'],
        Object.entries(s.perZone)
          .sort()
          .map(([z, n]) => [z, n]),
      ).trimEnd(),
    );
    if (s.perNode.length) {
      out.push(
        table(
          ['NODE', 'ZONE', 'REPLICAS'],
          s.perNode.slice(0, top).map((n) => [n.node, n.zone, n.count]),
        ).trimEnd(),
      );
      if (s.perNode.length > top)
        out.push(`… and ${s.perNode.length - top} more node(s) (-o wide lists all)`);
    }
    out.push(fragmentationLine(s));
  }
  return `${out.join('\n')}\n`;
}

export function minNodesHeadline(r: MinNodesResult): string {
  const zones = r.perZone
    ? ` (${Object.entries(r.perZone)
        .map(([z, n]) => `${z}: ${n}`)
        .join(', ')})`
    : '';
  const cost = r.cost !== undefined ? `, cost ${r.cost}` : '';
  return r.nodes === undefined
    ? `even ${Math.max(...r.tried.map((t) => t.add))} node(s) like ${r.template} are not enough for ${r.replicas} replica(s)${r.stopReason ? `: ${r.stopReason}` : ''}`
    : `add ${r.nodes} node(s) like ${r.template}${r.zone ? ` in zone ${r.zone}` : zones} for ${r.replicas} replica(s) to fit${cost}`;
}

/** One row per template: cost per node, nodes, their zones, cost, and what stops it when none is enough. */
function choiceRows(c: MinNodesChoice): (string | number)[][] {
  return c.options.map((o) => [
    o.template,
    o.costPerNode ?? '-',
    o.nodes ?? 'none enough',
    o.perZone
      ? Object.entries(o.perZone)
          .map(([z, n]) => `${z}=${n}`)
          .join(' ')
      : (o.zone ?? '-'),
    o.cost ?? '-',
    o.nodes === undefined ? (o.stopReason ?? '') : '',
  ]);
}

/** Several templates: each one's answer, the cheapest first named. */
export function renderMinNodesChoiceText(c: MinNodesChoice): string {
  const best = c.best === undefined ? undefined : c.options[c.best]!;
  const head = best
    ? `cheapest: ${minNodesHeadline(best)}`
    : `no template is enough for ${c.replicas} replica(s)`;
  return `${head}\n${table(
    ['TEMPLATE', 'COST/NODE', 'NODES', 'PER ZONE', 'COST', 'WHAT STOPS IT'],
    choiceRows(c),
  )}`;
}

const triedInOrder = (r: MinNodesResult) => r.tried.slice().sort((a, b) => a.add - b.add);

/** `3 pods: cpu=300m memory=600Mi` */
function overheadText(o: { pods: number; requests: Record<string, number> }): string {
  return `${requestsText(o.requests)} (${o.pods} pod${o.pods === 1 ? '' : 's'})`;
}

/**
 * The pods placed before counting (pending pods, missing replicas, DaemonSet pods) and the
 * DaemonSet overhead per node, nodes with the same overhead on one line.
 */
export function workloadLines(rep: PlanReport, limit = 10): string[] {
  const w = rep.workloads;
  const out: string[] = [];
  const unplaced = (u: { pod: string; owner?: string; reason: string }) =>
    `  ${u.pod}${u.owner ? ` (${u.owner})` : ''}: ${u.reason}`;
  if (w.pending.total) {
    out.push(
      `pending pods and missing replicas: ${w.pending.total}, placed ${w.pending.placed}, unschedulable ${w.pending.unschedulable.length}, never tried ${w.pending.blocked.length}`,
    );
    for (const u of [...w.pending.unschedulable, ...w.pending.blocked].slice(0, limit)) out.push(unplaced(u));
  }
  if (w.daemonSets.length) {
    const sum = (f: 'eligible' | 'running' | 'created' | 'placed') =>
      w.daemonSets.reduce((n, d) => n + d[f], 0);
    out.push(
      `DaemonSets: ${w.daemonSets.length}, pods on ${sum('eligible')} eligible node slots: ${sum('running')} running, ${sum('created')} to create, ${sum('placed')} placed`,
    );
    for (const u of w.daemonSetsUnschedulable.slice(0, limit)) out.push(unplaced(u));
  }
  if (w.daemonSetOverhead.length) {
    const groups = new Map<string, number>();
    for (const o of w.daemonSetOverhead) groups.set(overheadText(o), (groups.get(overheadText(o)) ?? 0) + 1);
    out.push(
      `DaemonSet overhead per node: ${[...groups].map(([t, n]) => `${t} on ${n} node${n === 1 ? '' : 's'}`).join('; ')}`,
    );
  }
  return out;
}

export function renderMinNodesText(r: MinNodesResult): string {
  return `${minNodesHeadline(r)}\n${table(
    ['ADDED', 'REPLICAS THAT FIT', 'DISPLACED UNSCHEDULABLE'],
    triedInOrder(r).map((t) => [t.add, t.fits, t.displacedUnschedulable]),
  )}`;
}

/** `plan --sweep`: one row per (case, shape); wide adds the resource-only bound and zones. */
export function renderSweepText(cases: SweepCase[], opts: { wide?: boolean } = {}): string {
  const rows = cases.flatMap((c) =>
    c.report.shapes.map((s) => [
      c.case,
      s.shape,
      fitsText(s),
      s.fragmentation.fitsByResources,
      Object.entries(s.perZone)
        .sort()
        .map(([z, n]) => `${z}=${n}`)
        .join(' '),
      c.report.displaced.unschedulable.length,
      s.limitReached ? 'limit (--max)' : (s.stopReason ?? ''),
    ]),
  );
  return table(
    [
      'CASE',
      'SHAPE',
      'FITS',
      { header: 'BY RESOURCES ALONE', wide: true },
      { header: 'PER ZONE', wide: true },
      'DISPLACED UNSCHEDULABLE',
      'NEXT REPLICA',
    ],
    rows,
    opts,
  );
}

/** Strategies side by side; wide adds the utilization range (min–max) over the nodes used. */
export function renderStrategiesText(rows: StrategyResult[], opts: { wide?: boolean } = {}): string {
  const pct = (x: number) => `${x.toFixed(1)}%`;
  const t = table(
    [
      'STRATEGY',
      'PLACED',
      'UNSCHEDULABLE',
      'NODES USED',
      'BY WORKLOAD',
      'EMPTY NODES',
      'CPU MEAN',
      'CPU STDDEV',
      { header: 'CPU MIN–MAX', wide: true },
      'MEM MEAN',
      'MEM STDDEV',
      { header: 'MEM MIN–MAX', wide: true },
    ],
    rows.map((r) => [
      r.strategy,
      r.placed,
      r.unschedulable,
      r.nodesUsed,
      r.workloadNodes,
      r.emptyNodes,
      pct(r.cpu.mean),
      pct(r.cpu.stddev),
      `${pct(r.cpu.min)}–${pct(r.cpu.max)}`,
      pct(r.memory.mean),
      pct(r.memory.stddev),
      `${pct(r.memory.min)}–${pct(r.memory.max)}`,
    ]),
    opts,
  );
  const fails = rows
    .filter((r) => r.failures.length)
    .map((r) => `${r.strategy}: first unschedulable ${r.failures[0].pod}: ${r.failures[0].reason}`);
  // -o wide: where each strategy put the pods, node by node
  const placements = opts.wide
    ? rows
        .map(
          (r) =>
            `\n${r.strategy}: pods per node\n${table(
              ['NODE', 'WORKLOAD PODS', 'ALL PODS', 'CPU', 'MEM'],
              r.placements.map((p) => [p.node, p.workloadPods, p.pods, pct(p.cpu), pct(p.memory)]),
            )}`,
        )
        .join('')
    : '';
  return t + (fails.length ? `\n${fails.join('\n')}\n` : '') + placements;
}

function displacedBlocks(rep: PlanReport): Block[] {
  if (!rep.displaced.total) return [];
  return [
    {
      kind: 'text',
      text: `Displaced pods: ${rep.displaced.total}, placed again ${rep.displaced.placed}, unschedulable ${rep.displaced.unschedulable.length}.`,
    },
    ...(rep.displaced.unschedulable.length
      ? [
          {
            kind: 'table' as const,
            headers: ['unschedulable pod', 'reason'],
            rows: rep.displaced.unschedulable.map((u) => [u.pod, u.reason]),
          },
        ]
      : []),
  ];
}

/** The pods placed before counting and the DaemonSet overhead (workloadLines) as page blocks. */
function workloadBlocks(rep: PlanReport): Block[] {
  const lines = workloadLines(rep);
  return lines.length ? [{ kind: 'pre', text: lines.join('\n') }] : [];
}

function shapeSection(s: ShapePlan): Section {
  return {
    title: `${s.shape}: ${fitsText(s)} more replica(s)`,
    blocks: [
      {
        kind: 'text',
        text: `Requests ${requestsText(s.requests)}; ${s.fragmentation.fitsByResources} would fit by resources alone.`,
      },
      ...(s.stopReason ? [{ kind: 'text' as const, text: `Next replica: ${s.stopReason}` }] : []),
      {
        kind: 'chart',
        svg: barChart(
          'replicas per zone',
          Object.entries(s.perZone)
            .sort()
            .map(([label, value]) => ({ label, value })),
        ),
      },
      {
        kind: 'chart',
        svg: barChart(
          `replicas per node${s.perNode.length > 25 ? ' (top 25)' : ''}`,
          s.perNode.slice(0, 25).map((n) => ({ label: `${n.node} (${n.zone})`, value: n.count })),
        ),
      },
      {
        kind: 'table',
        caption: 'fragmentation: room left on the nodes before these replicas, for this shape',
        headers: ['resource', 'free', 'usable by the shape', 'stranded'],
        rows: Object.entries(s.fragmentation.totals).map(([r, t]) => [
          r === 'cpu' ? 'cpu (cores)' : r,
          resourceAmount(r, t.free),
          resourceAmount(r, t.usable),
          `${resourceAmount(r, t.stranded)} (${t.strandedPct.toFixed(1)}%)`,
        ]),
      },
    ],
  };
}

export function renderPlanHtml(rep: PlanReport, command: string): string {
  const page: Page = {
    title: 'kubesim plan',
    subtitle: `${rep.nodes} nodes${rep.applied.length ? ` after: ${rep.applied.join('; ')}` : ''} · kernel ${rep.kernel} · seed ${rep.seed}`,
    command,
    sections: [
      {
        title: 'Key figures',
        blocks: [
          {
            kind: 'figures',
            items: rep.shapes.map((s) => ({ label: `more ${s.shape}`, value: fitsText(s) })),
          },
          ...displacedBlocks(rep),
          ...workloadBlocks(rep),
        ],
      },
      ...rep.shapes.map(shapeSection),
    ],
  };
  return renderPage(page);
}

/** `plan --sweep` as a page: fits per case for each shape, side by side, and what stops each. */
export function renderSweepHtml(cases: SweepCase[], command: string): string {
  const shapes = [...new Set(cases.flatMap((c) => c.report.shapes.map((s) => s.shape)))];
  const page: Page = {
    title: 'kubesim plan --sweep',
    subtitle: `${cases.length} case(s): the base cluster and each what-if on its own`,
    command,
    sections: [
      ...shapes.map((shape) => ({
        title: `${shape}: replicas that fit, per case`,
        blocks: [
          {
            kind: 'chart' as const,
            svg: barChart(
              `more ${shape} replicas`,
              cases.map((c) => {
                const s = c.report.shapes.find((x) => x.shape === shape);
                const lost = c.report.displaced.unschedulable.length;
                return {
                  label: c.case,
                  value: s?.fits ?? 0,
                  note: [s?.limitReached ? '(limit)' : '', lost ? `(${lost} displaced unschedulable)` : '']
                    .filter(Boolean)
                    .join(' '),
                };
              }),
            ),
          },
        ],
      })),
      {
        title: 'Cases',
        blocks: [
          {
            kind: 'table',
            headers: [
              'case',
              'nodes',
              'shape',
              'fits',
              'by resources alone',
              'displaced unschedulable',
              'next replica',
            ],
            rows: cases.flatMap((c) =>
              c.report.shapes.map((s) => [
                c.case,
                c.report.nodes,
                s.shape,
                s.limitReached ? `≥${s.fits}` : s.fits,
                s.fragmentation.fitsByResources,
                c.report.displaced.unschedulable.length,
                s.limitReached ? 'limit (--max)' : (s.stopReason ?? ''),
              ]),
            ),
          },
        ],
      },
    ],
  };
  return renderPage(page);
}

/** `plan --min-nodes` as a page: the answer, and every count the search tried against the target. */
export function renderMinNodesHtml(r: MinNodesResult, command: string, choice?: MinNodesChoice): string {
  const tried = triedInOrder(r);
  const options: Page['sections'] = choice
    ? [
        {
          title: 'Templates',
          blocks: [
            {
              kind: 'table',
              headers: ['template', 'cost/node', 'nodes', 'per zone', 'cost', 'what stops it'],
              rows: choiceRows(choice),
            },
          ],
        },
      ]
    : [];
  const page: Page = {
    title: 'kubesim plan --min-nodes',
    subtitle: minNodesHeadline(r),
    command,
    sections: [
      ...options,
      {
        title: 'Answer',
        blocks: [
          {
            kind: 'figures',
            items: [
              {
                label: `nodes like ${r.template} to add`,
                value: r.nodes === undefined ? 'none enough' : String(r.nodes),
              },
              { label: 'target replicas', value: String(r.replicas) },
              { label: 'counts tried', value: String(r.tried.length) },
            ],
          },
        ],
      },
      {
        title: 'The search',
        blocks: [
          {
            kind: 'chart',
            svg: lineChart(
              [
                // each point is one plan; nothing is known between them, so no line joins them
                { name: 'replicas that fit', points: tried.map((t) => [t.add, t.fits]), style: 'points' },
              ],
              {
                title: `Replicas that fit by nodes added (${r.template})`,
                xLabel: 'nodes added',
                xInteger: true,
                yLabel: 'replicas',
                hLines: [{ y: r.replicas, label: `target ${r.replicas}` }],
              },
            ),
          },
          {
            kind: 'table',
            headers: ['nodes added', 'replicas that fit', 'displaced unschedulable', 'enough'],
            rows: tried.map((t) => [
              t.add,
              t.fits,
              t.displacedUnschedulable,
              t.fits >= r.replicas && t.displacedUnschedulable === 0 ? 'yes' : 'no',
            ]),
          },
        ],
      },
    ],
  };
  return renderPage(page);
}

/**
 * Renders capacity plans as text tables and as a self-contained HTML page (inline SVG bars per
 * zone and per node; no scripts, no external assets).
 */
import { table } from '../report/table.js';
import { formatQuantity, milliQuantity, intQuantity } from '../api/quantity.js';
import type { PlanReport, ShapePlan, MinNodesResult } from './planner.js';
import type { StrategyResult } from './strategies.js';
import { escapeXml as esc, PALETTE } from '../report/svg.js';

/** cpu millis → "1500m" / "2"; bytes → "2Gi" */
export function fmtResource(name: string, v: number): string {
  if (name === 'cpu') return formatQuantity(milliQuantity(v));
  if (name === 'memory' || name === 'ephemeral-storage') {
    for (const [unit, size] of [
      ['Gi', 2 ** 30],
      ['Mi', 2 ** 20],
      ['Ki', 2 ** 10],
    ] as const)
      if (v >= size && v % size === 0) return `${v / size}${unit}`;
    if (v >= 2 ** 30) return `${(v / 2 ** 30).toFixed(1)}Gi`;
    if (v >= 2 ** 20) return `${(v / 2 ** 20).toFixed(0)}Mi`;
  }
  return formatQuantity(intQuantity(v));
}

function requestsText(r: Record<string, number>): string {
  return Object.entries(r)
    .filter(([k]) => k !== 'pods')
    .map(([k, v]) => `${k}=${fmtResource(k, v)}`)
    .join(' ');
}

export function renderPlanText(rep: PlanReport, topNodes = 15): string {
  const out: string[] = [];
  out.push(
    `${rep.nodes} nodes${rep.applied.length ? ` after: ${rep.applied.join('; ')}` : ''} (kernel ${rep.kernel}, seed ${rep.seed})`,
  );
  if (rep.displaced.total) {
    out.push(
      `displaced pods: ${rep.displaced.total}, placed again ${rep.displaced.placed}, unschedulable ${rep.displaced.unschedulable.length}`,
    );
    for (const u of rep.displaced.unschedulable.slice(0, 10)) out.push(`  ${u.pod}: ${u.reason}`);
  }
  out.push('');
  out.push(
    table(
      ['SHAPE', 'REQUESTS', 'FITS', 'BY RESOURCES ALONE', 'STOPPED BY'],
      rep.shapes.map((s) => [
        s.shape,
        requestsText(s.requests),
        s.limitReached ? `≥${s.fits}` : String(s.fits),
        String(s.fragmentation.fitsByResources),
        s.limitReached
          ? 'limit (--max)'
          : s.stopReasons
            ? Object.entries(s.stopReasons)
                .sort((a, b) => b[1] - a[1])
                .map(([r, n]) => `${n} ${r}`)
                .join(', ')
            : (s.stopReason ?? ''),
      ]),
    ).trimEnd(),
  );
  for (const s of rep.shapes) {
    out.push('', `── ${s.shape}: ${s.fits} more replica(s)`);
    if (s.stopReason) out.push(`next replica: ${s.stopReason}`);
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
          s.perNode.slice(0, topNodes).map((n) => [n.node, n.zone, n.count]),
        ).trimEnd(),
      );
      if (s.perNode.length > topNodes) out.push(`… and ${s.perNode.length - topNodes} more node(s)`);
    }
    const f = s.fragmentation;
    const parts = Object.entries(f.totals).map(
      ([r, t]) =>
        `${r}: ${fmtResource(r, t.free)} free, ${fmtResource(r, t.stranded)} stranded (${t.strandedPct.toFixed(1)}%)`,
    );
    out.push(
      `fragmentation: ${parts.join('; ')}; ${f.nodesWithStrandedRoom} node(s) have room but not enough for one replica`,
    );
  }
  return out.join('\n') + '\n';
}

export function renderMinNodesText(r: MinNodesResult): string {
  const head =
    r.nodes === undefined
      ? `even ${Math.max(...r.tried.map((t) => t.add))} node(s) like ${r.template} are not enough for ${r.replicas} replica(s)`
      : `add ${r.nodes} node(s) like ${r.template}${r.zone ? ` in zone ${r.zone}` : ''} for ${r.replicas} replica(s) to fit`;
  return (
    head +
    '\n' +
    table(
      ['ADDED', 'REPLICAS THAT FIT', 'DISPLACED UNSCHEDULABLE'],
      r.tried
        .slice()
        .sort((a, b) => a.add - b.add)
        .map((t) => [t.add, t.fits, t.displacedUnschedulable]),
    )
  );
}

export function renderStrategiesText(rows: StrategyResult[]): string {
  const pct = (x: number) => `${x.toFixed(1)}%`;
  const t = table(
    [
      'STRATEGY',
      'PLACED',
      'UNSCHEDULABLE',
      'NODES USED',
      'EMPTY NODES',
      'CPU MEAN',
      'CPU STDDEV',
      'MEM MEAN',
      'MEM STDDEV',
    ],
    rows.map((r) => [
      r.strategy,
      r.placed,
      r.unschedulable,
      r.nodesUsed,
      r.emptyNodes,
      pct(r.cpu.mean),
      pct(r.cpu.stddev),
      pct(r.memory.mean),
      pct(r.memory.stddev),
    ]),
  );
  const fails = rows
    .filter((r) => r.failures.length)
    .map((r) => `${r.strategy}: first unschedulable ${r.failures[0].pod}: ${r.failures[0].reason}`);
  return t + (fails.length ? '\n' + fails.join('\n') + '\n' : '');
}

/** Horizontal bar chart as inline SVG. */
export function barChart(title: string, bars: { label: string; value: number }[]): string {
  const W = 640,
    row = 22,
    L = 180,
    T = 28;
  const H = T + bars.length * row + 10;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(title)}">`,
    `<text x="8" y="18" font-size="14" font-weight="bold">${esc(title)}</text>`,
  ];
  bars.forEach((b, i) => {
    const y = T + i * row;
    const w = ((W - L - 60) * b.value) / max;
    parts.push(
      `<text x="${L - 6}" y="${y + 15}" text-anchor="end" font-size="12">${esc(b.label)}</text>`,
      `<rect x="${L}" y="${y + 3}" width="${w.toFixed(1)}" height="${row - 6}" fill="${PALETTE[0]}"/>`,
      `<text x="${(L + w + 4).toFixed(1)}" y="${y + 15}" font-size="12">${b.value}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}

export function renderPlanHtml(rep: PlanReport, command: string): string {
  const sections = rep.shapes
    .map((s: ShapePlan) => {
      const frag = Object.entries(s.fragmentation.totals)
        .map(
          ([r, t]) =>
            `<tr><td>${esc(r)}</td><td>${esc(fmtResource(r, t.free))}</td><td>${esc(fmtResource(r, t.usable))}</td><td>${esc(fmtResource(r, t.stranded))} (${t.strandedPct.toFixed(1)}%)</td></tr>`,
        )
        .join('');
      return `<section><h2>${esc(s.shape)}: ${s.limitReached ? '≥' : ''}${s.fits} more replica(s)</h2>
<p>requests ${esc(requestsText(s.requests))}; ${s.fragmentation.fitsByResources} by resources alone.</p>
${s.stopReason ? `<p class="reason">Next replica: ${esc(s.stopReason)}</p>` : ''}
${barChart(
  'replicas per zone',
  Object.entries(s.perZone)
    .sort()
    .map(([label, value]) => ({ label, value })),
)}
${barChart(
  'replicas per node (top 25)',
  s.perNode.slice(0, 25).map((n) => ({ label: n.node, value: n.count })),
)}
<h3>Fragmentation</h3><table><tr><th>resource</th><th>free</th><th>usable by the shape</th><th>stranded</th></tr>${frag}</table>
</section>`;
    })
    .join('\n');
  const displaced = rep.displaced.total
    ? `<p>Displaced pods: ${rep.displaced.total}, placed again ${rep.displaced.placed}, unschedulable ${rep.displaced.unschedulable.length}.</p><ul>${rep.displaced.unschedulable.map((u) => `<li>${esc(u.pod)}: ${esc(u.reason)}</li>`).join('')}</ul>`
    : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>kubesim plan</title>
<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:1000px;color:#222}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;font-size:13px}th{background:#f3f3f3}.reason{color:#a40}code{background:#f3f3f3;padding:2px 4px}svg{display:block;margin:1em 0}</style>
</head><body><h1>kubesim plan</h1><p><code>${esc(command)}</code></p>
<p>${rep.nodes} nodes${rep.applied.length ? ` after: ${esc(rep.applied.join('; '))}` : ''}; kernel ${rep.kernel}, seed ${rep.seed}.</p>
${displaced}${sections}</body></html>
`;
}

/**
 * A self-contained HTML report of bench results: per suite, one SVG chart per measurement
 * (throughput against size, one line per mode, log–log axes), the fitted growth per series, and
 * the full table. No scripts, no external assets: it opens from a file and renders in any browser.
 */
import type { BenchChart, BenchReport, BenchResult } from './harness.js';
import { human, ms, fitGrowth, isNoisy, NOISY_RME, rmeText } from './format.js';
import { SUITES } from './suites.js';
import { DASHES, escapeXml as esc, PALETTE as COLORS, textWidth } from '../src/report/svg.js';

/** A point of a chart; `rme` (percent) when the value is timed, to flag noisy points. */
export interface ChartPoint {
  x: number;
  y: number;
  rme?: number;
}

/** log-scale tick values (1, 2, 5 × 10^k) covering [lo, hi] */
function logTicks(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= lo * 0.999 && v <= hi * 1.001) out.push(v);
    }
  }
  return out.length >= 2 ? out : [lo, hi];
}

/**
 * One line chart: x = size, y = a value per mode, log–log axes. Series differ by colour and dash
 * (lines that lie on top of each other stay visible); points with a margin of error above
 * NOISY_RME are hollow with an error bar, and the chart says so under its legend.
 */
export function lineChart(
  title: string,
  xLabel: string,
  yLabel: string,
  series: { name: string; points: ChartPoint[] }[],
): string {
  const W = 560;
  const H = 300;
  const L = 70;
  const R = Math.max(130, ...series.map((s) => textWidth(s.name, 12) + 42));
  const T = 30;
  const B = 45;
  const pts = series.flatMap((s) => s.points).filter((p) => p.x > 0 && p.y > 0);
  if (!pts.length) return '';
  const noisy = pts.some((p) => (p.rme ?? 0) > NOISY_RME);
  const xs = pts.map((p) => p.x);
  const ys = pts.flatMap((p) => [
    p.y * (1 - Math.min(0.9, (p.rme ?? 0) / 100)),
    p.y * (1 + (p.rme ?? 0) / 100),
  ]);
  let [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (x0 === x1) {
    x0 /= 2;
    x1 *= 2;
  }
  if (y0 === y1) {
    y0 /= 2;
    y1 *= 2;
  }
  y0 /= 1.5;
  y1 *= 1.5;
  const fx = (x: number) => L + ((Math.log(x) - Math.log(x0)) / (Math.log(x1) - Math.log(x0))) * (W - L - R);
  const fy = (y: number) =>
    H - B - ((Math.log(y) - Math.log(y0)) / (Math.log(y1) - Math.log(y0))) * (H - T - B);
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" role="img" aria-label="${esc(title)}">`,
  );
  parts.push(`<text x="${L}" y="18" font-size="14" font-weight="bold">${esc(title)}</text>`);
  parts.push(
    `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#333"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#333"/>`,
  );
  // the measured sizes are the ticks when there are few of them (a log axis would skip 400)
  const sizes = [...new Set(xs)].sort((a, b) => a - b);
  for (const v of sizes.length <= 8 ? sizes : logTicks(x0, x1))
    parts.push(
      `<line x1="${fx(v)}" y1="${H - B}" x2="${fx(v)}" y2="${H - B + 4}" stroke="#333"/><text class="xtick" x="${fx(v)}" y="${H - B + 16}" text-anchor="middle" font-size="11">${human(v)}</text>`,
    );
  for (const v of logTicks(y0, y1))
    parts.push(
      `<line x1="${L - 4}" y1="${fy(v)}" x2="${W - R}" y2="${fy(v)}" stroke="#ddd"/><text x="${L - 6}" y="${fy(v) + 4}" text-anchor="end" font-size="11">${human(v)}</text>`,
    );
  parts.push(
    `<text x="${(L + W - R) / 2}" y="${H - 8}" text-anchor="middle" font-size="12">${esc(xLabel)}</text>`,
  );
  parts.push(
    `<text x="14" y="${(T + H - B) / 2}" text-anchor="middle" font-size="12" transform="rotate(-90 14 ${(T + H - B) / 2})">${esc(yLabel)}</text>`,
  );
  series.forEach((s, i) => {
    const c = COLORS[i % COLORS.length];
    const dash = DASHES[i % DASHES.length];
    const p = s.points.filter((q) => q.x > 0 && q.y > 0).sort((a, b) => a.x - b.x);
    if (p.length > 1)
      parts.push(
        `<polyline fill="none" stroke="${c}" stroke-width="${Math.max(1.4, 2.6 - i * 0.25)}"${dash ? ` stroke-dasharray="${dash}"` : ''} points="${p.map((q) => `${fx(q.x).toFixed(1)},${fy(q.y).toFixed(1)}`).join(' ')}"/>`,
      );
    for (const q of p) {
      const bad = (q.rme ?? 0) > NOISY_RME;
      const tip = `${s.name}: ${human(q.y)} at ${human(q.x)}${q.rme !== undefined ? ` ±${q.rme.toFixed(1)}%${bad ? ' (noisy)' : ''}` : ''}`;
      if (bad) {
        const lo = q.y * Math.max(0.1, 1 - q.rme! / 100);
        const hi = q.y * (1 + q.rme! / 100);
        parts.push(
          `<line class="errbar" x1="${fx(q.x).toFixed(1)}" x2="${fx(q.x).toFixed(1)}" y1="${fy(lo).toFixed(1)}" y2="${fy(hi).toFixed(1)}" stroke="${c}" stroke-width="1"/>`,
        );
      }
      parts.push(
        `<circle class="${bad ? 'noisy' : 'point'}" cx="${fx(q.x).toFixed(1)}" cy="${fy(q.y).toFixed(1)}" r="3.5" fill="${bad ? '#fff' : c}" stroke="${c}" stroke-width="1.5"><title>${esc(tip)}</title></circle>`,
      );
    }
    const ly = T + i * 18;
    parts.push(
      `<line x1="${W - R + 10}" x2="${W - R + 32}" y1="${ly + 6}" y2="${ly + 6}" stroke="${c}" stroke-width="2.2"${dash ? ` stroke-dasharray="${dash}"` : ''}/><text class="legend" x="${W - R + 36}" y="${ly + 10}" font-size="12">${esc(s.name)}</text>`,
    );
  });
  if (noisy) {
    const ly = T + series.length * 18 + 8;
    parts.push(
      `<circle cx="${W - R + 16}" cy="${ly + 6}" r="3.5" fill="#fff" stroke="#555" stroke-width="1.5"/><text class="legend" x="${W - R + 26}" y="${ly + 10}" font-size="11" fill="#a40">±&gt;${NOISY_RME}%: noisy</text>`,
    );
  }
  parts.push('</svg>');
  return parts.join('');
}

/** The series of one chart spec over a report's results. */
export function chartSeries(c: BenchChart, results: BenchResult[]): { name: string; points: ChartPoint[] }[] {
  const bySeries = new Map<string, Map<number, ChartPoint>>();
  for (const r of results) {
    if (r.name !== c.measurement || r.state !== 'completed' || r.size === undefined) continue;
    const y = c.value(r);
    if (y === undefined || !Number.isFinite(y)) continue;
    const name = c.series ? c.series(r) : (r.mode ?? r.name);
    let m = bySeries.get(name);
    if (!m) bySeries.set(name, (m = new Map()));
    if (!m.has(r.size)) m.set(r.size, { x: r.size, y, ...(c.timed ? { rme: r.rme ?? 0 } : {}) });
  }
  return [...bySeries].map(([name, m]) => ({ name, points: [...m.values()] }));
}

function resultCell(r: BenchResult): string {
  if (r.state === 'skipped') return `<em>skipped: ${esc(r.reason ?? '')}</em>`;
  if (r.state === 'errored') return `<strong class="err">error: ${esc(r.error ?? '')}</strong>`;
  const bits: string[] = [];
  if (r.throughput !== undefined)
    bits.push(
      `${human(r.throughput)} ${esc(r.unit ?? 'ops')}/s <span${isNoisy(r) ? ' class="noisy"' : ''}>${esc(rmeText(r))}</span> (p50 ${ms(r.latency?.p50)}, p99 ${ms(r.latency?.p99)})`,
    );
  if (r.figures)
    bits.push(
      Object.entries(r.figures)
        .map(([k, v]) => `${esc(k)} ${human(v)}`)
        .join(', '),
    );
  return bits.join('<br>');
}

function suiteSection(rep: BenchReport): string {
  const out: string[] = [`<section><h2>${esc(rep.suite)}</h2>`];
  const m = rep.machine;
  out.push(
    `<p class="meta">${m.cpus} cpus (${esc(m.cpuModel)}), ${m.memoryGiB} GiB, Node ${esc(m.node)}; started ${esc(rep.startedAt)}, ${(rep.durationMs / 1000).toFixed(1)} s.</p>`,
  );
  const specs = SUITES.find((x) => x.name === rep.suite)?.charts ?? [];
  const answers = specs
    .map((c) =>
      lineChart(
        c.title,
        rep.results.find((r) => r.sizeUnit)?.sizeUnit ?? 'size',
        c.yLabel,
        chartSeries(c, rep.results),
      ),
    )
    .filter(Boolean);
  if (answers.length) out.push(`<div class="charts">${answers.join('\n')}</div>`);
  const names = [...new Set(rep.results.map((r) => r.name))];
  const charts: string[] = [];
  for (const name of names) {
    const rows = rep.results.filter(
      (r) => r.name === name && r.size !== undefined && r.throughput !== undefined,
    );
    const modes = [...new Set(rows.map((r) => r.mode ?? name))];
    if (rows.length < 2) continue;
    const unit = rows[0].unit ?? 'ops';
    charts.push(
      lineChart(
        name,
        rows[0].sizeUnit ?? 'size',
        `${unit}/s`,
        modes.map((mode) => ({
          name: mode,
          points: rows
            .filter((r) => (r.mode ?? name) === mode)
            .map((r) => ({ x: r.size!, y: r.throughput!, rme: r.rme })),
        })),
      ),
    );
  }
  if (charts.length)
    out.push(
      `${answers.length ? '<h3>Throughput of kubesim itself</h3>' : ''}<div class="charts">${charts.join('\n')}</div>`,
    );
  const growth = fitGrowth(rep);
  if (growth.length) {
    out.push(
      '<h3>Fitted growth (cost ∝ size^k)</h3><table><tr><th>measurement</th><th>mode</th><th>k</th><th>reads as</th></tr>',
    );
    for (const g of growth)
      out.push(
        `<tr><td>${esc(g.name)}</td><td>${esc(g.mode)}</td><td>${g.exponent.toFixed(2)}</td><td>${esc(g.label)}</td></tr>`,
      );
    out.push('</table>');
  }
  out.push('<h3>Results</h3><table><tr><th>measurement</th><th>size</th><th>mode</th><th>result</th></tr>');
  for (const r of rep.results)
    out.push(
      `<tr><td>${esc(r.name)}</td><td>${r.size ?? ''} ${esc(r.sizeUnit ?? '')}</td><td>${esc(r.mode ?? '')}</td><td>${resultCell(r)}</td></tr>`,
    );
  out.push('</table>');
  for (const n of rep.notes) out.push(`<p class="note">${esc(n)}</p>`);
  if (rep.results.some(isNoisy))
    out.push(
      `<p class="note"><strong class="noisy">(noisy)</strong> marks a margin of error above ${NOISY_RME}%: do not compare modes on it; rerun on a quieter machine or with a larger --time.</p>`,
    );
  out.push('</section>');
  return out.join('\n');
}

/** The whole report as one HTML document. */
export function renderHtml(reports: BenchReport[], command: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>kubesim bench</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1200px}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;font-size:13px;text-align:left;vertical-align:top}
th{background:#f3f3f3}.charts{display:flex;flex-wrap:wrap;gap:12px}.charts svg{border:1px solid #eee;background:#fff}
.meta,.note{color:#555;font-size:13px}.err{color:#b00}.noisy{color:#a40;font-weight:bold}code{background:#f3f3f3;padding:2px 4px}
</style></head><body>
<h1>kubesim bench</h1>
<p><code>${esc(command)}</code></p>
${reports.map(suiteSection).join('\n')}
</body></html>
`;
}

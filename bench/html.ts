/**
 * A self-contained HTML report of bench results: per suite, one SVG chart per measurement
 * (throughput against size, one line per mode, log–log axes), the fitted growth per series, and
 * the full table. No scripts, no external assets: it opens from a file and renders in any browser.
 */
import type { BenchReport, BenchResult } from './harness.js';
import { human, ms, fitGrowth } from './format.js';
import { escapeXml as esc, PALETTE as COLORS } from '../src/report/svg.js';

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

/** One line chart: x = size, y = throughput, a line per mode. */
export function lineChart(
  title: string,
  xLabel: string,
  yLabel: string,
  series: { name: string; points: [number, number][] }[],
): string {
  const W = 560,
    H = 300,
    L = 70,
    R = 130,
    T = 30,
    B = 45;
  const pts = series.flatMap((s) => s.points).filter(([x, y]) => x > 0 && y > 0);
  if (!pts.length) return '';
  const xs = pts.map((p) => p[0]),
    ys = pts.map((p) => p[1]);
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
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(title)}">`,
  );
  parts.push(
    `<text x="${W / 2 - R / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">${esc(title)}</text>`,
  );
  parts.push(
    `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#333"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#333"/>`,
  );
  for (const v of logTicks(x0, x1))
    parts.push(
      `<line x1="${fx(v)}" y1="${H - B}" x2="${fx(v)}" y2="${H - B + 4}" stroke="#333"/><text x="${fx(v)}" y="${H - B + 16}" text-anchor="middle" font-size="11">${human(v)}</text>`,
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
    const p = s.points.filter(([x, y]) => x > 0 && y > 0).sort((a, b) => a[0] - b[0]);
    if (p.length > 1)
      parts.push(
        `<polyline fill="none" stroke="${c}" stroke-width="2" points="${p.map(([x, y]) => `${fx(x).toFixed(1)},${fy(y).toFixed(1)}`).join(' ')}"/>`,
      );
    for (const [x, y] of p)
      parts.push(
        `<circle cx="${fx(x).toFixed(1)}" cy="${fy(y).toFixed(1)}" r="3.5" fill="${c}"><title>${esc(s.name)}: ${human(y)} at ${human(x)}</title></circle>`,
      );
    parts.push(
      `<rect x="${W - R + 12}" y="${T + i * 18}" width="12" height="12" fill="${c}"/><text x="${W - R + 30}" y="${T + i * 18 + 10}" font-size="12">${esc(s.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}

function resultCell(r: BenchResult): string {
  if (r.state === 'skipped') return `<em>skipped: ${esc(r.reason ?? '')}</em>`;
  if (r.state === 'errored') return `<strong class="err">error: ${esc(r.error ?? '')}</strong>`;
  const bits: string[] = [];
  if (r.throughput !== undefined)
    bits.push(
      `${human(r.throughput)} ${esc(r.unit ?? 'ops')}/s ±${(r.rme ?? 0).toFixed(1)}% (p50 ${ms(r.latency?.p50)}, p99 ${ms(r.latency?.p99)})`,
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
            .map((r) => [r.size!, r.throughput!] as [number, number]),
        })),
      ),
    );
  }
  if (charts.length) out.push(`<div class="charts">${charts.join('\n')}</div>`);
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
.meta,.note{color:#555;font-size:13px}.err{color:#b00}code{background:#f3f3f3;padding:2px 4px}
</style></head><body>
<h1>kubesim bench</h1>
<p><code>${esc(command)}</code></p>
${reports.map(suiteSection).join('\n')}
</body></html>
`;
}

/**
 * A self-contained HTML report (one file, inline CSS and SVG, no scripts): a title, key figures,
 * sections of charts and tables. Generic: the simulation and the benchmarks build their pages from
 * these blocks.
 */
import { escapeXml } from './svg.js';

export type Block =
  | { kind: 'figures'; items: { label: string; value: string; hint?: string }[] }
  | { kind: 'chart'; svg: string }
  | { kind: 'table'; headers: string[]; rows: (string | number)[][]; caption?: string }
  | { kind: 'text'; text: string }
  | { kind: 'pre'; text: string };

export interface Section {
  title: string;
  blocks: Block[];
}

export interface Page {
  title: string;
  subtitle?: string;
  sections: Section[];
  /** the command that produced the report, shown at the bottom */
  command?: string;
}

const CSS = `body{font-family:system-ui,sans-serif;margin:24px auto;max-width:1000px;color:#222;padding:0 16px}
h1{font-size:22px;margin-bottom:4px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd;padding-bottom:4px}
.sub{color:#666;margin-top:0}.figs{display:flex;flex-wrap:wrap;gap:12px}.fig{border:1px solid #ddd;border-radius:6px;padding:8px 12px;min-width:140px}
.fig b{display:block;font-size:20px}.fig span{color:#666;font-size:12px}table{border-collapse:collapse;font-size:13px;margin:8px 0}
td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}td:first-child{white-space:nowrap}th{background:#f5f5f5}td.n{text-align:right;font-variant-numeric:tabular-nums}
caption{text-align:left;color:#666;font-size:12px}pre{background:#f7f7f7;padding:8px;overflow:auto;font-size:12px}footer{margin-top:32px;color:#777;font-size:12px}`;

function block(b: Block): string {
  switch (b.kind) {
    case 'figures':
      return `<div class="figs">${b.items.map((i) => `<div class="fig"${i.hint ? ` title="${escapeXml(i.hint)}"` : ''}><b>${escapeXml(i.value)}</b><span>${escapeXml(i.label)}</span></div>`).join('')}</div>`;
    case 'chart':
      return `<div>${b.svg}</div>`;
    case 'table':
      return `<table>${b.caption ? `<caption>${escapeXml(b.caption)}</caption>` : ''}<tr>${b.headers.map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr>${b.rows
        .map(
          (r) =>
            `<tr>${r.map((c) => (typeof c === 'number' ? `<td class="n">${c}</td>` : `<td>${escapeXml(c)}</td>`)).join('')}</tr>`,
        )
        .join('')}</table>`;
    case 'text':
      return `<p>${escapeXml(b.text)}</p>`;
    case 'pre':
      return `<pre>${escapeXml(b.text)}</pre>`;
  }
}

/** Render a page to one HTML string. */
export function renderPage(p: Page): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeXml(p.title)}</title><style>${CSS}</style></head><body>
<h1>${escapeXml(p.title)}</h1>${p.subtitle ? `<p class="sub">${escapeXml(p.subtitle)}</p>` : ''}
${p.sections.map((s) => `<h2>${escapeXml(s.title)}</h2>${s.blocks.map(block).join('\n')}`).join('\n')}
${p.command ? `<footer>Produced by <code>${escapeXml(p.command)}</code></footer>` : ''}
</body></html>
`;
}

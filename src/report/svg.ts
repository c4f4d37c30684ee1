/**
 * Inline SVG charts for self-contained HTML reports: no scripts, no external assets, so a report
 * opens anywhere and can be attached to a ticket. Every function returns an <svg> string.
 * Numbers are formatted compactly; colors come from a fixed palette so runs compare visually.
 */

export const PALETTE = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
];

export interface LineSeries {
  name: string;
  /** [x, y] points, x ascending */
  points: [number, number][];
  color?: string;
}

export interface ChartOptions {
  title: string;
  xLabel?: string;
  yLabel?: string;
  width?: number;
  height?: number;
  /** vertical markers, e.g. timeline actions: x and a short label */
  markers?: { x: number; label: string }[];
  /** draw as steps (counts that hold until the next sample) */
  step?: boolean;
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** 1234 → "1.2k", 0.5 → "0.5" */
export function compact(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e9) return `${+(v / 1e9).toFixed(1)}G`;
  if (a >= 1e6) return `${+(v / 1e6).toFixed(1)}M`;
  if (a >= 1e4) return `${+(v / 1e3).toFixed(0)}k`;
  if (a >= 1e3) return `${+(v / 1e3).toFixed(1)}k`;
  if (a >= 10 || a === 0) return `${Math.round(v)}`;
  return `${+v.toFixed(2)}`;
}

/** "nice" tick values covering [lo, hi] (1-2-5 steps) */
export function ticks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) hi = lo + 1;
  const raw = (hi - lo) / count;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toFixed(10));
  return out;
}

interface Frame {
  x: (v: number) => number;
  y: (v: number) => number;
  svg: string[];
  w: number;
  h: number;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

function frame(
  o: ChartOptions,
  xs: [number, number],
  ys: [number, number],
  xfmt: (v: number) => string = compact,
): Frame {
  const w = o.width ?? 720,
    h = o.height ?? 260;
  const left = 56,
    right = 16,
    top = 28,
    bottom = 40;
  const [x0, x1] = xs[1] > xs[0] ? xs : [xs[0], xs[0] + 1];
  const [y0, y1] = ys[1] > ys[0] ? ys : [ys[0], ys[0] + 1];
  const x = (v: number) => left + ((v - x0) / (x1 - x0)) * (w - left - right);
  const y = (v: number) => h - bottom - ((v - y0) / (y1 - y0)) * (h - top - bottom);
  const svg: string[] = [];
  svg.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="sans-serif" font-size="11" role="img" aria-label="${escapeXml(o.title)}">`,
  );
  svg.push(`<text x="${left}" y="16" font-size="13" font-weight="bold">${escapeXml(o.title)}</text>`);
  for (const t of ticks(y0, y1)) {
    svg.push(
      `<line x1="${left}" x2="${w - right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="#e5e5e5"/>`,
    );
    svg.push(
      `<text x="${left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end" fill="#555">${compact(t)}</text>`,
    );
  }
  for (const t of ticks(x0, x1, 8)) {
    svg.push(
      `<line x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="${h - bottom}" y2="${h - bottom + 4}" stroke="#888"/>`,
    );
    svg.push(
      `<text x="${x(t).toFixed(1)}" y="${h - bottom + 16}" text-anchor="middle" fill="#555">${escapeXml(xfmt(t))}</text>`,
    );
  }
  svg.push(`<line x1="${left}" x2="${w - right}" y1="${h - bottom}" y2="${h - bottom}" stroke="#888"/>`);
  if (o.xLabel)
    svg.push(
      `<text x="${(left + w - right) / 2}" y="${h - 6}" text-anchor="middle" fill="#333">${escapeXml(o.xLabel)}</text>`,
    );
  if (o.yLabel)
    svg.push(
      `<text transform="translate(12 ${(top + h - bottom) / 2}) rotate(-90)" text-anchor="middle" fill="#333">${escapeXml(o.yLabel)}</text>`,
    );
  return { x, y, svg, w, h, left, top, right, bottom };
}

/** A line chart of one or more series, with optional vertical event markers. */
export function lineChart(series: LineSeries[], o: ChartOptions): string {
  const all = series.flatMap((s) => s.points);
  const xs: [number, number] = all.length
    ? [Math.min(...all.map((p) => p[0])), Math.max(...all.map((p) => p[0]))]
    : [0, 1];
  const ys: [number, number] = [
    Math.min(0, ...all.map((p) => p[1])),
    Math.max(1, ...all.map((p) => p[1])) * 1.05,
  ];
  const f = frame(o, xs, ys);
  for (const m of o.markers ?? []) {
    if (m.x < xs[0] || m.x > xs[1]) continue;
    const X = f.x(m.x).toFixed(1);
    f.svg.push(
      `<line x1="${X}" x2="${X}" y1="${f.top}" y2="${f.h - f.bottom}" stroke="#999" stroke-dasharray="3 3"><title>${escapeXml(m.label)}</title></line>`,
    );
    f.svg.push(
      `<text x="${+X + 3}" y="${f.top + 10}" fill="#777" font-size="10">${escapeXml(m.label.length > 28 ? m.label.slice(0, 27) + '…' : m.label)}</text>`,
    );
  }
  series.forEach((s, i) => {
    if (!s.points.length) return;
    const color = s.color ?? PALETTE[i % PALETTE.length];
    let d = '';
    s.points.forEach(([px, py], j) => {
      const X = f.x(px).toFixed(1),
        Y = f.y(py).toFixed(1);
      if (j === 0) d += `M${X},${Y}`;
      else if (o.step) d += `H${X}V${Y}`;
      else d += `L${X},${Y}`;
    });
    f.svg.push(
      `<path d="${d}" fill="none" stroke="${color}" stroke-width="1.6"><title>${escapeXml(s.name)}</title></path>`,
    );
  });
  // legend
  let lx = f.left + 4;
  series.forEach((s, i) => {
    const color = s.color ?? PALETTE[i % PALETTE.length];
    f.svg.push(
      `<rect x="${lx}" y="${f.top - 2}" width="10" height="3" fill="${color}"/><text x="${lx + 13}" y="${f.top + 2}" fill="#333">${escapeXml(s.name)}</text>`,
    );
    lx += 20 + s.name.length * 6.2;
  });
  f.svg.push('</svg>');
  return f.svg.join('');
}

/** A histogram of values in `bins` equal-width buckets (e.g. pod start-up latencies). */
export function histogram(
  values: number[],
  o: ChartOptions & { bins?: number; format?: (v: number) => string },
): string {
  const bins = o.bins ?? 30;
  const lo = values.length ? Math.min(...values) : 0;
  const hi = values.length ? Math.max(...values) : 1;
  const width = (hi - lo) / bins || 1;
  const counts = new Array<number>(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor((v - lo) / width))]++;
  const f = frame(o, [lo, lo + width * bins], [0, Math.max(1, ...counts) * 1.05], o.format);
  counts.forEach((c, i) => {
    if (!c) return;
    const x0 = f.x(lo + i * width),
      x1 = f.x(lo + (i + 1) * width);
    f.svg.push(
      `<rect x="${x0.toFixed(1)}" y="${f.y(c).toFixed(1)}" width="${Math.max(1, x1 - x0 - 1).toFixed(1)}" height="${(f.y(0) - f.y(c)).toFixed(1)}" fill="${PALETTE[0]}"><title>${escapeXml(`${(o.format ?? compact)(lo + i * width)}–${(o.format ?? compact)(lo + (i + 1) * width)}: ${c}`)}</title></rect>`,
    );
  });
  f.svg.push('</svg>');
  return f.svg.join('');
}

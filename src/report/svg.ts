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
  /**
   * line: joined, but broken where samples are far apart (a gap is drawn as a gap, lone samples as
   * dots); step: the value holds until the next sample (counts, rates over an interval);
   * points: dots only (sparse events). Default: the chart's `step` option, else line.
   */
  style?: 'line' | 'step' | 'points';
}

export interface ChartOptions {
  title: string;
  xLabel?: string;
  yLabel?: string;
  width?: number;
  height?: number;
  /** vertical markers, e.g. timeline actions: x and a short label */
  markers?: { x: number; label: string }[];
  /** horizontal reference lines, e.g. a target */
  hLines?: { y: number; label: string }[];
  /** draw every series as steps (counts that hold until the next sample) */
  step?: boolean;
  /** the x range to show (default: the data's) */
  xDomain?: [number, number];
  /** x values are counts: integer ticks only */
  xInteger?: boolean;
  /** x values are seconds: ticks at clock steps, labelled like the tables (`6m00s`) */
  xTime?: boolean;
  /** tick label formats (default: compact numbers) */
  xFormat?: (v: number) => string;
  yFormat?: (v: number) => string;
}

/** Dash patterns by series index, so lines drawn on top of each other stay distinguishable. */
export const DASHES = ['', '7 3', '2 3', '9 3 2 3', '4 2', '1 2'];

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

/** Clock-friendly tick values for a range in seconds: 15s, 30s, 1m, 2m, 5m … steps. */
export function timeTicks(lo: number, hi: number, count = 8): number[] {
  if (!(hi > lo)) hi = lo + 1;
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];
  const step = steps.find((s) => (hi - lo) / s <= count) ?? Math.ceil((hi - lo) / count / 86400) * 86400;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(v);
  return out;
}

/** Seconds as the tables print them: 360 → "6m00s", 42 → "42s". */
export function clockLabel(s: number): string {
  const t = Math.round(Math.abs(s));
  const sign = s < 0 ? '-' : '';
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const r = t % 60;
  if (h) return `${sign}${h}h${String(m).padStart(2, '0')}m${String(r).padStart(2, '0')}s`;
  return m ? `${sign}${m}m${String(r).padStart(2, '0')}s` : `${sign}${r}s`;
}

/**
 * Approximate rendered width of a label in px (DejaVu Sans / Arial average advance ≈ 0.62 em):
 * enough to keep labels apart; the screenshot test checks the real layout in Chromium.
 */
export function textWidth(text: string, fontSize: number): number {
  return text.length * fontSize * 0.62;
}

const LEGEND_ROW = 16;
const LANE = 13;
const MARKER_FONT = 10;

interface Label {
  /** the full label (tooltip) and the text drawn */
  label: string;
  text: string;
  /** the marker's x and the text's left edge, in px */
  at: number;
  x: number;
  width: number;
}

type Placed = Label & { row: number };

/**
 * Greedy lane assignment: each label goes to the first row where it does not overlap the previous
 * label (with a gap), so labels never overlap each other.
 */
function lanes(items: Label[], maxX: number): Placed[] {
  const ends: number[] = [];
  return items
    .slice()
    .sort((a, b) => a.x - b.x)
    .map((it) => {
      const x = Math.min(it.x, maxX - it.width);
      let row = ends.findIndex((e) => e + 8 <= x);
      if (row < 0) row = ends.push(0) - 1;
      ends[row] = x + it.width;
      return { ...it, x, row };
    });
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

interface Header {
  /** legend entries above the plot (never inside it, so lines and labels never cover them) */
  legend?: { name: string; color: string; dash: string; points: boolean }[];
  /** marker labels, placed in lanes between the legend and the plot */
  markers?: { x: number; label: string }[];
}

function frame(
  o: ChartOptions,
  xs: [number, number],
  ys: [number, number],
  head: Header = {},
  xfmt: (v: number) => string = o.xFormat ?? (o.xTime ? clockLabel : compact),
): Frame {
  const w = o.width ?? 880;
  const left = 60;
  const right = 20;
  const bottom = 40;
  const [x0, x1] = xs[1] > xs[0] ? xs : [xs[0], xs[0] + 1];
  const [y0, y1] = ys[1] > ys[0] ? ys : [ys[0], ys[0] + 1];
  const x = (v: number) => left + ((v - x0) / (x1 - x0)) * (w - left - right);
  const svg: string[] = [];
  const title = `<text x="${left}" y="16" font-size="13" font-weight="bold">${escapeXml(o.title)}</text>`;
  // 1. legend rows under the title
  let top = 26;
  const legend: string[] = [];
  let lx = left;
  for (const e of head.legend ?? []) {
    const width = 26 + textWidth(e.name, 11) + 14;
    if (lx + width > w - right && lx > left) {
      lx = left;
      top += LEGEND_ROW;
    }
    const ly = top + 8;
    legend.push(
      e.points
        ? `<circle cx="${lx + 10}" cy="${ly - 4}" r="3.5" fill="${e.color}"/>`
        : `<line x1="${lx}" x2="${lx + 22}" y1="${ly - 4}" y2="${ly - 4}" stroke="${e.color}" stroke-width="2.2"${e.dash ? ` stroke-dasharray="${e.dash}"` : ''}/>`,
      `<text class="legend" x="${lx + 26}" y="${ly}" fill="#333">${escapeXml(e.name)}</text>`,
    );
    lx += width;
  }
  if (head.legend?.length) top += LEGEND_ROW;
  // 2. marker label lanes
  const placed = lanes(
    (head.markers ?? [])
      .filter((m) => m.x >= x0 && m.x <= x1)
      .map((m) => {
        const text = m.label.length > 40 ? `${m.label.slice(0, 39)}…` : m.label;
        return { label: m.label, text, at: x(m.x), x: x(m.x) + 3, width: textWidth(text, MARKER_FONT) };
      }),
    w - right,
  );
  const laneCount = placed.length ? Math.max(...placed.map((p) => p.row)) + 1 : 0;
  const laneTop = top;
  top += laneCount * LANE + 6;
  const h = (o.height ?? 240) + top;
  const y = (v: number) => h - bottom - ((v - y0) / (y1 - y0)) * (h - top - bottom);
  svg.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="sans-serif" font-size="11" role="img" aria-label="${escapeXml(o.title)}">`,
    title,
    ...legend,
  );
  const yfmt = o.yFormat ?? compact;
  for (const t of ticks(y0, y1)) {
    svg.push(
      `<line x1="${left}" x2="${w - right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="#e5e5e5"/>`,
      `<text x="${left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end" fill="#555">${escapeXml(yfmt(t))}</text>`,
    );
  }
  const xticks = o.xTime
    ? timeTicks(x0, x1)
    : ticks(x0, x1, 8).filter((t) => !o.xInteger || Number.isInteger(t));
  for (const t of xticks) {
    svg.push(
      `<line x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="${h - bottom}" y2="${h - bottom + 4}" stroke="#888"/>`,
      `<text class="xtick" x="${x(t).toFixed(1)}" y="${h - bottom + 16}" text-anchor="middle" fill="#555">${escapeXml(xfmt(t))}</text>`,
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
  // 3. markers: a dashed line from the label's lane down to the axis
  for (const p of placed) {
    const X = p.at.toFixed(1);
    const ly = laneTop + p.row * LANE + 10;
    svg.push(
      `<line x1="${X}" x2="${X}" y1="${ly - 9}" y2="${h - bottom}" stroke="#999" stroke-dasharray="3 3"><title>${escapeXml(p.label)}</title></line>`,
      `<text class="marker" x="${p.x.toFixed(1)}" y="${ly}" fill="#666" font-size="${MARKER_FONT}">${escapeXml(p.text)}</text>`,
    );
  }
  return { x, y, svg, w, h, left, top, right, bottom };
}

/** Breaks a line where consecutive samples are far apart compared with the usual spacing. */
function segments(points: [number, number][], span: number): [number, number][][] {
  if (points.length < 2) return [points];
  const gaps = points
    .slice(1)
    .map((p, i) => p[0] - points[i][0])
    .sort((a, b) => a - b);
  const usual = gaps[Math.floor(gaps.length / 2)];
  const limit = Math.max(usual * 3, span / 25);
  const out: [number, number][][] = [[points[0]]];
  for (let i = 1; i < points.length; i++) {
    if (points[i][0] - points[i - 1][0] > limit) out.push([]);
    out[out.length - 1].push(points[i]);
  }
  return out;
}

/** A line chart of one or more series, with optional vertical event markers. */
export function lineChart(series: LineSeries[], o: ChartOptions): string {
  const all = series.flatMap((s) => s.points);
  const xs: [number, number] =
    o.xDomain ??
    (all.length ? [Math.min(...all.map((p) => p[0])), Math.max(...all.map((p) => p[0]))] : [0, 1]);
  const ys: [number, number] = [
    Math.min(0, ...all.map((p) => p[1])),
    Math.max(1, ...all.map((p) => p[1]), ...(o.hLines ?? []).map((l) => l.y)) * 1.05,
  ];
  const styled = series.map((s, i) => ({
    ...s,
    style: s.style ?? (o.step ? 'step' : 'line'),
    color: s.color ?? PALETTE[i % PALETTE.length],
    dash: DASHES[i % DASHES.length],
    width: Math.max(1.4, 2.6 - i * 0.3),
  }));
  const f = frame(o, xs, ys, {
    legend: styled.map((s) => ({ name: s.name, color: s.color, dash: s.dash, points: s.style === 'points' })),
    markers: o.markers,
  });
  for (const l of o.hLines ?? []) {
    const Y = f.y(l.y).toFixed(1);
    f.svg.push(
      `<line x1="${f.left}" x2="${f.w - f.right}" y1="${Y}" y2="${Y}" stroke="#555" stroke-dasharray="6 4"/>`,
      `<text x="${f.w - f.right - 4}" y="${+Y - 4}" text-anchor="end" fill="#555">${escapeXml(l.label)}</text>`,
    );
  }
  for (const s of styled) {
    if (!s.points.length) continue;
    const stroke = `fill="none" stroke="${s.color}" stroke-width="${s.width}"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}`;
    const dot = ([px, py]: [number, number]) =>
      `<circle cx="${f.x(px).toFixed(1)}" cy="${f.y(py).toFixed(1)}" r="3" fill="${s.color}"><title>${escapeXml(`${s.name}: ${compact(py)} at ${(o.xFormat ?? (o.xTime ? clockLabel : compact))(px)}`)}</title></circle>`;
    if (s.style === 'points') {
      f.svg.push(...s.points.map(dot));
      continue;
    }
    if (s.style === 'step') {
      let d = '';
      s.points.forEach(([px, py], j) => {
        const X = f.x(px).toFixed(1);
        const Y = f.y(py).toFixed(1);
        d += j === 0 ? `M${X},${Y}` : `H${X}V${Y}`;
      });
      f.svg.push(`<path d="${d}" ${stroke}><title>${escapeXml(s.name)}</title></path>`);
      continue;
    }
    for (const seg of segments(s.points, xs[1] - xs[0])) {
      if (seg.length === 1) {
        f.svg.push(dot(seg[0]));
        continue;
      }
      const d = seg
        .map(([px, py], j) => `${j === 0 ? 'M' : 'L'}${f.x(px).toFixed(1)},${f.y(py).toFixed(1)}`)
        .join('');
      f.svg.push(`<path d="${d}" ${stroke}><title>${escapeXml(s.name)}</title></path>`);
    }
  }
  f.svg.push('</svg>');
  return f.svg.join('');
}

/** A histogram of values in `bins` equal-width buckets (e.g. pod start-up latencies). */
export function histogram(values: number[], o: ChartOptions & { bins?: number }): string {
  const bins = o.bins ?? 30;
  const lo = values.length ? Math.min(...values) : 0;
  const hi = values.length ? Math.max(...values) : 1;
  const width = (hi - lo) / bins || 1;
  const counts = new Array<number>(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor((v - lo) / width))]++;
  const f = frame(o, [lo, lo + width * bins], [0, Math.max(1, ...counts) * 1.05]);
  const fmt = o.xFormat ?? (o.xTime ? clockLabel : compact);
  counts.forEach((c, i) => {
    if (!c) return;
    const x0 = f.x(lo + i * width);
    const x1 = f.x(lo + (i + 1) * width);
    f.svg.push(
      `<rect x="${x0.toFixed(1)}" y="${f.y(c).toFixed(1)}" width="${Math.max(1, x1 - x0 - 1).toFixed(1)}" height="${(f.y(0) - f.y(c)).toFixed(1)}" fill="${PALETTE[0]}"><title>${escapeXml(`${fmt(lo + i * width)}–${fmt(lo + (i + 1) * width)}: ${c}`)}</title></rect>`,
    );
  });
  f.svg.push('</svg>');
  return f.svg.join('');
}

/** Horizontal bars, one per label (replicas per zone, fits per what-if …). */
export function barChart(
  title: string,
  bars: { label: string; value: number; note?: string }[],
  o: { width?: number; format?: (v: number) => string } = {},
): string {
  const W = o.width ?? 720;
  const row = 22;
  const L = Math.min(320, Math.max(90, ...bars.map((b) => textWidth(b.label, 12) + 16)));
  const T = 28;
  const H = T + bars.length * row + 10;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const fmt = o.format ?? String;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" role="img" aria-label="${escapeXml(title)}">`,
    `<text x="8" y="18" font-size="13" font-weight="bold">${escapeXml(title)}</text>`,
  ];
  bars.forEach((b, i) => {
    const y = T + i * row;
    const w = ((W - L - 90) * b.value) / max;
    parts.push(
      `<text x="${L - 6}" y="${y + 15}" text-anchor="end" font-size="12">${escapeXml(b.label)}</text>`,
      `<rect x="${L}" y="${y + 3}" width="${w.toFixed(1)}" height="${row - 6}" fill="${PALETTE[0]}"><title>${escapeXml(`${b.label}: ${fmt(b.value)}${b.note ? ` (${b.note})` : ''}`)}</title></rect>`,
      `<text x="${(L + w + 4).toFixed(1)}" y="${y + 15}" font-size="12">${escapeXml(fmt(b.value) + (b.note ? ` ${b.note}` : ''))}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's chromium binary, or undefined when it is not installed. */
export function chromiumPath(): string | undefined {
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (existsSync(p)) return p;
  return undefined;
}

/**
 * Flags for a headless Chromium on this closed network as root: no sandbox, no GPU, and no
 * background networking (otherwise it keeps trying to reach Google's hosts).
 */
export function chromiumFlags(profile: string): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
    `--user-data-dir=${profile}`,
  ];
}

/** Loads a local HTML file in headless Chromium and returns the DOM after rendering. */
export function chromiumDumpDom(htmlFile: string): string {
  const bin = chromiumPath();
  if (!bin) throw new Error('chromium is not installed');
  const profile = mkdtempSync(join(tmpdir(), 'kubesim-chromium-'));
  try {
    return execFileSync(bin, [...chromiumFlags(profile), '--dump-dom', `file://${htmlFile}`], {
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Screenshots a local HTML file to a PNG; returns true when the PNG was written. */
export function chromiumScreenshot(htmlFile: string, png: string, size = '1200,1600'): boolean {
  const bin = chromiumPath();
  if (!bin) throw new Error('chromium is not installed');
  const profile = mkdtempSync(join(tmpdir(), 'kubesim-chromium-'));
  try {
    spawnSync(
      bin,
      [...chromiumFlags(profile), `--screenshot=${png}`, `--window-size=${size}`, `file://${htmlFile}`],
      { timeout: 60_000, stdio: 'ignore' },
    );
    return existsSync(png);
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Where a text label of a chart was drawn, in CSS pixels. */
export interface LabelBox {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The layout of one SVG chart as Chromium drew it. */
export interface ChartLayout {
  title: string;
  markers: LabelBox[];
  legend: LabelBox[];
  xticks: LabelBox[];
}

// Runs inside the page: the rendered boxes of the labels the charts mark with a class.
const MEASURE = `<script>
const box = (el) => { const r = el.getBoundingClientRect(); return { text: el.textContent, x: r.left, y: r.top, w: r.width, h: r.height }; };
const layout = [...document.querySelectorAll('svg')].map((svg) => ({
  title: svg.getAttribute('aria-label') || '',
  markers: [...svg.querySelectorAll('text.marker')].map(box),
  legend: [...svg.querySelectorAll('text.legend')].map(box),
  xticks: [...svg.querySelectorAll('text.xtick')].map(box),
}));
const pre = document.createElement('pre');
pre.id = 'kubesim-layout';
pre.textContent = JSON.stringify(layout);
document.body.appendChild(pre);
</script>`;

/**
 * Loads a copy of a report with a measuring script appended (the report itself has no scripts) and
 * returns where Chromium placed every chart's labels: real font metrics, real layout.
 */
export function chromiumChartLayout(htmlFile: string): ChartLayout[] {
  const probe = htmlFile.replace(/\.html$/, '.measure.html');
  writeFileSync(probe, readFileSync(htmlFile, 'utf8').replace('</body>', `${MEASURE}</body>`));
  try {
    const dom = chromiumDumpDom(probe);
    const m = /<pre id="kubesim-layout">([\s\S]*?)<\/pre>/.exec(dom);
    if (!m) throw new Error(`${htmlFile}: the measuring script did not run`);
    return JSON.parse(
      m[1]
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&'),
    );
  } finally {
    rmSync(probe, { force: true });
  }
}

/** Pairs of boxes that overlap by more than half a pixel each way. */
export function overlaps(a: LabelBox[], b: LabelBox[] = a): [string, string][] {
  const out: [string, string][] = [];
  const same = a === b;
  for (let i = 0; i < a.length; i++)
    for (let j = same ? i + 1 : 0; j < b.length; j++) {
      const p = a[i];
      const q = b[j];
      const dx = Math.min(p.x + p.w, q.x + q.w) - Math.max(p.x, q.x);
      const dy = Math.min(p.y + p.h, q.y + q.h) - Math.max(p.y, q.y);
      if (dx > 0.5 && dy > 0.5) out.push([p.text, q.text]);
    }
  return out;
}

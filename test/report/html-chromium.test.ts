/**
 * The HTML reports people look at (simulate/demo, plan and its sweep and min-nodes modes, bench
 * proxy), produced by the built CLI and checked in headless Chromium: labels never overlap each
 * other or the legend, time axes read like the tables (6m00s), sparse series are points or steps,
 * lines that share a chart are told apart by their dashes, the proxy bench plots what answers its
 * question and flags noisy measurements. Screenshots are kept in $KUBESIM_SCREENSHOTS (default: a
 * kubesim-screenshots folder in the temp dir) for a person to look at.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ChartLayout,
  chromiumChartLayout,
  chromiumPath,
  chromiumScreenshot,
  overlaps,
} from '../helpers/chromium.js';
import { packageRoot } from '../../src/util/paths.js';

const root = packageRoot();
const cli = join(root, 'dist', 'src', 'cli', 'index.js');
const snap = (f: string) => join(root, 'examples', 'snapshot', f);
const requireIt = process.env.KUBESIM_REQUIRE_CHROMIUM === '1';
const ready = !!chromiumPath() && existsSync(cli);
const dir = mkdtempSync(join(tmpdir(), 'kubesim-reports-'));
const shots = process.env.KUBESIM_SCREENSHOTS ?? join(tmpdir(), 'kubesim-screenshots');

/** Runs the CLI; resolves with its exit status. */
function run(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [cli, ...args, '--no-progress'], { stdio: 'ignore' });
    p.on('error', reject);
    p.on('exit', (code) => resolve(code ?? -1));
  });
}

const REPORTS: Record<string, string[]> = {
  demo: ['demo', '--nodes', '60'],
  plan: ['plan', '--cluster', snap('cluster.yaml'), '--pod', snap('pod-api.yaml'), snap('pod-worker.yaml')],
  sweep: [
    'plan',
    '--cluster',
    snap('cluster.yaml'),
    '--pod',
    snap('pod-api.yaml'),
    '--sweep',
    '--threads',
    '1',
    '--what-if',
    'lose-zone=eu-west-1b',
    'lose-zone=eu-west-1c',
  ],
  'min-nodes': [
    'plan',
    '--cluster',
    snap('cluster.yaml'),
    '--pod',
    snap('pod-api.yaml'),
    '--min-nodes',
    'b-2',
    '--replicas',
    '40',
  ],
  'bench-proxy': [
    'bench',
    'proxy',
    '--quick',
    '--sizes',
    '20,60',
    '--time',
    '20',
    '--no-real-tools',
    '--json',
    join(dir, 'bench-proxy.json'),
  ],
};

const html = (name: string) => join(dir, `${name}.html`);
const layouts = new Map<string, ChartLayout[]>();

describe.skipIf(!ready && !requireIt)(
  `HTML reports in headless Chromium${ready ? '' : ' (skipped: chromium or the build is missing)'}`,
  () => {
    beforeAll(async () => {
      const codes = await Promise.all(
        Object.entries(REPORTS).map(([name, args]) => run([...args, '-o', 'html', '--out', html(name)])),
      );
      expect(codes).toEqual(Object.keys(REPORTS).map(() => 0));
      mkdirSync(shots, { recursive: true });
      for (const name of Object.keys(REPORTS)) {
        layouts.set(name, chromiumChartLayout(html(name)));
        const png = join(shots, `${name}.png`);
        expect(chromiumScreenshot(html(name), png, '1250,3000')).toBe(true);
        expect(readFileSync(png).subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
        expect(statSync(png).size).toBeGreaterThan(10_000);
      }
    }, 240_000);

    it.each(Object.keys(REPORTS))('%s: no label overlaps another label or the legend', (name) => {
      const charts = layouts.get(name)!;
      expect(charts.length).toBeGreaterThan(0);
      for (const c of charts) {
        expect(overlaps(c.markers), `${name} / ${c.title}: marker labels`).toEqual([]);
        expect(overlaps(c.legend), `${name} / ${c.title}: legend entries`).toEqual([]);
        expect(overlaps(c.markers, c.legend), `${name} / ${c.title}: markers over the legend`).toEqual([]);
        expect(overlaps(c.xticks), `${name} / ${c.title}: x axis labels`).toEqual([]);
      }
    });

    it('demo: every timeline marker is labelled, time axes in the tables’ units', () => {
      const charts = layouts.get('demo')!;
      const timed = charts.filter((c) => c.markers.length);
      // Pods, Nodes, throughput, 429s, evictions: each carries the five timeline actions
      expect(timed.length).toBeGreaterThanOrEqual(4);
      for (const c of timed) expect(c.markers.length).toBe(5);
      const clock = /^(\d+h)?(\d+m)?\d+s$/;
      for (const c of timed) for (const t of c.xticks) expect(t.text).toMatch(clock);
      // the timeline table uses the same notation
      const page = readFileSync(html('demo'), 'utf8');
      expect(page).toContain('<td>4m00s</td>');
      expect(page).toContain('>4m00s</text>');
    });

    it('demo: counts are steps, sparse evictions are points, shared charts tell lines apart', () => {
      const page = readFileSync(html('demo'), 'utf8');
      const svgs = page.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
      const chart = (title: string) => svgs.find((s) => s.includes(`aria-label="${title}"`))!;
      for (const title of ['Pods', 'Nodes', 'Scheduling throughput']) {
        const paths = [...chart(title).matchAll(/<path d="([^"]+)"/g)].map((m) => m[1]);
        expect(paths.length).toBeGreaterThan(0);
        for (const d of paths) expect(d).toMatch(/^M[\d.,]+([HV][\d.]+)*$/);
      }
      const evictions = chart('Taint-based evictions');
      expect(evictions).not.toContain('<path');
      expect((evictions.match(/<circle /g) ?? []).length).toBeGreaterThan(0);
      const dashes = [
        ...chart('Pods').matchAll(/<path [^>]*stroke="([^"]+)"[^>]*?(?:stroke-dasharray="([^"]+)")?>/g),
      ].map((m) => `${m[1]} ${m[2] ?? 'solid'}`);
      expect(new Set(dashes).size).toBe(4);
    });

    it('plan: amounts in cores and binary units; sweep and min-nodes have their own pages', () => {
      const plan = readFileSync(html('plan'), 'utf8');
      expect(plan).toContain('<td>cpu (cores)</td>');
      expect(plan).toMatch(/<td>\d+(\.\d+)?Gi<\/td>/);
      expect(plan).not.toMatch(/\d{5,}(Ki|m)\b/);
      const sweep = readFileSync(html('sweep'), 'utf8');
      for (const c of ['base', 'lose-zone=eu-west-1b', 'lose-zone=eu-west-1c']) expect(sweep).toContain(c);
      const min = readFileSync(html('min-nodes'), 'utf8');
      expect(min).toContain('add 4 node(s) like b-2 (eu-west-1a: 2, eu-west-1c: 2) for 40 replica(s) to fit');
      expect(min).toContain('target 40');
      expect(min).toMatch(/aria-label="Replicas that fit by nodes added[^"]*"[\s\S]*?<circle /);
    });

    it('bench proxy: the question’s charts per mode against services; noisy results flagged', () => {
      const charts = layouts.get('bench-proxy')!;
      for (const title of [
        'Rules evaluated per packet (new connections)',
        'Bytes written per endpoint change',
        'Rules and entries written per endpoint change',
        'Sync time per endpoint change (p50)',
        'Full sync: render time (p50)',
      ]) {
        const c = charts.find((x) => x.title === title);
        expect(c, title).toBeDefined();
        expect(c!.legend.map((l) => l.text).slice(0, 3)).toEqual(['iptables', 'ipvs', 'nftables']);
        expect(c!.xticks.map((t) => t.text)).toEqual(['20.00', '60.00']);
      }
      const page = readFileSync(html('bench-proxy'), 'utf8');
      const doc = JSON.parse(readFileSync(join(dir, 'bench-proxy.json'), 'utf8'));
      const results = doc.reports[0].results as { throughput?: number; rme?: number }[];
      const noisy = results.filter((r) => r.throughput !== undefined && (r.rme ?? 0) > 10).length;
      // one flag per noisy result in the table, and the charts mark every noisy point hollow
      expect((page.match(/<span class="noisy">/g) ?? []).length).toBe(noisy);
      if (noisy) expect(page).toContain('marks a margin of error above 10%');
      expect((page.match(/class="noisy" cx=/g) ?? []).length).toBeGreaterThanOrEqual(noisy);
    });
  },
);

// `kubesim compare-sim`: one scenario under several scheduler strategies with the same seeds,
// through the CLI's entry point.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubesimInProcess, root } from '../cli/harness.js';

const SCALE = join(root, 'examples/scenarios/scale-up-down.yaml');
const PLUGIN = `plugin:${join(root, 'examples/plugins/binpack.mjs')}:5`;

interface Report {
  seeds: number[];
  strategies: {
    strategy: string;
    runs: { seed: number; metrics: Record<string, number> }[];
    summary: Record<string, { n: number; mean: number; sd: number; min: number; max: number }>;
    series: { t: number[]; nodesUsed: number[] };
  }[];
}

async function compare(...args: string[]): Promise<Report> {
  const r = await kubesimInProcess(['compare-sim', SCALE, '--no-progress', '-o', 'json', ...args]);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as Report;
}

describe('kubesim compare-sim', () => {
  it('the default scoring against the bin-packing plugin: 8 nodes against 3 at the peak', async () => {
    const rep = await compare('--strategy', 'LeastAllocated', 'scenario', PLUGIN);
    const [least, own, packed] = rep.strategies;
    expect(rep.strategies.map((s) => s.strategy)).toEqual(['LeastAllocated', 'scenario', 'BinPackCpu']);
    expect(least.runs[0].metrics.nodesUsedPeak).toBe(8);
    // the plugin replaces NodeResourcesFit's score: 24 × 500m on 4-CPU nodes fill 3
    expect(packed.runs[0].metrics.nodesUsedPeak).toBe(3);
    expect(packed.runs[0].metrics.nodesUsedAtEnd).toBe(2);
    expect(packed.runs[0].metrics.cpuUtilizationMean).toBeGreaterThan(
      least.runs[0].metrics.cpuUtilizationMean,
    );
    // the scenario has no scheduler settings: its own run is kube-scheduler's default profile,
    // whose NodeResourcesFit is LeastAllocated on cpu and memory — the same run, number for number
    expect(own.runs).toEqual(least.runs);
    expect(own.series).toEqual(least.series);
    // every pod of the scale-up ran in each
    for (const s of rep.strategies) expect(s.runs[0].metrics.pendingAtEnd).toBe(0);
  });

  it('--seeds N runs every strategy with seeds s…s+N-1; the summary is their mean and spread', async () => {
    const rep = await compare('--strategy', 'LeastAllocated', '--seeds', '3', '--seed', '5');
    expect(rep.seeds).toEqual([5, 6, 7]);
    const s = rep.strategies[0];
    expect(s.runs.map((r) => r.seed)).toEqual([5, 6, 7]);
    const xs = s.runs.map((r) => r.metrics.startupP99S);
    const mean = xs.reduce((a, b) => a + b, 0) / 3;
    // the sample standard deviation (n - 1), as a sweep's
    const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / 2);
    expect(s.summary.startupP99S.n).toBe(3);
    expect(s.summary.startupP99S.mean).toBeCloseTo(mean, 5);
    expect(s.summary.startupP99S.sd).toBeCloseTo(sd, 5);
    expect(s.summary.startupP99S.min).toBeCloseTo(Math.min(...xs), 5);
    expect(s.summary.startupP99S.max).toBeCloseTo(Math.max(...xs), 5);
    // the same seed gives the same run
    const again = await compare('--strategy', 'LeastAllocated', '--seed', '6');
    expect(again.strategies[0].runs[0]).toEqual(s.runs[1]);
  });

  it('-o html overlays the strategies on each chart; the table names them side by side', async () => {
    const html = await kubesimInProcess([
      'compare-sim',
      SCALE,
      '--no-progress',
      '-o',
      'html',
      '--strategy',
      'LeastAllocated',
      PLUGIN,
    ]);
    expect(html.status).toBe(0);
    expect(html.stdout).toMatch(/^<!doctype html>/);
    expect(html.stdout).toContain('Nodes used');
    expect((html.stdout.match(/<svg/g) ?? []).length).toBeGreaterThanOrEqual(3);
    expect(html.stdout).toContain('BinPackCpu');
    const text = await kubesimInProcess([
      'compare-sim',
      SCALE,
      '--no-progress',
      '--strategy',
      'LeastAllocated',
      PLUGIN,
    ]);
    expect(text.stdout).toMatch(/^nodes used: peak\s+8\s+3$/m);
  });

  it.each([
    [['--strategy', 'Fastest'], 2, /--strategy: unknown strategy "Fastest"/],
    [['--strategy', 'plugin:nope.mjs'], 1, /nope\.mjs/],
    [['--strategy', 'LeastAllocated', 'LeastAllocated'], 2, /two strategies are named "LeastAllocated"/],
    [['--seeds', '0'], 2, /--seeds: expected an integer >= 1/],
  ])('%j is an error (exit %i)', async (args, status, message) => {
    const r = await kubesimInProcess(['compare-sim', SCALE, '--no-progress', ...(args as string[])]);
    expect(r.status).toBe(status);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});

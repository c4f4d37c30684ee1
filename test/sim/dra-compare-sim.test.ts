// `kubesim compare-sim` on a scenario whose pods hold ResourceClaims (test/fixtures/dra/compare-gpu.yaml,
// hand-checked in its description): each strategy's simulation makes, allocates and reserves its own
// claims, and devices limit every strategy's placements.
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubesim } from '../cli/harness.js';

const FIXTURE = 'test/fixtures/dra/compare-gpu.yaml';

function compare(file: string) {
  const r = kubesim([
    'compare-sim',
    file,
    '--strategy',
    'LeastAllocated',
    'plugin:examples/plugins/binpack.mjs:5',
    '--no-progress',
    '-o',
    'json',
  ]);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const out = JSON.parse(r.stdout) as {
    strategies: { strategy: string; runs: { metrics: Record<string, number | null> }[] }[];
  };
  return Object.fromEntries(out.strategies.map((s) => [s.strategy, s.runs[0]!.metrics]));
}

describe('compare-sim with ResourceClaims', () => {
  it('runs every strategy with its own claims; 4 GPUs a node bound the bin-packer', () => {
    const m = compare(FIXTURE);
    expect(m.LeastAllocated).toMatchObject({
      podsReady: 6,
      pendingAtEnd: 0,
      nodesUsedAtEnd: 3,
      cpuUtilizationMean: 37.5,
      cpuUtilizationSpread: 0,
    });
    expect(m.BinPackCpu).toMatchObject({ podsReady: 6, pendingAtEnd: 0, nodesUsedAtEnd: 2 });
    // 4 + 2 pods of 12 cpu on 64: 75 % and 37.5 %
    expect(m.BinPackCpu!.cpuUtilizationSpread).toBeCloseTo(18.75, 0);
  });

  it('without the claims the bin-packer puts 5 on one node (the control)', () => {
    const text = readFileSync(FIXTURE, 'utf8')
      .replace(/^\s*resourceClaims:.*\n/m, '')
      .replace(', claims: [{ name: gpu }]', '');
    const file = join(mkdtempSync(join(tmpdir(), 'kubesim-cmp-')), 'no-claims.yaml');
    writeFileSync(file, text);
    const m = compare(file);
    expect(m.BinPackCpu).toMatchObject({ podsReady: 6, nodesUsedAtEnd: 2 });
    // 5 + 1: 93.75 % and 18.75 %
    expect(m.BinPackCpu!.cpuUtilizationSpread).toBeCloseTo(37.5, 0);
  });
});

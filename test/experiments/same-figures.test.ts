// compare-sim and sweep read a run into one set of metrics with one spread (src/sim/run-metrics.ts):
// given the same scenario and seeds, `compare-sim --strategy scenario` and a sweep over one value
// print the same figures — in JSON, key for key, and in their text tables, cell for cell.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubesimInProcess, root } from '../cli/harness.js';

const SCALE = join(root, 'examples/scenarios/scale-up-down.yaml');
const SEEDS = ['--seed', '3', '--seeds', '2'];
// a sweep needs a swept path: the scenario's own duration, one value, changes nothing
const ONE_POINT = ['--set', 'duration=8m', '--threads', '1', '--no-progress'];

async function run(args: string[]) {
  const r = await kubesimInProcess(args);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}

describe('compare-sim and sweep: the same run, the same figures', () => {
  it('every metric of compare-sim equals the sweep point’s, and the text cells match', async () => {
    const compare = JSON.parse(
      await run(['compare-sim', SCALE, '--strategy', 'scenario', ...SEEDS, '--no-progress', '-o', 'json']),
    );
    const sweep = JSON.parse(await run(['sweep', SCALE, ...ONE_POINT, ...SEEDS, '-o', 'json']));
    expect(compare.seeds).toEqual([3, 4]);
    expect(sweep.seeds).toEqual([3, 4]);
    const perSeed = sweep.runs.map((r: { metrics: unknown }) => r.metrics);
    expect(compare.strategies[0].runs.map((r: { metrics: unknown }) => r.metrics)).toEqual(perSeed);
    expect(compare.strategies[0].summary).toEqual(sweep.points[0].metrics);
    // not vacuous: pods started, and the seeds differ
    expect(sweep.points[0].metrics.startupP99S.n).toBe(2);
    expect(sweep.points[0].metrics.startupP99S.sd).toBeGreaterThan(0);

    const table = await run(['compare-sim', SCALE, '--strategy', 'scenario', ...SEEDS, '--no-progress']);
    const row = table.split('\n').find((l) => l.startsWith('pod start-up latency p99'));
    const sweepTable = await run(['sweep', SCALE, ...ONE_POINT, ...SEEDS, '--metrics', 'startupP99S']);
    const cell = sweepTable
      .trim()
      .split('\n')
      .at(-1)!
      .replace(/^\S+\s+/, '')
      .trim();
    expect(cell).toMatch(/^\d+(\.\d+)?s ±\d+(\.\d+)?$/);
    expect(row?.replace('pod start-up latency p99', '').trim()).toBe(cell);
  }, 240_000);
});

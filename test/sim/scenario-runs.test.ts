// The scenario's `runs:` (run time and failure probability of run-to-completion pods).
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/sim/scenario.js';

const parse = (runs: string) =>
  parseScenario(`cluster: { pools: [{ name: w, count: 1 }] }\nruns: ${runs}\n`, 's.yaml', '/tmp');

describe('scenario runs:', () => {
  it('reads match labels, a log-normal duration and a failure probability; defaults 30 s, sigma 0.5, 0', () => {
    const sc = parse('[{match: {app: x}, duration: {median: 2m, sigma: 0.1}, failureProbability: 0.25}, {}]');
    expect(sc.runs).toEqual([
      { matchLabels: { app: 'x' }, duration: { medianMs: 120_000, sigma: 0.1 }, failureProbability: 0.25 },
      { matchLabels: {}, duration: { medianMs: 30_000, sigma: 0.5 }, failureProbability: 0 },
    ]);
  });
  it('names the file, entry and field of bad input', () => {
    expect(() => parse('{a: 1}')).toThrow('s.yaml: runs: expected a list');
    expect(() => parse('[{failureProbability: 2}]')).toThrow(
      's.yaml: runs[0].failureProbability: expected a number between 0 and 1',
    );
    expect(() => parse('[{duration: {median: soon}}]')).toThrow(
      's.yaml: runs[0].duration.median: invalid duration',
    );
    expect(() => parse('[{labels: {}}]')).toThrow('s.yaml: runs[0]: unknown field "labels"');
  });
});

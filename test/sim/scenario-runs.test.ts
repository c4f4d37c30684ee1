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
    expect(() => parse('[{labels: {}}]')).toThrow(
      's.yaml: runs[0].labels: unknown field (expected one of match, duration, failureProbability)',
    );
  });
});

describe('scenario metrics:', () => {
  const parseM = (m: string) =>
    parseScenario(`cluster: { pools: [{ name: w, count: 1 }] }\nmetrics: ${m}\n`, 's.yaml', '/tmp');
  it('reads curves as sorted steps: utilization in percent, quantities in milli-units', () => {
    const sc = parseM(
      '[{target: Deployment/web, metric: cpu, total: [[2m, "2"], [0s, 400m]]}, {target: StatefulSet/ns/db, metric: cpu, utilization: [[0s, 50]]}]',
    );
    expect(sc.metrics).toEqual([
      {
        kind: 'Deployment',
        namespace: 'default',
        name: 'web',
        metric: 'cpu',
        mode: 'total',
        points: [
          [0, 400],
          [120_000, 2000],
        ],
      },
      {
        kind: 'StatefulSet',
        namespace: 'ns',
        name: 'db',
        metric: 'cpu',
        mode: 'utilization',
        points: [[0, 50]],
      },
    ]);
  });
  it('names the file, entry and field of bad input', () => {
    expect(() => parseM('[{target: web, metric: cpu, total: [[0s, 1]]}]')).toThrow(
      's.yaml: metrics[0].target: expected Kind/name or Kind/namespace/name',
    );
    expect(() => parseM('[{target: Deployment/web, metric: cpu}]')).toThrow(
      's.yaml: metrics[0]: give exactly one of utilization, perPod, total',
    );
    expect(() => parseM('[{target: Deployment/web, metric: cpu, total: [[0s, lots]]}]')).toThrow(
      's.yaml: metrics[0].total[0]: expected a quantity such as 250m or 2, got "lots"',
    );
    expect(() => parseM('[{target: Deployment/web, metric: cpu, total: [[soon, 1]]}]')).toThrow(
      's.yaml: metrics[0].total[0]: invalid duration',
    );
  });
});

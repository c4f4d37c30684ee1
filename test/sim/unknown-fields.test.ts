// Every section of a scenario refuses a field it does not know with one helper and one wording
// (util/scenario-input.ts checkKnownFields, the API validation's): "<file>: <path>.<field>: unknown
// field (expected one of …)". One row per section, through the scenario parser.
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/sim/scenario.js';
import { ScenarioError } from '../../src/util/scenario-input.js';

const POOL = 'cluster: { pools: [{ name: w, count: 1 }] }\n';
const GROUP = '{ name: g, cpu: "4", memory: 16Gi, max: 2 }';

const CASES: [section: string, yaml: string, path: string, first: string][] = [
  ['top level', `${POOL}clsuter: {}`, 'clsuter', 'name'],
  ['cluster.generator', 'cluster: { generator: { nodes: 2, zonez: 3 } }', 'cluster.generator.zonez', ''],
  ['settings', `${POOL}settings: { noSuchKnob: 1 }`, 'settings.noSuchKnob', ''],
  [
    'settings.latencies',
    `${POOL}settings: { latencies: { boot: {} } }`,
    'settings.latencies.boot',
    'sandbox',
  ],
  [
    'settings.latencies.<phase>',
    `${POOL}settings: { latencies: { cni: { median: 1s, mean: 2s } } }`,
    'settings.latencies.cni.mean',
    'median',
  ],
  [
    'settings.controllers',
    `${POOL}settings: { controllers: { deploy: { concurrentSyncs: 2 } } }`,
    'settings.controllers.deploy',
    'deployment',
  ],
  [
    'settings.apiLatency',
    `${POOL}settings: { apiLatency: { reed: 2ms } }`,
    'settings.apiLatency.reed',
    'read',
  ],
  [
    'settings.kubelet',
    `${POOL}settings: { kubelet: { evictionHrad: "memory.available<1Mi" } }`,
    'settings.kubelet.evictionHrad',
    'evictionHard',
  ],
  ['usage[i]', `${POOL}usage: [{ match: {}, cpu: 1 }]`, 'usage[0].cpu', 'match'],
  [
    'usage[i].<curve>',
    `${POOL}usage: [{ memory: { start: 1Mi, slope: 1Mi } }]`,
    'usage[0].memory.slope',
    'start',
  ],
  ['runs[i]', `${POOL}runs: [{ labels: {} }]`, 'runs[0].labels', 'match'],
  [
    'metrics[i]',
    `${POOL}metrics: [{ target: Deployment/web, metric: cpu, utilisation: [] }]`,
    'metrics[0].utilisation',
    'target',
  ],
  [
    'autoscaler',
    `autoscaler: { nodeGroups: [${GROUP}], scanInterval: 10s, expandr: random }`,
    'autoscaler.expandr',
    'expander',
  ],
  [
    'autoscaler.nodeGroups[i]',
    'autoscaler: { nodeGroups: [{ name: g, cpu: "4", memory: 16Gi, max: 2, zone: a }] }',
    'autoscaler.nodeGroups[0].zone',
    'name',
  ],
];

describe('an unknown field, in every section, in one wording', () => {
  it.each(CASES)('%s', (_section, yaml, path, first) => {
    let err: unknown;
    try {
      parseScenario(yaml, 's.yaml', '/tmp');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ScenarioError);
    const message = (err as Error).message;
    expect(message).toMatch(
      new RegExp(`^s\\.yaml: ${path.replace(/[[\].]/g, '\\$&')}: unknown field \\(expected one of [^)]+\\)$`),
    );
    if (first) expect(message).toContain(`(expected one of ${first}`);
  });
});

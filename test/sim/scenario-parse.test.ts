import { describe, it, expect } from 'vitest';
import { parseScenario, nodesFromPools } from '../../src/sim/scenario.js';
import { parseDuration, ScenarioError } from '../../src/util/scenario-input.js';

const parse = (y: string) => parseScenario(y, 's.yaml', '/tmp');

describe('scenario parsing', () => {
  it('parses durations', () => {
    expect(parseDuration('1h30m', 'x')).toBe(5_400_000);
    expect(parseDuration('250ms', 'x')).toBe(250);
    expect(parseDuration(90, 'x')).toBe(90_000);
    expect(() => parseDuration('5 minutes', 'x')).toThrow(/invalid duration/);
  });
  it('reads pools, workloads and a sorted timeline', () => {
    const sc = parse(`
seed: 3
duration: 2m
cluster: { pools: [{ name: w, count: 4, zones: [a, b], taints: [{ key: k, effect: NoSchedule }] }] }
workloads: [{ manifest: { apiVersion: v1, kind: Pod, metadata: { name: p }, spec: { containers: [{ name: c, image: x }] } } }]
timeline:
  - { at: 90s, action: nodeUp }
  - { at: 30s, action: nodeDown, count: 2, pool: w }
`);
    expect(sc.seed).toBe(3);
    expect(sc.timeline.map((t) => t.action.kind)).toEqual(['nodeDown', 'nodeUp']);
    const nodes = nodesFromPools(sc.pools);
    expect(nodes.map((n) => n.metadata.name)).toEqual(['w-0000', 'w-0001', 'w-0002', 'w-0003']);
    expect(nodes.map((n) => n.metadata.labels!['topology.kubernetes.io/zone'])).toEqual(['a', 'b', 'a', 'b']);
    expect(nodes[0].spec!.taints).toEqual([{ key: 'k', effect: 'NoSchedule' }]);
    expect(sc.workloads[0].kind).toBe('Pod');
  });
  it.each([
    ['bogus: 1\ncluster: { pools: [{ count: 1 }] }', 's.yaml: bogus: unknown field (expected one of'],
    [
      'cluster: { pools: [{ count: -1 }] }',
      's.yaml: cluster.pools[0].count: expected an integer >= 0, got -1',
    ],
    ['cluster: {}', 's.yaml: cluster: no nodes'],
    [
      'cluster: { pools: [{ count: 1 }] }\ntimeline: [{ at: 1s, action: explode }]',
      's.yaml: timeline[0].action: unknown action "explode"',
    ],
    [
      'cluster: { pools: [{ count: 1 }] }\ntimeline: [{ at: 1s, action: scale, deployment: web, replicas: x }]',
      's.yaml: timeline[0].replicas: expected an integer >= 0, got "x"',
    ],
    [
      'cluster: { pools: [{ count: 1 }] }\nworkloads: [{ manifest: { kind: Pod, metadata: { name: p } } }]',
      's.yaml: workloads[0].manifest:1: Pod "p": error validating data: [apiVersion not set]',
    ],
    [
      'cluster: { pools: [{ count: 1 }] }\nsettings: { scheduler: fast }',
      's.yaml: settings.scheduler: expected "real" or "standin"',
    ],
    [
      'cluster: { pools: [{ count: 1 }] }\nworkloads: [{ file: nope.yaml }]',
      's.yaml: workloads[0].file: /tmp/nope.yaml: no such file or directory',
    ],
    [
      'cluster: { pools: [{ count: 1 }] }\nworkloads: [{ manifest: { apiVersion: v1, kind: ConfigMap, metadata: { name: c, resourceVersion: "5" } } }]',
      's.yaml: workloads[0].manifest:1: ConfigMap "c": metadata.resourceVersion: resourceVersion should not be set on objects to be created',
    ],
    [
      'cluster: { pools: [{ count: 1 }] }\nworkloads: [{ manifest: { apiVersion: apps/v1, kind: Deployment, metadata: { name: d }, spec: { replicas: 5000000, selector: { matchLabels: { a: b } }, template: { metadata: { labels: { a: b } }, spec: { containers: [{ name: c, image: x }] } } } } }]',
      's.yaml: workloads[0].manifest:1: Deployment "d": spec.replicas: 5000000 is above the limit of 1000000 pods',
    ],
  ])('rejects %j with a message naming the field', (y, msg) => {
    expect(() => parse(y)).toThrow(ScenarioError);
    expect(() => parse(y)).toThrow(msg);
  });
});

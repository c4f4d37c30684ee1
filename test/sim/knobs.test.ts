// The operator's knobs in simulations: controller worker counts against the ApiServer's latency
// model (examples/scenarios/deployment-concurrency.yaml), and the kubelet's node-pressure eviction
// (examples/scenarios/memory-leak-eviction.yaml): a memory leak evicts BestEffort, then Burstable
// pods, in upstream's ranking order, with MemoryPressure, its taint, Evicted status and events.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Event, Node, Pod } from '../../src/api/types.js';
import { loadScenario, parseScenario } from '../../src/sim/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';
import { runSweepRun } from '../../src/sim/sweep-run.js';

const examples = join(__dirname, '../../examples/scenarios');
const file = (name: string) => join(examples, `${name}.yaml`);

describe('controller concurrency against the API latency model', () => {
  it('more deployment workers help up to a point, then cost 429s and latency', async () => {
    const source = file('deployment-concurrency');
    const text = readFileSync(source, 'utf8');
    const run = (n: number) =>
      runSweepRun({
        text,
        source,
        baseDir: dirname(source),
        values: { 'settings.controllers.deployment.concurrentSyncs': n },
        seed: 1,
      });
    const [one, five, fifty] = [await run(1), await run(5), await run(50)];
    // one worker works through 150 Deployments in series: slowest to converge
    expect(one.convergedS!).toBeGreaterThan(five.convergedS!);
    // fifty workers fill the in-flight seats: 429s, slower calls, slower start-up than five
    expect(fifty.tooManyRequests!).toBeGreaterThan(five.tooManyRequests!);
    expect(fifty.apiLatencyP99Ms!).toBeGreaterThan(five.apiLatencyP99Ms!);
    expect(fifty.convergedS!).toBeGreaterThan(five.convergedS!);
  }, 240_000);

  it('workers default to kube-controller-manager v1.34 and are checked', () => {
    const base = 'name: k\ncluster: { pools: [{ name: w, count: 1 }] }\n';
    const sc = parseScenario(base, 's.yaml', '.');
    expect(sc.settings.controllers).toMatchObject({
      deployment: 5,
      replicaset: 5,
      daemonset: 2,
      garbagecollector: 20,
      disruption: 1,
    });
    expect(sc.settings.apiLatency).toBeUndefined();
    expect(() =>
      parseScenario(`${base}settings: { controllers: { deploy: { concurrentSyncs: 5 } } }\n`, 's.yaml', '.'),
    ).toThrow('s.yaml: settings.controllers.deploy: unknown field (expected one of deployment,');
    expect(() =>
      parseScenario(
        `${base}settings: { controllers: { deployment: { concurrentSyncs: 0 } } }\n`,
        's.yaml',
        '.',
      ),
    ).toThrow('settings.controllers.deployment.concurrentSyncs: expected an integer from 1 to 10000, got 0');
    expect(() => parseScenario(`${base}settings: { apiLatency: { write: fast } }\n`, 's.yaml', '.')).toThrow(
      'settings.apiLatency.write: invalid duration',
    );
  });
});

describe('kubelet node-pressure eviction (memory-leak-eviction.yaml)', () => {
  it('evicts BestEffort before Burstable, never the Guaranteed pod under its request; MemoryPressure taints the node', async () => {
    const sim = new Simulation(loadScenario(file('memory-leak-eviction')));
    const r = await sim.run();
    const recs = r.kubeletEvictions.records;
    expect(recs.length).toBeGreaterThan(3);
    expect(recs.every((e) => e.signal === 'memory.available' && e.node === 'worker-0000')).toBe(true);
    const app = (pod: string) => pod.split('/')[1]!.split('-')[0];
    // the first pressure episode: the three BestEffort batch pods go before any Burstable pod
    const firstCache = recs.findIndex((e) => app(e.pod) === 'cache');
    expect(firstCache).toBeGreaterThan(2);
    expect(recs.slice(0, 3).map((e) => [app(e.pod), e.qosClass])).toEqual([
      ['batch', 'BestEffort'],
      ['batch', 'BestEffort'],
      ['batch', 'BestEffort'],
    ]);
    expect(recs[firstCache]!.qosClass).toBe('Burstable');
    // the Guaranteed db pod uses less than it requests: never ranked first
    expect(recs.some((e) => app(e.pod) === 'db')).toBe(false);
    // the leak is not evicted first, though it uses the most: it has the higher priority
    expect(app(recs[0]!.pod)).not.toBe('leak');
    // the pressure is not reached before the leak has grown: 4Gi - 2.4Gi at 200Mi/min ≈ 8 min
    expect(recs[0]!.atS).toBeGreaterThan(420);

    // an evicted pod: Failed, reason Evicted, upstream's message, a DisruptionTarget condition, an event
    const pods = (await sim.server.list<Pod>('pods')).items;
    const evicted = pods.find((p) => `${p.metadata.namespace}/${p.metadata.name}` === recs[0]!.pod)!;
    expect(evicted.status).toMatchObject({ phase: 'Failed', reason: 'Evicted' });
    expect(evicted.status!.message).toMatch(
      /^The node was low on resource: memory\. Threshold quantity: 100Mi, available: \d+Ki\. Container work was using \d+Ki, request is 0, has larger consumption of memory\. $/,
    );
    expect(evicted.status!.conditions).toContainEqual(
      expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet' }),
    );
    const events = (await sim.server.list<Event>('events')).items;
    expect(
      events.some((e) => e.reason === 'Evicted' && e.involvedObject.name === evicted.metadata.name),
    ).toBe(true);
    expect(
      events.some((e) => e.reason === 'EvictionThresholdMet' && e.message === 'Attempting to reclaim memory'),
    ).toBe(true);
    expect(events.some((e) => e.reason === 'NodeHasInsufficientMemory')).toBe(true);
    // replacements of evicted pods waited on the memory-pressure taint
    expect(r.events.some((e) => e.reason === 'FailedScheduling' && /untolerated taint/.test(e.message))).toBe(
      true,
    );
  }, 240_000);

  it('the node reports MemoryPressure and carries the NoSchedule taint while under pressure', async () => {
    const sc = loadScenario(file('memory-leak-eviction'));
    sc.durationMs = 8 * 60_000 + 30_000; // just after the first eviction round
    const sim = new Simulation(sc);
    await sim.run();
    const node = (await sim.server.list<Node>('nodes')).items[0]!;
    expect(node.status!.conditions).toContainEqual(
      expect.objectContaining({
        type: 'MemoryPressure',
        status: 'True',
        reason: 'KubeletHasInsufficientMemory',
      }),
    );
    expect(node.spec?.taints).toContainEqual({
      key: 'node.kubernetes.io/memory-pressure',
      effect: 'NoSchedule',
    });
  }, 120_000);

  it('a bad eviction setting is a scenario error naming settings.kubelet', () => {
    const base = 'name: k\ncluster: { pools: [{ name: w, count: 1 }] }\n';
    expect(() =>
      parseScenario(`${base}settings: { kubelet: { evictionHard: "mem.available<1Gi" } }\n`, 's.yaml', '.'),
    ).toThrow('s.yaml: settings.kubelet: evictionHard: unsupported eviction signal "mem.available"');
    expect(() =>
      parseScenario(
        `${base}settings: { kubelet: { evictionSoft: "memory.available<1Gi" } }\n`,
        's.yaml',
        '.',
      ),
    ).toThrow('no grace period specified for the soft eviction threshold');
    expect(() =>
      parseScenario(`${base}usage: [{ match: { app: x }, memory: lots }]\n`, 's.yaml', '.'),
    ).toThrow('s.yaml: usage[0].memory');
  });
});

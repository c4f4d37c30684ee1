/**
 * The disruption controller, the Eviction subresource and the drain action together in a
 * simulation: a budget's status follows its pods, and `drain` waits out the budget (429 → retry
 * every 5 s) exactly as long as it refuses.
 */
import { describe, expect, it } from 'vitest';
import type { PodDisruptionBudget } from '../../src/api/batch-types.js';
import type { Node, Pod } from '../../src/api/types.js';
import { parseScenario } from '../../src/sim/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';

function scenario(minAvailable: number | string, timeline: string, duration = '4m'): Simulation {
  const web = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas: 4,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '1' } } }] },
      },
    },
  };
  const pdb = {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'web', namespace: 'default' },
    spec: { minAvailable, selector: { matchLabels: { app: 'web' } } },
  };
  const text = `
name: drain
seed: 5
duration: ${duration}
cluster:
  pools: [{ name: w, count: 2, cpu: "4", memory: 16Gi, images: [nginx] }]
workloads:
  - manifest: ${JSON.stringify(web)}
  - manifest: ${JSON.stringify(pdb)}
timeline: ${timeline}
settings: { scheduler: standin }
`;
  return new Simulation(parseScenario(text, 'drain.yaml', '.'));
}

async function state(sim: Simulation) {
  const pdb = (await sim.server.list<PodDisruptionBudget>('poddisruptionbudgets')).items[0];
  const pods = (await sim.server.list<Pod>('pods')).items;
  return { pdb, pods };
}

describe('disruption controller + drain in the simulation', () => {
  it('status: 4 ready pods, minAvailable 3 → disruptionsAllowed 1, SufficientPods', async () => {
    const sim = scenario(3, '[]', '1m');
    await sim.run();
    const { pdb } = await state(sim);
    expect(pdb.status).toMatchObject({
      currentHealthy: 4,
      desiredHealthy: 3,
      expectedPods: 4,
      disruptionsAllowed: 1,
      observedGeneration: 1,
    });
    expect(pdb.status!.conditions![0]).toMatchObject({
      type: 'DisruptionAllowed',
      status: 'True',
      reason: 'SufficientPods',
    });
  });

  it('a percentage counts the Deployment scale: minAvailable 50% of 4 → desired 2, allowed 2', async () => {
    const sim = scenario('50%', '[]', '1m');
    await sim.run();
    const { pdb } = await state(sim);
    expect(pdb.status).toMatchObject({
      currentHealthy: 4,
      desiredHealthy: 2,
      expectedPods: 4,
      disruptionsAllowed: 2,
    });
  });

  it('drain with one disruption allowed: one pod at a time, refusals while the replacement starts', async () => {
    const sim = scenario(3, '[{at: 60s, action: drain, node: w-0000}]');
    const r = await sim.run();
    const { pdb, pods } = await state(sim);
    const d = r.drains[0];
    const node = (await sim.server.get<Node>('nodes', undefined, 'w-0000')) as Node;
    expect(node.spec?.unschedulable).toBe(true);
    // LeastAllocated put two of the four pods on each node
    expect(d.pods).toBe(2);
    expect(d.evicted).toBe(2);
    expect(d.doneAtS).not.toBeNull();
    const live = pods.filter((p) => !p.metadata.deletionTimestamp);
    expect(live.length).toBe(4);
    expect(live.some((p) => p.spec.nodeName === 'w-0000')).toBe(false);
    // the second eviction had to wait for the first replacement to become Ready: ≥ one 5 s retry
    expect(d.refusals).toBeGreaterThan(0);
    expect(d.lastEvictionAtS! - d.atS).toBeGreaterThanOrEqual(5);
    expect((d.lastEvictionAtS! - d.atS) % 5).toBe(0);
    expect(pdb.status).toMatchObject({ currentHealthy: 4, disruptionsAllowed: 1 });
  });

  it('a budget that never allows a disruption: the node is cordoned and its pods stay', async () => {
    const sim = scenario(4, '[{at: 60s, action: drain, node: w-0000}]', '3m');
    const r = await sim.run();
    const { pdb, pods } = await state(sim);
    const d = r.drains[0];
    expect(pdb.status).toMatchObject({ currentHealthy: 4, desiredHealthy: 4, disruptionsAllowed: 0 });
    expect(pdb.status!.conditions![0]).toMatchObject({ status: 'False', reason: 'InsufficientPods' });
    const onNode = pods.filter((p) => p.spec.nodeName === 'w-0000');
    expect(onNode.length).toBe(d.pods);
    expect(onNode.every((p) => !p.metadata.deletionTimestamp && p.status?.phase === 'Running')).toBe(true);
    expect(d.evicted).toBe(0);
    expect(d.doneAtS).toBeNull();
    // every pod retried every 5 s from 60 s to 180 s: 24 or 25 refusals each
    expect(d.refusals).toBeGreaterThanOrEqual(24 * d.pods);
    expect(d.refusals).toBeLessThanOrEqual(25 * d.pods);
  });
});

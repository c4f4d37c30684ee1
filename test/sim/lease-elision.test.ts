// Elided Lease renewals (src/kubelet/lease-elision.ts) change what a simulation costs, not what it
// computes: the same scenarios run with every renewal written (`elideLeaseRenewals: false`) and with
// renewals elided give the same result — pods, latencies, series, events, node lifecycle (NotReady
// after the grace period, taints, evictions of a failed node's pods), API counters (requests,
// 429s, peaks) — and, once run() returns, the same Leases in the API (all but resourceVersion).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoScenario, loadScenario, Simulation, type SimulationResult } from '../../src/sim/index.js';
import type { Scenario } from '../../src/sim/index.js';
import type { KubeObject } from '../../src/api/types.js';
import { root } from '../cli/harness.js';

function outcome(r: SimulationResult): Record<string, unknown> {
  const { wallMs: _w, simSecondsPerWallSecond: _s, timing: _t, ...rest } = r;
  return rest;
}

async function run(sc: Scenario, elide: boolean) {
  const sim = new Simulation(sc, { elideLeaseRenewals: elide, seed: sc.seed });
  const result = await sim.run();
  const leases = (await sim.server.list<KubeObject>('leases')).items.map((l) => {
    const { resourceVersion: _rv, ...meta } = l.metadata;
    return { ...l, metadata: meta };
  });
  return { result, leases, stats: sim.kubelet.lazy?.stats, renewals: sim.kubelet.stats.leaseRenewals };
}

const scenarios: [string, () => Scenario][] = [
  ['demo (node failure, zone outage and recovery), 60 nodes', () => demoScenario({ nodes: 60, seed: 7 })],
  [
    'node-failure-eviction.yaml',
    () => loadScenario(join(root, 'examples/scenarios/node-failure-eviction.yaml')),
  ],
  [
    'node-grace-toleration.yaml',
    () => loadScenario(join(root, 'examples/scenarios/node-grace-toleration.yaml')),
  ],
  [
    'mass-create-429.yaml (429s from max-in-flight)',
    () => loadScenario(join(root, 'examples/scenarios/mass-create-429.yaml')),
  ],
  ['leader-failover.yaml', () => loadScenario(join(root, 'examples/scenarios/leader-failover.yaml'))],
];

describe('Lease renewals elided or written: the same simulation', () => {
  for (const [name, make] of scenarios) {
    it(name, async () => {
      const written = await run(make(), false);
      const elided = await run(make(), true);
      expect(outcome(elided.result)).toEqual(outcome(written.result));
      expect(elided.renewals).toBe(written.renewals);
      expect(elided.leases).toEqual(written.leases);
      expect(written.stats?.elided ?? 0).toBe(0);
      // most renewals were elided, none with a request in flight
      expect(elided.stats!.elided).toBeGreaterThan(written.renewals / 2);
      expect(elided.stats!.violations).toBe(0);
    }, 240_000);
  }
});

// The example scenarios reproduce their stories; the same seed gives the same run.
import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import type { EndpointSlice, Node, Pod } from '../../src/api/types.js';
import { loadScenario, parseScenario } from '../../src/sim/scenario.js';
import { Simulation, simulate } from '../../src/sim/simulation.js';

const ex = (name: string) => loadScenario(join(__dirname, '../../examples/scenarios', `${name}.yaml`));

describe('node failure → eviction only after the grace window', () => {
  it('marks the node NotReady after the 50 s grace period (v1.32+ default) and evicts its pods ≥ 300 s later, then replaces them', async () => {
    const sc = ex('node-failure-eviction');
    const sim = new Simulation(sc);
    const r = await sim.run();
    const failAt = 60;
    const notReady = r.events.find((e) => e.reason === 'NodeNotReady' && e.object === 'node/worker-0001');
    expect(notReady).toBeDefined();
    // the last heartbeat was at most 10 s before the failure; detection needs 50 s of silence
    expect(notReady!.lastSeen).toBeGreaterThanOrEqual(failAt + 50 - 10);
    expect(notReady!.lastSeen).toBeLessThanOrEqual(failAt + 50 + 5);
    expect(r.evictions.count).toBeGreaterThan(0);
    // not before the toleration (300 s) has run out after the node was found unreachable
    for (const e of r.evictions.records) {
      expect(e.node).toBe('worker-0001');
      expect(e.atS).toBeGreaterThanOrEqual(notReady!.lastSeen + 300);
      expect(e.atS).toBeGreaterThanOrEqual(failAt + 300 + 50 - 10);
    }
    // the ReplicaSet replaced them: 12 available again, none on the dead node (except the terminating ones)
    expect(r.deployments[0]).toMatchObject({ replicas: 12, available: 12 });
    const pods = (await sim.server.list<Pod>('pods')).items;
    const live = pods.filter((p) => !p.metadata.deletionTimestamp);
    expect(live.length).toBe(12);
    expect(live.some((p) => p.spec.nodeName === 'worker-0001')).toBe(false);
    // evicted pods stay Terminating: the dead kubelet cannot confirm their deletion
    expect(pods.filter((p) => p.metadata.deletionTimestamp && p.spec.nodeName === 'worker-0001').length).toBe(
      r.evictions.count,
    );
    // EndpointSlices: 12 ready endpoints, the evicted ones listed as terminating and not ready
    const slices = (await sim.server.list<EndpointSlice>('endpointslices', { namespace: 'default' })).items;
    const eps = slices.flatMap((s) => s.endpoints ?? []);
    expect(eps.filter((e) => e.conditions?.ready).length).toBe(12);
    expect(
      eps
        .filter((e) => e.conditions?.terminating)
        .every((e) => !e.conditions?.ready && e.nodeName === 'worker-0001'),
    ).toBe(true);
    expect(slices.every((s) => s.ports?.[0]?.port === 8080)).toBe(true);
    expect(eps.every((e) => e.zone?.startsWith('zone-'))).toBe(true);
  });

  it('with no failure nothing is evicted', async () => {
    const sc = ex('node-failure-eviction');
    sc.timeline = [];
    const r = await simulate(sc);
    expect(r.evictions.count).toBe(0);
    expect(r.nodeLifecycle.markedUnknown).toBe(0);
  });
});

describe('pending pod', () => {
  it('reports "0/N nodes are available" with the per-reason counts until a node fits', async () => {
    const sc = ex('pending-unschedulable');
    const r = await simulate(sc);
    const failed = r.events.find((e) => e.reason === 'FailedScheduling');
    expect(failed?.message).toBe(
      '0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu.',
    );
    const scheduled = r.events.find((e) => e.reason === 'Scheduled');
    expect(scheduled?.message).toBe('Successfully assigned default/big to large-0000');
    expect(scheduled!.lastSeen).toBeGreaterThanOrEqual(120);
  });
});

describe('watch delivery latency', () => {
  it('delays every component by the configured latency (the scheduler learns of the new node 2 s late)', async () => {
    const sc = ex('pending-unschedulable');
    sc.settings.watchLatencyMs = 2000;
    const r = await simulate(sc);
    const scheduled = r.events.find((e) => e.reason === 'Scheduled')!;
    expect(scheduled.lastSeen).toBeGreaterThanOrEqual(122);
    expect(scheduled.lastSeen).toBeLessThan(123);
    expect(r.schedulingLatencyMs.p50).toBeGreaterThanOrEqual(122_000);
  });
});

describe('mass create', () => {
  it('hits max-mutating-requests-inflight: 429s, retried after 1 s, every pod created and running', async () => {
    const r = await simulate(ex('mass-create-429'));
    expect(r.api.tooManyRequests).toBeGreaterThanOrEqual(800);
    expect(r.api.peakMutatingInflight).toBe(200);
    expect(r.api.failedAfterRetries).toBe(0);
    expect(r.pods.created).toBe(1000);
    expect(r.pods.runningAtEnd).toBe(1000);
    // a raised limit: no 429 at all
    const sc = ex('mass-create-429');
    sc.settings.maxMutatingInflight = 2000;
    const r2 = await simulate(sc);
    expect(r2.api.tooManyRequests).toBe(0);
  });
});

describe('determinism', () => {
  it('same seed → identical run; another seed → a different one', async () => {
    const strip = (r: Awaited<ReturnType<typeof simulate>>) =>
      JSON.stringify({ ...r, wallMs: 0, simSecondsPerWallSecond: 0 });
    const a = await simulate(ex('node-failure-eviction'));
    const b = await simulate(ex('node-failure-eviction'));
    expect(strip(a)).toBe(strip(b));
    const c = await simulate(ex('node-failure-eviction'), { seed: 99 });
    expect(strip(c)).not.toBe(strip(a));
  });
});

describe('DaemonSet and StatefulSet (examples/scenarios/daemonset-statefulset.yaml)', () => {
  it('places one agent per untainted node, follows the joined and deleted nodes, keeps db-0..2', async () => {
    const sim = new Simulation(ex('daemonset-statefulset'));
    const r = await sim.run();
    // by hand: 4 general + 1 gpu + 1 joined − 1 deleted = 5 nodes; agents on the 4 general nodes
    // left (not the tainted gpu node); db-0, db-1, db-2; 7 running pods, none pending
    const nodes = (await sim.server.list<Node>('nodes')).items.map((n) => n.metadata.name).sort();
    expect(nodes).toEqual(['general-0000', 'general-0001', 'general-0002', 'general-late-0000', 'gpu-0000']);
    const pods = (await sim.server.list<Pod>('pods')).items.filter((p) => !p.metadata.deletionTimestamp);
    const agents = pods.filter((p) => p.metadata.labels?.app === 'node-agent');
    expect(agents.map((p) => p.spec.nodeName).sort()).toEqual([
      'general-0000',
      'general-0001',
      'general-0002',
      'general-late-0000',
    ]);
    const db = pods.filter((p) => p.metadata.labels?.app === 'db');
    expect(db.map((p) => p.metadata.name).sort()).toEqual(['db-0', 'db-1', 'db-2']);
    expect(db.every((p) => p.spec.nodeName && p.spec.nodeName !== 'general-0003')).toBe(true);
    expect(r.pods).toMatchObject({ pendingAtEnd: 0, runningAtEnd: 7 });
  }, 240_000);
});

describe('schedulingGates in the simulation', () => {
  it('neither scheduler binds a gated pod', async () => {
    for (const scheduler of ['standin', 'real']) {
      const sc = parseScenario(
        `name: gated\nduration: 1m\ncluster:\n  pools: [{ name: n, count: 1, cpu: "4", memory: 8Gi }]\nworkloads:\n  - manifest:\n      apiVersion: v1\n      kind: Pod\n      metadata: { name: gated, namespace: default }\n      spec:\n        schedulingGates: [{ name: example.com/wait }]\n        containers: [{ name: c, image: x }]\nsettings:\n  scheduler: ${scheduler}\n`,
        'gated.yaml',
        '.',
      );
      const r = await simulate(sc);
      expect(r.pods).toMatchObject({ scheduled: 0, pendingAtEnd: 1 });
    }
  });
});

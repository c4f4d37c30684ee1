/**
 * The EndpointSlice controller's incremental sync against its full recomputation (upstream's
 * reconciler): two controllers, one with `incremental` off, each against its own API, get the
 * same seeded stream of pod, node, Service and slice changes; after every step the slices
 * (names, endpoints in order, ports, resourceVersions) must be the same in both.
 */
import { describe, it, expect } from 'vitest';
import type { EndpointSlice, Node, Pod, Service } from '../../src/api/types.js';
import { EndpointSliceController } from '../../src/controllers/endpointslice.js';
import { Rng } from '../../src/util/rng.js';
import { bed, settleN } from './harness.js';
import { makeNode, makePod, makeService } from '../helpers/builders.js';

type Bed = ReturnType<typeof bed> & { c: EndpointSliceController };

const APPS = ['web', 'api'];
const ZONES = ['a', 'b', 'c'];
const BATCH_MS = 1000;

async function tick(beds: Bed[]): Promise<void> {
  for (const b of beds) {
    await settleN(6);
    b.clock.advance(BATCH_MS);
    await settleN(30);
  }
}

function pod(i: number, rng: Rng, twoPorts: boolean): Pod {
  // with twoPorts some pods name 9090 their http port: the Service "web" (targetPort: http) then
  // has two port groups, which the controller always recomputes in full
  const port = rng.int(6) === 0 && twoPorts ? 9090 : 8080;
  return makePod(`p${String(i).padStart(4, '0')}`)
    .uid(undefined)
    .label('app', APPS[rng.int(APPS.length)]!)
    .node(`n${rng.int(6)}`)
    .containers({ name: 'c', ports: [{ name: 'http', containerPort: port }] })
    .status({
      phase: 'Running',
      podIP: rng.int(10) === 0 ? undefined : `10.0.${i >> 8}.${i & 255}`,
      conditions: [{ type: 'Ready', status: rng.int(3) === 0 ? 'False' : 'True' }],
    })
    .obj();
}

/** one step of churn, decided by the rng and applied the same way to every bed */
async function step(beds: Bed[], rng: Rng, next: { i: number }, twoPorts: boolean): Promise<void> {
  const op = rng.int(100);
  const live = (await beds[0]!.api.list<Pod>('pods')).items.map((p) => p.metadata.name!).sort();
  const victim = live.length ? live[rng.int(live.length)]! : undefined;
  const created = op < 45 ? pod(next.i++, rng, twoPorts) : undefined;
  const zone = ZONES[rng.int(ZONES.length)]!;
  const flip = rng.int(2) === 0;
  const node = `n${rng.int(6)}`;
  for (const b of beds) {
    const { api } = b;
    if (created) await api.create('pods', structuredClone(created));
    else if (op < 60 && victim) await api.delete('pods', 'default', victim);
    else if (op < 80 && victim) {
      // readiness flips, or the pod loses its IP (phase Failed)
      const p = await api.get<Pod>('pods', 'default', victim);
      if (flip) p.status!.conditions = [{ type: 'Ready', status: isReady(p) ? 'False' : 'True' }];
      else p.status!.phase = 'Failed';
      await api.updateStatus('pods', p);
    } else if (op < 88 && victim) {
      const p = await api.get<Pod>('pods', 'default', victim);
      p.metadata.labels = { app: p.metadata.labels!.app === 'web' ? 'api' : 'web' };
      await api.update('pods', p);
    } else if (op < 92) {
      const n = await api.get<Node>('nodes', undefined, node);
      n.metadata.labels = { 'topology.kubernetes.io/zone': zone };
      await api.update('nodes', n);
    } else if (op < 95) {
      const s = await api.get<Service>('services', 'default', 'web');
      s.spec.publishNotReadyAddresses = flip;
      await api.update('services', s);
    } else if (op < 98) {
      // someone else edits a managed slice: the controller must repair it
      const slices = (await api.list<EndpointSlice>('endpointslices')).items.sort(byName);
      const s = slices[0];
      if (s && s.endpoints.length > 1) {
        s.endpoints = s.endpoints.slice(1);
        await api.update('endpointslices', s);
      }
    } else {
      const slices = (await api.list<EndpointSlice>('endpointslices')).items.sort(byName);
      if (slices.length) await api.delete('endpointslices', 'default', slices.at(-1)!.metadata.name!);
    }
  }
}

const isReady = (p: Pod) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
const byName = (a: EndpointSlice, b: EndpointSlice) => (a.metadata.name! < b.metadata.name! ? -1 : 1);

async function slices(b: Bed): Promise<unknown[]> {
  return (await b.api.list<EndpointSlice>('endpointslices')).items.sort(byName).map((s) => ({
    name: s.metadata.name,
    rv: s.metadata.resourceVersion,
    endpoints: s.endpoints,
    ports: s.ports,
  }));
}

async function start(incremental: boolean): Promise<Bed> {
  const b = bed();
  // pod changes wait for the batch period (as in the simulation): syncs run when the test advances
  // the clock, at the same points in both beds
  const c = new EndpointSliceController(b.deps, BATCH_MS, incremental);
  await b.informers.start();
  c.run();
  for (let n = 0; n < 6; n++)
    await b.api.create(
      'nodes',
      makeNode(`n${n}`)
        .label('topology.kubernetes.io/zone', ZONES[n % 3]!)
        .obj(),
    );
  await b.api.create(
    'services',
    makeService('web')
      .selector({ app: 'web' })
      .spec({ ports: [{ name: 'http', port: 80, targetPort: 'http' }] })
      .obj(),
  );
  await b.api.create(
    'services',
    makeService('api')
      .selector({ app: 'api' })
      .spec({ ports: [{ name: 'http', port: 80, targetPort: 8080 }] })
      .obj(),
  );
  return { ...b, c };
}

describe('EndpointSlice controller: incremental sync = full recomputation', () => {
  it.each([
    [1, false],
    [2, false],
    [3, true],
  ])(
    'seed %i (two port groups: %s): same slices after every batch of 250 changes',
    async (seed, twoPorts) => {
      const full = await start(false);
      const inc = await start(true);
      const rng = new Rng(seed);
      const next = { i: 0 };
      // a first burst (several slices per Service), then churn
      for (let i = 0; i < 260; i++)
        for (const b of [full, inc]) await b.api.create('pods', pod(i, new Rng(seed * 1000 + i), twoPorts));
      next.i = 260;
      await tick([full, inc]);
      expect(await slices(inc)).toEqual(await slices(full));
      for (let i = 0; i < 250; i++) {
        await step([full, inc], rng, next, twoPorts);
        // several changes per batch now and then
        if (rng.int(3) !== 0) await tick([full, inc]);
        expect(await slices(inc), `after step ${i}`).toEqual(await slices(full));
      }
      for (let i = 0; i < 3; i++) await tick([full, inc]);
      expect(await slices(inc)).toEqual(await slices(full));
      expect(full.c.stats.incrementalSyncs).toBe(0);
      // many syncs took the incremental path (the test would pass vacuously otherwise)
      expect(inc.c.stats.incrementalSyncs).toBeGreaterThan(twoPorts ? 40 : 120);
      expect(inc.c.stats.slicesUpdated).toBe(full.c.stats.slicesUpdated);
      for (const b of [full, inc]) {
        await b.c.stop();
        b.informers.stop();
      }
    },
  );
});

// The observer keeps the pods' sample figures from the pod events (src/sim/pod-tally.ts): two
// observers on the same informers, one with the tally and one walking every pod per sample as
// before (`incremental` off), see a seeded stream of pod writes through the ApiServer — creates,
// binds, phase and readiness changes, pods finishing, deletion marks, deletes, DaemonSet pods,
// image updates (a new spec object) — and after every step their figures (pending, running,
// ready, terminating, not ready, CPU and users per node) and their samples must be equal.
import { describe, expect, it } from 'vitest';
import { ApiServer } from '../../src/api/apiserver.js';
import type { Pod } from '../../src/api/types.js';
import { InformerFactory } from '../../src/client/factory.js';
import { ServerClient } from '../../src/client/server-client.js';
import { Observer } from '../../src/sim/metrics.js';
import type { PodCounts } from '../../src/sim/pod-tally.js';
import { MemoryStore } from '../../src/store/memory/store.js';
import { ManualClock } from '../../src/util/clock.js';
import { Rng } from '../../src/util/rng.js';
import { makePod } from '../helpers/builders.js';

const NODES = ['n0', 'n1', 'n2', 'n3'];

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
}

/** the figures with the maps as sorted entries (a node absent and a node at 0 are the same) */
function plain(c: PodCounts): unknown {
  const entries = (m: Map<string, number>) =>
    [...m].filter(([, v]) => v !== 0).sort(([a], [b]) => (a < b ? -1 : 1));
  return { ...c, cpuOnNode: entries(c.cpuOnNode), usersOnNode: entries(c.usersOnNode) };
}

async function churn(seed: number): Promise<void> {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const server = new ApiServer(new MemoryStore({ clock }), { clock });
  await server.bootstrapNamespaces();
  for (const n of NODES)
    await server.create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: n },
      status: { allocatable: { cpu: '8', memory: '16Gi', pods: '110' } },
    });
  const informers = new InformerFactory(new ServerClient(server, { clock }), clock);
  const walking = new Observer(informers, clock, clock.now(), 5000, false);
  const tallying = new Observer(informers, clock, clock.now(), 5000, true);
  await informers.start();
  const rng = new Rng(seed);
  const live: string[] = [];
  let made = 0;
  for (let step = 0; step < 300; step++) {
    const op = live.length < 3 ? 0 : rng.int(10) % 8;
    const name = live.length ? live[rng.int(live.length)] : undefined;
    const get = () => server.get<Pod>('pods', 'default', name!);
    if (op === 0) {
      const b = makePod(`p${made++}`)
        .uid(undefined)
        .req({ cpu: `${100 * (1 + rng.int(5))}m` });
      if (rng.int(3) === 0) b.node(NODES[rng.int(NODES.length)]!);
      if (rng.int(5) === 0) b.ownerReference('ds', 'DaemonSet');
      await server.create(b.obj());
      live.push(`p${made - 1}`);
    } else if (op === 1) {
      const p = await get();
      if (!p.spec.nodeName)
        await server.bind({
          apiVersion: 'v1',
          kind: 'Binding',
          metadata: { name: p.metadata.name!, namespace: 'default' },
          target: { kind: 'Node', name: NODES[rng.int(NODES.length)]! },
        });
    } else if (op === 2 || op === 3) {
      const p = await get();
      const ready = rng.int(2) === 0;
      const phase = ['Pending', 'Running', 'Running', 'Succeeded', 'Failed'][rng.int(5)]!;
      p.status = {
        ...p.status,
        phase: phase as 'Running',
        conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      };
      await server.updateStatus(p);
    } else if (op === 4) {
      // a spec update (a new image: the spec is a new object, its CPU request the same)
      const p = await get();
      p.spec.containers[0]!.image = `img:${step}`;
      await server.update(p);
    } else if (op === 5) {
      const p = await get();
      p.metadata.labels = { ...p.metadata.labels, step: String(step) };
      await server.update(p);
    } else {
      const graceful = op === 6;
      await server.delete(
        'pods',
        'default',
        name!,
        graceful ? { gracePeriodSeconds: 30 } : { gracePeriodSeconds: 0 },
      );
      const still = await get().catch(() => undefined);
      if (!still) live.splice(live.indexOf(name!), 1);
    }
    await flush();
    expect(plain(tallying.podCounts())).toEqual(plain(walking.podCounts()));
    expect(tallying.converged()).toBe(walking.converged());
    if (step % 25 === 0) {
      walking.sample(0);
      tallying.sample(0);
    }
  }
  expect(tallying.series).toEqual(walking.series);
  expect(walking.pods.size).toBeGreaterThan(5);
  informers.stop();
}

describe('the observer tallies pods from their events', () => {
  for (const seed of [1, 2, 3])
    it(`seed ${seed}: the same figures as a walk over every pod, after every step`, async () => {
      await churn(seed);
    });
});

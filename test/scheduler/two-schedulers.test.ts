// Two Scheduler processes on one ApiServer/MemoryStore: they learn of pods and nodes only through
// watches, race to bind the same pods, and the ApiServer's pods/binding (409 when already assigned)
// guarantees each pod is bound exactly once. Also: the loop's FailedScheduling status/event.
import { describe, expect, it } from 'vitest';
import { ApiServer } from '../../src/api/apiserver.js';
import type { Binding, Node, Pod } from '../../src/api/types.js';
import { InformerFactory } from '../../src/client/factory.js';
import { ServerClient } from '../../src/client/server-client.js';
import { MemoryStore } from '../../src/store/memory/store.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { ManualClock } from '../../src/util/clock.js';
import { makeNode, makePod } from '../helpers/builders.js';

const tick = () => new Promise<void>((r) => setImmediate(r));

async function until(cond: () => Promise<boolean>, what: string, max = 2000): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await cond()) return;
    await tick();
  }
  throw new Error(`timed out waiting for ${what}`);
}

function strip<T extends Pod | Node>(o: T): T {
  const c = structuredClone(o);
  delete c.metadata.uid;
  return c;
}

describe('Scheduler over the ApiServer', () => {
  it('two schedulers on one store never bind a pod twice', async () => {
    const clock = new ManualClock();
    const server = new ApiServer(new MemoryStore({ clock }), { clock });
    const user = new ServerClient(server, { clock });
    for (let i = 0; i < 4; i++)
      await user.create(
        'nodes',
        strip(
          makeNode(`n${i}`)
            .label('kubernetes.io/hostname', `n${i}`)
            .capacity({ cpu: '64', memory: '256Gi', pods: '110' })
            .obj(),
        ),
      );
    const N = 40;
    for (let i = 0; i < N; i++) await user.create('pods', strip(makePod(`p${i}`).req({ cpu: '100m' }).obj()));

    const successes = new Map<string, number>();
    let conflicts = 0;
    const schedulers = [1, 2].map((k) => {
      const api = new ServerClient(server, { clock });
      const bind = api.bind.bind(api);
      api.bind = async (b: Binding) => {
        try {
          await bind(b);
          successes.set(b.metadata.name!, (successes.get(b.metadata.name!) ?? 0) + 1);
        } catch (e) {
          if ((e as { code?: number }).code === 409) conflicts++;
          throw e;
        }
      };
      return new Scheduler({
        api,
        informers: new InformerFactory(api, clock),
        clock,
        seed: k,
        name: `scheduler-${k}`,
      });
    });
    await Promise.all(schedulers.map((s) => s.start()));
    await until(
      async () => (await user.list<Pod>('pods')).items.every((p) => p.spec.nodeName),
      'all pods bound',
    );
    await Promise.all(schedulers.map((s) => s.idle()));
    await Promise.all(schedulers.map((s) => s.stop()));

    expect(successes.size).toBe(N);
    expect([...successes.values()].every((n) => n === 1)).toBe(true);
    const st = schedulers.map((s) => s.stats);
    expect(st[0].scheduled + st[1].scheduled).toBe(N);
    // both schedulers saw every pod; the losers of each race got a 409 and forgot their assumption
    expect(st[0].bindErrors + st[1].bindErrors).toBe(conflicts);
    // the race really happened (both caches assumed the same pods)
    expect(conflicts).toBeGreaterThan(0);
    const pods = (await user.list<Pod>('pods')).items;
    for (const s of schedulers) {
      for (const p of pods)
        expect(s.core.snapshot.nodeOfPod(`default/${p.metadata.name}`)).toBe(p.spec.nodeName);
    }
  });

  it('an unschedulable pod gets PodScheduled=False with the FitError, and is retried when a node is added', async () => {
    const clock = new ManualClock();
    const server = new ApiServer(new MemoryStore({ clock }), { clock });
    const user = new ServerClient(server, { clock });
    await user.create(
      'nodes',
      strip(makeNode('small').capacity({ cpu: '1', memory: '1Gi', pods: '110' }).obj()),
    );
    await user.create('pods', strip(makePod('big').req({ cpu: '2' }).obj()));
    const api = new ServerClient(server, { clock });
    const s = new Scheduler({ api, informers: new InformerFactory(api, clock), clock, seed: 1 });
    await s.start();
    await until(
      async () =>
        (await user.get<Pod>('pods', 'default', 'big')).status?.conditions?.some(
          (c) => c.type === 'PodScheduled' && c.status === 'False',
        ) ?? false,
      'PodScheduled=False',
    );
    const pod = await user.get<Pod>('pods', 'default', 'big');
    const cond = pod.status!.conditions!.find((c) => c.type === 'PodScheduled')!;
    expect(cond.reason).toBe('Unschedulable');
    expect(cond.message).toBe(
      '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.',
    );
    expect(s.queue.where('default/big')).toBe('unschedulable');
    // a node that fits arrives (watch → NodeAdd → the pod moves back to the active queue after its backoff)
    await user.create(
      'nodes',
      strip(makeNode('large').capacity({ cpu: '8', memory: '8Gi', pods: '110' }).obj()),
    );
    await until(async () => s.queue.where('default/big') !== 'unschedulable', 'requeue on NodeAdd');
    clock.advance(2000);
    await until(
      async () => (await user.get<Pod>('pods', 'default', 'big')).spec.nodeName === 'large',
      'bound to the new node',
    );
    await s.stop();
  });
});

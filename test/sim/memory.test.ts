// What keeps a large simulation's memory down, each through the public API: watchers sharing one
// frozen decode per event, the store copying values it keeps, compaction on kube-apiserver's
// schedule with 410 Gone behind it, the event recorder's bounded memory, informer transforms.
import { describe, expect, it } from 'vitest';
import { ApiServer, type ApiWatchEvent } from '../../src/api/apiserver.js';
import type { Event, Pod } from '../../src/api/types.js';
import { ApiEventRecorder } from '../../src/client/events.js';
import { Informer } from '../../src/client/informer.js';
import { ServerClient } from '../../src/client/server-client.js';
import { parseScenario } from '../../src/sim/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';
import { MemoryStore } from '../../src/store/memory/store.js';
import { ManualClock } from '../../src/util/clock.js';
import { makePod } from '../helpers/builders.js';

const settle = () => new Promise<void>((r) => setImmediate(r));

describe('watchers with sharedObjects', () => {
  it('get one deep-frozen object per event; other watchers get private mutable copies', async () => {
    const clock = new ManualClock(0);
    const server = new ApiServer(new MemoryStore({ clock }), { clock });
    const got: Record<string, Pod[]> = { a: [], b: [], own: [] };
    for (const [k, shared] of [
      ['a', true],
      ['b', true],
      ['own', false],
    ] as const)
      await server.watch<Pod>(
        'pods',
        { resourceVersion: '1', sharedObjects: shared },
        (e: ApiWatchEvent<Pod>) => got[k].push(e.object),
      );
    await server.create(makePod('p').label('app', 'x').containers({ name: 'c', image: 'x' }).obj());
    await settle();
    expect(got.a).toHaveLength(1);
    expect(got.a[0]).toBe(got.b[0]);
    expect(Object.isFrozen(got.a[0].metadata.labels)).toBe(true);
    expect(() => {
      got.a[0].metadata.labels!.app = 'y';
    }).toThrow(TypeError);
    expect(got.own[0]).not.toBe(got.a[0]);
    expect(got.own[0]).toEqual(got.a[0]);
    got.own[0].metadata.labels!.app = 'mine';
    expect(got.a[0].metadata.labels!.app).toBe('x');
  });
});

describe('the memory store keeps its own copy of values', () => {
  it('a writer reusing its buffer does not change what is stored, before or after a compaction', async () => {
    const store = new MemoryStore();
    const buf = new Uint8Array([1, 2, 3, 4, 5, 6]);
    await store.put({ key: 'a', value: buf.subarray(0, 3) });
    await store.put({ key: 'b', value: buf.subarray(3, 6) });
    buf.fill(9);
    await store.put({ key: 'a', value: new Uint8Array([7]) });
    expect([...(await store.range({ key: 'a', revision: 2 })).kvs[0].value]).toEqual([1, 2, 3]);
    await store.compact({ revision: 4 });
    expect([...(await store.range({ key: 'a' })).kvs[0].value]).toEqual([7]);
    expect([...(await store.range({ key: 'b' })).kvs[0].value]).toEqual([4, 5, 6]);
  });
});

const scenario = (interval: string, duration: string) =>
  parseScenario(
    `
duration: ${duration}
settings: { compactionInterval: ${interval} }
cluster: { pools: [{ name: w, count: 3, cpu: "8", memory: 32Gi }] }
`,
    'compaction.yaml',
    '.',
  );

describe('compaction as kube-apiserver schedules it (--etcd-compaction-interval)', () => {
  it('compacts nothing at the first tick, then to the revision noted one interval before', async () => {
    // the Lease renewals of three nodes move the revision on every 10 s
    const first = new Simulation(scenario('1m', '90s'));
    await first.run();
    expect(first.store.compactRevision).toBe(-1);
    const noted = new Simulation(scenario('0', '60s'));
    await noted.run();
    const second = new Simulation(scenario('1m', '150s'));
    await second.run();
    // the run is deterministic: at 2m the store was compacted to its revision at 1m
    expect(second.store.compactRevision).toBeGreaterThan(1);
    expect(second.store.compactRevision).toBeLessThanOrEqual(noted.store.revision);
    expect(second.store.compactRevision).toBeGreaterThan(noted.store.revision - 10);
    // a watch from before the compaction gets 410 Gone
    const events: ApiWatchEvent<{ code?: number; reason?: string; message?: string }>[] = [];
    await second.server.watch('leases', { resourceVersion: '2' }, (e) => events.push(e as never));
    await settle();
    expect(events[0].type).toBe('ERROR');
    expect(events[0].object).toMatchObject({ code: 410, reason: 'Expired' });
    expect(events[0].object.message).toMatch(/^too old resource version: 2 \(\d+\)$/);
  });

  it('0 never compacts; an interval under a second is refused', async () => {
    const never = new Simulation(scenario('0', '150s'));
    await never.run();
    expect(never.store.compactRevision).toBe(-1);
    expect(() => scenario('10ms', '1m')).toThrow(
      'compaction.yaml: settings.compactionInterval: expected 0 (never) or at least 1s, got "10ms"',
    );
  });
});

describe('the event recorder remembers the last 4,096 distinct events (client-go maxLruCacheEntries)', () => {
  it('a repeat of a recent event bumps its count; one older than 4,096 others is a new Event', async () => {
    const clock = new ManualClock(0);
    const server = new ApiServer(new MemoryStore({ clock }), {
      clock,
      flowControl: { maxRequestsInflight: 0, maxMutatingRequestsInflight: 0 },
    });
    const api = new ServerClient(server, { clock });
    const rec = new ApiEventRecorder(api, clock, 'test');
    const pod = (i: number) => makePod(`p${i}`).uid(`u${i}`).obj();
    for (let i = 0; i <= 4096; i++) rec.event(pod(i), 'Normal', 'Scheduled', `pod ${i}`);
    await settle();
    rec.event(pod(4096), 'Normal', 'Scheduled', 'pod 4096'); // recent: count 2
    rec.event(pod(0), 'Normal', 'Scheduled', 'pod 0'); // forgotten: a second Event
    await settle();
    await settle();
    const events = (await server.list<Event>('events')).items;
    expect(events).toHaveLength(4098);
    expect(events.filter((e) => e.message === 'pod 4096').map((e) => e.count)).toEqual([2]);
    expect(events.filter((e) => e.message === 'pod 0').map((e) => e.count)).toEqual([1, 1]);
  });
});

describe('informer transform (client-go SetTransform)', () => {
  it('caches and announces the transformed objects; refuses a transform after start', async () => {
    const clock = new ManualClock(0);
    const server = new ApiServer(new MemoryStore({ clock }), { clock });
    const api = new ServerClient(server, { clock });
    await api.create('pods', makePod('a').label('app', 'x').containers({ name: 'c', image: 'x' }).obj());
    const inf = new Informer<Pod>(api, 'pods', { clock });
    const slim = (p: Pod) => ({ ...p, spec: { containers: [] } }) as Pod;
    inf.setTransform(slim);
    const added: Pod[] = [];
    inf.addEventHandler({ onAdd: (p) => added.push(p), onUpdate: (_o, p) => added.push(p) });
    await inf.start();
    await api.create('pods', makePod('b').containers({ name: 'c', image: 'x' }).obj());
    await settle();
    expect(added.map((p) => [p.metadata.name, p.spec.containers.length])).toEqual([
      ['a', 0],
      ['b', 0],
    ]);
    expect(inf.get('default', 'a')?.spec.containers).toEqual([]);
    expect(() => inf.setTransform(slim)).toThrow('informer pods: transform set after start');
    inf.stop();
  });
});

describe('requests are copied as data, not through the codec', () => {
  it("create and update leave the caller's object alone, even a frozen one", async () => {
    const clock = new ManualClock(0);
    const server = new ApiServer(new MemoryStore({ clock }), { clock });
    const req = makePod('p').label('app', 'x').containers({ name: 'c', image: 'x' }).obj();
    const frozen = structuredClone(req);
    const deepFreeze = (o: unknown): void => {
      if (o && typeof o === 'object') {
        Object.freeze(o);
        for (const v of Object.values(o)) deepFreeze(v);
      }
    };
    deepFreeze(frozen);
    const made = await server.create(frozen);
    expect(made).not.toBe(frozen);
    expect(frozen.metadata.uid).toBe(req.metadata.uid);
    expect(made.metadata.labels).not.toBe(frozen.metadata.labels);
    expect(made.metadata.labels).toEqual({ app: 'x' });
    const next = { ...made, metadata: { ...made.metadata, labels: { app: 'y' } } };
    deepFreeze(next);
    const updated = await server.update(next);
    expect(updated.metadata.labels).toEqual({ app: 'y' });
    expect(updated.metadata.resourceVersion).not.toBe(made.metadata.resourceVersion);
    expect(next.metadata.resourceVersion).toBe(made.metadata.resourceVersion);
    expect((await server.get<Pod>('pods', 'default', 'p')).metadata.labels).toEqual({ app: 'y' });
  });
});

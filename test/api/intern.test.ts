// The watchers' shared decodes have their strings interned (src/api/intern.ts): differential
// against a plain decode of the same bytes — equal values, frozen all the way down — over enough
// distinct strings that the bounded table starts over twice, with strings V8 slices out of
// msgpackr's string block, strings too long to intern and lone surrogates among them; and
// sub-objects under the shared keys (labels, containers, …) that repeat, so that equal ones become
// one object, with values a key must tell apart (0 and "0", undefined and absent).
import { describe, expect, it } from 'vitest';
import { ApiServer, type ApiWatchEvent } from '../../src/api/apiserver.js';
import { decode, encode } from '../../src/api/codec.js';
import { freezeInterned, intern } from '../../src/api/intern.js';
import { OBJECT_KEY } from '../../src/api/keys.js';
import type { KubeObject, Node, Pod } from '../../src/api/types.js';
import { keyOf } from '../../src/client/api.js';
import { MemoryStore } from '../../src/store/memory/store.js';
import { ManualClock } from '../../src/util/clock.js';
import { Rng } from '../../src/util/rng.js';
import { makeNode, makePod } from '../helpers/builders.js';
import { expectFrozen, randomValue } from '../helpers/random-value.js';

describe('interned shared decodes', () => {
  it('equal a plain decode of the same bytes and are frozen all the way down', () => {
    for (const seed of [1, 2, 3]) {
      const rng = new Rng(seed);
      // ~600,000 strings: the table (two generations of 131,072) starts over several times
      for (let i = 0; i < 20_000; i++) {
        const v = { kind: 'Thing', items: [randomValue(rng, 0), randomValue(rng, 0), randomValue(rng, 0)] };
        const bytes = encode(v);
        const interned = freezeInterned(decode(bytes));
        expect(interned).toStrictEqual(decode(bytes));
        if (i % 1000 === 0) expectFrozen(interned);
      }
    }
  });

  it('returns an equal string for every input, also across the table starting over', () => {
    const rng = new Rng(7);
    for (let i = 0; i < 400_000; i++) {
      const base = `value-${rng.int(200_000)}-of-the-table`;
      const s = base.slice(rng.int(3));
      expect(intern(s)).toBe(s);
    }
    const lone = 'half a pair \udc00 here';
    expect(intern(lone)).toBe(lone);
  });

  it('the watchers of a pod get the same values as a watcher with a copy of its own', async () => {
    const clock = new ManualClock(0);
    const server = new ApiServer(new MemoryStore({ clock }), { clock });
    const shared: Pod[] = [];
    const own: Pod[] = [];
    await server.watch<Pod>('pods', { resourceVersion: '1', sharedObjects: true }, (e: ApiWatchEvent<Pod>) =>
      shared.push(e.object),
    );
    await server.watch<Pod>('pods', { resourceVersion: '1' }, (e: ApiWatchEvent<Pod>) => own.push(e.object));
    for (let i = 0; i < 50; i++)
      await server.create(
        makePod(`web-${i}-7d9f8c6b5-abcde`)
          .label('app', i % 2 ? 'web' : 'a-much-longer-application-name')
          .containers({ name: 'c', image: 'registry.example.com/team/web:1.2.3' })
          .obj(),
      );
    await new Promise<void>((r) => setImmediate(r));
    expect(shared).toHaveLength(50);
    expect(shared).toStrictEqual(own);
    for (const p of shared) expectFrozen(p);
    // equal containers and labels are one object across the pods; different labels are not
    expect(shared[2].spec.containers).toBe(shared[0].spec.containers);
    expect(shared[2].metadata.labels).toBe(shared[0].metadata.labels);
    expect(shared[1].metadata.labels).not.toBe(shared[0].metadata.labels);
    expect(own[2].spec.containers).not.toBe(own[0].spec.containers);
  });

  it("the shared decodes carry their key: keyOf equals a copy's key, and the key is not part of the value", async () => {
    // seeded churn of namespaced pods (creates, updates, deletes in several namespaces) and
    // cluster-scoped nodes; every watch event's shared object against the same event of a watcher
    // with copies of its own
    const clock = new ManualClock(0);
    const server = new ApiServer(new MemoryStore({ clock }), { clock });
    const shared: { type: string; object: KubeObject }[] = [];
    const own: { type: string; object: KubeObject }[] = [];
    for (const resource of ['pods', 'nodes']) {
      await server.watch(
        resource,
        { resourceVersion: '1', sharedObjects: true },
        (e: ApiWatchEvent<KubeObject>) => shared.push({ type: e.type, object: e.object }),
      );
      await server.watch(resource, { resourceVersion: '1' }, (e: ApiWatchEvent<KubeObject>) =>
        own.push({ type: e.type, object: e.object }),
      );
    }
    const rng = new Rng(26);
    const live = new Map<string, { ns: string; name: string }>();
    for (let i = 0; i < 300; i++) {
      const op = rng.int(4);
      if (op === 0 && live.size) {
        const [k, p] = [...live][rng.int(live.size)];
        live.delete(k);
        await server.delete('pods', p.ns, p.name);
      } else if (op === 1) {
        await server.create<Node>(makeNode(`node-${i}-in-the-cluster`).obj()).catch(() => undefined);
      } else {
        const ns = `ns-${rng.int(5)}`;
        const name = `web-${rng.int(60)}-7d9f8c6b5-${i}`;
        const pod = makePod(name).obj();
        pod.metadata.namespace = ns;
        await server.create<Pod>(pod);
        live.set(`${ns}/${name}`, { ns, name });
      }
    }
    await new Promise<void>((r) => setImmediate(r));
    expect(shared.length).toBeGreaterThan(250);
    expect(shared.map((e) => e.type)).toEqual(own.map((e) => e.type));
    shared.forEach((e, i) => {
      const o = e.object;
      const m = own[i].object.metadata;
      const want = m.namespace ? `${m.namespace}/${m.name}` : m.name;
      expect(keyOf(o)).toBe(want);
      expect((o as { [OBJECT_KEY]?: string })[OBJECT_KEY]).toBe(want);
      expect(keyOf({ ...o })).toBe(want);
      // neither enumerable nor a string key: the value is the copy's
      expect(JSON.stringify(o)).toBe(JSON.stringify(own[i].object));
      expect({ ...o }).toStrictEqual(own[i].object);
    });
    // a copy with another name computes its own key
    const p = shared.find((e) => e.object.metadata.namespace)!.object;
    expect(keyOf({ ...p, metadata: { ...p.metadata, name: 'other' } })).toBe(`${p.metadata.namespace}/other`);
  });
});

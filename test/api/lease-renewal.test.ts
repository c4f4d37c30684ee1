// The ApiServer keeps one decoded, frozen object per key revision (src/api/revision-cache.ts):
// the update path takes it as its old object, the sharing watchers hand it to the informers, and
// a Lease update that only moves spec.renewTime skips defaulting, validation and the whole-object
// comparisons (src/api/apiserver-lease.ts). Differential test: the same seeded sequence of
// requests (Leases as kubelets renew them; Pods as the scheduler and kubelets write them) against
// two servers, one with a validating admission hook that lets everything through (a hook turns
// the cache and the shortcut off, so that server decodes and checks every request in full). Every
// answer (object or error), every warning, the store's revisions and every watch event (shared
// frozen objects as the in-process informers get them, and private copies) must be the same, and
// every object a caller gets back must be its own to change.
import { describe, expect, it } from 'vitest';
import { AdmissionChain } from '../../src/api/admission.js';
import { ApiServer, type ApiWatchEvent } from '../../src/api/apiserver.js';
import { encode } from '../../src/api/codec.js';
import { ApiError } from '../../src/api/errors.js';
import { rfc3339Micro } from '../../src/api/time.js';
import type { KubeObject, Lease, Pod } from '../../src/api/types.js';
import { MemoryStore } from '../../src/store/memory/store.js';
import { ManualClock } from '../../src/util/clock.js';
import { Rng } from '../../src/util/rng.js';

const NS = 'kube-node-lease';

function server(shortcut: boolean) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const store = new MemoryStore({ clock });
  const warnings: string[] = [];
  const admission = new AdmissionChain();
  if (!shortcut) admission.addValidating('allow-all', () => ({ allowed: true }));
  const api = new ApiServer(store, { clock, admission, onWarning: (w) => warnings.push(w) });
  const events: { shared: string[]; own: string[] } = { shared: [], own: [] };
  const sharedObjects: KubeObject[] = [];
  const log = (to: string[], ev: ApiWatchEvent<KubeObject>) =>
    to.push(`${ev.type} ${JSON.stringify(ev.object)}`);
  for (const resource of ['leases', 'pods']) {
    void api.watch(resource, { resourceVersion: '1', sharedObjects: true }, (ev) => {
      log(events.shared, ev);
      sharedObjects.push(ev.object);
    });
    void api.watch(resource, { resourceVersion: '1' }, (ev) => log(events.own, ev));
  }
  return { clock, store, api, warnings, events, sharedObjects };
}

type Step = (api: ApiServer, held: Map<string, Lease | Pod>, store: MemoryStore) => Promise<unknown>;

const lease = (name: string, renewTime: string): Lease => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name, namespace: NS },
  spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime },
});

const pod = (name: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels: { app: 'web' } },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: '100m' } } }] },
});

/** one seeded Pod request: status posts, label changes, binds, no-ops, conflicts, invalid ones, deletes */
function podStep(rng: Rng, now: number): Step {
  const name = `pod-${rng.int(3)}`;
  const r = rng.int(12);
  return async (api, held) => {
    const p = held.get(name) as Pod | undefined;
    if (!p) {
      const got = await api.create(pod(name));
      held.set(name, got);
      return got;
    }
    let got: Pod;
    switch (r) {
      case 0:
        got = await api.update({
          ...p,
          metadata: { ...p.metadata, labels: { app: 'web', v: String(now % 5) } },
        });
        break;
      case 1: // unchanged: a no-op
        got = await api.update(p);
        break;
      case 2: // the status in a main update is ignored (status subresource)
        got = await api.update({ ...p, status: { phase: 'Failed' } });
        break;
      case 3: // an invalid container name: 422
        got = await api.update({
          ...p,
          spec: { ...p.spec, containers: [{ ...p.spec.containers[0], name: 'Bad_Name' }] },
        });
        break;
      case 4: // stale: 409
        got = await api.updateStatus({ ...p, metadata: { ...p.metadata, resourceVersion: '1' } });
        break;
      case 5:
        await api.bind({
          apiVersion: 'v1',
          kind: 'Binding',
          metadata: { name, namespace: 'default' },
          target: { kind: 'Node', name: 'node-1' },
        });
        got = await api.get<Pod>('pods', 'default', name);
        break;
      case 6:
        held.delete(name);
        return api.delete('pods', 'default', name, { gracePeriodSeconds: 0 });
      case 7: // the caller changes what it got back (its own copy) and posts it
        (p.status ??= {}).phase = 'Running';
        got = await api.updateStatus(p);
        break;
      default: // the kubelet's status post: a condition with the time
        got = await api.updateStatus({
          ...p,
          status: {
            ...p.status,
            phase: 'Running',
            conditions: [
              {
                type: 'Ready',
                status: now % 2 ? 'True' : 'False',
                lastTransitionTime: new Date(now).toISOString(),
              },
            ],
          },
        });
    }
    held.set(name, got);
    return got;
  };
}

/** one seeded Lease request: mostly renewals as a kubelet sends them, and every way to leave that path */
function step(rng: Rng, now: number): Step {
  const name = `node-${rng.int(4)}`;
  const t = rfc3339Micro(now);
  const r = rng.int(20);
  return async (api, held, store) => {
    const l = held.get(name) as Lease | undefined;
    if (!l || r === 0) {
      const got = await api.create(lease(name, t)).catch(async (e) => {
        if (!(e instanceof ApiError) || e.reason !== 'AlreadyExists') throw e;
        return api.get<Lease>('leases', NS, name);
      });
      held.set(name, got);
      return got;
    }
    let req: Lease;
    switch (r) {
      case 1: // the same renewTime again: a no-op, nothing written
        req = { ...l };
        break;
      case 2: // another holder takes over
        req = { ...l, spec: { ...l.spec, holderIdentity: 'other', renewTime: t } };
        break;
      case 3: // invalid: 422 from validation
        req = { ...l, spec: { ...l.spec, leaseTransitions: -1, renewTime: t } };
        break;
      case 4: // an unknown field: a warning, written
        req = { ...l, spec: { ...l.spec, renewTime: t, bogus: 1 } as Lease['spec'] };
        break;
      case 5: // stale resourceVersion: 409
        req = { ...l, metadata: { ...l.metadata, resourceVersion: '1' }, spec: { ...l.spec, renewTime: t } };
        break;
      case 6: // a label: the metadata changed
        req = {
          ...l,
          metadata: { ...l.metadata, labels: { k: String(now % 7) } },
          spec: { ...l.spec, renewTime: t },
        };
        break;
      case 7: // delete it (the next request creates it again)
        held.delete(name);
        return api.delete('leases', NS, name);
      case 8: {
        // a write that bypasses the server: the next update must read the store, not a cached object
        const key = `/registry/leases/${NS}/${name}`;
        const { metadata, ...rest } = l;
        const { resourceVersion: _rv, ...meta } = metadata;
        await store.put({
          key,
          value: encode({ ...rest, metadata: meta, spec: { ...l.spec, renewTime: t } }),
        });
        held.set(name, await api.get<Lease>('leases', NS, name));
        return held.get(name);
      }
      case 9: // the caller changes the object it got back, then sends it: not the stored one any more
        (l.spec as { leaseDurationSeconds?: number }).leaseDurationSeconds = 30 + (now % 3);
        req = { ...l, spec: { ...l.spec, renewTime: t } };
        break;
      case 10: // without a resourceVersion: unconditional
        req = {
          ...l,
          metadata: { ...l.metadata, resourceVersion: undefined },
          spec: { ...l.spec, renewTime: t },
        };
        break;
      default: // the kubelet's renewal (nodelease controller: renewTime = now)
        req = { ...l, spec: { ...l.spec, holderIdentity: name, renewTime: t } };
    }
    const got = await api.update(req);
    held.set(name, got);
    return got;
  };
}

async function run(seed: number, shortcut: boolean) {
  const s = server(shortcut);
  await s.api.bootstrapNamespaces();
  const rng = new Rng(seed);
  const held = new Map<string, Lease | Pod>();
  const answers: string[] = [];
  for (let i = 0; i < 400; i++) {
    s.clock.advance(1 + rng.int(3) * 500);
    const st = rng.int(4) === 0 ? podStep(rng, s.clock.now()) : step(rng, s.clock.now());
    try {
      answers.push(JSON.stringify(await st(s.api, held, s.store)));
    } catch (e) {
      answers.push(e instanceof ApiError ? `${e.code} ${e.message}` : String(e));
    }
    await new Promise((r) => setImmediate(r));
  }
  // every returned object is the caller's own: it can change it
  for (const l of held.values()) l.metadata.labels = { changed: 'yes' };
  return {
    answers,
    warnings: s.warnings,
    events: s.events,
    revision: await s.store.currentRevision(),
    sharedFrozen: s.sharedObjects.every((o) => Object.isFrozen(o) && Object.isFrozen(o.metadata)),
  };
}

describe('cached revisions and the Lease renewal shortcut answer as the full update path does', () => {
  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: same answers, warnings, revisions and watch events`, async () => {
      const fast = await run(seed, true);
      const full = await run(seed, false);
      expect(fast.answers).toEqual(full.answers);
      expect(fast.warnings).toEqual(full.warnings);
      expect(fast.revision).toBe(full.revision);
      expect(fast.events.shared).toEqual(full.events.shared);
      expect(fast.events.own).toEqual(full.events.own);
      expect(fast.events.own).toEqual(fast.events.shared);
      expect(fast.sharedFrozen && full.sharedFrozen).toBe(true);
      // the sequence does exercise every branch: renewals, no-ops, 409s, 422s, warnings
      const text = fast.answers.join('\n');
      expect(text).toMatch(/^409 /m);
      expect(text).toMatch(/^422 /m);
      expect(fast.warnings.length).toBeGreaterThan(0);
      expect(fast.events.shared.length).toBeGreaterThan(200);
      expect(text).toMatch(/"nodeName":"node-1"/);
    });
  }
});

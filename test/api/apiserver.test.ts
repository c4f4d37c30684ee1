import { describe, expect, it } from 'vitest';
import { AdmissionChain } from '../../src/api/admission.js';
import { ApiServer, type ApiWatchEvent } from '../../src/api/apiserver.js';
import { ApiError } from '../../src/api/errors.js';
import type { Binding, Deployment, KubeObject, Node, Pod, Service } from '../../src/api/types.js';
import { ManualClock } from '../../src/util/clock.js';
import { MemoryStore } from '../../src/store/memory/store.js';
import { makePod } from '../helpers/builders.js';

function setup(opts: ConstructorParameters<typeof ApiServer>[1] = {}) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const store = new MemoryStore({ clock });
  const api = new ApiServer(store, { clock, ...opts });
  return { clock, store, api };
}

function pod(
  name: string,
  labels: Record<string, string> = { app: 'web' },
  extra: Partial<Pod['spec']> = {},
): Pod {
  return makePod(name)
    .uid(undefined)
    .labels(labels)
    .containers({
      name: 'app',
      image: 'nginx:1.27',
      resources: { requests: { cpu: '100m', memory: '128Mi' } },
    })
    .spec(extra)
    .obj();
}

function deployment(name: string, replicas = 2): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] },
      },
    },
  };
}

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error('expected a rejection');
}

const binding = (name: string, node: string): Binding => ({
  apiVersion: 'v1',
  kind: 'Binding',
  metadata: { name, namespace: 'default' },
  target: { kind: 'Node', name: node },
});

describe('ApiServer create/get', () => {
  it('creates with server fields and reads back the same', async () => {
    const { api, store } = setup();
    const p = await api.create(pod('web-0'));
    expect(p.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(p.metadata.creationTimestamp).toBe('2026-01-01T12:00:00Z');
    expect(p.metadata.generation).toBe(1);
    expect(p.metadata.resourceVersion).toBe(String(await store.currentRevision()));
    expect(p.status).toEqual({ phase: 'Pending', qosClass: 'Burstable' });
    expect(p.spec.schedulerName).toBe('default-scheduler');
    const got = await api.get<Pod>('pods', 'default', 'web-0');
    expect(got).toEqual(p);
    const kv = await store.range({ key: '/registry/pods/default/web-0' });
    expect(kv.kvs).toHaveLength(1);
    expect(String(kv.kvs[0]!.modRevision)).toBe(p.metadata.resourceVersion);
  });

  it('never mutates the caller object', async () => {
    const { api } = setup();
    const input = pod('web-0');
    const before = JSON.stringify(input);
    await api.create(input);
    expect(JSON.stringify(input)).toBe(before);
  });

  it('409 AlreadyExists and 404 NotFound with upstream wording', async () => {
    const { api } = setup();
    await api.create(pod('web-0'));
    const e = await rejection(api.create(pod('web-0')));
    expect(e.code).toBe(409);
    expect(e.reason).toBe('AlreadyExists');
    expect(e.message).toBe('pods "web-0" already exists');
    const nf = await rejection(api.get('pods', 'default', 'nope'));
    expect(nf.code).toBe(404);
    expect(nf.message).toBe('pods "nope" not found');
    expect(nf.status()).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      code: 404,
      reason: 'NotFound',
      details: { name: 'nope', kind: 'pods' },
    });
    const dnf = await rejection(api.get('deployments', 'default', 'x'));
    expect(dnf.message).toBe('deployments.apps "x" not found');
  });

  it('generateName, dryRun, cluster-scoped keys', async () => {
    const { api, store } = setup({ seed: 7 });
    const a = await api.create({ ...pod(''), metadata: { generateName: 'web-', namespace: 'default' } });
    expect(a.metadata.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const dry = await api.create(pod('dry'), { dryRun: true });
    expect(dry.metadata.resourceVersion).toBeUndefined();
    await expect(api.get('pods', 'default', 'dry')).rejects.toMatchObject({ code: 404 });
    const node: Node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1' },
      status: { allocatable: { cpu: '4', memory: '16Gi' } },
    };
    const n = await api.create(node);
    expect(n.status?.allocatable).toEqual({ cpu: '4', memory: '16Gi' }); // nodes keep status on create
    expect((await store.range({ key: '/registry/nodes/node-1' })).count).toBe(1);
  });

  it('rejects unknown kinds and resourceVersion on create', async () => {
    const { api } = setup();
    const e = await rejection(
      api.create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } } as KubeObject),
    );
    expect(e.code).toBe(400);
    expect(e.message).toBe(
      'no matches for kind "Widget" in version "example.com/v1": no CustomResourceDefinition defines kind Widget in group example.com (the CRD <plural>.example.com is missing; ensure CRDs are installed first)',
    );
    const e2 = await rejection(api.create({ ...pod('x'), metadata: { name: 'x', resourceVersion: '5' } }));
    expect(e2.message).toBe('resourceVersion should not be set on objects to be created');
  });

  it('a pod whose anti-affinity selector holds an invalid label value is rejected at create, never stored', async () => {
    const { api } = setup();
    const bad = pod(
      'w',
      { app: 'web' },
      {
        affinity: {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              {
                labelSelector: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web app'] }] },
                topologyKey: 'kubernetes.io/hostname',
              },
            ],
          },
        },
      },
    );
    const e = await rejection(api.create(bad));
    expect(e.code).toBe(422);
    expect(e.details?.causes?.map((c) => c.field)).toEqual([
      'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values[0]',
    ]);
    expect((await api.list<Pod>('pods', { namespace: 'default' })).items).toEqual([]);
  });

  it('422 Invalid with field paths', async () => {
    const { api } = setup();
    const bad = pod('Web_0');
    bad.spec.containers[0]!.resources = { requests: { cpu: '1.5x' } };
    const e = await rejection(api.create(bad));
    expect(e.code).toBe(422);
    expect(e.reason).toBe('Invalid');
    expect(e.message).toContain(
      'Pod "Web_0" is invalid: [metadata.name: Invalid value: "Web_0": a lowercase RFC 1123 subdomain',
    );
    expect(e.message).toContain(
      `spec.containers[0].resources.requests[cpu]: Invalid value: "1.5x": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    );
    expect(e.details?.causes?.map((c) => c.field)).toEqual([
      'metadata.name',
      'spec.containers[0].resources.requests[cpu]',
    ]);
  });
});

describe('ApiServer update / updateStatus / delete', () => {
  it('CAS on resourceVersion: stale → 409 Conflict', async () => {
    const { api } = setup();
    const p = await api.create(pod('web-0'));
    const p2 = await api.update({ ...p, metadata: { ...p.metadata, labels: { app: 'web', v: '2' } } });
    expect(Number(p2.metadata.resourceVersion)).toBeGreaterThan(Number(p.metadata.resourceVersion));
    const e = await rejection(api.update({ ...p, metadata: { ...p.metadata, labels: { app: 'stale' } } }));
    expect(e.code).toBe(409);
    expect(e.reason).toBe('Conflict');
    expect(e.message).toBe(
      'Operation cannot be fulfilled on pods "web-0": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('update ignores status, bumps generation on spec change, no-op writes nothing', async () => {
    const { api } = setup();
    const d = await api.create(deployment('web'));
    expect(d.metadata.generation).toBe(1);
    const scaled = await api.update({ ...d, spec: { ...d.spec, replicas: 5 }, status: { replicas: 99 } });
    expect(scaled.metadata.generation).toBe(2);
    expect(scaled.status).toEqual({});
    const relabeled = await api.update({
      ...scaled,
      metadata: { ...scaled.metadata, labels: { team: 'a' } },
    });
    expect(relabeled.metadata.generation).toBe(2);
    const same = await api.update(relabeled);
    expect(same.metadata.resourceVersion).toBe(relabeled.metadata.resourceVersion);
    const immut = await rejection(
      api.update({ ...relabeled, spec: { ...relabeled.spec, selector: { matchLabels: { app: 'other' } } } }),
    );
    expect(immut.code).toBe(422);
    expect(immut.message).toContain('spec.selector: Invalid value:');
    expect(immut.message).toContain('field is immutable');
  });

  it('updateStatus changes only status', async () => {
    const { api } = setup();
    const p = await api.create(pod('web-0'));
    const s = await api.updateStatus({
      ...p,
      metadata: { ...p.metadata, labels: { hacked: 'yes' } },
      status: { phase: 'Running', podIP: '10.0.0.5' },
    });
    expect(s.status).toEqual({ phase: 'Running', podIP: '10.0.0.5' });
    expect(s.metadata.labels).toEqual({ app: 'web' });
    const stale = await rejection(api.updateStatus({ ...p, status: { phase: 'Failed' } }));
    expect(stale.code).toBe(409);
  });

  it('pod spec is immutable except images', async () => {
    const { api } = setup();
    const p = await api.create(pod('web-0'));
    const img = await api.update({
      ...p,
      spec: { ...p.spec, containers: [{ ...p.spec.containers[0]!, image: 'nginx:1.28' }] },
    });
    expect(img.spec.containers[0]!.image).toBe('nginx:1.28');
    const e = await rejection(api.update({ ...img, spec: { ...img.spec, nodeName: 'node-1' } }));
    expect(e.code).toBe(422);
    expect(e.message).toContain(
      'spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`',
    );
  });

  it('delete with preconditions; finalizers defer deletion', async () => {
    const { api } = setup();
    const p = await api.create(pod('web-0'));
    const e = await rejection(api.delete('pods', 'default', 'web-0', { preconditions: { uid: 'other' } }));
    expect(e.message).toBe(
      `Operation cannot be fulfilled on pods "web-0": Precondition failed: UID in precondition: other, UID in object meta: ${p.metadata.uid}`,
    );
    const e2 = await rejection(
      api.delete('pods', 'default', 'web-0', { preconditions: { resourceVersion: '1' } }),
    );
    expect(e2.code).toBe(409);
    const gone = await api.delete<Pod>('pods', 'default', 'web-0', {
      preconditions: { uid: p.metadata.uid, resourceVersion: p.metadata.resourceVersion },
    });
    expect(gone.metadata.name).toBe('web-0');
    await expect(api.get('pods', 'default', 'web-0')).rejects.toMatchObject({ code: 404 });

    const f = await api.create({
      ...pod('fin'),
      metadata: { name: 'fin', namespace: 'default', finalizers: ['example.com/keep'] },
    });
    const marked = await api.delete<Pod>('pods', 'default', 'fin');
    expect(marked.metadata.deletionTimestamp).toBe('2026-01-01T12:00:00Z');
    const still = await api.get<Pod>('pods', 'default', 'fin');
    expect(still.metadata.finalizers).toEqual(['example.com/keep']);
    await api.update({ ...still, metadata: { ...still.metadata, finalizers: [] } });
    await expect(api.get('pods', 'default', 'fin')).rejects.toMatchObject({ code: 404 });
    expect(f.metadata.uid).toBeDefined();
  });

  it('graceful pod deletion marks a bound pod terminating', async () => {
    const { api } = setup();
    await api.create(pod('web-0'));
    await api.bind(binding('web-0', 'node-1'));
    const marked = await api.delete<Pod>('pods', 'default', 'web-0', { gracePeriodSeconds: 30 });
    expect(marked.metadata.deletionTimestamp).toBe('2026-01-01T12:00:30Z');
    expect(marked.metadata.deletionGracePeriodSeconds).toBe(30);
    await api.delete('pods', 'default', 'web-0', { gracePeriodSeconds: 0 });
    await expect(api.get('pods', 'default', 'web-0')).rejects.toMatchObject({ code: 404 });
  });
});

describe('ApiServer bind', () => {
  it('binds once; a second bind is 409 with the registry message', async () => {
    const { api } = setup();
    await api.create(pod('web-0'));
    await api.bind(binding('web-0', 'node-1'));
    const p = await api.get<Pod>('pods', 'default', 'web-0');
    expect(p.spec.nodeName).toBe('node-1');
    expect(p.status?.conditions).toEqual([
      {
        type: 'PodScheduled',
        status: 'True',
        lastProbeTime: null,
        lastTransitionTime: '2026-01-01T12:00:00Z',
      },
    ]);
    const e = await rejection(api.bind(binding('web-0', 'node-2')));
    expect(e.code).toBe(409);
    expect(e.message).toBe(
      'Operation cannot be fulfilled on pods/binding "web-0": pod web-0 is already assigned to node "node-1"',
    );
    const nf = await rejection(api.bind(binding('ghost', 'node-1')));
    expect(nf.code).toBe(404);
  });

  it('two concurrent binds of one pod: exactly one wins', async () => {
    for (let round = 0; round < 5; round++) {
      const { api } = setup();
      await api.create(pod('web-0'));
      const results = await Promise.allSettled([
        api.bind(binding('web-0', 'node-a')),
        api.bind(binding('web-0', 'node-b')),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]!.reason.code).toBe(409);
      const p = await api.get<Pod>('pods', 'default', 'web-0');
      expect(['node-a', 'node-b']).toContain(p.spec.nodeName);
      expect(lost[0]!.reason.message).toContain(`is already assigned to node "${p.spec.nodeName}"`);
    }
  });
});

describe('ApiServer list', () => {
  it('selectors, namespaces, resourceVersion and paging', async () => {
    const { api, store } = setup();
    for (let i = 0; i < 7; i++)
      await api.create(pod(`web-${i}`, { app: i % 2 ? 'web' : 'db', idx: String(i) }));
    await api.create({
      ...pod('other'),
      metadata: { name: 'other', namespace: 'kube-system', labels: { app: 'web' } },
    });
    await api.bind(binding('web-1', 'node-1'));

    const all = await api.list<Pod>('pods');
    expect(all.items).toHaveLength(8);
    expect(all.metadata.resourceVersion).toBe(String(await store.currentRevision()));
    expect((await api.list('pods', { namespace: 'kube-system' })).items.map((p) => p.metadata.name)).toEqual([
      'other',
    ]);
    const web = await api.list<Pod>('pods', { namespace: 'default', labelSelector: 'app=web' });
    expect(web.items.map((p) => p.metadata.name)).toEqual(['web-1', 'web-3', 'web-5']);
    expect(
      (await api.list('pods', { labelSelector: 'app in (db),idx notin (0,2)' })).items.map(
        (p) => p.metadata.name,
      ),
    ).toEqual(['web-4', 'web-6']);
    expect(
      (await api.list('pods', { fieldSelector: 'spec.nodeName=node-1' })).items.map((p) => p.metadata.name),
    ).toEqual(['web-1']);
    expect((await api.list('pods', { fieldSelector: 'spec.nodeName=' })).items).toHaveLength(7);
    expect((await api.list('pods', { fieldSelector: 'metadata.namespace!=default' })).items).toHaveLength(1);
    await expect(api.list('pods', { fieldSelector: 'spec.foo=x' })).rejects.toMatchObject({
      code: 400,
      message: 'field label not supported: spec.foo',
    });

    // paging: 3 at a time with a selector, consistent at the first page's revision
    const p1 = await api.list<Pod>('pods', { namespace: 'default', limit: 3 });
    expect(p1.items.map((p) => p.metadata.name)).toEqual(['web-0', 'web-1', 'web-2']);
    expect(p1.metadata.continue).toBeDefined();
    await api.create(pod('web-00')); // sorts after web-0, created after the snapshot
    const p2 = await api.list<Pod>('pods', {
      namespace: 'default',
      limit: 3,
      continue: p1.metadata.continue,
    });
    expect(p2.items.map((p) => p.metadata.name)).toEqual(['web-3', 'web-4', 'web-5']);
    expect(p2.metadata.resourceVersion).toBe(p1.metadata.resourceVersion);
    const p3 = await api.list<Pod>('pods', {
      namespace: 'default',
      limit: 3,
      continue: p2.metadata.continue,
    });
    expect(p3.items.map((p) => p.metadata.name)).toEqual(['web-6']);
    expect(p3.metadata.continue).toBeUndefined();
    const sel = await api.list<Pod>('pods', { labelSelector: 'app=web', limit: 2 });
    expect(sel.items.map((p) => p.metadata.name)).toEqual(['web-00', 'web-1']); // default/ sorts before kube-system/
    const sel2 = await api.list<Pod>('pods', {
      labelSelector: 'app=web',
      limit: 2,
      continue: sel.metadata.continue,
    });
    expect(sel2.items.map((p) => p.metadata.name)).toEqual(['web-3', 'web-5']);
    const sel3 = await api.list<Pod>('pods', {
      labelSelector: 'app=web',
      limit: 2,
      continue: sel2.metadata.continue,
    });
    expect(sel3.items.map((p) => p.metadata.name)).toEqual(['other']);
    expect(sel3.metadata.continue).toBeUndefined();

    // an expired continue token → 410
    await store.compact({ revision: await store.currentRevision() });
    const e = await rejection(
      api.list('pods', { namespace: 'default', limit: 3, continue: p1.metadata.continue }),
    );
    expect(e.code).toBe(410);
    expect(e.reason).toBe('Expired');
  });

  it('label selector parse errors are 400', async () => {
    const { api } = setup();
    await expect(api.list('pods', { labelSelector: 'app in web' })).rejects.toMatchObject({ code: 400 });
    await expect(api.list('pods', { labelSelector: 'a=b=c' })).rejects.toMatchObject({ code: 400 });
  });
});

describe('ApiServer watch', () => {
  it('replays from a resourceVersion and streams changes', async () => {
    const { api } = setup();
    const a = await api.create(pod('a'));
    await api.bind(binding('a', 'n1'));
    const events: ApiWatchEvent<Pod>[] = [];
    const h = await api.watch<Pod>('pods', { resourceVersion: a.metadata.resourceVersion }, (ev) =>
      events.push(ev),
    );
    await api.create(pod('b'));
    await api.delete('pods', 'default', 'a');
    await new Promise((r) => setTimeout(r, 10));
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['MODIFIED', 'a'],
      ['ADDED', 'b'],
      ['DELETED', 'a'],
    ]);
    // DELETED carries the deletion revision
    expect(Number(events[2]!.object.metadata.resourceVersion)).toBeGreaterThan(
      Number(events[1]!.object.metadata.resourceVersion),
    );
    await h.stop();
    await api.create(pod('c'));
    await new Promise((r) => setTimeout(r, 10));
    expect(events).toHaveLength(3);
  });

  it('without resourceVersion starts with ADDED for current objects', async () => {
    const { api } = setup();
    await api.create(pod('a'));
    await api.create(pod('b', { app: 'db' }));
    const events: ApiWatchEvent<Pod>[] = [];
    const h = await api.watch<Pod>('pods', { labelSelector: 'app=web' }, (ev) => events.push(ev));
    const b = await api.get<Pod>('pods', 'default', 'b');
    await api.update({ ...b, metadata: { ...b.metadata, labels: { app: 'web' } } }); // starts matching → ADDED
    const a = await api.get<Pod>('pods', 'default', 'a');
    await api.update({ ...a, metadata: { ...a.metadata, labels: { app: 'db' } } }); // stops matching → DELETED
    await new Promise((r) => setTimeout(r, 10));
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'b'],
      ['DELETED', 'a'],
    ]);
    await h.stop();
  });

  it('per-node field-selector watches see only their pods, each with its own object', async () => {
    const { api } = setup();
    const seen = new Map<string, ApiWatchEvent<Pod>[]>();
    const handles = [];
    for (let n = 0; n < 20; n++) {
      const node = `node-${n}`;
      seen.set(node, []);
      handles.push(
        await api.watch<Pod>('pods', { resourceVersion: '1', fieldSelector: `spec.nodeName=${node}` }, (ev) =>
          seen.get(node)!.push(ev),
        ),
      );
    }
    const all: ApiWatchEvent<Pod>[] = [];
    handles.push(await api.watch<Pod>('pods', { resourceVersion: '1' }, (ev) => all.push(ev)));
    for (let i = 0; i < 40; i++) {
      await api.create(pod(`p${i}`));
      await api.bind(binding(`p${i}`, `node-${i % 20}`));
    }
    await new Promise((r) => setTimeout(r, 20));
    for (let n = 0; n < 20; n++) {
      // ADDED when the bind makes the pod match, nothing for the create
      expect(seen.get(`node-${n}`)!.map((e) => [e.type, e.object.metadata.name])).toEqual([
        ['ADDED', `p${n}`],
        ['ADDED', `p${n + 20}`],
      ]);
    }
    expect(all).toHaveLength(80);
    // objects are not shared between watchers
    const a = seen.get('node-0')![0]!.object;
    const b = all.find((e) => e.type === 'MODIFIED' && e.object.metadata.name === 'p0')!.object;
    expect(a).not.toBe(b);
    a.metadata.labels!.mutated = 'yes';
    expect(b.metadata.labels!.mutated).toBeUndefined();
    for (const h of handles) await h.stop();
  });

  it('bookmarks on request with allowBookmarks', async () => {
    const { api, store } = setup();
    await api.create(pod('a'));
    const events: ApiWatchEvent<any>[] = [];
    const h = await api.watch('pods', { resourceVersion: '1', allowBookmarks: true }, (ev) =>
      events.push(ev),
    );
    await new Promise((r) => setTimeout(r, 10));
    h.requestBookmark();
    await new Promise((r) => setTimeout(r, 10));
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect(events[1]!.object).toEqual({
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { resourceVersion: String(await store.currentRevision()) },
    });
    await h.stop();
  });

  it('410 after compaction, as an ERROR event with a Status', async () => {
    const { api, store } = setup();
    const a = await api.create(pod('a'));
    for (let i = 0; i < 5; i++) await api.create(pod(`x${i}`));
    const rev = await store.currentRevision();
    await store.compact({ revision: rev });
    const events: ApiWatchEvent<any>[] = [];
    await api.watch('pods', { resourceVersion: a.metadata.resourceVersion }, (ev) => events.push(ev));
    await new Promise((r) => setTimeout(r, 10));
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe('ERROR');
    expect(events[0]!.object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    expect(events[0]!.object.message).toBe(
      `too old resource version: ${a.metadata.resourceVersion} (${rev - 1})`,
    );
  });
});

describe('ApiServer admission', () => {
  it('mutating hooks in order, then validation, then validating hooks', async () => {
    const order: string[] = [];
    const chain = new AdmissionChain()
      .addMutating('add-label', (a) => {
        order.push('m1');
        a.object!.metadata.labels = { ...(a.object!.metadata.labels ?? {}), injected: 'true' };
      })
      .addMutating('second', (a) => {
        order.push(`m2:${a.object!.metadata.labels?.injected}`);
      })
      .addValidating(
        'deny-db',
        (a) => {
          order.push('v1');
          if (a.object?.metadata.labels?.app === 'db')
            return { allowed: false, message: 'databases are not allowed here' };
          return undefined;
        },
        { resources: ['pods'], operations: ['CREATE'] },
      );
    const { api } = setup({ admission: chain });
    const p = await api.create(pod('a'));
    expect(p.metadata.labels).toEqual({ app: 'web', injected: 'true' });
    expect(order).toEqual(['m1', 'm2:true', 'v1']);
    const e = await rejection(api.create(pod('b', { app: 'db' })));
    expect(e.code).toBe(403);
    expect(e.message).toBe('admission webhook "deny-db" denied the request: databases are not allowed here');
    // validation runs before validating hooks: an invalid object never reaches them
    order.length = 0;
    await rejection(api.create(pod('C')));
    expect(order).toEqual(['m1', 'm2:true']);
  });

  it('a throwing hook rejects with its name; code can be 422', async () => {
    const chain = new AdmissionChain().addValidating('quota', () => ({
      allowed: false,
      message: 'exceeded quota',
      code: 422,
    }));
    const { api } = setup({ admission: chain });
    const e = await rejection(api.create(pod('a')));
    expect(e.code).toBe(422);
    expect(e.reason).toBe('Invalid');
    const chain2 = new AdmissionChain().addMutating('boom', () => {
      throw new Error('kaput');
    });
    const e2 = await rejection(setup({ admission: chain2 }).api.create(pod('a')));
    expect(e2.message).toBe('admission webhook "boom" denied the request: kaput');
  });
});

describe('ApiServer flow control', () => {
  it('429 under a burst with low limits, with observable counters', async () => {
    const { api } = setup({ flowControl: { maxRequestsInflight: 3, maxMutatingRequestsInflight: 2 } });
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => api.create(pod(`p${i}`))));
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    const rejected = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(ok).toBe(2);
    expect(rejected).toHaveLength(8);
    expect(rejected[0]!.reason.code).toBe(429);
    expect(rejected[0]!.reason.message).toBe('Too many requests, please try again later.');
    expect(rejected[0]!.reason.details.retryAfterSeconds).toBe(1);
    const reads = await Promise.allSettled(Array.from({ length: 5 }, () => api.list('pods')));
    expect(reads.filter((r) => r.status === 'rejected')).toHaveLength(2);
    const s = api.stats();
    expect(s).toMatchObject({
      rejected: 10,
      rejectedMutating: 8,
      inflight: 0,
      inflightMutating: 0,
      peakInflightMutating: 2,
      peakInflight: 3,
    });
    // sequential requests never hit the limit
    for (let i = 0; i < 5; i++) await api.create(pod(`seq${i}`));
    expect(api.stats().rejected).toBe(10);
  });
});

describe('ApiServer services', () => {
  it('allocates clusterIP and nodePorts, keeps them on update, rejects taken ones', async () => {
    const { api } = setup();
    const svc = (
      name: string,
      type: Service['spec']['type'],
      extra: Partial<Service['spec']> = {},
    ): Service => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: 'default' },
      spec: { type, selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }], ...extra },
    });
    const a = await api.create(svc('a', 'ClusterIP'));
    expect(a.spec.clusterIP).toBe('10.96.0.1');
    expect(a.spec.clusterIPs).toEqual(['10.96.0.1']);
    expect(a.spec.ports![0]).toMatchObject({ protocol: 'TCP', port: 80, targetPort: 8080 });
    const b = await api.create(svc('b', 'NodePort'));
    expect(b.spec.clusterIP).toBe('10.96.0.2');
    expect(b.spec.ports![0]!.nodePort).toBe(30000);
    const b2 = await api.update({ ...b, spec: { ...b.spec, ports: [{ port: 80, targetPort: 9090 }] } });
    expect(b2.spec.ports![0]!.nodePort).toBe(30000);
    expect(b2.spec.clusterIP).toBe('10.96.0.2');
    const taken = await rejection(
      api.create(svc('c', 'NodePort', { ports: [{ port: 80, nodePort: 30000 }] })),
    );
    expect(taken.code).toBe(422);
    expect(taken.message).toBe(
      'Service "c" is invalid: spec.ports[0].nodePort: Invalid value: 30000: provided port is already allocated',
    );
    const headless = await api.create(svc('d', 'ClusterIP', { clusterIP: 'None' }));
    expect(headless.spec.clusterIP).toBe('None');
    await api.delete('services', 'default', 'a');
    const e = await api.create(svc('e', 'ClusterIP', { clusterIP: '10.96.0.1' }));
    expect(e.spec.clusterIP).toBe('10.96.0.1');
  });
});

describe('ApiServer field validation', () => {
  it('Warn (default) accepts unknown fields and reports them; Strict rejects with 422', async () => {
    const warnings: string[] = [];
    const { api } = setup({ onWarning: (w) => warnings.push(w) });
    const p = pod('a') as any;
    p.spec.containers[0].foo = 1;
    await api.create(p);
    expect(warnings).toEqual(['unknown field "spec.containers[0].foo"']);
    const strict = setup({ fieldValidation: 'Strict' }).api;
    const e = await rejection(strict.create(p));
    expect(e.code).toBe(422);
    expect(e.message).toBe('Pod "a" is invalid: spec.containers[0].foo: unknown field');
  });
});

describe('ApiServer NamespaceLifecycle', () => {
  it('rejects creates in missing or terminating namespaces when enabled', async () => {
    const { api } = setup({ namespaceLifecycle: true });
    const e = await rejection(api.create(pod('a')));
    expect(e.code).toBe(404);
    expect(e.message).toBe('namespaces "default" not found');
    await api.bootstrapNamespaces();
    await api.bootstrapNamespaces(); // idempotent
    expect((await api.list('namespaces')).items.map((n) => n.metadata.name)).toEqual([
      'default',
      'kube-node-lease',
      'kube-public',
      'kube-system',
    ]);
    await api.create(pod('a'));
    await api.create({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'old', finalizers: ['example.com/hold'] },
    });
    await api.delete('namespaces', undefined, 'old');
    const t = await rejection(api.create({ ...pod('b'), metadata: { name: 'b', namespace: 'old' } }));
    expect(t.code).toBe(403);
    expect(t.message).toBe(
      'pods "b" is forbidden: unable to create new content in namespace old because it is being terminated',
    );
    // off by default
    await setup().api.create({ ...pod('c'), metadata: { name: 'c', namespace: 'nowhere' } });
  });
});

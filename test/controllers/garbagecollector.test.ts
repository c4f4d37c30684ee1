// Garbage collection: the ApiServer's side (DeleteOptions.propagationPolicy → finalizers, upstream's
// TestStoreDeletionPropagation table) and the collector in a simulation (background, foreground
// and orphan deletion of a Deployment with its ReplicaSet and pods).
import { describe, expect, it } from 'vitest';
import { ApiServer } from '../../src/api/apiserver.js';
import type { Deployment, KubeObject, Pod, ReplicaSet } from '../../src/api/types.js';
import { MemoryStore } from '../../src/store/memory/store.js';
import { ManualClock } from '../../src/util/clock.js';
import { parseScenario } from '../../src/sim/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';
import { ownersFirst, rewriteOwnerUids } from '../../src/sim/owner-order.js';

type Policy = 'Foreground' | 'Background' | 'Orphan' | undefined;
const F = 'foregroundDeletion';
const O = 'orphan';

// upstream: staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store_test.go
// TestStoreDeletionPropagation. Its defaultDeleteStrategy (DeleteDependents) is any apps/v1 kind
// here (a ReplicaSet); its orphanDeleteStrategy is v1 ReplicationController, whose
// DefaultGarbageCollectionPolicy is OrphanDependents.
const rows: [string, Policy, 'default' | 'orphan', string[], string[] | 'notFound'][] = [
  ['no existing finalizers, Foreground, default', 'Foreground', 'default', [], [F]],
  ['no existing finalizers, Foreground, orphan', 'Foreground', 'orphan', [], [F]],
  ['no existing finalizers, Background, default', 'Background', 'default', [], 'notFound'],
  ['no existing finalizers, Background, orphan', 'Background', 'orphan', [], 'notFound'],
  ['no existing finalizers, OrphanDependents, default', 'Orphan', 'default', [], [O]],
  ['no existing finalizers, OrphanDependents, orphan', 'Orphan', 'orphan', [], [O]],
  ['no existing finalizers, Default, default', undefined, 'default', [], 'notFound'],
  ['no existing finalizers, Default, orphan', undefined, 'orphan', [], [O]],
  ['existing orphan finalizer, Foreground, default', 'Foreground', 'default', [O], [F]],
  ['existing orphan finalizer, Foreground, orphan', 'Foreground', 'orphan', [O], [F]],
  ['existing orphan finalizer, Background, default', 'Background', 'default', [O], 'notFound'],
  ['existing orphan finalizer, Background, orphan', 'Background', 'orphan', [O], 'notFound'],
  ['existing orphan finalizer, OrphanDependents, default', 'Orphan', 'default', [O], [O]],
  ['existing orphan finalizer, OrphanDependents, orphan', 'Orphan', 'orphan', [O], [O]],
  ['existing orphan finalizer, Default, default', undefined, 'default', [O], [O]],
  ['existing orphan finalizer, Default, orphan', undefined, 'orphan', [O], [O]],
  ['existing deleteDependents finalizer, Foreground, default', 'Foreground', 'default', [F], [F]],
  ['existing deleteDependents finalizer, Foreground, orphan', 'Foreground', 'orphan', [F], [F]],
  ['existing deleteDependents finalizer, Background, default', 'Background', 'default', [F], 'notFound'],
  ['existing deleteDependents finalizer, Background, orphan', 'Background', 'orphan', [F], 'notFound'],
  ['existing deleteDependents finalizer, OrphanDependents, default', 'Orphan', 'default', [F], [O]],
  ['existing deleteDependents finalizer, OrphanDependents, orphan', 'Orphan', 'orphan', [F], [O]],
  ['existing deleteDependents finalizer, Default, default', undefined, 'default', [F], [F]],
  ['existing deleteDependents finalizer, Default, orphan', undefined, 'orphan', [F], [F]],
];

function workload(kind: 'default' | 'orphan', name: string, finalizers: string[]): KubeObject {
  const template = { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'x' }] } };
  const metadata = { name, namespace: 'default', ...(finalizers.length ? { finalizers } : {}) };
  return kind === 'default'
    ? ({
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata,
        spec: { replicas: 0, selector: { matchLabels: { app: name } }, template },
      } as ReplicaSet)
    : ({
        apiVersion: 'v1',
        kind: 'ReplicationController',
        metadata,
        spec: { replicas: 0, selector: { app: name }, template },
      } as KubeObject);
}

describe('DeleteOptions.propagationPolicy (upstream TestStoreDeletionPropagation)', () => {
  rows.forEach(([title, policy, strategy, existing, want], i) => {
    it(title, async () => {
      const api = new ApiServer(new MemoryStore(), { clock: new ManualClock() });
      const o = await api.create(workload(strategy, `w-${i}`, existing));
      const resource = strategy === 'default' ? 'replicasets' : 'replicationcontrollers';
      await api.delete(resource, 'default', o.metadata.name!, { propagationPolicy: policy });
      const got = await api.get(resource, 'default', o.metadata.name!).catch((e) => e);
      if (want === 'notFound') {
        expect(got.code).toBe(404);
        return;
      }
      expect(got.metadata.finalizers).toEqual(want);
      expect(got.metadata.deletionTimestamp).toBeDefined();
      expect(got.metadata.deletionGracePeriodSeconds).toBe(0);
      expect(got.metadata.generation).toBeGreaterThan(o.metadata.generation!);
    });
  });
});

describe('owners first when loading objects that reference each other', () => {
  it('creates owners in earlier waves, rewrites dependents to the owners’ new uids, reports owners absent from the input', () => {
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'rs', uid: 'a' },
    } as KubeObject;
    const pod = (n: string) =>
      ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: n,
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'a' }],
        },
      }) as KubeObject;
    const waves = ownersFirst([pod('p1'), rs, pod('p2')]);
    expect(waves.map((w) => w.map((o) => o.metadata.name))).toEqual([['rs'], ['p1', 'p2']]);
    const p = waves[1][0];
    const outside = new Set<string>();
    rewriteOwnerUids(p, new Map([['a', 'x']]), outside);
    expect(p.metadata.ownerReferences?.[0].uid).toBe('x');
    expect(outside.size).toBe(0);
    // an owner outside the input: the reference stays, its uid is reported (the collector keeps the pod)
    const stray = pod('p3');
    rewriteOwnerUids(stray, new Map(), outside);
    expect(stray.metadata.ownerReferences?.[0].uid).toBe('a');
    expect([...outside]).toEqual(['a']);
  });
});

const SCENARIO = `
name: gc
seed: 2
duration: 30m
cluster:
  pools:
    - { name: general, count: 3, cpu: "8", memory: 32Gi, zones: [zone-a] }
workloads:
${['bg', 'fg', 'orphan']
  .map(
    (n) => `  - manifest:
      apiVersion: apps/v1
      kind: Deployment
      metadata: { name: ${n}, namespace: default }
      spec:
        replicas: 2
        selector: { matchLabels: { app: ${n} } }
        template:
          metadata: { labels: { app: ${n} } }
          spec:
            terminationGracePeriodSeconds: 20
            containers: [{ name: c, image: example/app:1 }]`,
  )
  .join('\n')}
settings:
  scheduler: standin
`;

describe('garbage collector in a simulation', () => {
  it('deletes dependents in the background, before the owner in the foreground, and orphans them', async () => {
    const sim = new Simulation(parseScenario(SCENARIO, 'gc.yaml', '.'));
    await sim.setup();
    await sim.loop.runFor(60_000);
    const api = sim.server;
    const pods = async (app: string) =>
      (await api.list<Pod>('pods', { labelSelector: `app=${app}` })).items.filter(
        (p) => p.status?.phase === 'Running',
      );
    const rss = async (app: string) =>
      (await api.list<ReplicaSet>('replicasets', { labelSelector: `app=${app}` })).items;
    for (const app of ['bg', 'fg', 'orphan']) expect((await pods(app)).length).toBe(2);

    // Background: the Deployment goes at once, then its ReplicaSet, then (after their grace) the pods
    await api.delete('deployments', 'default', 'bg', { propagationPolicy: 'Background' });
    await expect(api.get('deployments', 'default', 'bg')).rejects.toMatchObject({ code: 404 });
    await sim.loop.runFor(5_000);
    expect(await rss('bg')).toEqual([]);
    await sim.loop.runFor(60_000);
    expect((await api.list<Pod>('pods', { labelSelector: 'app=bg' })).items).toEqual([]);

    // Foreground: the Deployment waits (foregroundDeletion) until its ReplicaSet and pods are gone
    await api.delete('deployments', 'default', 'fg', { propagationPolicy: 'Foreground' });
    const marked = await api.get<Deployment>('deployments', 'default', 'fg');
    expect(marked.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(marked.metadata.deletionTimestamp).toBeDefined();
    let podsGoneAt = -1;
    let deploymentGoneAt = -1;
    for (let t = 1; t <= 90 && deploymentGoneAt < 0; t++) {
      await sim.loop.runFor(1000);
      const left = (await api.list<Pod>('pods', { labelSelector: 'app=fg' })).items.length;
      if (left === 0 && podsGoneAt < 0) podsGoneAt = t;
      const d = await api.get('deployments', 'default', 'fg').catch(() => undefined);
      if (!d) deploymentGoneAt = t;
      else if (left > 0) expect(d.metadata.deletionTimestamp).toBeDefined();
    }
    expect(podsGoneAt).toBeGreaterThan(0);
    expect(deploymentGoneAt).toBeGreaterThanOrEqual(podsGoneAt);
    expect(await rss('fg')).toEqual([]);

    // Orphan: the Deployment goes, its ReplicaSet stays without an owner and keeps its pods
    await api.delete('deployments', 'default', 'orphan', { propagationPolicy: 'Orphan' });
    await sim.loop.runFor(30_000);
    await expect(api.get('deployments', 'default', 'orphan')).rejects.toMatchObject({ code: 404 });
    const [rs] = await rss('orphan');
    expect(rs.metadata.ownerReferences).toBeUndefined();
    expect((await pods('orphan')).map((p) => p.metadata.ownerReferences?.[0].uid)).toEqual([
      rs.metadata.uid,
      rs.metadata.uid,
    ]);
    await sim.shutdown();
  }, 240_000);
});

// The StatefulSet controller in a simulation (ApiServer, informers, scheduler, kubelet model), with
// the behaviours upstream's stateful_set_control_test.go checks (CreatesPods, ScalesUp, ScalesDown,
// RecreatesFailedPod, rolling update with partition, OnDelete) and its utils' identity rules.
import { describe, expect, it } from 'vitest';
import type { PersistentVolume, PersistentVolumeClaim } from '../../src/api/storage-types.js';
import type { Pod, StatefulSet } from '../../src/api/types.js';
import { claimName, ordinalOf, podName } from '../../src/controllers/statefulset-util.js';
import { parseScenario } from '../../src/sim/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';

const scenario = (policy: 'OrderedReady' | 'Parallel', strategy = 'RollingUpdate') => `
name: sts
seed: 4
duration: 60m
cluster:
  pools:
    - { name: general, count: 3, cpu: "8", memory: 32Gi, zones: [zone-a] }
workloads:
  - manifest:
      apiVersion: storage.k8s.io/v1
      kind: StorageClass
      metadata: { name: standard, annotations: { storageclass.kubernetes.io/is-default-class: "true" } }
      provisioner: ebs.csi.aws.com
      volumeBindingMode: WaitForFirstConsumer
  - manifest:
      apiVersion: apps/v1
      kind: StatefulSet
      metadata: { name: db, namespace: default }
      spec:
        replicas: 3
        serviceName: db
        podManagementPolicy: ${policy}
        updateStrategy: { type: ${strategy} }
        selector: { matchLabels: { app: db } }
        template:
          metadata: { labels: { app: db } }
          spec:
            terminationGracePeriodSeconds: 10
            containers: [{ name: db, image: example/db:1, resources: { requests: { cpu: 500m, memory: 1Gi } } }]
        volumeClaimTemplates:
          - metadata: { name: data }
            spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }
settings:
  scheduler: real
`;

const ready = (p: Pod) => !!p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

/** polls the set's pods each second, recording when each name first appeared, became ready, went */
async function watchPods(sim: Simulation, seconds: number, stopWhen?: (pods: Pod[]) => boolean) {
  const seen = new Map<
    string,
    { uid?: string; appeared: number; ready?: number; terminating?: number; gone?: number }
  >();
  for (let t = 1; t <= seconds; t++) {
    await sim.loop.runFor(1000);
    const pods = (await sim.server.list<Pod>('pods', { labelSelector: 'app=db' })).items;
    const names = new Set(pods.map((p) => p.metadata.name!));
    for (const p of pods) {
      const n = p.metadata.name!;
      let s = seen.get(n);
      // a new uid under the same name is a new pod (recreated, perhaps between two polls)
      if (!s || s.gone !== undefined || s.uid !== p.metadata.uid) s = { uid: p.metadata.uid, appeared: t };
      if (ready(p) && s.ready === undefined) s.ready = t;
      if (p.metadata.deletionTimestamp && s.terminating === undefined) s.terminating = t;
      seen.set(n, s);
    }
    for (const [n, s] of seen) if (!names.has(n) && s.gone === undefined) s.gone = t;
    if (stopWhen?.(pods)) break;
  }
  return seen;
}

const set = (sim: Simulation) => sim.server.get<StatefulSet>('statefulsets', 'default', 'db');
async function edit(sim: Simulation, f: (s: StatefulSet) => void) {
  const s = await set(sim);
  f(s);
  await sim.server.update(s);
}
const live = async (sim: Simulation) =>
  (await sim.server.list<Pod>('pods', { labelSelector: 'app=db' })).items.filter(
    (p) => !p.metadata.deletionTimestamp,
  );

describe('StatefulSet identity (stateful_set_utils.go)', () => {
  it('names pods <set>-<ordinal>, parses ordinals back, names claims <template>-<set>-<ordinal>', () => {
    const s = { metadata: { name: 'web' } } as StatefulSet;
    expect(podName(s, 3)).toBe('web-3');
    const p = (name: string) => ({ metadata: { name } }) as Pod;
    expect(ordinalOf(s, p('web-12'))).toBe(12);
    expect(ordinalOf(s, p('web-01'))).toBe(-1);
    expect(ordinalOf(s, p('web-x'))).toBe(-1);
    expect(ordinalOf(s, p('webx-1'))).toBe(-1);
    expect(claimName(s, 'data', 2)).toBe('data-web-2');
  });
});

describe('StatefulSet controller in a simulation', () => {
  it('OrderedReady: creates in order after each is ready, scales down in reverse, rolls with a partition', async () => {
    const sim = new Simulation(parseScenario(scenario('OrderedReady'), 'sts.yaml', '.'));
    await sim.setup();
    // CreatesPods: db-1 only after db-0 is Ready, db-2 only after db-1
    let seen = await watchPods(sim, 120, (pods) => pods.filter(ready).length === 3);
    expect([...seen.keys()].sort()).toEqual(['db-0', 'db-1', 'db-2']);
    expect(seen.get('db-1')!.appeared).toBeGreaterThanOrEqual(seen.get('db-0')!.ready!);
    expect(seen.get('db-2')!.appeared).toBeGreaterThanOrEqual(seen.get('db-1')!.ready!);
    const pods = await live(sim);
    for (const p of pods) {
      const n = p.metadata.name!;
      expect(p.metadata.labels).toMatchObject({
        'statefulset.kubernetes.io/pod-name': n,
        'apps.kubernetes.io/pod-index': n.slice(3),
      });
      expect(p.spec.hostname).toBe(n);
      expect(p.spec.subdomain).toBe('db');
      expect(p.spec.volumes).toContainEqual({
        name: 'data',
        persistentVolumeClaim: { claimName: `data-${n}` },
      });
    }
    // createPersistentVolumeClaims: one claim per ordinal, labelled with the selector, bound to a
    // volume the PV controller provisioned in the zone of the node the scheduler chose
    const claims = (await sim.server.list<PersistentVolumeClaim>('persistentvolumeclaims')).items;
    expect(claims.map((c) => c.metadata.name).sort()).toEqual(['data-db-0', 'data-db-1', 'data-db-2']);
    for (const c of claims) {
      expect(c.metadata.labels).toEqual({ app: 'db' });
      expect(c.spec.storageClassName).toBe('standard');
      expect(c.status?.phase).toBe('Bound');
      const v = await sim.server.get<PersistentVolume>('persistentvolumes', undefined, c.spec.volumeName!);
      expect(v.spec.claimRef?.name).toBe(c.metadata.name);
      expect(v.spec.nodeAffinity?.required?.nodeSelectorTerms).toEqual([
        { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-a'] }] },
      ]);
    }
    let s = await set(sim);
    expect(s.status).toMatchObject({
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
    });
    expect(s.status?.currentRevision).toBe(s.status?.updateRevision);
    expect(
      pods.every((p) => p.metadata.labels?.['controller-revision-hash'] === s.status?.updateRevision),
    ).toBe(true);

    // ScalesDown: 3 → 1, db-2 gone before db-1 starts terminating
    await edit(sim, (x) => (x.spec.replicas = 1));
    seen = await watchPods(sim, 120, (ps) => ps.length === 1);
    expect(seen.get('db-1')!.terminating!).toBeGreaterThanOrEqual(seen.get('db-2')!.gone!);
    expect((await live(sim)).map((p) => p.metadata.name)).toEqual(['db-0']);
    // persistentVolumeClaimRetentionPolicy whenScaled: Retain (the default) keeps the claims
    expect((await sim.server.list('persistentvolumeclaims')).items).toHaveLength(3);

    // ScalesUp to 4, then a new image with partition 2: only db-2 and db-3 move to the new revision
    await edit(sim, (x) => (x.spec.replicas = 4));
    await watchPods(sim, 180, (ps) => ps.filter(ready).length === 4);
    await edit(sim, (x) => {
      x.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 2 } };
      x.spec.template.spec.containers[0].image = 'example/db:2';
    });
    await watchPods(
      sim,
      180,
      (ps) => ps.filter((p) => ready(p) && p.spec.containers[0].image === 'example/db:2').length === 2,
    );
    await sim.loop.runFor(30_000);
    const images = Object.fromEntries(
      (await live(sim)).map((p) => [p.metadata.name, p.spec.containers[0].image]),
    );
    expect(images).toEqual({
      'db-0': 'example/db:1',
      'db-1': 'example/db:1',
      'db-2': 'example/db:2',
      'db-3': 'example/db:2',
    });
    s = await set(sim);
    expect(s.status).toMatchObject({ replicas: 4, updatedReplicas: 2, currentReplicas: 2 });
    expect(s.status?.currentRevision).not.toBe(s.status?.updateRevision);

    // partition 0: the rest follow, highest ordinal first, and the update revision becomes current
    await edit(
      sim,
      (x) => (x.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 0 } }),
    );
    seen = await watchPods(
      sim,
      240,
      (ps) => ps.filter((p) => ready(p) && p.spec.containers[0].image === 'example/db:2').length === 4,
    );
    expect(seen.get('db-0')!.appeared).toBeGreaterThan(seen.get('db-1')!.appeared);
    await sim.loop.runFor(10_000);
    s = await set(sim);
    expect(s.status).toMatchObject({ replicas: 4, readyReplicas: 4, updatedReplicas: 4, currentReplicas: 4 });
    expect(s.status?.currentRevision).toBe(s.status?.updateRevision);
    const revisions = (await sim.server.list('controllerrevisions', { namespace: 'default' })).items;
    expect(revisions.map((r) => (r as unknown as { revision: number }).revision).sort()).toEqual([1, 2]);

    // a deleted pod comes back under the same name (ReplacesPods)
    await sim.server.delete('pods', 'default', 'db-1', { gracePeriodSeconds: 0 });
    await watchPods(sim, 120, (ps) => ps.filter(ready).length === 4);
    expect((await live(sim)).map((p) => p.metadata.name).sort()).toEqual(['db-0', 'db-1', 'db-2', 'db-3']);
    await sim.shutdown();
  }, 240_000);

  it('Parallel creates every pod at once; OnDelete replaces a pod only when it is deleted', async () => {
    const sim = new Simulation(parseScenario(scenario('Parallel', 'OnDelete'), 'sts.yaml', '.'));
    await sim.setup();
    const seen = await watchPods(sim, 60, (pods) => pods.filter(ready).length === 3);
    const appeared = [...seen.values()].map((s) => s.appeared);
    expect(new Set(appeared).size).toBe(1);
    await edit(sim, (x) => (x.spec.template.spec.containers[0].image = 'example/db:2'));
    await sim.loop.runFor(60_000);
    expect((await live(sim)).every((p) => p.spec.containers[0].image === 'example/db:1')).toBe(true);
    await sim.server.delete('pods', 'default', 'db-0', { gracePeriodSeconds: 0 });
    await watchPods(sim, 60, (ps) => ps.filter(ready).length === 3);
    const images = Object.fromEntries(
      (await live(sim)).map((p) => [p.metadata.name, p.spec.containers[0].image]),
    );
    expect(images).toEqual({ 'db-0': 'example/db:2', 'db-1': 'example/db:1', 'db-2': 'example/db:1' });
    const s = await set(sim);
    expect(s.status).toMatchObject({ replicas: 3, updatedReplicas: 1, currentReplicas: 2 });
    await sim.shutdown();
  }, 240_000);

  it('persistentVolumeClaimRetentionPolicy Delete: scale-down and set deletion take the claims, and the volumes are reclaimed', async () => {
    const text = scenario('Parallel').replace(
      '        volumeClaimTemplates:',
      '        persistentVolumeClaimRetentionPolicy: { whenDeleted: Delete, whenScaled: Delete }\n        volumeClaimTemplates:',
    );
    const sim = new Simulation(parseScenario(text, 'sts.yaml', '.'));
    await sim.setup();
    await watchPods(sim, 60, (pods) => pods.filter(ready).length === 3);
    const claims = async () =>
      (await sim.server.list<PersistentVolumeClaim>('persistentvolumeclaims')).items
        .map((c) => c.metadata.name)
        .sort();
    const volumes = async () => (await sim.server.list<PersistentVolume>('persistentvolumes')).items.length;
    expect(await claims()).toEqual(['data-db-0', 'data-db-1', 'data-db-2']);
    // whenDeleted: Delete — the set owns every claim
    const owners = (await sim.server.list<PersistentVolumeClaim>('persistentvolumeclaims')).items.map((c) =>
      c.metadata.ownerReferences?.map((o) => `${o.kind}/${o.name}`),
    );
    expect(owners).toEqual([['StatefulSet/db'], ['StatefulSet/db'], ['StatefulSet/db']]);
    expect(await volumes()).toBe(3);
    // whenScaled: Delete — scaling to 1 takes data-db-1 and data-db-2 with their pods; reclaimPolicy
    // Delete (provisioned volumes) then removes their volumes
    await edit(sim, (x) => (x.spec.replicas = 1));
    await watchPods(sim, 120, (ps) => ps.length === 1);
    await sim.loop.runFor(30_000);
    expect(await claims()).toEqual(['data-db-0']);
    expect(await volumes()).toBe(1);
    // deleting the set takes the last claim and volume
    await sim.server.delete('statefulsets', 'default', 'db');
    await sim.loop.runFor(120_000);
    expect(await claims()).toEqual([]);
    expect(await volumes()).toBe(0);
    await sim.shutdown();
  }, 240_000);
});

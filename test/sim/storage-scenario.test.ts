// The storage model end to end (examples/scenarios/statefulset-zonal-volumes.yaml): a StatefulSet
// with WaitForFirstConsumer claims across three zones is placed one replica per zone, each claim
// provisioned in its pod's zone; after zone-c is lost the replica that lived there is recreated and
// stays Pending with kube-scheduler's FitError, because its volume cannot leave the zone.
import { describe, expect, it } from 'vitest';
import type {
  PersistentVolume,
  PersistentVolumeClaim,
  VolumeAttachment,
} from '../../src/api/storage-types.js';
import type { Pod } from '../../src/api/types.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';

const zoneOf = (pv: PersistentVolume) =>
  pv.spec.nodeAffinity?.required?.nodeSelectorTerms[0]?.matchExpressions?.[0]?.values?.[0];

describe('StatefulSet with zonal volumes (examples/scenarios/statefulset-zonal-volumes.yaml)', () => {
  it('places one replica per zone with its volume there, then keeps the lost zone’s replica Pending', async () => {
    const sim = new Simulation(loadScenario('examples/scenarios/statefulset-zonal-volumes.yaml'));
    await sim.setup();
    // before the outage: three Running pods, one per zone, each claim Bound to a volume in the pod's zone
    await sim.loop.runFor(170_000);
    const nodeZone = new Map<string, string>();
    for (const n of (await sim.server.list<import('../../src/api/types.js').Node>('nodes')).items)
      nodeZone.set(n.metadata.name!, n.metadata.labels!['topology.kubernetes.io/zone']!);
    let pods = (await sim.server.list<Pod>('pods', { labelSelector: 'app=db' })).items;
    expect(pods.map((p) => p.status?.phase)).toEqual(['Running', 'Running', 'Running']);
    expect(new Set(pods.map((p) => nodeZone.get(p.spec.nodeName!)))).toEqual(
      new Set(['zone-a', 'zone-b', 'zone-c']),
    );
    const claims = (await sim.server.list<PersistentVolumeClaim>('persistentvolumeclaims')).items;
    const volumes = new Map(
      (await sim.server.list<PersistentVolume>('persistentvolumes')).items.map((v) => [v.metadata.name!, v]),
    );
    expect(claims.every((c) => c.status?.phase === 'Bound')).toBe(true);
    const volumeZone = new Map<string, string>();
    for (const c of claims) volumeZone.set(c.metadata.name!, zoneOf(volumes.get(c.spec.volumeName!)!)!);
    for (const p of pods)
      expect(volumeZone.get(`data-${p.metadata.name}`)).toBe(nodeZone.get(p.spec.nodeName!));
    const lost = pods.find((p) => nodeZone.get(p.spec.nodeName!) === 'zone-c')!.metadata.name!;
    // the attach/detach model: one attached VolumeAttachment per pod, on the pod's node
    const attachments = async () =>
      (await sim.server.list<VolumeAttachment>('volumeattachments')).items.map((a) => [
        a.spec.nodeName,
        a.spec.source.persistentVolumeName,
        a.status?.attached,
      ]);
    expect((await attachments()).sort()).toEqual(
      pods
        .map((p) => [
          p.spec.nodeName,
          claims.find((c) => c.metadata.name === `data-${p.metadata.name}`)!.spec.volumeName,
          true,
        ])
        .sort(),
    );

    // after the zone is lost and its nodes deleted
    await sim.loop.runFor(310_000);
    pods = (await sim.server.list<Pod>('pods', { labelSelector: 'app=db' })).items;
    const byName = new Map(pods.map((p) => [p.metadata.name!, p]));
    const pending = byName.get(lost)!;
    expect(pending.spec.nodeName).toBeUndefined();
    expect(pending.status?.phase).toBe('Pending');
    const cond = pending.status?.conditions?.find((c) => c.type === 'PodScheduled');
    expect(cond).toMatchObject({ status: 'False', reason: 'Unschedulable' });
    expect(cond?.message).toBe(
      "0/4 nodes are available: 4 node(s) didn't match PersistentVolume's node affinity. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.",
    );
    for (const [name, p] of byName) if (name !== lost) expect(p.status?.phase).toBe('Running');
    // the claims are kept (whenDeleted/whenScaled: Retain) and still Bound to their zonal volumes
    const after = (await sim.server.list<PersistentVolumeClaim>('persistentvolumeclaims')).items;
    expect(after.map((c) => c.status?.phase)).toEqual(['Bound', 'Bound', 'Bound']);
    // the lost zone's attachment went with its node and pod; the two running pods keep theirs
    expect((await attachments()).map((a) => nodeZone.get(a[0] as string)).sort()).toEqual([
      'zone-a',
      'zone-b',
    ]);
    await sim.shutdown();
  });
});

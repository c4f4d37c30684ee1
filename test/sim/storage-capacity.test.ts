// CSIStorageCapacity end to end in a simulation: a local-storage CSI driver that publishes its
// capacity (CSIDriver storageCapacity: true), 10Gi per node on two nodes, and a StatefulSet of five
// replicas with 4Gi WaitForFirstConsumer claims. Each node holds two volumes (8Gi, 2Gi left): the PV
// controller takes each provisioned volume from its node's CSIStorageCapacity, and the scheduler's
// VolumeBinding then refuses the fifth replica everywhere with v1.34's reason. With a provisioning
// latency the outcome is the same because the kubelet starts a pod only once its claims are Bound
// (WaitForAttachAndMount): the StatefulSet's next replica waits for the previous one to run, so the
// driver has reported each volume before the next replica is scheduled. (A kubelet that started pods
// without waiting let all five replicas run on 10Gi of storage per node.)
import { describe, expect, it } from 'vitest';
import type {
  CSIStorageCapacity,
  PersistentVolume,
  PersistentVolumeClaim,
} from '../../src/api/storage-types.js';
import type { Event, Pod } from '../../src/api/types.js';
import { parseScenario } from '../../src/sim/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';

const capacity = (node: string) => `
  - manifest:
      apiVersion: storage.k8s.io/v1
      kind: CSIStorageCapacity
      metadata: { name: local-${node}, namespace: kube-system }
      storageClassName: local
      nodeTopology: { matchLabels: { kubernetes.io/hostname: ${node} } }
      capacity: 10Gi
`;

const scenario = (latency: string, policy = 'OrderedReady') => `
name: local-storage-capacity
seed: 1
duration: 6m
cluster:
  pools:
    - { name: local, count: 2, cpu: "8", memory: 32Gi }
workloads:
  - manifest:
      apiVersion: storage.k8s.io/v1
      kind: CSIDriver
      metadata: { name: local.csi.example.com }
      spec: { storageCapacity: true, attachRequired: false }
  - manifest:
      apiVersion: storage.k8s.io/v1
      kind: StorageClass
      metadata:
        name: local
        annotations: { kubesim.io/provisioning-latency: ${latency} }
      provisioner: local.csi.example.com
      volumeBindingMode: WaitForFirstConsumer
${capacity('local-0000')}${capacity('local-0001')}
  - manifest:
      apiVersion: apps/v1
      kind: StatefulSet
      metadata: { name: db, namespace: default }
      spec:
        replicas: 5
        podManagementPolicy: ${policy}
        serviceName: db
        selector: { matchLabels: { app: db } }
        template:
          metadata: { labels: { app: db } }
          spec:
            containers:
              - name: db
                image: example/db:1
                resources: { requests: { cpu: 100m, memory: 128Mi } }
        volumeClaimTemplates:
          - metadata: { name: data }
            spec:
              accessModes: [ReadWriteOnce]
              storageClassName: local
              resources: { requests: { storage: 4Gi } }
settings:
  scheduler: real
`;

describe('a CSI driver with storage capacity tracking', () => {
  it.each(['0s', '30s'])(
    'provisions two 4Gi volumes per 10Gi node and leaves the fifth replica Pending for lack of storage (provisioning %s)',
    async (latency) => {
      const sim = new Simulation(parseScenario(scenario(latency), 'capacity.yaml', '.'));
      await sim.setup();
      await sim.loop.runFor(300_000);
      const pods = (await sim.server.list<Pod>('pods', { labelSelector: 'app=db' })).items;
      const byName = new Map(pods.map((p) => [p.metadata.name!, p]));
      for (const n of ['db-0', 'db-1', 'db-2', 'db-3']) expect(byName.get(n)?.status?.phase).toBe('Running');
      const perNode = new Map<string, number>();
      for (const n of ['db-0', 'db-1', 'db-2', 'db-3']) {
        const node = byName.get(n)!.spec.nodeName!;
        perNode.set(node, (perNode.get(node) ?? 0) + 1);
      }
      expect([...perNode.values()]).toEqual([2, 2]);
      const last = byName.get('db-4')!;
      expect(last.status?.phase).toBe('Pending');
      const cond = last.status?.conditions?.find((c) => c.type === 'PodScheduled');
      expect(cond?.message).toContain('2 node(s) did not have enough free storage');
      // what the driver reports after four volumes: 10Gi − 2 × 4Gi on each node
      const caps = (await sim.server.list<CSIStorageCapacity>('csistoragecapacities')).items;
      expect(caps.map((c) => [c.metadata.name, c.capacity])).toEqual([
        ['local-local-0000', '2Gi'],
        ['local-local-0001', '2Gi'],
      ]);
      const claims = (await sim.server.list<PersistentVolumeClaim>('persistentvolumeclaims')).items;
      expect(claims.filter((c) => c.status?.phase === 'Bound')).toHaveLength(4);
      // each running replica started once its volume existed
      const pvs = new Map(
        (await sim.server.list<PersistentVolume>('persistentvolumes')).items.map((v) => [
          v.spec.claimRef?.name,
          Date.parse(v.metadata.creationTimestamp!),
        ]),
      );
      for (const n of ['db-0', 'db-1', 'db-2', 'db-3'])
        expect(Date.parse(byName.get(n)!.status!.startTime!)).toBeGreaterThanOrEqual(pvs.get(`data-${n}`)!);
      await sim.stop?.();
    },
  );

  // VolumeBinding's PreBind waits for the claims (binder.go BindPodVolumes → checkBindings): with
  // Parallel pod management all five replicas are scheduled at once, before any volume exists, so
  // the capacity objects still say 10Gi everywhere and one node gets three 4Gi claims. Its driver
  // refuses the third (ResourceExhausted), the provisioner removes the claim's selected node, and
  // the pod, still in PreBind and not bound, goes back to the queue, where it now fits nowhere.
  // (Without the wait the pod was bound at once and stayed on a node whose driver had refused its
  // volume, Pending forever, with no reason given.)
  it('Parallel replicas: a pod is bound only once its claim is, and one the driver refused is scheduled again', async () => {
    const sim = new Simulation(parseScenario(scenario('30s', 'Parallel'), 'capacity.yaml', '.'));
    await sim.setup();
    await sim.loop.runFor(300_000);
    const pods = (await sim.server.list<Pod>('pods', { labelSelector: 'app=db' })).items;
    const running = pods.filter((p) => p.status?.phase === 'Running');
    expect(running).toHaveLength(4);
    const pending = pods.filter((p) => p.status?.phase !== 'Running');
    expect(pending).toHaveLength(1);
    const last = pending[0]!;
    expect(last.spec.nodeName).toBeUndefined();
    const cond = last.status?.conditions?.find((c) => c.type === 'PodScheduled');
    expect(cond?.status).toBe('False');
    expect(cond?.message).toContain('2 node(s) did not have enough free storage');
    const events = (await sim.server.list<Event>('events')).items;
    const about = (name: string, reason: string) =>
      events.filter((e) => e.involvedObject.name === name && e.reason === reason);
    // its first binding cycle ended on the provisioner's refusal, as upstream words it
    expect(about(last.metadata.name!, 'FailedScheduling').map((e) => e.message)).toContain(
      `running PreBind plugin "VolumeBinding": binding volumes: provisioning failed for PVC "data-${last.metadata.name}"`,
    );
    expect(about(`data-${last.metadata.name}`, 'ProvisioningFailed')).not.toHaveLength(0);
    const claim = await sim.server.get<PersistentVolumeClaim>(
      'persistentvolumeclaims',
      'default',
      `data-${last.metadata.name}`,
    );
    expect(claim.metadata.annotations?.['volume.kubernetes.io/selected-node']).toBeUndefined();
    // every running replica was bound to its node after its volume was provisioned (30 s later)
    const pvs = new Map(
      (await sim.server.list<PersistentVolume>('persistentvolumes')).items.map((v) => [
        v.spec.claimRef?.name,
        Date.parse(v.metadata.creationTimestamp!),
      ]),
    );
    for (const p of running) {
      const scheduled = p.status?.conditions?.find((c) => c.type === 'PodScheduled');
      expect(Date.parse(scheduled!.lastTransitionTime!)).toBeGreaterThanOrEqual(
        pvs.get(`data-${p.metadata.name}`)!,
      );
    }
    await sim.stop?.();
  });
});

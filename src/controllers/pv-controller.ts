/**
 * The PersistentVolume controller (upstream pkg/controller/volume/persistentvolume, pv_controller.go
 * syncClaim / syncUnboundClaim / syncBoundClaim / syncVolume, release-1.34) with the external
 * provisioner's part folded in. Learns about claims, volumes, classes and nodes from informers and
 * acts only through the ApiServer:
 *
 * - an unbound claim without a class gets the default StorageClass (the one annotated
 *   `storageclass.kubernetes.io/is-default-class: "true"`; RetroactiveDefaultStorageClass);
 * - a volume pre-bound to the claim (claimRef: the scheduler's static binding, or a provisioned
 *   volume) is bound: the volume's claimRef and phase Bound, the claim's volumeName, the
 *   `pv.kubernetes.io/bind-completed` annotation, phase Bound and capacity;
 * - an Immediate claim is bound to the smallest Available volume that fits it (FindMatchingVolume,
 *   api/storage.ts), or provisioned;
 * - a WaitForFirstConsumer claim waits for the scheduler's `volume.kubernetes.io/selected-node`
 *   annotation, then is provisioned for that node: the volume's node affinity holds the node's zone
 *   (`topology.kubernetes.io/zone`), or its hostname when it has no zone;
 * - provisioning takes a seeded latency per StorageClass: the class's
 *   `kubesim.io/provisioning-latency` annotation (a duration such as "5s"), else 2–8 s drawn once per
 *   class from the controller's seeded random source;
 * - a bound claim whose volume is gone becomes Lost; a volume whose claim is gone is Released and,
 *   with reclaimPolicy Delete, deleted (Retain keeps it Released).
 *
 * - a CSI driver that publishes its capacity (CSIDriver `storageCapacity: true`) provisions only
 *   where a CSIStorageCapacity of the class holds the request, and the volume uses it up
 *   (storage-capacity.ts); otherwise ProvisioningFailed, and the claim is tried again when a
 *   capacity object changes.
 *
 * Simplified (docs/controllers.md): no access-mode index (the smallest fitting volume is chosen
 * over all volumes, access modes checked), no recycler; provisioned volumes are CSI volumes of the
 * class's provisioner with the claim's request as capacity.
 */
import {
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_DYNAMICALLY_PROVISIONED,
  ANN_SELECTED_NODE,
  claimClass,
  claimRefTo,
  claimKey,
  findMatchingVolume,
  NOT_SUPPORTED_PROVISIONER,
} from '../api/storage.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '../api/storage-types.js';
import type { Node, NodeSelectorTerm } from '../api/types.js';
import { isAlreadyExists, isConflict, isNotFound } from '../client/api.js';
import type { Informer } from '../client/informer.js';
import { runWorkers, WorkQueue } from '../client/workqueue.js';
import type { Rng } from '../util/rng.js';
import type { ControllerDeps } from './replicaset.js';
import { StorageCapacity } from './storage-capacity.js';

/** upstream storageutil.IsDefaultStorageClassAnnotation */
const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
/** kubesim's per-class provisioning latency */
export const PROVISIONING_LATENCY_ANNOTATION = 'kubesim.io/provisioning-latency';

const ZONE = 'topology.kubernetes.io/zone';
const HOSTNAME = 'kubernetes.io/hostname';

/** "500ms", "5s", "2m" → ms; undefined when it does not parse */
function durationMs(v: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(v.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  return m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : n * 60_000;
}

export class PersistentVolumeController {
  private readonly queue: WorkQueue<string>;
  private readonly claims: Informer<PersistentVolumeClaim>;
  private readonly volumes: Informer<PersistentVolume>;
  private readonly classes: Informer<StorageClass>;
  private readonly nodes: Informer<Node>;
  private readonly capacity: StorageCapacity;
  private readonly rng: Rng;
  private readonly latencyByClass = new Map<string, number>();
  /** claim key → clock ms at which its volume is provisioned */
  private readonly provisionAt = new Map<string, number>();
  private running?: Promise<void>;
  volumesProvisioned = 0;
  claimsBound = 0;
  volumesDeleted = 0;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new WorkQueue<string>(deps.clock, undefined, 'persistentvolume');
    this.rng = deps.rng.fork('persistentvolume-provisioning');
    this.claims = deps.informers.for<PersistentVolumeClaim>('persistentvolumeclaims');
    this.volumes = deps.informers.for<PersistentVolume>('persistentvolumes');
    this.classes = deps.informers.for<StorageClass>('storageclasses');
    this.nodes = deps.informers.for<Node>('nodes');
    this.capacity = new StorageCapacity(deps);
    const claim = (c: PersistentVolumeClaim) =>
      this.queue.add(`claim:${claimKey(c.metadata.namespace, c.metadata.name ?? '')}`);
    const volume = (v: PersistentVolume) => {
      this.queue.add(`volume:${v.metadata.name}`);
      const ref = v.spec.claimRef;
      if (ref?.name) this.queue.add(`claim:${claimKey(ref.namespace, ref.name)}`);
    };
    this.claims.addEventHandler({
      onAdd: claim,
      onUpdate: (_o, c) => claim(c),
      onDelete: (c) => {
        if (c.spec.volumeName) this.queue.add(`volume:${c.spec.volumeName}`);
      },
    });
    this.volumes.addEventHandler({ onAdd: volume, onUpdate: (_o, v) => volume(v), onDelete: volume });
    // a capacity published or grown may let a refused claim be provisioned
    this.capacity.onChange(() => {
      for (const c of this.claims.list())
        if (!c.spec.volumeName && c.metadata.annotations?.[ANN_SELECTED_NODE] !== undefined) claim(c);
    });
    this.classes.addEventHandler({
      onAdd: () => {
        for (const c of this.claims.list()) if (!c.spec.volumeName) claim(c);
      },
    });
  }

  run(): void {
    this.running = runWorkers(this.queue, this.deps.workers ?? 5, (k) => this.sync(k));
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await this.running;
  }

  private async sync(key: string): Promise<void> {
    if (key.startsWith('claim:')) {
      const c = this.claims.getByKey(key.slice('claim:'.length));
      if (c) await this.syncClaim(c);
    } else {
      const v = this.volumes.get(undefined, key.slice('volume:'.length));
      if (v) await this.syncVolume(v);
    }
  }

  private claimOf(v: PersistentVolume): PersistentVolumeClaim | undefined {
    const ref = v.spec.claimRef;
    if (!ref?.name) return undefined;
    const c = this.claims.getByKey(claimKey(ref.namespace, ref.name));
    return c && (!ref.uid || ref.uid === c.metadata.uid) ? c : undefined;
  }

  /** syncClaim */
  private async syncClaim(pvc: PersistentVolumeClaim): Promise<void> {
    if (pvc.metadata.deletionTimestamp) return;
    if (pvc.spec.volumeName) return this.syncBoundClaim(pvc);
    // RetroactiveDefaultStorageClass
    if (
      pvc.spec.storageClassName === undefined &&
      !pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class']
    ) {
      const def = this.classes
        .list()
        .find((c) => c.metadata.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true');
      if (def) {
        await this.deps.api.update('persistentvolumeclaims', {
          ...pvc,
          spec: { ...pvc.spec, storageClassName: def.metadata.name },
        });
        return;
      }
    }
    const sc = this.classes.get(undefined, claimClass(pvc));
    const delay = sc?.volumeBindingMode === 'WaitForFirstConsumer';
    const pv = findMatchingVolume(pvc, this.volumes.list(), undefined, new Set(), delay);
    if (pv) return this.bind(pvc, pv);
    const selected = pvc.metadata.annotations?.[ANN_SELECTED_NODE];
    if (delay && !selected) return; // WaitForFirstConsumer: the scheduler chooses the node first
    if (!sc || !sc.provisioner || sc.provisioner === NOT_SUPPORTED_PROVISIONER) return;
    await this.provision(pvc, sc, selected);
  }

  /** syncBoundClaim: complete a binding the claim names, or mark the claim Lost */
  private async syncBoundClaim(pvc: PersistentVolumeClaim): Promise<void> {
    const pv = this.volumes.get(undefined, pvc.spec.volumeName!);
    if (!pv) {
      if (pvc.status?.phase === 'Bound')
        await this.deps.api.updateStatus('persistentvolumeclaims', {
          ...pvc,
          status: { ...pvc.status, phase: 'Lost' },
        });
      return;
    }
    const ref = pv.spec.claimRef;
    if (
      ref?.name &&
      (ref.name !== pvc.metadata.name ||
        (ref.namespace || 'default') !== (pvc.metadata.namespace || 'default'))
    )
      return; // the volume belongs to another claim: this one stays Pending
    await this.bind(pvc, pv);
  }

  /** bind: the volume's claimRef and phase, then the claim's volumeName, annotations and phase */
  private async bind(pvc: PersistentVolumeClaim, pv0: PersistentVolume): Promise<void> {
    let pv = pv0;
    const ref = pv.spec.claimRef;
    if (!ref || ref.uid !== pvc.metadata.uid) {
      pv = await this.deps.api.update('persistentvolumes', {
        ...pv,
        metadata: {
          ...pv.metadata,
          annotations: { ...pv.metadata.annotations, [ANN_BOUND_BY_CONTROLLER]: 'yes' },
        },
        spec: {
          ...pv.spec,
          claimRef: claimRefTo(pvc),
        },
      });
    }
    if (pv.status?.phase !== 'Bound')
      pv = await this.deps.api.updateStatus('persistentvolumes', {
        ...pv,
        status: { ...pv.status, phase: 'Bound' },
      });
    let claim = pvc;
    if (
      pvc.spec.volumeName !== pv.metadata.name ||
      pvc.metadata.annotations?.[ANN_BIND_COMPLETED] === undefined
    ) {
      claim = await this.deps.api.update('persistentvolumeclaims', {
        ...pvc,
        metadata: {
          ...pvc.metadata,
          annotations: {
            ...pvc.metadata.annotations,
            [ANN_BIND_COMPLETED]: 'yes',
            [ANN_BOUND_BY_CONTROLLER]: 'yes',
          },
        },
        spec: { ...pvc.spec, volumeName: pv.metadata.name },
      });
    }
    if (claim.status?.phase !== 'Bound') {
      await this.deps.api.updateStatus('persistentvolumeclaims', {
        ...claim,
        status: {
          ...claim.status,
          phase: 'Bound',
          accessModes: pv.spec.accessModes,
          capacity: pv.spec.capacity,
        },
      });
      this.claimsBound++;
    }
  }

  /** the class's provisioning latency: its annotation, else 2–8 s drawn once for the class */
  private latency(sc: StorageClass): number {
    const name = sc.metadata.name ?? '';
    let ms = this.latencyByClass.get(name);
    if (ms === undefined) {
      const a = sc.metadata.annotations?.[PROVISIONING_LATENCY_ANNOTATION];
      ms = (a !== undefined ? durationMs(a) : undefined) ?? Math.round(this.rng.range(2000, 8000));
      this.latencyByClass.set(name, ms);
    }
    return ms;
  }

  /** the volume's node affinity: the selected node's zone (or hostname), else the class's allowedTopologies */
  private topology(sc: StorageClass, selected: string | undefined): NodeSelectorTerm[] | undefined {
    if (selected) {
      const labels = this.nodes.get(undefined, selected)?.metadata.labels ?? {};
      if (labels[ZONE] !== undefined)
        return [{ matchExpressions: [{ key: ZONE, operator: 'In', values: [labels[ZONE]] }] }];
      return [
        { matchExpressions: [{ key: HOSTNAME, operator: 'In', values: [labels[HOSTNAME] ?? selected] }] },
      ];
    }
    const t = sc.allowedTopologies?.[0]?.matchLabelExpressions;
    if (!t || t.length === 0) return undefined;
    return [{ matchExpressions: t.map((e) => ({ key: e.key, operator: 'In' as const, values: e.values })) }];
  }

  /** provisionClaimOperation, after the class's latency */
  private async provision(
    pvc: PersistentVolumeClaim,
    sc: StorageClass,
    selected: string | undefined,
  ): Promise<void> {
    const key = claimKey(pvc.metadata.namespace, pvc.metadata.name ?? '');
    const now = this.deps.clock.now();
    let at = this.provisionAt.get(key);
    if (at === undefined) {
      at = now + this.latency(sc);
      this.provisionAt.set(key, at);
    }
    if (now < at) {
      this.queue.addAfter(`claim:${key}`, at - now);
      return;
    }
    const name = `pvc-${pvc.metadata.uid}`;
    const request = pvc.spec.resources?.requests?.storage ?? '0';
    if (this.capacity.tracked(sc)) {
      const node = selected ? (this.nodes.get(undefined, selected)?.metadata.labels ?? {}) : undefined;
      if (!(await this.capacity.take(name, sc, String(request), node))) return this.exhausted(pvc, sc, key);
    }
    const terms = this.topology(sc, selected);
    const pv: PersistentVolume = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name, annotations: { [ANN_DYNAMICALLY_PROVISIONED]: sc.provisioner } },
      spec: {
        capacity: { storage: request },
        accessModes: pvc.spec.accessModes,
        persistentVolumeReclaimPolicy: sc.reclaimPolicy ?? 'Delete',
        storageClassName: sc.metadata.name,
        volumeMode: pvc.spec.volumeMode ?? 'Filesystem',
        csi: { driver: sc.provisioner, volumeHandle: name },
        claimRef: claimRefTo(pvc),
        ...(terms ? { nodeAffinity: { required: { nodeSelectorTerms: terms } } } : {}),
      },
    };
    try {
      await this.deps.api.create('persistentvolumes', pv);
      this.volumesProvisioned++;
      this.deps.recorder.event(
        pvc,
        'Normal',
        'ProvisioningSucceeded',
        `Successfully provisioned volume ${name}`,
      );
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
    this.provisionAt.delete(key);
  }

  /**
   * The driver refused the volume (CreateVolume: ResourceExhausted). The external-provisioner then
   * gives the selected node up (ProvisioningReschedule → rescheduleProvisioning: the claim's
   * `volume.kubernetes.io/selected-node` annotation is removed), and the scheduler, still waiting
   * in VolumeBinding's PreBind, sees it and schedules the pod again. A claim without a selected
   * node (Immediate binding) is tried again when a capacity object changes.
   */
  private async exhausted(pvc: PersistentVolumeClaim, sc: StorageClass, key: string): Promise<void> {
    this.provisionAt.delete(key);
    this.deps.recorder.event(
      pvc,
      'Warning',
      'ProvisioningFailed',
      `failed to provision volume with StorageClass "${sc.metadata.name}": rpc error: code = ResourceExhausted desc = not enough free storage`,
    );
    if (pvc.metadata.annotations?.[ANN_SELECTED_NODE] === undefined) return;
    const next: PersistentVolumeClaim = structuredClone(pvc);
    delete next.metadata.annotations![ANN_SELECTED_NODE];
    try {
      await this.deps.api.update('persistentvolumeclaims', next);
    } catch (e) {
      // changed or gone meanwhile: the claim's next sync decides again
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }

  /** syncVolume: Available when free, Released when its claim is gone, then reclaimed */
  private async syncVolume(pv: PersistentVolume): Promise<void> {
    const ref = pv.spec.claimRef;
    if (!ref?.name) {
      if (pv.status?.phase !== 'Available')
        await this.deps.api.updateStatus('persistentvolumes', {
          ...pv,
          status: { ...pv.status, phase: 'Available' },
        });
      return;
    }
    if (this.claimOf(pv)) return;
    // a claimRef without a uid is a pre-binding waiting for its claim
    if (!ref.uid) return;
    if ((pv.spec.persistentVolumeReclaimPolicy ?? 'Retain') === 'Delete') {
      try {
        await this.deps.api.delete('persistentvolumes', undefined, pv.metadata.name!);
        this.volumesDeleted++;
        await this.capacity.giveBack(pv.metadata.name!);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      return;
    }
    if (pv.status?.phase !== 'Released')
      await this.deps.api.updateStatus('persistentvolumes', {
        ...pv,
        status: { ...pv.status, phase: 'Released' },
      });
  }
}

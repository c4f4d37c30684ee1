/**
 * The storage objects the volume plugins read, indexed by name (upstream: the PV, PVC,
 * StorageClass, CSINode and VolumeAttachment listers of the shared informer factory). Built from
 * the handle's {@link ClusterObjects.storage} once per scheduling cycle, in PreFilter, and kept in
 * the CycleState; a cycle reads one consistent view.
 *
 * Volumes and claims the VolumeBinding plugin assumed (Reserve) overlay the listed ones until the
 * listed object changes (upstream's assume cache: a newer resourceVersion replaces the assumption).
 */
import { claimClass, claimKey } from '../../api/storage.js';
import type {
  CSIDriver,
  CSINode,
  CSIStorageCapacity,
  PersistentVolume,
  PersistentVolumeClaim,
  StorageClass,
  StorageObjects,
  VolumeAttachment,
} from '../../api/storage-types.js';
import type { Pod } from '../../api/types.js';
import type { ClusterObjects } from '../framework/types.js';

/** upstream ephemeral.VolumeClaimName: `<pod name>-<volume name>` */
export function ephemeralClaimName(pod: Pod, volumeName: string): string {
  return `${pod.metadata.name ?? ''}-${volumeName}`;
}

/** A pod volume as the storage plugins read it (the API's Volume, the fields they use). */
export interface PodVolume {
  name?: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  ephemeral?: unknown;
  [source: string]: unknown;
}

export function podVolumes(pod: Pod): PodVolume[] {
  const v = pod.spec.volumes;
  return Array.isArray(v) ? (v as PodVolume[]) : [];
}

/** the claim name a volume refers to (PVC or generic ephemeral volume), undefined otherwise */
export function volumeClaimName(pod: Pod, vol: PodVolume): string | undefined {
  if (vol.persistentVolumeClaim) return vol.persistentVolumeClaim.claimName ?? '';
  if (vol.ephemeral) return ephemeralClaimName(pod, vol.name ?? '');
  return undefined;
}

/** upstream ephemeral.VolumeIsForPod: the claim's controller owner is the pod */
export function ephemeralClaimOwnedBy(pod: Pod, pvc: PersistentVolumeClaim): string | undefined {
  const owner = (pvc.metadata.ownerReferences ?? []).find((o) => o.controller);
  if (owner && owner.uid === pod.metadata.uid) return undefined;
  const ns = pod.metadata.namespace ?? '';
  return `PVC ${ns}/${pvc.metadata.name} was not created for pod ${ns}/${pod.metadata.name} (pod is not owner)`;
}

/** Assumptions kept by the VolumeBinding plugin between cycles (the assume cache). */
export class AssumeCache {
  readonly pvs = new Map<string, { obj: PersistentVolume; from: string | undefined }>();
  readonly pvcs = new Map<string, { obj: PersistentVolumeClaim; from: string | undefined }>();

  assumePV(pv: PersistentVolume, from: PersistentVolume | undefined): void {
    this.pvs.set(pv.metadata.name ?? '', { obj: pv, from: from?.metadata.resourceVersion });
  }

  assumePVC(pvc: PersistentVolumeClaim, from: PersistentVolumeClaim | undefined): void {
    this.pvcs.set(claimKey(pvc.metadata.namespace, pvc.metadata.name ?? ''), {
      obj: pvc,
      from: from?.metadata.resourceVersion,
    });
  }
}

export class StorageView {
  readonly pvcs = new Map<string, PersistentVolumeClaim>();
  readonly pvs = new Map<string, PersistentVolume>();
  readonly classes = new Map<string, StorageClass>();
  readonly csiNodes = new Map<string, CSINode>();
  readonly csiDrivers = new Map<string, CSIDriver>();
  /** the CSIStorageCapacity objects, in listing order (upstream lists them all per check) */
  readonly capacities: readonly CSIStorageCapacity[];
  private readonly vasByNode = new Map<string, VolumeAttachment[]>();
  private pvsByClassCache: Map<string, PersistentVolume[]> | undefined;

  constructor(s: StorageObjects = {}, assumed?: AssumeCache) {
    for (const c of s.persistentVolumeClaims ?? [])
      this.pvcs.set(claimKey(c.metadata.namespace, c.metadata.name ?? ''), c);
    for (const v of s.persistentVolumes ?? []) this.pvs.set(v.metadata.name ?? '', v);
    for (const c of s.storageClasses ?? []) this.classes.set(c.metadata.name ?? '', c);
    for (const c of s.csiNodes ?? []) this.csiNodes.set(c.metadata.name ?? '', c);
    for (const d of s.csiDrivers ?? []) this.csiDrivers.set(d.metadata.name ?? '', d);
    this.capacities = s.csiStorageCapacities ?? [];
    for (const va of s.volumeAttachments ?? []) {
      const n = va.spec?.nodeName ?? '';
      const l = this.vasByNode.get(n) ?? [];
      l.push(va);
      this.vasByNode.set(n, l);
    }
    if (assumed) {
      // an assumption stands until the listed object moves past the version it was made from
      for (const [name, a] of assumed.pvs) {
        const cur = this.pvs.get(name);
        if (cur && cur.metadata.resourceVersion !== a.from) assumed.pvs.delete(name);
        else this.pvs.set(name, a.obj);
      }
      for (const [key, a] of assumed.pvcs) {
        const cur = this.pvcs.get(key);
        if (!cur || cur.metadata.resourceVersion !== a.from) assumed.pvcs.delete(key);
        else this.pvcs.set(key, a.obj);
      }
    }
  }

  static of(objects: ClusterObjects, assumed?: AssumeCache): StorageView {
    return new StorageView(objects.storage, assumed);
  }

  pvc(namespace: string | undefined, name: string): PersistentVolumeClaim | undefined {
    return this.pvcs.get(claimKey(namespace, name));
  }

  /** the volumes of a class (upstream pvCache.ListPVs(storageClassName)), in listing order */
  pvsOfClass(cls: string): PersistentVolume[] {
    if (!this.pvsByClassCache) {
      this.pvsByClassCache = new Map();
      for (const v of this.pvs.values()) {
        const c =
          v.spec.storageClassName ??
          v.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ??
          '';
        const l = this.pvsByClassCache.get(c) ?? [];
        l.push(v);
        this.pvsByClassCache.set(c, l);
      }
    }
    return this.pvsByClassCache.get(cls) ?? [];
  }

  attachmentsOn(node: string): readonly VolumeAttachment[] {
    return this.vasByNode.get(node) ?? [];
  }

  /** IsDelayBindingMode: the claim's class exists and waits for the first consumer */
  delayBinding(pvc: PersistentVolumeClaim): { delay: boolean; error?: string } {
    const name = claimClass(pvc);
    if (name === '') return { delay: false };
    const c = this.classes.get(name);
    if (!c) return { delay: false };
    if (!c.volumeBindingMode)
      return { delay: false, error: `VolumeBindingMode not set for StorageClass "${name}"` };
    return { delay: c.volumeBindingMode === 'WaitForFirstConsumer' };
  }
}

/** the not-found texts of upstream's listers (apierrors.NewNotFound with the lister's resource) */
export const notFound = {
  pvc: (name: string) => `persistentvolumeclaim "${name}" not found`,
  pv: (name: string) => `persistentvolume "${name}" not found`,
  storageClass: (name: string) => `storageclass.storage.k8s.io "${name}" not found`,
};

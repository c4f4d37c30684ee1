/**
 * VolumeRestrictions (upstream pkg/scheduler/framework/plugins/volumerestrictions): two pods may
 * not share a GCE PD, AWS EBS volume, Ceph RBD image or iSCSI target on one node unless both mount
 * it read-only (EBS: never); and a ReadWriteOncePod claim already used by a scheduled pod makes
 * every node Unschedulable (preemption of that pod may help). PreFilter counts the conflicting
 * references once; AddPod/RemovePod keep the count right when preemption simulates evictions.
 */
import type { Pod } from '../../api/types.js';
import { claimKey, hasAccessMode } from '../../api/storage.js';
import type { StateData } from '../framework/cycle-state.js';
import type { CycleState } from '../framework/cycle-state.js';
import type { NodeInfo, PodInfo } from '../framework/snapshot.js';
import { Code, SKIP, Status, type MaybeStatus } from '../framework/status.js';
import type { FilterPlugin, Handle, PluginFactory, PreFilterPlugin } from '../framework/types.js';
import { notFound, podVolumes, StorageView, type PodVolume } from './storage-view.js';

/** upstream ErrReasonDiskConflict */
export const ERR_REASON_DISK_CONFLICT = 'node(s) had no available disk';
/** upstream ErrReasonReadWriteOncePodConflict */
export const ERR_REASON_RWOP_CONFLICT =
  'node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode';
const DISK_CONFLICT = new Status(Code.Unschedulable, [ERR_REASON_DISK_CONFLICT]);
const RWOP_CONFLICT = new Status(Code.Unschedulable, [ERR_REASON_RWOP_CONFLICT]);

const STATE_KEY = 'PreFilterVolumeRestrictions';

interface Sources {
  gcePersistentDisk?: { pdName: string; readOnly?: boolean };
  awsElasticBlockStore?: { volumeID: string };
  iscsi?: { iqn: string; readOnly?: boolean };
  rbd?: { monitors?: string[]; pool?: string; image: string; readOnly?: boolean };
}

const needsCheck = (v: PodVolume & Sources) =>
  !!(v.gcePersistentDisk || v.awsElasticBlockStore || v.rbd || v.iscsi);

/** the RBD pool defaults to "rbd" (core/v1 defaults) */
const rbdPool = (r: NonNullable<Sources['rbd']>) => r.pool || 'rbd';

/** isVolumeConflict: `v` conflicts with a volume of the existing pod */
function volumeConflict(v: Sources, existing: Pod): boolean {
  for (const ev of podVolumes(existing) as Sources[]) {
    if (v.gcePersistentDisk && ev.gcePersistentDisk) {
      const a = v.gcePersistentDisk,
        b = ev.gcePersistentDisk;
      if (a.pdName === b.pdName && !(a.readOnly && b.readOnly)) return true;
    }
    if (v.awsElasticBlockStore && ev.awsElasticBlockStore) {
      if (v.awsElasticBlockStore.volumeID === ev.awsElasticBlockStore.volumeID) return true;
    }
    if (v.iscsi && ev.iscsi) {
      if (v.iscsi.iqn === ev.iscsi.iqn && !(v.iscsi.readOnly && ev.iscsi.readOnly)) return true;
    }
    if (v.rbd && ev.rbd) {
      const a = v.rbd,
        b = ev.rbd;
      const overlap = (a.monitors ?? []).some((m) => (b.monitors ?? []).includes(m));
      if (overlap && rbdPool(a) === rbdPool(b) && a.image === b.image && !(a.readOnly && b.readOnly))
        return true;
    }
  }
  return false;
}

class PreFilterState implements StateData {
  constructor(
    /** the pod's ReadWriteOncePod claim names */
    readonly rwopClaims: ReadonlySet<string>,
    /** references to them by scheduled pods */
    public conflicts: number,
  ) {}

  clone(): PreFilterState {
    return new PreFilterState(this.rwopClaims, this.conflicts);
  }

  /** conflictingPVCRefCountForPod */
  refsOf(pod: Pod, namespace: string): number {
    if ((pod.metadata.namespace ?? 'default') !== namespace) return 0;
    let n = 0;
    for (const v of podVolumes(pod))
      if (v.persistentVolumeClaim && this.rwopClaims.has(v.persistentVolumeClaim.claimName)) n++;
    return n;
  }
}

export class VolumeRestrictions implements PreFilterPlugin, FilterPlugin {
  readonly name = 'VolumeRestrictions';
  constructor(private readonly handle: Handle) {}

  static factory: PluginFactory = (_args, handle) => new VolumeRestrictions(handle);

  preFilter(state: CycleState, pod: Pod): MaybeStatus {
    const vols = podVolumes(pod);
    const check = vols.some(needsCheck);
    if (!check && !vols.some((v) => v.persistentVolumeClaim)) return SKIP;
    const view = StorageView.of(this.handle.objects);
    const ns = pod.metadata.namespace ?? 'default';
    const rwop = new Set<string>();
    for (const v of vols) {
      if (!v.persistentVolumeClaim) continue;
      const name = v.persistentVolumeClaim.claimName;
      const pvc = view.pvc(ns, name);
      if (!pvc) return new Status(Code.UnschedulableAndUnresolvable, [notFound.pvc(name)]);
      if (hasAccessMode(pvc.spec.accessModes, 'ReadWriteOncePod')) rwop.add(name);
    }
    // IsPVCUsedByPods: at most one scheduled pod can use a ReadWriteOncePod claim
    let conflicts = 0;
    if (rwop.size > 0) {
      const used = new Set<string>();
      for (const pi of this.handle.snapshot.allPods()) {
        const pns = pi.pod.metadata.namespace ?? 'default';
        for (const v of podVolumes(pi.pod))
          if (v.persistentVolumeClaim) used.add(claimKey(pns, v.persistentVolumeClaim.claimName));
      }
      for (const c of rwop) if (used.has(claimKey(ns, c))) conflicts++;
    }
    if (!check && conflicts === 0) return SKIP;
    state.write(STATE_KEY, new PreFilterState(rwop, conflicts));
    return null;
  }

  addPod(state: CycleState, pod: Pod, toAdd: PodInfo): MaybeStatus {
    const s = state.read<PreFilterState>(STATE_KEY);
    s.conflicts += s.refsOf(toAdd.pod, pod.metadata.namespace ?? 'default');
    return null;
  }

  removePod(state: CycleState, pod: Pod, toRemove: PodInfo): MaybeStatus {
    const s = state.read<PreFilterState>(STATE_KEY);
    s.conflicts -= s.refsOf(toRemove.pod, pod.metadata.namespace ?? 'default');
    return null;
  }

  filter(state: CycleState, pod: Pod, ni: NodeInfo): MaybeStatus {
    for (const v of podVolumes(pod) as (PodVolume & Sources)[]) {
      if (!needsCheck(v)) continue;
      for (const ev of ni.pods) if (volumeConflict(v, ev.pod)) return DISK_CONFLICT;
    }
    const s = state.read<PreFilterState>(STATE_KEY);
    return s.conflicts > 0 ? RWOP_CONFLICT : null;
  }
}

/**
 * NodeVolumeLimits (upstream pkg/scheduler/framework/plugins/nodevolumelimits/csi.go, CSILimits):
 * a node takes at most CSINode `spec.drivers[].allocatable.count` volumes of each CSI driver.
 *
 * Filter collects the pod's attachable volumes as `<driver>/<handle>`: a bound claim by its PV's
 * CSI source (in-tree sources translated to their CSI driver where migration is on), an unbound
 * claim by its StorageClass's provisioner with a handle unique to the claim, migratable in-tree
 * inline volumes likewise. The volumes of the pods on the node and the node's VolumeAttachments
 * count once each; a volume the pod shares with a pod already there adds nothing (one attached
 * only through a VolumeAttachment still counts for the new pod, as upstream's table expects).
 */
import type { Pod } from '../../api/types.js';
import {
  claimClass,
  csiMigrationOn,
  IN_TREE_TO_CSI,
  inTreePluginOf,
  translatedVolumeHandle,
  volumeCSIIdentity,
} from '../../api/storage.js';
import type { CSINode, PersistentVolumeClaim } from '../../api/storage-types.js';
import type { CycleState } from '../framework/cycle-state.js';
import type { NodeInfo } from '../framework/snapshot.js';
import { Code, errorStatus, SKIP, Status, type MaybeStatus } from '../framework/status.js';
import type { FilterPlugin, Handle, PluginFactory, PreFilterPlugin } from '../framework/types.js';
import {
  ephemeralClaimOwnedBy,
  notFound,
  podVolumes,
  StorageView,
  volumeClaimName,
  type PodVolume,
} from './storage-view.js';

/** upstream ErrReasonMaxVolumeCountExceeded */
export const ERR_REASON_MAX_VOLUME_COUNT = 'node(s) exceed max volume count';
const EXCEEDED = new Status(Code.Unschedulable, [ERR_REASON_MAX_VOLUME_COUNT]);

/** the legacy node allocatable key of a driver's limit (volumeutil.GetCSIAttachLimitKey, short names) */
const ATTACH_KEY_PREFIX = 'attachable-volumes-csi-';

const STATE_KEY = 'PreFilterNodeVolumeLimits';

/** IsInlineMigratable */
const inlineMigratable = (v: PodVolume) => inTreePluginOf(v) !== undefined;

export class NodeVolumeLimits implements PreFilterPlugin, FilterPlugin {
  readonly name = 'NodeVolumeLimits';
  /** upstream randomVolumeIDPrefix: unbound claims get handles no real volume has */
  private readonly prefix = 'kubesim-unbound';

  constructor(private readonly handle: Handle) {}

  static factory: PluginFactory = (_args, handle) => new NodeVolumeLimits(handle);

  preFilter(state: CycleState, pod: Pod): MaybeStatus {
    for (const v of podVolumes(pod))
      if (v.persistentVolumeClaim || v.ephemeral || inlineMigratable(v)) {
        state.write(STATE_KEY, StorageView.of(this.handle.objects));
        return null;
      }
    return SKIP;
  }

  filter(state: CycleState, pod: Pod, ni: NodeInfo): MaybeStatus {
    if (podVolumes(pod).length === 0) return null;
    const view = state.tryRead<StorageView>(STATE_KEY) ?? StorageView.of(this.handle.objects);
    const csiNode = view.csiNodes.get(ni.name);
    const newVolumes = new Map<string, string>();
    try {
      const err = this.attachable(view, pod, csiNode, true, newVolumes);
      if (err) return err;
    } catch (e) {
      return errorStatus(e);
    }
    if (newVolumes.size === 0) return null;
    const limits = this.limits(ni, csiNode);
    if (limits.size === 0) return null;
    const attached = new Map<string, string>();
    for (const pi of ni.pods) this.attachable(view, pi.pod, csiNode, false, attached);
    const attachedCount = new Map<string, number>();
    for (const [unique, driver] of attached) {
      newVolumes.delete(unique);
      attachedCount.set(driver, (attachedCount.get(driver) ?? 0) + 1);
    }
    // volumes attached to the node by VolumeAttachments and not already counted through a pod
    for (const va of view.attachmentsOn(ni.name)) {
      const pvName = va.spec.source?.persistentVolumeName;
      let id: { driver: string; handle: string } | undefined;
      if (pvName) {
        const pv = view.pvs.get(pvName);
        id = pv ? volumeCSIIdentity(pv.spec, pv.metadata.labels, csiNode) : undefined;
        id ??= { driver: va.spec.attacher, handle: pvName };
      } else if (va.spec.source?.inlineVolumeSpec?.csi) {
        const c = va.spec.source.inlineVolumeSpec.csi;
        id = { driver: c.driver, handle: c.volumeHandle ?? '' };
      }
      if (!id) continue;
      const unique = `${id.driver}/${id.handle}`;
      if (attached.has(unique)) continue;
      attached.set(unique, id.driver);
      attachedCount.set(id.driver, (attachedCount.get(id.driver) ?? 0) + 1);
    }
    const newCount = new Map<string, number>();
    for (const driver of newVolumes.values()) newCount.set(driver, (newCount.get(driver) ?? 0) + 1);
    for (const [driver, count] of newCount) {
      const max = limits.get(driver);
      if (max !== undefined && (attachedCount.get(driver) ?? 0) + count > max) return EXCEEDED;
    }
    return null;
  }

  /** getVolumeLimits: the node's legacy attachable-volumes-csi-* allocatable, then CSINode counts */
  private limits(ni: NodeInfo, csiNode: CSINode | undefined): Map<string, number> {
    const out = new Map<string, number>();
    const alloc = ni.node.status?.allocatable ?? {};
    for (const [k, v] of Object.entries(alloc))
      if (k.startsWith(ATTACH_KEY_PREFIX)) out.set(k.slice(ATTACH_KEY_PREFIX.length), Number(v));
    for (const d of csiNode?.spec?.drivers ?? [])
      if (d.allocatable?.count !== undefined && d.allocatable.count !== null)
        out.set(d.name, d.allocatable.count);
    return out;
  }

  /**
   * filterAttachableVolumes: adds the pod's attachable volumes (unique name → driver). For the new
   * pod a missing claim is an answer (a status); for pods already on the node it is skipped.
   */
  private attachable(
    view: StorageView,
    pod: Pod,
    csiNode: CSINode | undefined,
    newPod: boolean,
    out: Map<string, string>,
  ): MaybeStatus {
    const ns = pod.metadata.namespace ?? 'default';
    for (const vol of podVolumes(pod)) {
      const claim = volumeClaimName(pod, vol);
      if (claim === undefined) {
        const plugin = inTreePluginOf(vol);
        if (!plugin || !csiMigrationOn(csiNode, plugin)) continue;
        const handle = translatedVolumeHandle(vol);
        if (handle === undefined) continue;
        const driver = IN_TREE_TO_CSI[plugin]!;
        out.set(`${driver}/${handle}`, driver);
        continue;
      }
      if (claim === '') {
        if (newPod) return new Status(Code.Error, ['PersistentVolumeClaim had no name']);
        continue;
      }
      const pvc = view.pvc(ns, claim);
      if (!pvc) {
        if (newPod)
          return new Status(Code.UnschedulableAndUnresolvable, [
            `looking up PVC ${pod.metadata.namespace ?? ''}/${claim}: ${notFound.pvc(claim)}`,
          ]);
        continue;
      }
      if (vol.ephemeral) {
        const notOwner = ephemeralClaimOwnedBy(pod, pvc);
        if (notOwner) {
          if (newPod) return new Status(Code.Error, [notOwner]);
          continue;
        }
      }
      const id = this.driverInfo(view, csiNode, pvc);
      if (!id || id.driver === '' || id.handle === '') continue;
      out.set(`${id.driver}/${id.handle}`, id.driver);
    }
    return null;
  }

  /** getCSIDriverInfo: the bound PV's CSI identity, else the claim's class (getCSIDriverInfoFromSC) */
  private driverInfo(
    view: StorageView,
    csiNode: CSINode | undefined,
    pvc: PersistentVolumeClaim,
  ): { driver: string; handle: string } | undefined {
    const pvName = pvc.spec.volumeName ?? '';
    const pv = pvName ? view.pvs.get(pvName) : undefined;
    if (pv) return volumeCSIIdentity(pv.spec, pv.metadata.labels, csiNode);
    const sc = claimClass(pvc);
    if (sc === '') return undefined;
    const cls = view.classes.get(sc);
    if (!cls) return undefined;
    const handle = `${this.prefix}-${pvc.metadata.namespace ?? ''}/${pvc.metadata.name}`;
    const provisioner = cls.provisioner;
    if (IN_TREE_TO_CSI[provisioner] !== undefined) {
      if (!csiMigrationOn(csiNode, provisioner)) return undefined;
      return { driver: IN_TREE_TO_CSI[provisioner]!, handle };
    }
    return { driver: provisioner, handle };
  }
}

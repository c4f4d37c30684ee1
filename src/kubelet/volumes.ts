/**
 * The kubelet's volume manager, as far as a pod's start-up depends on it (upstream:
 * pkg/kubelet/volumemanager volume_manager.go WaitForAttachAndMount, called by SyncPod before the
 * sandbox is created; the desired-state populator's createVolumeSpec / getPVCExtractPV / getPVSpec):
 * a pod that uses PersistentVolumeClaims (directly or through generic ephemeral volumes) starts only
 * once each claim is Bound to a volume that is bound back to it.
 *
 *  - the claim exists (an ephemeral volume's claim is owned by the pod), is not being deleted, has
 *    phase Bound and spec.volumeName;
 *  - that PersistentVolume exists and its claimRef names the claim's uid.
 *
 * Until then the pod stays Pending on its node (containers not created), and the kubelet looks
 * again {@link VOLUME_RETRY_MS} later. Simplified: upstream's populator reads the claims every
 * 100 ms and WaitForAttachAndMount checks every 300 ms for 2 min 3 s before the pod worker starts
 * over (silently: v1.34 records no FailedMount event for a timed-out wait); kubesim checks once a
 * second, two GETs per claim, for as long as the pod waits. Attach (VolumeAttachment) and mount
 * take no time, and no volume is unmounted on termination.
 */
import type { PersistentVolume, PersistentVolumeClaim } from '../api/storage-types.js';
import type { Pod } from '../api/types.js';
import type { ApiClient } from '../client/api.js';
import { ephemeralClaimOwnedBy, podVolumes, volumeClaimName } from '../scheduler/plugins/storage-view.js';

/** How long a pod whose claims are not bound waits before the kubelet looks again. */
export const VOLUME_RETRY_MS = 1_000;

/** whether the pod uses any claim (most pods do not: they skip the volume manager's wait) */
export function usesClaims(pod: Pod): boolean {
  return podVolumes(pod).some((v) => volumeClaimName(pod, v) !== undefined);
}

/** The pod's volumes whose claims are not ready to mount yet (names of pod volumes), in pod order. */
export async function unboundVolumes(api: ApiClient, pod: Pod): Promise<string[]> {
  const ns = pod.metadata.namespace ?? 'default';
  const waiting: string[] = [];
  for (const vol of podVolumes(pod)) {
    const name = volumeClaimName(pod, vol);
    if (name === undefined) continue;
    if (!(await claimReady(api, pod, ns, name, !!vol.ephemeral))) waiting.push(vol.name ?? name);
  }
  return waiting;
}

async function claimReady(
  api: ApiClient,
  pod: Pod,
  ns: string,
  name: string,
  ephemeral: boolean,
): Promise<boolean> {
  let pvc: PersistentVolumeClaim;
  try {
    pvc = await api.get<PersistentVolumeClaim>('persistentvolumeclaims', ns, name);
  } catch {
    return false;
  }
  if (pvc.metadata.deletionTimestamp) return false;
  if (ephemeral && ephemeralClaimOwnedBy(pod, pvc)) return false;
  const volumeName = pvc.spec.volumeName;
  if (pvc.status?.phase !== 'Bound' || !volumeName) return false;
  try {
    const pv = await api.get<PersistentVolume>('persistentvolumes', '', volumeName);
    return !!pv.spec.claimRef && pv.spec.claimRef.uid === pvc.metadata.uid;
  } catch {
    return false;
  }
}

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
 * again {@link VOLUME_RETRY_MS} later. A claim or volume the API server does not have (404) is
 * "not yet"; any other error of those GETs (403 from the node authorizer, 429 after the client's
 * retries, a 5xx) is reported as upstream's populator reports it (createVolumeSpec →
 * AddErrorToPod, which ends WaitForAttachAndMount with the error): a Warning `FailedMount` event
 * `Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to
 * process volumes=[data]: error processing PVC ns/claim: failed to fetch PVC from API server: …`
 * ({@link failedMountMessage}), and the pod is looked at again as before. Simplified: upstream
 * reports a missing or unbound claim with the same event (`… PVC is not bound`); kubesim waits on
 * those silently (the scheduler binds a pod only once VolumeBinding's PreBind saw its claims bound,
 * so that is brief). Upstream's populator reads the claims every
 * 100 ms and WaitForAttachAndMount checks every 300 ms for 2 min 3 s before the pod worker starts
 * over (silently: v1.34 records no FailedMount event for a timed-out wait); kubesim checks once a
 * second, two GETs per claim, for as long as the pod waits. Attach (VolumeAttachment) and mount
 * take no time, and no volume is unmounted on termination.
 */
import { ApiError } from '../api/errors.js';
import type { PersistentVolume, PersistentVolumeClaim } from '../api/storage-types.js';
import type { Pod } from '../api/types.js';
import type { ApiClient } from '../client/api.js';
import { ephemeralClaimOwnedBy, podVolumes, volumeClaimName } from '../scheduler/plugins/storage-view.js';

/** The event reason (pkg/kubelet/events FailedMountVolume). */
export const FAILED_MOUNT_REASON = 'FailedMount';

/** How long a pod whose claims are not bound waits before the kubelet looks again. */
export const VOLUME_RETRY_MS = 1_000;

/** whether the pod uses any claim (most pods do not: they skip the volume manager's wait) */
export function usesClaims(pod: Pod): boolean {
  return podVolumes(pod).some((v) => volumeClaimName(pod, v) !== undefined);
}

/** The pod's volumes whose claims are not ready to mount yet, and why. */
export interface VolumeWait {
  /** names of pod volumes whose claims are not ready, in pod order */
  waiting: string[];
  /** the errors of the API reads (not 404s), as the populator words them, sorted */
  errors: string[];
  /** the waiting volumes that failed with one of `errors` */
  failed: string[];
}

/** The pod's volumes whose claims are not ready to mount yet, in pod order. */
export async function unboundVolumes(api: ApiClient, pod: Pod): Promise<VolumeWait> {
  const ns = pod.metadata.namespace ?? 'default';
  const out: VolumeWait = { waiting: [], errors: [], failed: [] };
  for (const vol of podVolumes(pod)) {
    const name = volumeClaimName(pod, vol);
    if (name === undefined) continue;
    const r = await claimReady(api, pod, ns, name, !!vol.ephemeral);
    if (r === true) continue;
    out.waiting.push(vol.name ?? name);
    if (r === false) continue;
    out.failed.push(vol.name ?? name);
    out.errors.push(`error processing PVC ${ns}/${name}: ${r.error}`);
  }
  // the populator keeps a pod's errors in a string set; PopPodErrors lists them sorted
  out.errors = [...new Set(out.errors)].sort();
  return out;
}

/**
 * The FailedMount event's message after WaitForAttachAndMount ended on the populator's errors
 * (volume_manager.go: `unmounted volumes=%v, unattached volumes=%v, failed to process volumes=%v:
 * %w` with the errors joined by "; ", in kubelet.go SyncPod's `Unable to attach or mount volumes:
 * %v`). Volumes that failed processing never reached the desired state, so none is "unattached".
 */
export function failedMountMessage(w: VolumeWait): string {
  const list = (xs: string[]) => `[${xs.join(' ')}]`;
  return `Unable to attach or mount volumes: unmounted volumes=${list(w.waiting)}, unattached volumes=[], failed to process volumes=${list(w.failed)}: ${w.errors.join('; ')}`;
}

/** a 404 is "not there yet"; any other failure is the error's message */
function readError(e: unknown): { error: string } | false {
  if (e instanceof ApiError && e.code === 404) return false;
  return { error: e instanceof Error ? e.message : String(e) };
}

/** true: ready to mount; false: not yet; an error: a read failed (getPVCExtractPV / getPVSpec) */
async function claimReady(
  api: ApiClient,
  pod: Pod,
  ns: string,
  name: string,
  ephemeral: boolean,
): Promise<boolean | { error: string }> {
  let pvc: PersistentVolumeClaim;
  try {
    pvc = await api.get<PersistentVolumeClaim>('persistentvolumeclaims', ns, name);
  } catch (e) {
    const r = readError(e);
    return r && { error: `failed to fetch PVC from API server: ${r.error}` };
  }
  if (pvc.metadata.deletionTimestamp) return false;
  if (ephemeral && ephemeralClaimOwnedBy(pod, pvc)) return false;
  const volumeName = pvc.spec.volumeName;
  if (pvc.status?.phase !== 'Bound' || !volumeName) return false;
  try {
    const pv = await api.get<PersistentVolume>('persistentvolumes', '', volumeName);
    return !!pv.spec.claimRef && pv.spec.claimRef.uid === pvc.metadata.uid;
  } catch (e) {
    const r = readError(e);
    return r && { error: `failed to fetch PV ${volumeName} from API server: ${r.error}` };
  }
}

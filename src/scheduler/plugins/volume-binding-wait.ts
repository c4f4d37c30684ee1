/**
 * VolumeBinding's wait in PreBind (upstream binder.go BindPodVolumes → checkBindings): after the
 * chosen volumes' claimRefs and the claims' selected-node annotations are written, the binding
 * cycle polls once a second until every claim is fully bound (spec.volumeName and
 * `pv.kubernetes.io/bind-completed`), and only then does the pod get bound to its node. A claim
 * whose selected node was taken away (the provisioner gave up on that node: CSI ResourceExhausted),
 * a pre-bound volume that lost its claimRef, or a volume that does not admit the node ends the wait
 * with an error: the pod goes back to the queue and is scheduled again. The wait ends with
 * `context deadline exceeded` after VolumeBindingArgs.bindTimeoutSeconds (600 s by default).
 *
 * Read from the scheduler's listers (ClusterObjects.storage), as upstream's pvCache / pvcCache,
 * each poll. As upstream (CompareResourceVersion against what PreBind wrote), a volume or claim
 * that PreBind wrote and whose listed form is not yet past the version it was written over is
 * "not yet".
 */
import type { Node, Pod } from '../../api/types.js';
import {
  ANN_SELECTED_NODE,
  claimFullyBound,
  claimKey,
  translatePVForNode,
  volumeNodeAffinityMatches,
} from '../../api/storage.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageObjects } from '../../api/storage-types.js';

/** VolumeBindingArgs.bindTimeoutSeconds' default (pkg/scheduler/apis/config/v1 defaults.go) */
export const BIND_TIMEOUT_MS = 600_000;

/** the poll interval of BindPodVolumes (wait.PollUntilContextTimeout(ctx, time.Second, …)) */
export const BIND_POLL_MS = 1_000;

export interface WrittenBindings {
  /** volumes pre-bound to a claim; `written`: PreBind wrote `pv` (whose version is the one it replaced) */
  staticBindings: { pv: PersistentVolume; pvc: PersistentVolumeClaim; written: boolean }[];
  /** claims to provision, with the selected-node annotation */
  claimsToProvision: { pvc: PersistentVolumeClaim; written: boolean }[];
}

const rv = (o: { metadata: { resourceVersion?: string } }) => Number(o.metadata.resourceVersion ?? 0);

/** the listed object is not yet the one PreBind wrote over `before` */
const stale = (
  listed: { metadata: { resourceVersion?: string } },
  before: { metadata: { resourceVersion?: string } },
  written: boolean,
) => written && rv(listed) <= rv(before);

/**
 * checkBindings: true when every claim is fully bound, false to look again, or the error that ends
 * the wait (upstream's words).
 */
export function checkBindings(
  storage: StorageObjects | undefined,
  pod: Pod,
  node: Node | undefined,
  nodeName: string,
  w: WrittenBindings,
): boolean | string {
  if (!node) return `failed to get node "${nodeName}": node "${nodeName}" not found`;
  const labels = node.metadata.labels ?? {};
  const pvs = new Map((storage?.persistentVolumes ?? []).map((v) => [v.metadata.name ?? '', v]));
  const pvcs = new Map(
    (storage?.persistentVolumeClaims ?? []).map((c) => [
      claimKey(c.metadata.namespace, c.metadata.name ?? ''),
      c,
    ]),
  );
  const csiNode = (storage?.csiNodes ?? []).find((c) => c.metadata.name === nodeName);
  const claimOf = (c: PersistentVolumeClaim) =>
    pvcs.get(claimKey(c.metadata.namespace ?? pod.metadata.namespace, c.metadata.name ?? ''));
  for (const b of w.staticBindings) {
    const listed = pvs.get(b.pv.metadata.name ?? '');
    if (!listed) return `failed to check binding: PV "${b.pv.metadata.name}" not found`;
    const pvc = claimOf(b.pvc);
    if (!pvc) return `failed to check binding: PVC "${b.pvc.metadata.name}" not found`;
    if (stale(listed, b.pv, b.written)) return false;
    const pv = translatePVForNode(listed, csiNode);
    if (!volumeNodeAffinityMatches(pv, labels))
      return `pv "${pv.metadata.name}" node affinity doesn't match node "${nodeName}": no matching NodeSelectorTerms`;
    if (!pv.spec.claimRef?.uid) return `ClaimRef got reset for pv "${pv.metadata.name}"`;
    if (!claimFullyBound(pvc)) return false;
  }
  for (const { pvc: c, written } of w.claimsToProvision) {
    const pvc = claimOf(c);
    if (!pvc) return `failed to check provisioning pvc: PVC "${c.metadata.name}" not found`;
    if (stale(pvc, c, written)) return false;
    const selected = pvc.metadata.annotations?.[ANN_SELECTED_NODE];
    if (pvc.metadata.annotations === undefined)
      return `selectedNode annotation reset for PVC "${pvc.metadata.name}"`;
    // the provisioner removes the annotation when it cannot provision on that node
    if (selected !== nodeName) return `provisioning failed for PVC "${pvc.metadata.name}"`;
    if (pvc.spec.volumeName) {
      const listed = pvs.get(pvc.spec.volumeName);
      // not listed yet: the PV informer is behind, look again
      if (!listed) return false;
      const pv = translatePVForNode(listed, csiNode);
      if (!volumeNodeAffinityMatches(pv, labels))
        return `pv "${pv.metadata.name}" node affinity doesn't match node "${nodeName}": no matching NodeSelectorTerms`;
    }
    if (!claimFullyBound(pvc)) return false;
  }
  return true;
}

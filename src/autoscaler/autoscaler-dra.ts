/**
 * What the cluster-autoscaler model hands its scheduler simulations of Dynamic Resource Allocation
 * (kubernetes/autoscaler cluster-autoscaler/simulator/dynamicresources: the snapshot of DeviceClasses,
 * ResourceClaims and ResourceSlices its ClusterSnapshot carries, and utils/sanitize.go; read, not
 * copied). A template node brings its own slices (config.ts groupSlices); nodes left out of a
 * simulation take their slices with them; the claims of pods the simulation moves are released
 * (upstream: the snapshot unreserves a removed pod's claims and deallocates those left without a
 * consumer) so that Filter allocates them anew where the pod lands; the claims of pods already moved
 * in this pass keep the allocation they got there (the overlay).
 */
import { claimKeyOf, claimNameFor, podResourceClaims } from '../api/resource-claims.js';
import type { DeviceClass, ResourceClaim, ResourceObjects, ResourceSlice } from '../api/resource-types.js';
import type { Pod } from '../api/types.js';
import type { Informer } from '../client/informer.js';

/** claims by `<namespace>/<name>`, as a simulation left them */
export type ClaimOverlay = ReadonlyMap<string, ResourceClaim>;

export interface DraListers {
  deviceClasses: Informer<DeviceClass>;
  claims: Informer<ResourceClaim>;
  slices: Informer<ResourceSlice>;
}

export interface DraView {
  /** nodes whose slices are left out (removed, deleting, or replaced by template copies) */
  skipNodes: (node: string) => boolean;
  /** uids of pods the simulation takes off their nodes */
  moving?: ReadonlySet<string>;
  overlay?: ClaimOverlay;
  /** slices of template nodes added to the simulation */
  extraSlices?: readonly ResourceSlice[];
}

const keyOf = (c: ResourceClaim) => claimKeyOf(c.metadata.namespace, c.metadata.name ?? '');

/** The resource.k8s.io lists one simulation reads; `resourceSlices` may be pushed to afterwards. */
export function simulationResources(l: DraListers, v: DraView): ResourceObjects {
  const slices = l.slices.list().filter((s) => !s.spec.nodeName || !v.skipNodes(s.spec.nodeName));
  return {
    deviceClasses: l.deviceClasses.list(),
    resourceClaims: l.claims.list().map((c) => release(v.overlay?.get(keyOf(c)) ?? c, v.moving)),
    resourceSlices: [...slices, ...(v.extraSlices ?? [])],
  };
}

/**
 * A claim without the reservations of moving pods; allocated and left with no consumer, it is
 * deallocated (upstream: the ResourceClaim controller would deallocate it once the pod is gone).
 */
function release(c: ResourceClaim, moving: ReadonlySet<string> | undefined): ResourceClaim {
  const rf = c.status?.reservedFor;
  if (!moving?.size || !rf?.some((r) => moving.has(r.uid))) return c;
  const left = rf.filter((r) => !moving.has(r.uid));
  if (left.length) return { ...c, status: { ...c.status, reservedFor: left } };
  return { ...c, status: { ...c.status, reservedFor: undefined, allocation: undefined } };
}

/** The claims `pod` uses (those that exist), from the overlay first. */
export function claimsOfPod(
  pod: Pod,
  claims: Informer<ResourceClaim>,
  overlay?: ClaimOverlay,
): ResourceClaim[] {
  const out: ResourceClaim[] = [];
  for (const pc of podResourceClaims(pod)) {
    const n = claimNameFor(pod, pc).name;
    if (n === undefined) continue;
    const c =
      overlay?.get(claimKeyOf(pod.metadata.namespace, n)) ??
      claims.get(pod.metadata.namespace ?? 'default', n);
    if (c) out.push(c);
  }
  return out;
}

/** The claims a simulated placement allocated, reserved for the pod: the overlay's entries. */
export function reservedForPod(pod: Pod, claims: readonly ResourceClaim[]): [string, ResourceClaim][] {
  const ref = { resource: 'pods', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' };
  return claims.map((c) => {
    const rf = (c.status?.reservedFor ?? []).filter((r) => r.uid !== ref.uid);
    return [keyOf(c), { ...c, status: { ...c.status, reservedFor: [...rf, ref] } }];
  });
}

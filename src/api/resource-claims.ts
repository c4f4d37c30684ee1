/**
 * The rules around a pod's ResourceClaims that the scheduler, the ResourceClaim controller, the
 * kubelet model and the planner share, one home each (upstream:
 * k8s.io/dynamic-resource-allocation/resourceclaim, resourceclaim.go and pod.go).
 */
import type { Pod } from './types.js';
import { RESERVED_FOR_MAX_SIZE, type ResourceClaim } from './resource-types.js';

/** core/v1 PodResourceClaim */
export interface PodResourceClaim {
  name: string;
  resourceClaimName?: string;
  resourceClaimTemplateName?: string;
}

/** core/v1 PodResourceClaimStatus */
export interface PodResourceClaimStatus {
  name: string;
  resourceClaimName?: string;
}

export function podResourceClaims(pod: Pod): PodResourceClaim[] {
  const c = pod.spec.resourceClaims;
  return Array.isArray(c) ? (c as PodResourceClaim[]) : [];
}

export function podResourceClaimStatuses(pod: Pod): PodResourceClaimStatus[] {
  const s = pod.status?.resourceClaimStatuses;
  return Array.isArray(s) ? (s as PodResourceClaimStatus[]) : [];
}

/** upstream ErrClaimNotFound's text */
export const CLAIM_NOT_CREATED = 'ResourceClaim not created yet';

/**
 * upstream resourceclaim.Name: the claim a PodResourceClaim refers to. `name` undefined with no
 * error: the controller decided that no claim is needed (skip it). `mustCheckOwner`: the claim
 * came from a template and must be owned by the pod ({@link claimIsForPod}).
 */
export function claimNameFor(
  pod: Pod,
  podClaim: PodResourceClaim,
): { name?: string; mustCheckOwner: boolean; error?: string } {
  const who = `pod "${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}"`;
  if (podClaim.resourceClaimName != null) return { name: podClaim.resourceClaimName, mustCheckOwner: false };
  if (podClaim.resourceClaimTemplateName != null) {
    for (const s of podResourceClaimStatuses(pod))
      if (s.name === podClaim.name) return { name: s.resourceClaimName ?? undefined, mustCheckOwner: true };
    return { mustCheckOwner: false, error: `${who}: ${CLAIM_NOT_CREATED}` };
  }
  return {
    mustCheckOwner: false,
    error: `${who}, spec.resourceClaim "${podClaim.name}": none of the supported fields are set`,
  };
}

/** upstream resourceclaim.IsForPod: the claim's controller owner is the pod; an error text otherwise */
export function claimIsForPod(pod: Pod, claim: ResourceClaim): string | undefined {
  const owner = (claim.metadata.ownerReferences ?? []).find((o) => o.controller);
  const ns = pod.metadata.namespace ?? 'default';
  const cns = claim.metadata.namespace ?? 'default';
  if (cns === ns && owner !== undefined && owner.uid === pod.metadata.uid) return undefined;
  return `ResourceClaim ${cns}/${claim.metadata.name} was not created for pod ${ns}/${pod.metadata.name} (pod is not owner)`;
}

/** upstream resourceclaim.IsReservedForPod */
export function claimIsReservedForPod(pod: Pod, claim: ResourceClaim): boolean {
  const uid = pod.metadata.uid;
  return (claim.status?.reservedFor ?? []).some((r) => r.uid === uid);
}

/** upstream resourceclaim.CanBeReserved: room for one more consumer */
export function claimCanBeReserved(claim: ResourceClaim): boolean {
  return (claim.status?.reservedFor?.length ?? 0) < RESERVED_FOR_MAX_SIZE;
}

/** `<namespace>/<name>` of a claim (namespace defaulted) */
export const claimKeyOf = (namespace: string | undefined, name: string): string =>
  `${namespace || 'default'}/${name}`;

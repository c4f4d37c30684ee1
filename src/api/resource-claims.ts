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

/** the annotation a generated claim carries: the pod's `spec.resourceClaims[].name` it was made for */
export const POD_CLAIM_NAME_ANNOTATION = 'resource.kubernetes.io/pod-claim-name';

/**
 * The claim the ResourceClaim controller makes from a template for one of a pod's claims (upstream:
 * pkg/controller/resourceclaim/controller.go handleClaim): the template's metadata labels and
 * annotations, the pod-claim-name annotation, the pod as controlling owner, the template's spec, and
 * `generateName` `<pod>-<claim>-`. When that base is longer than 57 characters (63 minus a hyphen and
 * the 5-character suffix) both parts are cut in proportion to their lengths, so the claim name keeps
 * something of each.
 */
export function claimFromTemplate(
  pod: Pod,
  podClaimName: string,
  template: { spec: { metadata?: ResourceClaim['metadata']; spec: ResourceClaim['spec'] } },
): ResourceClaim {
  const podName = pod.metadata.name ?? '';
  let base = `${podName}-${podClaimName}-`;
  const maxBaseLen = 57;
  if (base.length > maxBaseLen)
    base = `${podName.slice(0, Math.floor((podName.length * maxBaseLen) / base.length))}-${podClaimName.slice(
      0,
      Math.floor((podClaimName.length * maxBaseLen) / base.length),
    )}`;
  const meta = template.spec.metadata ?? {};
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: {
      generateName: base,
      namespace: pod.metadata.namespace ?? 'default',
      labels: meta.labels ? { ...meta.labels } : undefined,
      annotations: { ...(meta.annotations ?? {}), [POD_CLAIM_NAME_ANNOTATION]: podClaimName },
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'Pod',
          name: podName,
          uid: pod.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: structuredClone(template.spec.spec),
  };
}

/** upstream owningPod: the pod a generated claim was made for (its controlling Pod owner) */
export function owningPod(claim: ResourceClaim): { name: string; uid: string } | undefined {
  const o = (claim.metadata.ownerReferences ?? []).find(
    (r) => r.controller && r.apiVersion === 'v1' && r.kind === 'Pod',
  );
  return o ? { name: o.name, uid: o.uid } : undefined;
}

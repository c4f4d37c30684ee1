/**
 * `kubesim explain` per ResourceClaim: for each of a pending pod's claims, what PreFilter says of it
 * (missing, being deleted, not the pod's, in use, a class that does not exist), and on each node
 * what Filter would find for that claim alone — the devices it would get, or DynamicResources'
 * v1.34 reason (`cannot allocate all claims`, `resourceclaim not available on the node`) with, per
 * request, how many of the node's devices exist, are selected by the class's and the request's CEL
 * selectors, and are not allocated to other claims. Upstream's Filter reports only the node's
 * reason; the per-request counts are kubesim's, read through the same allocator. Claims that each
 * fit alone may still not fit together: the node's verdict in the main table is the pod's.
 */
import {
  claimCanBeReserved,
  claimIsForPod,
  claimIsReservedForPod,
  claimKeyOf,
  claimNameFor,
  podResourceClaims,
} from '../../../api/resource-claims.js';
import { nodeSelectorTermsMatch } from '../../../api/node-affinity.js';
import type { ResourceClaim } from '../../../api/resource-types.js';
import type { Pod } from '../../../api/types.js';
import type { ClaimExplanation, ClaimOnNode } from '../../framework/explain.js';
import type { NodeInfo } from '../../framework/snapshot.js';
import { AllocationError, Allocator } from './allocator.js';
import type { ClaimsView } from './claims-view.js';

/** upstream's reason texts (plugin.ts re-exports them) */
export const REASON_CANNOT_ALLOCATE = 'cannot allocate all claims';
export const REASON_NOT_AVAILABLE = 'resourceclaim not available on the node';
export const REASON_IN_USE = 'resourceclaim in use';

/** Every claim of `pod` on every node of `nodes`; `view` is synced with the cluster's objects. */
export function explainClaims(view: ClaimsView, pod: Pod, nodes: readonly NodeInfo[]): ClaimExplanation[] {
  return podResourceClaims(pod).map((pc) => {
    const n = claimNameFor(pod, pc);
    if (n.error) return { podClaim: pc.name, state: 'unusable', message: n.error };
    if (n.name === undefined) return { podClaim: pc.name, state: 'unusable', message: 'no claim is needed' };
    const claim = view.claims.get(claimKeyOf(pod.metadata.namespace, n.name));
    const unusable = (message: string): ClaimExplanation => ({
      podClaim: pc.name,
      claim: n.name,
      state: 'unusable',
      message,
    });
    if (!claim) return unusable(`resourceclaim.resource.k8s.io "${n.name}" not found`);
    if (claim.metadata.deletionTimestamp) return unusable(`resourceclaim "${n.name}" is being deleted`);
    if (n.mustCheckOwner) {
      const e = claimIsForPod(pod, claim);
      if (e) return unusable(e);
    }
    const alloc = claim.status?.allocation;
    if (alloc) {
      if (!claimCanBeReserved(claim) && !claimIsReservedForPod(pod, claim)) return unusable(REASON_IN_USE);
      const terms = alloc.nodeSelector?.nodeSelectorTerms;
      return {
        podClaim: pc.name,
        claim: n.name,
        state: 'allocated',
        devices: (alloc.devices?.results ?? []).map((r) => `${r.driver}/${r.pool}/${r.device}`),
        nodes: nodes.map((ni) =>
          !terms || nodeSelectorTermsMatch(terms, ni.node)
            ? { node: ni.name }
            : { node: ni.name, reason: REASON_NOT_AVAILABLE },
        ),
      };
    }
    return pendingClaim(view, pc.name, claim, nodes);
  });
}

/** an unallocated claim alone on each node */
function pendingClaim(
  view: ClaimsView,
  podClaim: string,
  claim: ResourceClaim,
  nodes: readonly NodeInfo[],
): ClaimExplanation {
  const out: ClaimExplanation = { podClaim, claim: claim.metadata.name, state: 'pending', nodes: [] };
  for (const r of claim.spec.devices?.requests ?? [])
    for (const cls of r.firstAvailable?.length
      ? r.firstAvailable.map((x) => x.deviceClassName)
      : [r.exactly?.deviceClassName])
      if (cls && !view.classes.has(cls))
        return {
          ...out,
          state: 'unusable',
          nodes: undefined,
          message: `request ${r.name}: device class ${cls} does not exist`,
        };
  const allocator = new Allocator({
    claims: [claim],
    allocated: view.allocatedIds,
    classes: (n) => view.classes.get(n),
    slicesFor: (n) => view.slicesFor(n),
    poolsFor: (n) => view.poolsFor(n),
    slicesOfPool: view.slicesOfPool,
  });
  try {
    for (const ni of nodes) {
      const a = allocator.allocate(ni.node)?.[0];
      const e: ClaimOnNode = { node: ni.name, requests: allocator.census(ni.node)[0] };
      if (a) e.devices = (a.devices?.results ?? []).map((x) => `${x.pool}/${x.device}`);
      else e.reason = REASON_CANNOT_ALLOCATE;
      out.nodes!.push(e);
    }
  } catch (err) {
    if (!(err instanceof AllocationError)) throw err;
    return { ...out, state: 'unusable', nodes: undefined, message: err.message };
  }
  return out;
}

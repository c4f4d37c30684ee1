/**
 * The kubelet's DRA manager, as far as a pod's start-up depends on it (upstream:
 * pkg/kubelet/cm/dra/manager.go prepareResources, called by kuberuntime SyncPod before the pod
 * sandbox is created):
 *
 * 1. Each of the pod's claims is fetched from the ApiServer (a GET, as upstream does); a generated
 *    claim must be owned by the pod, the claim must list the pod in `status.reservedFor` and be
 *    allocated — otherwise the pod does not start: the kubelet records FailedPrepareDynamicResources
 *    and tries again later.
 * 2. Every driver named by the claims' allocation results prepares them (NodePrepareResources, one
 *    call per driver, one after the other): each call takes a seeded log-normal latency per driver.
 *
 * Simplified: no claim-info cache or checkpoint (a pod's claims are prepared each time it starts),
 * every driver is registered, NodeUnprepareResources on termination takes no time, CDI devices are
 * not injected into containers.
 */
import {
  claimIsForPod,
  claimIsReservedForPod,
  claimNameFor,
  podResourceClaims,
} from '../api/resource-claims.js';
import type { ResourceClaim } from '../api/resource-types.js';
import type { Pod } from '../api/types.js';
import type { ApiClient } from '../client/api.js';
import type { Latency } from './settings.js';

/** NodePrepareResources when the scenario names no latency for a driver: about half a second */
export const DEFAULT_PREPARE_LATENCY: Latency = { medianMs: 500, sigma: 0.3 };

/**
 * The pod worker's retry after a failed sync (pod_workers.go backOffPeriod 10 s, jittered by up to
 * half of it): a pod whose claims cannot be prepared is tried again this long after.
 */
export const PREPARE_RETRY_MS = 10_000;

/** The event reason and message prefix kuberuntime SyncPod records when preparation fails. */
export const FAILED_PREPARE_REASON = 'FailedPrepareDynamicResources';

/**
 * upstream prepareResources' checks: the drivers to call (in the order their results first appear),
 * or the error that keeps the pod from starting (wrapped as the kubelet's event message is).
 */
export async function claimsToPrepare(
  api: ApiClient,
  pod: Pod,
): Promise<{ drivers: string[]; error?: undefined } | { error: string }> {
  const drivers: string[] = [];
  const ns = pod.metadata.namespace ?? 'default';
  try {
    for (const pc of podResourceClaims(pod)) {
      const r = claimNameFor(pod, pc);
      if (r.error) throw new Error(r.error);
      if (r.name === undefined) continue;
      let claim: ResourceClaim;
      try {
        claim = await api.get<ResourceClaim>('resourceclaims', ns, r.name);
      } catch (err) {
        throw new Error(`fetch ResourceClaim ${r.name}: ${(err as Error).message}`);
      }
      if (r.mustCheckOwner) {
        const notOwner = claimIsForPod(pod, claim);
        if (notOwner) throw new Error(notOwner);
      }
      if (!claimIsReservedForPod(pod, claim))
        throw new Error(
          `pod ${pod.metadata.name} (${pod.metadata.uid}) is not allowed to use ResourceClaim ${r.name} (${claim.metadata.uid})`,
        );
      // newClaimInfoFromClaim
      const allocation = claim.status?.allocation;
      if (!allocation) throw new Error(`ResourceClaim ${r.name}: not allocated`);
      for (const res of allocation.devices?.results ?? [])
        if (!drivers.includes(res.driver)) drivers.push(res.driver);
    }
  } catch (err) {
    return {
      error: `Failed to prepare dynamic resources: prepare dynamic resources: ${(err as Error).message}`,
    };
  }
  return { drivers };
}

/** The latency of one driver's NodePrepareResources: its own, else `default`, else {@link DEFAULT_PREPARE_LATENCY}. */
export function prepareLatency(
  latencies: Readonly<Record<string, Latency>> | undefined,
  driver: string,
): Latency {
  return latencies?.[driver] ?? latencies?.default ?? DEFAULT_PREPARE_LATENCY;
}

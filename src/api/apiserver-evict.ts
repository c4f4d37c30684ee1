/**
 * The pods/eviction subresource (upstream: pkg/registry/core/pod/storage/eviction.go, v1.34): a
 * DELETE of the pod that first asks the PodDisruptionBudget covering it, through the budget's
 * status as the disruption controller wrote it.
 *
 * 1. A pod that is not running (Pending, Succeeded, Failed) or already terminating is deleted without
 *    asking (canIgnorePDB).
 * 2. Its budget: the one PDB in the namespace whose selector matches the pod ({@link pdbSelectsPod});
 *    two or more is a 500, as upstream.
 * 3. An unhealthy (not Ready) pod: with `unhealthyPodEvictionPolicy: AlwaysAllow` it is deleted; with
 *    IfHealthyBudget (the default) it is deleted when the budget is healthy (currentHealthy ≥
 *    desiredHealthy > 0) — in both cases without spending a disruption.
 * 4. Otherwise (checkAndDecrement): a budget the controller has not yet processed
 *    (observedGeneration < generation) or with disruptionsAllowed 0 answers 429 with a
 *    DisruptionBudget cause; else disruptionsAllowed is decremented and the pod recorded in
 *    status.disruptedPods (a compare-and-swap on the budget, retried on conflict) before the DELETE.
 */
import type { ApiServer } from './apiserver.js';
import type { PodDisruptionBudget } from './batch-types.js';
import { ApiError, forbidden, notFound, tooManyRequests } from './errors.js';
import { SelectorError, labelSelectorAsSelector } from './label-selector.js';
import type { LabelSelector, Labels, Pod } from './types.js';
import { rfc3339 } from './time.js';

/** MaxDisruptedPodSize */
const MAX_DISRUPTED_POD_SIZE = 2000;
/** retries of the budget's compare-and-swap (EvictionsRetry: 5 steps) */
const CAS_RETRIES = 5;

export interface EvictionOptions {
  deleteOptions?: { gracePeriodSeconds?: number; preconditions?: { uid?: string; resourceVersion?: string } };
}

/**
 * Does a PodDisruptionBudget cover the pod? An invalid, missing or empty selector covers nothing
 * (upstream: eviction.go getPodDisruptionBudgets, "a PDB with a nil or empty selector … should match
 * nothing, not everything"). The disruption controller, preemption and drain use the same rule.
 */
export function pdbSelectsPod(selector: LabelSelector | undefined, labels: Labels | undefined): boolean {
  let sel;
  try {
    sel = labelSelectorAsSelector(selector);
  } catch (e) {
    if (e instanceof SelectorError) return false;
    throw e;
  }
  return !sel.empty && sel.matches(labels);
}

const isReady = (p: Pod) => !!p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

/** the 429 of a budget that allows no disruption now: no Retry-After, the caller decides when */
function budgetError(message: string): ApiError {
  const e = tooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0);
  (e.details as { causes?: unknown[] }).causes = [{ reason: 'DisruptionBudget', message }];
  return e;
}

/** is this the 429 of a disruption budget (not of API flow control)? */
export function isBudgetError(err: unknown): boolean {
  const causes = (err as { details?: { causes?: { reason?: string }[] } })?.details?.causes;
  return (err as { code?: number })?.code === 429 && !!causes?.some((c) => c.reason === 'DisruptionBudget');
}

/** POST pods/<name>/eviction: resolves once the pod is deleted (or marked), throws the ApiError otherwise */
export async function evictPod(
  api: ApiServer,
  ns: string,
  name: string,
  eviction?: EvictionOptions,
): Promise<void> {
  const pod = await api.get<Pod>('pods', ns, name);
  const opts = eviction?.deleteOptions ?? {};
  const phase = pod.status?.phase;
  const ignoreBudgets =
    phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata.deletionTimestamp;
  if (!ignoreBudgets) await spendDisruption(api, ns, pod);
  try {
    await api.delete('pods', ns, name, {
      gracePeriodSeconds: opts.gracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30,
      preconditions: opts.preconditions,
    });
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) throw notFound({ name: 'pods', group: '' }, name);
    throw e;
  }
}

async function spendDisruption(api: ApiServer, ns: string, pod: Pod): Promise<void> {
  const name = pod.metadata.name!;
  for (let attempt = 0; ; attempt++) {
    const pdbs = (await api.list<PodDisruptionBudget>('poddisruptionbudgets', { namespace: ns })).items;
    const matching = pdbs.filter((p) => pdbSelectsPod(p.spec?.selector, pod.metadata.labels));
    if (matching.length > 1)
      throw new ApiError(
        500,
        'InternalError',
        'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
        {},
      );
    const pdb = matching[0];
    if (!pdb) return;
    const st = pdb.status;
    if (!isReady(pod)) {
      if (pdb.spec.unhealthyPodEvictionPolicy === 'AlwaysAllow') return;
      if (st && st.desiredHealthy > 0 && st.currentHealthy >= st.desiredHealthy) return;
    }
    if ((st?.observedGeneration ?? 0) < (pdb.metadata.generation ?? 1))
      throw budgetError(`The disruption budget ${pdb.metadata.name} is still being processed by the server.`);
    const allowed = st?.disruptionsAllowed ?? 0;
    if (allowed < 0)
      throw forbidden({ name: 'pods', group: '' }, name, 'pdb disruptions allowed is negative');
    if (Object.keys(st?.disruptedPods ?? {}).length > MAX_DISRUPTED_POD_SIZE)
      throw forbidden(
        { name: 'pods', group: '' },
        name,
        'DisruptedPods map too big - too many evictions not confirmed by PDB controller',
      );
    if (allowed === 0)
      throw budgetError(
        `The disruption budget ${pdb.metadata.name} needs ${st?.desiredHealthy ?? 0} healthy pods and has ${st?.currentHealthy ?? 0} currently`,
      );
    const next: PodDisruptionBudget = {
      ...pdb,
      status: {
        ...st!,
        disruptionsAllowed: allowed - 1,
        disruptedPods: { ...(st?.disruptedPods ?? {}), [name]: rfc3339(api.clock.now()) },
      },
    };
    try {
      await api.updateStatus(next);
      return;
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 409) || attempt >= CAS_RETRIES) throw e;
    }
  }
}

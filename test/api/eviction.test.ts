/**
 * The Eviction subresource against a budget's status (upstream: pkg/registry/core/pod/storage/
 * eviction.go, v1.34): checkAndDecrement, the unhealthy-pod policies, a budget not yet observed.
 */
import { describe, expect, it } from 'vitest';
import { ApiServer } from '../../src/api/apiserver.js';
import { evictPod, isBudgetError } from '../../src/api/apiserver-evict.js';
import type { PodDisruptionBudget } from '../../src/api/batch-types.js';
import type { Pod } from '../../src/api/types.js';
import { MemoryStore } from '../../src/store/memory/store.js';
import { ManualClock } from '../../src/util/clock.js';

async function bed(
  status: Partial<NonNullable<PodDisruptionBudget['status']>>,
  policy?: 'IfHealthyBudget' | 'AlwaysAllow',
) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const api = new ApiServer(new MemoryStore({ clock }), { clock });
  await api.bootstrapNamespaces();
  const pod = async (name: string, phase: 'Running' | 'Pending', ready: boolean) => {
    const p = await api.create<Pod>({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default', labels: { app: 'web' } },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    await api.updateStatus<Pod>({
      ...p,
      status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
    });
  };
  const pdb = await api.create<PodDisruptionBudget>({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'web', namespace: 'default' },
    spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } }, unhealthyPodEvictionPolicy: policy },
  });
  await api.updateStatus<PodDisruptionBudget>({
    ...pdb,
    status: {
      disruptionsAllowed: 0,
      currentHealthy: 2,
      desiredHealthy: 2,
      expectedPods: 3,
      observedGeneration: 1,
      ...status,
    },
  });
  const budget = () => api.get<PodDisruptionBudget>('poddisruptionbudgets', 'default', 'web');
  const gone = async (name: string) =>
    api.get<Pod>('pods', 'default', name).then(
      (p) => !!p.metadata.deletionTimestamp,
      () => true,
    );
  return { api, pod, budget, gone };
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'evicted',
    (e) =>
      isBudgetError(e) ? (e as { details: { causes: { message: string }[] } }).details.causes[0].message : e,
  );

describe('pods/eviction', () => {
  it('spends one disruption, records the pod in disruptedPods, then answers 429', async () => {
    const b = await bed({ disruptionsAllowed: 1, currentHealthy: 3 });
    await b.pod('a', 'Running', true);
    await b.pod('b', 'Running', true);
    expect(await refusal(evictPod(b.api, 'default', 'a'))).toBe('evicted');
    expect(await b.gone('a')).toBe(true);
    const s = (await b.budget()).status!;
    expect(s.disruptionsAllowed).toBe(0);
    expect(Object.keys(s.disruptedPods ?? {})).toEqual(['a']);
    expect(await refusal(evictPod(b.api, 'default', 'b'))).toBe(
      'The disruption budget web needs 2 healthy pods and has 3 currently',
    );
    expect(await b.gone('b')).toBe(false);
  });

  it('a Pending pod is evicted without asking the budget', async () => {
    const b = await bed({});
    await b.pod('p', 'Pending', false);
    expect(await refusal(evictPod(b.api, 'default', 'p'))).toBe('evicted');
  });

  it('IfHealthyBudget: an unready pod goes while the budget is healthy, not otherwise', async () => {
    const healthy = await bed({ currentHealthy: 2, desiredHealthy: 2 });
    await healthy.pod('u', 'Running', false);
    expect(await refusal(evictPod(healthy.api, 'default', 'u'))).toBe('evicted');
    expect((await healthy.budget()).status!.disruptionsAllowed).toBe(0);
    const unhealthy = await bed({ currentHealthy: 1, desiredHealthy: 2 });
    await unhealthy.pod('u', 'Running', false);
    expect(await refusal(evictPod(unhealthy.api, 'default', 'u'))).toMatch(/needs 2 healthy pods and has 1/);
  });

  it('AlwaysAllow: an unready pod goes even under an unhealthy budget', async () => {
    const b = await bed({ currentHealthy: 1, desiredHealthy: 2 }, 'AlwaysAllow');
    await b.pod('u', 'Running', false);
    expect(await refusal(evictPod(b.api, 'default', 'u'))).toBe('evicted');
  });

  it('a budget the controller has not processed yet answers 429', async () => {
    const b = await bed({ disruptionsAllowed: 1, observedGeneration: 0 });
    await b.pod('a', 'Running', true);
    expect(await refusal(evictPod(b.api, 'default', 'a'))).toBe(
      'The disruption budget web is still being processed by the server.',
    );
  });
});

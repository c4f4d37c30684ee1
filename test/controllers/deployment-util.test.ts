// Upstream's own tables: pkg/controller/deployment/rolling_test.go and util/deployment_util_test.go.
import { describe, it, expect } from 'vitest';
import type { Deployment, ReplicaSet } from '../../src/api/types.js';
import {
  planNewReplicaSet,
  planOldReplicaSets,
  resolveFenceposts,
  maxSurge,
  maxUnavailable,
} from '../../src/controllers/deployment-util.js';

const d = (replicas: number, surge: number | string, unavailable: number | string): Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'foo', namespace: 'default' },
  spec: {
    replicas,
    selector: {},
    template: { spec: { containers: [] } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } },
  },
});
const rs = (name: string, replicas: number, available = 0, created = 0): ReplicaSet => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name, namespace: 'default', creationTimestamp: new Date(created).toISOString() },
  spec: { replicas, selector: {}, template: { spec: { containers: [] } } },
  status: { replicas, availableReplicas: available },
});

describe('ResolveFenceposts (deployment_util_test.go)', () => {
  it.each([
    ['0%', '0%', 0, 0, 1],
    ['39%', '39%', 10, 4, 3],
    ['0%', '0%', 10, 0, 1],
    [0, 0, 10, 0, 1],
    [1, 0, 10, 1, 0],
    ['25%', '25%', 10, 3, 2],
    ['25%', '25%', 1, 1, 0],
    ['25%', '25%', 3, 1, 0],
  ] as const)(
    'maxSurge %s maxUnavailable %s desired %i → surge %i unavailable %i',
    (s, u, desired, es, eu) => {
      expect(resolveFenceposts(s, u, desired)).toEqual([es, eu]);
    },
  );
  it('rejects values that are neither ints nor percentages', () => {
    expect(() => resolveFenceposts('oops', '0%', 10)).toThrow(/invalid value/);
    expect(() => resolveFenceposts('55%', 'urg', 10)).toThrow(/invalid value/);
  });
  it('MaxUnavailable never exceeds replicas; 0 for Recreate', () => {
    expect(maxUnavailable(d(1, 0, 5))).toBe(1);
    const r = d(10, 3, 3);
    r.spec.strategy = { type: 'Recreate' };
    expect(maxUnavailable(r)).toBe(0);
    expect(maxSurge(r)).toBe(0);
  });
});

describe('reconcileNewReplicaSet (rolling_test.go)', () => {
  it.each([
    [10, 0, 10, 0, undefined],
    [10, 2, 10, 0, 2],
    [10, 2, 5, 0, 7],
    [10, 2, 10, 2, undefined],
    [10, 2, 2, 11, 10],
  ] as const)('replicas %i surge %i old %i new %i → %s', (replicas, surge, oldR, newR, expected) => {
    const newRS = rs('foo-v2', newR);
    const oldRS = rs('foo-v1', oldR);
    expect(planNewReplicaSet(d(replicas, surge, 0), [newRS, oldRS], newRS)).toBe(expected);
  });
});

describe('reconcileOldReplicaSets (rolling_test.go)', () => {
  it.each([
    [10, 0, 10, 0, 10, 0, 9],
    [10, 2, 10, 0, 10, 0, 8],
    [10, 2, 10, 0, 8, 0, 8],
    [10, 2, 10, 0, 9, 0, 8],
    [10, 2, 8, 2, 8, 0, undefined],
  ] as const)(
    'replicas %i maxUnavailable %i old %i new %i readyOld %i readyNew %i → old %s',
    (replicas, mu, oldR, newR, readyOld, readyNew, expected) => {
      const newRS = rs('foo-new', newR, readyNew, 2);
      const oldRS = rs('foo-old', oldR, readyOld, 1);
      const plan = planOldReplicaSets(d(replicas, 0, mu), [oldRS, newRS], [oldRS], newRS);
      expect(plan.get('foo-old')).toBe(expected);
    },
  );
  it('cleanupUnhealthyReplicas removes at most maxScaledDown unhealthy pods (cleanupUnhealthyReplicas table)', () => {
    // old 10 (8 available), maxSurge 2 maxUnavailable 2, new RS absent: allPods 10, minAvailable 8 → maxScaledDown 2
    const oldRS = rs('foo-v2', 10, 8);
    expect(planOldReplicaSets(d(10, 2, 2), [oldRS], [oldRS], undefined).get('foo-v2')).toBe(8);
  });
  it.each([
    // upstream's scaleDownOldReplicaSetsForRollingUpdate table; in the last column the combined
    // reconcile result: where upstream's scale-down alone does nothing because pods are unready,
    // the cleanup step (cleanupUnhealthyReplicas) still removes up to maxScaledDown unhealthy ones.
    [10, 0, 10, 10, 9],
    [10, 2, 10, 10, 8],
    [10, 2, 8, 10, 8],
    [10, 2, 10, 0, undefined],
    [10, 2, 1, 10, 8],
  ] as const)('scale-down: replicas %i mu %i ready %i old %i → %s', (replicas, mu, ready, oldR, expected) => {
    const oldRS = rs('foo-v2', oldR, ready);
    const plan = planOldReplicaSets(d(replicas, 0, mu), [oldRS], [oldRS], undefined);
    expect(plan.get('foo-v2')).toBe(expected);
  });
});

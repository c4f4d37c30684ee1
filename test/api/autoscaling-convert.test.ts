// autoscaling/v1 HorizontalPodAutoscaler stored as v2 by the ApiServer (api/autoscaling-convert.ts
// via applyDefaults) and shown as v1 again (hpaToV1, what `kubesim serve` answers at
// /apis/autoscaling/v1): v1 → v2 → v1 reads back what was written, and v2's extra metrics,
// behavior, current metrics and conditions ride in v1's annotations, as upstream's conversion
// (pkg/apis/autoscaling/v1/conversion.go) keeps them.
import { describe, expect, it } from 'vitest';
import { ApiServer } from '../../src/api/apiserver.js';
import { hpaToV1 } from '../../src/api/autoscaling-convert.js';
import type { KubeObject } from '../../src/api/types.js';
import { MemoryStore } from '../../src/store/memory/store.js';

const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

describe('autoscaling/v1 HorizontalPodAutoscaler', () => {
  it('is stored as v2 with the CPU target as a Utilization metric, and reads back as v1', async () => {
    const api = new ApiServer(new MemoryStore());
    await api.bootstrapNamespaces();
    const v1 = {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'default' },
      spec: { scaleTargetRef: ref, minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 70 },
    };
    const stored = (await api.create(v1 as KubeObject)) as any;
    expect(stored.apiVersion).toBe('autoscaling/v2');
    expect(stored.spec).toEqual({
      scaleTargetRef: ref,
      minReplicas: 2,
      maxReplicas: 5,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
        },
      ],
    });
    expect(hpaToV1(stored).spec).toEqual(v1.spec);
    expect(hpaToV1(stored).metadata.annotations).toBeUndefined();

    // without a target: v2's defaults (1 replica at least, 80 % CPU), shown in v1 as the CPU target
    const bare = (await api.create({
      ...v1,
      metadata: { name: 'bare', namespace: 'default' },
      spec: { scaleTargetRef: ref, maxReplicas: 3 },
    } as KubeObject)) as any;
    expect(hpaToV1(bare).spec).toEqual({
      scaleTargetRef: ref,
      minReplicas: 1,
      maxReplicas: 3,
      targetCPUUtilizationPercentage: 80,
    });
  });

  it("v2's other metrics, behavior, current metrics and conditions survive a v1 round trip in annotations", () => {
    const memory = {
      type: 'Resource',
      resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } },
    };
    const cpu = {
      type: 'Resource',
      resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } },
    };
    const behavior = { scaleDown: { stabilizationWindowSeconds: 30 } };
    const currentMetrics = [
      {
        type: 'Resource',
        resource: { name: 'cpu', current: { averageUtilization: 42, averageValue: '42m' } },
      },
    ];
    const conditions = [{ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale' }];
    const v2 = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'default', annotations: { team: 'a' } },
      spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 4, metrics: [cpu, memory], behavior },
      status: { currentReplicas: 2, desiredReplicas: 2, currentMetrics, conditions },
    };
    const v1 = hpaToV1(v2);
    expect(v1.spec).toEqual({
      scaleTargetRef: ref,
      minReplicas: 1,
      maxReplicas: 4,
      targetCPUUtilizationPercentage: 60,
    });
    expect(v1.status).toEqual({
      currentReplicas: 2,
      desiredReplicas: 2,
      currentCPUUtilizationPercentage: 42,
    });
    expect(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics'])).toEqual([memory]);
    expect(v1.metadata.annotations.team).toBe('a');
    // back through the ApiServer's defaulting path
    const api = new ApiServer(new MemoryStore());
    return api.bootstrapNamespaces().then(async () => {
      const again = (await api.create(v1 as KubeObject)) as any;
      expect(again.spec).toEqual(v2.spec);
      expect(again.metadata.annotations).toEqual({ team: 'a' });
    });
  });
});

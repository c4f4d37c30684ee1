import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { podFromWorkload, assertPod, WorkloadError, type Pod, type PodSpec } from '../../src/api/index.js';
import { loadClusterFiles } from '../../src/scheduler/index.js';
import { planCapacity, PlanError } from '../../src/capacity/index.js';

const spec: PodSpec = {
  containers: [{ name: 'api', image: 'shop/api:2.4', resources: { requests: { cpu: '1', memory: '2Gi' } } }],
};
const template = {
  metadata: { labels: { app: 'api' }, annotations: { a: 'b' }, finalizers: ['f'] },
  spec,
};
const meta = { name: 'api', namespace: 'shop', labels: { team: 'x' } };

describe('podFromWorkload (GetPodFromTemplate)', () => {
  const expected: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'api',
      generateName: 'api-',
      namespace: 'shop',
      labels: { app: 'api' },
      annotations: { a: 'b' },
      finalizers: ['f'],
    },
    spec,
  };
  it.each([
    ['Deployment', 'apps/v1'],
    ['ReplicaSet', 'apps/v1'],
    ['StatefulSet', 'apps/v1'],
    ['Job', 'batch/v1'],
    ['ReplicationController', 'v1'],
  ])(
    '%s: the template pod with the parent namespace, template metadata (not the parent labels)',
    (kind, apiVersion) => {
      const w = { apiVersion, kind, metadata: meta, spec: { replicas: 3, template } };
      const before = JSON.stringify(w);
      const pod = podFromWorkload(w);
      expect(pod).toEqual(expected);
      pod.spec.containers[0].name = 'changed';
      pod.metadata.labels!.app = 'changed';
      expect(JSON.stringify(w)).toBe(before);
    },
  );

  it('CronJob: spec.jobTemplate.spec.template; PodTemplate: template', () => {
    const cron = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: meta,
      spec: { jobTemplate: { spec: { template } } },
    };
    expect(podFromWorkload(cron)).toEqual(expected);
    expect(podFromWorkload({ apiVersion: 'v1', kind: 'PodTemplate', metadata: meta, template })).toEqual(
      expected,
    );
  });

  it('a namespace-less workload gives a pod in "default"; a Pod is returned as a copy', () => {
    const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { template } };
    expect(podFromWorkload(d).metadata.namespace).toBe('default');
    const p = podFromWorkload(expected);
    expect(p).toEqual(expected);
    expect(p).not.toBe(expected);
  });

  it('DaemonSet: the daemon tolerations in upstream order; an equal one is replaced, not doubled', () => {
    const ds = (extra: Partial<PodSpec>) => ({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: meta,
      spec: { template: { ...template, spec: { ...spec, ...extra } } },
    });
    const keys = (p: Pod) => (p.spec.tolerations ?? []).map((t) => `${t.key}:${t.effect}`);
    const daemon = [
      'node.kubernetes.io/not-ready:NoExecute',
      'node.kubernetes.io/unreachable:NoExecute',
      'node.kubernetes.io/disk-pressure:NoSchedule',
      'node.kubernetes.io/memory-pressure:NoSchedule',
      'node.kubernetes.io/pid-pressure:NoSchedule',
      'node.kubernetes.io/unschedulable:NoSchedule',
    ];
    expect(keys(podFromWorkload(ds({})))).toEqual(daemon);
    expect(keys(podFromWorkload(ds({ hostNetwork: true })))).toEqual([
      ...daemon,
      'node.kubernetes.io/network-unavailable:NoSchedule',
    ]);
    const own = podFromWorkload(
      ds({
        tolerations: [
          { key: 'gpu', operator: 'Exists' },
          {
            key: 'node.kubernetes.io/not-ready',
            operator: 'Exists',
            effect: 'NoExecute',
            tolerationSeconds: 60,
          },
        ],
      }),
    );
    expect(keys(own)).toEqual(['gpu:undefined', ...daemon]);
    expect(own.spec.tolerations![1]).toEqual({
      key: 'node.kubernetes.io/not-ready',
      operator: 'Exists',
      effect: 'NoExecute',
    });
  });

  it('rejects what is not a workload, and a workload without a pod template, naming kind, object and field', () => {
    expect(() => podFromWorkload({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' } })).toThrow(
      /^Service "s" is not a pod or a workload with a pod template \(Pod, Deployment, /,
    );
    expect(() =>
      podFromWorkload({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: {} }),
    ).toThrow(new WorkloadError('Deployment "d": spec.template.spec: Required value'));
    expect(() =>
      podFromWorkload({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c' } }),
    ).toThrow('CronJob "c": spec.jobTemplate.spec.template.spec: Required value');
  });

  it('assertPod: pods (with or without kind) pass, a workload is named with the way out', () => {
    expect(() => assertPod(expected, 'x')).not.toThrow();
    expect(() => assertPod({ metadata: { name: 'p' } }, 'x')).not.toThrow();
    expect(() => assertPod({ kind: 'Deployment', metadata: { name: 'd' } }, 'here')).toThrow(
      'here: Deployment "d" is not a Pod; podFromWorkload() turns it into the pod it creates',
    );
    expect(() => assertPod({ kind: 'Service', metadata: { name: 's' } }, 'here')).toThrow(
      'here: Service "s" is not a Pod',
    );
  });
});

describe('planCapacity with a workload', async () => {
  const cluster = await loadClusterFiles([
    join(__dirname, '..', '..', 'examples', 'snapshot', 'cluster.yaml'),
  ]);
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta, spec: { template } };

  it('rejects the Deployment object instead of planning it as a pod', () => {
    expect(() => planCapacity(cluster, [deployment as unknown as Pod], { kernel: 'js' })).toThrow(
      new PlanError(
        'planCapacity: shapes[0]: Deployment "api" is not a Pod; podFromWorkload() turns it into the pod it creates',
      ),
    );
  });

  it("plans the Deployment's pod like the same pod written by hand (15, test/capacity/planner.test.ts)", () => {
    const rep = planCapacity(cluster, [podFromWorkload(deployment)], { kernel: 'js' });
    expect(rep.shapes[0].shape).toBe('shop/api');
    expect(rep.shapes[0].fits).toBe(15);
  });
});

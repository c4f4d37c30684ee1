import { describe, it, expect } from 'vitest';
import type { Deployment, Pod, ReplicaSet } from '../../src/api/types.js';
import {
  ReplicaSetController,
  rankPodsForDeletion,
  slowStartBatch,
} from '../../src/controllers/replicaset.js';
import { DeploymentController, rollbackDeployment } from '../../src/controllers/deployment.js';
import { REVISION_ANNOTATION, POD_TEMPLATE_HASH_LABEL } from '../../src/controllers/deployment-util.js';
import { bed, deployment, readyAll, settleN } from './harness.js';

const live = (pods: Pod[]) => pods.filter((p) => !p.metadata.deletionTimestamp);
const isReady = (p: Pod) => !!p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

describe('slowStartBatch', () => {
  it('runs 1, 2, 4, … and stops after the first failing batch', async () => {
    const calls: number[] = [];
    const r = await slowStartBatch(10, 1, async (i) => {
      calls.push(i);
      if (i === 4) throw new Error('x');
    });
    expect(calls).toEqual([0, 1, 2, 3, 4, 5, 6]); // batches [0] [1,2] [3..6]
    expect(r.successes).toBe(6);
    expect(r.error).toBeInstanceOf(Error);
  });
});

describe('rankPodsForDeletion', () => {
  it('prefers unscheduled, then pending, then not-ready, then doubled-up nodes, then newer', () => {
    const p = (name: string, node: string | undefined, phase: string, ready: boolean, created = 0): Pod => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, creationTimestamp: new Date(created).toISOString() },
      spec: { nodeName: node, containers: [] },
      status: {
        phase: phase as 'Running',
        conditions: [
          { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: new Date(0).toISOString() },
        ],
      },
    });
    const pods = [
      p('ready-n1', 'n1', 'Running', true),
      p('ready-n2a', 'n2', 'Running', true, 5),
      p('ready-n2b', 'n2', 'Running', true, 9),
      p('notready', 'n3', 'Running', false),
      p('pending', 'n4', 'Pending', false),
      p('unsched', undefined, 'Pending', false),
    ];
    expect(rankPodsForDeletion(pods, pods, 1000).map((x) => x.metadata.name)).toEqual([
      'unsched',
      'pending',
      'notready',
      'ready-n2b',
      'ready-n2a',
      'ready-n1',
    ]);
  });
});

describe('ReplicaSet controller', () => {
  it('creates pods with owner refs to match replicas, scales down, reports status', async () => {
    const { api, clock, informers, deps } = bed();
    const c = new ReplicaSetController(deps);
    await informers.start();
    c.run();
    await api.create<ReplicaSet>('replicasets', {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 5,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c' }] } },
      },
    });
    await settleN(10);
    let pods = (await api.list<Pod>('pods')).items;
    expect(pods.length).toBe(5);
    expect(
      pods.every(
        (p) =>
          p.metadata.ownerReferences?.[0].kind === 'ReplicaSet' && p.metadata.ownerReferences[0].controller,
      ),
    ).toBe(true);
    expect(pods.every((p) => /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/.test(p.metadata.name!))).toBe(true);
    await readyAll(api, clock.now());
    await settleN(10);
    const rs = await api.get<ReplicaSet>('replicasets', 'default', 'web');
    expect(rs.status).toMatchObject({
      replicas: 5,
      readyReplicas: 5,
      availableReplicas: 5,
      fullyLabeledReplicas: 5,
    });
    rs.spec.replicas = 2;
    await api.update('replicasets', rs);
    await settleN(10);
    pods = (await api.list<Pod>('pods')).items;
    expect(pods.length).toBe(2);
    // a pod deleted from outside is replaced
    await api.delete('pods', 'default', pods[0].metadata.name!);
    await settleN(10);
    expect((await api.list<Pod>('pods')).items.length).toBe(2);
    await c.stop();
    informers.stop();
  });
});

describe('Deployment controller', () => {
  async function setup(d: Deployment) {
    const b = bed();
    const rsc = new ReplicaSetController(b.deps);
    const dc = new DeploymentController(b.deps);
    await b.informers.start();
    rsc.run();
    dc.run();
    await b.api.create('deployments', d);
    return {
      ...b,
      stop: async () => {
        await rsc.stop();
        await dc.stop();
        b.informers.stop();
      },
    };
  }

  /** drive to convergence with a perfect kubelet; check the rollout bounds at every step */
  async function converge(
    env: Awaited<ReturnType<typeof setup>>,
    bounds?: { maxTotal: number; minAvailable: number },
  ) {
    let minReady = Infinity,
      maxTotal = 0;
    for (let i = 0; i < 60; i++) {
      await settleN(4);
      const pods = live((await env.api.list<Pod>('pods')).items);
      maxTotal = Math.max(maxTotal, pods.length);
      minReady = Math.min(minReady, pods.filter(isReady).length);
      if (bounds) {
        expect(pods.length).toBeLessThanOrEqual(bounds.maxTotal);
        expect(pods.filter(isReady).length).toBeGreaterThanOrEqual(bounds.minAvailable);
      }
      // ready one pod per step so the rollout proceeds in many small steps
      const notReady = pods
        .filter((p) => !isReady(p))
        .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
      if (notReady.length)
        await readyAll(env.api, env.clock.now(), (p) => p.metadata.name === notReady[0].metadata.name);
      env.clock.advance(1000);
    }
    return { minReady, maxTotal };
  }

  it('creates a ReplicaSet with pod-template-hash and revision 1, then rolls out within maxSurge/maxUnavailable', async () => {
    const env = await setup(
      deployment('web', 10, 'nginx:1', {
        type: 'RollingUpdate',
        rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' },
      }),
    );
    await converge(env);
    let rss = (await env.api.list<ReplicaSet>('replicasets')).items;
    expect(rss.length).toBe(1);
    const hash = rss[0].spec.template.metadata!.labels![POD_TEMPLATE_HASH_LABEL];
    expect(rss[0].metadata.name).toBe(`web-${hash}`);
    expect(rss[0].spec.selector.matchLabels![POD_TEMPLATE_HASH_LABEL]).toBe(hash);
    expect(rss[0].metadata.annotations![REVISION_ANNOTATION]).toBe('1');
    expect(live((await env.api.list<Pod>('pods')).items).filter(isReady).length).toBe(10);

    // roll out a new image: surge 25% of 10 → 3 (up), unavailable 25% → 2 (down)
    const d = await env.api.get<Deployment>('deployments', 'default', 'web');
    d.spec.template.spec.containers[0].image = 'nginx:2';
    await env.api.update('deployments', d);
    const seen = await converge(env, { maxTotal: 13, minAvailable: 8 });
    expect(seen.maxTotal).toBe(13); // it did use the surge
    rss = (await env.api.list<ReplicaSet>('replicasets')).items;
    expect(rss.length).toBe(2);
    const newRS = rss.find((r) => r.metadata.annotations![REVISION_ANNOTATION] === '2')!;
    expect(newRS.spec.replicas).toBe(10);
    expect(rss.find((r) => r !== newRS)!.spec.replicas).toBe(0);
    const pods = live((await env.api.list<Pod>('pods')).items);
    expect(pods.length).toBe(10);
    expect(pods.every((p) => p.spec.containers[0].image === 'nginx:2')).toBe(true);
    const dd = await env.api.get<Deployment>('deployments', 'default', 'web');
    expect(dd.metadata.annotations![REVISION_ANNOTATION]).toBe('2');
    expect(dd.status).toMatchObject({ replicas: 10, updatedReplicas: 10, availableReplicas: 10 });

    // rollback to revision 1: the old ReplicaSet comes back as revision 3
    expect(await rollbackDeployment(env.api, 'default', 'web')).toBe(1);
    await converge(env, { maxTotal: 13, minAvailable: 8 });
    const back = (await env.api.list<ReplicaSet>('replicasets')).items;
    expect(back.length).toBe(2);
    const active = back.find((r) => r.spec.replicas === 10)!;
    expect(active.metadata.annotations![REVISION_ANNOTATION]).toBe('3');
    expect(active.spec.template.spec.containers[0].image).toBe('nginx:1');
    await env.stop();
  });

  it('maxUnavailable 0 never drops below replicas ready; maxSurge 0 never exceeds replicas', async () => {
    for (const [surge, unavail, bounds] of [
      [1, 0, { maxTotal: 5, minAvailable: 4 }],
      [0, 1, { maxTotal: 4, minAvailable: 3 }],
    ] as const) {
      const env = await setup(
        deployment('api', 4, 'v1', {
          type: 'RollingUpdate',
          rollingUpdate: { maxSurge: surge, maxUnavailable: unavail },
        }),
      );
      await converge(env);
      const d = await env.api.get<Deployment>('deployments', 'default', 'api');
      d.spec.template.spec.containers[0].image = 'v2';
      await env.api.update('deployments', d);
      await converge(env, bounds);
      const pods = live((await env.api.list<Pod>('pods')).items);
      expect(pods.map((p) => p.spec.containers[0].image)).toEqual(['v2', 'v2', 'v2', 'v2']);
      await env.stop();
    }
  });

  it('Recreate scales the old ReplicaSet to zero before creating new pods', async () => {
    const env = await setup(deployment('db', 3, 'pg:1', { type: 'Recreate' }));
    await converge(env);
    const d = await env.api.get<Deployment>('deployments', 'default', 'db');
    d.spec.template.spec.containers[0].image = 'pg:2';
    await env.api.update('deployments', d);
    let mixed = false;
    for (let i = 0; i < 30; i++) {
      await settleN(4);
      const images = new Set(
        live((await env.api.list<Pod>('pods')).items).map((p) => p.spec.containers[0].image),
      );
      if (images.size > 1) mixed = true;
      await readyAll(env.api, env.clock.now());
      env.clock.advance(1000);
    }
    expect(mixed).toBe(false);
    const pods = live((await env.api.list<Pod>('pods')).items);
    expect(pods.length).toBe(3);
    expect(pods.every((p) => p.spec.containers[0].image === 'pg:2')).toBe(true);
    await env.stop();
  });

  it('scaling a deployment resizes its ReplicaSet', async () => {
    const env = await setup(deployment('s', 2, 'x'));
    await converge(env);
    const d = await env.api.get<Deployment>('deployments', 'default', 's');
    d.spec.replicas = 7;
    await env.api.update('deployments', d);
    await converge(env);
    expect(live((await env.api.list<Pod>('pods')).items).length).toBe(7);
    expect((await env.api.list<ReplicaSet>('replicasets')).items.length).toBe(1);
    await env.stop();
  });
});

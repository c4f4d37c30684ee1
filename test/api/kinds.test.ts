import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ApiServer, type ApiWatchEvent } from '../../src/api/apiserver.js';
import type { ApiError } from '../../src/api/errors.js';
import { BUILTIN_KINDS } from '../../src/api/kinds.js';
import { checkManifests } from '../../src/api/manifest-check.js';
import { parseManifests } from '../../src/api/manifest.js';
import { KindRegistry, lookupKind, lookupResource, storageKey } from '../../src/api/registry.js';
import type { KubeObject } from '../../src/api/types.js';
import { MemoryStore } from '../../src/store/memory/store.js';
import { ManualClock } from '../../src/util/clock.js';

const setup = () => {
  const store = new MemoryStore();
  const api = new ApiServer(store, {
    clock: new ManualClock(Date.UTC(2025, 0, 1)),
    fieldValidation: 'Strict',
  });
  return { store, api };
};

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    return e as ApiError;
  }
  throw new Error('expected a rejection');
}

/** Kinds with their own spec rules get a valid object from the rules' tests; the rest take anything. */
const OWN_RULES = new Set([
  'Pod',
  'Deployment',
  'ReplicaSet',
  'Service',
  'EndpointSlice',
  'Node',
  'CustomResourceDefinition',
  'Event',
  'Lease',
  'PriorityClass',
  // resource.k8s.io: validated (validation-resource.ts), tested in resource.test.ts
  'DeviceClass',
  'ResourceClaim',
  'ResourceClaimTemplate',
  'ResourceSlice',
  // storage.k8s.io: validated (validation-storage.ts), tested in test/capacity/plan-storage-capacity.test.ts
  'CSIStorageCapacity',
]);

describe('built-in kinds (Kubernetes v1.34 discovery)', () => {
  it('resolves group/version/kind, plural, singular and short names like kubectl api-resources', () => {
    // rows of `kubectl api-resources` (v1.34): NAME SHORTNAMES APIVERSION NAMESPACED KIND
    const rows: [string, string[], string, boolean, string][] = [
      ['configmaps', ['cm'], 'v1', true, 'ConfigMap'],
      ['persistentvolumes', ['pv'], 'v1', false, 'PersistentVolume'],
      ['daemonsets', ['ds'], 'apps/v1', true, 'DaemonSet'],
      ['statefulsets', ['sts'], 'apps/v1', true, 'StatefulSet'],
      ['horizontalpodautoscalers', ['hpa'], 'autoscaling/v2', true, 'HorizontalPodAutoscaler'],
      ['cronjobs', ['cj'], 'batch/v1', true, 'CronJob'],
      ['poddisruptionbudgets', ['pdb'], 'policy/v1', true, 'PodDisruptionBudget'],
      ['priorityclasses', ['pc'], 'scheduling.k8s.io/v1', false, 'PriorityClass'],
      [
        'customresourcedefinitions',
        ['crd', 'crds'],
        'apiextensions.k8s.io/v1',
        false,
        'CustomResourceDefinition',
      ],
      ['networkpolicies', ['netpol'], 'networking.k8s.io/v1', true, 'NetworkPolicy'],
      ['clusterroles', [], 'rbac.authorization.k8s.io/v1', false, 'ClusterRole'],
      ['volumeattributesclasses', ['vac'], 'storage.k8s.io/v1', false, 'VolumeAttributesClass'],
      ['resourceclaims', [], 'resource.k8s.io/v1', true, 'ResourceClaim'],
      ['flowschemas', [], 'flowcontrol.apiserver.k8s.io/v1', false, 'FlowSchema'],
      ['runtimeclasses', [], 'node.k8s.io/v1', false, 'RuntimeClass'],
    ];
    for (const [name, shorts, apiVersion, namespaced, kind] of rows) {
      const info = lookupResource(name)!;
      expect(info, name).toBeDefined();
      expect([info.apiVersion, info.namespaced, info.kind, [...info.shortNames]]).toEqual([
        apiVersion,
        namespaced,
        kind,
        shorts,
      ]);
      for (const s of shorts) expect(lookupResource(s)).toBe(info);
      expect(lookupResource(kind.toLowerCase())).toBe(info);
      expect(lookupKind(apiVersion, kind)).toBe(info);
    }
    expect(lookupKind('autoscaling/v1', 'HorizontalPodAutoscaler')?.resource).toBe(
      'horizontalpodautoscalers',
    );
    expect(lookupKind('policy/v1beta1', 'PodDisruptionBudget')).toBeUndefined(); // removed in v1.25
    expect(storageKey(lookupResource('ds')!, 'kube-system', 'cilium')).toBe(
      '/registry/daemonsets/kube-system/cilium',
    );
    expect(storageKey(lookupResource('clusterroles')!, undefined, 'admin')).toBe(
      '/registry/clusterroles/admin',
    );
    expect(new Set(BUILTIN_KINDS.map((r) => `${r.group}/${r.kind}`)).size).toBe(BUILTIN_KINDS.length);
  });

  it('stores, lists, watches and round-trips every kind it does not act on', async () => {
    const { api } = setup();
    await api.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
    for (const row of BUILTIN_KINDS) {
      if (OWN_RULES.has(row.kind) || row.kind === 'Namespace') continue;
      const apiVersion = row.group ? `${row.group}/${row.versions[0]}` : row.versions[0]!;
      const obj = {
        apiVersion,
        kind: row.kind,
        metadata: {
          name: 'x-1',
          namespace: row.namespaced ? 'team-a' : undefined,
          labels: { app: 'x' },
          annotations: { note: 'kept' },
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u-1' }],
        },
        spec: { anything: [1, { nested: true }] },
        data: { key: 'value' },
      } as unknown as KubeObject;
      if (!row.namespaced) delete obj.metadata.namespace;
      const events: ApiWatchEvent<KubeObject>[] = [];
      const w = await api.watch(row.resource, { resourceVersion: '1' }, (e) => events.push(e));
      const created = await api.create(obj);
      const got = await api.get(row.resource, obj.metadata.namespace, 'x-1');
      expect(got, row.kind).toMatchObject({ spec: obj.spec as object, data: { key: 'value' } });
      expect(got.metadata.ownerReferences).toEqual(obj.metadata.ownerReferences);
      expect(got.metadata.annotations).toEqual({ note: 'kept' });
      expect(got.apiVersion).toBe(apiVersion);
      const list = await api.list(row.resource, { labelSelector: 'app=x' });
      expect(list.items.map((i) => i.metadata.name)).toEqual(['x-1']);
      // Background, as kubectl sends it: without a policy a v1 ReplicationController would keep the
      // `orphan` finalizer (its default GC policy) until a garbage collector releases it
      await api.delete(row.resource, obj.metadata.namespace, 'x-1', { propagationPolicy: 'Background' });
      await w.stop();
      expect(
        events.map((e) => e.type),
        row.kind,
      ).toEqual(['ADDED', 'DELETED']);
      expect(created.metadata.uid).toBeTruthy();
    }
  });

  it("validates each kind's metadata with its own name rule", async () => {
    const { api } = setup();
    const make = (apiVersion: string, kind: string, name: string, namespace?: string) =>
      api.create({ apiVersion, kind, metadata: { name, namespace } });
    // RBAC names are path segments: colons are fine (system:controller:…), slashes are not
    await make('rbac.authorization.k8s.io/v1', 'ClusterRole', 'system:controller:x');
    const slash = await rejection(make('rbac.authorization.k8s.io/v1', 'ClusterRole', 'a/b'));
    expect(slash.message).toBe(
      `ClusterRole.rbac.authorization.k8s.io "a/b" is invalid: metadata.name: Invalid value: "a/b": may not contain '/'`,
    );
    const dots = await rejection(make('rbac.authorization.k8s.io/v1', 'Role', '..', 'default'));
    expect(dots.message).toContain(`metadata.name: Invalid value: "..": may not be '..'`);
    // ConfigMap names are DNS-1123 subdomains
    const cm = await rejection(make('v1', 'ConfigMap', 'Bad_Name', 'default'));
    expect(cm.message).toContain(
      'ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain',
    );
    // any name for a CertificateSigningRequest
    await make('certificates.k8s.io/v1', 'CertificateSigningRequest', 'Any_Name:1');
    // cluster-scoped kinds ignore a namespace, labels are checked everywhere
    const labels = await rejection(
      api.create({
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: 'fast', labels: { 'bad key!': 'x' } },
      }),
    );
    expect(labels.code).toBe(422);
    expect(labels.message).toContain('metadata.labels: Invalid value: "bad key!"');
    const owner = await rejection(
      api.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's', ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: '' }] },
      } as KubeObject),
    );
    expect(owner.message).toContain(
      'metadata.ownerReferences[0].uid: Invalid value: "": uid must not be empty',
    );
  });
});

describe('CustomResourceDefinitions', () => {
  const crd = (scope = 'Namespaced') => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope,
      names: { plural: 'widgets', kind: 'Widget', shortNames: ['wg'] },
      versions: [
        { name: 'v1', served: true, storage: true, subresources: { status: {} } },
        { name: 'v1beta1', served: true, storage: false },
        { name: 'v1alpha1', served: false, storage: false },
      ],
    },
  });
  const widget = (name: string, apiVersion = 'example.com/v1') =>
    ({ apiVersion, kind: 'Widget', metadata: { name }, spec: { size: 3, extra: { a: [1] } } }) as KubeObject;

  it('registers the kind at run time and stores custom resources unstructured', async () => {
    const { api, store } = setup();
    const before = await rejection(api.create(widget('w1')));
    expect(before.message).toContain('no CustomResourceDefinition defines kind Widget in group example.com');
    await api.create(crd());
    const w = await api.create(widget('w1'));
    expect(w.metadata.namespace).toBe('default');
    expect((await store.range({ key: '/registry/example.com/widgets/default/w1' })).count).toBe(1);
    expect(await api.get('wg', 'default', 'w1')).toMatchObject({ spec: { size: 3, extra: { a: [1] } } });
    expect((await api.list('widgets.example.com')).items).toHaveLength(1);
    await api.create(widget('w2', 'example.com/v1beta1'));
    expect((await api.get('widgets', 'default', 'w2')).apiVersion).toBe('example.com/v1beta1');
    const unserved = await rejection(api.create(widget('w3', 'example.com/v1alpha1')));
    expect(unserved.message).toBe(
      'no matches for kind "Widget" in version "example.com/v1alpha1" (Widget is served as example.com/v1, example.com/v1beta1)',
    );
    // status subresource: update ignores .status
    const got = await api.get('widgets', 'default', 'w1');
    const upd = await api.update({ ...got, status: { ready: true } } as KubeObject);
    expect((upd as unknown as { status?: unknown }).status).toBeUndefined();
    // deleting the CRD stops serving the kind and removes its objects
    await api.delete('crd', undefined, 'widgets.example.com');
    expect(
      (await store.range({ key: '/registry/example.com/', rangeEnd: '/registry/example.com0' })).count,
    ).toBe(0);
    expect((await rejection(api.get('widgets', 'default', 'w1'))).code).toBe(404);
  });

  it('serves cluster-scoped kinds and CRDs stored by another ApiServer', async () => {
    const { api, store } = setup();
    await api.create(crd('Cluster'));
    const other = new ApiServer(store);
    const w = await other.create({ ...widget('w1'), metadata: { name: 'w1', namespace: 'ignored' } });
    expect(w.metadata.namespace).toBeUndefined();
    expect((await store.range({ key: '/registry/example.com/widgets/w1' })).count).toBe(1);
  });

  it("validates a CRD as apiextensions' ValidateCustomResourceDefinition", async () => {
    const { api } = setup();
    const bad = crd();
    bad.metadata.name = 'widget.example.com';
    bad.spec.group = 'example';
    bad.spec.versions[1]!.storage = true;
    const e = await rejection(api.create(bad));
    expect(e.message).toContain(
      'metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group',
    );
    expect(e.message).toContain(
      'spec.group: Invalid value: "example": should be a domain with at least one dot',
    );
    expect(e.message).toContain('must have exactly one version marked as storage version');
  });

  it('validate: CRDs in the input serve their kinds to custom resources before them', () => {
    const text = [
      'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: early',
      'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names:\n    plural: widgets\n    kind: Widget\n  versions:\n  - name: v1\n    served: true\n    storage: true',
      'apiVersion: monitoring.coreos.com/v1\nkind: Prometheus\nmetadata:\n  name: k8s',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: after',
    ].join('\n---\n');
    const reports = checkManifests(parseManifests(text, 'bundle.yaml'));
    expect(reports.map((r) => r.ok)).toEqual([true, true, false, true]);
    expect(reports[2]!.errors).toEqual([
      'bundle.yaml:21: Prometheus "k8s": no matches for kind "Prometheus" in version "monitoring.coreos.com/v1": no CustomResourceDefinition defines kind Prometheus in group monitoring.coreos.com (the CRD <plural>.monitoring.coreos.com is missing; ensure CRDs are installed first)',
    ]);
  });

  it('a registry forgets a removed CRD but never shadows built-in names', () => {
    const kinds = new KindRegistry();
    kinds.registerCustom({
      crd: 'pods.example.com',
      group: 'example.com',
      kind: 'Pod',
      plural: 'pods',
      shortNames: ['po', 'xp'],
      namespaced: true,
      versions: ['v1'],
      hasStatus: false,
    });
    expect(kinds.lookupResource('pods')?.group).toBe('');
    expect(kinds.lookupResource('pods.example.com')?.group).toBe('example.com');
    expect(kinds.lookupResource('xp')?.group).toBe('example.com');
    expect(kinds.lookupKind('example.com/v1', 'Pod')?.storageResource).toBe('example.com/pods');
    kinds.removeCustom('pods.example.com');
    expect(kinds.lookupResource('xp')).toBeUndefined();
    expect(kinds.lookupKind('example.com/v1', 'Pod')).toBeUndefined();
  });
});

/** Objects the real kubectl generates offline (`kubectl create … --dry-run=client -o yaml`). */
const kubectl = (() => {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!kubectl)('objects kubectl create generates (kubectl on PATH)', () => {
  it('load, validate and round-trip unchanged', async () => {
    const cmds = [
      ['configmap', 'cm1', '--from-literal=a=b'],
      ['secret', 'generic', 's1', '--from-literal=a=b'],
      ['serviceaccount', 'sa1'],
      ['rolebinding', 'rb1', '--role=r1', '--user=u'],
      ['clusterrolebinding', 'crb1', '--clusterrole=cr1', '--user=u'],
      ['cronjob', 'cj1', '--image=busybox', '--schedule=*/5 * * * *'],
      ['job', 'j1', '--image=busybox'],
      ['deployment', 'd1', '--image=nginx'],
      ['service', 'clusterip', 'svc1', '--tcp=80:8080'],
      ['quota', 'q1', '--hard=pods=10'],
      ['priorityclass', 'pc1', '--value=1000'],
      ['poddisruptionbudget', 'pdb1', '--selector=app=x', '--min-available=1'],
      ['ingress', 'ing1', '--rule=foo.com/bar=svc1:80'],
      ['namespace', 'ns1'],
    ];
    const { api } = setup();
    for (const c of cmds) {
      const yaml = execFileSync('kubectl', ['create', ...c, '--dry-run=client', '-o', 'yaml'], {
        encoding: 'utf8',
      });
      const loaded = parseManifests(yaml, `kubectl create ${c[0]}`);
      const [report] = checkManifests(loaded);
      expect(report!.errors, c.join(' ')).toEqual([]);
      const obj = loaded[0]!.object as KubeObject & Record<string, unknown>;
      const created = (await api.create(obj)) as typeof obj;
      if (!['Deployment', 'Service', 'Namespace', 'PriorityClass'].includes(obj.kind)) {
        for (const k of Object.keys(obj))
          if (k !== 'metadata' && k !== 'status') expect(created[k]).toEqual(obj[k]);
      }
    }
  });
});

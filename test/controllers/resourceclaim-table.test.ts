// Upstream's ResourceClaim controller table, transcribed as data: kubernetes/kubernetes
// pkg/controller/resourceclaim/controller_test.go TestSyncHandler (the stored version is of the
// v1alpha3 API; the objects are written here in resource.k8s.io/v1, same fields). Each case seeds
// pods, claims and templates into a fake API, starts the controller's informers, runs one sync of
// the key (`pod:<ns>/<name>` or `claim:<ns>/<name>`, as upstream's syncHandler), and compares the
// claims and pod statuses left behind.
//
// Transcribed: 19 of 23 cases. Skipped (they reach into the Go fake client or the controller's
// internals): find-created-claim-in-cache (seeds the mutation cache directly), create-conflict (a
// fake-client reactor failing creates), wrong-claim-owner (relies on the Go fake client ignoring
// generateName, so the created claim collides with a fixed name), and the metrics counts of every
// case (kubesim keeps stats, not Prometheus metrics). Generated claim names are compared by their
// generateName prefix (the fake API adds its own suffix).
import { describe, expect, it } from 'vitest';
import {
  CLAIM_FINALIZER,
  type ResourceClaim,
  type ResourceClaimTemplate,
} from '../../src/api/resource-types.js';
import type { Pod } from '../../src/api/types.js';
import { ResourceClaimController } from '../../src/controllers/resourceclaim.js';
import { bed, settleN } from './harness.js';

const [testPodName, testNamespace, testPodUID, otherNamespace] = [
  'test-pod',
  'my-namespace',
  'uidpod1',
  'not-my-namespace',
];
const [podResourceClaimName, templateName, className, nodeName] = [
  'acme-resource',
  'my-template',
  'my-resource-class',
  'worker',
];

const makePod = (name: string, uid: string, withClaim: boolean): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: testNamespace, uid },
  spec: {
    containers: [{ name: 'c', image: 'busybox' }],
    ...(withClaim
      ? { resourceClaims: [{ name: podResourceClaimName, resourceClaimTemplateName: templateName }] }
      : {}),
  },
  status: { phase: 'Pending' },
});
const testPod = makePod(testPodName, testPodUID, false);
const testPodWithResource = makePod(testPodName, testPodUID, true);
const otherTestPod = makePod(`${testPodName}-II`, `${testPodUID}-II`, false);
const ownerOf = (p: Pod) => [
  {
    apiVersion: 'v1',
    kind: 'Pod',
    name: p.metadata.name!,
    uid: p.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  },
];
const spec = { devices: { requests: [{ name: 'req-0', exactly: { deviceClassName: className } }] } };
const makeClaim = (name: string, ns: string, owner?: Pod): ResourceClaim => ({
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceClaim',
  metadata: { name, namespace: ns, ...(owner ? { ownerReferences: ownerOf(owner) } : {}) },
  spec,
});
const generatedName = `${testPodName}-${podResourceClaimName}-1`;
const makeGeneratedClaim = (): ResourceClaim => ({
  ...makeClaim(generatedName, testNamespace, testPodWithResource),
  metadata: {
    ...makeClaim(generatedName, testNamespace, testPodWithResource).metadata,
    generateName: `${testPodName}-${podResourceClaimName}-`,
    annotations: { 'resource.kubernetes.io/pod-claim-name': podResourceClaimName },
  },
});
const allocation = {
  devices: { results: [{ request: 'req-0', driver: 'some-driver', pool: 'pool', device: 'dev' }] },
};
const allocate = (c: ResourceClaim): ResourceClaim => ({
  ...structuredClone(c),
  status: { ...c.status, allocation },
});
const reserve = (c: ResourceClaim, p: Pod): ResourceClaim => ({
  ...structuredClone(c),
  status: {
    ...c.status,
    reservedFor: [
      ...(c.status?.reservedFor ?? []),
      { resource: 'pods', name: p.metadata.name!, uid: p.metadata.uid! },
    ],
  },
});
/** structuredParameters: allocated by the scheduler, so it carries the delete-protection finalizer */
const structured = (c: ResourceClaim): ResourceClaim => ({
  ...structuredClone(c),
  metadata: { ...c.metadata, finalizers: [CLAIM_FINALIZER] },
});
const withDeletion = (c: ResourceClaim): ResourceClaim => ({
  ...c,
  metadata: { ...c.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
});

const testClaim = makeClaim(`${testPodName}-${podResourceClaimName}`, testNamespace, testPodWithResource);
const testClaimAllocated = allocate(testClaim);
const testClaimReserved = reserve(testClaimAllocated, testPodWithResource);
const testClaimReservedTwice = reserve(testClaimReserved, otherTestPod);
const generatedTestClaim = makeGeneratedClaim();
const generatedTestClaimAllocated = allocate(generatedTestClaim);
const generatedTestClaimReserved = reserve(generatedTestClaimAllocated, testPodWithResource);
const otherNamespaceClaim = makeClaim(`${testPodName}-${podResourceClaimName}`, otherNamespace);
const template: ResourceClaimTemplate = {
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceClaimTemplate',
  metadata: { name: templateName, namespace: testNamespace },
  spec: { spec },
};
const withStatus = (p: Pod): Pod => ({
  ...structuredClone(p),
  status: {
    ...p.status,
    resourceClaimStatuses: [{ name: podResourceClaimName, resourceClaimName: generatedName }],
  },
});
const testPodWithNodeName: Pod = {
  ...withStatus(testPodWithResource),
  spec: { ...testPodWithResource.spec, nodeName },
};
const podKey = (p: Pod) => `pod:${p.metadata.namespace}/${p.metadata.name}`;
const claimKey = (c: ResourceClaim) => `claim:${c.metadata.namespace}/${c.metadata.name}`;
const phase = (p: Pod, ph: string): Pod => ({ ...structuredClone(p), status: { ...p.status, phase: ph } });

interface Case {
  key: string;
  pods?: Pod[];
  podsLater?: Pod[];
  claims?: ResourceClaim[];
  templates?: ResourceClaimTemplate[];
  /** undefined: the claims as seeded */
  expectedClaims?: ResourceClaim[];
  expectedStatuses?: Record<string, { name: string; resourceClaimName: string }[]>;
  expectedError?: boolean;
}

const statusOfCreated = { [testPodName]: [{ name: podResourceClaimName, resourceClaimName: generatedName }] };

const cases: Record<string, Case> = {
  create: {
    pods: [testPodWithResource],
    templates: [template],
    key: podKey(testPodWithResource),
    expectedClaims: [generatedTestClaim],
    expectedStatuses: statusOfCreated,
  },
  nop: {
    pods: [withStatus(testPodWithResource)],
    templates: [template],
    key: podKey(testPodWithResource),
    claims: [generatedTestClaim],
    expectedClaims: [generatedTestClaim],
    expectedStatuses: statusOfCreated,
  },
  recreate: {
    pods: [withStatus(testPodWithResource)],
    templates: [template],
    key: podKey(testPodWithResource),
    expectedClaims: [generatedTestClaim],
    expectedStatuses: statusOfCreated,
  },
  'missing-template': { pods: [testPodWithResource], key: podKey(testPodWithResource), expectedError: true },
  'find-existing-claim-by-label': {
    pods: [testPodWithResource],
    key: podKey(testPodWithResource),
    claims: [generatedTestClaim],
    expectedClaims: [generatedTestClaim],
    expectedStatuses: statusOfCreated,
  },
  'no-such-pod': { key: podKey(testPodWithResource) },
  'pod-deleted': {
    pods: [
      {
        ...testPodWithResource,
        metadata: { ...testPodWithResource.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
      },
    ],
    key: podKey(testPodWithResource),
  },
  'no-volumes': { pods: [testPod], key: podKey(testPod) },
  'create-with-other-claim': {
    pods: [testPodWithResource],
    templates: [template],
    key: podKey(testPodWithResource),
    claims: [otherNamespaceClaim],
    expectedClaims: [otherNamespaceClaim, generatedTestClaim],
    expectedStatuses: statusOfCreated,
  },
  'stay-reserved-seen': {
    pods: [testPodWithResource],
    key: claimKey(testClaimReserved),
    claims: [testClaimReserved],
    expectedClaims: [testClaimReserved],
  },
  'stay-reserved-not-seen': {
    podsLater: [testPodWithResource],
    key: claimKey(testClaimReserved),
    claims: [testClaimReserved],
    expectedClaims: [testClaimReserved],
  },
  'clear-reserved-structured': {
    pods: [],
    key: claimKey(testClaimReserved),
    claims: [structured(testClaimReserved)],
    expectedClaims: [
      { ...testClaimAllocated, metadata: { ...testClaimAllocated.metadata, finalizers: [] }, status: {} },
    ],
  },
  'dont-clear-reserved-structured': {
    pods: [testPodWithResource],
    key: claimKey(testClaimReserved),
    claims: [reserve(structured(testClaimReserved), otherTestPod)],
    expectedClaims: [structured(testClaimReserved)],
  },
  'clear-reserved-structured-deleted': {
    pods: [],
    key: claimKey(testClaimReserved),
    claims: [withDeletion(structured(testClaimReserved))],
    expectedClaims: [
      {
        ...withDeletion(testClaimAllocated),
        metadata: { ...withDeletion(testClaimAllocated).metadata, finalizers: [] },
        status: {},
      },
    ],
  },
  'structured-deleted': {
    pods: [],
    key: claimKey(testClaimReserved),
    claims: [withDeletion(structured(testClaimAllocated))],
    expectedClaims: [
      {
        ...withDeletion(testClaimAllocated),
        metadata: { ...withDeletion(testClaimAllocated).metadata, finalizers: [] },
        status: {},
      },
    ],
  },
  'clear-reserved-when-done': {
    pods: [phase(testPodWithResource, 'Succeeded')],
    key: claimKey(testClaimReserved),
    claims: [
      { ...testClaimReserved, metadata: { ...testClaimReserved.metadata, ownerReferences: undefined } },
    ],
    expectedClaims: [
      { ...testClaimAllocated, metadata: { ...testClaimAllocated.metadata, ownerReferences: undefined } },
    ],
  },
  'remove-reserved': {
    pods: [testPod],
    key: claimKey(testClaimReservedTwice),
    claims: [testClaimReservedTwice],
    expectedClaims: [testClaimReserved],
  },
  'delete-claim-when-done': {
    pods: [phase(testPodWithResource, 'Succeeded')],
    key: claimKey(testClaimReserved),
    claims: [testClaimReserved],
    expectedClaims: [],
  },
  'add-reserved': {
    pods: [testPodWithNodeName],
    key: podKey(testPodWithNodeName),
    templates: [template],
    claims: [generatedTestClaimAllocated],
    expectedClaims: [generatedTestClaimReserved],
    expectedStatuses: statusOfCreated,
  },
};

/** the fields the upstream comparison looks at (name by generateName for generated claims) */
const comparable = (c: ResourceClaim) => ({
  name: c.metadata.generateName ? `${c.metadata.generateName}*` : c.metadata.name,
  namespace: c.metadata.namespace,
  annotations: c.metadata.annotations ?? {},
  owners: (c.metadata.ownerReferences ?? []).map((o) => o.uid),
  finalizers: c.metadata.finalizers ?? [],
  deleting: !!c.metadata.deletionTimestamp,
  spec: c.spec,
  allocation: c.status?.allocation,
  reservedFor: (c.status?.reservedFor ?? []).map((r) => r.uid),
});

describe('ResourceClaim controller: upstream TestSyncHandler (controller_test.go)', () => {
  it.each(Object.entries(cases))('%s', async (_name, tc) => {
    const { api, informers, deps } = bed();
    for (const p of tc.pods ?? []) await api.create('pods', p);
    for (const c of tc.claims ?? []) await api.create('resourceclaims', c);
    for (const t of tc.templates ?? []) await api.create('resourceclaimtemplates', t);
    const ctl = new ResourceClaimController(deps);
    await informers.start();
    await settleN();
    // a race: pods the controller's informers have not seen yet
    informers.stop();
    for (const p of tc.podsLater ?? []) await api.create('pods', p);
    let error: unknown;
    try {
      await ctl.sync(tc.key);
    } catch (e) {
      error = e;
    }
    expect(error !== undefined).toBe(tc.expectedError ?? false);
    const claims = (await api.list<ResourceClaim>('resourceclaims')).items;
    const want = tc.expectedClaims ?? tc.claims ?? [];
    const sort = (l: ReturnType<typeof comparable>[]) =>
      l.sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
    expect(sort(claims.map(comparable))).toEqual(sort(want.map(comparable)));
    for (const [pod, statuses] of Object.entries(tc.expectedStatuses ?? {})) {
      const p = await api.get<Pod>('pods', testNamespace, pod);
      const got = (p.status?.resourceClaimStatuses ?? []) as { name: string; resourceClaimName: string }[];
      expect(
        got.map((s) => ({
          name: s.name,
          resourceClaimName: s.resourceClaimName.replace(/-[a-z0-9]+$/, '-1'),
        })),
      ).toEqual(statuses);
    }
  });
});

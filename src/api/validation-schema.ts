/**
 * Unknown fields. Upstream rejects them while decoding (kubectl's default `--validate=strict`
 * makes them errors: `strict decoding error: unknown field "spec.foo"`); kubesim reports them
 * after decoding as `spec.foo: unknown field`, for the typed parts listed in SCHEMA below (the
 * object's top level, metadata, and the specs kubesim's components read). With
 * `unknownFields: 'Warn'` (the apiserver's default for API clients that do not ask for strict
 * validation) they are returned as warnings (FieldError.warning) instead; 'Ignore' drops them.
 * Subtrees kubesim does not model (volumes, env, probes, securityContext, affinity, status of
 * Pods, …) are not checked for unknown fields.
 */
import { type FieldError, unknownField } from './field.js';
import type { KubeObject } from './types.js';

type Obj = Record<string, any>;

/** A node of the known-field schema: field name → child schema ('*' = not checked below). */
type Schema = { [field: string]: Schema | '*' } & { '[]'?: Schema };

const ANY = '*' as const;
const list = (item: Schema): Schema => ({ '[]': item }) as Schema;

const OBJECT_META: Schema = {
  name: ANY,
  generateName: ANY,
  namespace: ANY,
  selfLink: ANY,
  uid: ANY,
  resourceVersion: ANY,
  generation: ANY,
  creationTimestamp: ANY,
  deletionTimestamp: ANY,
  deletionGracePeriodSeconds: ANY,
  labels: ANY,
  annotations: ANY,
  ownerReferences: list({
    apiVersion: ANY,
    kind: ANY,
    name: ANY,
    uid: ANY,
    controller: ANY,
    blockOwnerDeletion: ANY,
  }),
  finalizers: ANY,
  managedFields: ANY,
};

const LABEL_SELECTOR: Schema = {
  matchLabels: ANY,
  matchExpressions: list({ key: ANY, operator: ANY, values: ANY }),
};

const CONTAINER: Schema = {
  name: ANY,
  image: ANY,
  command: ANY,
  args: ANY,
  workingDir: ANY,
  ports: list({ name: ANY, hostPort: ANY, containerPort: ANY, protocol: ANY, hostIP: ANY }),
  envFrom: ANY,
  env: ANY,
  resources: { limits: ANY, requests: ANY, claims: ANY },
  resizePolicy: ANY,
  restartPolicy: ANY,
  restartPolicyRules: ANY,
  volumeMounts: ANY,
  volumeDevices: ANY,
  livenessProbe: ANY,
  readinessProbe: ANY,
  startupProbe: ANY,
  lifecycle: ANY,
  terminationMessagePath: ANY,
  terminationMessagePolicy: ANY,
  imagePullPolicy: ANY,
  securityContext: ANY,
  stdin: ANY,
  stdinOnce: ANY,
  tty: ANY,
};

const POD_SPEC: Schema = {
  volumes: ANY,
  initContainers: list(CONTAINER),
  containers: list(CONTAINER),
  ephemeralContainers: ANY,
  restartPolicy: ANY,
  terminationGracePeriodSeconds: ANY,
  activeDeadlineSeconds: ANY,
  dnsPolicy: ANY,
  nodeSelector: ANY,
  serviceAccountName: ANY,
  serviceAccount: ANY,
  automountServiceAccountToken: ANY,
  nodeName: ANY,
  hostNetwork: ANY,
  hostPID: ANY,
  hostIPC: ANY,
  shareProcessNamespace: ANY,
  securityContext: ANY,
  imagePullSecrets: ANY,
  hostname: ANY,
  subdomain: ANY,
  affinity: ANY,
  schedulerName: ANY,
  tolerations: list({ key: ANY, operator: ANY, value: ANY, effect: ANY, tolerationSeconds: ANY }),
  hostAliases: ANY,
  priorityClassName: ANY,
  priority: ANY,
  dnsConfig: ANY,
  readinessGates: ANY,
  runtimeClassName: ANY,
  enableServiceLinks: ANY,
  preemptionPolicy: ANY,
  overhead: ANY,
  topologySpreadConstraints: ANY,
  setHostnameAsFQDN: ANY,
  os: ANY,
  hostUsers: ANY,
  schedulingGates: ANY,
  resourceClaims: ANY,
  resources: ANY,
  hostnameOverride: ANY,
};

const POD_TEMPLATE: Schema = { metadata: OBJECT_META, spec: POD_SPEC };

const TOP = (extra: Schema): Schema => ({ apiVersion: ANY, kind: ANY, metadata: OBJECT_META, ...extra });

/** Known fields per kind (the typed parts kubesim checks). */
export const SCHEMA: Record<string, Schema> = {
  Namespace: TOP({ spec: { finalizers: ANY }, status: ANY }),
  Node: TOP({
    spec: {
      podCIDR: ANY,
      podCIDRs: ANY,
      providerID: ANY,
      unschedulable: ANY,
      configSource: ANY,
      externalID: ANY,
      taints: list({ key: ANY, value: ANY, effect: ANY, timeAdded: ANY }),
    },
    status: {
      capacity: ANY,
      allocatable: ANY,
      phase: ANY,
      conditions: ANY,
      addresses: ANY,
      daemonEndpoints: ANY,
      nodeInfo: ANY,
      images: ANY,
      volumesInUse: ANY,
      volumesAttached: ANY,
      config: ANY,
      runtimeHandlers: ANY,
      features: ANY,
      declaredFeatures: ANY,
    },
  }),
  Pod: TOP({ spec: POD_SPEC, status: ANY }),
  Deployment: TOP({
    spec: {
      replicas: ANY,
      selector: LABEL_SELECTOR,
      template: POD_TEMPLATE,
      strategy: { type: ANY, rollingUpdate: { maxUnavailable: ANY, maxSurge: ANY } },
      minReadySeconds: ANY,
      revisionHistoryLimit: ANY,
      paused: ANY,
      progressDeadlineSeconds: ANY,
    },
    status: ANY,
  }),
  ReplicaSet: TOP({
    spec: { replicas: ANY, minReadySeconds: ANY, selector: LABEL_SELECTOR, template: POD_TEMPLATE },
    status: ANY,
  }),
  Service: TOP({
    spec: {
      ports: list({ name: ANY, protocol: ANY, appProtocol: ANY, port: ANY, targetPort: ANY, nodePort: ANY }),
      selector: ANY,
      clusterIP: ANY,
      clusterIPs: ANY,
      type: ANY,
      externalIPs: ANY,
      sessionAffinity: ANY,
      loadBalancerIP: ANY,
      loadBalancerSourceRanges: ANY,
      externalName: ANY,
      externalTrafficPolicy: ANY,
      healthCheckNodePort: ANY,
      publishNotReadyAddresses: ANY,
      sessionAffinityConfig: ANY,
      ipFamilies: ANY,
      ipFamilyPolicy: ANY,
      allocateLoadBalancerNodePorts: ANY,
      loadBalancerClass: ANY,
      internalTrafficPolicy: ANY,
      trafficDistribution: ANY,
    },
    status: ANY,
  }),
  EndpointSlice: TOP({
    addressType: ANY,
    endpoints: list({
      addresses: ANY,
      conditions: { ready: ANY, serving: ANY, terminating: ANY },
      hostname: ANY,
      targetRef: ANY,
      deprecatedTopology: ANY,
      nodeName: ANY,
      zone: ANY,
      hints: ANY,
    }),
    ports: list({ name: ANY, protocol: ANY, port: ANY, appProtocol: ANY }),
  }),
  CSIStorageCapacity: TOP({
    storageClassName: ANY,
    nodeTopology: LABEL_SELECTOR,
    capacity: ANY,
    maximumVolumeSize: ANY,
  }),
  Lease: TOP({
    spec: {
      holderIdentity: ANY,
      leaseDurationSeconds: ANY,
      acquireTime: ANY,
      renewTime: ANY,
      leaseTransitions: ANY,
      strategy: ANY,
      preferredHolder: ANY,
    },
  }),
  Event: TOP({
    involvedObject: ANY,
    reason: ANY,
    message: ANY,
    source: ANY,
    firstTimestamp: ANY,
    lastTimestamp: ANY,
    count: ANY,
    type: ANY,
    eventTime: ANY,
    series: ANY,
    action: ANY,
    related: ANY,
    reportingComponent: ANY,
    reportingInstance: ANY,
    // events.k8s.io/v1 field names
    reportingController: ANY,
    regarding: ANY,
    note: ANY,
    deprecatedSource: ANY,
    deprecatedFirstTimestamp: ANY,
    deprecatedLastTimestamp: ANY,
    deprecatedCount: ANY,
  }),
};

function walkUnknown(value: unknown, schema: Schema, path: string, warn: boolean, out: FieldError[]): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const item = schema['[]'];
    if (!item) return;
    value.forEach((v, i) => walkUnknown(v, item, `${path}[${i}]`, warn, out));
    return;
  }
  if (schema['[]']) return; // expected a list, got an object: type errors are reported elsewhere
  for (const k of Object.keys(value)) {
    // own fields only: "constructor" or "__proto__" in the input are unknown fields, not Object's
    const child = Object.hasOwn(schema, k) ? schema[k] : undefined;
    const p = path ? `${path}.${k}` : k;
    if (child === undefined) out.push(unknownField(p, warn));
    else if (child !== ANY) walkUnknown((value as Obj)[k], child, p, warn, out);
  }
}

/** Unknown fields of an object against SCHEMA (empty for unknown kinds). */
export function unknownFields(obj: KubeObject, warn = false): FieldError[] {
  const schema = Object.hasOwn(SCHEMA, obj.kind) ? SCHEMA[obj.kind] : undefined;
  const out: FieldError[] = [];
  if (schema) walkUnknown(obj, schema, '', warn, out);
  return out;
}

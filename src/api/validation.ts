/**
 * Object validation like the apiserver's (pkg/apis/core/validation, apps/validation,
 * discovery/validation, coordination/validation), for the kinds kubesim serves. Errors use
 * upstream's field paths, types and messages (see field.ts, validation-names.ts):
 *
 *   metadata.name: Invalid value: "Web_1": a lowercase RFC 1123 subdomain must consist of …
 *   spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1
 *   spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match template `labels`
 *
 * Unknown fields. Upstream rejects them while decoding (kubectl's default `--validate=strict`
 * makes them errors: `strict decoding error: unknown field "spec.foo"`); kubesim reports them
 * after decoding as `spec.foo: unknown field`, for the typed parts listed in SCHEMA below (the
 * object's top level, metadata, and the specs kubesim's components read). With
 * `unknownFields: 'Warn'` (the apiserver's default for API clients that do not ask for strict
 * validation) they are returned as warnings (FieldError.warning) instead; 'Ignore' drops them.
 * Subtrees kubesim does not model (volumes, env, probes, securityContext, affinity, status of
 * Pods, …) are not checked for unknown fields.
 */
import {
  FieldError,
  duplicate,
  forbiddenField,
  invalidValue,
  notSupported,
  required,
  tooMany,
  unknownField,
} from './field.js';
import { tryParseQuantity, type Quantity } from './quantity.js';
import type { ResourceInfo } from './registry.js';
import type { KubeObject } from './types.js';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPortName,
  isValidPortNum,
} from './validation-names.js';
import { ipv4ToInt } from './allocators.js';
import { deepEqual } from './deep-equal.js';

type Obj = Record<string, any>;

export type UnknownFieldPolicy = 'Strict' | 'Warn' | 'Ignore';

export interface ValidateOptions {
  /** how unknown fields are reported (default 'Strict' = errors) */
  unknownFields?: UnknownFieldPolicy;
}

// ---------------------------------------------------------------- schema of known fields

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
    const child = schema[k];
    const p = path ? `${path}.${k}` : k;
    if (child === undefined) out.push(unknownField(p, warn));
    else if (child !== ANY) walkUnknown((value as Obj)[k], child, p, warn, out);
  }
}

/** Unknown fields of an object against SCHEMA (empty for unknown kinds). */
export function unknownFields(obj: KubeObject, warn = false): FieldError[] {
  const schema = SCHEMA[obj.kind];
  const out: FieldError[] = [];
  if (schema) walkUnknown(obj, schema, '', warn, out);
  return out;
}

// ---------------------------------------------------------------- helpers

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

function typeError(path: string, v: unknown, want: string): FieldError {
  return invalidValue(path, v, `must be ${want}`);
}

function validateNameWith(fn: (s: string) => string[], path: string, name: string, out: FieldError[]): void {
  for (const msg of fn(name)) out.push(invalidValue(path, name, msg));
}

/** ValidateLabels: keys are qualified names, values label values; errors at `path`. */
export function validateLabels(labels: unknown, path: string, out: FieldError[]): void {
  if (labels === undefined || labels === null) return;
  if (!isObj(labels)) {
    out.push(typeError(path, labels, 'a map of string keys to string values'));
    return;
  }
  for (const [k, v] of Object.entries(labels)) {
    for (const msg of isQualifiedName(k)) out.push(invalidValue(path, k, msg));
    if (typeof v !== 'string') {
      out.push(invalidValue(`${path}[${k}]`, v, 'must be a string'));
      continue;
    }
    for (const msg of isValidLabelValue(v)) out.push(invalidValue(path, v, msg));
  }
}

/** ValidateObjectMeta for a kind. */
function validateMeta(
  obj: Obj,
  info: ResourceInfo,
  out: FieldError[],
  path = 'metadata',
  isTemplate = false,
): void {
  const m = obj.metadata;
  if (!isObj(m)) {
    if (!isTemplate) out.push(required(path));
    return;
  }
  if (!isTemplate) {
    const nameFn =
      info.kind === 'Namespace'
        ? isDNS1123Label
        : info.kind === 'Service'
          ? isDNS1035Label
          : isDNS1123Subdomain;
    if (m.name === undefined || m.name === '') {
      if (!m.generateName) out.push(required(`${path}.name`, 'name or generateName is required'));
    } else if (typeof m.name !== 'string') out.push(typeError(`${path}.name`, m.name, 'a string'));
    else validateNameWith(nameFn, `${path}.name`, m.name, out);
    if (info.namespaced) {
      if (m.namespace !== undefined && m.namespace !== '') {
        if (typeof m.namespace !== 'string')
          out.push(typeError(`${path}.namespace`, m.namespace, 'a string'));
        else validateNameWith(isDNS1123Label, `${path}.namespace`, m.namespace, out);
      }
    } else if (m.namespace) {
      out.push(forbiddenField(`${path}.namespace`, 'not allowed on this type'));
    }
  }
  validateLabels(m.labels, `${path}.labels`, out);
  if (m.annotations !== undefined && m.annotations !== null) {
    if (!isObj(m.annotations))
      out.push(typeError(`${path}.annotations`, m.annotations, 'a map of string keys to string values'));
    else {
      let total = 0;
      for (const [k, v] of Object.entries(m.annotations)) {
        for (const msg of isQualifiedName(k.toLowerCase()))
          out.push(invalidValue(`${path}.annotations`, k, msg));
        if (typeof v !== 'string') out.push(invalidValue(`${path}.annotations[${k}]`, v, 'must be a string'));
        total += k.length + (typeof v === 'string' ? v.length : 0);
      }
      if (total > 262144)
        out.push(
          new FieldError('Too long', `${path}.annotations`, undefined, 'must have at most 262144 bytes'),
        );
    }
  }
  if (Array.isArray(m.ownerReferences)) {
    m.ownerReferences.forEach((r: Obj, i: number) => {
      const p = `${path}.ownerReferences[${i}]`;
      if (!isObj(r)) return;
      if (!r.apiVersion)
        out.push(invalidValue(`${p}.apiVersion`, r.apiVersion ?? '', 'version must not be empty'));
      if (!r.kind) out.push(invalidValue(`${p}.kind`, r.kind ?? '', 'kind must not be empty'));
      if (!r.name) out.push(invalidValue(`${p}.name`, r.name ?? '', 'name must not be empty'));
      if (!r.uid) out.push(invalidValue(`${p}.uid`, r.uid ?? '', 'uid must not be empty'));
    });
    const controllers = m.ownerReferences.filter((r: Obj) => isObj(r) && r.controller === true);
    if (controllers.length > 1) {
      out.push(
        invalidValue(
          `${path}.ownerReferences`,
          m.ownerReferences.length,
          'Only one reference can have Controller set to true',
        ),
      );
    }
  }
  if (Array.isArray(m.finalizers)) {
    m.finalizers.forEach((f: unknown, i: number) => {
      if (typeof f !== 'string') out.push(typeError(`${path}.finalizers[${i}]`, f, 'a string'));
      else for (const msg of isQualifiedName(f)) out.push(invalidValue(`${path}.finalizers`, f, msg));
    });
  }
}

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);

function isIntegerResource(name: string): boolean {
  return (
    name.startsWith('hugepages-') ||
    (!STANDARD_CONTAINER_RESOURCES.has(name) && !name.startsWith('requests.') && name.includes('/'))
  );
}

/** Parse a quantity field, pushing upstream's error; returns undefined when invalid. */
function quantityAt(path: string, v: unknown, out: FieldError[]): Quantity | undefined {
  const q = tryParseQuantity(v);
  if (typeof q === 'string') {
    out.push(invalidValue(path, v, q));
    return undefined;
  }
  return q;
}

/** A ResourceList (capacity, allocatable, requests, limits, overhead): names and non-negative quantities. */
function validateResourceList(
  list: unknown,
  path: string,
  out: FieldError[],
  forContainer: boolean,
): Map<string, Quantity> {
  const parsed = new Map<string, Quantity>();
  if (list === undefined || list === null) return parsed;
  if (!isObj(list)) {
    out.push(typeError(path, list, 'a map of resource names to quantities'));
    return parsed;
  }
  for (const [name, v] of Object.entries(list)) {
    const p = `${path}[${name}]`;
    for (const msg of isQualifiedName(name)) out.push(invalidValue(p, name, msg));
    const q = quantityAt(p, v, out);
    if (!q) continue;
    if (q.sign() < 0) {
      out.push(invalidValue(p, q.toString(), 'must be greater than or equal to 0'));
      continue;
    }
    if (forContainer && isIntegerResource(name) && q.milliValue() % 1000n !== 0n) {
      out.push(invalidValue(p, q.toString(), 'must be an integer'));
    }
    parsed.set(name, q);
  }
  return parsed;
}

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function validateContainer(
  c: Obj,
  path: string,
  isInit: boolean,
  names: Set<string>,
  out: FieldError[],
): void {
  if (!isObj(c)) {
    out.push(typeError(path, c, 'an object'));
    return;
  }
  if (c.name === undefined || c.name === '') out.push(required(`${path}.name`));
  else if (typeof c.name !== 'string') out.push(typeError(`${path}.name`, c.name, 'a string'));
  else {
    validateNameWith(isDNS1123Label, `${path}.name`, c.name, out);
    if (names.has(c.name)) out.push(duplicate(`${path}.name`, c.name));
    names.add(c.name);
  }
  if (c.image === undefined || c.image === '') out.push(required(`${path}.image`));
  else if (typeof c.image !== 'string') out.push(typeError(`${path}.image`, c.image, 'a string'));
  else if (c.image.trim() !== c.image)
    out.push(invalidValue(`${path}.image`, c.image, 'must not have leading or trailing whitespace'));
  if (c.imagePullPolicy !== undefined && !['Always', 'IfNotPresent', 'Never'].includes(c.imagePullPolicy)) {
    out.push(notSupported(`${path}.imagePullPolicy`, c.imagePullPolicy, ['Always', 'IfNotPresent', 'Never']));
  }
  if (c.restartPolicy !== undefined) {
    if (!isInit) out.push(forbiddenField(`${path}.restartPolicy`, 'may not be set for non-init containers'));
    else if (c.restartPolicy !== 'Always')
      out.push(notSupported(`${path}.restartPolicy`, c.restartPolicy, ['Always']));
  }
  if (c.ports !== undefined) {
    if (!Array.isArray(c.ports)) out.push(typeError(`${path}.ports`, c.ports, 'a list'));
    else {
      const portNames = new Set<string>();
      c.ports.forEach((p: Obj, i: number) => {
        const pp = `${path}.ports[${i}]`;
        if (!isObj(p)) return out.push(typeError(pp, p, 'an object')) as unknown as void;
        if (p.name !== undefined && p.name !== '') {
          if (typeof p.name !== 'string') out.push(typeError(`${pp}.name`, p.name, 'a string'));
          else {
            for (const msg of isValidPortName(p.name)) out.push(invalidValue(`${pp}.name`, p.name, msg));
            if (portNames.has(p.name)) out.push(duplicate(`${pp}.name`, p.name));
            portNames.add(p.name);
          }
        }
        if (p.containerPort === undefined || p.containerPort === 0) out.push(required(`${pp}.containerPort`));
        else
          for (const msg of isValidPortNum(p.containerPort))
            out.push(invalidValue(`${pp}.containerPort`, p.containerPort, msg));
        if (p.hostPort !== undefined && p.hostPort !== 0) {
          for (const msg of isValidPortNum(p.hostPort))
            out.push(invalidValue(`${pp}.hostPort`, p.hostPort, msg));
        }
        if (p.protocol === undefined || p.protocol === '') out.push(required(`${pp}.protocol`));
        else if (!PROTOCOLS.includes(p.protocol))
          out.push(notSupported(`${pp}.protocol`, p.protocol, PROTOCOLS));
      });
    }
  }
  const r = c.resources;
  if (r !== undefined && r !== null) {
    if (!isObj(r)) out.push(typeError(`${path}.resources`, r, 'an object'));
    else {
      const limits = validateResourceList(r.limits, `${path}.resources.limits`, out, true);
      const requests = validateResourceList(r.requests, `${path}.resources.requests`, out, true);
      for (const [name, req] of requests) {
        const lim = limits.get(name);
        if (!lim) continue;
        // upstream reports these at `resources.requests` (not keyed); extended resources and
        // hugepages cannot be overcommitted (IsOvercommitAllowed), so request must equal limit
        const overcommit =
          !name.startsWith('hugepages-') && (!name.includes('/') || name.startsWith('kubernetes.io/'));
        if (req.cmp(lim) !== 0 && !overcommit) {
          out.push(
            invalidValue(`${path}.resources.requests`, req.toString(), `must be equal to ${name} limit`),
          );
        } else if (req.cmp(lim) > 0) {
          out.push(
            invalidValue(
              `${path}.resources.requests`,
              req.toString(),
              `must be less than or equal to ${name} limit of ${lim.toString()}`,
            ),
          );
        }
      }
    }
  }
}

const RESTART_POLICIES = ['Always', 'Never', 'OnFailure'];
const TAINT_EFFECTS = ['NoExecute', 'NoSchedule', 'PreferNoSchedule'];

/** ValidatePodSpec subset (see docs/api.md for the list). */
export function validatePodSpec(spec: unknown, path: string, out: FieldError[], template = false): void {
  if (!isObj(spec)) {
    out.push(required(path));
    return;
  }
  const names = new Set<string>();
  if (spec.initContainers !== undefined) {
    if (!Array.isArray(spec.initContainers))
      out.push(typeError(`${path}.initContainers`, spec.initContainers, 'a list'));
    else
      spec.initContainers.forEach((c: Obj, i: number) =>
        validateContainer(c, `${path}.initContainers[${i}]`, true, names, out),
      );
  }
  if (!Array.isArray(spec.containers)) {
    if (spec.containers === undefined) out.push(required(`${path}.containers`));
    else out.push(typeError(`${path}.containers`, spec.containers, 'a list'));
  } else {
    if (spec.containers.length === 0) out.push(required(`${path}.containers`));
    spec.containers.forEach((c: Obj, i: number) =>
      validateContainer(c, `${path}.containers[${i}]`, false, names, out),
    );
  }
  if (spec.restartPolicy !== undefined) {
    if (template) {
      if (spec.restartPolicy !== 'Always')
        out.push(notSupported(`${path}.restartPolicy`, spec.restartPolicy, ['Always']));
    } else if (!RESTART_POLICIES.includes(spec.restartPolicy)) {
      out.push(notSupported(`${path}.restartPolicy`, spec.restartPolicy, RESTART_POLICIES));
    }
  }
  if (spec.terminationGracePeriodSeconds !== undefined && !isInt(spec.terminationGracePeriodSeconds)) {
    out.push(
      typeError(`${path}.terminationGracePeriodSeconds`, spec.terminationGracePeriodSeconds, 'an integer'),
    );
  }
  if (
    spec.activeDeadlineSeconds !== undefined &&
    (!isInt(spec.activeDeadlineSeconds) || spec.activeDeadlineSeconds < 1)
  ) {
    out.push(
      invalidValue(
        `${path}.activeDeadlineSeconds`,
        spec.activeDeadlineSeconds,
        'must be between 1 and 2147483647, inclusive',
      ),
    );
  }
  validateLabels(spec.nodeSelector, `${path}.nodeSelector`, out);
  if (spec.nodeName !== undefined && spec.nodeName !== '') {
    if (typeof spec.nodeName !== 'string') out.push(typeError(`${path}.nodeName`, spec.nodeName, 'a string'));
    else validateNameWith(isDNS1123Subdomain, `${path}.nodeName`, spec.nodeName, out);
  }
  if (spec.tolerations !== undefined) {
    if (!Array.isArray(spec.tolerations))
      out.push(typeError(`${path}.tolerations`, spec.tolerations, 'a list'));
    else
      spec.tolerations.forEach((t: Obj, i: number) =>
        validateToleration(t, `${path}.tolerations[${i}]`, out),
      );
  }
  if (spec.overhead !== undefined) validateResourceList(spec.overhead, `${path}.overhead`, out, false);
  if (spec.priority !== undefined && !isInt(spec.priority))
    out.push(typeError(`${path}.priority`, spec.priority, 'an integer'));
  if (
    spec.preemptionPolicy !== undefined &&
    !['Never', 'PreemptLowerPriority'].includes(spec.preemptionPolicy)
  ) {
    out.push(
      notSupported(`${path}.preemptionPolicy`, spec.preemptionPolicy, ['Never', 'PreemptLowerPriority']),
    );
  }
  if (spec.topologySpreadConstraints !== undefined && !Array.isArray(spec.topologySpreadConstraints)) {
    out.push(typeError(`${path}.topologySpreadConstraints`, spec.topologySpreadConstraints, 'a list'));
  }
  if (Array.isArray(spec.topologySpreadConstraints)) {
    const seen = new Set<string>();
    spec.topologySpreadConstraints.forEach((c: Obj, i: number) => {
      const p = `${path}.topologySpreadConstraints[${i}]`;
      if (!isObj(c)) return;
      if (!isInt(c.maxSkew) || c.maxSkew <= 0)
        out.push(invalidValue(`${p}.maxSkew`, c.maxSkew, 'must be greater than zero'));
      if (!c.topologyKey) out.push(required(`${p}.topologyKey`, 'can not be empty'));
      else
        for (const msg of isQualifiedName(c.topologyKey))
          out.push(invalidValue(`${p}.topologyKey`, c.topologyKey, msg));
      if (!['DoNotSchedule', 'ScheduleAnyway'].includes(c.whenUnsatisfiable)) {
        out.push(
          notSupported(`${p}.whenUnsatisfiable`, c.whenUnsatisfiable, ['DoNotSchedule', 'ScheduleAnyway']),
        );
      }
      if (c.minDomains !== undefined && c.minDomains !== null) {
        if (!isInt(c.minDomains) || c.minDomains <= 0)
          out.push(invalidValue(`${p}.minDomains`, c.minDomains, 'must be greater than zero'));
        else if (c.whenUnsatisfiable !== 'DoNotSchedule') {
          out.push(
            invalidValue(
              `${p}.minDomains`,
              c.minDomains,
              `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${c.whenUnsatisfiable}`,
            ),
          );
        }
      }
      validateLabelSelector(c.labelSelector, `${p}.labelSelector`, out);
      const id = `{${c.topologyKey}, ${c.whenUnsatisfiable}}`;
      if (seen.has(id)) out.push(duplicate(`${p}.{topologyKey, whenUnsatisfiable}`, id));
      seen.add(id);
    });
  }
  if (spec.affinity !== undefined && spec.affinity !== null)
    validateAffinity(spec.affinity, `${path}.affinity`, out);
}

/** ValidateNodeSelectorRequirement / field selector requirement. */
function validateNodeSelectorRequirement(r: unknown, p: string, out: FieldError[], fields: boolean): void {
  if (!isObj(r)) {
    out.push(typeError(p, r, 'an object'));
    return;
  }
  const values = Array.isArray(r.values) ? r.values : [];
  if (r.values !== undefined && r.values !== null && !Array.isArray(r.values))
    out.push(typeError(`${p}.values`, r.values, 'a list'));
  if (fields) {
    if (r.key !== 'metadata.name')
      out.push(invalidValue(`${p}.key`, r.key, 'not a valid field selector key'));
    if (r.operator === 'In' || r.operator === 'NotIn') {
      if (values.length !== 1)
        out.push(
          required(
            `${p}.values`,
            "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
          ),
        );
    } else out.push(invalidValue(`${p}.operator`, r.operator, 'not a valid selector operator'));
    return;
  }
  switch (r.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0)
        out.push(required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0)
        out.push(
          forbiddenField(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        );
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1)
        out.push(required(`${p}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      out.push(invalidValue(`${p}.operator`, r.operator, 'not a valid selector operator'));
  }
  if (typeof r.key !== 'string') out.push(required(`${p}.key`));
  else for (const msg of isQualifiedName(r.key)) out.push(invalidValue(`${p}.key`, r.key, msg));
}

function validateNodeSelectorTerm(t: unknown, p: string, out: FieldError[]): void {
  if (!isObj(t)) {
    out.push(typeError(p, t, 'an object'));
    return;
  }
  for (const [field, fields] of [
    ['matchExpressions', false],
    ['matchFields', true],
  ] as const) {
    const list = t[field];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) out.push(typeError(`${p}.${field}`, list, 'a list'));
    else
      list.forEach((r: unknown, j: number) =>
        validateNodeSelectorRequirement(r, `${p}.${field}[${j}]`, out, fields),
      );
  }
}

function validateWeight(w: unknown, p: string, out: FieldError[]): void {
  if (!isInt(w) || w <= 0 || w > 100) out.push(invalidValue(p, w, 'must be in the range 1-100'));
}

function validatePodAffinityTerm(t: unknown, p: string, out: FieldError[]): void {
  if (!isObj(t)) {
    out.push(typeError(p, t, 'an object'));
    return;
  }
  validateLabelSelector(t.labelSelector, `${p}.labelSelector`, out);
  validateLabelSelector(t.namespaceSelector, `${p}.namespaceSelector`, out);
  if (Array.isArray(t.namespaces)) {
    t.namespaces.forEach((n: unknown, i: number) => {
      if (typeof n !== 'string') out.push(typeError(`${p}.namespaces[${i}]`, n, 'a string'));
      else for (const msg of isDNS1123Label(n)) out.push(invalidValue(`${p}.namespace`, n, msg));
    });
  }
  if (!t.topologyKey) out.push(required(`${p}.topologyKey`, 'can not be empty'));
  else if (typeof t.topologyKey === 'string')
    for (const msg of isQualifiedName(t.topologyKey))
      out.push(invalidValue(`${p}.topologyKey`, t.topologyKey, msg));
}

/** ValidateAffinity: node affinity terms, pod (anti-)affinity terms, weights. */
function validateAffinity(a: unknown, path: string, out: FieldError[]): void {
  if (!isObj(a)) {
    out.push(typeError(path, a, 'an object'));
    return;
  }
  const na = a.nodeAffinity;
  if (isObj(na)) {
    const req = na.requiredDuringSchedulingIgnoredDuringExecution;
    const rp = `${path}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution`;
    if (req !== undefined && req !== null) {
      const terms = isObj(req) ? req.nodeSelectorTerms : undefined;
      if (!Array.isArray(terms) || terms.length === 0)
        out.push(required(`${rp}.nodeSelectorTerms`, 'must have at least one node selector term'));
      else
        terms.forEach((t: unknown, i: number) =>
          validateNodeSelectorTerm(t, `${rp}.nodeSelectorTerms[${i}]`, out),
        );
    }
    const pref = na.preferredDuringSchedulingIgnoredDuringExecution;
    const pp = `${path}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution`;
    if (pref !== undefined && pref !== null) {
      if (!Array.isArray(pref)) out.push(typeError(pp, pref, 'a list'));
      else
        pref.forEach((t: Obj, i: number) => {
          if (!isObj(t)) return out.push(typeError(`${pp}[${i}]`, t, 'an object')) as unknown as void;
          validateWeight(t.weight, `${pp}[${i}].weight`, out);
          validateNodeSelectorTerm(t.preference, `${pp}[${i}].preference`, out);
        });
    }
  } else if (na !== undefined && na !== null) out.push(typeError(`${path}.nodeAffinity`, na, 'an object'));
  for (const kind of ['podAffinity', 'podAntiAffinity'] as const) {
    const pa = a[kind];
    if (pa === undefined || pa === null) continue;
    if (!isObj(pa)) {
      out.push(typeError(`${path}.${kind}`, pa, 'an object'));
      continue;
    }
    const rp = `${path}.${kind}.requiredDuringSchedulingIgnoredDuringExecution`;
    const req = pa.requiredDuringSchedulingIgnoredDuringExecution;
    if (req !== undefined && req !== null) {
      if (!Array.isArray(req)) out.push(typeError(rp, req, 'a list'));
      else req.forEach((t: unknown, i: number) => validatePodAffinityTerm(t, `${rp}[${i}]`, out));
    }
    const pp = `${path}.${kind}.preferredDuringSchedulingIgnoredDuringExecution`;
    const pref = pa.preferredDuringSchedulingIgnoredDuringExecution;
    if (pref !== undefined && pref !== null) {
      if (!Array.isArray(pref)) out.push(typeError(pp, pref, 'a list'));
      else
        pref.forEach((t: Obj, i: number) => {
          if (!isObj(t)) return out.push(typeError(`${pp}[${i}]`, t, 'an object')) as unknown as void;
          validateWeight(t.weight, `${pp}[${i}].weight`, out);
          validatePodAffinityTerm(t.podAffinityTerm, `${pp}[${i}].podAffinityTerm`, out);
        });
    }
  }
}

function validateToleration(t: Obj, p: string, out: FieldError[]): void {
  if (!isObj(t)) return;
  if (t.key) for (const msg of isQualifiedName(t.key)) out.push(invalidValue(`${p}.key`, t.key, msg));
  const op = t.operator ?? 'Equal';
  if (!t.key && op !== 'Exists')
    out.push(
      invalidValue(
        `${p}.operator`,
        op,
        'operator must be Exists when `key` is empty, which means "match all values and all keys"',
      ),
    );
  if (op === 'Exists' && t.value)
    out.push(invalidValue(`${p}.operator`, t.value, "value must be empty when `operator` is 'Exists'"));
  else if (op === 'Equal') {
    if (t.value)
      for (const msg of isValidLabelValue(t.value)) out.push(invalidValue(`${p}.value`, t.value, msg));
  } else if (op !== 'Exists') out.push(notSupported(`${p}.operator`, op, ['Equal', 'Exists']));
  if (t.effect && !TAINT_EFFECTS.includes(t.effect))
    out.push(notSupported(`${p}.effect`, t.effect, TAINT_EFFECTS));
  if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') {
    out.push(
      invalidValue(
        `${p}.effect`,
        t.effect ?? '',
        "effect must be 'NoExecute' when `tolerationSeconds` is set",
      ),
    );
  }
}

function validateLabelSelector(sel: unknown, path: string, out: FieldError[]): void {
  if (!isObj(sel)) return;
  validateLabels(sel.matchLabels, `${path}.matchLabels`, out);
  if (Array.isArray(sel.matchExpressions)) {
    sel.matchExpressions.forEach((r: Obj, i: number) => {
      const p = `${path}.matchExpressions[${i}]`;
      if (!isObj(r)) return;
      const ops = ['DoesNotExist', 'Exists', 'In', 'NotIn'];
      if (!ops.includes(r.operator)) out.push(notSupported(`${p}.operator`, r.operator, ops));
      else if (
        (r.operator === 'In' || r.operator === 'NotIn') &&
        (!Array.isArray(r.values) || r.values.length === 0)
      ) {
        out.push(required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      } else if (
        (r.operator === 'Exists' || r.operator === 'DoesNotExist') &&
        Array.isArray(r.values) &&
        r.values.length > 0
      ) {
        out.push(
          forbiddenField(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        );
      }
      if (typeof r.key !== 'string') out.push(required(`${p}.key`));
      else for (const msg of isQualifiedName(r.key)) out.push(invalidValue(`${p}.key`, r.key, msg));
    });
  }
}

/** Does a LabelSelector (matchLabels + matchExpressions) select these labels? */
export function labelSelectorMatches(sel: Obj, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const r of sel.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, r.key);
    const vals: string[] = r.values ?? [];
    if (r.operator === 'In' && !(has && vals.includes(labels[r.key]!))) return false;
    if (r.operator === 'NotIn' && has && vals.includes(labels[r.key]!)) return false;
    if (r.operator === 'Exists' && !has) return false;
    if (r.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

function validateWorkload(o: Obj, kind: 'Deployment' | 'ReplicaSet', out: FieldError[]): void {
  const s = o.spec;
  if (!isObj(s)) {
    out.push(required('spec'));
    return;
  }
  if (s.replicas !== undefined && (!isInt(s.replicas) || s.replicas < 0)) {
    out.push(invalidValue('spec.replicas', s.replicas, 'must be greater than or equal to 0'));
  }
  if (s.minReadySeconds !== undefined && (!isInt(s.minReadySeconds) || s.minReadySeconds < 0)) {
    out.push(invalidValue('spec.minReadySeconds', s.minReadySeconds, 'must be greater than or equal to 0'));
  }
  const sel = s.selector;
  if (!isObj(sel)) out.push(required('spec.selector'));
  else {
    validateLabelSelector(sel, 'spec.selector', out);
    const empty =
      Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0;
    if (empty)
      out.push(
        invalidValue(
          'spec.selector',
          sel,
          `empty selector is invalid for ${kind === 'Deployment' ? 'deployment' : 'replicaset'}`,
        ),
      );
  }
  const t = s.template;
  if (!isObj(t)) {
    out.push(required('spec.template'));
    return;
  }
  const tl: Record<string, string> = isObj(t.metadata?.labels) ? t.metadata.labels : {};
  if (
    isObj(sel) &&
    !(Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0)
  ) {
    if (!labelSelectorMatches(sel, tl)) {
      out.push(
        invalidValue('spec.template.metadata.labels', tl, '`selector` does not match template `labels`'),
      );
    }
  }
  if (isObj(t.metadata))
    validateMeta(t, { kind: 'Pod' } as ResourceInfo, out, 'spec.template.metadata', true);
  validatePodSpec(t.spec, 'spec.template.spec', out, true);
  if (kind === 'Deployment') {
    const st = s.strategy;
    if (isObj(st)) {
      if (st.type !== undefined && !['Recreate', 'RollingUpdate'].includes(st.type)) {
        out.push(notSupported('spec.strategy.type', st.type, ['Recreate', 'RollingUpdate']));
      }
      if (st.type === 'Recreate' && st.rollingUpdate) {
        out.push(
          forbiddenField(
            'spec.strategy.rollingUpdate',
            "may not be specified when strategy `type` is 'Recreate'",
          ),
        );
      }
      const ru = st.rollingUpdate;
      if (isObj(ru)) {
        const zero = (v: unknown) => v === 0 || v === '0%' || v === '0';
        for (const f of ['maxUnavailable', 'maxSurge']) {
          const v = ru[f];
          if (v === undefined) continue;
          if (typeof v === 'string') {
            if (!/^[0-9]+%$/.test(v))
              out.push(
                invalidValue(
                  `spec.strategy.rollingUpdate.${f}`,
                  v,
                  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
                ),
              );
            else if (f === 'maxUnavailable' && Number(v.slice(0, -1)) > 100)
              out.push(invalidValue(`spec.strategy.rollingUpdate.${f}`, v, 'must not be greater than 100%'));
          } else if (!isInt(v) || v < 0)
            out.push(
              invalidValue(`spec.strategy.rollingUpdate.${f}`, v, 'must be greater than or equal to 0'),
            );
        }
        if (zero(ru.maxUnavailable) && zero(ru.maxSurge)) {
          out.push(
            invalidValue(
              'spec.strategy.rollingUpdate.maxUnavailable',
              ru.maxUnavailable,
              'may not be 0 when `maxSurge` is 0',
            ),
          );
        }
      }
    }
    if (
      s.revisionHistoryLimit !== undefined &&
      (!isInt(s.revisionHistoryLimit) || s.revisionHistoryLimit < 0)
    ) {
      out.push(
        invalidValue(
          'spec.revisionHistoryLimit',
          s.revisionHistoryLimit,
          'must be greater than or equal to 0',
        ),
      );
    }
    if (
      s.progressDeadlineSeconds !== undefined &&
      isInt(s.progressDeadlineSeconds) &&
      isInt(s.minReadySeconds) &&
      s.progressDeadlineSeconds <= s.minReadySeconds
    ) {
      out.push(
        invalidValue(
          'spec.progressDeadlineSeconds',
          s.progressDeadlineSeconds,
          'must be greater than minReadySeconds',
        ),
      );
    }
  }
}

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

function validateService(o: Obj, out: FieldError[]): void {
  const s = o.spec;
  if (!isObj(s)) {
    out.push(required('spec'));
    return;
  }
  const type = s.type ?? 'ClusterIP';
  if (!SERVICE_TYPES.includes(type)) out.push(notSupported('spec.type', type, SERVICE_TYPES));
  const headless = s.clusterIP === 'None';
  if (type === 'ExternalName') {
    if (!s.externalName) out.push(required('spec.externalName'));
    else
      for (const msg of isDNS1123Subdomain(String(s.externalName).replace(/\.$/, '')))
        out.push(invalidValue('spec.externalName', s.externalName, msg));
  }
  if (s.ports === undefined || (Array.isArray(s.ports) && s.ports.length === 0)) {
    if (!headless && type !== 'ExternalName') out.push(required('spec.ports'));
  } else if (!Array.isArray(s.ports)) out.push(typeError('spec.ports', s.ports, 'a list'));
  else {
    const requireName = s.ports.length > 1;
    const names = new Set<string>();
    const seen = new Set<string>();
    s.ports.forEach((p: Obj, i: number) => {
      const pp = `spec.ports[${i}]`;
      if (!isObj(p)) return;
      if (requireName && !p.name) out.push(required(`${pp}.name`));
      else if (p.name) {
        validateNameWith(isDNS1123Label, `${pp}.name`, String(p.name), out);
        if (names.has(p.name)) out.push(duplicate(`${pp}.name`, p.name));
        names.add(p.name);
      }
      for (const msg of isValidPortNum(p.port)) out.push(invalidValue(`${pp}.port`, p.port, msg));
      const proto = p.protocol ?? 'TCP';
      if (!PROTOCOLS.includes(proto)) out.push(notSupported(`${pp}.protocol`, proto, PROTOCOLS));
      const tp = p.targetPort;
      if (typeof tp === 'number') {
        for (const msg of isValidPortNum(tp)) out.push(invalidValue(`${pp}.targetPort`, tp, msg));
      } else if (typeof tp === 'string' && tp !== '') {
        for (const msg of isValidPortName(tp)) out.push(invalidValue(`${pp}.targetPort`, tp, msg));
      }
      if (p.nodePort !== undefined && p.nodePort !== 0) {
        if (type !== 'NodePort' && type !== 'LoadBalancer') {
          out.push(forbiddenField(`${pp}.nodePort`, `may not be used when \`type\` is '${type}'`));
        } else
          for (const msg of isValidPortNum(p.nodePort))
            out.push(invalidValue(`${pp}.nodePort`, p.nodePort, msg));
      }
      const id = `${p.port}/${proto}`;
      if (seen.has(id)) out.push(duplicate(pp, `${p.port}/${proto}`));
      seen.add(id);
    });
  }
  validateLabels(s.selector, 'spec.selector', out);
  if (s.sessionAffinity !== undefined && !['ClientIP', 'None'].includes(s.sessionAffinity)) {
    out.push(notSupported('spec.sessionAffinity', s.sessionAffinity, ['ClientIP', 'None']));
  }
  if (s.externalTrafficPolicy !== undefined) {
    if (type !== 'NodePort' && type !== 'LoadBalancer') {
      out.push(
        invalidValue(
          'spec.externalTrafficPolicy',
          s.externalTrafficPolicy,
          "may only be set when `type` is 'NodePort' or 'LoadBalancer'",
        ),
      );
    } else if (!['Cluster', 'Local'].includes(s.externalTrafficPolicy)) {
      out.push(notSupported('spec.externalTrafficPolicy', s.externalTrafficPolicy, ['Cluster', 'Local']));
    }
  }
  if (
    s.internalTrafficPolicy !== undefined &&
    !['Cluster', 'Local'].includes(s.internalTrafficPolicy) &&
    type !== 'ExternalName'
  ) {
    out.push(notSupported('spec.internalTrafficPolicy', s.internalTrafficPolicy, ['Cluster', 'Local']));
  }
  if (
    typeof s.clusterIP === 'string' &&
    s.clusterIP !== '' &&
    s.clusterIP !== 'None' &&
    ipv4ToInt(s.clusterIP) === undefined &&
    !s.clusterIP.includes(':')
  ) {
    out.push(
      invalidValue(
        'spec.clusterIPs[0]',
        s.clusterIP,
        'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      ),
    );
  }
}

function validateEndpointSlice(o: Obj, out: FieldError[]): void {
  const types = ['FQDN', 'IPv4', 'IPv6'];
  if (!o.addressType) out.push(required('addressType'));
  else if (!types.includes(o.addressType)) out.push(notSupported('addressType', o.addressType, types));
  if (o.endpoints !== undefined && o.endpoints !== null && !Array.isArray(o.endpoints))
    out.push(typeError('endpoints', o.endpoints, 'a list'));
  if (Array.isArray(o.endpoints)) {
    if (o.endpoints.length > 1000) out.push(tooMany('endpoints', o.endpoints.length, 1000));
    o.endpoints.forEach((e: Obj, i: number) => {
      const p = `endpoints[${i}]`;
      if (!isObj(e)) return;
      if (!Array.isArray(e.addresses) || e.addresses.length === 0)
        out.push(required(`${p}.addresses`, 'must contain at least 1 address'));
      else {
        if (e.addresses.length > 100) out.push(tooMany(`${p}.addresses`, e.addresses.length, 100));
        e.addresses.forEach((a: unknown, j: number) => {
          const ap = `${p}.addresses[${j}]`;
          if (o.addressType === 'IPv4' && (typeof a !== 'string' || ipv4ToInt(a) === undefined)) {
            out.push(invalidValue(ap, a, 'must be a valid IPv4 address'));
          } else if (o.addressType === 'IPv6' && (typeof a !== 'string' || !a.includes(':'))) {
            out.push(invalidValue(ap, a, 'must be a valid IPv6 address'));
          } else if (o.addressType === 'FQDN' && typeof a === 'string') {
            for (const msg of isDNS1123Subdomain(a)) out.push(invalidValue(ap, a, msg));
          }
        });
      }
      if (e.nodeName) validateNameWith(isDNS1123Subdomain, `${p}.nodeName`, String(e.nodeName), out);
      if (e.hostname) validateNameWith(isDNS1123Label, `${p}.hostname`, String(e.hostname), out);
    });
  }
  if (o.ports !== undefined && o.ports !== null) {
    if (!Array.isArray(o.ports)) out.push(typeError('ports', o.ports, 'a list'));
    else {
      if (o.ports.length > 20000) out.push(tooMany('ports', o.ports.length, 20000));
      const names = new Set<string>();
      o.ports.forEach((pt: Obj, i: number) => {
        const p = `ports[${i}]`;
        if (!isObj(pt)) return;
        const name = pt.name ?? '';
        if (name !== '') validateNameWith(isDNS1123Label, `${p}.name`, String(name), out);
        if (names.has(name)) out.push(duplicate(`${p}.name`, name));
        names.add(name);
        if (pt.port !== undefined && pt.port !== null)
          for (const msg of isValidPortNum(pt.port)) out.push(invalidValue(`${p}.port`, pt.port, msg));
        if (pt.protocol !== undefined && !PROTOCOLS.includes(pt.protocol))
          out.push(notSupported(`${p}.protocol`, pt.protocol, PROTOCOLS));
      });
    }
  }
}

function validateNode(o: Obj, out: FieldError[]): void {
  const s = o.spec;
  if (isObj(s) && Array.isArray(s.taints)) {
    const seen = new Set<string>();
    s.taints.forEach((t: Obj, i: number) => {
      const p = `spec.taints[${i}]`;
      if (!isObj(t)) return;
      if (!t.key) out.push(required(`${p}.key`));
      else for (const msg of isQualifiedName(t.key)) out.push(invalidValue(`${p}.key`, t.key, msg));
      if (t.value)
        for (const msg of isValidLabelValue(t.value)) out.push(invalidValue(`${p}.value`, t.value, msg));
      if (!t.effect) out.push(required(`${p}.effect`));
      else if (!TAINT_EFFECTS.includes(t.effect))
        out.push(notSupported(`${p}.effect`, t.effect, TAINT_EFFECTS));
      const id = `${t.key}:${t.effect}`;
      if (seen.has(id)) out.push(duplicate(p, `taints must be unique by key and effect pair`));
      seen.add(id);
    });
  }
  const st = o.status;
  if (isObj(st)) {
    validateResourceList(st.capacity, 'status.capacity', out, false);
    validateResourceList(st.allocatable, 'status.allocatable', out, false);
  }
}

function validateLease(o: Obj, out: FieldError[]): void {
  const s = o.spec;
  if (!isObj(s)) return;
  if (
    s.leaseDurationSeconds !== undefined &&
    (!isInt(s.leaseDurationSeconds) || s.leaseDurationSeconds <= 0)
  ) {
    out.push(invalidValue('spec.leaseDurationSeconds', s.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (s.leaseTransitions !== undefined && (!isInt(s.leaseTransitions) || s.leaseTransitions < 0)) {
    out.push(invalidValue('spec.leaseTransitions', s.leaseTransitions, 'must be greater than or equal to 0'));
  }
}

function validateEvent(o: Obj, out: FieldError[]): void {
  const io = o.involvedObject ?? o.regarding;
  const ns = o.metadata?.namespace;
  if (isObj(io) && io.namespace && ns && io.namespace !== ns) {
    out.push(
      invalidValue(
        o.involvedObject ? 'involvedObject.namespace' : 'regarding.namespace',
        io.namespace,
        'does not match event.namespace',
      ),
    );
  }
  if (o.type !== undefined && !['Normal', 'Warning'].includes(o.type))
    out.push(notSupported('type', o.type, ['Normal', 'Warning']));
}

/**
 * Validate an object of a served kind (as the registry's strategy.Validate does on create).
 * Returns errors and, with unknownFields 'Warn', warnings (FieldError.warning).
 */
export function validateObject(
  obj: KubeObject,
  info: ResourceInfo,
  opts: ValidateOptions = {},
): FieldError[] {
  const out: FieldError[] = [];
  const o = obj as Obj;
  validateMeta(o, info, out);
  switch (info.kind) {
    case 'Pod':
      validatePodSpec(o.spec, 'spec', out);
      break;
    case 'Deployment':
    case 'ReplicaSet':
      validateWorkload(o, info.kind, out);
      break;
    case 'Service':
      validateService(o, out);
      break;
    case 'EndpointSlice':
      validateEndpointSlice(o, out);
      break;
    case 'Node':
      validateNode(o, out);
      break;
    case 'Lease':
      validateLease(o, out);
      break;
    case 'Event':
      validateEvent(o, out);
      break;
  }
  const policy = opts.unknownFields ?? 'Strict';
  if (policy !== 'Ignore') out.push(...unknownFields(obj, policy === 'Warn'));
  return out;
}

/** The pod spec fields an update may change (ValidatePodUpdate), with upstream's message. */
const POD_UPDATE_FORBIDDEN =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** A shallow view of a pod spec without the fields an update may change (no deep copy). */
function stripMutablePodFields(spec: Obj | undefined): Obj {
  const s: Obj = { ...(spec ?? {}) };
  const strip = (list: unknown) =>
    Array.isArray(list) ? list.map((c) => (isObj(c) ? { ...c, image: undefined } : c)) : list;
  s.containers = strip(s.containers);
  s.initContainers = strip(s.initContainers);
  delete s.activeDeadlineSeconds;
  delete s.tolerations;
  delete s.terminationGracePeriodSeconds;
  return s;
}

const sameJSON = deepEqual;

/** Update rules (immutability) on top of validateObject, as ValidateXUpdate. */
export function validateObjectUpdate(
  next: KubeObject,
  old: KubeObject,
  info: ResourceInfo,
  sub: 'main' | 'status' = 'main',
): FieldError[] {
  const out: FieldError[] = [];
  if (sub === 'status') return out;
  const n = next as Obj;
  const o = old as Obj;
  switch (info.kind) {
    case 'Pod': {
      if (!sameJSON(stripMutablePodFields(n.spec), stripMutablePodFields(o.spec)))
        out.push(forbiddenField('spec', POD_UPDATE_FORBIDDEN));
      const oldTol: unknown[] = Array.isArray(o.spec?.tolerations) ? o.spec.tolerations : [];
      const newTol: unknown[] = Array.isArray(n.spec?.tolerations) ? n.spec.tolerations : [];
      for (const t of oldTol) {
        if (!newTol.some((x) => sameJSON(x, t))) {
          out.push(
            forbiddenField(
              'spec.tolerations',
              'existing toleration can not be modified except its tolerationSeconds',
            ),
          );
          break;
        }
      }
      break;
    }
    case 'Deployment':
    case 'ReplicaSet':
      if (!sameJSON(n.spec?.selector, o.spec?.selector))
        out.push(invalidValue('spec.selector', n.spec?.selector, 'field is immutable'));
      break;
    case 'Service':
      if (
        o.spec?.clusterIP &&
        n.spec?.clusterIP !== o.spec.clusterIP &&
        o.spec.type !== 'ExternalName' &&
        n.spec?.type !== 'ExternalName'
      ) {
        out.push(
          invalidValue(
            'spec.clusterIPs[0]',
            n.spec?.clusterIPs ?? [n.spec?.clusterIP ?? ''],
            'may not change once set',
          ),
        );
      }
      break;
    case 'EndpointSlice':
      if (n.addressType !== o.addressType)
        out.push(invalidValue('addressType', n.addressType, 'field is immutable'));
      break;
  }
  return out;
}

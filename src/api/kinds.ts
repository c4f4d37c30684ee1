/**
 * Every built-in kind of Kubernetes v1.34 that kube-apiserver stores, one row per kind, as its
 * discovery documents list them (upstream: api/discovery/api__v1.json and
 * api/discovery/apis__<group>__<version>.json, i.e. `kubectl api-resources` of that release):
 * group, the versions served by default (the preferred one first), plural and singular resource
 * names, scope, short names, categories, and the status/scale subresources. Only API versions
 * enabled by default are served (GA ones; no beta version is on by default in v1.34).
 *
 * Left out on purpose: kinds that are never stored (Binding, which is pods/binding; ComponentStatus,
 * computed on read; TokenReview, SelfSubjectReview and the *AccessReview / SelfSubjectRulesReview
 * kinds, which answer a create and keep nothing) and subresource kinds (Scale, Eviction, TokenRequest).
 *
 * `name` is the kind's metadata.name rule (its ValidateXName): a DNS-1123 subdomain unless the row
 * says otherwise — `label` for Namespace, `dns1035` for Service, `path` (a path segment: not `.`
 * or `..`, no `/` or `%`) for the RBAC kinds, `any` for CertificateSigningRequest ("We don't care
 * what you call your certificate requests").
 */

export const KUBERNETES_RELEASE = 'v1.34';

/**
 * The one Kubernetes version kubesim reports everywhere: `kubesim version`, the server's `/version`
 * and OpenAPI info, and the kubelet's node status (status.nodeInfo.kubeletVersion). Every modelled
 * default follows this release (docs/defaults.md).
 */
export const KUBERNETES_VERSION = { major: '1', minor: '34', gitVersion: 'v1.34.0' } as const;

/**
 * The status.nodeInfo a kubelet of this release registers its node with (upstream
 * pkg/kubelet/nodestatus VersionInfo and GoRuntime setters): kubeletVersion, and the operating
 * system and architecture of its node labels. kubeProxyVersion is not set (DisableNodeKubeProxyVersion,
 * on since v1.31); machine, kernel and runtime fields are not modelled.
 */
export function registeredNodeInfo(
  labels: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  return {
    kubeletVersion: KUBERNETES_VERSION.gitVersion,
    operatingSystem: labels?.['kubernetes.io/os'] ?? 'linux',
    architecture: labels?.['kubernetes.io/arch'] ?? 'amd64',
  };
}

/** How metadata.name is validated (upstream: the kind's ValidateXName function). */
export type NameRule = 'subdomain' | 'label' | 'dns1035' | 'path' | 'any';

export interface KindRow {
  kind: string;
  /** plural resource name */
  resource: string;
  /** API group ('' = core) */
  group: string;
  /** versions served by default, preferred first */
  versions: readonly string[];
  namespaced: boolean;
  shortNames: readonly string[];
  /** has a /status subresource */
  status: boolean;
  /** has a /scale subresource */
  scale: boolean;
  /** `all` for the kinds `kubectl get all` shows */
  categories: readonly string[];
  name: NameRule;
  /** PUT of a missing object creates it (the strategy's AllowCreateOnUpdate) */
  createOnUpdate: boolean;
}

interface RowOptions {
  short?: string[];
  status?: boolean;
  scale?: boolean;
  all?: boolean;
  name?: NameRule;
  createOnUpdate?: boolean;
  versions?: string[];
}

const NS = true;
/** resource.k8s.io: v1 preferred, v1beta2 and v1beta1 read too */
const DRA_VERSIONS = ['v1', 'v1beta2', 'v1beta1'];
const CLUSTER = false;

function row(
  kind: string,
  resource: string,
  group: string,
  namespaced: boolean,
  o: RowOptions = {},
): KindRow {
  return {
    kind,
    resource,
    group,
    versions: o.versions ?? ['v1'],
    namespaced,
    shortNames: o.short ?? [],
    status: o.status ?? false,
    scale: o.scale ?? false,
    categories: o.all ? ['all'] : [],
    name: o.name ?? 'subdomain',
    createOnUpdate: o.createOnUpdate ?? false,
  };
}

/** The built-in kinds, grouped as discovery lists them. */
export const BUILTIN_KINDS: readonly KindRow[] = [
  // core (api/v1)
  row('ConfigMap', 'configmaps', '', NS, { short: ['cm'] }),
  row('Endpoints', 'endpoints', '', NS, { short: ['ep'], createOnUpdate: true }),
  row('Event', 'events', '', NS, { short: ['ev'], createOnUpdate: true }),
  row('LimitRange', 'limitranges', '', NS, { short: ['limits'], createOnUpdate: true }),
  row('Namespace', 'namespaces', '', CLUSTER, { short: ['ns'], status: true, name: 'label' }),
  row('Node', 'nodes', '', CLUSTER, { short: ['no'], status: true }),
  row('PersistentVolumeClaim', 'persistentvolumeclaims', '', NS, { short: ['pvc'], status: true }),
  row('PersistentVolume', 'persistentvolumes', '', CLUSTER, { short: ['pv'], status: true }),
  row('Pod', 'pods', '', NS, { short: ['po'], status: true, all: true }),
  row('PodTemplate', 'podtemplates', '', NS),
  row('ReplicationController', 'replicationcontrollers', '', NS, {
    short: ['rc'],
    status: true,
    scale: true,
    all: true,
  }),
  row('ResourceQuota', 'resourcequotas', '', NS, { short: ['quota'], status: true }),
  row('Secret', 'secrets', '', NS),
  row('ServiceAccount', 'serviceaccounts', '', NS, { short: ['sa'] }),
  row('Service', 'services', '', NS, { short: ['svc'], status: true, all: true, name: 'dns1035' }),
  // admissionregistration.k8s.io/v1
  row(
    'MutatingWebhookConfiguration',
    'mutatingwebhookconfigurations',
    'admissionregistration.k8s.io',
    CLUSTER,
  ),
  row('ValidatingAdmissionPolicy', 'validatingadmissionpolicies', 'admissionregistration.k8s.io', CLUSTER, {
    status: true,
  }),
  row(
    'ValidatingAdmissionPolicyBinding',
    'validatingadmissionpolicybindings',
    'admissionregistration.k8s.io',
    CLUSTER,
  ),
  row(
    'ValidatingWebhookConfiguration',
    'validatingwebhookconfigurations',
    'admissionregistration.k8s.io',
    CLUSTER,
  ),
  // apiextensions.k8s.io/v1
  row('CustomResourceDefinition', 'customresourcedefinitions', 'apiextensions.k8s.io', CLUSTER, {
    short: ['crd', 'crds'],
    status: true,
  }),
  // apiregistration.k8s.io/v1
  row('APIService', 'apiservices', 'apiregistration.k8s.io', CLUSTER, { status: true }),
  // apps/v1
  row('ControllerRevision', 'controllerrevisions', 'apps', NS),
  row('DaemonSet', 'daemonsets', 'apps', NS, { short: ['ds'], status: true, all: true }),
  row('Deployment', 'deployments', 'apps', NS, { short: ['deploy'], status: true, scale: true, all: true }),
  row('ReplicaSet', 'replicasets', 'apps', NS, { short: ['rs'], status: true, scale: true, all: true }),
  row('StatefulSet', 'statefulsets', 'apps', NS, { short: ['sts'], status: true, scale: true, all: true }),
  // autoscaling/v2, v1
  row('HorizontalPodAutoscaler', 'horizontalpodautoscalers', 'autoscaling', NS, {
    short: ['hpa'],
    status: true,
    all: true,
    versions: ['v2', 'v1'],
  }),
  // batch/v1
  row('CronJob', 'cronjobs', 'batch', NS, { short: ['cj'], status: true, all: true }),
  row('Job', 'jobs', 'batch', NS, { status: true, all: true }),
  // certificates.k8s.io/v1
  row('CertificateSigningRequest', 'certificatesigningrequests', 'certificates.k8s.io', CLUSTER, {
    short: ['csr'],
    status: true,
    name: 'any',
  }),
  // coordination.k8s.io/v1
  row('Lease', 'leases', 'coordination.k8s.io', NS, { createOnUpdate: true }),
  // discovery.k8s.io/v1
  row('EndpointSlice', 'endpointslices', 'discovery.k8s.io', NS),
  // flowcontrol.apiserver.k8s.io/v1
  row('FlowSchema', 'flowschemas', 'flowcontrol.apiserver.k8s.io', CLUSTER, { status: true }),
  row('PriorityLevelConfiguration', 'prioritylevelconfigurations', 'flowcontrol.apiserver.k8s.io', CLUSTER, {
    status: true,
  }),
  // networking.k8s.io/v1
  row('IngressClass', 'ingressclasses', 'networking.k8s.io', CLUSTER),
  row('Ingress', 'ingresses', 'networking.k8s.io', NS, { short: ['ing'], status: true }),
  row('IPAddress', 'ipaddresses', 'networking.k8s.io', CLUSTER, { short: ['ip'] }),
  row('NetworkPolicy', 'networkpolicies', 'networking.k8s.io', NS, { short: ['netpol'] }),
  row('ServiceCIDR', 'servicecidrs', 'networking.k8s.io', CLUSTER, { status: true }),
  // node.k8s.io/v1
  row('RuntimeClass', 'runtimeclasses', 'node.k8s.io', CLUSTER),
  // policy/v1
  row('PodDisruptionBudget', 'poddisruptionbudgets', 'policy', NS, { short: ['pdb'], status: true }),
  // rbac.authorization.k8s.io/v1
  row('ClusterRoleBinding', 'clusterrolebindings', 'rbac.authorization.k8s.io', CLUSTER, { name: 'path' }),
  row('ClusterRole', 'clusterroles', 'rbac.authorization.k8s.io', CLUSTER, { name: 'path' }),
  row('RoleBinding', 'rolebindings', 'rbac.authorization.k8s.io', NS, { name: 'path' }),
  row('Role', 'roles', 'rbac.authorization.k8s.io', NS, { name: 'path' }),
  // resource.k8s.io/v1, and the beta versions snapshots of older clusters (and clusters that
  // enable them with --runtime-config) carry; they are stored as v1 (api/resource-convert.ts)
  row('DeviceClass', 'deviceclasses', 'resource.k8s.io', CLUSTER, { versions: DRA_VERSIONS }),
  row('ResourceClaim', 'resourceclaims', 'resource.k8s.io', NS, { status: true, versions: DRA_VERSIONS }),
  row('ResourceClaimTemplate', 'resourceclaimtemplates', 'resource.k8s.io', NS, { versions: DRA_VERSIONS }),
  row('ResourceSlice', 'resourceslices', 'resource.k8s.io', CLUSTER, { versions: DRA_VERSIONS }),
  // scheduling.k8s.io/v1
  row('PriorityClass', 'priorityclasses', 'scheduling.k8s.io', CLUSTER, { short: ['pc'] }),
  // storage.k8s.io/v1
  row('CSIDriver', 'csidrivers', 'storage.k8s.io', CLUSTER),
  row('CSINode', 'csinodes', 'storage.k8s.io', CLUSTER),
  row('CSIStorageCapacity', 'csistoragecapacities', 'storage.k8s.io', NS),
  row('StorageClass', 'storageclasses', 'storage.k8s.io', CLUSTER, { short: ['sc'] }),
  row('VolumeAttachment', 'volumeattachments', 'storage.k8s.io', CLUSTER, { status: true }),
  row('VolumeAttributesClass', 'volumeattributesclasses', 'storage.k8s.io', CLUSTER, { short: ['vac'] }),
];

/**
 * Kinds served under a second group with the same storage (upstream registers events.k8s.io/v1
 * Event over the core events storage): `group/version Kind` → the row's kind.
 */
export const KIND_ALIASES: Readonly<Record<string, string>> = {
  'events.k8s.io/v1 Event': 'Event',
};

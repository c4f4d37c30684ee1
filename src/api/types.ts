/**
 * Kubernetes resource types with Kubernetes' own field names (core/v1, apps/v1, discovery/v1,
 * coordination/v1, events), so that real manifests and `kubectl get -o yaml|json` output load
 * unchanged. Only the fields kubesim reads are typed; unknown-but-valid fields survive as-is
 * (validation decides which unknown fields are errors). Quantities stay strings here
 * (`"100m"`, `"1.5Gi"`); src/api/quantity.ts parses them exactly.
 */

export type Labels = Record<string, string>;

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Labels;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
}

export interface TypeMeta {
  apiVersion: string;
  kind: string;
}

export interface KubeObject extends TypeMeta {
  metadata: ObjectMeta;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Labels;
  matchExpressions?: LabelSelectorRequirement[];
}

export type ResourceList = Record<string, string | number>;

// ---------------------------------------------------------------- Node

export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export interface Taint {
  key: string;
  value?: string;
  effect: TaintEffect;
  timeAdded?: string;
}

export interface NodeCondition {
  type: string; // Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable
  status: 'True' | 'False' | 'Unknown';
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface NodeAddress {
  type: 'InternalIP' | 'ExternalIP' | 'Hostname' | 'InternalDNS' | 'ExternalDNS';
  address: string;
}

export interface ContainerImage {
  names?: string[];
  sizeBytes?: number;
}

export interface NodeSpec {
  podCIDR?: string;
  podCIDRs?: string[];
  providerID?: string;
  unschedulable?: boolean;
  taints?: Taint[];
}

export interface NodeStatus {
  capacity?: ResourceList;
  allocatable?: ResourceList;
  conditions?: NodeCondition[];
  addresses?: NodeAddress[];
  images?: ContainerImage[];
  nodeInfo?: Record<string, string>;
}

export interface Node extends KubeObject {
  kind: 'Node';
  spec?: NodeSpec;
  status?: NodeStatus;
}

// ---------------------------------------------------------------- Pod

export interface ContainerPort {
  name?: string;
  containerPort: number;
  hostPort?: number;
  hostIP?: string;
  protocol?: 'TCP' | 'UDP' | 'SCTP';
}

export interface ResourceRequirements {
  requests?: ResourceList;
  limits?: ResourceList;
}

export interface Probe {
  initialDelaySeconds?: number;
  periodSeconds?: number;
  timeoutSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  [handler: string]: unknown;
}

export interface Container {
  name: string;
  image?: string;
  imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  command?: string[];
  args?: string[];
  ports?: ContainerPort[];
  resources?: ResourceRequirements;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  /** native sidecar (init container that keeps running) when 'Always' */
  restartPolicy?: 'Always';
  [field: string]: unknown;
}

export interface NodeSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values?: string[];
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

export interface NodeSelector {
  nodeSelectorTerms: NodeSelectorTerm[];
}

export interface PreferredSchedulingTerm {
  weight: number;
  preference: NodeSelectorTerm;
}

export interface NodeAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector;
  preferredDuringSchedulingIgnoredDuringExecution?: PreferredSchedulingTerm[];
}

export interface PodAffinityTerm {
  labelSelector?: LabelSelector;
  namespaces?: string[];
  namespaceSelector?: LabelSelector;
  topologyKey: string;
  matchLabelKeys?: string[];
  mismatchLabelKeys?: string[];
}

export interface WeightedPodAffinityTerm {
  weight: number;
  podAffinityTerm: PodAffinityTerm;
}

export interface PodAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
  preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[];
}

export interface Affinity {
  nodeAffinity?: NodeAffinity;
  podAffinity?: PodAffinity;
  podAntiAffinity?: PodAffinity;
}

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: TaintEffect | '';
  tolerationSeconds?: number;
}

export interface TopologySpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  labelSelector?: LabelSelector;
  minDomains?: number;
  nodeAffinityPolicy?: 'Honor' | 'Ignore';
  nodeTaintsPolicy?: 'Honor' | 'Ignore';
  matchLabelKeys?: string[];
}

export interface PodSpec {
  nodeName?: string;
  nodeSelector?: Labels;
  affinity?: Affinity;
  tolerations?: Toleration[];
  topologySpreadConstraints?: TopologySpreadConstraint[];
  schedulerName?: string;
  priority?: number;
  priorityClassName?: string;
  preemptionPolicy?: 'PreemptLowerPriority' | 'Never';
  overhead?: ResourceList;
  containers: Container[];
  initContainers?: Container[];
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  terminationGracePeriodSeconds?: number;
  hostNetwork?: boolean;
  [field: string]: unknown;
}

export interface PodCondition {
  type: string; // PodScheduled, Initialized, ContainersReady, Ready
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface PodStatus {
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  conditions?: PodCondition[];
  hostIP?: string;
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: string;
  nominatedNodeName?: string;
  reason?: string;
  message?: string;
  [field: string]: unknown;
}

export interface Pod extends KubeObject {
  kind: 'Pod';
  spec: PodSpec;
  status?: PodStatus;
}

export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  spec: PodSpec;
}

/** The `pods/binding` subresource body. */
export interface Binding extends KubeObject {
  kind: 'Binding';
  target: { apiVersion?: string; kind: 'Node'; name: string };
}

// ---------------------------------------------------------------- Service, EndpointSlice

export interface ServicePort {
  name?: string;
  protocol?: 'TCP' | 'UDP' | 'SCTP';
  port: number;
  targetPort?: number | string;
  nodePort?: number;
  appProtocol?: string;
}

export interface ServiceSpec {
  type?: 'ClusterIP' | 'NodePort' | 'LoadBalancer' | 'ExternalName';
  selector?: Labels;
  ports?: ServicePort[];
  clusterIP?: string;
  clusterIPs?: string[];
  ipFamilies?: ('IPv4' | 'IPv6')[];
  externalIPs?: string[];
  loadBalancerIP?: string;
  loadBalancerSourceRanges?: string[];
  externalName?: string;
  sessionAffinity?: 'None' | 'ClientIP';
  sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number } };
  externalTrafficPolicy?: 'Cluster' | 'Local';
  internalTrafficPolicy?: 'Cluster' | 'Local';
  healthCheckNodePort?: number;
  publishNotReadyAddresses?: boolean;
}

export interface ServiceStatus {
  loadBalancer?: { ingress?: { ip?: string; hostname?: string; ipMode?: 'VIP' | 'Proxy' }[] };
}

export interface Service extends KubeObject {
  kind: 'Service';
  spec: ServiceSpec;
  status?: ServiceStatus;
}

export interface EndpointConditions {
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
}

export interface Endpoint {
  addresses: string[];
  conditions?: EndpointConditions;
  hostname?: string;
  nodeName?: string;
  zone?: string;
  targetRef?: { kind?: string; namespace?: string; name?: string; uid?: string };
  hints?: { forZones?: { name: string }[] };
}

export interface EndpointPort {
  name?: string;
  protocol?: 'TCP' | 'UDP' | 'SCTP';
  port?: number;
  appProtocol?: string;
}

/** discovery.k8s.io/v1; labels['kubernetes.io/service-name'] names the Service. */
export interface EndpointSlice extends KubeObject {
  kind: 'EndpointSlice';
  addressType: 'IPv4' | 'IPv6' | 'FQDN';
  endpoints: Endpoint[];
  ports?: EndpointPort[];
}

// ---------------------------------------------------------------- apps/v1

export interface DeploymentStrategy {
  type?: 'RollingUpdate' | 'Recreate';
  rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string };
}

export interface DeploymentSpec {
  replicas?: number;
  selector: LabelSelector;
  template: PodTemplateSpec;
  strategy?: DeploymentStrategy;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  progressDeadlineSeconds?: number;
  paused?: boolean;
}

export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  conditions?: {
    type: string;
    status: string;
    reason?: string;
    message?: string;
    lastUpdateTime?: string;
    lastTransitionTime?: string;
  }[];
}

export interface Deployment extends KubeObject {
  kind: 'Deployment';
  spec: DeploymentSpec;
  status?: DeploymentStatus;
}

export interface ReplicaSetSpec {
  replicas?: number;
  selector: LabelSelector;
  template: PodTemplateSpec;
  minReadySeconds?: number;
}

export interface ReplicaSetStatus {
  replicas: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
}

export interface ReplicaSet extends KubeObject {
  kind: 'ReplicaSet';
  spec: ReplicaSetSpec;
  status?: ReplicaSetStatus;
}

export interface DaemonSetSpec {
  selector: LabelSelector;
  template: PodTemplateSpec;
  updateStrategy?: {
    type?: 'RollingUpdate' | 'OnDelete';
    rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string };
  };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
}

export interface DaemonSetStatus {
  currentNumberScheduled: number;
  numberMisscheduled: number;
  desiredNumberScheduled: number;
  numberReady: number;
  observedGeneration?: number;
  updatedNumberScheduled?: number;
  numberAvailable?: number;
  numberUnavailable?: number;
  collisionCount?: number;
}

export interface DaemonSet extends KubeObject {
  kind: 'DaemonSet';
  spec: DaemonSetSpec;
  status?: DaemonSetStatus;
}

/** A volumeClaimTemplates entry: a PersistentVolumeClaim's metadata and spec. */
export interface PersistentVolumeClaimTemplate {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: Record<string, unknown>;
}

export interface StatefulSetSpec {
  replicas?: number;
  selector: LabelSelector;
  template: PodTemplateSpec;
  serviceName?: string;
  podManagementPolicy?: 'OrderedReady' | 'Parallel';
  updateStrategy?: {
    type?: 'RollingUpdate' | 'OnDelete';
    rollingUpdate?: { partition?: number; maxUnavailable?: number | string };
  };
  volumeClaimTemplates?: PersistentVolumeClaimTemplate[];
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  ordinals?: { start?: number };
  persistentVolumeClaimRetentionPolicy?: { whenDeleted?: string; whenScaled?: string };
}

export interface StatefulSetStatus {
  observedGeneration?: number;
  replicas: number;
  readyReplicas?: number;
  currentReplicas?: number;
  updatedReplicas?: number;
  currentRevision?: string;
  updateRevision?: string;
  collisionCount?: number;
  availableReplicas?: number;
}

export interface StatefulSet extends KubeObject {
  kind: 'StatefulSet';
  spec: StatefulSetSpec;
  status?: StatefulSetStatus;
}

// ---------------------------------------------------------------- others

export interface Namespace extends KubeObject {
  kind: 'Namespace';
  spec?: { finalizers?: string[] };
  status?: { phase?: 'Active' | 'Terminating' };
}

/** coordination.k8s.io/v1 Lease: node heartbeats and leader election. */
export interface Lease extends KubeObject {
  kind: 'Lease';
  spec: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** core/v1 Event (as `kubectl get events` shows). */
export interface Event extends KubeObject {
  kind: 'Event';
  involvedObject: {
    kind?: string;
    namespace?: string;
    name?: string;
    uid?: string;
    apiVersion?: string;
    resourceVersion?: string;
    fieldPath?: string;
  };
  reason?: string;
  message?: string;
  type?: 'Normal' | 'Warning';
  source?: { component?: string; host?: string };
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
  count?: number;
  reportingComponent?: string;
}

export type AnyResource =
  | Namespace
  | Node
  | Pod
  | Deployment
  | ReplicaSet
  | Service
  | EndpointSlice
  | Lease
  | Event;

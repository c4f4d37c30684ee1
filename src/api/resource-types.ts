/**
 * Dynamic Resource Allocation kinds of resource.k8s.io/v1 (DeviceClass, ResourceClaim,
 * ResourceClaimTemplate, ResourceSlice) with Kubernetes' field names, as far as the scheduler's
 * DynamicResources plugin, the structured allocator, the ResourceClaim controller and the planner
 * read them (upstream: staging/src/k8s.io/api/resource/v1/types.go). Other fields round-trip.
 * Objects of v1beta1/v1beta2 are converted to this shape on the way in (resource-convert.ts).
 */
import type { KubeObject, NodeSelector } from './types.js';

export const RESOURCE_GROUP = 'resource.k8s.io';
export const RESOURCE_API_VERSION = 'resource.k8s.io/v1';

/** upstream resourceapi.Finalizer: set on a claim while it is allocated */
export const CLAIM_FINALIZER = 'resource.kubernetes.io/delete-protection';
/** upstream AllocationResultsMaxSize: devices one claim may get */
export const ALLOCATION_RESULTS_MAX_SIZE = 32;
/** upstream ResourceClaimReservedForMaxSize */
export const RESERVED_FOR_MAX_SIZE = 256;
/** upstream ResourceSliceMaxDevices */
export const RESOURCE_SLICE_MAX_DEVICES = 128;
/** upstream ResourceSliceMaxAttributesAndCapacitiesPerDevice */
export const MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE = 32;
/** upstream DeviceRequestsMaxSize / DeviceConstraintsMaxSize / DeviceConfigMaxSize / DeviceSelectorsMaxSize */
export const DEVICE_REQUESTS_MAX_SIZE = 32;
export const DEVICE_CONSTRAINTS_MAX_SIZE = 32;
export const DEVICE_CONFIG_MAX_SIZE = 32;
export const DEVICE_SELECTORS_MAX_SIZE = 32;
/** upstream FirstAvailableDeviceRequestMaxSize */
export const FIRST_AVAILABLE_MAX_SIZE = 8;
/** upstream CELSelectorExpressionMaxLength */
export const CEL_SELECTOR_EXPRESSION_MAX_LENGTH = 10 * 1024;

export type DeviceAllocationMode = 'ExactCount' | 'All';

export interface DeviceSelector {
  cel?: { expression: string };
}

export interface DeviceToleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: 'NoSchedule' | 'NoExecute' | '';
  tolerationSeconds?: number;
}

export interface ExactDeviceRequest {
  deviceClassName: string;
  selectors?: DeviceSelector[];
  allocationMode?: DeviceAllocationMode;
  count?: number;
  adminAccess?: boolean;
  tolerations?: DeviceToleration[];
  [field: string]: unknown;
}

export interface DeviceSubRequest {
  name: string;
  deviceClassName: string;
  selectors?: DeviceSelector[];
  allocationMode?: DeviceAllocationMode;
  count?: number;
  tolerations?: DeviceToleration[];
  [field: string]: unknown;
}

export interface DeviceRequest {
  name: string;
  exactly?: ExactDeviceRequest;
  firstAvailable?: DeviceSubRequest[];
}

export interface DeviceConstraint {
  requests?: string[];
  matchAttribute?: string;
  [field: string]: unknown;
}

export interface DeviceConfiguration {
  opaque?: { driver: string; parameters: unknown };
}

export interface DeviceClaimConfiguration extends DeviceConfiguration {
  requests?: string[];
}

export interface ResourceClaimSpec {
  devices?: {
    requests?: DeviceRequest[];
    constraints?: DeviceConstraint[];
    config?: DeviceClaimConfiguration[];
  };
}

export interface DeviceRequestAllocationResult {
  request: string;
  driver: string;
  pool: string;
  device: string;
  adminAccess?: boolean;
  tolerations?: DeviceToleration[];
  [field: string]: unknown;
}

export interface DeviceAllocationConfiguration extends DeviceConfiguration {
  source: 'FromClass' | 'FromClaim';
  requests?: string[];
}

export interface AllocationResult {
  devices?: { results?: DeviceRequestAllocationResult[]; config?: DeviceAllocationConfiguration[] };
  nodeSelector?: NodeSelector;
  allocationTimestamp?: string;
}

export interface ResourceClaimConsumerReference {
  apiGroup?: string;
  resource: string;
  name: string;
  uid: string;
}

export interface ResourceClaim extends KubeObject {
  kind: 'ResourceClaim';
  spec: ResourceClaimSpec;
  status?: {
    allocation?: AllocationResult;
    reservedFor?: ResourceClaimConsumerReference[];
    devices?: unknown[];
  };
}

export interface ResourceClaimTemplate extends KubeObject {
  kind: 'ResourceClaimTemplate';
  spec: { metadata?: KubeObject['metadata']; spec: ResourceClaimSpec };
}

export interface DeviceClass extends KubeObject {
  kind: 'DeviceClass';
  spec: { selectors?: DeviceSelector[]; config?: DeviceConfiguration[]; [field: string]: unknown };
}

/** One attribute value: exactly one of the four is set. */
export interface DeviceAttribute {
  int?: number;
  bool?: boolean;
  string?: string;
  version?: string;
}

export interface DeviceCapacity {
  value: string;
  [field: string]: unknown;
}

export interface DeviceTaint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'NoExecute' | 'None' | string;
  timeAdded?: string;
}

export interface DeviceCounterConsumption {
  counterSet: string;
  counters: Record<string, { value: string }>;
}

export interface Device {
  name: string;
  attributes?: Record<string, DeviceAttribute>;
  capacity?: Record<string, DeviceCapacity>;
  consumesCounters?: DeviceCounterConsumption[];
  nodeName?: string;
  nodeSelector?: NodeSelector;
  allNodes?: boolean;
  taints?: DeviceTaint[];
  bindingConditions?: string[];
  [field: string]: unknown;
}

export interface CounterSet {
  name: string;
  counters: Record<string, { value: string }>;
}

export interface ResourceSlice extends KubeObject {
  kind: 'ResourceSlice';
  spec: {
    driver: string;
    pool: { name: string; generation: number; resourceSliceCount: number };
    nodeName?: string;
    nodeSelector?: NodeSelector;
    allNodes?: boolean;
    perDeviceNodeSelection?: boolean;
    devices?: Device[];
    sharedCounters?: CounterSet[];
  };
}

/** What the DynamicResources plugin and the planner read (upstream: the SharedDRAManager listers). */
export interface ResourceObjects {
  deviceClasses?: DeviceClass[];
  resourceClaims?: ResourceClaim[];
  resourceClaimTemplates?: ResourceClaimTemplate[];
  resourceSlices?: ResourceSlice[];
  /**
   * bumped by the owner whenever a list changes (the informer-backed lists of a simulation); without
   * it readers compare the lists by identity and length
   */
  revision?: number;
}

/** upstream structured.DeviceID: `<driver>/<pool>/<device>` */
export const deviceId = (driver: string, pool: string, device: string): string =>
  `${driver}/${pool}/${device}`;

/** the kinds of the resource.k8s.io group */
export const RESOURCE_KINDS: ReadonlySet<string> = new Set([
  'DeviceClass',
  'ResourceClaim',
  'ResourceClaimTemplate',
  'ResourceSlice',
]);

/**
 * kubesim's API layer: exact quantities, manifest loading and validation, and the ApiServer
 * facade over a KvStore. See docs/api.md.
 */
export type * from './types.js';
export * from './quantity.js';
export { ApiServer, deepEqual } from './apiserver.js';
export { rfc3339, rfc3339Micro } from './time.js';
export type {
  ApiServerOptions,
  ApiWatchEvent,
  CreateOptions,
  DeleteOptions,
  ListOptions,
  ListResult,
  WatchEventType,
  WatchHandle,
  WatchOptions,
} from './apiserver.js';
export * from './errors.js';
export * from './admission.js';
export * from './flowcontrol.js';
export * from './registry.js';
export { encode, decode, deepCopy, sharedCodec, portableCodec, type Codec } from './codec.js';
export * from './field-selector.js';
export * from './label-selector.js';
export * from './taints.js';
export * from './node-affinity.js';
export * from './topology.js';
export { podKey } from './keys.js';
export { FieldError, FieldPath, type FieldErrorType } from './field.js';
export {
  validateObject,
  validateObjectUpdate,
  validateLabels,
  validatePodSpec,
  unknownFields,
  type UnknownFieldPolicy,
  type ValidateOptions,
} from './validation.js';
export * from './validation-names.js';
export * from './manifest.js';
export * from './manifest-check.js';
export { applyDefaults, initialStatus, podQOSClass } from './defaults.js';
export { ClusterIPAllocator, NodePortAllocator } from './allocators.js';
export {
  BUILTIN_KINDS,
  KUBERNETES_RELEASE,
  KUBERNETES_VERSION,
  type KindRow,
  type NameRule,
} from './kinds.js';
export {
  admitPodPriority,
  defaultPriorityClass,
  SYSTEM_PRIORITY_CLASSES,
  HIGHEST_USER_DEFINABLE_PRIORITY,
  type PriorityClassLike,
} from './priority.js';
export { kindsWithCRDs } from './manifest-check.js';
export { podFromWorkload, isWorkload, assertPod, WorkloadError, WORKLOAD_KINDS } from './workload-pod.js';

/**
 * Object validation like the apiserver's (pkg/apis/core/validation, apps/validation,
 * discovery/validation, coordination/validation), for the kinds kubesim serves. Errors use
 * upstream's field paths, types and messages (see field.ts, validation-names.ts):
 *
 *   metadata.name: Invalid value: "Web_1": a lowercase RFC 1123 subdomain must consist of …
 *   spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1
 *   spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match template `labels`
 *
 * Every object gets ObjectMeta validation (validation-meta.ts) and the unknown-field check
 * (validation-schema.ts); the kind's own rules come from one file per kind family, listed in
 * RULES below.
 */
import type { FieldError } from './field.js';
import type { ResourceInfo } from './registry.js';
import type { KubeObject } from './types.js';
import { workloadRules } from './validation-apps.js';
import { crdRules } from './validation-crd.js';
import type { KindRules, Obj } from './validation-common.js';
import { podSpecWarnings } from './pod-warnings.js';
import { validateListMaps } from './validation-listmap.js';
import { validateMeta } from './validation-meta.js';
import { eventRules, leaseRules, nodeRules } from './validation-node.js';
import { podRules } from './validation-pod.js';
import {
  deviceClassRules,
  resourceClaimRules,
  resourceClaimTemplateRules,
  resourceSliceRules,
} from './validation-resource.js';
import { priorityClassRules } from './validation-scheduling.js';
import { unknownFields } from './validation-schema.js';
import { csiStorageCapacityRules } from './validation-storage.js';
import { endpointSliceRules, serviceRules } from './validation-service.js';

export type UnknownFieldPolicy = 'Strict' | 'Warn' | 'Ignore';

export interface ValidateOptions {
  /** how unknown fields are reported (default 'Strict' = errors) */
  unknownFields?: UnknownFieldPolicy;
}

/** Each kind's own rules, by kind. */
const RULES: Record<string, KindRules> = {
  Pod: podRules,
  Deployment: workloadRules,
  ReplicaSet: workloadRules,
  Service: serviceRules,
  EndpointSlice: endpointSliceRules,
  Node: nodeRules,
  Lease: leaseRules,
  Event: eventRules,
  CustomResourceDefinition: crdRules,
  PriorityClass: priorityClassRules,
  DeviceClass: deviceClassRules,
  ResourceClaim: resourceClaimRules,
  ResourceClaimTemplate: resourceClaimTemplateRules,
  ResourceSlice: resourceSliceRules,
  CSIStorageCapacity: csiStorageCapacityRules,
};

/** A built-in kind's rules; custom resources (info.crd) get ObjectMeta validation only. */
const rulesFor = (info: ResourceInfo): KindRules | undefined => (info.crd ? undefined : RULES[info.kind]);

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
  rulesFor(info)?.validate?.(o, out, info);
  if (!info.crd) {
    validateListMaps(o, info.kind, out);
    podSpecWarnings(o, info.kind, out);
  }
  const policy = opts.unknownFields ?? 'Strict';
  if (policy !== 'Ignore' && !info.crd) out.push(...unknownFields(obj, policy === 'Warn'));
  return out;
}

/** Update rules (immutability) on top of validateObject, as ValidateXUpdate. */
export function validateObjectUpdate(
  next: KubeObject,
  old: KubeObject,
  info: ResourceInfo,
  sub: 'main' | 'status' = 'main',
): FieldError[] {
  const out: FieldError[] = [];
  if (sub === 'status') return out;
  rulesFor(info)?.validateUpdate?.(next as Obj, old as Obj, out);
  return out;
}

export { validateLabels } from './validation-meta.js';
export { validatePodSpec } from './validation-pod.js';
export { unknownFields } from './validation-schema.js';

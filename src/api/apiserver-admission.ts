/**
 * How a request enters the admission chain (upstream: staging/src/k8s.io/apiserver/pkg/admission
 * attributes.go): the attributes hooks see, and the mutating phase writing a hook's replacement
 * object back into the request's object.
 */
import type { AdmissionAttributes, AdmissionChain, AdmissionOperation } from './admission.js';
import type { Obj } from './apiserver-kv.js';
import type { ResourceInfo } from './registry.js';
import type { KubeObject } from './types.js';

export function admissionAttrs(
  operation: AdmissionOperation,
  info: ResourceInfo,
  object: KubeObject | undefined,
  oldObject: KubeObject | undefined,
  dryRun: boolean,
  subresource?: string,
): AdmissionAttributes {
  const src = object ?? oldObject;
  return {
    operation,
    resource: info.resource,
    subresource,
    namespace: src?.metadata?.namespace,
    name: src?.metadata?.name ?? '',
    kind: subresource === 'binding' ? 'Binding' : info.kind,
    object,
    oldObject,
    dryRun,
  };
}

/**
 * Both phases around validation: the mutating hooks (a hook's replacement object is copied over
 * `object`), then `validate()`, then the validating hooks on the final object.
 */
export async function admit(
  chain: AdmissionChain,
  operation: AdmissionOperation,
  info: ResourceInfo,
  object: Obj | undefined,
  oldObject: KubeObject | undefined,
  dryRun: boolean,
  subresource: string | undefined,
  validate: () => void,
): Promise<void> {
  if (chain.size > 0) {
    const out = await chain.admit(admissionAttrs(operation, info, object, oldObject, dryRun, subresource));
    if (object && out && out !== object) {
      for (const k of Object.keys(object)) delete (object as any)[k];
      Object.assign(object, out);
    }
  }
  validate();
  await chain.validate(admissionAttrs(operation, info, object, oldObject, dryRun, subresource));
}

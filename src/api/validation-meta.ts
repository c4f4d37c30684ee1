/**
 * ObjectMeta validation (upstream: staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go
 * ValidateObjectMeta, and metav1validation.ValidateLabels): names by the kind's name rule,
 * namespace, labels, annotations (total size), ownerReferences, finalizers.
 */
import { type FieldError, forbiddenField, invalidValue, required, tooLong } from './field.js';
import type { NameRule } from './kinds.js';
import type { ResourceInfo } from './registry.js';
import { isObj, type Obj, typeError, validateNameWith } from './validation-common.js';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
} from './validation-names.js';

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

/** The name validators by a kind's rule (kinds.ts). */
const NAME_RULES: Record<NameRule, (name: string) => string[]> = {
  subdomain: isDNS1123Subdomain,
  label: isDNS1123Label,
  dns1035: isDNS1035Label,
  path: isValidPathSegmentName,
  any: () => [],
};

/** ValidateObjectMeta for a kind. */
export function validateMeta(
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
    const nameFn = NAME_RULES[info.nameRule ?? 'subdomain'];
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
      if (total > 262144) out.push(tooLong(`${path}.annotations`, 262144));
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

/**
 * CustomResourceDefinitions (upstream: staging/src/k8s.io/apiextensions-apiserver/pkg/apis/
 * apiextensions/validation/validation.go ValidateCustomResourceDefinition, …SpecUpdate, …Names):
 * the name is `<plural>.<group>`, the group a domain with a dot, a scope, unique DNS-1035 version
 * names with exactly one storage version, and the names (plural, singular, kind, listKind, short
 * names, categories). The openAPIV3Schema is stored but not enforced on custom resources
 * (docs/api.md). {@link customKindOf} reads what the CRD declares for the kind registry.
 */
import { type FieldError, invalidValue, notSupported, required } from './field.js';
import type { CustomKind } from './registry.js';
import { type KindRules, isObj, type Obj } from './validation-common.js';
import { isDNS1035Label, isDNS1123Subdomain } from './validation-names.js';

const SCOPES = ['Cluster', 'Namespaced'];

function validateNames(names: Obj, path: string, out: FieldError[]): void {
  const dns1035 = (field: string, v: unknown, prefix = '') => {
    if (typeof v !== 'string' || v === '') return;
    const errs = isDNS1035Label(prefix ? v.toLowerCase() : v);
    if (errs.length) out.push(invalidValue(`${path}.${field}`, v, prefix + errs.join(',')));
  };
  dns1035('plural', names.plural);
  dns1035('singular', names.singular);
  dns1035('kind', names.kind, 'may have mixed case, but should otherwise match: ');
  dns1035('listKind', names.listKind, 'may have mixed case, but should otherwise match: ');
  if (Array.isArray(names.shortNames))
    names.shortNames.forEach((s: unknown, i: number) => dns1035(`shortNames[${i}]`, s));
  if (names.kind && names.kind === names.listKind)
    out.push(invalidValue(`${path}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  if (Array.isArray(names.categories))
    names.categories.forEach((c: unknown, i: number) => dns1035(`categories[${i}]`, c));
}

function validateCRD(o: Obj, out: FieldError[]): void {
  const s = isObj(o.spec) ? o.spec : {};
  const names = isObj(s.names) ? s.names : {};
  const name = o.metadata?.name;
  if (typeof name === 'string' && name !== '' && name !== `${names.plural ?? ''}.${s.group ?? ''}`)
    out.push(invalidValue('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  if (!s.group) out.push(required('spec.group'));
  else {
    const errs = isDNS1123Subdomain(String(s.group));
    if (errs.length) out.push(invalidValue('spec.group', s.group, errs.join(',')));
    else if (String(s.group).split('.').length < 2)
      out.push(invalidValue('spec.group', s.group, 'should be a domain with at least one dot'));
  }
  if (!s.scope) out.push(required('spec.scope'));
  else if (!SCOPES.includes(s.scope)) out.push(notSupported('spec.scope', s.scope, SCOPES));
  const versions: unknown[] = Array.isArray(s.versions) ? s.versions : [];
  if (versions.length === 0)
    out.push(required('spec.versions', 'must have exactly one version marked as storage version'));
  const seen = new Set<string>();
  let storage = 0;
  let unique = true;
  versions.forEach((v, i) => {
    if (!isObj(v)) return;
    if (v.storage === true) storage++;
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const errs = typeof v.name === 'string' ? isDNS1035Label(v.name) : ['must be a string'];
    if (errs.length) out.push(invalidValue(`spec.versions[${i}].name`, v.name, errs.join(',')));
  });
  if (!unique) out.push(invalidValue('spec.versions', versions, 'must contain unique version names'));
  if (versions.length > 0 && storage !== 1)
    out.push(
      invalidValue('spec.versions', versions, 'must have exactly one version marked as storage version'),
    );
  for (const f of ['plural', 'singular', 'kind', 'listKind'])
    if (!names[f]) out.push(required(`spec.names.${f}`));
  validateNames(names, 'spec.names', out);
}

export const crdRules: KindRules = {
  validate: validateCRD,
  validateUpdate(n, o, out) {
    const ns = isObj(n.spec) ? n.spec : {};
    const os = isObj(o.spec) ? o.spec : {};
    if (ns.group !== os.group) out.push(invalidValue('spec.group', ns.group, 'field is immutable'));
    if (ns.names?.plural !== os.names?.plural)
      out.push(invalidValue('spec.names.plural', ns.names?.plural, 'field is immutable'));
  },
};

/** What a (valid) CRD declares for its kind: served versions (storage first), scope, names. */
export function customKindOf(crd: Obj): CustomKind | undefined {
  const s = crd.spec;
  if (!isObj(s) || !isObj(s.names) || !Array.isArray(s.versions)) return undefined;
  const served = s.versions.filter((v: Obj) => isObj(v) && v.served !== false);
  if (!served.length || !s.group || !s.names.kind || !s.names.plural) return undefined;
  served.sort((a: Obj, b: Obj) => Number(b.storage === true) - Number(a.storage === true));
  return {
    crd: String(crd.metadata?.name ?? `${s.names.plural}.${s.group}`),
    group: String(s.group),
    kind: String(s.names.kind),
    plural: String(s.names.plural),
    singular: s.names.singular,
    shortNames: Array.isArray(s.names.shortNames) ? s.names.shortNames : [],
    categories: Array.isArray(s.names.categories) ? s.names.categories : [],
    namespaced: s.scope !== 'Cluster',
    versions: served.map((v: Obj) => String(v.name)),
    hasStatus: served.some((v: Obj) => isObj(v.subresources) && v.subresources.status !== undefined),
  };
}

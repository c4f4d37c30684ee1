/**
 * Scheduling constraints in a pod spec (upstream: pkg/apis/core/validation ValidateAffinity,
 * validateNodeSelectorTerm, validatePodAffinityTerm, validateTopologySpreadConstraints).
 */
import { type FieldError, duplicate, forbiddenField, invalidValue, notSupported, required } from './field.js';
import { isInt, isObj, type Obj, typeError } from './validation-common.js';
import { isDNS1123Label, isQualifiedName } from './validation-names.js';
import { validateLabelSelector } from './validation-selector.js';

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

/** ValidateNodeSelectorTerm (also ResourceSlice and allocation node selectors) */
export function validateNodeSelectorTerm(t: unknown, p: string, out: FieldError[]): void {
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

/** ValidateLabelName for each key of a matchLabelKeys / mismatchLabelKeys list */
function validateLabelKeys(keys: unknown, p: string, selector: unknown, out: FieldError[]): void {
  if (!Array.isArray(keys) || keys.length === 0) return;
  if (selector === undefined || selector === null) {
    out.push(forbiddenField(p, 'must not be specified when labelSelector is not set'));
    return;
  }
  keys.forEach((k: unknown, i: number) => {
    if (typeof k !== 'string') out.push(typeError(`${p}[${i}]`, k, 'a string'));
    else for (const msg of isQualifiedName(k)) out.push(invalidValue(`${p}[${i}]`, k, msg));
  });
}

/**
 * validateMatchLabelKeysAndMismatchLabelKeys (pod affinity terms): both lists hold label names and
 * need a labelSelector; a matchLabelKeys key that the selector's matchExpressions name again after
 * its matchLabels or an earlier expression did is reported at `<term>[i]` (upstream's path, sic);
 * a key in both lists is reported under matchLabelKeys.
 */
function validateMatchLabelKeysAndMismatchLabelKeys(t: Obj, p: string, out: FieldError[]): void {
  validateLabelKeys(t.matchLabelKeys, `${p}.matchLabelKeys`, t.labelSelector, out);
  validateLabelKeys(t.mismatchLabelKeys, `${p}.mismatchLabelKeys`, t.labelSelector, out);
  const match = Array.isArray(t.matchLabelKeys) ? t.matchLabelKeys : [];
  const sel = t.labelSelector;
  if (isObj(sel)) {
    const index = new Map<unknown, number>();
    match.forEach((k: unknown, i: number) => index.set(k, i));
    const seen = new Set<string>(isObj(sel.matchLabels) ? Object.keys(sel.matchLabels) : []);
    for (const e of Array.isArray(sel.matchExpressions) ? sel.matchExpressions : []) {
      if (!isObj(e)) continue;
      const i = index.get(e.key);
      if (i !== undefined && seen.has(e.key))
        out.push(invalidValue(`${p}[${i}]`, e.key, 'exists in both matchLabelKeys and labelSelector'));
      seen.add(e.key);
    }
  }
  const mismatch = new Set(Array.isArray(t.mismatchLabelKeys) ? t.mismatchLabelKeys : []);
  match.forEach((k: unknown, i: number) => {
    if (mismatch.has(k))
      out.push(
        invalidValue(`${p}.matchLabelKeys[${i}]`, k, 'exists in both matchLabelKeys and mismatchLabelKeys'),
      );
  });
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
  validateMatchLabelKeysAndMismatchLabelKeys(t, p, out);
  if (!t.topologyKey) out.push(required(`${p}.topologyKey`, 'can not be empty'));
  else if (typeof t.topologyKey === 'string')
    for (const msg of isQualifiedName(t.topologyKey))
      out.push(invalidValue(`${p}.topologyKey`, t.topologyKey, msg));
}

/** A preferred-terms list: each item a weight (1-100) and a term under `field`. */
function validatePreferred(
  pref: unknown,
  pp: string,
  field: string,
  validateTerm: (t: unknown, p: string, out: FieldError[]) => void,
  out: FieldError[],
): void {
  if (pref === undefined || pref === null) return;
  if (!Array.isArray(pref)) {
    out.push(typeError(pp, pref, 'a list'));
    return;
  }
  pref.forEach((t: unknown, i: number) => {
    if (!isObj(t)) {
      out.push(typeError(`${pp}[${i}]`, t, 'an object'));
      return;
    }
    validateWeight(t.weight, `${pp}[${i}].weight`, out);
    validateTerm(t[field], `${pp}[${i}].${field}`, out);
  });
}

/** ValidateAffinity: node affinity terms, pod (anti-)affinity terms, weights. */
export function validateAffinity(a: unknown, path: string, out: FieldError[]): void {
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
    validatePreferred(
      na.preferredDuringSchedulingIgnoredDuringExecution,
      `${path}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution`,
      'preference',
      validateNodeSelectorTerm,
      out,
    );
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
    validatePreferred(
      pa.preferredDuringSchedulingIgnoredDuringExecution,
      `${path}.${kind}.preferredDuringSchedulingIgnoredDuringExecution`,
      'podAffinityTerm',
      validatePodAffinityTerm,
      out,
    );
  }
}

const NODE_INCLUSION_POLICIES = ['Honor', 'Ignore'];

/**
 * validateTopologySpreadConstraints, in upstream's order per constraint: maxSkew, topologyKey,
 * whenUnsatisfiable, a later constraint with the same {topologyKey, whenUnsatisfiable} (reported at
 * the earlier one, ValidateSpreadConstraintNotRepeat), minDomains, nodeAffinityPolicy,
 * nodeTaintsPolicy, matchLabelKeys, labelSelector (values must be label values).
 */
export function validateTopologySpread(list: unknown, path: string, out: FieldError[]): void {
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) {
    out.push(typeError(path, list, 'a list'));
    return;
  }
  list.forEach((c: Obj, i: number) => {
    const p = `${path}[${i}]`;
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
    const repeated = list
      .slice(i + 1)
      .some(
        (o: Obj) =>
          isObj(o) && o.topologyKey === c.topologyKey && o.whenUnsatisfiable === c.whenUnsatisfiable,
      );
    if (repeated)
      out.push(
        duplicate(`${p}.{topologyKey, whenUnsatisfiable}`, `{${c.topologyKey}, ${c.whenUnsatisfiable}}`),
      );
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
    for (const f of ['nodeAffinityPolicy', 'nodeTaintsPolicy'] as const)
      if (c[f] !== undefined && c[f] !== null && !NODE_INCLUSION_POLICIES.includes(c[f]))
        out.push(notSupported(`${p}.${f}`, c[f], NODE_INCLUSION_POLICIES));
    // validateMatchLabelKeysInTopologySpread: label names, and a labelSelector to merge them into
    validateLabelKeys(c.matchLabelKeys, `${p}.matchLabelKeys`, c.labelSelector, out);
    validateLabelSelector(c.labelSelector, `${p}.labelSelector`, out);
  });
}

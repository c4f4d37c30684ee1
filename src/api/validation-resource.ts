/**
 * resource.k8s.io: DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice (upstream:
 * pkg/apis/resource/validation/validation.go — ValidateDeviceClass, ValidateResourceClaim(Update),
 * ValidateResourceClaimStatusUpdate, ValidateResourceClaimTemplate(Update), ValidateResourceSlice),
 * on the v1 shape (beta objects are converted first: their errors carry v1's paths, as upstream's
 * ResourceNormalizationRules give them).
 *
 * Checked: request, subrequest, device, counter and class names; exactly one of `exactly` and
 * `firstAvailable`; allocation mode and count; CEL selectors compile (resource-cel.ts) and are at
 * most 10 Ki; constraint and config request references; matchAttribute names; the status
 * invariants (reservedFor needs an allocation, at most 256 consumers, an allocation never changes);
 * ResourceSlice driver, pool, node selection (exactly one), devices (at most 128, unique names),
 * attributes and capacities (qualified names, one value each, at most 32 per device, versions are
 * semver). Not checked: CEL cost limits, opaque parameters' size, device taints' and binding
 * conditions' details, the alpha fields (consumable capacity, derived attributes).
 */
import {
  type FieldError,
  duplicate,
  forbiddenField,
  invalidValue,
  notSupported,
  required,
  tooMany,
} from './field.js';
import { parseQuantity } from './quantity.js';
import { compileSelector, parseSemver } from './resource-cel.js';
import {
  ALLOCATION_RESULTS_MAX_SIZE,
  CEL_SELECTOR_EXPRESSION_MAX_LENGTH,
  DEVICE_CONFIG_MAX_SIZE,
  DEVICE_CONSTRAINTS_MAX_SIZE,
  DEVICE_REQUESTS_MAX_SIZE,
  DEVICE_SELECTORS_MAX_SIZE,
  FIRST_AVAILABLE_MAX_SIZE,
  MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE,
  RESERVED_FOR_MAX_SIZE,
  RESOURCE_SLICE_MAX_DEVICES,
} from './resource-types.js';
import { validateNodeSelectorTerm } from './validation-affinity.js';
import { deepEqual } from './deep-equal.js';
import { type KindRules, isInt, isObj, type Obj } from './validation-common.js';
import { isDNS1123Label, isDNS1123Subdomain, maxLenError } from './validation-names.js';

const MODES = ['All', 'ExactCount'];
const REQUEST_REF =
  "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'";

function label(v: unknown, path: string, out: FieldError[]): void {
  if (typeof v !== 'string' || v === '') out.push(required(path));
  else for (const m of isDNS1123Label(v)) out.push(invalidValue(path, v, m));
}

function subdomain(v: unknown, path: string, out: FieldError[]): void {
  if (typeof v !== 'string' || v === '') out.push(required(path));
  else for (const m of isDNS1123Subdomain(v)) out.push(invalidValue(path, v, m));
}

/** corevalidation.ValidateCSIDriverName: a driver name */
function driverName(v: unknown, path: string, out: FieldError[]): void {
  if (typeof v !== 'string' || v === '') return void out.push(required(path));
  if (v.length > 63) out.push(invalidValue(path, v, maxLenError(63)));
  for (const m of isDNS1123Subdomain(v.toLowerCase())) out.push(invalidValue(path, v, m));
}

/** a list of at most `max` items, each checked by `each` */
function list(
  v: unknown,
  path: string,
  max: number,
  out: FieldError[],
  each: (x: any, p: string) => void,
): void {
  if (v === undefined || v === null) return;
  if (!Array.isArray(v)) return void out.push(invalidValue(path, v, 'must be a list'));
  if (v.length > max) out.push(tooMany(path, v.length, max));
  v.forEach((x, i) => each(x, `${path}[${i}]`));
}

/** a list whose items must be unique by key (upstream validateSet) */
function set(
  v: unknown,
  path: string,
  max: number,
  out: FieldError[],
  key: (x: any) => unknown,
  each: (x: any, p: string) => void,
): void {
  const seen = new Set<unknown>();
  list(v, path, max, out, (x, p) => {
    each(x, p);
    const k = key(x);
    if (k === undefined || k === '') return;
    if (seen.has(k)) out.push(duplicate(p, k));
    seen.add(k);
  });
}

function selectors(v: unknown, path: string, out: FieldError[]): void {
  list(v, path, DEVICE_SELECTORS_MAX_SIZE, out, (s, p) => {
    if (!isObj(s) || !isObj(s.cel)) return void out.push(required(`${p}.cel`));
    const expr = s.cel.expression;
    const ep = `${p}.cel.expression`;
    if (typeof expr !== 'string' || expr === '') return void out.push(required(ep));
    if (expr.length > CEL_SELECTOR_EXPRESSION_MAX_LENGTH)
      return void out.push(
        invalidValue(ep, '', `must have at most ${CEL_SELECTOR_EXPRESSION_MAX_LENGTH} bytes`),
      );
    const c = compileSelector(expr);
    if (c.error) out.push(invalidValue(ep, expr, c.error));
  });
}

/** validateDeviceAllocationMode */
function allocationMode(r: Obj, p: string, out: FieldError[]): void {
  const mode = r.allocationMode;
  const count = r.count ?? 0;
  if (mode === 'All') {
    if (count !== 0)
      out.push(invalidValue(`${p}.count`, count, "must not be specified when allocationMode is 'All'"));
  } else if (mode === 'ExactCount') {
    if (!isInt(count) || count <= 0) out.push(invalidValue(`${p}.count`, count, 'must be greater than zero'));
  } else out.push(notSupported(`${p}.allocationMode`, mode ?? '', MODES));
}

function exactOrSub(r: Obj, p: string, out: FieldError[]): void {
  subdomain(r.deviceClassName, `${p}.deviceClassName`, out);
  selectors(r.selectors, `${p}.selectors`, out);
  allocationMode(r, p, out);
}

/** request name → subrequest names (upstream gatherRequestNames) */
function requestNames(devices: Obj): Map<string, Set<string>> {
  const m = new Map<string, Set<string>>();
  for (const r of Array.isArray(devices.requests) ? devices.requests : []) {
    if (!isObj(r)) continue;
    m.set(
      String(r.name ?? ''),
      new Set((Array.isArray(r.firstAvailable) ? r.firstAvailable : []).map((s: Obj) => s?.name)),
    );
  }
  return m;
}

/** validateRequestNameRef */
function requestRef(name: unknown, p: string, names: Map<string, Set<string>>, out: FieldError[]): void {
  const s = String(name ?? '');
  const seg = s.split('/');
  if (seg.length > 2) return void out.push(invalidValue(p, s, REQUEST_REF));
  for (const x of seg) label(x, p, out);
  const subs = names.get(seg[0]!);
  if (subs === undefined || (seg.length === 2 && !subs.has(seg[1]!)))
    out.push(invalidValue(p, s, REQUEST_REF));
}

const C_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const C_IDENTIFIER_MSG =
  "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')";

/** validateQualifiedName / validateFullyQualifiedName: `[domain/]id` (a domain is required when `full`) */
function qualifiedName(name: string, p: string, full: boolean, out: FieldError[]): void {
  const i = name.indexOf('/');
  if (full && i < 0)
    return void out.push(
      invalidValue(p, name, 'a fully qualified name must be a domain and a name separated by a slash'),
    );
  const domain = i < 0 ? undefined : name.slice(0, i);
  const id = i < 0 ? name : name.slice(i + 1);
  if (domain !== undefined) {
    if (domain.length > 63) out.push(invalidValue(p, domain, maxLenError(63)));
    for (const m of isDNS1123Subdomain(domain)) out.push(invalidValue(p, domain, m));
  }
  if (id === '') out.push(required(p, 'the name is required'));
  else {
    if (id.length > 32) out.push(invalidValue(p, id, maxLenError(32)));
    if (!C_IDENTIFIER.test(id)) out.push(invalidValue(p, id, C_IDENTIFIER_MSG));
  }
}

function opaque(c: Obj, p: string, out: FieldError[]): void {
  if (!isObj(c.opaque)) return void out.push(required(`${p}.opaque`));
  driverName(c.opaque.driver, `${p}.opaque.driver`, out);
  if (c.opaque.parameters === undefined || c.opaque.parameters === null)
    out.push(required(`${p}.opaque.parameters`));
}

/** validateDeviceClaim */
function deviceClaim(devices: unknown, p: string, out: FieldError[]): void {
  if (devices === undefined || devices === null) return;
  if (!isObj(devices)) return void out.push(invalidValue(p, devices, 'must be an object'));
  const names = requestNames(devices);
  set(
    devices.requests,
    `${p}.requests`,
    DEVICE_REQUESTS_MAX_SIZE,
    out,
    (r) => r?.name,
    (r, rp) => {
      if (!isObj(r)) return;
      label(r.name, `${rp}.name`, out);
      const first = Array.isArray(r.firstAvailable) && r.firstAvailable.length > 0;
      const exactly = r.exactly !== undefined && r.exactly !== null;
      if (!first && !exactly)
        out.push(required(rp, 'exactly one of `exactly` or `firstAvailable` is required'));
      else if (first && exactly)
        out.push(
          invalidValue(
            rp,
            null,
            'exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set',
          ),
        );
      else if (first)
        set(
          r.firstAvailable,
          `${rp}.firstAvailable`,
          FIRST_AVAILABLE_MAX_SIZE,
          out,
          (s) => s?.name,
          (s, sp) => {
            if (!isObj(s)) return;
            label(s.name, `${sp}.name`, out);
            exactOrSub(s, sp, out);
          },
        );
      else if (isObj(r.exactly)) exactOrSub(r.exactly, `${rp}.exactly`, out);
    },
  );
  list(devices.constraints, `${p}.constraints`, DEVICE_CONSTRAINTS_MAX_SIZE, out, (c, cp) => {
    if (!isObj(c)) return;
    set(
      c.requests,
      `${cp}.requests`,
      DEVICE_REQUESTS_MAX_SIZE,
      out,
      (x) => x,
      (x, xp) => requestRef(x, xp, names, out),
    );
    if (typeof c.matchAttribute === 'string' && c.matchAttribute !== '')
      qualifiedName(c.matchAttribute, `${cp}.matchAttribute`, true, out);
    else out.push(required(`${cp}.matchAttribute`));
  });
  list(devices.config, `${p}.config`, DEVICE_CONFIG_MAX_SIZE, out, (c, cp) => {
    if (!isObj(c)) return;
    set(
      c.requests,
      `${cp}.requests`,
      DEVICE_REQUESTS_MAX_SIZE,
      out,
      (x) => x,
      (x, xp) => requestRef(x, xp, names, out),
    );
    opaque(c, cp, out);
  });
}

/** validateResourceClaimStatusUpdate's invariants, for a status written on create or update */
function claimStatus(st: unknown, old: Obj | undefined, spec: Obj, out: FieldError[]): void {
  if (!isObj(st)) return;
  set(
    st.reservedFor,
    'status.reservedFor',
    RESERVED_FOR_MAX_SIZE,
    out,
    (r) => r?.uid,
    (r, rp) => {
      if (!isObj(r)) return;
      for (const f of ['resource', 'name', 'uid']) if (!r[f]) out.push(required(`${rp}.${f}`));
    },
  );
  if (Array.isArray(st.reservedFor) && st.reservedFor.length > 0 && !st.allocation)
    out.push(forbiddenField('status.reservedFor', 'may not be specified when `allocated` is not set'));
  const oldAlloc = old?.allocation;
  if (oldAlloc && st.allocation) {
    if (!deepEqual(oldAlloc, st.allocation))
      out.push(invalidValue('status.allocation', st.allocation, 'field is immutable'));
  } else if (isObj(st.allocation)) {
    const names = requestNames(isObj(spec.devices) ? spec.devices : {});
    const a = st.allocation;
    list(
      a.devices?.results,
      'status.allocation.devices.results',
      ALLOCATION_RESULTS_MAX_SIZE,
      out,
      (r, rp) => {
        if (!isObj(r)) return;
        requestRef(r.request, `${rp}.request`, names, out);
        driverName(r.driver, `${rp}.driver`, out);
        poolName(r.pool, `${rp}.pool`, out);
        label(r.device, `${rp}.device`, out);
      },
    );
    if (isObj(a.nodeSelector)) nodeSelector(a.nodeSelector, 'status.allocation.nodeSelector', out);
  }
}

function nodeSelector(ns: Obj, p: string, out: FieldError[]): void {
  const terms = ns.nodeSelectorTerms;
  if (!Array.isArray(terms) || terms.length === 0)
    return void out.push(required(`${p}.nodeSelectorTerms`, 'must have at least one node selector term'));
  terms.forEach((t: unknown, i: number) => validateNodeSelectorTerm(t, `${p}.nodeSelectorTerms[${i}]`, out));
}

/** validatePoolName: `/`-separated DNS subdomains, at most 253 characters */
function poolName(v: unknown, p: string, out: FieldError[]): void {
  if (typeof v !== 'string' || v === '') return void out.push(required(p));
  if (v.length > 253) out.push(invalidValue(p, v, maxLenError(253)));
  for (const part of v.split('/'))
    for (const m of isDNS1123Subdomain(part)) out.push(invalidValue(p, part, m));
}

const NODE_SELECTION = '`nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection`';

function device(d: Obj, p: string, perDevice: boolean, out: FieldError[]): void {
  label(d.name, `${p}.name`, out);
  const attrs = isObj(d.attributes) ? d.attributes : {};
  const caps = isObj(d.capacity) ? d.capacity : {};
  const n = Object.keys(attrs).length + Object.keys(caps).length;
  if (n > MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE)
    out.push(
      invalidValue(
        p,
        n,
        `the total number of attributes and capacities must not exceed ${MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE}`,
      ),
    );
  for (const [k, a] of Object.entries(attrs)) {
    const ap = `${p}.attributes[${k}]`;
    qualifiedName(k, ap, false, out);
    if (!isObj(a)) continue;
    const set = ['int', 'bool', 'string', 'version'].filter((f) => a[f] !== undefined && a[f] !== null);
    if (set.length === 0) out.push(required(ap, 'exactly one value must be specified'));
    else if (set.length > 1) out.push(invalidValue(ap, a, 'exactly one value must be specified'));
    if (typeof a.string === 'string' && a.string.length > 64)
      out.push(invalidValue(`${ap}.string`, a.string, maxLenError(64)));
    if (typeof a.version === 'string' && !parseSemver(a.version))
      out.push(
        invalidValue(`${ap}.version`, a.version, 'must be a string compatible with semver.org spec 2.0.0'),
      );
  }
  for (const [k, c] of Object.entries(caps)) {
    const cp = `${p}.capacity[${k}]`;
    qualifiedName(k, cp, false, out);
    if (!isObj(c) || c.value === undefined) out.push(required(`${cp}.value`));
    else
      try {
        parseQuantity(c.value);
      } catch (e) {
        out.push(invalidValue(`${cp}.value`, c.value, (e as Error).message));
      }
  }
  if (perDevice) {
    const sel = [d.nodeName, d.nodeSelector, d.allNodes].filter(
      (x) => x !== undefined && x !== null && x !== false && x !== '',
    );
    if (sel.length !== 1)
      out.push(
        required(
          p,
          'exactly one of `nodeName`, `nodeSelector`, `allNodes` is required when `perDeviceNodeSelection` is set',
        ),
      );
  }
}

function validateSlice(o: Obj, out: FieldError[]): void {
  const s = o.spec;
  if (!isObj(s)) return void out.push(required('spec'));
  driverName(s.driver, 'spec.driver', out);
  if (!isObj(s.pool)) out.push(required('spec.pool'));
  else {
    poolName(s.pool.name, 'spec.pool.name', out);
    if (!isInt(s.pool.resourceSliceCount) || s.pool.resourceSliceCount <= 0)
      out.push(
        invalidValue(
          'spec.pool.resourceSliceCount',
          s.pool.resourceSliceCount ?? 0,
          'must be greater than zero',
        ),
      );
    if (s.pool.generation !== undefined && (!isInt(s.pool.generation) || s.pool.generation < 0))
      out.push(
        invalidValue('spec.pool.generation', s.pool.generation, 'must be greater than or equal to zero'),
      );
  }
  const chosen = [
    typeof s.nodeName === 'string' && s.nodeName !== '',
    isObj(s.nodeSelector),
    s.allNodes === true,
    s.perDeviceNodeSelection === true,
  ].filter(Boolean).length;
  if (chosen === 0) out.push(required('spec', `exactly one of ${NODE_SELECTION} is required`));
  else if (chosen > 1)
    out.push(
      invalidValue(
        'spec',
        '{`nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection`}',
        `exactly one of ${NODE_SELECTION} is required, but multiple fields are set`,
      ),
    );
  if (typeof s.nodeName === 'string' && s.nodeName !== '') subdomain(s.nodeName, 'spec.nodeName', out);
  if (isObj(s.nodeSelector)) {
    nodeSelector(s.nodeSelector, 'spec.nodeSelector', out);
    if (Array.isArray(s.nodeSelector.nodeSelectorTerms) && s.nodeSelector.nodeSelectorTerms.length > 1)
      out.push(
        invalidValue(
          'spec.nodeSelector.nodeSelectorTerms',
          s.nodeSelector.nodeSelectorTerms.length,
          'must have exactly one node selector term',
        ),
      );
  }
  set(
    s.devices,
    'spec.devices',
    RESOURCE_SLICE_MAX_DEVICES,
    out,
    (d) => d?.name,
    (d, dp) => {
      if (isObj(d)) device(d, dp, s.perDeviceNodeSelection === true, out);
    },
  );
  set(
    s.sharedCounters,
    'spec.sharedCounters',
    8,
    out,
    (c) => c?.name,
    (c, cp) => {
      if (isObj(c)) label(c.name, `${cp}.name`, out);
    },
  );
}

const immutableSpec = (path: string) => (n: Obj, o: Obj, out: FieldError[]) => {
  const pick = (x: Obj) => (path === 'spec' ? x.spec : x.spec?.spec);
  if (!deepEqual(pick(n), pick(o))) out.push(invalidValue(path, pick(n), 'field is immutable'));
};

export const deviceClassRules: KindRules = {
  validate(o, out) {
    const s = isObj(o.spec) ? o.spec : {};
    selectors(s.selectors, 'spec.selectors', out);
    list(s.config, 'spec.config', DEVICE_CONFIG_MAX_SIZE, out, (c, cp) => {
      if (isObj(c)) opaque(c, cp, out);
    });
  },
};

export const resourceClaimRules: KindRules = {
  validate(o, out) {
    const spec = isObj(o.spec) ? o.spec : {};
    deviceClaim(spec.devices, 'spec.devices', out);
    claimStatus(o.status, undefined, spec, out);
  },
  validateUpdate(n, o, out) {
    immutableSpec('spec')(n, o, out);
    claimStatus(n.status, isObj(o.status) ? o.status : undefined, isObj(n.spec) ? n.spec : {}, out);
  },
};

export const resourceClaimTemplateRules: KindRules = {
  validate(o, out) {
    const spec = isObj(o.spec) && isObj(o.spec.spec) ? o.spec.spec : {};
    deviceClaim(spec.devices, 'spec.spec.devices', out);
  },
  validateUpdate: immutableSpec('spec.spec'),
};

export const resourceSliceRules: KindRules = { validate: validateSlice };

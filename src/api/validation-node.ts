/**
 * Nodes (upstream: pkg/apis/core/validation ValidateNode, validateNodeTaints), Leases
 * (pkg/apis/coordination/validation ValidateLeaseSpec) and Events (ValidateEventCreate).
 */
import { type FieldError, duplicate, invalidValue, notSupported, required } from './field.js';
import { type KindRules, isInt, isObj, type Obj, TAINT_EFFECTS, typeError } from './validation-common.js';
import { isQualifiedName, isValidLabelValue } from './validation-names.js';
import { validateResourceList } from './validation-resources.js';

/** The types of NodeSpec's fields (a strict decode rejects another type). */
function nodeSpecTypes(s: Obj, out: FieldError[]): void {
  const want: [string, 'string' | 'boolean' | 'list'][] = [
    ['podCIDR', 'string'],
    ['providerID', 'string'],
    ['unschedulable', 'boolean'],
    ['podCIDRs', 'list'],
    ['taints', 'list'],
  ];
  for (const [f, t] of want) {
    const v = s[f];
    if (v === undefined || v === null) continue;
    const ok = t === 'list' ? Array.isArray(v) : typeof v === t;
    if (!ok) out.push(typeError(`spec.${f}`, v, t === 'list' ? 'a list' : `a ${t}`));
    else if (f === 'podCIDRs')
      (v as unknown[]).forEach((c, i) => {
        if (typeof c !== 'string') out.push(typeError(`spec.podCIDRs[${i}]`, c, 'a string'));
      });
  }
}

function validateNode(o: Obj, out: FieldError[]): void {
  const s = o.spec;
  if (s !== undefined && s !== null && !isObj(s)) out.push(typeError('spec', s, 'an object'));
  if (isObj(s)) nodeSpecTypes(s, out);
  if (isObj(s) && Array.isArray(s.taints)) {
    const seen = new Set<string>();
    s.taints.forEach((t: Obj, i: number) => {
      const p = `spec.taints[${i}]`;
      if (!isObj(t)) return;
      if (!t.key) out.push(required(`${p}.key`));
      else for (const msg of isQualifiedName(t.key)) out.push(invalidValue(`${p}.key`, t.key, msg));
      if (t.value)
        for (const msg of isValidLabelValue(t.value)) out.push(invalidValue(`${p}.value`, t.value, msg));
      if (!t.effect) out.push(required(`${p}.effect`));
      else if (!TAINT_EFFECTS.includes(t.effect))
        out.push(notSupported(`${p}.effect`, t.effect, TAINT_EFFECTS));
      const id = `${t.key}:${t.effect}`;
      if (seen.has(id)) out.push(duplicate(p, `taints must be unique by key and effect pair`));
      seen.add(id);
    });
  }
  const st = o.status;
  if (st !== undefined && st !== null && !isObj(st)) out.push(typeError('status', st, 'an object'));
  if (isObj(st)) {
    // the lists the node lifecycle controller, the scheduler and kube-proxy read
    for (const f of ['conditions', 'addresses', 'images', 'volumesAttached', 'volumesInUse']) {
      const v = st[f];
      if (v === undefined || v === null) continue;
      if (!Array.isArray(v)) out.push(typeError(`status.${f}`, v, 'a list'));
      else
        v.forEach((x, i) => {
          if (f !== 'volumesInUse' && !isObj(x)) out.push(typeError(`status.${f}[${i}]`, x, 'an object'));
        });
    }
    validateResourceList(st.capacity, 'status.capacity', out, false);
    validateResourceList(st.allocatable, 'status.allocatable', out, false);
  }
}

function validateLease(o: Obj, out: FieldError[]): void {
  const s = o.spec;
  if (!isObj(s)) return;
  if (
    s.leaseDurationSeconds !== undefined &&
    (!isInt(s.leaseDurationSeconds) || s.leaseDurationSeconds <= 0)
  ) {
    out.push(invalidValue('spec.leaseDurationSeconds', s.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (s.leaseTransitions !== undefined && (!isInt(s.leaseTransitions) || s.leaseTransitions < 0)) {
    out.push(invalidValue('spec.leaseTransitions', s.leaseTransitions, 'must be greater than or equal to 0'));
  }
}

function validateEvent(o: Obj, out: FieldError[]): void {
  const io = o.involvedObject ?? o.regarding;
  const ns = o.metadata?.namespace;
  if (isObj(io) && io.namespace && ns && io.namespace !== ns) {
    out.push(
      invalidValue(
        o.involvedObject ? 'involvedObject.namespace' : 'regarding.namespace',
        io.namespace,
        'does not match event.namespace',
      ),
    );
  }
  if (o.type !== undefined && !['Normal', 'Warning'].includes(o.type))
    out.push(notSupported('type', o.type, ['Normal', 'Warning']));
}

export const nodeRules: KindRules = { validate: validateNode };
export const leaseRules: KindRules = { validate: validateLease };
export const eventRules: KindRules = { validate: validateEvent };

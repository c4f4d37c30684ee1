/**
 * Nodes (upstream: pkg/apis/core/validation ValidateNode, validateNodeTaints), Leases
 * (pkg/apis/coordination/validation ValidateLeaseSpec) and Events (ValidateEventCreate).
 */
import { type FieldError, duplicate, invalidValue, notSupported, required } from './field.js';
import { type KindRules, isInt, isObj, type Obj, TAINT_EFFECTS } from './validation-common.js';
import { isQualifiedName, isValidLabelValue } from './validation-names.js';
import { validateResourceList } from './validation-resources.js';

function validateNode(o: Obj, out: FieldError[]): void {
  const s = o.spec;
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
  if (isObj(st)) {
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

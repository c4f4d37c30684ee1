/**
 * Pod validation (upstream: pkg/apis/core/validation ValidatePodSpec, validateContainers,
 * validateTolerations, ValidatePodUpdate), shared by Pods and the pod templates of workloads.
 */
import { type FieldError, duplicate, forbiddenField, invalidValue, notSupported, required } from './field.js';
import { deepEqual } from './deep-equal.js';
import { validateAffinity, validateTopologySpread } from './validation-affinity.js';
import {
  type KindRules,
  isInt,
  isObj,
  type Obj,
  PROTOCOLS,
  TAINT_EFFECTS,
  typeError,
  validateNameWith,
} from './validation-common.js';
import { validateLabels } from './validation-meta.js';
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPortName,
  isValidPortNum,
} from './validation-names.js';
import { validateResourceList } from './validation-resources.js';

function validateContainer(
  c: Obj,
  path: string,
  isInit: boolean,
  names: Set<string>,
  out: FieldError[],
): void {
  if (!isObj(c)) {
    out.push(typeError(path, c, 'an object'));
    return;
  }
  if (c.name === undefined || c.name === '') out.push(required(`${path}.name`));
  else if (typeof c.name !== 'string') out.push(typeError(`${path}.name`, c.name, 'a string'));
  else {
    validateNameWith(isDNS1123Label, `${path}.name`, c.name, out);
    if (names.has(c.name)) out.push(duplicate(`${path}.name`, c.name));
    names.add(c.name);
  }
  if (c.image === undefined || c.image === '') out.push(required(`${path}.image`));
  else if (typeof c.image !== 'string') out.push(typeError(`${path}.image`, c.image, 'a string'));
  else if (c.image.trim() !== c.image)
    out.push(invalidValue(`${path}.image`, c.image, 'must not have leading or trailing whitespace'));
  if (c.imagePullPolicy !== undefined && !['Always', 'IfNotPresent', 'Never'].includes(c.imagePullPolicy)) {
    out.push(notSupported(`${path}.imagePullPolicy`, c.imagePullPolicy, ['Always', 'IfNotPresent', 'Never']));
  }
  if (c.restartPolicy !== undefined) {
    if (!isInit) out.push(forbiddenField(`${path}.restartPolicy`, 'may not be set for non-init containers'));
    else if (c.restartPolicy !== 'Always')
      out.push(notSupported(`${path}.restartPolicy`, c.restartPolicy, ['Always']));
  }
  if (c.ports !== undefined) {
    if (!Array.isArray(c.ports)) out.push(typeError(`${path}.ports`, c.ports, 'a list'));
    else {
      const portNames = new Set<string>();
      c.ports.forEach((p: Obj, i: number) => {
        const pp = `${path}.ports[${i}]`;
        if (!isObj(p)) return out.push(typeError(pp, p, 'an object')) as unknown as void;
        if (p.name !== undefined && p.name !== '') {
          if (typeof p.name !== 'string') out.push(typeError(`${pp}.name`, p.name, 'a string'));
          else {
            for (const msg of isValidPortName(p.name)) out.push(invalidValue(`${pp}.name`, p.name, msg));
            if (portNames.has(p.name)) out.push(duplicate(`${pp}.name`, p.name));
            portNames.add(p.name);
          }
        }
        if (p.containerPort === undefined || p.containerPort === 0) out.push(required(`${pp}.containerPort`));
        else
          for (const msg of isValidPortNum(p.containerPort))
            out.push(invalidValue(`${pp}.containerPort`, p.containerPort, msg));
        if (p.hostPort !== undefined && p.hostPort !== 0) {
          for (const msg of isValidPortNum(p.hostPort))
            out.push(invalidValue(`${pp}.hostPort`, p.hostPort, msg));
        }
        if (p.protocol === undefined || p.protocol === '') out.push(required(`${pp}.protocol`));
        else if (!PROTOCOLS.includes(p.protocol))
          out.push(notSupported(`${pp}.protocol`, p.protocol, PROTOCOLS));
      });
    }
  }
  const r = c.resources;
  if (r !== undefined && r !== null) {
    if (!isObj(r)) out.push(typeError(`${path}.resources`, r, 'an object'));
    else {
      const limits = validateResourceList(r.limits, `${path}.resources.limits`, out, true);
      const requests = validateResourceList(r.requests, `${path}.resources.requests`, out, true);
      for (const [name, req] of requests) {
        const lim = limits.get(name);
        if (!lim) continue;
        // upstream reports these at `resources.requests` (not keyed); extended resources and
        // hugepages cannot be overcommitted (IsOvercommitAllowed), so request must equal limit
        const overcommit =
          !name.startsWith('hugepages-') && (!name.includes('/') || name.startsWith('kubernetes.io/'));
        if (req.cmp(lim) !== 0 && !overcommit) {
          out.push(
            invalidValue(`${path}.resources.requests`, req.toString(), `must be equal to ${name} limit`),
          );
        } else if (req.cmp(lim) > 0) {
          out.push(
            invalidValue(
              `${path}.resources.requests`,
              req.toString(),
              `must be less than or equal to ${name} limit of ${lim.toString()}`,
            ),
          );
        }
      }
    }
  }
}

const RESTART_POLICIES = ['Always', 'Never', 'OnFailure'];

/** ValidatePodSpec subset (see docs/api.md for the list). */
export function validatePodSpec(spec: unknown, path: string, out: FieldError[], template = false): void {
  if (!isObj(spec)) {
    out.push(required(path));
    return;
  }
  const names = new Set<string>();
  if (spec.initContainers !== undefined) {
    if (!Array.isArray(spec.initContainers))
      out.push(typeError(`${path}.initContainers`, spec.initContainers, 'a list'));
    else
      spec.initContainers.forEach((c: Obj, i: number) =>
        validateContainer(c, `${path}.initContainers[${i}]`, true, names, out),
      );
  }
  if (!Array.isArray(spec.containers)) {
    if (spec.containers === undefined) out.push(required(`${path}.containers`));
    else out.push(typeError(`${path}.containers`, spec.containers, 'a list'));
  } else {
    if (spec.containers.length === 0) out.push(required(`${path}.containers`));
    spec.containers.forEach((c: Obj, i: number) =>
      validateContainer(c, `${path}.containers[${i}]`, false, names, out),
    );
  }
  if (spec.restartPolicy !== undefined) {
    if (template) {
      if (spec.restartPolicy !== 'Always')
        out.push(notSupported(`${path}.restartPolicy`, spec.restartPolicy, ['Always']));
    } else if (!RESTART_POLICIES.includes(spec.restartPolicy)) {
      out.push(notSupported(`${path}.restartPolicy`, spec.restartPolicy, RESTART_POLICIES));
    }
  }
  if (spec.terminationGracePeriodSeconds !== undefined && !isInt(spec.terminationGracePeriodSeconds)) {
    out.push(
      typeError(`${path}.terminationGracePeriodSeconds`, spec.terminationGracePeriodSeconds, 'an integer'),
    );
  }
  if (
    spec.activeDeadlineSeconds !== undefined &&
    (!isInt(spec.activeDeadlineSeconds) || spec.activeDeadlineSeconds < 1)
  ) {
    out.push(
      invalidValue(
        `${path}.activeDeadlineSeconds`,
        spec.activeDeadlineSeconds,
        'must be between 1 and 2147483647, inclusive',
      ),
    );
  }
  validateLabels(spec.nodeSelector, `${path}.nodeSelector`, out);
  if (spec.nodeName !== undefined && spec.nodeName !== '') {
    if (typeof spec.nodeName !== 'string') out.push(typeError(`${path}.nodeName`, spec.nodeName, 'a string'));
    else validateNameWith(isDNS1123Subdomain, `${path}.nodeName`, spec.nodeName, out);
  }
  if (spec.tolerations !== undefined) {
    if (!Array.isArray(spec.tolerations))
      out.push(typeError(`${path}.tolerations`, spec.tolerations, 'a list'));
    else
      spec.tolerations.forEach((t: Obj, i: number) =>
        validateToleration(t, `${path}.tolerations[${i}]`, out),
      );
  }
  if (spec.overhead !== undefined) validateResourceList(spec.overhead, `${path}.overhead`, out, false);
  if (spec.priority !== undefined && !isInt(spec.priority))
    out.push(typeError(`${path}.priority`, spec.priority, 'an integer'));
  if (
    spec.preemptionPolicy !== undefined &&
    !['Never', 'PreemptLowerPriority'].includes(spec.preemptionPolicy)
  ) {
    out.push(
      notSupported(`${path}.preemptionPolicy`, spec.preemptionPolicy, ['Never', 'PreemptLowerPriority']),
    );
  }
  validateTopologySpread(spec.topologySpreadConstraints, `${path}.topologySpreadConstraints`, out);
  if (spec.affinity !== undefined && spec.affinity !== null)
    validateAffinity(spec.affinity, `${path}.affinity`, out);
}

function validateToleration(t: Obj, p: string, out: FieldError[]): void {
  if (!isObj(t)) return;
  if (t.key) for (const msg of isQualifiedName(t.key)) out.push(invalidValue(`${p}.key`, t.key, msg));
  const op = t.operator ?? 'Equal';
  if (!t.key && op !== 'Exists')
    out.push(
      invalidValue(
        `${p}.operator`,
        op,
        'operator must be Exists when `key` is empty, which means "match all values and all keys"',
      ),
    );
  if (op === 'Exists' && t.value)
    out.push(invalidValue(`${p}.operator`, t.value, "value must be empty when `operator` is 'Exists'"));
  else if (op === 'Equal') {
    if (t.value)
      for (const msg of isValidLabelValue(t.value)) out.push(invalidValue(`${p}.value`, t.value, msg));
  } else if (op !== 'Exists') out.push(notSupported(`${p}.operator`, op, ['Equal', 'Exists']));
  if (t.effect && !TAINT_EFFECTS.includes(t.effect))
    out.push(notSupported(`${p}.effect`, t.effect, TAINT_EFFECTS));
  if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') {
    out.push(
      invalidValue(
        `${p}.effect`,
        t.effect ?? '',
        "effect must be 'NoExecute' when `tolerationSeconds` is set",
      ),
    );
  }
}

/** The pod spec fields an update may change (ValidatePodUpdate), with upstream's message. */
const POD_UPDATE_FORBIDDEN =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** A shallow view of a pod spec without the fields an update may change (no deep copy). */
function stripMutablePodFields(spec: Obj | undefined): Obj {
  const s: Obj = { ...(spec ?? {}) };
  const strip = (list: unknown) =>
    Array.isArray(list) ? list.map((c) => (isObj(c) ? { ...c, image: undefined } : c)) : list;
  s.containers = strip(s.containers);
  s.initContainers = strip(s.initContainers);
  delete s.activeDeadlineSeconds;
  delete s.tolerations;
  delete s.terminationGracePeriodSeconds;
  return s;
}

/** Pod rules; a running pod's spec is immutable but for images, deadlines and added tolerations. */
export const podRules: KindRules = {
  validate: (o, out) => validatePodSpec(o.spec, 'spec', out),
  validateUpdate(n, o, out) {
    if (!deepEqual(stripMutablePodFields(n.spec), stripMutablePodFields(o.spec)))
      out.push(forbiddenField('spec', POD_UPDATE_FORBIDDEN));
    const oldTol: unknown[] = Array.isArray(o.spec?.tolerations) ? o.spec.tolerations : [];
    const newTol: unknown[] = Array.isArray(n.spec?.tolerations) ? n.spec.tolerations : [];
    for (const t of oldTol) {
      if (!newTol.some((x) => deepEqual(x, t))) {
        out.push(
          forbiddenField(
            'spec.tolerations',
            'existing toleration can not be modified except its tolerationSeconds',
          ),
        );
        break;
      }
    }
  },
};

/**
 * PriorityClass (upstream: pkg/apis/scheduling/validation/validation.go ValidatePriorityClass,
 * ValidatePriorityClassUpdate): `system-` names are reserved for the system classes with their
 * values, user classes stay at or below 1,000,000,000, value and preemptionPolicy are immutable.
 */
import { type FieldError, forbiddenField, invalidValue, notSupported, required } from './field.js';
import {
  HIGHEST_USER_DEFINABLE_PRIORITY,
  SYSTEM_PRIORITY_CLASS_PREFIX,
  knownSystemClassError,
} from './priority.js';
import { type KindRules, isInt, type Obj } from './validation-common.js';

const PREEMPTION_POLICIES = ['Never', 'PreemptLowerPriority'];

function validatePriorityClass(o: Obj, out: FieldError[]): void {
  const name = String(o.metadata?.name ?? '');
  if (o.value === undefined || o.value === null) out.push(required('value'));
  else if (!isInt(o.value)) out.push(invalidValue('value', o.value, 'must be an integer'));
  if (name.startsWith(SYSTEM_PRIORITY_CLASS_PREFIX)) {
    const err = knownSystemClassError(name, o.value, o.globalDefault);
    if (err)
      out.push(
        forbiddenField(
          'metadata.name',
          `priority class names with '${SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use only. error: ${err}`,
        ),
      );
  } else if (isInt(o.value) && o.value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    out.push(
      forbiddenField(
        'value',
        `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`,
      ),
    );
  }
  if (o.preemptionPolicy !== undefined && !PREEMPTION_POLICIES.includes(o.preemptionPolicy))
    out.push(notSupported('preemptionPolicy', o.preemptionPolicy, PREEMPTION_POLICIES));
}

export const priorityClassRules: KindRules = {
  validate: validatePriorityClass,
  validateUpdate(n, o, out) {
    if (n.value !== o.value) out.push(forbiddenField('value', 'may not be changed in an update.'));
    if (n.preemptionPolicy !== o.preemptionPolicy)
      out.push(invalidValue('preemptionPolicy', n.preemptionPolicy, 'field is immutable'));
  },
};

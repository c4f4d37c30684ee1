/**
 * metav1.LabelSelector (upstream: staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation
 * ValidateLabelSelector, v1.34); matching is label-selector.ts. Values of matchExpressions must be
 * valid label values unless `allowInvalidLabelValue` (upstream's AllowInvalidLabelValueInSelector,
 * for objects stored before the check existed): a pod whose affinity term says `In: ["a b"]` is
 * rejected at create instead of reaching the scheduler.
 */
import { type FieldError, forbiddenField, notSupported, required, invalidValue } from './field.js';
import { isObj, type Obj } from './validation-common.js';
import { validateLabels } from './validation-meta.js';
import { isQualifiedName, isValidLabelValue } from './validation-names.js';

export function validateLabelSelector(
  sel: unknown,
  path: string,
  out: FieldError[],
  opts: { allowInvalidLabelValue?: boolean } = {},
): void {
  if (!isObj(sel)) return;
  validateLabels(sel.matchLabels, `${path}.matchLabels`, out);
  if (Array.isArray(sel.matchExpressions)) {
    sel.matchExpressions.forEach((r: Obj, i: number) => {
      const p = `${path}.matchExpressions[${i}]`;
      if (!isObj(r)) return;
      const ops = ['DoesNotExist', 'Exists', 'In', 'NotIn'];
      if (!ops.includes(r.operator)) out.push(notSupported(`${p}.operator`, r.operator, ops));
      else if (
        (r.operator === 'In' || r.operator === 'NotIn') &&
        (!Array.isArray(r.values) || r.values.length === 0)
      ) {
        out.push(required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      } else if (
        (r.operator === 'Exists' || r.operator === 'DoesNotExist') &&
        Array.isArray(r.values) &&
        r.values.length > 0
      ) {
        out.push(
          forbiddenField(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        );
      }
      if (typeof r.key !== 'string') out.push(required(`${p}.key`));
      else for (const msg of isQualifiedName(r.key)) out.push(invalidValue(`${p}.key`, r.key, msg));
      if (!opts.allowInvalidLabelValue && Array.isArray(r.values))
        r.values.forEach((v: unknown, j: number) => {
          for (const msg of isValidLabelValue(v as string))
            out.push(invalidValue(`${p}.values[${j}]`, v, msg));
        });
    });
  }
}

/**
 * metav1.LabelSelector (upstream: staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation
 * ValidateLabelSelector); matching is label-selector.ts.
 */
import { type FieldError, forbiddenField, notSupported, required, invalidValue } from './field.js';
import { isObj, type Obj } from './validation-common.js';
import { validateLabels } from './validation-meta.js';
import { isQualifiedName } from './validation-names.js';

export function validateLabelSelector(sel: unknown, path: string, out: FieldError[]): void {
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
    });
  }
}

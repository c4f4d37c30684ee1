/**
 * metav1.LabelSelector (upstream: staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation
 * ValidateLabelSelector, and LabelSelectorAsSelector for matching).
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

/** Does a LabelSelector (matchLabels + matchExpressions) select these labels? */
export function labelSelectorMatches(sel: Obj, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const r of sel.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, r.key);
    const vals: string[] = r.values ?? [];
    if (r.operator === 'In' && !(has && vals.includes(labels[r.key]!))) return false;
    if (r.operator === 'NotIn' && has && vals.includes(labels[r.key]!)) return false;
    if (r.operator === 'Exists' && !has) return false;
    if (r.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

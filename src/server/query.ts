/**
 * Query parameters parsed as kube-apiserver's parameter codec converts them into ListOptions,
 * CreateOptions, … (upstream: staging/src/k8s.io/apimachinery/pkg/runtime/conversion.go
 * Convert_Slice_string_To_bool / _To_int64, and pkg/apis/meta/internalversion/validation's
 * ValidateListOptions):
 *
 *  - a boolean is false only for `0` and `false` (any case); every other value, the empty one
 *    included (`?watch`), is true — the Python client sends `watch=True`;
 *  - integers must parse as base-10 integers, or the request is a 400;
 *  - `resourceVersionMatch` and `fieldValidation` take their listed values only (422 Invalid).
 */
import { type ApiError, badRequest, invalid } from '../api/errors.js';
import { type FieldError, invalidValue, notSupported } from '../api/field.js';

/** The first value of a boolean parameter, read as apimachinery reads it; undefined when absent. */
export function boolParam(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  return !(v === '0' || v.toLowerCase() === 'false');
}

export const isTrueParam = (q: URLSearchParams, name: string): boolean => boolParam(q, name) === true;

/** A base-10 integer parameter (strconv.ParseInt); a malformed one is a 400 naming it. */
export function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (!/^[+-]?\d+$/.test(v))
    throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

function invalidOptions(kind: string, errs: FieldError[]): ApiError {
  return invalid({ name: kind, group: 'meta.k8s.io' }, '', errs);
}

export type ResourceVersionMatch = 'Exact' | 'NotOlderThan';

/**
 * `resourceVersionMatch` with ValidateListOptions' checks: a supported value, only with a
 * resourceVersion, never on a watch, and Exact never with resourceVersion "0".
 */
export function resourceVersionMatchParam(
  q: URLSearchParams,
  watch: boolean,
): ResourceVersionMatch | undefined {
  const m = q.get('resourceVersionMatch');
  if (m === null || m === '') return undefined;
  const rv = q.get('resourceVersion') ?? '';
  const errs: FieldError[] = [];
  if (m !== 'Exact' && m !== 'NotOlderThan')
    errs.push(notSupported('resourceVersionMatch', m, ['Exact', 'NotOlderThan']));
  else if (watch && !isTrueParam(q, 'sendInitialEvents'))
    errs.push(invalidValue('resourceVersionMatch', m, 'resourceVersionMatch is forbidden for watch'));
  else if (rv === '')
    errs.push(
      invalidValue(
        'resourceVersionMatch',
        m,
        'resourceVersionMatch is forbidden unless resourceVersion is provided',
      ),
    );
  else if (m === 'Exact' && rv === '0')
    errs.push(
      invalidValue(
        'resourceVersionMatch',
        m,
        'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
      ),
    );
  if (errs.length) throw invalidOptions('ListOptions', errs);
  return m as ResourceVersionMatch;
}

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** `fieldValidation` of a create/update/patch: Warn when absent (upstream's default). */
export function fieldValidationParam(q: URLSearchParams, optionsKind: string): FieldValidation {
  const v = q.get('fieldValidation');
  if (v === null || v === '') return 'Warn';
  if (v !== 'Ignore' && v !== 'Warn' && v !== 'Strict')
    throw invalidOptions(optionsKind, [notSupported('fieldValidation', v, ['Ignore', 'Strict', 'Warn'])]);
  return v;
}

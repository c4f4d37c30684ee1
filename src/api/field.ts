/**
 * Field errors like k8s.io/apimachinery/pkg/util/validation/field: a field path
 * (`spec.containers[0].resources.requests.cpu`), an error type, the bad value and a detail,
 * printed exactly as field.Error.Error() does:
 *   `spec.containers[0].name: Required value`
 *   `metadata.name: Invalid value: "Web": a lowercase RFC 1123 subdomain must consist of …`
 *   `spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"`
 */

export type FieldErrorType =
  | 'Not found'
  | 'Required value'
  | 'Duplicate value'
  | 'Invalid value'
  | 'Unsupported value'
  | 'Forbidden'
  | 'Too long'
  | 'Too many'
  | 'Internal error'
  | 'Unknown field'
  /** a free-text warning the apiserver returns with an accepted object (pod warnings.go) */
  | 'Warning';

/** Render a bad value the way Go's %q / %v do for the simple types validation reports. */
function renderValue(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) {
    // Go's %#v of a []string
    return `[]string{${v.map((x) => JSON.stringify(x)).join(', ')}}`;
  }
  if (
    typeof v === 'object' &&
    Object.keys(v as object).length > 0 &&
    Object.values(v as object).every((x) => typeof x === 'string')
  ) {
    // Go's %#v of a map[string]string: keys sorted
    const o = v as Record<string, string>;
    return `map[string]string{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${JSON.stringify(o[k])}`)
      .join(', ')}}`;
  }
  return JSON.stringify(v);
}

export class FieldError {
  constructor(
    readonly type: FieldErrorType,
    readonly field: string,
    readonly value?: unknown,
    readonly detail = '',
    /** a warning (kubectl's strict field validation "Warn") rather than an error */
    readonly warning = false,
  ) {}

  /** ErrorBody(): the text after `field: `. */
  body(): string {
    let s: string;
    switch (this.type) {
      case 'Required value':
      case 'Forbidden':
      case 'Internal error':
      case 'Too long':
      case 'Unknown field':
        s = this.type === 'Unknown field' ? 'unknown field' : this.type;
        break;
      default:
        s = `${this.type}: ${renderValue(this.value)}`;
    }
    if (this.type === 'Unknown field') return s;
    if (this.type === 'Warning') return this.detail;
    return this.detail ? `${s}: ${this.detail}` : s;
  }

  toString(): string {
    return `${this.field}: ${this.body()}`;
  }
}

/** a warning worded `<field>: <text>`, as upstream's pod warnings */
export const warningText = (field: string, text: string) =>
  new FieldError('Warning', field, undefined, text, true);

export const required = (field: string, detail = '') =>
  new FieldError('Required value', field, undefined, detail);
export const invalidValue = (field: string, value: unknown, detail = '') =>
  new FieldError('Invalid value', field, value, detail);
export const forbiddenField = (field: string, detail = '') =>
  new FieldError('Forbidden', field, undefined, detail);
export const duplicate = (field: string, value: unknown) => new FieldError('Duplicate value', field, value);
/**
 * TooMany, worded as apimachinery v1.34 words it (`Too many: 4: must have at most 3 items`; a
 * negative max: `too many items`)
 */
export const tooMany = (field: string, actual: number, max: number) =>
  new FieldError(
    'Too many',
    field,
    actual,
    max >= 0 ? `must have at most ${max} ${max === 1 ? 'item' : 'items'}` : 'too many items',
  );
/** TooLong (v1.34: the value is never printed): `Too long: may not be more than 3 bytes` */
export const tooLong = (field: string, max: number) =>
  new FieldError('Too long', field, undefined, `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}`);
/** NotSupported: `Unsupported value: "x": supported values: "a", "b"` */
export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
  const detail = supported.length
    ? `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`
    : '';
  return new FieldError('Unsupported value', field, value, detail);
}
/** An unknown field (strict decoding): `spec.containers[0].foo: unknown field` */
export const unknownField = (field: string, warning: boolean) =>
  new FieldError('Unknown field', field, undefined, '', warning);

/** Field path builder: `child` appends `.name`, `index` appends `[i]`, `key` appends `[key]`. */
export class FieldPath {
  constructor(readonly path: string) {}
  child(...names: string[]): FieldPath {
    let p = this.path;
    for (const n of names) p = p ? `${p}.${n}` : n;
    return new FieldPath(p);
  }
  index(i: number): FieldPath {
    return new FieldPath(`${this.path}[${i}]`);
  }
  key(k: string): FieldPath {
    return new FieldPath(`${this.path}[${k}]`);
  }
  toString(): string {
    return this.path;
  }
}

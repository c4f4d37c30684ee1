/**
 * ApiServer errors shaped like k8s.io/apimachinery/pkg/api/errors: an HTTP-like code, a
 * StatusReason, a message worded like the real apiserver's, and `status()` returning the
 * metav1.Status object a client would receive. Constructors are named after upstream's
 * (NewNotFound → notFound, …) and live in this one file.
 */
import type { FieldError } from './field.js';

export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'Gone'
  | 'Expired'
  | 'TooManyRequests'
  | 'BadRequest'
  | 'Forbidden'
  | 'InternalError'
  | 'Timeout'
  | 'MethodNotAllowed';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** metav1.Status as the apiserver returns it for a failed request. */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** A failed ApiServer request. `code` is the HTTP status, `reason` the metav1.StatusReason. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The metav1.Status object (what `kubectl` prints the message of). */
  status(): Status {
    const s: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details) s.details = this.details;
    return s;
  }
}

/** A group-qualified resource or kind, printed like schema.GroupResource.String(). */
export interface Qualified {
  /** plural resource (`pods`) or kind (`Pod`) */
  name: string;
  /** API group, '' for core */
  group: string;
}

export function qualifiedString(q: Qualified): string {
  return q.group ? `${q.name}.${q.group}` : q.name;
}

/** NewNotFound: `pods "web-0" not found` (404). */
export function notFound(resource: Qualified, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualifiedString(resource)} "${name}" not found`, {
    name,
    group: resource.group,
    kind: resource.name,
  });
}

/** NewAlreadyExists: `pods "web-0" already exists` (409). */
export function alreadyExists(resource: Qualified, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualifiedString(resource)} "${name}" already exists`, {
    name,
    group: resource.group,
    kind: resource.name,
  });
}

/** The registry's optimistic-lock message (storage.OptimisticLockErrorMsg). */
export const OPTIMISTIC_LOCK_MSG =
  'the object has been modified; please apply your changes to the latest version and try again';

/** NewConflict: `Operation cannot be fulfilled on pods "x": <why>` (409). */
export function conflict(resource: Qualified, name: string, why: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedString(resource)} "${name}": ${why}`,
    {
      name,
      group: resource.group,
      kind: resource.name,
    },
  );
}

/**
 * NewInvalid: `Pod "x" is invalid: <field errors>` (422). One error prints bare, several print
 * as `[e1, e2]` like utilerrors.NewAggregate.
 */
/** field.ErrorType's values (the StatusCause reasons) by their printed form */
const CAUSE_TYPES: Record<FieldError['type'], string> = {
  'Not found': 'FieldValueNotFound',
  'Required value': 'FieldValueRequired',
  'Duplicate value': 'FieldValueDuplicate',
  'Invalid value': 'FieldValueInvalid',
  'Unsupported value': 'FieldValueNotSupported',
  Forbidden: 'FieldValueForbidden',
  'Too long': 'FieldValueTooLong',
  'Too many': 'FieldValueTooMany',
  'Internal error': 'InternalError',
  'Unknown field': 'FieldValueInvalid',
  // warnings are never errors: kept for the type, not reached
  Warning: 'FieldValueInvalid',
};

export function invalid(kind: Qualified, name: string, errs: FieldError[]): ApiError {
  const causes = errs.map((e) => ({
    reason: CAUSE_TYPES[e.type],
    message: e.body(),
    field: e.field,
  }));
  const agg = errs.length === 1 ? errs[0]!.toString() : `[${errs.map((e) => e.toString()).join(', ')}]`;
  return new ApiError(422, 'Invalid', `${qualifiedString(kind)} "${name}" is invalid: ${agg}`, {
    name,
    group: kind.group,
    kind: kind.name,
    causes,
  });
}

/** NewBadRequest (400). */
export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

/** NewForbidden: `pods "x" is forbidden: <why>` (403). */
export function forbidden(resource: Qualified, name: string, why: string): ApiError {
  const what = name ? `${qualifiedString(resource)} "${name}"` : qualifiedString(resource);
  return new ApiError(403, 'Forbidden', `${what} is forbidden: ${why}`, {
    name,
    group: resource.group,
    kind: resource.name,
  });
}

/** NewResourceExpired (410, reason Expired): a watch or continue token older than the compaction. */
export function resourceExpired(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

/** NewGone (410, reason Gone). */
export function gone(message: string): ApiError {
  return new ApiError(410, 'Gone', message);
}

/** NewTooManyRequests (429) with a Retry-After hint in details.retryAfterSeconds. */
export function tooManyRequests(message: string, retryAfterSeconds: number): ApiError {
  // the max-in-flight filter's answer under load (tens of thousands per run at 5,000 nodes): made
  // without a stack trace, whose capture (async frames included) cost more than the rest of the
  // rejection; the stack of a simulated 429 says nothing anybody reads
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new ApiError(429, 'TooManyRequests', message, { retryAfterSeconds });
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** NewInternalError: `Internal error occurred: <err>` (500). */
export function internalError(err: unknown): ApiError {
  const msg = err instanceof Error ? err.message : String(err);
  return new ApiError(500, 'InternalError', `Internal error occurred: ${msg}`, {
    causes: [{ message: msg }],
  });
}

/** NewTimeoutError-like 504 (a list/watch at a resourceVersion the store has not reached). */
export function timeout(message: string): ApiError {
  return new ApiError(504, 'Timeout', message);
}

/** True when err is an ApiError with this code. */
export function isApiError(err: unknown, code?: number): err is ApiError {
  return err instanceof ApiError && (code === undefined || err.code === code);
}

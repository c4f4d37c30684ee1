/**
 * An admission chain like kube-apiserver's: every mutating hook runs in registration order and
 * may change the object, then the object is validated, then every validating hook runs (in
 * order) on the final object. The first rejection fails the request; its message names the hook
 * the way webhook rejections do: `admission webhook "quota" denied the request: <message>`.
 *
 * A hook is a plain function. It allows by returning nothing / `true` / `{ allowed: true }`,
 * rejects by returning `false` / `{ allowed: false, message, code }` or by throwing. Mutating
 * hooks change `attrs.object` in place (or return `{ allowed: true, object }` to replace it).
 */
import { ApiError } from './errors.js';
import type { KubeObject } from './types.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  /** plural resource, e.g. 'pods' */
  resource: string;
  /** 'status', 'binding' or undefined */
  subresource?: string;
  namespace?: string;
  name: string;
  kind: string;
  /** the incoming object (mutable for mutating hooks); the binding for pods/binding */
  object: KubeObject | undefined;
  /** the stored object for UPDATE/DELETE */
  oldObject?: KubeObject;
  dryRun: boolean;
}

export interface AdmissionResponse {
  allowed: boolean;
  message?: string;
  /** HTTP code of a rejection: 403 (default) or e.g. 422 / 400 */
  code?: number;
  /** replacement object (mutating hooks only) */
  object?: KubeObject;
}

export type AdmissionResult = void | undefined | boolean | AdmissionResponse;
export type AdmissionHook = (attrs: AdmissionAttributes) => AdmissionResult | Promise<AdmissionResult>;

export interface HookMatch {
  /** resources the hook applies to (default: all); 'pods/status' style names match subresources */
  resources?: string[];
  /** operations the hook applies to (default: all) */
  operations?: AdmissionOperation[];
}

interface Registered extends Required<HookMatch> {
  name: string;
  fn: AdmissionHook;
}

function reasonFor(code: number): ApiError['reason'] {
  switch (code) {
    case 400:
      return 'BadRequest';
    case 404:
      return 'NotFound';
    case 409:
      return 'Conflict';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    default:
      return 'Forbidden';
  }
}

/** The rejection error for a hook (webhookerrors.ToStatusErr wording). */
export function admissionDenied(hook: string, message: string | undefined, code = 403): ApiError {
  const denied = `admission webhook "${hook}" denied the request`;
  const c = code < 400 ? 400 : code;
  return new ApiError(c, reasonFor(c), message ? `${denied}: ${message}` : `${denied} without explanation`, {
    name: hook,
  });
}

export class AdmissionChain {
  private readonly mutating: Registered[] = [];
  private readonly validating: Registered[] = [];

  /** Append a mutating hook (runs before validation, in registration order). */
  addMutating(name: string, fn: AdmissionHook, match: HookMatch = {}): this {
    this.mutating.push({ name, fn, resources: match.resources ?? [], operations: match.operations ?? [] });
    return this;
  }

  /** Append a validating hook (runs after validation, in registration order). */
  addValidating(name: string, fn: AdmissionHook, match: HookMatch = {}): this {
    this.validating.push({ name, fn, resources: match.resources ?? [], operations: match.operations ?? [] });
    return this;
  }

  get size(): number {
    return this.mutating.length + this.validating.length;
  }

  /** Run mutating hooks; returns the (possibly replaced) object. @throws ApiError on rejection */
  async admit(attrs: AdmissionAttributes): Promise<KubeObject | undefined> {
    for (const h of this.mutating) {
      if (!matches(h, attrs)) continue;
      const res = await run(h, attrs);
      if (res && res.object) attrs.object = res.object;
    }
    return attrs.object;
  }

  /** Run validating hooks. @throws ApiError on rejection */
  async validate(attrs: AdmissionAttributes): Promise<void> {
    for (const h of this.validating) {
      if (matches(h, attrs)) await run(h, attrs);
    }
  }
}

function matches(h: Registered, a: AdmissionAttributes): boolean {
  if (h.operations.length && !h.operations.includes(a.operation)) return false;
  if (h.resources.length) {
    const full = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    if (!h.resources.includes(full) && !h.resources.includes('*')) return false;
  }
  return true;
}

async function run(h: Registered, attrs: AdmissionAttributes): Promise<AdmissionResponse | undefined> {
  let r: AdmissionResult;
  try {
    r = await h.fn(attrs);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw admissionDenied(h.name, e instanceof Error ? e.message : String(e));
  }
  if (r === undefined || r === true) return undefined;
  if (r === false) throw admissionDenied(h.name, undefined);
  if (!r.allowed) throw admissionDenied(h.name, r.message, r.code);
  return r;
}

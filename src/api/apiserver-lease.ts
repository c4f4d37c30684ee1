/**
 * Lease renewals: the update a kubelet sends every 10 s (pkg/kubelet/nodelease, the
 * controller's renew with the Lease it got back last time, renewTime set to now) and the one a
 * leader elector sends every retry period. At 5,000 nodes they are four requests in five; each
 * changes one field that neither defaulting nor validation reads (coordination/validation
 * ValidateLease checks leaseDurationSeconds and leaseTransitions; renewTime is a MicroTime of any
 * value; the unknown-field schema takes it as is), and no built-in admission plugin looks at
 * Leases. So when the old object is this server's own validated write (revision-cache.ts), the
 * update that changes nothing else has a known outcome: the same errors (none), the same
 * defaults (none). apiserver.ts then skips defaulting, validation and the
 * two whole-object comparisons; everything observable (the store write, its revision, the watch
 * events, flow control, the returned object) stays as for any update. Leases carry no
 * metadata.generation (apiserver.ts hasGeneration: upstream's lease strategy sets none), so a
 * renewal moves renewTime and the resourceVersion only. A user admission hook
 * turns the shortcut off: hooks see every request.
 */
import { deepEqual } from './deep-equal.js';
import type { Obj } from './apiserver-kv.js';

type Rec = Record<string, unknown>;

const isRecord = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * deepEqual of two records leaving out key `skip`, with the keys of `inner` compared the same way
 * one level down (undefined-valued keys count as absent, as in deepEqual)
 */
function sameExcept(a: unknown, b: unknown, skip: string, inner?: Readonly<Record<string, string>>): boolean {
  if (!isRecord(a) || !isRecord(b)) return deepEqual(a, b);
  let na = 0;
  for (const k in a) {
    if (k === skip || a[k] === undefined) continue;
    na++;
    const eq = inner && Object.hasOwn(inner, k) ? sameExcept(a[k], b[k], inner[k]) : deepEqual(a[k], b[k]);
    if (!eq) return false;
  }
  let nb = 0;
  for (const k in b) if (k !== skip && b[k] !== undefined) nb++;
  return na === nb;
}

/** what a renewal may differ in: the stored resourceVersion (the request's was removed) and renewTime */
const RENEWAL_FIELDS = { metadata: 'resourceVersion', spec: 'renewTime' } as const;

/**
 * `next` (the request with the server's system fields already copied from `old`) equals `old`
 * but for spec.renewTime: a renewal, or a no-op when renewTime is the same too.
 */
export function isLeaseRenewal(old: Obj, next: Obj): boolean {
  return sameExcept(old, next, '', RENEWAL_FIELDS);
}

/** whether a renewal changed the spec (renewTime moved): else it is a no-op, and nothing is written */
export function renewTimeMoved(old: Obj, next: Obj): boolean {
  return !deepEqual(old.spec?.renewTime, next.spec?.renewTime);
}

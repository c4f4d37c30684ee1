/**
 * DELETE (upstream: staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go Delete,
 * BeforeDelete, updateForGracefulDeletionAndFinalizers). Preconditions (uid, resourceVersion)
 * fail with 409 Conflict. An object with finalizers is only marked (deletionTimestamp) until an
 * update removes the last one. A bound Pod deleted with gracePeriodSeconds > 0 is marked
 * terminating rather than removed (the kubelet model then deletes it with grace 0).
 *
 * Example: pod p bound to node-1, delete with grace 30 at t=100 s
 *   → p.deletionTimestamp = t+30 s, deletionGracePeriodSeconds 30 (still stored)
 *   delete again with grace 10 → shortened to t+10 s; with grace 60 → unchanged
 *   delete with grace 0        → removed
 */
import type { AdmissionChain } from './admission.js';
import { admit } from './apiserver-admission.js';
import { copyIn, decodeKv, MAX_UPDATE_RETRIES, type Obj } from './apiserver-kv.js';
import { encodeFor } from './codec.js';
import { deepEqual } from './deep-equal.js';
import { OPTIMISTIC_LOCK_MSG, conflict, internalError, notFound } from './errors.js';
import { storageKey, type ResourceInfo } from './registry.js';
import type { ServiceAllocations } from './service-allocation.js';
import { claimKeys, releaseOps } from './service-claims.js';
import { rfc3339 } from './time.js';
import type { KubeObject } from './types.js';
import type { Clock } from '../util/clock.js';
import type { KvStore } from '../store/types.js';

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

export interface DeleteOptions {
  preconditions?: { resourceVersion?: string; uid?: string };
  /** pods only: > 0 marks a bound pod terminating (deletionTimestamp) instead of deleting it */
  gracePeriodSeconds?: number;
  /**
   * What happens to the object's dependents (metav1.DeletionPropagation): Orphan adds the `orphan`
   * finalizer, Foreground the `foregroundDeletion` finalizer, Background (the default for every
   * kind but v1 ReplicationController, whose default is Orphan) deletes the object at once; the
   * garbage collector (src/controllers/garbagecollector.ts) does the rest.
   */
  propagationPolicy?: PropagationPolicy;
  dryRun?: boolean;
}

/** metav1.FinalizerOrphanDependents / FinalizerDeleteDependents */
export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/**
 * deletionFinalizersForGarbageCollection (store.go) with shouldOrphanDependents and
 * shouldDeleteDependents: an explicit policy wins, then a GC finalizer already on the object, then
 * the kind's DefaultGarbageCollectionPolicy (OrphanDependents for v1 ReplicationController, for
 * backward compatibility; DeleteDependents otherwise). Returns the new finalizer list, or undefined
 * when it is unchanged (as a set).
 *
 * Example: finalizers [a], policy Foreground → [a, foregroundDeletion]; then policy Orphan →
 * [a, orphan]; then no policy → unchanged; then Background → [a].
 */
export function gcFinalizers(
  info: ResourceInfo,
  old: Obj,
  policy: PropagationPolicy | undefined,
): string[] | undefined {
  const current: string[] = old.metadata.finalizers ?? [];
  const existing = current.find((f) => f === ORPHAN_FINALIZER || f === FOREGROUND_FINALIZER);
  let orphan: boolean;
  let foreground: boolean;
  if (policy !== undefined) {
    orphan = policy === 'Orphan';
    foreground = policy === 'Foreground';
  } else if (existing !== undefined) {
    orphan = existing === ORPHAN_FINALIZER;
    foreground = existing === FOREGROUND_FINALIZER;
  } else {
    orphan = info.kind === 'ReplicationController' && info.apiVersion === 'v1';
    foreground = false;
  }
  const next = current.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (orphan) next.push(ORPHAN_FINALIZER);
  if (foreground) next.push(FOREGROUND_FINALIZER);
  const a = new Set(current);
  const b = new Set(next);
  if (a.size === b.size && [...a].every((f) => b.has(f))) return undefined;
  return next;
}

export interface DeleteDeps {
  store: KvStore;
  clock: Clock;
  admission: AdmissionChain;
  services: ServiceAllocations;
}

/** The grace period a delete gets (pod strategy CheckGracefulDelete); 0 = delete at once. */
function gracePeriod(info: ResourceInfo, old: Obj, requested: number | undefined): number {
  if (info.kind !== 'Pod' || requested === undefined || requested <= 0) return 0;
  // unscheduled or finished pods are deleted at once
  if (!old.spec?.nodeName) return 0;
  const phase = old.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return 0;
  return Math.floor(requested);
}

function checkPreconditions(info: ResourceInfo, name: string, old: Obj, opts: DeleteOptions): void {
  const p = opts.preconditions;
  if (p?.uid && p.uid !== old.metadata.uid) {
    throw conflict(
      info.qualifiedResource,
      name,
      `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${old.metadata.uid ?? ''}`,
    );
  }
  if (p?.resourceVersion && p.resourceVersion !== old.metadata.resourceVersion) {
    throw conflict(
      info.qualifiedResource,
      name,
      `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`,
    );
  }
}

/** The object marked for deletion: deletionTimestamp set (or shortened to a smaller grace). */
function markDeleting(old: Obj, grace: number, now: number): Obj {
  const marked = copyIn(old);
  const mm = marked.metadata;
  // the first mark bumps the generation (BeforeDelete, markAsDeleting)
  if (mm.deletionTimestamp === undefined && (mm.generation ?? 0) > 0)
    mm.generation = (mm.generation ?? 0) + 1;
  if (grace > 0) {
    const prevGrace = mm.deletionGracePeriodSeconds;
    if (mm.deletionTimestamp === undefined || prevGrace === undefined || grace < prevGrace) {
      mm.deletionTimestamp = rfc3339(now + grace * 1000);
      mm.deletionGracePeriodSeconds = grace;
    }
  } else if (mm.deletionTimestamp === undefined) {
    mm.deletionTimestamp = rfc3339(now);
    mm.deletionGracePeriodSeconds = 0;
  }
  delete mm.resourceVersion;
  return marked;
}

/** Delete an object; returns it as it was last stored (or as marked). */
export async function deleteObject<T extends KubeObject>(
  deps: DeleteDeps,
  info: ResourceInfo,
  namespace: string | undefined,
  name: string,
  opts: DeleteOptions,
): Promise<T> {
  const { store } = deps;
  const ns = info.namespaced ? namespace || 'default' : undefined;
  const key = storageKey(info, ns, name);
  const lostRace = () => {
    if (opts.preconditions?.resourceVersion)
      throw conflict(info.qualifiedResource, name, OPTIMISTIC_LOCK_MSG);
  };
  for (let attempt = 0; attempt < MAX_UPDATE_RETRIES; attempt++) {
    const r = await store.range({ key });
    const kv = r.kvs[0];
    if (!kv) throw notFound(info.qualifiedResource, name);
    const old = decodeKv<Obj>(kv);
    checkPreconditions(info, name, old, opts);
    await admit(deps.admission, 'DELETE', info, undefined, old, opts.dryRun ?? false, undefined, () => {});

    // graceful or with finalizers (the GC's orphan/foregroundDeletion included): mark instead of delete
    const grace = gracePeriod(info, old, opts.gracePeriodSeconds);
    // a graceful deletion already pending keeps its finalizers (BeforeDelete's pendingGraceful)
    const pendingGraceful =
      old.metadata.deletionTimestamp !== undefined && (old.metadata.deletionGracePeriodSeconds ?? 0) > 0;
    const finalizers = pendingGraceful ? undefined : gcFinalizers(info, old, opts.propagationPolicy);
    const hasFinalizers = ((finalizers ?? old.metadata.finalizers)?.length ?? 0) > 0;
    if (grace > 0 || hasFinalizers) {
      const marked = markDeleting(old, grace, deps.clock.now());
      if (finalizers !== undefined) marked.metadata.finalizers = finalizers;
      if (opts.dryRun) return marked as T;
      if (deepEqual({ ...old, metadata: { ...old.metadata, resourceVersion: undefined } }, marked))
        return old as T;
      const resp = await store.txn({
        compare: [{ key, target: 'MOD', result: 'EQUAL', modRevision: kv.modRevision }],
        success: [{ requestPut: { key, value: encodeFor(store, marked) } }],
      });
      if (!resp.succeeded) {
        lostRace();
        continue;
      }
      marked.metadata.resourceVersion = String(resp.header.revision);
      return marked as T;
    }

    if (opts.dryRun) return old as T;
    const resp = await store.txn({
      compare: [{ key, target: 'MOD', result: 'EQUAL', modRevision: kv.modRevision }],
      success: [{ requestDeleteRange: { key } }, ...(store.durable ? releaseOps(claimKeys(info, old)) : [])],
    });
    if (!resp.succeeded) {
      lostRace();
      continue;
    }
    deps.services.release(info, old);
    return old as T;
  }
  throw internalError(`too many conflicts deleting ${info.resource} "${name}"`);
}

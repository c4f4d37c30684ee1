/**
 * One decoded, deep-frozen object per stored key revision, for the kinds whose writes go through
 * this ApiServer often and whose objects every in-process informer keeps anyway (Leases: a node's
 * kubelet renews its Lease every 10 s). The write path leaves its result here; the next update of
 * the key takes it as the old object instead of decoding the stored bytes, and the watchers that
 * share objects (the in-process informers, apiserver-watch.ts `sharedObjects`) get it instead of a
 * decode of their own. An entry is used only for the exact revision it was made from
 * (`kv.modRevision`), so a write that bypassed it (another ApiServer on the same store, a direct
 * store write) only costs a decode, never a stale object.
 *
 * An entry also remembers whether the object passed this server's validation with no warning:
 * a Lease renewal (apiserver-lease.ts) changes only a field validation never reads, so its result
 * is known without walking the object again.
 *
 * One entry per key (the newest revision written here), dropped when the key is deleted: the
 * objects are the ones the informers hold, so the cache costs a map entry per key, not a copy.
 */
import { copyOut, type Obj } from './apiserver-kv.js';
import type { ResourceInfo } from './registry.js';
import type { KeyValue } from '../store/types.js';

/** Object.freeze, all the way down (plain decoded data: objects and arrays) */
export function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const k in o) deepFreeze((o as Record<string, unknown>)[k]);
  }
  return o;
}

export interface CachedRevision {
  /** the key's modRevision this object is the value of */
  readonly rev: number;
  /** decode(value) with metadata.resourceVersion = rev, deep-frozen */
  readonly obj: Obj;
  /** the object passed this server's validation without errors or warnings */
  valid: boolean;
}

/**
 * The kinds whose newest revision the server keeps decoded: Leases, renewed by every kubelet
 * every 10 s and held by the node lifecycle controller's informer (the same frozen objects).
 */
export function cachesRevisions(info: ResourceInfo): boolean {
  return info.kind === 'Lease' && !info.crd;
}

export class RevisionCache {
  private readonly byKey = new Map<string, CachedRevision>();

  /** the cached object of exactly this key revision, or undefined */
  get(kv: KeyValue): CachedRevision | undefined {
    const e = this.byKey.get(kv.key);
    return e && e.rev === kv.modRevision ? e : undefined;
  }

  /**
   * A watcher's frozen decode of kv (what it hands the informers): kept unless the key already
   * has this or a newer revision here.
   */
  offer(kv: KeyValue, obj: Obj): void {
    const e = this.byKey.get(kv.key);
    if (!e || e.rev < kv.modRevision) this.byKey.set(kv.key, { rev: kv.modRevision, obj, valid: false });
  }

  /**
   * The write path stored `obj` as key@rev (`valid`: it passed validation cleanly). With no entry
   * for that revision yet (no watcher decoded it), keep a frozen copy: `obj` stays the caller's.
   */
  written(key: string, rev: number, obj: Obj, valid: boolean): void {
    const e = this.byKey.get(key);
    if (e && e.rev === rev) e.valid = valid;
    else if (!e || e.rev < rev) this.byKey.set(key, { rev, obj: deepFreeze(copyOut<Obj>(obj)), valid });
  }

  delete(key: string): void {
    this.byKey.delete(key);
  }

  get size(): number {
    return this.byKey.size;
  }
}

/**
 * One decoded, deep-frozen object per stored key revision, shared by the update path, the watch
 * fan-out and the in-process informers, for the kinds those informers keep anyway (a node's kubelet
 * renews its Lease every 10 s; pods and nodes post status). The first of the write path and the
 * watchers (apiserver-watch.ts `sharedObjects`) to need the object of a revision decodes it and
 * leaves it here; the next update of the key takes it as its old object instead of decoding the
 * stored bytes again. An entry is used only for the exact revision it was made from
 * (`kv.modRevision`), so a write that bypassed it (another ApiServer on the same store, a direct
 * store write) only costs a decode, never a stale object.
 *
 * An entry also remembers whether the object passed this server's validation with no warning:
 * a Lease renewal (apiserver-lease.ts) changes only a field validation never reads, so its result
 * is known without walking the object again.
 *
 * One entry per key (its newest revision a sharing watcher decoded), dropped when the key is
 * deleted: the objects are the ones the informers hold, so the cache costs a map entry per key,
 * not a copy.
 */
import type { Obj } from './apiserver-kv.js';
import type { ResourceInfo } from './registry.js';
import type { KeyValue } from '../store/types.js';

export interface CachedRevision {
  /** the key's modRevision this object is the value of */
  readonly rev: number;
  /** decode(value) with metadata.resourceVersion = rev, deep-frozen */
  readonly obj: Obj;
  /** the object passed this server's validation without errors or warnings */
  valid: boolean;
}

/**
 * The kinds whose newest revision the server keeps decoded: the built-in kinds the in-process
 * informers hold anyway (the same frozen objects), but Events (written once, kept by nobody but an
 * observer's slimmed copy, and expired by the store itself) and Services (service-allocation.ts
 * carries sub-objects of the old Service into the new one).
 */
export function cachesRevisions(info: ResourceInfo): boolean {
  return !info.crd && info.kind !== 'Event' && info.kind !== 'Service';
}

export class RevisionCache {
  private readonly byKey = new Map<string, CachedRevision>();

  /** the cached object of exactly this key revision, or undefined */
  get(kv: KeyValue): CachedRevision | undefined {
    const e = this.byKey.get(kv.key);
    return e && e.rev === kv.modRevision ? e : undefined;
  }

  /** the newest cached object of the key, whatever its revision (a base to share equal parts with) */
  latest(key: string): Obj | undefined {
    return this.byKey.get(key)?.obj;
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
   * The write path stored key@rev (`valid`: it passed validation cleanly). The object is cached
   * only once a sharing watcher decoded it (the memory store delivers before the writer resumes):
   * a copy of its own would be a second object per key where nobody watches.
   */
  written(key: string, rev: number, valid: boolean): void {
    const e = this.byKey.get(key);
    if (e && e.rev === rev) e.valid = valid;
  }

  delete(key: string): void {
    this.byKey.delete(key);
  }

  /** a watcher saw the key deleted at kv.modRevision: forget what is older */
  deleted(kv: KeyValue): void {
    const e = this.byKey.get(kv.key);
    if (e && e.rev < kv.modRevision) this.byKey.delete(kv.key);
  }

  get size(): number {
    return this.byKey.size;
  }
}

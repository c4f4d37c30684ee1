/**
 * WATCH: store watch responses turned into the apiserver's watch events (upstream:
 * staging/src/k8s.io/apiserver/pkg/storage/etcd3/watcher.go). Without a resourceVersion (or "0")
 * the current objects arrive first as ADDED; with one, every change after it is replayed from the
 * store's history. With a selector, an object that stops matching arrives as DELETED and one that
 * starts matching as ADDED. A compacted resourceVersion produces one ERROR event whose object is
 * a 410 Status (`too old resource version: N (M)`), then nothing.
 *
 * Example, watch pods with labelSelector app=web from rv "2":
 *   r3 put a {app: web} (new)         → ADDED a
 *   r4 put a {app: db}                → DELETED a (stopped matching)
 *   r5 put a {app: web}               → ADDED a (matches again)
 *   r6 delete a                       → DELETED a with resourceVersion "6"
 */
import {
  compactedFloor,
  decodeKv,
  isCompacted,
  matches,
  type Obj,
  parseRV,
  readView,
} from './apiserver-kv.js';
import { decode } from './codec.js';
import { internalError, resourceExpired } from './errors.js';
import type { ProbeCache } from './probe-cache.js';
import { deepFreeze, freezeShared } from './intern.js';
import { cachesRevisions, type RevisionCache } from './revision-cache.js';
import { storagePrefix, type ResourceInfo } from './registry.js';
import { prefixEnd } from '../store/keyrange.js';
import { parseFieldSelector } from './field-selector.js';
import { parseLabelSelector } from './label-selector.js';
import type { KubeObject } from './types.js';
import type { KvStore, WatchEvent as StoreWatchEvent, WatchResponse } from '../store/types.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface ApiWatchEvent<T> {
  type: WatchEventType;
  /** the object; a metav1.Status for ERROR; `{kind, apiVersion, metadata: {resourceVersion}}` for BOOKMARK */
  object: T;
  /**
   * with WatchOptions.withPrevious, on MODIFIED events of an unfiltered watch: the object before
   * the change (a shared read-only decode, made when first asked for)
   */
  previous?: () => T;
}

export interface WatchOptions {
  namespace?: string;
  resourceVersion?: string;
  labelSelector?: string;
  fieldSelector?: string;
  allowBookmarks?: boolean;
  /**
   * hand every watcher of the same store event the same decoded object, deep-frozen, instead of a
   * copy of its own: one decode per event rather than one per watcher, and one copy in memory for
   * all the in-process informers that cache it (client-go's rule that cached objects are read-only,
   * enforced). Default false: each watcher gets a private, mutable copy.
   */
  sharedObjects?: boolean;
  /**
   * MODIFIED events carry `previous`, so that a caller can filter one unfiltered watch by
   * selectors itself (server/watch-cache.ts, as kube-apiserver's cacher keeps each event's
   * prevObject)
   */
  withPrevious?: boolean;
}

export interface WatchHandle {
  stop(): Promise<void>;
  /** with allowBookmarks: ask the store for a progress notification, delivered as a BOOKMARK */
  requestBookmark(): void;
}

export interface WatchDeps {
  store: KvStore;
  /** shared decodes for selector evaluation across watchers */
  probes: ProbeCache;
  /** called when the handler throws */
  onHandlerError: (err: unknown) => void;
  /**
   * sharedObjects' decodes, keyed by the store's watch event: the memory store hands every synced
   * watcher of a key revision the same event object, so the decode lives as long as some watcher's
   * delivery or cache holds it, and no longer
   */
  shared: WeakMap<object, KubeObject>;
  /** the server's own frozen objects of the revisions it wrote: sharedObjects' watchers take them */
  revisions?: RevisionCache;
}

/** Watch one resource (see the file comment). */
export async function watchObjects<T extends KubeObject>(
  deps: WatchDeps,
  info: ResourceInfo,
  opts: WatchOptions,
  handler: (ev: ApiWatchEvent<T>) => void,
): Promise<WatchHandle> {
  const { store, probes, shared } = deps;
  const share = opts.sharedObjects ?? false;
  const revisions = share && cachesRevisions(info) ? deps.revisions : undefined;
  const freeze = info.kind === 'Lease' ? deepFreeze : freezeShared;
  /** the object of a PUT event: the shared frozen decode, or a copy of the watcher's own */
  const objectOf = (ev: StoreWatchEvent): T => {
    if (!share) return decodeKv<T>(ev.kv);
    let o = shared.get(ev) as T | undefined;
    if (!o) {
      o = revisions?.get(ev.kv)?.obj as T | undefined;
      if (!o) {
        const decoded = decodeKv<T>(ev.kv);
        // the key's earlier revision: its equal strings and sub-objects are taken as they are
        const prev = revisions && freeze === freezeShared ? revisions.latest(ev.kv.key) : undefined;
        o = prev ? freezeShared(decoded, prev) : freeze(decoded);
        revisions?.offer(ev.kv, o as Obj);
      }
      shared.set(ev, o);
    }
    return o;
  };
  /** the object of a DELETE event: the last state, at the deletion's resourceVersion */
  const deletedOf = (ev: StoreWatchEvent): T => {
    let o = share ? (shared.get(ev) as T | undefined) : undefined;
    if (o) return o;
    o = decode<T>(readView(ev.prevKv!.value));
    (o.metadata ??= {}).resourceVersion = String(ev.kv.modRevision);
    if (share) shared.set(ev, freeze(o));
    return o;
  };
  const prefix = storagePrefix(info, info.namespaced ? opts.namespace : undefined);
  const end = prefixEnd(prefix);
  const labels = parseLabelSelector(opts.labelSelector);
  const fields = parseFieldSelector(opts.fieldSelector, info.resource);
  const filtering = !labels.empty || !fields.isEmpty();
  let stopped = false;
  const emit = (type: WatchEventType, object: unknown, previous?: () => T) => {
    if (stopped) return;
    try {
      handler(previous ? { type, object: object as T, previous } : { type, object: object as T });
    } catch (e) {
      deps.onHandlerError(e);
    }
  };

  let startRevision: number;
  let requested: number;
  const rv = opts.resourceVersion;
  if (!rv || rv === '0') {
    const r = await store.range({ key: prefix, rangeEnd: end });
    for (const kv of r.kvs) {
      const obj = decodeKv<T>(kv);
      if (!filtering || matches(obj, labels, fields)) emit('ADDED', obj);
    }
    requested = r.header.revision;
    startRevision = r.header.revision + 1;
  } else {
    requested = parseRV(rv);
    startRevision = requested + 1;
  }

  const gone = (compactRevision: number) => {
    emit(
      'ERROR',
      resourceExpired(`too old resource version: ${requested} (${compactRevision - 1})`).status(),
    );
    stopped = true;
  };

  const onResponse = (resp: WatchResponse) => {
    if (stopped) return;
    if (resp.canceled) {
      if (resp.compactRevision && resp.compactRevision > 0) gone(resp.compactRevision);
      else {
        emit('ERROR', internalError(resp.cancelReason ?? 'watch canceled by the store').status());
        stopped = true;
      }
      return;
    }
    if (resp.events.length === 0) {
      if (opts.allowBookmarks && resp.progress !== false) {
        emit('BOOKMARK', {
          kind: info.kind,
          apiVersion: info.apiVersion,
          metadata: { resourceVersion: String(resp.header.revision) },
        });
      }
      return;
    }
    for (const ev of resp.events) {
      if (stopped) return;
      if (ev.type === 'PUT') {
        const isNew = ev.kv.createRevision === ev.kv.modRevision || !ev.prevKv;
        if (!filtering) {
          const prevKv = ev.prevKv;
          if (isNew || !prevKv || !opts.withPrevious) emit(isNew ? 'ADDED' : 'MODIFIED', objectOf(ev));
          else emit('MODIFIED', objectOf(ev), () => probes.probe(prevKv) as T);
          continue;
        }
        // match on shared read-only decodes; hand each matching watcher its object
        const cur = matches(probes.probe(ev.kv), labels, fields);
        const prev = isNew ? false : matches(probes.probe(ev.prevKv!), labels, fields);
        if (cur && prev) emit('MODIFIED', objectOf(ev));
        else if (cur) emit('ADDED', objectOf(ev));
        else if (prev) emit('DELETED', objectOf(ev));
      } else {
        revisions?.deleted(ev.kv);
        if (!ev.prevKv) continue;
        if (filtering && !matches(probes.probe(ev.prevKv), labels, fields)) continue;
        emit('DELETED', deletedOf(ev));
      }
    }
  };

  let watcher: Awaited<ReturnType<KvStore['watch']>>;
  try {
    watcher = await store.watch(
      { key: prefix, rangeEnd: end, startRevision, prevKv: true, progressNotify: opts.allowBookmarks },
      onResponse,
    );
  } catch (e) {
    if (isCompacted(e)) {
      gone(await compactedFloor(store, requested));
      // gone() reports floor-1 as the oldest resumable resourceVersion
      return { stop: async () => {}, requestBookmark: () => {} };
    }
    throw e;
  }
  return {
    stop: async () => {
      stopped = true;
      await watcher.cancel();
    },
    requestBookmark: () => {
      if (opts.allowBookmarks && !stopped) watcher.requestProgress();
    },
  };
}

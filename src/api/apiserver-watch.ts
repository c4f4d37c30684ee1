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
import { compactedFloor, decodeKv, isCompacted, matches, parseRV } from './apiserver-kv.js';
import { decode } from './codec.js';
import { internalError, resourceExpired } from './errors.js';
import type { ProbeCache } from './probe-cache.js';
import { storagePrefix, type ResourceInfo } from './registry.js';
import { prefixEnd } from '../store/keyrange.js';
import { parseFieldSelector } from './field-selector.js';
import { parseLabelSelector } from './label-selector.js';
import type { KubeObject } from './types.js';
import type { KvStore, WatchResponse } from '../store/types.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface ApiWatchEvent<T> {
  type: WatchEventType;
  /** the object; a metav1.Status for ERROR; `{kind, apiVersion, metadata: {resourceVersion}}` for BOOKMARK */
  object: T;
}

export interface WatchOptions {
  namespace?: string;
  resourceVersion?: string;
  labelSelector?: string;
  fieldSelector?: string;
  allowBookmarks?: boolean;
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
}

/** Watch one resource (see the file comment). */
export async function watchObjects<T extends KubeObject>(
  deps: WatchDeps,
  info: ResourceInfo,
  opts: WatchOptions,
  handler: (ev: ApiWatchEvent<T>) => void,
): Promise<WatchHandle> {
  const { store, probes } = deps;
  const prefix = storagePrefix(info, info.namespaced ? opts.namespace : undefined);
  const end = prefixEnd(prefix);
  const labels = parseLabelSelector(opts.labelSelector);
  const fields = parseFieldSelector(opts.fieldSelector, info.resource);
  const filtering = !labels.empty || !fields.isEmpty();
  let stopped = false;
  const emit = (type: WatchEventType, object: unknown) => {
    if (stopped) return;
    try {
      handler({ type, object: object as T });
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
          emit(isNew ? 'ADDED' : 'MODIFIED', decodeKv<T>(ev.kv));
          continue;
        }
        // match on shared read-only decodes; hand each matching watcher its own copy
        const cur = matches(probes.probe(ev.kv), labels, fields);
        const prev = isNew ? false : matches(probes.probe(ev.prevKv!), labels, fields);
        if (cur && prev) emit('MODIFIED', decodeKv<T>(ev.kv));
        else if (cur) emit('ADDED', decodeKv<T>(ev.kv));
        else if (prev) emit('DELETED', decodeKv<T>(ev.kv));
      } else {
        if (!ev.prevKv) continue;
        if (filtering && !matches(probes.probe(ev.prevKv), labels, fields)) continue;
        const obj = decode<T>(ev.prevKv.value);
        (obj.metadata ??= {}).resourceVersion = String(ev.kv.modRevision);
        emit('DELETED', obj);
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

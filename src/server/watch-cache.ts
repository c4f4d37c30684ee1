/**
 * The watch cache: one store watch per resource feeding every HTTP watcher of that resource, as
 * kube-apiserver's cacher does (staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go,
 * watch_cache.go). The store watch is unfiltered and hands out shared frozen objects; its events
 * are kept in a window of the most recent WINDOW events, and each is dispatched to the registered
 * watchers, filtered here by namespace, label and field selectors (an object that stops matching
 * becomes DELETED, one that starts matching ADDED, as the store watch filters). Every watcher of an
 * event gets the same object, so serveWatch's per-object byte cache encodes it once per encoding.
 *
 * resourceVersion semantics:
 *  - a watch from N where every event after N is still in the window (N ≥ floor) is served from the
 *    cache: the window's events after N, then live ones;
 *  - a watch from N the store has compacted past (a watch from it would be refused by the store)
 *    falls back to a store watch as well, which answers 410 Gone as before;
 *  - a watch from N older than the window is NOT answered 410 here (upstream's cacher answers
 *    `too old resource version` past its window): it falls back to a store watch of its own
 *    (`cache.watch` returns undefined), which replays the store's history and answers 410 only
 *    once the store has compacted N — kubesim keeps its store-backed semantics for old versions;
 *  - "" / "0" watches stay store watches of their own (their initial state is the store's range,
 *    read outside max-in-flight as a watch is); sendInitialEvents is served by serveWatch with a
 *    list, then a watch from the list's resourceVersion (here);
 *  - bookmarks: a watcher's bookmark request asks the store for a progress notification through
 *    the one store watch; the BOOKMARK goes to the watchers that asked (never behind their start).
 * When the store watch fails (canceled, compacted under it), every watcher's stream ends and the
 * cache is dropped; clients re-watch from their last resourceVersion, as upstream's cacher
 * terminates its watchers when it reinitializes.
 */
import type { ApiServer, ApiWatchEvent, WatchHandle } from '../api/apiserver.js';
import { isCompacted, matches, parseRV } from '../api/apiserver-kv.js';
import { storagePrefix } from '../api/registry.js';
import { GrpcCode, StoreError } from '../store/types.js';
import { type ParsedFieldSelector, parseFieldSelector } from '../api/field-selector.js';
import { parseLabelSelector, type Selector } from '../api/label-selector.js';
import type { ResourceInfo } from '../api/registry.js';
import type { KubeObject } from '../api/types.js';

/** events kept per resource (upstream sizes its window between 100 and 100 × 1024 events) */
const WINDOW = 4096;

type Event = ApiWatchEvent<KubeObject>;

interface Cached {
  /** the event's resourceVersion (a DELETED object carries the deletion's) */
  rv: number;
  /** as the unfiltered store watch gave it: what unfiltered watchers receive as is */
  ev: Event;
}

export interface CacheWatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion: string;
  allowBookmarks?: boolean;
}

interface Watcher {
  namespace?: string;
  labels: Selector;
  fields: ParsedFieldSelector;
  filtering: boolean;
  /** events at or below this resourceVersion were seen before the watch (list or resume point) */
  from: number;
  emit: (ev: Event) => void;
  /** ends the watcher's stream without an event (the cache went away) */
  end: () => void;
  wantsBookmark: boolean;
}

class ResourceCache {
  /** every event after this resourceVersion is in `events` (or still to come) */
  floor: number;
  private events: Cached[] = [];
  private head = 0;
  private readonly watchers = new Set<Watcher>();
  /**
   * the watchers again, indexed by the namespace they watch (undefined: all namespaces), so an
   * event is only offered to the watchers of its namespace and the all-namespace ones — upstream's
   * cacher indexes its watchers the same way (cacher.go watchersBuffer / indexedWatchers by
   * namespace and trigger value); label and field selectors are still tested per watcher
   */
  private readonly byNamespace = new Map<string | undefined, Set<Watcher>>();
  private handle?: WatchHandle;
  failed = false;

  constructor(
    private readonly info: ResourceInfo,
    floor: number,
    private readonly onFail: () => void,
  ) {
    this.floor = floor;
  }

  async start(api: ApiServer): Promise<void> {
    this.handle = await api.watch(
      this.info.resource,
      {
        resourceVersion: String(this.floor),
        allowBookmarks: true,
        sharedObjects: true,
        withPrevious: true,
      },
      (ev) => this.onEvent(ev),
    );
    if (this.failed) void this.handle.stop();
  }

  private onEvent(ev: Event): void {
    if (this.failed) return;
    if (ev.type === 'ERROR') {
      this.fail();
      return;
    }
    if (ev.type === 'BOOKMARK') {
      const rv = Number(ev.object.metadata?.resourceVersion);
      for (const w of this.watchers)
        if (w.wantsBookmark && rv >= w.from) {
          w.wantsBookmark = false;
          w.emit(ev);
        }
      return;
    }
    const c: Cached = { rv: Number(ev.object.metadata?.resourceVersion), ev };
    this.events.push(c);
    if (this.events.length - this.head > WINDOW) {
      this.floor = this.events[this.head]!.rv;
      this.events[this.head++] = undefined as never;
      if (this.head > WINDOW) {
        this.events = this.events.slice(this.head);
        this.head = 0;
      }
    }
    const all = this.byNamespace.get(undefined);
    if (all) for (const w of all) deliver(w, c);
    const ns = ev.object.metadata?.namespace;
    const own = ns === undefined ? undefined : this.byNamespace.get(ns);
    if (own) for (const w of own) deliver(w, c);
  }

  /** register a watcher from resourceVersion `from` (≥ floor): the window's later events first */
  add(w: Watcher): WatchHandle {
    for (let i = this.head; i < this.events.length; i++) deliver(w, this.events[i]!);
    this.watchers.add(w);
    let same = this.byNamespace.get(w.namespace);
    if (!same) this.byNamespace.set(w.namespace, (same = new Set()));
    same.add(w);
    return {
      stop: async () => {
        this.watchers.delete(w);
        const set = this.byNamespace.get(w.namespace);
        set?.delete(w);
        if (set?.size === 0) this.byNamespace.delete(w.namespace);
      },
      requestBookmark: () => {
        w.wantsBookmark = true;
        this.handle?.requestBookmark();
      },
    };
  }

  private fail(): void {
    this.failed = true;
    this.onFail();
    void this.handle?.stop();
    for (const w of this.watchers) w.end();
    this.watchers.clear();
    this.byNamespace.clear();
  }

  stop(): void {
    this.failed = true;
    void this.handle?.stop();
    this.watchers.clear();
    this.byNamespace.clear();
  }
}

/** hand one event to one watcher, filtered as apiserver-watch.ts filters a store watch */
function deliver(w: Watcher, c: Cached): void {
  if (c.rv <= w.from) return;
  const { ev } = c;
  const o = ev.object;
  if (w.namespace !== undefined && o.metadata?.namespace !== w.namespace) return;
  if (!w.filtering) {
    w.emit(ev);
    return;
  }
  const cur = ev.type !== 'DELETED' && matches(o, w.labels, w.fields);
  const prev =
    ev.type === 'DELETED'
      ? matches(o, w.labels, w.fields)
      : ev.previous !== undefined && matches(ev.previous(), w.labels, w.fields);
  if (cur && prev) w.emit({ type: 'MODIFIED', object: o });
  else if (cur) w.emit({ type: 'ADDED', object: o });
  else if (prev) w.emit({ type: 'DELETED', object: o });
}

/** the watch caches of one server, one per resource, made on the first watch of each */
export class WatchCaches {
  private readonly caches = new Map<string, ResourceCache | Promise<ResourceCache>>();
  private closed = false;

  constructor(private readonly api: ApiServer) {}

  /**
   * Watch from an explicit resourceVersion through the resource's cache; undefined when that
   * version is older than the cache's window (the caller then watches the store itself). Bad
   * selectors or resourceVersions throw before anything is registered.
   */
  async watch(
    info: ResourceInfo,
    opts: CacheWatchOptions,
    emit: (ev: Event) => void,
    end: () => void,
  ): Promise<WatchHandle | undefined> {
    const from = parseRV(opts.resourceVersion);
    const labels = parseLabelSelector(opts.labelSelector);
    const fields = parseFieldSelector(opts.fieldSelector, info.resource);
    if (this.closed) return undefined;
    const cache = await this.cacheOf(info);
    if (from < cache.floor || cache.failed || (await this.compacted(info, from))) return undefined;
    return cache.add({
      namespace: opts.namespace,
      labels,
      fields,
      filtering: !labels.empty || !fields.isEmpty(),
      from,
      emit,
      end,
      wantsBookmark: false,
    });
  }

  /**
   * whether the store compacted past `from` (a store watch from it would be refused): such a watch
   * gets its 410 from the store, as without the cache (upstream's cacher would still serve it
   * from its window; kubesim keeps the store's answer, which informers' relist tests rely on)
   */
  private async compacted(info: ResourceInfo, from: number): Promise<boolean> {
    // read straight from the store: watches are long-running requests, outside max-in-flight
    try {
      await this.api.store.range({ key: storagePrefix(info), revision: from + 1, limit: 1 });
      return false;
    } catch (e) {
      if (isCompacted(e)) return true;
      // from is the newest revision or beyond: nothing compacted
      if (e instanceof StoreError && e.code === GrpcCode.OUT_OF_RANGE) return false;
      throw e;
    }
  }

  private async cacheOf(info: ResourceInfo): Promise<ResourceCache> {
    const key = `${info.apiVersion}/${info.resource}`;
    const have = this.caches.get(key);
    if (have) return have;
    const made = (async () => {
      // the window starts at the store's current revision: older resume points use the store
      const rv = await this.api.store.currentRevision();
      const cache = new ResourceCache(info, rv, () => {
        if (this.caches.get(key) === cache) this.caches.delete(key);
      });
      await cache.start(this.api);
      if (cache.failed) this.caches.delete(key);
      else this.caches.set(key, cache);
      return cache;
    })();
    this.caches.set(key, made);
    try {
      return await made;
    } catch (e) {
      this.caches.delete(key);
      throw e;
    }
  }

  /** stop every store watch (the server is closing) */
  async close(): Promise<void> {
    this.closed = true;
    for (const c of this.caches.values()) (await c).stop();
    this.caches.clear();
  }
}

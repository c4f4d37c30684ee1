/**
 * A shared informer (client-go's reflector + DeltaFIFO + indexer, collapsed): list a resource,
 * then watch it from the list's resourceVersion; keep a local cache with secondary indexes; call
 * add/update/delete handlers; resync (re-announce every cached object) every resyncPeriodMs; and
 * RELIST when the watch fails — in particular on 410 Gone (our resourceVersion was compacted),
 * where the new list is diffed against the cache to produce the adds/updates/deletes the watch
 * missed (client-go's Replace with DeletedFinalStateUnknown, without the wrapper type).
 *
 * Handlers run synchronously inside the watch delivery and must be cheap (enqueue a key).
 */
import type { KubeObject } from '../api/types.js';
import type { Clock, TimerHandle } from '../util/clock.js';
import { type ApiClient, type WatchEvent, type WatchHandle, errorCode, keyOf } from './api.js';

export interface EventHandler<T> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

/** Maps an object to the index values it is filed under (e.g. a pod's spec.nodeName). */
export type IndexFunc<T> = (obj: T) => string[];

export interface InformerOptions<T> {
  clock: Clock;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** re-announce every cached object as an update this often; 0 = never (default) */
  resyncPeriodMs?: number;
  /** wait before relisting after a watch error other than 410 (default 1 s) */
  relistBackoffMs?: number;
  indexers?: Record<string, IndexFunc<T>>;
}

/** Read-only access to an informer's cache (client-go's listers). */
export interface Lister<T> {
  get(namespace: string | undefined, name: string): T | undefined;
  getByKey(key: string): T | undefined;
  list(namespace?: string): T[];
  byIndex(indexName: string, value: string): T[];
  readonly size: number;
}

export const NAMESPACE_INDEX = 'namespace';

export class Informer<T extends KubeObject> implements Lister<T> {
  private readonly cache = new Map<string, T>();
  private readonly handlers: EventHandler<T>[] = [];
  private readonly indexers = new Map<string, IndexFunc<T>>();
  /** indexName → value → keys */
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  private watch?: WatchHandle;
  private generation = 0;
  private resyncTimer?: TimerHandle;
  private relistTimer?: TimerHandle;
  private stopped = false;
  private synced = false;
  private transform?: (obj: T) => T;
  /** the resourceVersion of the last list or watch event seen */
  lastResourceVersion = '';
  /** times the informer relisted after the first list (410s, watch errors) */
  relists = 0;

  constructor(
    readonly api: ApiClient,
    readonly resource: string,
    private readonly opts: InformerOptions<T>,
  ) {
    this.addIndexer(NAMESPACE_INDEX, (o) => [o.metadata.namespace ?? '']);
    for (const [name, fn] of Object.entries(opts.indexers ?? {})) this.addIndexer(name, fn);
  }

  get hasSynced(): boolean {
    return this.synced;
  }
  get size(): number {
    return this.cache.size;
  }

  addEventHandler(h: EventHandler<T>): void {
    this.handlers.push(h);
    // like client-go: a handler added late sees the current contents as adds
    if (this.synced && h.onAdd) for (const o of this.cache.values()) h.onAdd(o);
  }

  /**
   * Keep `fn(obj)` in the cache instead of the object itself (client-go's SharedInformer.SetTransform,
   * used to drop fields nobody reads): every listed and watched object passes through it before
   * the cache and the handlers see it. Set before {@link start}.
   */
  setTransform(fn: (obj: T) => T): void {
    if (this.synced) throw new Error(`informer ${this.resource}: transform set after start`);
    this.transform = fn;
  }

  addIndexer(name: string, fn: IndexFunc<T>): void {
    if (this.indexers.has(name))
      throw new Error(`informer ${this.resource}: indexer "${name}" already exists`);
    this.indexers.set(name, fn);
    const idx = new Map<string, Set<string>>();
    this.indices.set(name, idx);
    for (const [k, o] of this.cache) for (const v of fn(o)) addTo(idx, v, k);
  }

  /** list, then watch; resolves once the initial list is in the cache and handlers have seen it */
  async start(): Promise<void> {
    await this.listAndWatch();
    if (this.opts.resyncPeriodMs && this.opts.resyncPeriodMs > 0) this.scheduleResync();
  }

  stop(): void {
    this.stopped = true;
    this.generation++;
    this.watch?.stop();
    this.watch = undefined;
    if (this.resyncTimer) this.opts.clock.clearTimer(this.resyncTimer);
    if (this.relistTimer) this.opts.clock.clearTimer(this.relistTimer);
  }

  // ---- Lister
  get(namespace: string | undefined, name: string): T | undefined {
    return this.cache.get(namespace ? `${namespace}/${name}` : name);
  }
  getByKey(key: string): T | undefined {
    return this.cache.get(key);
  }
  list(namespace?: string): T[] {
    return namespace === undefined ? [...this.cache.values()] : this.byIndex(NAMESPACE_INDEX, namespace);
  }
  byIndex(indexName: string, value: string): T[] {
    const idx = this.indices.get(indexName);
    if (!idx) throw new Error(`informer ${this.resource}: no indexer "${indexName}"`);
    const keys = idx.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const k of keys) out.push(this.cache.get(k)!);
    return out;
  }
  keys(): IterableIterator<string> {
    return this.cache.keys();
  }
  /** how many objects are filed under an index value */
  countInIndex(indexName: string, value: string): number {
    const idx = this.indices.get(indexName);
    if (!idx) throw new Error(`informer ${this.resource}: no indexer "${indexName}"`);
    return idx.get(value)?.size ?? 0;
  }
  /** visit the objects filed under an index value without allocating a list (hot paths) */
  forEachInIndex(indexName: string, value: string, fn: (obj: T) => void): void {
    const keys = this.indices.get(indexName)?.get(value);
    if (keys) for (const k of keys) fn(this.cache.get(k)!);
  }

  // ---- reflector
  private async listAndWatch(): Promise<void> {
    const gen = ++this.generation;
    const { namespace, labelSelector, fieldSelector } = this.opts;
    let items: T[] = [];
    let rv = '';
    let cont: string | undefined;
    do {
      const res = await this.api.list<T>(this.resource, {
        namespace,
        labelSelector,
        fieldSelector,
        continue: cont,
      });
      items = items.concat(res.items);
      rv = res.metadata.resourceVersion;
      cont = res.metadata.continue || undefined;
    } while (cont);
    if (gen !== this.generation || this.stopped) return;
    const t = this.transform;
    this.replace(t ? items.map(t) : items);
    this.lastResourceVersion = rv;
    this.synced = true;
    const handle = this.api.watch<T>(
      this.resource,
      { namespace, labelSelector, fieldSelector, resourceVersion: rv },
      (ev) => {
        if (gen === this.generation) this.onWatchEvent(ev);
      },
    );
    const h = handle instanceof Promise ? await handle : handle;
    if (gen !== this.generation) {
      h.stop();
      return;
    }
    this.watch = h;
  }

  private onWatchEvent(ev: WatchEvent<T>): void {
    if (this.transform && (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED'))
      ev = { type: ev.type, object: this.transform(ev.object) };
    switch (ev.type) {
      case 'ADDED':
      case 'MODIFIED':
        this.upsert(ev.object);
        this.lastResourceVersion = ev.object.metadata.resourceVersion ?? this.lastResourceVersion;
        break;
      case 'DELETED':
        this.remove(keyOf(ev.object), ev.object);
        this.lastResourceVersion = ev.object.metadata.resourceVersion ?? this.lastResourceVersion;
        break;
      case 'BOOKMARK':
        this.lastResourceVersion = ev.object.metadata?.resourceVersion ?? this.lastResourceVersion;
        break;
      case 'ERROR': {
        // 410 Gone: relist at once (the reflector's "too old resource version"); others after a backoff
        const gone = errorCode(ev.object) === 410;
        this.generation++;
        this.watch?.stop();
        this.watch = undefined;
        this.relists++;
        const relist = () => {
          if (!this.stopped) this.listAndWatch().catch(() => this.scheduleRelist());
        };
        if (gone) relist();
        else this.scheduleRelist();
        break;
      }
    }
  }

  private scheduleRelist(): void {
    if (this.stopped) return;
    this.relistTimer = this.opts.clock.setTimer(() => {
      this.listAndWatch().catch(() => this.scheduleRelist());
    }, this.opts.relistBackoffMs ?? 1000);
  }

  private scheduleResync(): void {
    this.resyncTimer = this.opts.clock.setTimer(() => {
      if (this.stopped) return;
      for (const o of this.cache.values()) for (const h of this.handlers) h.onUpdate?.(o, o);
      this.scheduleResync();
    }, this.opts.resyncPeriodMs!);
  }

  /** replace the cache with a full list, announcing the differences */
  private replace(items: T[]): void {
    const seen = new Set<string>();
    for (const o of items) {
      seen.add(keyOf(o));
      this.upsert(o);
    }
    for (const [k, o] of [...this.cache]) if (!seen.has(k)) this.remove(k, o);
  }

  private upsert(obj: T): void {
    const key = keyOf(obj);
    const old = this.cache.get(key);
    if (
      old &&
      old.metadata.resourceVersion === obj.metadata.resourceVersion &&
      old.metadata.resourceVersion !== undefined
    )
      return;
    this.cache.set(key, obj);
    if (old) this.reindex(key, old, obj);
    else this.index(key, obj);
    if (old) {
      for (const h of this.handlers) h.onUpdate?.(old, obj);
    } else for (const h of this.handlers) h.onAdd?.(obj);
  }

  private remove(key: string, obj: T): void {
    const old = this.cache.get(key);
    if (!old) return;
    this.unindex(key, old);
    this.cache.delete(key);
    for (const h of this.handlers) h.onDelete?.(obj);
  }

  private index(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const idx = this.indices.get(name)!;
      for (const v of fn(obj)) addTo(idx, v, key);
    }
  }

  /**
   * Move a key from the old object's index values to the new one's. An updated key goes to the end
   * of its set (listers answer in that order, and components act in it), also when the value did
   * not change (a pod's namespace, its node once bound): then one lookup does it.
   */
  private reindex(key: string, old: T, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const idx = this.indices.get(name)!;
      const was = fn(old);
      const now = fn(obj);
      const same = was.length === 1 && now.length === 1 && was[0] === now[0] ? idx.get(was[0]) : undefined;
      if (same?.delete(key)) {
        same.add(key);
        continue;
      }
      for (const v of was) removeFrom(idx, v, key);
      for (const v of now) addTo(idx, v, key);
    }
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const idx = this.indices.get(name)!;
      for (const v of fn(obj)) removeFrom(idx, v, key);
    }
  }
}

function removeFrom(idx: Map<string, Set<string>>, v: string, key: string): void {
  const s = idx.get(v);
  if (s) {
    s.delete(key);
    if (s.size === 0) idx.delete(v);
  }
}

function addTo(idx: Map<string, Set<string>>, v: string, key: string): void {
  let s = idx.get(v);
  if (!s) idx.set(v, (s = new Set()));
  s.add(key);
}

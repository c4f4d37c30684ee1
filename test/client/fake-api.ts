/**
 * A small in-memory ApiClient for unit tests of informers and controllers: global resourceVersion,
 * 409 on stale updates, 404, watch from a resourceVersion with history, compaction → 410 ERROR.
 * Events are delivered in a microtask after the write (the real ApiServer is asynchronous too).
 */
import type { Binding, KubeObject, Pod } from '../../src/api/types.js';
import type {
  ApiClient,
  DeleteOptions,
  ListOptions,
  ListResult,
  WatchEvent,
  WatchHandle,
  WatchOptions,
} from '../../src/client/api.js';

class FakeError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    msg: string,
  ) {
    super(msg);
  }
}

interface Hist {
  rv: number;
  resource: string;
  ev: WatchEvent;
}

export class FakeApi implements ApiClient {
  rv = 0;
  readonly data = new Map<string, Map<string, KubeObject>>();
  private history: Hist[] = [];
  private compacted = 0;
  private watchers = new Set<{ resource: string; ns?: string; handler: (ev: WatchEvent) => void }>();
  writes = 0;
  uid = 0;

  private table(resource: string): Map<string, KubeObject> {
    let t = this.data.get(resource);
    if (!t) this.data.set(resource, (t = new Map()));
    return t;
  }
  private k(ns: string | undefined, name: string) {
    return ns ? `${ns}/${name}` : name;
  }
  private emit(resource: string, type: WatchEvent['type'], obj: KubeObject) {
    const ev = { type, object: clone(obj) };
    this.history.push({ rv: this.rv, resource, ev });
    for (const w of [...this.watchers]) {
      if (w.resource !== resource || (w.ns && w.ns !== obj.metadata.namespace)) continue;
      queueMicrotask(() => {
        if (this.watchers.has(w)) w.handler(clone(ev));
      });
    }
  }

  async create<T extends KubeObject>(resource: string, obj: T): Promise<T> {
    const o = clone(obj);
    if (!o.metadata.name && o.metadata.generateName)
      o.metadata.name = o.metadata.generateName + (++this.uid).toString(36);
    const key = this.k(o.metadata.namespace, o.metadata.name!);
    const t = this.table(resource);
    if (t.has(key)) throw new FakeError(409, 'AlreadyExists', `${resource} "${key}" already exists`);
    this.writes++;
    o.metadata.resourceVersion = String(++this.rv);
    o.metadata.uid ??= `uid-${++this.uid}`;
    o.metadata.generation = 1;
    o.metadata.creationTimestamp ??= new Date(0).toISOString();
    t.set(key, o);
    this.emit(resource, 'ADDED', o);
    return clone(o);
  }
  async get<T extends KubeObject>(resource: string, ns: string | undefined, name: string): Promise<T> {
    const o = this.table(resource).get(this.k(ns, name));
    if (!o) throw new FakeError(404, 'NotFound', `${resource} "${name}" not found`);
    return clone(o) as T;
  }
  async list<T extends KubeObject>(resource: string, opts: ListOptions = {}): Promise<ListResult<T>> {
    const items = [...this.table(resource).values()].filter(
      (o) => !opts.namespace || o.metadata.namespace === opts.namespace,
    );
    return { items: items.map(clone) as T[], metadata: { resourceVersion: String(this.rv) } };
  }
  private async put<T extends KubeObject>(resource: string, obj: T, status: boolean): Promise<T> {
    const key = this.k(obj.metadata.namespace, obj.metadata.name!);
    const t = this.table(resource);
    const cur = t.get(key);
    if (!cur) throw new FakeError(404, 'NotFound', `${resource} "${key}" not found`);
    if (obj.metadata.resourceVersion && obj.metadata.resourceVersion !== cur.metadata.resourceVersion) {
      throw new FakeError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${resource} "${key}": the object has been modified`,
      );
    }
    this.writes++;
    const o = clone(obj) as any;
    const c = cur as any;
    if (status) {
      const s = o.status;
      Object.assign(o, clone(c));
      o.status = s;
    } else {
      if ('status' in c) o.status = clone(c.status);
      if (JSON.stringify(o.spec) !== JSON.stringify(c.spec))
        o.metadata.generation = (c.metadata.generation ?? 1) + 1;
      else o.metadata.generation = c.metadata.generation;
    }
    o.metadata.resourceVersion = String(++this.rv);
    t.set(key, o);
    this.emit(resource, 'MODIFIED', o);
    return clone(o);
  }
  update<T extends KubeObject>(resource: string, obj: T): Promise<T> {
    return this.put(resource, obj, false);
  }
  updateStatus<T extends KubeObject>(resource: string, obj: T): Promise<T> {
    return this.put(resource, obj, true);
  }
  async delete(resource: string, ns: string | undefined, name: string, _opts?: DeleteOptions): Promise<void> {
    const key = this.k(ns, name);
    const t = this.table(resource);
    const cur = t.get(key);
    if (!cur) throw new FakeError(404, 'NotFound', `${resource} "${key}" not found`);
    this.writes++;
    t.delete(key);
    const o = clone(cur);
    o.metadata.resourceVersion = String(++this.rv);
    this.emit(resource, 'DELETED', o);
  }
  async bind(b: Binding): Promise<void> {
    const pod = await this.get<Pod>('pods', b.metadata.namespace, b.metadata.name!);
    if (pod.spec.nodeName) throw new FakeError(409, 'Conflict', 'already bound');
    pod.spec.nodeName = b.target.name;
    pod.metadata.resourceVersion = undefined;
    await this.put('pods', pod, false);
  }
  watch<T extends KubeObject>(
    resource: string,
    opts: WatchOptions,
    handler: (ev: WatchEvent<T>) => void,
  ): WatchHandle {
    const from = Number(opts.resourceVersion ?? this.rv);
    const w = { resource, ns: opts.namespace, handler: handler as (ev: WatchEvent) => void };
    if (from < this.compacted) {
      queueMicrotask(() =>
        handler({ type: 'ERROR', object: { code: 410, reason: 'Expired', metadata: {} } as any }),
      );
      return { stop() {} };
    }
    this.watchers.add(w);
    for (const h of this.history) {
      if (
        h.rv > from &&
        h.resource === resource &&
        (!opts.namespace || h.ev.object.metadata.namespace === opts.namespace)
      ) {
        const ev = clone(h.ev);
        queueMicrotask(() => {
          if (this.watchers.has(w)) w.handler(ev);
        });
      }
    }
    return {
      stop: () => {
        this.watchers.delete(w);
      },
    };
  }
  /** drop history up to now and break every watch with 410 (forces informers to relist) */
  compactAndExpireWatches(): void {
    this.compacted = this.rv;
    this.history = [];
    for (const w of [...this.watchers]) {
      this.watchers.delete(w);
      queueMicrotask(() =>
        w.handler({ type: 'ERROR', object: { code: 410, reason: 'Expired', metadata: {} } as any }),
      );
    }
  }
  /** a write that bypasses watchers (simulates events lost while a watch was broken) */
  silentDelete(resource: string, ns: string | undefined, name: string): void {
    this.table(resource).delete(this.k(ns, name));
    this.rv++;
  }
}

export function clone<T>(o: T): T {
  return structuredClone(o);
}

/** let queued microtasks and promise chains settle */
export function settle(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

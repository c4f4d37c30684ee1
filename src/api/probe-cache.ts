/**
 * Decoded objects used only to evaluate watch selectors, shared by every filtered watcher that
 * sees the same key revision: one decode per event instead of one per watcher (e.g. a kubelet
 * watch per node with `spec.nodeName=<node>`). Never handed to callers, who get their own copy.
 */
import { decodeKv } from './apiserver-kv.js';
import type { KubeObject } from './types.js';
import type { KeyValue } from '../store/types.js';

/** decoded objects kept across watchers */
const PROBE_CACHE_SIZE = 1024;

export class ProbeCache {
  private readonly byId = new Map<string, KubeObject>();
  private readonly byKv = new WeakMap<KeyValue, KubeObject>();

  /** The shared read-only decode of a key revision. */
  probe(kv: KeyValue): KubeObject {
    // the store usually hands every watcher the same KeyValue object: try identity first
    let o = this.byKv.get(kv);
    if (o) return o;
    const id = `${kv.modRevision}\u0000${kv.key}`;
    o = this.byId.get(id);
    if (!o) {
      o = decodeKv<KubeObject>(kv);
      this.byId.set(id, o);
      if (this.byId.size > PROBE_CACHE_SIZE) {
        const oldest = this.byId.keys().next().value as string;
        this.byId.delete(oldest);
      }
    }
    this.byKv.set(kv, o);
    return o;
  }
}

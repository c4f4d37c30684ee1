/**
 * kube-proxy's nftElementStorage (pkg/proxy/nftables/proxier.go): what one set or map holds in
 * the kernel, so that a partial sync writes only the element changes. Each sync calls `ensure`
 * for every element it wants; `cleanupLeftovers` then deletes the elements nobody ensured.
 *
 *   sync 1: ensure(a→x), ensure(b→y)            add a, add b
 *   sync 2: ensure(a→x), ensure(b→z)            delete b + add b (value changed)
 *   sync 3: ensure(a→x)                         cleanupLeftovers: delete b
 */
import type { NftTransaction } from './transaction.js';

export class ElementStorage {
  readonly elements = new Map<string, string>();
  private leftover = new Set<string>();

  constructor(
    readonly kind: 'set' | 'map',
    readonly name: string,
  ) {}

  /** Flushes the container (full sync): the kernel holds nothing until ensured again. */
  reset(tx: NftTransaction): void {
    this.elements.clear();
    tx.flushSet(this.kind, this.name);
    this.leftover = new Set();
  }

  ensure(tx: NftTransaction, key: string, value?: string, comment?: string): void {
    const v = value ?? '';
    const existing = this.elements.get(key);
    if (existing !== undefined) {
      if (existing !== v) {
        tx.deleteElement(this.name, key);
        tx.addElement(this.name, key, value, comment);
        this.elements.set(key, v);
      }
      this.leftover.delete(key);
    } else {
      tx.addElement(this.name, key, value, comment);
      this.elements.set(key, v);
    }
  }

  cleanupLeftovers(tx: NftTransaction): void {
    for (const key of this.leftover) {
      tx.deleteElement(this.name, key);
      this.elements.delete(key);
    }
    this.leftover = new Set(this.elements.keys());
  }
}

/**
 * kube-proxy's nftElementStorage (pkg/proxy/nftables/proxier.go): what one set or map holds in
 * the kernel, so that a partial sync writes only the element changes. Each sync calls `ensure`
 * for every element it wants; `cleanupLeftovers` then deletes the elements nobody ensured.
 *
 *   sync 1: ensure(a→x), ensure(b→y)            add a, add b
 *   sync 2: ensure(a→x), ensure(b→z)            delete b + add b (value changed)
 *   sync 3: ensure(a→x)                         cleanupLeftovers: delete b
 *
 * A sync that walks every service port calls `beginWalk`, `ensure` for each element and
 * `cleanupLeftovers`. An incremental sync (proxier.ts) calls `ensure` for the changed ports only
 * and `cleanup` with the keys they no longer want: it keeps, per key, how many service ports want
 * it (`own` / `disown`), so an element goes when its last port lets go of it. Deletions are
 * written in the order the elements were added, as the walk writes them.
 */
import type { NftTransaction } from './transaction.js';

export class ElementStorage {
  readonly elements = new Map<string, string>();
  private leftover = new Set<string>();
  /** key → when it was added (the order of `elements`) */
  private readonly added = new Map<string, number>();
  private seq = 0;
  /** key → service ports that want it */
  private readonly refs = new Map<string, number>();
  /** keys more than one service port wants (a value may then flip between syncs) */
  shared = 0;
  /**
   * false: the order elements were added is not kept (a proxier that syncs once never deletes
   * one); the keys and values still are, as two ports may want one key in the same sync
   */
  recordOrder = true;

  constructor(
    readonly kind: 'set' | 'map',
    readonly name: string,
  ) {}

  /** Flushes the container (full sync): the kernel holds nothing until ensured again. */
  reset(tx: NftTransaction): void {
    this.elements.clear();
    this.added.clear();
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
      if (this.recordOrder) this.added.set(key, this.seq++);
    }
  }

  /** Before a sync that ensures every wanted element: all current ones are leftovers until ensured. */
  beginWalk(): void {
    this.leftover = new Set(this.elements.keys());
  }

  cleanupLeftovers(tx: NftTransaction): void {
    for (const key of this.leftover) {
      tx.deleteElement(this.name, key);
      this.elements.delete(key);
      this.added.delete(key);
    }
    this.leftover = new Set();
  }

  /** A service port wants `key` (ownership only; `ensure` writes it). */
  own(key: string): void {
    const n = this.refs.get(key) ?? 0;
    this.refs.set(key, n + 1);
    if (n === 1) this.shared++;
  }

  /** A service port no longer wants `key`. */
  disown(key: string): void {
    const n = this.refs.get(key) ?? 0;
    if (n <= 1) this.refs.delete(key);
    else this.refs.set(key, n - 1);
    if (n === 2) this.shared--;
  }

  /** Forgets every owner (before a full sync re-owns everything). */
  resetOwners(): void {
    this.refs.clear();
    this.shared = 0;
  }

  /** Deletes the `candidates` no port wants any more, in the order they were added. */
  cleanup(tx: NftTransaction, candidates: Iterable<string>): void {
    const gone = [
      ...new Set([...candidates].filter((key) => !this.refs.has(key) && this.elements.has(key))),
    ].sort((a, b) => this.added.get(a)! - this.added.get(b)!);
    for (const key of gone) {
      tx.deleteElement(this.name, key);
      this.elements.delete(key);
      this.added.delete(key);
    }
  }
}

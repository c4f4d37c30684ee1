/**
 * A binary min-heap ordered by `less`, with Go's container/heap algorithm (up, then down; the left
 * child is compared first). Items that compare equal leave in an order fixed by the sequence of
 * operations alone, so a run that repeats the operations repeats the order: the simulation's clock
 * (util/clock.ts), the scheduler's activeQ/backoffQ (scheduler/queue.ts) and the kubelet fleet's
 * elided Lease renewals (kubelet/lease-elision.ts) all rely on that.
 *
 * Sifting moves a hole instead of swapping (one write per level): the comparisons, and so the
 * resulting order, are those of the swapping version. A subclass that must know where each item
 * sits (removal by key) overrides {@link place}, the only place an item is written.
 *
 * Example, less = (a, b) => a < b: push 5, 3, 8, 1 → items [1, 3, 8, 5]; pop → 1, items [3, 5, 8].
 */
export class BinaryHeap<T> {
  protected readonly items: T[] = [];

  constructor(private readonly less: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  /** the least item, or undefined */
  peek(): T | undefined {
    return this.items[0];
  }

  push(t: T): void {
    const i = this.items.length;
    this.items.push(t);
    this.place(i, t);
    this.up(i);
  }

  /** removes and returns the least item */
  pop(): T | undefined {
    return this.items.length ? this.removeAt(0) : undefined;
  }

  /** writes `t` at index `i` */
  protected place(i: number, t: T): void {
    this.items[i] = t;
  }

  /** removes the item at `i` (the last item fills its place and moves to where it belongs) */
  protected removeAt(i: number): T {
    const h = this.items;
    const t = h[i]!;
    const last = h.pop()!;
    if (i < h.length) {
      this.place(i, last);
      this.fix(i);
    }
    return t;
  }

  /** the item at `i` changed: restores the order (container/heap Fix) */
  protected fix(i: number): void {
    if (!this.up(i)) this.down(i);
  }

  private up(i: number): boolean {
    const h = this.items;
    const t = h[i]!;
    const start = i;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = h[p]!;
      if (!this.less(t, parent)) break;
      this.place(i, parent);
      i = p;
    }
    if (i === start) return false;
    this.place(i, t);
    return true;
  }

  private down(i: number): void {
    const h = this.items;
    const n = h.length;
    const t = h[i]!;
    const start = i;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      let least = t;
      if (l < n && this.less(h[l]!, least)) {
        m = l;
        least = h[l]!;
      }
      if (r < n && this.less(h[r]!, least)) {
        m = r;
        least = h[r]!;
      }
      if (m === i) break;
      this.place(i, least);
      i = m;
    }
    if (i !== start) this.place(i, t);
  }
}

import { describe, expect, it } from 'vitest';
import { BinaryHeap } from '../../src/util/binary-heap.js';
import { Rng } from '../../src/util/rng.js';

interface Item {
  key: number;
  id: number;
}
const less = (a: Item, b: Item) => a.key < b.key;

/**
 * The swapping heap the clock, the scheduling queue and the Lease elision each had before they
 * shared BinaryHeap: equal items must leave in the same order, or seeded simulations would change.
 */
class SwapHeap {
  readonly h: Item[] = [];
  push(t: Item): void {
    this.h.push(t);
    this.up(this.h.length - 1);
  }
  pop(): Item | undefined {
    const h = this.h;
    if (!h.length) return undefined;
    const top = h[0];
    const last = h.pop()!;
    if (h.length) {
      h[0] = last;
      if (!this.up(0)) this.down(0);
    }
    return top;
  }
  private up(i: number): boolean {
    let moved = false;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(this.h[i], this.h[p])) break;
      [this.h[i], this.h[p]] = [this.h[p], this.h[i]];
      i = p;
      moved = true;
    }
    return moved;
  }
  private down(i: number): void {
    const h = this.h;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && less(h[l], h[m])) m = l;
      if (r < h.length && less(h[r], h[m])) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m], h[i]];
      i = m;
    }
  }
}

describe('BinaryHeap', () => {
  it('pops in order (the documented example)', () => {
    const h = new BinaryHeap<number>((a, b) => a < b);
    for (const x of [5, 3, 8, 1]) h.push(x);
    expect(h.peek()).toBe(1);
    expect([h.pop(), h.pop(), h.pop(), h.pop(), h.pop()]).toEqual([1, 3, 5, 8, undefined]);
    expect(h.size).toBe(0);
  });

  for (const keys of [4, 50, 100_000]) {
    it(`leaves equal items in the swapping heap's order (${keys} distinct keys, seeded pushes and pops)`, () => {
      for (const seed of [1, 2, 3]) {
        const rng = new Rng(seed);
        const heap = new BinaryHeap<Item>(less);
        const ref = new SwapHeap();
        const popped: Item[] = [];
        const expected: Item[] = [];
        for (let id = 0; id < 20_000; id++) {
          if (rng.next() < 0.55) {
            const item = { key: rng.int(keys), id };
            heap.push(item);
            ref.push(item);
          } else {
            const a = heap.pop();
            const b = ref.pop();
            if (a) popped.push(a);
            if (b) expected.push(b);
          }
        }
        for (let a = heap.pop(); a; a = heap.pop()) popped.push(a);
        for (let b = ref.pop(); b; b = ref.pop()) expected.push(b);
        expect(popped.map((x) => x.id)).toEqual(expected.map((x) => x.id));
      }
    });
  }
});

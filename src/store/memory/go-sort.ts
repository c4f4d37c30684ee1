/**
 * Go 1.19's `sort.Sort` (pattern-defeating quicksort, src/sort/zsortinterface.go), re-expressed
 * over a JavaScript array with a `less` function. etcd sorts range results with `sort.Sort`, which
 * is not stable: for equal sort keys (e.g. many keys with version 1 sorted by VERSION) the order
 * etcd returns depends on this exact algorithm. Debian's etcd 3.4.23 is built with Go 1.19, so
 * following it step by step reproduces etcd's answers for ties too; a stable sort would only agree
 * up to 12 elements (where Go uses insertion sort).
 *
 * Not for general use: it is slower than Array.prototype.sort and only needed for exactness.
 */

type Less<T> = (a: T, b: T) => boolean;

const enum Hint {
  Unknown,
  Increasing,
  Decreasing,
}

/** bits.Len(uint(n)) */
const bitsLen = (n: number) => (n === 0 ? 0 : 32 - Math.clz32(n));

/** Sort `data` in place exactly as Go 1.19's sort.Sort would with this Less. */
export function goSort<T>(data: T[], less: Less<T>): void {
  const n = data.length;
  if (n <= 1) return;
  new GoSorter(data, less).pdqsort(0, n, bitsLen(n));
}

class GoSorter<T> {
  constructor(
    private readonly d: T[],
    private readonly lessFn: Less<T>,
  ) {}

  private less(i: number, j: number): boolean {
    return this.lessFn(this.d[i], this.d[j]);
  }

  private swap(i: number, j: number): void {
    const t = this.d[i];
    this.d[i] = this.d[j];
    this.d[j] = t;
  }

  private insertionSort(a: number, b: number): void {
    for (let i = a + 1; i < b; i++) {
      for (let j = i; j > a && this.less(j, j - 1); j--) this.swap(j, j - 1);
    }
  }

  private siftDown(lo: number, hi: number, first: number): void {
    let root = lo;
    for (;;) {
      let child = 2 * root + 1;
      if (child >= hi) return;
      if (child + 1 < hi && this.less(first + child, first + child + 1)) child++;
      if (!this.less(first + root, first + child)) return;
      this.swap(first + root, first + child);
      root = child;
    }
  }

  private heapSort(a: number, b: number): void {
    const first = a,
      lo = 0,
      hi = b - a;
    for (let i = Math.trunc((hi - 1) / 2); i >= 0; i--) this.siftDown(i, hi, first);
    for (let i = hi - 1; i >= 0; i--) {
      this.swap(first, first + i);
      this.siftDown(lo, i, first);
    }
  }

  pdqsort(a: number, b: number, limit: number): void {
    const maxInsertion = 12;
    let wasBalanced = true;
    let wasPartitioned = true;
    for (;;) {
      const length = b - a;
      if (length <= maxInsertion) {
        this.insertionSort(a, b);
        return;
      }
      if (limit === 0) {
        this.heapSort(a, b);
        return;
      }
      if (!wasBalanced) {
        this.breakPatterns(a, b);
        limit--;
      }
      let [pivot, hint] = this.choosePivot(a, b);
      if (hint === Hint.Decreasing) {
        this.reverseRange(a, b);
        pivot = b - 1 - (pivot - a);
        hint = Hint.Increasing;
      }
      if (wasBalanced && wasPartitioned && hint === Hint.Increasing) {
        if (this.partialInsertionSort(a, b)) return;
      }
      if (a > 0 && !this.less(a - 1, pivot)) {
        a = this.partitionEqual(a, b, pivot);
        continue;
      }
      const [mid, alreadyPartitioned] = this.partition(a, b, pivot);
      wasPartitioned = alreadyPartitioned;
      const leftLen = mid - a,
        rightLen = b - mid;
      const balanceThreshold = Math.trunc(length / 8);
      if (leftLen < rightLen) {
        wasBalanced = leftLen >= balanceThreshold;
        this.pdqsort(a, mid, limit);
        a = mid + 1;
      } else {
        wasBalanced = rightLen >= balanceThreshold;
        this.pdqsort(mid + 1, b, limit);
        b = mid;
      }
    }
  }

  private partition(a: number, b: number, pivot: number): [number, boolean] {
    this.swap(a, pivot);
    let i = a + 1,
      j = b - 1;
    while (i <= j && this.less(i, a)) i++;
    while (i <= j && !this.less(j, a)) j--;
    if (i > j) {
      this.swap(j, a);
      return [j, true];
    }
    this.swap(i, j);
    i++;
    j--;
    for (;;) {
      while (i <= j && this.less(i, a)) i++;
      while (i <= j && !this.less(j, a)) j--;
      if (i > j) break;
      this.swap(i, j);
      i++;
      j--;
    }
    this.swap(j, a);
    return [j, false];
  }

  private partitionEqual(a: number, b: number, pivot: number): number {
    this.swap(a, pivot);
    let i = a + 1,
      j = b - 1;
    for (;;) {
      while (i <= j && !this.less(a, i)) i++;
      while (i <= j && this.less(a, j)) j--;
      if (i > j) break;
      this.swap(i, j);
      i++;
      j--;
    }
    return i;
  }

  private partialInsertionSort(a: number, b: number): boolean {
    const maxSteps = 5,
      shortestShifting = 50;
    let i = a + 1;
    for (let step = 0; step < maxSteps; step++) {
      while (i < b && !this.less(i, i - 1)) i++;
      if (i === b) return true;
      if (b - a < shortestShifting) return false;
      this.swap(i, i - 1);
      if (i - a >= 2) {
        for (let j = i - 1; j >= 1; j--) {
          if (!this.less(j, j - 1)) break;
          this.swap(j, j - 1);
        }
      }
      if (b - i >= 2) {
        for (let j = i + 1; j < b; j++) {
          if (!this.less(j, j - 1)) break;
          this.swap(j, j - 1);
        }
      }
    }
    return false;
  }

  private breakPatterns(a: number, b: number): void {
    const length = b - a;
    if (length < 8) return;
    // Go 1.19's xorshift (<<13, >>17, <<5) seeded with the length, on 64-bit unsigned integers
    let r = BigInt(length);
    const mask64 = (1n << 64n) - 1n;
    const modulus = 1 << bitsLen(length);
    const half = Math.trunc(length / 4) * 2;
    for (let idx = a + half - 1; idx <= a + half + 1; idx++) {
      r ^= (r << 13n) & mask64;
      r ^= r >> 17n;
      r ^= (r << 5n) & mask64;
      let other = Number(r & BigInt(modulus - 1));
      if (other >= length) other -= length;
      this.swap(idx, a + other);
    }
  }

  private choosePivot(a: number, b: number): [number, Hint] {
    const shortestNinther = 50,
      maxSwaps = 4 * 3;
    const l = b - a;
    const swaps = { n: 0 };
    let i = a + Math.trunc(l / 4) * 1;
    let j = a + Math.trunc(l / 4) * 2;
    let k = a + Math.trunc(l / 4) * 3;
    if (l >= 8) {
      if (l >= shortestNinther) {
        i = this.median(i - 1, i, i + 1, swaps);
        j = this.median(j - 1, j, j + 1, swaps);
        k = this.median(k - 1, k, k + 1, swaps);
      }
      j = this.median(i, j, k, swaps);
    }
    if (swaps.n === 0) return [j, Hint.Increasing];
    if (swaps.n === maxSwaps) return [j, Hint.Decreasing];
    return [j, Hint.Unknown];
  }

  /** Go's median via order2: returns the index holding the median of the three */
  private median(a: number, b: number, c: number, swaps: { n: number }): number {
    if (this.less(b, a)) {
      swaps.n++;
      [a, b] = [b, a];
    }
    if (this.less(c, b)) {
      swaps.n++;
      [b, c] = [c, b];
    }
    if (this.less(b, a)) {
      swaps.n++;
      [a, b] = [b, a];
    }
    return b;
  }

  private reverseRange(a: number, b: number): void {
    for (let i = a, j = b - 1; i < j; i++, j--) this.swap(i, j);
  }
}

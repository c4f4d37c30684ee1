/**
 * Seeded pseudo-random numbers (xoshiro128**, seeded through splitmix32) so that a `--seed`
 * fixes every random choice: tie-breaks, generated clusters, latencies. Never use Math.random.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number | string = 1) {
    let s = typeof seed === 'string' ? hashString(seed) : seed >>> 0;
    const next = () => {
      // splitmix32: spreads a small seed over the 128-bit state
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
  }

  /** uniform uint32 */
  nextU32(): number {
    const r = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return r;
  }

  /** uniform in [0, 1) with 32 bits of precision */
  next(): number {
    return this.nextU32() / 4294967296;
  }

  /** uniform integer in [0, n) (n <= 2^32), without modulo bias */
  int(n: number): number {
    if (n <= 0) throw new RangeError(`Rng.int: n must be positive, got ${n}`);
    const limit = 4294967296 - (4294967296 % n);
    let x: number;
    do x = this.nextU32();
    while (x >= limit);
    return x % n;
  }

  /** uniform integer in [lo, hi] */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** standard normal (Box–Muller) */
  normal(mean = 0, stddev = 1): number {
    const u = 1 - this.next();
    const v = this.next();
    return mean + stddev * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** log-normal with the given median and sigma (of the underlying normal): start-up latencies */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** exponential with the given mean: inter-arrival times */
  exponential(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = items[i];
      items[i] = items[j];
      items[j] = t;
    }
    return items;
  }

  /** an independent stream derived from this one (per component, so adding draws elsewhere doesn't shift it) */
  fork(label: string): Rng {
    return new Rng((this.nextU32() ^ hashString(label)) >>> 0);
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** FNV-1a over UTF-16 code units: a stable 32-bit hash of a label */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * A map from strings to values for large key sets whose keys come and go: open addressing with
 * linear probing and backward-shift deletion, so a removed key leaves nothing behind.
 *
 * Why not a Map: V8's Map (an ordered hash table) keeps a deleted entry in its bucket's chain until
 * the next rehash, and a key added again after its deletion gets a new entry at the end of that
 * chain. A key set of the cluster's ~25,000 pods in which the same few hundred keys are added and
 * removed again and again (the scheduler assuming and forgetting pods; a pod assumed, then
 * confirmed by the informer) grows those chains by one per round: at 25,000 keys a set + delete of
 * such a key took ~2 µs against ~0.2 µs here (same process, Node 20). Keys are hashed in JS
 * (FNV-1a over the UTF-16 code units), so each operation reads the key once.
 *
 * Only what the pod indexes use: get, has, set, delete, size.
 */
export class StringMap<V> {
  private hashes: Int32Array;
  private keys: (string | undefined)[];
  private vals: (V | undefined)[];
  private mask: number;
  private count = 0;

  constructor(initialCapacity = 16) {
    let cap = 16;
    while (cap < initialCapacity * 2) cap *= 2;
    this.mask = cap - 1;
    this.hashes = new Int32Array(cap);
    this.keys = new Array<string | undefined>(cap).fill(undefined);
    this.vals = new Array<V | undefined>(cap).fill(undefined);
  }

  get size(): number {
    return this.count;
  }

  get(key: string): V | undefined {
    const i = this.find(key, hashOf(key));
    return i < 0 ? undefined : this.vals[i];
  }

  has(key: string): boolean {
    return this.find(key, hashOf(key)) >= 0;
  }

  set(key: string, value: V): this {
    const h = hashOf(key);
    let i = this.find(key, h);
    if (i >= 0) {
      this.vals[i] = value;
      return this;
    }
    i = ~i;
    this.hashes[i] = h;
    this.keys[i] = key;
    this.vals[i] = value;
    // at most half full: probe runs stay short
    if (++this.count * 2 > this.hashes.length) this.resize(this.hashes.length * 2);
    return this;
  }

  delete(key: string): boolean {
    let i = this.find(key, hashOf(key));
    if (i < 0) return false;
    const hs = this.hashes,
      ks = this.keys,
      vs = this.vals,
      m = this.mask;
    // backward shift: each following entry of the run that may live at the freed slot (its home
    // is not between the freed slot and itself) moves there, and its old slot is freed in turn
    for (let j = (i + 1) & m; hs[j] !== 0; j = (j + 1) & m) {
      const home = hs[j] & m;
      if (((j - home) & m) >= ((j - i) & m)) {
        hs[i] = hs[j];
        ks[i] = ks[j];
        vs[i] = vs[j];
        i = j;
      }
    }
    hs[i] = 0;
    ks[i] = undefined;
    vs[i] = undefined;
    this.count--;
    if (this.count * 8 < hs.length && hs.length > 64) this.resize(hs.length / 2);
    return true;
  }

  /** the key's slot, or ~(the free slot where it would go) */
  private find(key: string, h: number): number {
    const hs = this.hashes,
      ks = this.keys,
      m = this.mask;
    for (let i = h & m; ; i = (i + 1) & m) {
      const x = hs[i];
      if (x === 0) return ~i;
      if (x === h && ks[i] === key) return i;
    }
  }

  private resize(cap: number): void {
    const oh = this.hashes,
      ok = this.keys,
      ov = this.vals;
    const m = cap - 1;
    const hs = new Int32Array(cap);
    const ks = new Array<string | undefined>(cap).fill(undefined);
    const vs = new Array<V | undefined>(cap).fill(undefined);
    for (let i = 0; i < oh.length; i++) {
      const h = oh[i];
      if (h === 0) continue;
      let j = h & m;
      while (hs[j] !== 0) j = (j + 1) & m;
      hs[j] = h;
      ks[j] = ok[i];
      vs[j] = ov[i];
    }
    this.hashes = hs;
    this.keys = ks;
    this.vals = vs;
    this.mask = m;
  }
}

/** FNV-1a over the code units, then a final mix (the low bits pick the slot); never 0 (0 marks a free slot) */
function hashOf(s: string): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h === 0 ? 1 : h;
}

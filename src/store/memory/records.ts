/**
 * The MemoryStore's records (one per key revision: etcd's revision → KeyValue in its backend), in
 * columns: parallel typed arrays indexed by record number, in change-log order (revision, then op
 * within a revision), plus the value bytes in the store's own blocks.
 *
 * Why columns: a record as a plain object with a Uint8Array view of its value cost ~170 bytes of
 * heap (72 for the object, ~96 for the view) plus a slot in a per-key history array; at the 1/20
 * scale envelope 64,455 records took 13 MB that way and their history arrays 5 MB. Here a record
 * is ~61 bytes of columns, and a KeyValue object (with a fresh view of its value) is made only
 * when a reader asks for one: readers already treat returned KeyValues as immutable and never
 * compare them by identity (the watch fan-out shares one event object per record and commit).
 *
 * Values of a key's later revisions are stored as **forward deltas** when that pays: the bytes that
 * differ from the key's previous revision between their common prefix and common suffix (a
 * Deployment's status update differs in a few bytes of its status; a Lease renewal in renewTime).
 * Reading such a value copies the shared prefix and suffix out of the previous revision (itself
 * possibly a delta, at most {@link MAX_DELTA_DEPTH} deep) and the stored middle into one new
 * array. The bytes read are exactly the bytes written (test/store/memory-records.test.ts checks it
 * against plain copies).
 *
 * A key's first value may take its delta from another key's record (the store passes the last
 * record written under the same parent: the pods a ReplicaSet creates one after the other differ in
 * their names and uids, not in their specs). The delta's `base` is then that record; compaction
 * stores a value whole when its base does not survive.
 *
 * Example: put a=`{"n":1,"s":"x"}` (record 0, stored whole), put a=`{"n":1,"s":"yy"}` (record 1,
 * prefix 12 and suffix 2 shared with record 0: stored as pre=12, the 2 bytes `yy`, size 16).
 */

/** record number of nothing (no previous record, a key without records) */
export const NO_RECORD = -1;
/** `pre` of a value stored whole */
const WHOLE = -1;
/** a delta's chain back to a whole value is at most this long (the cost of a read) */
const MAX_DELTA_DEPTH = 6;
/** a delta is stored only when prefix + suffix share at least this many bytes and half the value */
const MIN_SHARED = 24;

const EMPTY = new Uint8Array(0);

/** the bytes of stored values, in blocks the store owns (see {@link Records}) */
class Blocks {
  readonly list: Uint8Array[] = [];
  private block = EMPTY;
  private blockIndex = -1;
  private used = 0;
  /** where the last {@link put} left its bytes */
  lastBlock = 0;
  lastOffset = 0;

  /** @param blockSize bytes per block; values above a quarter of it get a block of their own */
  constructor(private readonly blockSize: number) {}

  /**
   * Copy bytes into the blocks. A value handed to the store is usually a view into a larger buffer
   * of its writer (msgpackr packs every value into a shared 8 KiB chunk); a stored view would pin
   * the whole chunk, so the bytes are copied, as etcd's backend copies values into its pages.
   */
  put(bytes: Uint8Array): void {
    const n = bytes.length;
    if (n > this.blockSize >> 2) {
      this.lastBlock = this.list.push(bytes.slice()) - 1;
      this.lastOffset = 0;
      return;
    }
    if (this.used + n > this.block.length) {
      this.block = new Uint8Array(this.blockSize);
      this.blockIndex = this.list.push(this.block) - 1;
      this.used = 0;
    }
    this.block.set(bytes, this.used);
    this.lastBlock = this.blockIndex;
    this.lastOffset = this.used;
    this.used += n;
  }
}

/** the first `n` elements of `a` in an array of `cap` elements */
function grown<T extends Int32Array | Float64Array | Uint8Array>(a: T, cap: number): T {
  const b = new (a.constructor as new (n: number) => T)(cap);
  b.set(a);
  return b;
}

export class Records {
  /** number of records */
  n = 0;
  private cap = 0;
  keyId = new Int32Array(0);
  /** the key's previous record, or NO_RECORD (none, or compacted away) */
  prev = new Int32Array(0);
  mod = new Float64Array(0);
  create = new Float64Array(0);
  /** 0 = a tombstone (deletion) */
  ver = new Float64Array(0);
  lease = new Float64Array(0);
  // the value: `size` bytes; whole at blocks[blk][off..off+size) when pre is WHOLE, else the
  // previous record's first `pre` bytes, the `len` bytes at blocks[blk][off..], then the previous
  // record's last size - pre - len bytes
  private blk = new Int32Array(0);
  private off = new Int32Array(0);
  private len = new Int32Array(0);
  private size = new Int32Array(0);
  private pre = new Int32Array(0);
  private depth = new Uint8Array(0);
  /** the record a delta's prefix and suffix come from (the key's previous record, or another key's) */
  private base = new Int32Array(0);
  private readonly blocks: Blocks;

  constructor(initial = 1024, blockSize = 256 * 1024) {
    this.blocks = new Blocks(blockSize);
    this.resize(Math.max(1, initial));
  }

  /**
   * Append a record; `value` is copied (whole, or as a delta from `base` when that pays: the key's
   * previous record by default). A tombstone passes version 0 and an empty value.
   */
  add(
    keyId: number,
    prev: number,
    mod: number,
    create: number,
    ver: number,
    lease: number,
    value: Uint8Array,
    base = prev,
  ): number {
    const r = this.slot(keyId, prev, mod, create, ver, lease);
    const n = value.length;
    this.size[r] = n;
    if (n === 0) {
      this.pre[r] = WHOLE;
      this.len[r] = 0;
      this.depth[r] = 0;
      return r;
    }
    if (base !== NO_RECORD && this.size[base] > 0 && this.depth[base] < MAX_DELTA_DEPTH) {
      const old = this.value(base);
      const m = Math.min(n, old.length);
      let p = 0;
      while (p < m && old[p] === value[p]) p++;
      let s = 0;
      const bn = old.length;
      while (s < m - p && old[bn - 1 - s] === value[n - 1 - s]) s++;
      if (p + s >= MIN_SHARED && 2 * (p + s) >= n) {
        this.storeBytes(r, value.subarray(p, n - s));
        this.pre[r] = p;
        this.base[r] = base;
        this.depth[r] = this.depth[base] + 1;
        return r;
      }
    }
    this.storeBytes(r, value);
    this.pre[r] = WHOLE;
    this.depth[r] = 0;
    return r;
  }

  /** the value of record r: a view of the blocks when stored whole, else a new array */
  value(r: number): Uint8Array {
    const n = this.size[r];
    if (n === 0) return EMPTY;
    if (this.pre[r] === WHOLE) {
      const o = this.off[r];
      return this.blocks.list[this.blk[r]].subarray(o, o + n);
    }
    const out = new Uint8Array(n);
    this.copyOut(r, 0, n, out, 0);
    return out;
  }

  /** number of value blocks in use */
  get blockCount(): number {
    return this.blocks.list.length;
  }

  /** copy bytes [a, b) of record r's value into out at o */
  private copyOut(r: number, a: number, b: number, out: Uint8Array, o: number): void {
    for (;;) {
      const list = this.blocks.list;
      const off = this.off[r];
      const p = this.pre[r];
      if (p === WHOLE) {
        out.set(list[this.blk[r]].subarray(off + a, off + b), o);
        return;
      }
      const m = this.len[r];
      const prev = this.base[r];
      if (a < p) this.copyOut(prev, a, Math.min(b, p), out, o);
      const ma = Math.max(a, p),
        mb = Math.min(b, p + m);
      if (ma < mb) out.set(list[this.blk[r]].subarray(off + ma - p, off + mb - p), o + ma - a);
      const sa = Math.max(a, p + m);
      if (sa >= b) return;
      // the suffix: the previous value's bytes at the same distance from its end
      const shift = this.size[prev] - this.size[r];
      o += sa - a;
      a = sa + shift;
      b += shift;
      r = prev;
    }
  }

  /**
   * A copy of the records `keep` (ascending record numbers), renumbered from 0 in the same order,
   * with their values in fresh blocks (so that the blocks of dropped values can be freed). A kept
   * record whose previous record is not kept loses the link, and its value is stored whole.
   * `renumber` (NO_RECORD for every record on entry) receives the new number of each kept record.
   */
  compacted(keep: Int32Array, renumber: Int32Array, blockSize = 256 * 1024): Records {
    const out = new Records(Math.max(1024, keep.length), blockSize);
    for (let i = 0; i < keep.length; i++) {
      const r = keep[i];
      const oldPrev = this.prev[r];
      const prev = oldPrev === NO_RECORD ? NO_RECORD : renumber[oldPrev];
      const nr = out.slot(this.keyId[r], prev, this.mod[r], this.create[r], this.ver[r], this.lease[r]);
      renumber[r] = nr;
      const n = this.size[r];
      out.size[nr] = n;
      const base = n > 0 && this.pre[r] !== WHOLE ? renumber[this.base[r]] : NO_RECORD;
      if (base !== NO_RECORD) {
        // a delta whose base survived: the same delta
        const o = this.off[r];
        out.storeBytes(nr, this.blocks.list[this.blk[r]].subarray(o, o + this.len[r]));
        out.pre[nr] = this.pre[r];
        out.base[nr] = base;
        out.depth[nr] = out.depth[base] + 1;
      } else {
        if (n > 0) out.storeBytes(nr, this.value(r));
        else out.len[nr] = 0;
        out.pre[nr] = WHOLE;
        out.depth[nr] = 0;
      }
    }
    return out;
  }

  private slot(keyId: number, prev: number, mod: number, create: number, ver: number, lease: number): number {
    if (this.n === this.cap) this.grow();
    const r = this.n++;
    this.keyId[r] = keyId;
    this.prev[r] = prev;
    this.mod[r] = mod;
    this.create[r] = create;
    this.ver[r] = ver;
    this.lease[r] = lease;
    return r;
  }

  private storeBytes(r: number, bytes: Uint8Array): void {
    this.len[r] = bytes.length;
    if (bytes.length === 0) return;
    this.blocks.put(bytes);
    this.blk[r] = this.blocks.lastBlock;
    this.off[r] = this.blocks.lastOffset;
  }

  private grow(): void {
    // by half, not doubling: the columns are most of the store's fixed cost per record
    this.resize(this.cap + (this.cap >> 1) + 1);
  }

  private resize(cap: number): void {
    this.cap = cap;
    this.keyId = grown(this.keyId, cap);
    this.prev = grown(this.prev, cap);
    this.mod = grown(this.mod, cap);
    this.create = grown(this.create, cap);
    this.ver = grown(this.ver, cap);
    this.lease = grown(this.lease, cap);
    this.blk = grown(this.blk, cap);
    this.off = grown(this.off, cap);
    this.len = grown(this.len, cap);
    this.size = grown(this.size, cap);
    this.pre = grown(this.pre, cap);
    this.depth = grown(this.depth, cap);
    this.base = grown(this.base, cap);
  }
}

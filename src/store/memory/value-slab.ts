/**
 * The bytes of stored values, packed into blocks the store owns.
 *
 * A value handed to the store is usually a view into a larger buffer of its writer: msgpackr packs
 * every value into a shared 8 KiB (or larger) chunk, one after the other, the ApiServer's throw-away
 * copies (copyIn) between the kept ones. A stored view keeps its whole chunk alive, so a few kept
 * values pinned every chunk: the 1/20 scale envelope held 31.6 MB of values in 85.6 MB of chunks.
 * The store therefore copies each value into its own block (etcd's backend copies values into its
 * pages likewise); and compaction, which drops most of the old values, copies the survivors into
 * fresh blocks (see {@link ValueSlab.repack}) so that blocks of dropped values can be freed.
 *
 * Example: blocks of 16 bytes; put a=[1,2,3] b=[4,5] → block 1 holds 1 2 3 4 5; put a=[6] → 1 2 3
 * 4 5 6; compact (a's first value dropped) → survivors b, a copied: block 2 holds 4 5 6, block 1 is
 * garbage once no reader holds a view of it.
 */

const EMPTY = new Uint8Array(0);

export class ValueSlab {
  private block = EMPTY;
  private used = 0;

  /** @param blockSize bytes per block; values above a quarter of it get a buffer of their own */
  constructor(private readonly blockSize = 256 * 1024) {}

  /** a copy of `value` in the store's blocks */
  copy(value: Uint8Array): Uint8Array {
    const n = value.length;
    if (n === 0) return EMPTY;
    if (n > this.blockSize >> 2)
      return value.byteOffset === 0 && value.buffer.byteLength === n ? value : value.slice();
    if (this.used + n > this.block.length) {
      this.block = new Uint8Array(this.blockSize);
      this.used = 0;
    }
    const out = this.block.subarray(this.used, this.used + n);
    out.set(value);
    this.used += n;
    return out;
  }

  /**
   * Start new blocks and copy each surviving record's value into them (after a compaction). The
   * records keep their identity; only the view behind `value` changes, to equal bytes.
   */
  repack(records: Iterable<{ value: Uint8Array }>): void {
    this.block = EMPTY;
    this.used = 0;
    for (const r of records) r.value = this.copy(r.value);
  }
}

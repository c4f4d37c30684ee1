import { HEAP_START } from './layout.js';

const PAGE = 65536;

/**
 * The one WebAssembly.Memory that holds the NodeTable's columns, compiled queries and kernel
 * outputs. A bump allocator hands out 64-byte-aligned regions; nothing is freed — a column that
 * grows is copied to a fresh region twice its size, so the waste stays below the live size.
 * Growing the memory detaches every typed-array view; `alloc` is the only place that grows it (the
 * kernels allocate nothing), so it re-creates the views right there and the getters stay plain
 * field reads (`WebAssembly.Memory.buffer` is a slow API call on every hot-path access). Callers
 * re-read `u8/i32/u32/f64` after any operation that may allocate.
 */
export class TableMemory {
  readonly memory: WebAssembly.Memory;
  private top = HEAP_START;
  private buf: ArrayBuffer;
  private _u8!: Uint8Array;
  private _i32!: Int32Array;
  private _u32!: Uint32Array;
  private _f64!: Float64Array;

  /**
   * `shared`: back the memory with a SharedArrayBuffer (WebAssembly threads) so worker threads can
   * run the shared-memory kernel build on the same columns (src/scheduler/shard). Default false.
   */
  constructor(initialBytes = 4 * PAGE * 16, shared = false) {
    this.memory = new WebAssembly.Memory({
      initial: Math.ceil(initialBytes / PAGE),
      maximum: 65536,
      ...(shared ? { shared: true } : {}),
    });
    this.buf = this.memory.buffer;
    this.remap();
  }

  private remap(): void {
    this.buf = this.memory.buffer;
    this._u8 = new Uint8Array(this.buf);
    this._i32 = new Int32Array(this.buf);
    this._u32 = new Uint32Array(this.buf);
    this._f64 = new Float64Array(this.buf);
  }

  /**
   * Re-creates the views if the memory grew behind this allocator's back — call after running
   * foreign code that imports this memory (a user WASM plugin may `memory.grow`).
   */
  revalidate(): void {
    if (this.buf !== this.memory.buffer) this.remap();
  }

  get u8(): Uint8Array {
    return this._u8;
  }
  get i32(): Int32Array {
    return this._i32;
  }
  get u32(): Uint32Array {
    return this._u32;
  }
  get f64(): Float64Array {
    return this._f64;
  }

  /** Bytes in use (high-water mark of the allocator). */
  get used(): number {
    return this.top;
  }

  /** A zero-filled region of `bytes` bytes, 64-byte aligned. */
  alloc(bytes: number): number {
    const addr = (this.top + 63) & ~63;
    const end = addr + Math.max(bytes, 8);
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      this.memory.grow(Math.ceil((end - have) / PAGE) + Math.ceil(have / PAGE / 4));
      this.remap();
    }
    this.top = end;
    this.u8.fill(0, addr, end); // reused ranges never happen, but grown pages are zero anyway; keep it explicit
    return addr;
  }

  /** Copies `bytes` bytes from `from` to `to` (regions may not overlap). */
  copy(to: number, from: number, bytes: number): void {
    if (bytes > 0) this.u8.copyWithin(to, from, from + bytes);
  }
}

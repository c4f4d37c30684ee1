import type { NodeTable } from './table.js';
import * as L from './layout.js';
import type { KernelOutputColumns } from './types.js';
import { NUM_SCORE_PLUGINS } from './types.js';

/**
 * Preallocated output columns in the table's memory (so the WASM kernel writes them directly and
 * JS reads them without copying). Columns are sized to the table's node capacity and re-allocated
 * by {@link ensure} (called by every kernel) when the table has grown. Views are re-created on
 * access when the memory buffer changed.
 */
export class KernelOutput implements KernelOutputColumns {
  /** byte address of the output header (O_* fields) */
  addr = 0;
  private cap = 0;
  private buf: ArrayBuffer | undefined;
  private views!: {
    status: Uint8Array;
    reasons: Uint32Array;
    feasible: Int32Array;
    total: Int32Array;
    events: Int32Array;
    raw: Int32Array[];
    norm: Int32Array[];
  };

  constructor(readonly table: NodeTable) {
    this.ensure();
  }

  /** Re-allocates the columns if the table's capacity grew. */
  ensure(): void {
    const cap = this.table.capacity;
    if (cap <= this.cap) return;
    const mem = this.table.mem;
    const a = mem.alloc(L.O_HEADER_INTS * 4);
    const status = mem.alloc(cap);
    const reasons = mem.alloc(cap * 4);
    const feasible = mem.alloc(cap * 4);
    const raw = mem.alloc(cap * 4 * NUM_SCORE_PLUGINS);
    const norm = mem.alloc(cap * 4 * NUM_SCORE_PLUGINS);
    const total = mem.alloc(cap * 4);
    const i32 = mem.i32;
    const h = a >> 2;
    i32[h + L.O_CAP] = cap;
    i32[h + L.O_OFF_STATUS] = status;
    i32[h + L.O_OFF_REASONS] = reasons;
    i32[h + L.O_OFF_FEASIBLE] = feasible;
    i32[h + L.O_OFF_RAW] = raw;
    i32[h + L.O_OFF_NORM] = norm;
    i32[h + L.O_OFF_TOTAL] = total;
    this.addr = a;
    this.cap = cap;
    this.buf = undefined;
  }

  private v() {
    const mem = this.table.mem;
    if (this.buf !== mem.memory.buffer) {
      const buf = mem.memory.buffer;
      const i32 = mem.i32;
      const h = this.addr >> 2;
      const cap = this.cap;
      const col = (field: number, k = 0) => new Int32Array(buf, i32[h + field] + k * cap * 4, cap);
      this.views = {
        status: new Uint8Array(buf, i32[h + L.O_OFF_STATUS], cap),
        reasons: new Uint32Array(buf, i32[h + L.O_OFF_REASONS], cap),
        feasible: col(L.O_OFF_FEASIBLE),
        total: col(L.O_OFF_TOTAL),
        events: new Int32Array(buf, this.addr + L.O_EVENTS * 4, L.O_MAX_EVENTS),
        raw: Array.from({ length: NUM_SCORE_PLUGINS }, (_, k) => col(L.O_OFF_RAW, k)),
        norm: Array.from({ length: NUM_SCORE_PLUGINS }, (_, k) => col(L.O_OFF_NORM, k)),
      };
      this.buf = buf;
    }
    return this.views;
  }

  get status(): Uint8Array {
    return this.v().status;
  }
  get reasons(): Uint32Array {
    return this.v().reasons;
  }
  get feasible(): Int32Array {
    return this.v().feasible;
  }
  get total(): Int32Array {
    return this.v().total;
  }
  raw(plugin: number): Int32Array {
    return this.v().raw[plugin];
  }
  normalized(plugin: number): Int32Array {
    return this.v().norm[plugin];
  }

  get feasibleCount(): number {
    return this.table.mem.i32[(this.addr >> 2) + L.O_FEASIBLE_COUNT];
  }

  /**
   * After a scoring call ('all' or 'total' output, some node feasible): the first feasible node
   * with the highest total. selectHost picks it when {@link tieEvents} is 0; otherwise its
   * reservoir sampling over the ties decides.
   */
  get bestSlot(): number {
    return this.table.mem.i32[(this.addr >> 2) + L.O_BEST];
  }
  get bestTotal(): number {
    return this.table.mem.i32[(this.addr >> 2) + L.O_BEST_TOTAL];
  }
  /** how many examined feasible nodes tied with the running maximum (selectHost's random draws) */
  get tieEvents(): number {
    return this.table.mem.i32[(this.addr >> 2) + L.O_TIE_EVENTS];
  }
  /**
   * With the totals: the positions in the feasible column where the running maximum was reached
   * or raised, in order (selectHost's reservoir sampling acts at those only); undefined when there
   * were more than the header holds.
   */
  get maxEvents(): Int32Array | undefined {
    const n = this.table.mem.i32[(this.addr >> 2) + L.O_EVENT_COUNT];
    return n <= L.O_MAX_EVENTS ? this.v().events.subarray(0, n) : undefined;
  }

  set feasibleCount(n: number) {
    this.table.mem.i32[(this.addr >> 2) + L.O_FEASIBLE_COUNT] = n;
  }

  /** Node names of the feasible nodes, in the order examined (cold path: allocates). */
  feasibleNames(): string[] {
    const f = this.feasible;
    const out: string[] = [];
    for (let i = 0; i < this.feasibleCount; i++) out.push(this.table.nodeName(f[i]));
    return out;
  }
}

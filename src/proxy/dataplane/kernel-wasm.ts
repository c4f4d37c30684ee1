/**
 * Loads build/dataplane.wasm (assembly/dataplane.ts) and lays a compiled Program, the runtime
 * state and the packet/result columns out in its linear memory (layout documented at the top of
 * assembly/dataplane.ts). Same interface as JsKernel: `classify(batch, out)`, `reset()`.
 *
 * For throughput measurements, `load(batch)` copies a batch in once and `run()` classifies it
 * in place, so the timing covers the kernel and not the copies.
 */
import { instantiateKernel, LinearBytes } from '../../util/wasm.js';
import { DYN_CAPACITY, type ClassifyResult, type PacketBatch } from './kernel-js.js';
import { VS_STRIDE, type Program } from './program.js';

interface DataplaneExports extends WebAssembly.Exports {
  memory: WebAssembly.Memory;
  classify(n: number): void;
  reset(): void;
  dynCapacity(): number;
}

const H = {
  RULES: 0,
  CHAINS: 1,
  TABLES: 2,
  SLOTS: 3,
  LISTS: 4,
  VS: 5,
  REALS: 6,
  META: 7,
  DYNA: 8,
  DYNB: 9,
  DYNV: 10,
  RR: 11,
  CONNS: 12,
  DYNCOUNT: 13,
  DST: 14,
  SRC: 15,
  DPORT: 16,
  PROTO: 17,
  SEED: 18,
  FLAGS: 19,
  RES: 20,
  NRULES: 21,
  NLOOK: 22,
  STACKC: 23,
  STACKI: 24,
  NVS: 25,
  NREALS: 26,
} as const;
const HEADER_BYTES = 4096;

export class WasmKernel {
  private readonly ex: DataplaneExports;
  /** linear memory, grown on demand */
  private readonly mem: LinearBytes;
  private packetBase = 0;
  private capacity = 0;
  private loaded = 0;

  constructor(readonly program: Program) {
    this.ex = instantiateKernel<DataplaneExports>('dataplane');
    this.mem = new LinearBytes(this.ex.memory);
    if (this.ex.dynCapacity() !== DYN_CAPACITY)
      throw new Error(
        `kubesim: build/dataplane.wasm is stale (dynamic table ${this.ex.dynCapacity()} ≠ ${DYN_CAPACITY}); run \`npm run build:wasm\``,
      );
    let off = HEADER_BYTES;
    const place = (slot: number, words: number) => {
      this.header()[slot] = off;
      const at = off;
      off += Math.max(1, words) * 4;
      return at;
    };
    const arrays: [number, Int32Array][] = [
      [H.RULES, program.rules],
      [H.CHAINS, program.chains],
      [H.TABLES, program.tables],
      [H.SLOTS, program.slots],
      [H.LISTS, program.lists],
      [H.VS, program.vs],
      [H.REALS, program.reals],
      [H.META, program.meta],
    ];
    const at: number[] = [];
    for (const [slot, a] of arrays) at.push(place(slot, a.length));
    place(H.DYNA, DYN_CAPACITY);
    place(H.DYNB, DYN_CAPACITY);
    place(H.DYNV, DYN_CAPACITY);
    place(H.RR, program.vs.length / VS_STRIDE);
    place(H.CONNS, program.reals.length);
    place(H.STACKC, 64);
    place(H.STACKI, 64);
    this.packetBase = off;
    this.mem.ensure(off);
    arrays.forEach(([, a], i) => new Int32Array(this.ex.memory.buffer, at[i], a.length).set(a));
    const h = this.header();
    h[H.NVS] = program.vs.length / VS_STRIDE;
    h[H.NREALS] = program.reals.length;
    this.reset();
  }

  private header(): Int32Array {
    return new Int32Array(this.ex.memory.buffer, 0, HEADER_BYTES / 4);
  }

  /** (re)places the packet and result columns for batches of up to n packets */
  private reserve(n: number): void {
    if (n <= this.capacity) return;
    const cap = Math.max(n, 1024);
    this.mem.ensure(this.packetBase + cap * 9 * 4);
    const h = this.header();
    [H.DST, H.SRC, H.DPORT, H.PROTO, H.SEED, H.FLAGS, H.RES, H.NRULES, H.NLOOK].forEach((slot, k) => {
      h[slot] = this.packetBase + k * cap * 4;
    });
    this.capacity = cap;
  }

  private column(slot: number, n: number): Int32Array {
    return new Int32Array(this.ex.memory.buffer, this.header()[slot], n);
  }

  reset(): void {
    this.ex.reset();
  }

  /** Copies a batch into linear memory (for run()). */
  load(p: PacketBatch): void {
    this.reserve(p.n);
    this.column(H.DST, p.n).set(p.dst.subarray(0, p.n));
    this.column(H.SRC, p.n).set(p.src.subarray(0, p.n));
    this.column(H.DPORT, p.n).set(p.dport.subarray(0, p.n));
    this.column(H.PROTO, p.n).set(p.proto.subarray(0, p.n));
    this.column(H.SEED, p.n).set(p.seed.subarray(0, p.n));
    this.column(H.FLAGS, p.n).set(p.flags.subarray(0, p.n));
    this.loaded = p.n;
  }

  /** Classifies the loaded batch in place. */
  run(): void {
    this.ex.classify(this.loaded);
  }

  /** Copies the results of the last run() out. */
  results(out: ClassifyResult): void {
    out.result.set(this.column(H.RES, this.loaded));
    out.rules.set(this.column(H.NRULES, this.loaded));
    out.lookups.set(this.column(H.NLOOK, this.loaded));
  }

  classify(p: PacketBatch, out: ClassifyResult): void {
    this.load(p);
    this.run();
    this.results(out);
  }
}

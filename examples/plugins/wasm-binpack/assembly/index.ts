// A WASM score plugin in AssemblyScript: bin-packing on CPU. Reads the NodeTable's columns in
// place (the table's memory is imported) and scores every node of the batch in one call:
//
//   score = (requested milli-CPU on the node + the pod's) × 100 / allocatable milli-CPU   (0..100)
//
// so fuller nodes score higher (MostAllocated on cpu alone). Build:
//   node examples/plugins/wasm-binpack/build.mjs      → examples/plugins/wasm-binpack/build/binpack.wasm
// ABI: src/scheduler/plugins/user.ts. Layout: src/scheduler/engine/layout.ts (header fields
// H_NODE_CAP = 0, H_OFF_ALLOC = 16, H_OFF_REQ = 17; resource row 0 is cpu in milli-CPU).

const H_NODE_CAP = 0;
const H_OFF_ALLOC = 16;
const H_OFF_REQ = 17;

@inline function hdr(table: usize, field: i32): i32 {
  return load<i32>(table + (<usize>field << 2));
}

export function score(table: usize, slots: usize, count: i32, out: usize, podMilliCpu: f64, _podMemory: f64): void {
  const cap = hdr(table, H_NODE_CAP);
  const alloc = <usize>hdr(table, H_OFF_ALLOC); // f64[RES][CAP], row 0 = cpu
  const req = <usize>hdr(table, H_OFF_REQ);
  for (let i = 0; i < count; i++) {
    const slot = load<i32>(slots + (<usize>i << 2));
    const a = load<f64>(alloc + (<usize>slot << 3));
    const r = load<f64>(req + (<usize>slot << 3)) + podMilliCpu;
    let s: i32 = 0;
    if (a > 0) {
      const v = Math.floor((r * 100) / a);
      s = v > 100 ? 100 : <i32>v;
    }
    store<i32>(out + (<usize>i << 2), s);
  }
  void cap;
}

export function heapBase(): usize {
  return __heap_base;
}

/**
 * The shard worker, as source text for `new Worker(source, { eval: true })`.
 *
 * Why a string: the worker is ~30 lines with no imports (it receives the compiled
 * WebAssembly.Module and the shared WebAssembly.Memory through workerData), and an eval'd worker
 * runs the same whether the caller runs from TypeScript sources (vitest) or from dist/ — no
 * `npm run build` step and no path lookup, unlike a worker file.
 *
 * Protocol over the control Int32Array (a SharedArrayBuffer; indices in {@link Ctrl}):
 * the main thread writes the job (query address, kernel flags, per-shard header/output addresses),
 * increments SEQ and notifies; each worker wakes, runs the kernel once over its window, stores the
 * number of nodes processed, increments DONE and notifies; the main thread waits for DONE == workers.
 */

/** Indices of the control Int32Array. */
export const Ctrl = {
  SEQ: 0,
  DONE: 1,
  QUERY: 2,
  FLAGS: 3,
  STOP: 4,
  /** first per-worker block; worker w uses [WORKER_BASE + w*WORKER_INTS, +WORKER_INTS) */
  WORKER_BASE: 8,
  WORKER_INTS: 4,
  /** offsets inside a worker block */
  W_HEADER: 0,
  W_OUT: 1,
  W_PROCESSED: 2,
  W_ERROR: 3,
} as const;

/** workerData of a shard worker. */
export interface ShardWorkerData {
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
  ctrl: SharedArrayBuffer;
  index: number;
  /** spin this many polls of SEQ before sleeping in Atomics.wait (0 = sleep at once) */
  spin: number;
}

export const SHARD_WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const { module, memory, ctrl: sab, index, spin } = workerData;
const ctrl = new Int32Array(sab);
const SEQ = ${Ctrl.SEQ}, DONE = ${Ctrl.DONE}, QUERY = ${Ctrl.QUERY}, FLAGS = ${Ctrl.FLAGS}, STOP = ${Ctrl.STOP};
const base = ${Ctrl.WORKER_BASE} + index * ${Ctrl.WORKER_INTS};
const instance = new WebAssembly.Instance(module, { env: { memory, abort(_m, _f, line, col) { throw new Error('scheduler_shared aborted at ' + line + ':' + col); } } });
const ex = instance.exports;
parentPort.postMessage('ready'); // instantiated: ShardedScheduler.start resolves once every worker said so
let seen = 0;
for (;;) {
  let seq = Atomics.load(ctrl, SEQ);
  for (let i = 0; seq === seen && i < spin; i++) seq = Atomics.load(ctrl, SEQ);
  if (seq === seen) { Atomics.wait(ctrl, SEQ, seen); continue; }
  seen = seq;
  if (Atomics.load(ctrl, STOP) !== 0) break;
  try {
    ctrl[base + ${Ctrl.W_PROCESSED}] = ex.filterAndScore(ctrl[base + ${Ctrl.W_HEADER}], ctrl[QUERY], ctrl[base + ${Ctrl.W_OUT}], 0, 0, ctrl[FLAGS]);
    ctrl[base + ${Ctrl.W_ERROR}] = 0;
  } catch (e) {
    ctrl[base + ${Ctrl.W_ERROR}] = 1;
  }
  Atomics.add(ctrl, DONE, 1);
  Atomics.notify(ctrl, DONE);
}
`;

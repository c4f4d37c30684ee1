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
 * increments JOB, increments SEQ and notifies; each worker wakes, runs the kernel once over its window, stores the
 * number of nodes processed, increments DONE and notifies; the main thread waits for DONE == workers.
 * Pre-wake: at the start of schedule() the main thread bumps SEQ without a new JOB, so a sleeping
 * worker wakes (futex + OS scheduling: tens of µs or more) while the pod is being compiled and then
 * spins for the job (bounded by wakeSpin) instead of being woken only when the job is ready.
 */

/** Indices of the control Int32Array. */
export const Ctrl = {
  SEQ: 0,
  DONE: 1,
  QUERY: 2,
  FLAGS: 3,
  STOP: 4,
  /** id of the last scan job posted; a SEQ bump without a new JOB is a pre-wake (spin, a job follows) */
  JOB: 5,
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
  /** after a pre-wake, spin up to this many polls for the job before sleeping */
  wakeSpin: number;
}

export const SHARD_WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const { module, memory, ctrl: sab, index, spin, wakeSpin } = workerData;
const ctrl = new Int32Array(sab);
const SEQ = ${Ctrl.SEQ}, DONE = ${Ctrl.DONE}, QUERY = ${Ctrl.QUERY}, FLAGS = ${Ctrl.FLAGS}, STOP = ${Ctrl.STOP}, JOB = ${Ctrl.JOB};
const base = ${Ctrl.WORKER_BASE} + index * ${Ctrl.WORKER_INTS};
const instance = new WebAssembly.Instance(module, { env: { memory, abort(_m, _f, line, col) { throw new Error('scheduler_shared aborted at ' + line + ':' + col); } } });
const ex = instance.exports;
parentPort.postMessage('ready'); // instantiated: ShardedScheduler.start resolves once every worker said so
let seen = 0;
let lastJob = 0;
let budget = spin;
for (;;) {
  let seq = Atomics.load(ctrl, SEQ);
  for (let i = 0; seq === seen && i < budget; i++) seq = Atomics.load(ctrl, SEQ);
  budget = spin;
  if (seq === seen) { Atomics.wait(ctrl, SEQ, seen); continue; }
  seen = seq;
  if (Atomics.load(ctrl, STOP) !== 0) break;
  const job = Atomics.load(ctrl, JOB);
  if (job === lastJob) { budget = wakeSpin; continue; } // pre-wake: the caller is compiling the pod
  lastJob = job;
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

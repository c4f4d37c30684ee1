/**
 * Worker side of the capacity pool: one planning task per call, inputs and results msgpackr-encoded
 * (plain object graphs of Kubernetes objects encode faster than structured clone copies them).
 * The main thread's compiled WASM kernels arrive in workerData and are registered once per worker.
 */
import { workerData } from 'node:worker_threads';
import { Packr } from 'msgpackr';
import { registerCompiledKernel } from '../util/wasm.js';
import { runPoolTask, type PoolTask } from './pool-tasks.js';

const packr = new Packr({ structuredClone: false, useRecords: false, moreTypes: false });
const modules = (workerData as { kernels?: Record<string, WebAssembly.Module> } | undefined)?.kernels ?? {};
for (const [name, mod] of Object.entries(modules)) registerCompiledKernel(name, mod);

export default async function run(encoded: Uint8Array): Promise<Uint8Array> {
  const task = packr.unpack(encoded) as PoolTask;
  task.cluster.sources = new Map();
  return packr.pack(await runPoolTask(task));
}

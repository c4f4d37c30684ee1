/**
 * Worker side of the capacity pool: one planning task per call, inputs and results msgpackr-encoded
 * (plain object graphs of Kubernetes objects encode faster than structured clone copies them); the
 * cluster arrives as shared encoded bytes with an id and is decoded once per worker.
 * The main thread's compiled WASM kernels arrive in workerData and are registered once per worker.
 */
import { workerData } from 'node:worker_threads';
import { Packr } from 'msgpackr';
import { registerCompiledKernel } from '../util/wasm.js';
import { runPoolTask, type PoolTask } from './pool-tasks.js';
import type { PoolMessage } from './pool.js';
import type { ClusterFile } from '../scheduler/framework/cluster-file.js';

const packr = new Packr({ structuredClone: false, useRecords: false, moreTypes: false });
const modules = (workerData as { kernels?: Record<string, WebAssembly.Module> } | undefined)?.kernels ?? {};
for (const [name, mod] of Object.entries(modules)) registerCompiledKernel(name, mod);

/** clusters decoded in this worker, by the pool's id (a sweep reuses one cluster for every task) */
const clusters = new Map<number, ClusterFile>();
const MAX_CLUSTERS = 4;

export default async function run(msg: PoolMessage): Promise<Uint8Array> {
  if (!msg.cluster) return packr.pack(await runPoolTask(packr.unpack(msg.task) as PoolTask));
  let cluster = clusters.get(msg.clusterId);
  if (!cluster) {
    // msgpackr decodes strings from a plain ArrayBuffer only: copy the shared bytes once
    cluster = packr.unpack(new Uint8Array(msg.cluster).slice()) as ClusterFile;
    cluster.sources = new Map();
    if (clusters.size >= MAX_CLUSTERS) clusters.delete(clusters.keys().next().value!);
    clusters.set(msg.clusterId, cluster);
  }
  const task = { ...(packr.unpack(msg.task) as Omit<PoolTask, 'cluster'>), cluster } as PoolTask;
  return packr.pack(await runPoolTask(task));
}

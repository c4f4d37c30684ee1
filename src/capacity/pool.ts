/**
 * A piscina worker pool for independent capacity runs (what-ifs, strategies, seeds): each task is
 * a {@link PoolTask}, msgpackr-encoded; the scheduler's WASM kernel is compiled once here and
 * shared with every worker through workerData. Results equal the single-thread ones (tested).
 *
 * A sweep sends the same cluster with every task, and encoding a few thousand nodes and their
 * pods costs about as much as planning on them. So a cluster is encoded once, into a
 * SharedArrayBuffer that every task message shares without copying, and each worker decodes it
 * once and keeps it by id (clusters are never modified by a plan).
 *
 * Workers run the compiled JavaScript (dist/src/capacity/pool-worker.js, built by `npm run build`),
 * also when the caller runs from TypeScript sources under vitest.
 */
import { Piscina } from 'piscina';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { Packr } from 'msgpackr';
import { compiledModulePath } from '../util/paths.js';
import { compiledKernel, KernelLoadError } from '../util/wasm.js';
import type { PoolResult, PoolTask } from './pool-tasks.js';
import type { ClusterFile } from '../scheduler/framework/cluster-file.js';
import type { PlanReport, MinNodesResult } from './planner.js';
import type { StrategyResult } from './strategies.js';
import type { RunMetrics } from '../sim/run-metrics.js';

export interface PlannerPoolOptions {
  /** worker threads; default: available cores */
  threads?: number;
  /** abort a task after this many ms (a plugin that loops); default none */
  taskTimeoutMs?: number;
}

export class PoolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PoolError';
  }
}

/**
 * What crosses to a worker: the task without its cluster, and the cluster by id + shared bytes
 * (id 0 and no bytes for a task without a cluster: a simulation sweep's run).
 */
export interface PoolMessage {
  task: Uint8Array;
  clusterId: number;
  cluster?: SharedArrayBuffer;
}

type ResultOf<T extends PoolTask> = T['kind'] extends 'plan'
  ? PlanReport
  : T['kind'] extends 'strategy'
    ? StrategyResult
    : T['kind'] extends 'sweepRun'
      ? RunMetrics
      : MinNodesResult;

export class PlannerPool {
  private readonly piscina: Piscina;
  private readonly packr = new Packr({ structuredClone: false, useRecords: false, moreTypes: false });
  readonly threads: number;
  private readonly timeoutMs?: number;
  /** clusters encoded so far: object identity → id + shared encoded bytes */
  private readonly clusters = new WeakMap<object, { id: number; bytes: SharedArrayBuffer }>();
  private nextClusterId = 1;

  constructor(opts: PlannerPoolOptions = {}) {
    const threads = opts.threads ?? os.availableParallelism();
    if (!Number.isInteger(threads) || threads < 1)
      throw new TypeError(`PlannerPool: threads must be a positive integer, got ${threads}`);
    if (opts.taskTimeoutMs !== undefined && !(opts.taskTimeoutMs > 0))
      throw new TypeError(`PlannerPool: taskTimeoutMs must be > 0, got ${opts.taskTimeoutMs}`);
    const filename = compiledModulePath('capacity/pool-worker');
    if (!existsSync(filename)) throw new PoolError(`worker ${filename} is missing; run \`npm run build\``);
    let kernels: Record<string, WebAssembly.Module> = {};
    try {
      kernels = { scheduler: compiledKernel('scheduler') };
    } catch (e) {
      // without the WASM build the pool still serves js-kernel tasks; a wasm task fails in its
      // worker with the same KernelLoadError message (as a PoolError)
      if (!(e instanceof KernelLoadError)) throw e;
    }
    this.threads = threads;
    this.timeoutMs = opts.taskTimeoutMs;
    this.piscina = new Piscina({
      filename,
      minThreads: threads,
      maxThreads: threads,
      workerData: { kernels },
      idleTimeout: 60_000,
      // plans allocate many short-lived objects; with the default young generation a task took 1.2×
      // its main-thread time in a worker, with 64 MB 1.1× (plan tasks on 500 nodes, worker vs main thread)
      resourceLimits: { maxYoungGenerationSizeMb: 64 },
    });
  }

  /** Runs one task in a worker. */
  async run<T extends PoolTask>(task: T): Promise<ResultOf<T>> {
    const signal = this.timeoutMs ? AbortSignal.timeout(this.timeoutMs) : undefined;
    try {
      const msg: PoolMessage =
        task.kind === 'sweepRun'
          ? { task: this.packr.pack(task), clusterId: 0 }
          : (({ cluster, ...rest }) => ({ task: this.packr.pack(rest), ...this.encodedCluster(cluster) }))(
              task,
            );
      const out = (await this.piscina.run(msg, { signal })) as Uint8Array;
      return this.packr.unpack(out) as ResultOf<T>;
    } catch (e) {
      const err = e as Error;
      if (err.name === 'AbortError' || err.name === 'TimeoutError') {
        throw new PoolError(
          `task ${task.kind} did not finish within ${this.timeoutMs} ms (a plugin that loops?); the worker was stopped`,
        );
      }
      throw new PoolError(`task ${task.kind} failed in a worker: ${err.message}`);
    }
  }

  private encodedCluster(cluster: ClusterFile): { clusterId: number; cluster: SharedArrayBuffer } {
    let e = this.clusters.get(cluster);
    if (!e) {
      // source positions (a Map keyed by object identity) mean nothing in another thread
      const { sources: _sources, ...plain } = cluster;
      const packed = this.packr.pack(plain);
      const bytes = new SharedArrayBuffer(packed.length);
      new Uint8Array(bytes).set(packed);
      e = { id: this.nextClusterId++, bytes };
      this.clusters.set(cluster, e);
    }
    return { clusterId: e.id, cluster: e.bytes };
  }

  /** Runs every task, at most `threads` at a time; results in task order. */
  async runAll(tasks: PoolTask[], onDone?: (done: number, total: number) => void): Promise<PoolResult[]> {
    let done = 0;
    return Promise.all(
      tasks.map(async (t) => {
        const r = await this.run(t);
        onDone?.(++done, tasks.length);
        return r;
      }),
    );
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}

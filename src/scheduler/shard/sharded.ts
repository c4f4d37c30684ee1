/**
 * One cluster's nodes sharded across threads: K contiguous windows of the scan order, each scanned
 * by the shared-memory WASM kernel (build/scheduler_shared.wasm) in its own thread over the SAME
 * NodeTable memory (a SharedArrayBuffer), then merged per pod in the calling thread
 * ({@link mergeAndSelect}) — placement for placement equal to a single-thread full scan
 * ({@link ReferenceScheduler}, tested differentially).
 *
 * ```
 *   const table = new NodeTable({ sharedMemory: true });   // nodes + bound pods as usual
 *   const s = await ShardedScheduler.start(table, { shards: 2, seed: 1 });
 *   const node = s.schedule(pod);                          // synchronous; assumes the pod
 *   s.close();
 * ```
 *
 * Windows without a kernel change: the kernel reads the node count (H_SIZE) and the scan-order
 * column (H_OFF_ORDER) from the table header it is given, so each shard gets a private COPY of the
 * table header with H_SIZE = window length and H_OFF_ORDER = order column + window start; every
 * other column address is the table's own. The copies are refreshed before every pod (the table may
 * have relaid its columns or recomputed its order since).
 *
 * Threads: by default the calling thread scans window 0 itself and K−1 workers scan the rest (one
 * fewer wake-up on the critical path); `useMainThread: false` uses K workers and the caller only
 * waits. Memory growth needs no care while workers run: the caller is blocked then, and WebAssembly
 * instances see a shared memory's growth from every thread.
 *
 * Scope: the node-local plugins (the kernel). PodTopologySpread and InterPodAffinity (cross-pod
 * state) are not sharded; a framework using this would add them after the merge.
 */
import { Worker } from 'node:worker_threads';
import type { Pod } from '../../api/types.js';
import type { NodeTable } from '../engine/table.js';
import { compilePod, type PodQuery } from '../engine/podquery.js';
import type { ResolvedScoring } from '../engine/scoring.js';
import * as L from '../engine/layout.js';
import { KernelOutput } from '../engine/output.js';
import { readFileSync } from 'node:fs';
import { compiledKernel } from '../../util/wasm.js';
import { wasmPath } from '../../util/paths.js';
import { Rng } from '../../util/rng.js';
import { mergeAndSelect, type MergeRecord } from './merge.js';
import { Ctrl, SHARD_WORKER_SOURCE, type ShardWorkerData } from './worker-source.js';

/** Ints of the table header copied into each shard header (assembly/scheduler.ts: TABLE HEADER i32[64]). */
const HEADER_INTS = 64;

export class ShardError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShardError';
  }
}

export interface ShardOptions {
  /** number of windows the scan order is split into (≥ 1) */
  shards: number;
  /** seed of selectHost's tie-break */
  seed?: number | string;
  /** scoring profile (resolveScoring); default kube-scheduler's default profile */
  scoring?: ResolvedScoring;
  /** scan window 0 in the calling thread (K−1 workers); default true */
  useMainThread?: boolean;
  /** polls of the control word before a worker sleeps in Atomics.wait; default 2000 (a few µs) */
  spin?: number;
  /**
   * schedule() wakes the workers before compiling the pod, and they poll up to this many times for
   * the job before sleeping again; 0 (the default) disables the pre-wake. It hides the wake-up
   * latency only when a core is free; on a machine without one the spinning worker takes CPU from
   * the compiling thread (measured slower: docs/bench/shard.md)
   */
  wakeSpin?: number;
  /** ms to wait for a shard before declaring it dead; default 30000 */
  timeoutMs?: number;
}

interface SharedExports {
  filterAndScore(
    table: number,
    query: number,
    out: number,
    start: number,
    numToFind: number,
    flags: number,
  ): number;
  heapBase(): number;
}

/**
 * Throws a clear error unless SharedArrayBuffer and the shared WASM build are usable. The kernel
 * keeps no scratch in linear memory (only wasm globals, which are per instance), so instances in
 * several threads can run on one memory at once; a module with static data would be refused here.
 */
export function assertShardingAvailable(table: NodeTable): WebAssembly.Module {
  if (typeof SharedArrayBuffer === 'undefined')
    throw new ShardError('sharding needs SharedArrayBuffer, which this JavaScript runtime does not provide');
  if (!((table.mem.memory.buffer as unknown) instanceof SharedArrayBuffer)) {
    throw new ShardError(
      'the NodeTable memory is not shared: create it with new NodeTable({ sharedMemory: true })',
    );
  }
  let module: WebAssembly.Module;
  try {
    module = compiledKernel('scheduler_shared');
  } catch (e) {
    throw new ShardError(`the shared-memory kernel is unavailable: ${(e as Error).message}`);
  }
  // static data in linear memory would be shared (and raced on) by every thread's instance
  if (dataSegmentCount(readFileSync(wasmPath('scheduler_shared'))) > 0) {
    throw new ShardError(
      'build/scheduler_shared.wasm keeps static data in linear memory, which every thread would share; it cannot be sharded safely',
    );
  }
  return module;
}

/** Number of data segments a WebAssembly binary declares (data section, id 11; 0 if absent). */
export function dataSegmentCount(bytes: Uint8Array): number {
  const leb = (at: number): [number, number] => {
    let v = 0,
      shift = 0,
      b: number;
    do {
      b = bytes[at++];
      v += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return [v, at];
  };
  let at = 8; // magic + version
  while (at < bytes.length) {
    const id = bytes[at];
    const [size, body] = leb(at + 1);
    if (id === 11) return leb(body)[0];
    at = body + size;
  }
  return 0;
}

/** Node-local scheduling of one cluster with its scan split across threads. See the file comment. */
export class ShardedScheduler {
  readonly shards: number;
  private readonly rng: Rng;
  private readonly scoring: ResolvedScoring | undefined;
  private readonly ctrl: Int32Array;
  private readonly workers: Worker[] = [];
  /** per shard: byte address of its table-header copy and its KernelOutput */
  private readonly headers: number[] = [];
  private readonly outputs: KernelOutput[] = [];
  private readonly outAddrs: number[] = [];
  private readonly main: SharedExports | undefined;
  private readonly timeoutMs: number;
  private readonly wakeSpin: number;
  private closed = false;
  /** nodes processed by the last call, summed over shards (== table.size for a full scan) */
  lastProcessed = 0;

  private constructor(
    readonly table: NodeTable,
    opts: ShardOptions,
    module: WebAssembly.Module,
  ) {
    if (!Number.isInteger(opts.shards) || opts.shards < 1)
      throw new ShardError(`shards must be a positive integer, got ${opts.shards}`);
    this.shards = opts.shards;
    this.rng = new Rng(opts.seed ?? 1);
    this.scoring = opts.scoring;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.wakeSpin = opts.wakeSpin ?? 0;
    const useMain = opts.useMainThread ?? true;
    const mem = table.mem;
    for (let k = 0; k < this.shards; k++) {
      this.headers.push(mem.alloc(HEADER_INTS * 4));
      const out = new KernelOutput(table);
      this.outputs.push(out);
      this.outAddrs.push(out.addr);
    }
    const numWorkers = useMain ? this.shards - 1 : this.shards;
    this.ctrl = new Int32Array(new SharedArrayBuffer((Ctrl.WORKER_BASE + numWorkers * Ctrl.WORKER_INTS) * 4));
    if (useMain) {
      const instance = new WebAssembly.Instance(module, {
        env: {
          memory: mem.memory,
          abort(_m: number, _f: number, line: number, col: number): never {
            throw new ShardError(`scheduler_shared aborted at ${line}:${col}`);
          },
        },
      });
      this.main = instance.exports as unknown as SharedExports;
    }
    for (let w = 0; w < numWorkers; w++) {
      const data: ShardWorkerData = {
        module,
        memory: mem.memory,
        ctrl: this.ctrl.buffer as SharedArrayBuffer,
        index: w,
        spin: opts.spin ?? 2000,
        wakeSpin: this.wakeSpin,
      };
      const worker = new Worker(SHARD_WORKER_SOURCE, { eval: true, workerData: data });
      worker.unref(); // a forgotten close() must not keep the process alive
      this.workers.push(worker);
    }
  }

  /**
   * Starts the workers and resolves once every one has instantiated the kernel.
   * @throws ShardError if sharding is unavailable (no SharedArrayBuffer, table not shared, no build)
   */
  static async start(table: NodeTable, opts: ShardOptions): Promise<ShardedScheduler> {
    const module = assertShardingAvailable(table);
    const s = new ShardedScheduler(table, opts, module);
    try {
      await s.ready();
    } catch (e) {
      await s.close();
      throw e;
    }
    return s;
  }

  private async ready(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ShardError(`shard workers did not start within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    const started = this.workers.map(
      (w) =>
        new Promise<void>((resolve, reject) => {
          w.once('message', () => resolve());
          w.once('error', (e) => reject(new ShardError(`shard worker failed to start: ${e.message}`)));
          w.once('exit', (code) => reject(new ShardError(`shard worker exited during start (code ${code})`)));
        }),
    );
    try {
      await Promise.race([Promise.all(started), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Writes each shard's table-header copy for the current table layout and scan order. */
  private layoutWindows(): void {
    const t = this.table;
    t.prepare();
    // the table may have grown: output columns are sized to its capacity (allocates before views are taken)
    for (let k = 0; k < this.shards; k++) {
      this.outputs[k].ensure();
      this.outAddrs[k] = this.outputs[k].addr;
    }
    const n = t.size;
    const i32 = t.mem.i32;
    const H = t.header >> 2;
    const order = i32[H + L.H_OFF_ORDER];
    for (let k = 0; k < this.shards; k++) {
      const lo = Math.floor((k * n) / this.shards);
      const hi = Math.floor(((k + 1) * n) / this.shards);
      const S = this.headers[k] >> 2;
      i32.copyWithin(S, H, H + HEADER_INTS);
      i32[S + L.H_SIZE] = hi - lo;
      i32[S + L.H_OFF_ORDER] = order + lo * 4;
    }
  }

  /**
   * Runs every node-local filter and score plugin for a compiled query over all nodes, split across
   * the shards, and merges: returns the selected node slot or -1. Does not assume.
   */
  evaluate(q: PodQuery, record?: MergeRecord): number {
    if (this.closed) throw new ShardError('ShardedScheduler is closed');
    if (q.table !== this.table) throw new ShardError('the query was compiled for another NodeTable');
    q.assertFresh();
    this.layoutWindows();
    const ctrl = this.ctrl;
    const first = this.main ? 1 : 0;
    for (let w = 0; w < this.workers.length; w++) {
      const b = Ctrl.WORKER_BASE + w * Ctrl.WORKER_INTS;
      ctrl[b + Ctrl.W_HEADER] = this.headers[first + w];
      ctrl[b + Ctrl.W_OUT] = this.outAddrs[first + w];
    }
    ctrl[Ctrl.QUERY] = q.addr;
    // the merge recomputes NormalizeScore with the global maxima from the raw columns
    ctrl[Ctrl.FLAGS] = L.KF_RAW_ONLY;
    Atomics.store(ctrl, Ctrl.DONE, 0);
    if (this.workers.length > 0) {
      Atomics.add(ctrl, Ctrl.JOB, 1);
      Atomics.add(ctrl, Ctrl.SEQ, 1);
      Atomics.notify(ctrl, Ctrl.SEQ);
    }
    let processed = 0;
    if (this.main)
      processed += this.main.filterAndScore(this.headers[0], q.addr, this.outAddrs[0], 0, 0, L.KF_RAW_ONLY);
    const want = this.workers.length;
    for (;;) {
      const d = Atomics.load(ctrl, Ctrl.DONE);
      if (d >= want) break;
      if (Atomics.wait(ctrl, Ctrl.DONE, d, this.timeoutMs) === 'timed-out') {
        throw new ShardError(`a shard worker did not answer within ${this.timeoutMs} ms`);
      }
    }
    for (let w = 0; w < want; w++) {
      const b = Ctrl.WORKER_BASE + w * Ctrl.WORKER_INTS;
      if (ctrl[b + Ctrl.W_ERROR] !== 0) throw new ShardError(`shard ${first + w}: the kernel trapped`);
      processed += ctrl[b + Ctrl.W_PROCESSED];
    }
    this.lastProcessed = processed;
    return mergeAndSelect(this.table.mem.i32, q.addr, this.outAddrs, this.rng, record);
  }

  /**
   * One scheduling cycle of the node-local plugins: compile, sharded filter+score, merge, select,
   * and assume (NodeTable.addPod with spec.nodeName set). Returns the node name, or undefined if no
   * node is feasible.
   */
  schedule(pod: Pod, record?: MergeRecord): string | undefined {
    this.preWake();
    const q = compilePod(this.table, pod, this.scoring);
    const slot = this.evaluate(q, record);
    if (slot < 0) return undefined;
    const name = this.table.nodeName(slot);
    this.table.addPod({ ...pod, spec: { ...pod.spec, nodeName: name } });
    return name;
  }

  /** Wakes sleeping workers so they are running (polling for the job) by the time it is posted. */
  preWake(): void {
    if (this.closed || this.wakeSpin === 0 || this.workers.length === 0) return;
    Atomics.add(this.ctrl, Ctrl.SEQ, 1);
    Atomics.notify(this.ctrl, Ctrl.SEQ);
  }

  /** Stops and terminates every worker. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    Atomics.store(this.ctrl, Ctrl.STOP, 1);
    Atomics.add(this.ctrl, Ctrl.SEQ, 1);
    Atomics.notify(this.ctrl, Ctrl.SEQ);
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

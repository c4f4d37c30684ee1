import { compiledKernel } from '../../util/wasm.js';
import type { NodeTable } from './table.js';
import type { PodQuery } from './podquery.js';
import {
  KF_ALL_REASONS,
  KF_OFF_SHIFT,
  FB_ALL,
  KF_RAW_ONLY,
  KF_SKIP_SCORE,
  KF_TOTAL_ONLY,
  RESERVED_LOW,
} from './layout.js';
import type { KernelOutput } from './output.js';
import type { FilterScoreOptions, Kernel } from './types.js';

interface SchedulerExports {
  filterAndScore(
    table: number,
    query: number,
    out: number,
    start: number,
    numToFind: number,
    flags: number,
    maxNodes?: number,
  ): number;
  heapBase(): number;
}

/**
 * The AssemblyScript kernel (assembly/scheduler.ts → build/scheduler.wasm). One instance per
 * NodeTable memory: the module imports the table's WebAssembly.Memory, so it reads the columns in
 * place — one call per pod, no copying, i32 arguments only.
 */
export class WasmKernel implements Kernel<NodeTable, PodQuery, KernelOutput> {
  readonly name = 'wasm' as const;
  private readonly instances = new WeakMap<WebAssembly.Memory, SchedulerExports>();

  constructor() {
    // load now, when the kernel is chosen: a missing build then fails the caller's setup with a
    // KernelLoadError instead of surfacing inside a scheduling cycle
    compiledKernel('scheduler');
  }

  private exportsFor(table: NodeTable): SchedulerExports {
    const memory = table.mem.memory;
    let ex = this.instances.get(memory);
    if (!ex) {
      // a SharedArrayBuffer-backed table (NodeTableOptions.sharedMemory) needs the build that
      // imports a shared memory (assembly/scheduler_shared.ts: same source, threads enabled)
      const shared =
        typeof SharedArrayBuffer !== 'undefined' && (memory.buffer as unknown) instanceof SharedArrayBuffer;
      const instance = new WebAssembly.Instance(compiledKernel(shared ? 'scheduler_shared' : 'scheduler'), {
        env: {
          memory,
          abort(_msg: number, _file: number, line: number, col: number): never {
            throw new Error(`kubesim: WASM kernel scheduler aborted at ${line}:${col}`);
          },
        },
      });
      ex = instance.exports as unknown as SchedulerExports;
      if (ex.heapBase() > RESERVED_LOW)
        throw new Error(
          `kubesim: scheduler.wasm static data (${ex.heapBase()} B) exceeds the reserved ${RESERVED_LOW} B`,
        );
      this.instances.set(memory, ex);
    }
    return ex;
  }

  filterAndScore(
    table: NodeTable,
    query: PodQuery,
    out: KernelOutput,
    opts: FilterScoreOptions = {},
  ): number {
    query.assertFresh();
    table.prepare();
    out.ensure();
    const ex = this.exportsFor(table);
    const flags =
      (opts.allReasons ? KF_ALL_REASONS : 0) |
      (opts.skipScore ? KF_SKIP_SCORE : 0) |
      (((opts.disabledFilters ?? 0) & FB_ALL) << KF_OFF_SHIFT) |
      (opts.output === 'raw' ? KF_RAW_ONLY : opts.output === 'total' ? KF_TOTAL_ONLY : 0);
    return ex.filterAndScore(
      table.header,
      query.addr,
      out.addr,
      opts.start ?? 0,
      opts.numNodesToFind ?? 0,
      flags,
      opts.maxNodes ?? 0,
    );
  }
}

/**
 * The single-thread reference for {@link ShardedScheduler}: one full-scan kernel call (start 0,
 * every node) into one KernelOutput, then the SAME merge and selectHost ({@link mergeAndSelect})
 * over that one output. With the same seed and the same pods it must place every pod on the same
 * node as the sharded scheduler; run over one window its totals equal the kernel's own `total`
 * column (tested), which ties the merge to the engine's NormalizeScore.
 */
import type { Pod } from '../../api/types.js';
import type { NodeTable } from '../engine/table.js';
import { compilePod, type PodQuery } from '../engine/podquery.js';
import type { ResolvedScoring } from '../engine/scoring.js';
import { KernelOutput } from '../engine/output.js';
import { WasmKernel } from '../engine/wasm.js';
import type { Kernel } from '../engine/types.js';
import { Rng } from '../../util/rng.js';
import { mergeAndSelect, type MergeRecord } from './merge.js';

export interface ReferenceOptions {
  /** seed of selectHost's tie-break (use the sharded scheduler's) */
  seed?: number | string;
  scoring?: ResolvedScoring;
  /** the kernel to run (default WasmKernel; JsKernel gives the same columns) */
  kernel?: Kernel<NodeTable, PodQuery, KernelOutput>;
}

export class ReferenceScheduler {
  private readonly rng: Rng;
  private readonly kernel: Kernel<NodeTable, PodQuery, KernelOutput>;
  private readonly scoring: ResolvedScoring | undefined;
  /** the output of the last call (its `total` column is the kernel's own full-scan totals) */
  readonly out: KernelOutput;
  /** nodes processed by the last call */
  lastProcessed = 0;

  constructor(
    readonly table: NodeTable,
    opts: ReferenceOptions = {},
  ) {
    this.rng = new Rng(opts.seed ?? 1);
    this.kernel = opts.kernel ?? new WasmKernel();
    this.scoring = opts.scoring;
    this.out = new KernelOutput(table);
  }

  /** Full scan + merge + selectHost for a compiled query: the selected node slot or -1. Does not assume. */
  evaluate(q: PodQuery, record?: MergeRecord): number {
    this.lastProcessed = this.kernel.filterAndScore(this.table, q, this.out, { start: 0 });
    return mergeAndSelect(this.table.mem.i32, q.addr, [this.out.addr], this.rng, record);
  }

  /** Compile, full scan, select and assume; the node name or undefined if nothing is feasible. */
  schedule(pod: Pod, record?: MergeRecord): string | undefined {
    const q = compilePod(this.table, pod, this.scoring);
    const slot = this.evaluate(q, record);
    if (slot < 0) return undefined;
    const name = this.table.nodeName(slot);
    this.table.addPod({ ...pod, spec: { ...pod.spec, nodeName: name } });
    return name;
  }
}

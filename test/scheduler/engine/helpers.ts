import { expect } from 'vitest';
import type { Node, Pod } from '../../../src/api/types.js';
import { NodeTable } from '../../../src/scheduler/engine/table.js';
import { compilePod } from '../../../src/scheduler/engine/podquery.js';
import { resolveScoring } from '../../../src/scheduler/engine/scoring.js';
import { JsKernel } from '../../../src/scheduler/engine/js.js';
import { WasmKernel } from '../../../src/scheduler/engine/wasm.js';
import { KernelOutput } from '../../../src/scheduler/engine/output.js';
import type { FilterScoreOptions, ScoringConfig } from '../../../src/scheduler/engine/types.js';
import { NUM_SCORE_PLUGINS } from '../../../src/scheduler/engine/types.js';

export const js = new JsKernel();
export const wasm = new WasmKernel();

export interface NodeResult {
  name: string;
  status: number;
  reasons: number;
  raw: number[];
  norm: number[];
  total: number;
}

export interface RunResult {
  processed: number;
  feasible: string[];
  nodes: Map<string, NodeResult>;
}

/** Snapshot of the kernel output for every node slot examined. */
export function collect(
  table: NodeTable,
  out: KernelOutput,
  processed: number,
  output: FilterScoreOptions['output'] = 'all',
): RunResult {
  const nodes = new Map<string, NodeResult>();
  // only the columns the output mode defines
  const raw = output !== 'total',
    norm = output === 'all',
    total = output !== 'raw';
  for (const s of table.slots()) {
    if (out.status[s] === 0) continue;
    const feasible = out.status[s] === 1;
    nodes.set(table.nodeName(s), {
      name: table.nodeName(s),
      status: out.status[s],
      reasons: out.reasons[s],
      raw: feasible && raw ? Array.from({ length: NUM_SCORE_PLUGINS }, (_, p) => out.raw(p)[s]) : [],
      norm: feasible && norm ? Array.from({ length: NUM_SCORE_PLUGINS }, (_, p) => out.normalized(p)[s]) : [],
      total: feasible && total ? out.total[s] : 0,
    });
  }
  return { processed, feasible: out.feasibleNames(), nodes };
}

/** Builds a table, compiles `pod`, runs both kernels, asserts they agree, returns the JS result. */
export function runBoth(
  nodes: Node[],
  existing: Pod[],
  pod: Pod,
  scoring: ScoringConfig = {},
  opts: FilterScoreOptions = {},
): RunResult {
  const table = new NodeTable({ initialCapacity: 32 });
  for (const n of nodes) table.addNode(n);
  for (const p of existing) table.addPod(p);
  const resolved = resolveScoring(scoring);
  const results: RunResult[] = [];
  for (const k of [js, wasm]) {
    const q = compilePod(table, pod, resolved);
    const out = new KernelOutput(table);
    out.status.fill(0);
    const processed = k.filterAndScore(table, q, out, opts);
    results.push(collect(table, out, processed, opts.output));
  }
  expect(results[1]).toEqual(results[0]);
  return results[0];
}

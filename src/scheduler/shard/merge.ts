/**
 * The per-pod merge of shard results: NormalizeScore over the GLOBAL feasible set, the weighted
 * total, and selectHost — the only steps of the node-local pipeline that look at more than one node.
 *
 * Every filter verdict and every raw score is a function of (one node's columns, the compiled
 * query) alone, so it does not matter which thread computed it. What does depend on the whole set:
 * - NormalizeScore of TaintToleration (reversed) and NodeAffinity divides by the maximum raw score
 *   over ALL feasible nodes (upstream helper.DefaultNormalizeScore); each shard's kernel normalized
 *   with its own local maximum, so the normalized/total columns of a shard are NOT used — the merge
 *   recomputes them from the raw columns with the global maximum, in integer arithmetic;
 * - selectHost visits the feasible nodes in scan order; the shards' windows are contiguous pieces
 *   of the scan order, so their feasible lists concatenated in shard order ARE the full scan's list.
 *
 * The single-thread reference ({@link ReferenceScheduler}) runs this same code over its one output,
 * so "sharded == reference" compares the kernels' work, not two merge implementations.
 */
import * as L from '../engine/layout.js';
import { idiv } from '../engine/js.js';
import { MAX_NODE_SCORE, ScorePlugin } from '../engine/types.js';
import type { Rng } from '../../util/rng.js';

/** Optional record of a merge, for tests and explain output (cold path: the caller's arrays grow). */
export interface MergeRecord {
  /** node slots of the merged feasible list, in scan order */
  feasible: number[];
  /** Σ weight × normalized score per entry of `feasible` */
  totals: number[];
}

/**
 * Merges kernel outputs (byte addresses of KernelOutput headers, in scan-window order) written for
 * the query at `queryAddr`, and selects the host: the highest total; among equal totals each node is
 * kept with probability 1/k (reservoir sampling, the k-th tie replaces the choice), as upstream's
 * selectHost and the framework's ScheduleOne. Returns the chosen node slot, or -1 if no node is
 * feasible. Allocates nothing unless `record` is given.
 */
export function mergeAndSelect(
  i32: Int32Array,
  queryAddr: number,
  outs: readonly number[],
  rng: Rng,
  record?: MergeRecord,
): number {
  const Q = queryAddr >> 2;
  const w0 = i32[Q + L.Q_W + ScorePlugin.TaintToleration];
  const w1 = i32[Q + L.Q_W + ScorePlugin.NodeAffinity];
  const w2 = i32[Q + L.Q_W + ScorePlugin.NodeResourcesFit];
  const w3 = i32[Q + L.Q_W + ScorePlugin.NodeResourcesBalancedAllocation];
  const w4 = i32[Q + L.Q_W + ScorePlugin.ImageLocality];

  // pass 1: the global maxima of the two plugins with a NormalizeScore
  let maxTaint = 0;
  let maxAff = 0;
  for (let k = 0; k < outs.length; k++) {
    const O = outs[k] >> 2;
    const count = i32[O + L.O_FEASIBLE_COUNT];
    const feas = i32[O + L.O_OFF_FEASIBLE] >> 2;
    const ocap = i32[O + L.O_CAP];
    const tRaw = (i32[O + L.O_OFF_RAW] >> 2) + ScorePlugin.TaintToleration * ocap;
    const aRaw = (i32[O + L.O_OFF_RAW] >> 2) + ScorePlugin.NodeAffinity * ocap;
    for (let i = 0; i < count; i++) {
      const s = i32[feas + i];
      if (i32[tRaw + s] > maxTaint) maxTaint = i32[tRaw + s];
      if (i32[aRaw + s] > maxAff) maxAff = i32[aRaw + s];
    }
  }

  // pass 2: totals in scan order and selectHost
  let best = -1;
  let bestTotal = 0;
  let ties = 0;
  for (let k = 0; k < outs.length; k++) {
    const O = outs[k] >> 2;
    const count = i32[O + L.O_FEASIBLE_COUNT];
    const feas = i32[O + L.O_OFF_FEASIBLE] >> 2;
    const ocap = i32[O + L.O_CAP];
    const raw = i32[O + L.O_OFF_RAW] >> 2;
    for (let i = 0; i < count; i++) {
      const s = i32[feas + i];
      // helper.DefaultNormalizeScore: reversed for TaintToleration, plain for NodeAffinity
      const t =
        maxTaint === 0 ? MAX_NODE_SCORE : MAX_NODE_SCORE - idiv(MAX_NODE_SCORE * i32[raw + s], maxTaint);
      const a = maxAff === 0 ? 0 : idiv(MAX_NODE_SCORE * i32[raw + ocap + s], maxAff);
      const total =
        (w0 === 0 ? 0 : w0 * t) +
        w1 * a +
        w2 * i32[raw + 2 * ocap + s] +
        w3 * i32[raw + 3 * ocap + s] +
        w4 * i32[raw + 4 * ocap + s];
      if (record) {
        record.feasible.push(s);
        record.totals.push(total);
      }
      if (best < 0 || total > bestTotal) {
        best = s;
        bestTotal = total;
        ties = 1;
      } else if (total === bestTotal) {
        ties++;
        if (rng.int(ties) === 0) best = s;
      }
    }
  }
  return best;
}

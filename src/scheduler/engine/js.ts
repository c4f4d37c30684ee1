import type { TableMemory } from './memory.js';
import type { NodeTable } from './table.js';
import type { PodQuery } from './podquery.js';
import * as L from './layout.js';
import type { KernelOutput } from './output.js';
import type { FilterScoreOptions, Kernel } from './types.js';
import { MAX_NODE_SCORE, NodeStatus, REASON_RESOURCE_BASE, ReasonBit, ScorePlugin } from './types.js';

const MB = 1024 * 1024;
/** ImageLocality thresholds (pkg/scheduler/framework/plugins/imagelocality) */
export const IMAGE_MIN_THRESHOLD = 23 * MB;
export const IMAGE_MAX_CONTAINER_THRESHOLD = 1000 * MB;

/**
 * floor(a / b) for integers 0 ≤ a < 2^53, b > 0 — Go's int64 division on non-negative operands.
 * The f64 quotient can round up to the next integer for huge operands; one correction step fixes it.
 */
export function idiv(a: number, b: number): number {
  let q = Math.floor(a / b);
  if (q * b > a) q -= 1;
  else if ((q + 1) * b <= a) q += 1;
  return q;
}

/**
 * The same floor(a / b) given inv = 1/b, without a division: the product is within one ulp-scaled
 * step of the quotient, so one correction step makes it exact for quotients below 2^40. Used with
 * the table's per-node 1/allocatable column and per-call constants.
 */
export function idivInv(a: number, b: number, inv: number): number {
  let q = Math.floor(a * inv);
  if (q * b > a) q -= 1;
  else if ((q + 1) * b <= a) q += 1;
  return q;
}

/** Scratch for BalancedAllocation fractions (no allocation per node). */
let fractions = new Float64Array(8);

/**
 * The readable reference kernel: every node-local filter and score plugin of kube-scheduler's
 * default profile, reading the NodeTable's columns and the compiled PodQuery straight from linear
 * memory (the same bytes the WASM kernel reads). Integer semantics follow upstream exactly.
 */
export class JsKernel implements Kernel<NodeTable, PodQuery, KernelOutput> {
  readonly name = 'js' as const;

  filterAndScore(
    table: NodeTable,
    query: PodQuery,
    out: KernelOutput,
    opts: FilterScoreOptions = {},
  ): number {
    query.assertFresh();
    table.prepare();
    out.ensure();
    const n = table.size;
    if (n === 0) {
      out.feasibleCount = 0;
      return 0;
    }
    const mem = table.mem;
    const i32 = mem.i32,
      u32 = mem.u32,
      f64 = mem.f64,
      u8 = mem.u8;
    const H = table.header >> 2;
    const cap = i32[H + L.H_NODE_CAP];
    const taintWords = i32[H + L.H_TAINT_WORDS];
    const allocB = i32[H + L.H_OFF_ALLOC] >> 3;
    const reqB = i32[H + L.H_OFF_REQ] >> 3;
    const nzCpuB = i32[H + L.H_OFF_NZCPU] >> 3;
    const nzMemB = i32[H + L.H_OFF_NZMEM] >> 3;
    const invB = i32[H + L.H_OFF_ALLOCINV] >> 3;
    const flagsB = i32[H + L.H_OFF_FLAGS];
    const taintsB = i32[H + L.H_OFF_TAINTS] >> 2;
    const labelsB = i32[H + L.H_OFF_LABELS] >> 2;
    const imagesB = i32[H + L.H_OFF_IMAGES] >> 2;
    const nodeWords = i32[H + L.H_NODE_WORDS];
    const orderB = i32[H + L.H_OFF_ORDER] >> 2;

    const Q = query.addr >> 2;
    const qf = i32[Q + L.Q_FLAGS];
    const qNodeName = i32[Q + L.Q_NODE_NAME];
    const blockB = i32[Q + L.Q_OFF_BLOCK] >> 2;
    const preferB = i32[Q + L.Q_OFF_PREFER] >> 2;
    const exprB = i32[Q + L.Q_OFF_EXPR] >> 2;
    const selStart = i32[Q + L.Q_SEL_START];
    const selCount = i32[Q + L.Q_SEL_COUNT];
    const numTerms = i32[Q + L.Q_NUM_TERMS];
    const termsB = i32[Q + L.Q_OFF_TERMS] >> 2;
    const numPref = i32[Q + L.Q_NUM_PREF];
    const prefB = i32[Q + L.Q_OFF_PREF] >> 2;
    const qReqB = i32[Q + L.Q_OFF_REQ] >> 3;
    const numReq = i32[Q + L.Q_NUM_REQ];
    const reqListB = i32[Q + L.Q_OFF_REQLIST] >> 2;
    const portsB = i32[Q + L.Q_OFF_PORTS] >> 2;
    const topoB = i32[H + L.H_OFF_TOPO] >> 2;
    const xChecks = i32[Q + L.Q_X_NUM_CHECKS];
    const xCheckB = i32[Q + L.Q_X_OFF_CHECKS] >> 2;

    const O = out.addr >> 2;
    const statusB = i32[O + L.O_OFF_STATUS];
    const reasonsB = i32[O + L.O_OFF_REASONS] >> 2;
    const feasB = i32[O + L.O_OFF_FEASIBLE] >> 2;
    const rawB = i32[O + L.O_OFF_RAW] >> 2;
    const normB = i32[O + L.O_OFF_NORM] >> 2;
    const totalB = i32[O + L.O_OFF_TOTAL] >> 2;
    const ocap = i32[O + L.O_CAP];

    const allReasons = opts.allReasons === true;
    const skipScore = opts.skipScore === true;
    const off = (opts.disabledFilters ?? 0) & L.FB_ALL;
    const start = (((opts.start ?? 0) % n) + n) % n;
    const toFind = opts.numNodesToFind === undefined || opts.numNodesToFind <= 0 ? n : opts.numNodesToFind;
    const limit = opts.maxNodes === undefined || opts.maxNodes <= 0 ? n : Math.min(n, opts.maxNodes);

    /** does expression e hold on node slot s */
    const exprHolds = (e: number, s: number): boolean => {
      const at = exprB + e * 4;
      const op = i32[at];
      const arg = i32[at + 2];
      switch (op) {
        case L.OP_NAME_EQ:
          return s === arg;
        case L.OP_NAME_NE:
          return s !== arg;
        case L.OP_TRUE:
          return true;
        case L.OP_FALSE:
          return false;
      }
      const v = i32[labelsB + i32[at + 1] * cap + s];
      switch (op) {
        case L.OP_EXISTS:
          return v !== 0;
        case L.OP_NOT_EXISTS:
          return v === 0;
        case L.OP_EQ:
          return v === arg;
        case L.OP_NE:
          return v !== arg;
        case L.OP_IN:
          return (u32[(arg >> 2) + (v >>> 5)] & (1 << (v & 31))) !== 0;
        default:
          return (u32[(arg >> 2) + (v >>> 5)] & (1 << (v & 31))) === 0; // OP_NOT_IN
      }
    };
    const allHold = (first: number, count: number, s: number): boolean => {
      for (let e = first; e < first + count; e++) if (!exprHolds(e, s)) return false;
      return true;
    };

    /**
     * the profile's node-local filters in the default profile's order (those in `off` are not run);
     * stops at the first failing plugin unless allReasons
     */
    const filterNode = (s: number): number => {
      let reasons = 0;
      // NodeUnschedulable
      if (
        (off & L.RB_UNSCHEDULABLE) === 0 &&
        (u8[flagsB + s] & L.F_UNSCHEDULABLE) !== 0 &&
        (qf & L.QF_TOL_UNSCHEDULABLE) === 0
      )
        reasons |= ReasonBit.NodeUnschedulable;
      // NodeName
      if (
        (reasons === 0 || allReasons) &&
        (off & L.RB_NODE_NAME) === 0 &&
        qNodeName !== -1 &&
        qNodeName !== s
      )
        reasons |= ReasonBit.NodeName;
      // TaintToleration (NoSchedule / NoExecute)
      if ((reasons === 0 || allReasons) && (off & L.RB_TAINT) === 0) {
        const t = taintsB + s * taintWords;
        for (let w = 0; w < taintWords; w++) {
          if ((u32[t + w] & u32[blockB + w]) !== 0) {
            reasons |= ReasonBit.TaintToleration;
            break;
          }
        }
      }
      // NodeAffinity: nodeSelector AND (OR of required terms)
      if ((reasons === 0 || allReasons) && (off & L.RB_AFFINITY) === 0) {
        let ok = (qf & L.QF_SELECTOR_NEVER) === 0 && allHold(selStart, selCount, s);
        if (ok && (qf & L.QF_HAS_REQUIRED) !== 0) {
          ok = false;
          for (let t = 0; t < numTerms; t++) {
            if (allHold(i32[termsB + t * 2], i32[termsB + t * 2 + 1], s)) {
              ok = true;
              break;
            }
          }
        }
        if (!ok) reasons |= ReasonBit.NodeAffinity;
      }
      // NodePorts
      if (
        (reasons === 0 || allReasons) &&
        (off & L.RB_PORTS) === 0 &&
        (qf & L.QF_HAS_PORTS) !== 0 &&
        (u32[portsB + (s >>> 5)] & (1 << (s & 31))) !== 0
      ) {
        reasons |= ReasonBit.NodePorts;
      }
      // NodeResourcesFit: every insufficient resource is reported
      if ((reasons === 0 || allReasons) && (off & L.FB_FIT) === 0) {
        if (f64[reqB + L.R_PODS * cap + s] + 1 > f64[allocB + L.R_PODS * cap + s])
          reasons |= 1 << (REASON_RESOURCE_BASE + L.R_PODS);
        if ((qf & L.QF_REQ_ZERO) === 0) {
          for (let k = 0; k < numReq; k++) {
            const r = i32[reqListB + k];
            if (f64[qReqB + r] > f64[allocB + r * cap + s] - f64[reqB + r * cap + s])
              reasons |= 1 << (REASON_RESOURCE_BASE + r);
          }
        }
      }
      return reasons;
    };

    /** the cross-pod checks (crosspod.ts): the verdict of the node's domain, per check */
    const crossPodFails = (s: number): boolean => {
      for (let k = 0; k < xChecks; k++) {
        const row = i32[xCheckB + 2 * k];
        if (u8[i32[xCheckB + 2 * k + 1] + i32[topoB + row * cap + s]] === 0) return true;
      }
      return false;
    };

    let feasibleCount = 0;
    let processed = 0;
    for (let i = 0; i < limit; i++) {
      const s = i32[orderB + ((start + i) % n)];
      processed = i + 1;
      let reasons = off === L.FB_ALL ? 0 : filterNode(s);
      if (reasons === 0 && xChecks > 0 && crossPodFails(s)) reasons = L.RB_CROSS_POD;
      if (reasons !== 0) {
        u8[statusB + s] = NodeStatus.Filtered;
        u32[reasonsB + s] = reasons;
        continue;
      }
      u8[statusB + s] = NodeStatus.Feasible;
      u32[reasonsB + s] = 0;
      i32[feasB + feasibleCount++] = s;
      if (!skipScore) {
        i32[rawB + ScorePlugin.TaintToleration * ocap + s] =
          i32[Q + L.Q_W + ScorePlugin.TaintToleration] === 0 || (qf & L.QF_HAS_PREFER_TAINTS) === 0
            ? 0
            : countPrefer(u32, taintsB + s * taintWords, preferB, taintWords);
        let aff = 0;
        if (i32[Q + L.Q_W + ScorePlugin.NodeAffinity] !== 0) {
          for (let p = 0; p < numPref; p++) {
            const at = prefB + p * 4;
            if (allHold(i32[at], i32[at + 1], s)) aff += i32[at + 2];
          }
        }
        i32[rawB + ScorePlugin.NodeAffinity * ocap + s] = aff;
        i32[rawB + ScorePlugin.NodeResourcesFit * ocap + s] =
          i32[Q + L.Q_W + ScorePlugin.NodeResourcesFit] === 0
            ? 0
            : fitScore(i32, f64, Q, allocB, invB, reqB, nzCpuB, nzMemB, cap, s);
        i32[rawB + ScorePlugin.NodeResourcesBalancedAllocation * ocap + s] =
          i32[Q + L.Q_W + ScorePlugin.NodeResourcesBalancedAllocation] === 0 || (qf & L.QF_BEST_EFFORT) !== 0
            ? 0
            : balancedScore(i32, f64, Q, allocB, reqB, cap, s);
        i32[rawB + ScorePlugin.ImageLocality * ocap + s] =
          i32[Q + L.Q_W + ScorePlugin.ImageLocality] === 0
            ? 0
            : imageScore(i32, u32, f64, Q, imagesB, nodeWords, s);
      }
      if (feasibleCount >= toFind) break;
    }
    out.feasibleCount = feasibleCount;
    // the reference computes every column in every mode; 'raw' skips NormalizeScore as the
    // framework runs it itself (columns a mode leaves undefined may hold anything)
    if (!skipScore && opts.output !== 'raw') {
      normalizeAndTotal(i32, Q, feasB, feasibleCount, rawB, normB, totalB, ocap);
      crossPodTotals(mem, Q, feasB, feasibleCount, totalB, topoB, cap);
      if (feasibleCount > 0) selectBest(i32, feasB, feasibleCount, totalB, O);
    }
    return processed;
  }
}

function countPrefer(u32: Uint32Array, t: number, prefer: number, words: number): number {
  let c = 0;
  for (let w = 0; w < words; w++) {
    let x = u32[t + w] & u32[prefer + w];
    while (x !== 0) {
      x &= x - 1;
      c++;
    }
  }
  return c;
}

/** NodeResourcesFit score: LeastAllocated / MostAllocated / RequestedToCapacityRatio over the configured resources */
function fitScore(
  i32: Int32Array,
  f64: Float64Array,
  Q: number,
  allocB: number,
  invB: number,
  reqB: number,
  nzCpuB: number,
  nzMemB: number,
  cap: number,
  s: number,
): number {
  const num = i32[Q + L.Q_FIT_NUM];
  const type = i32[Q + L.Q_FIT_TYPE];
  const resB = i32[Q + L.Q_OFF_FIT_RES] >> 2;
  const kindB = i32[Q + L.Q_OFF_FIT_KIND] >> 2;
  const wB = i32[Q + L.Q_OFF_FIT_W] >> 2;
  const podB = i32[Q + L.Q_OFF_FIT_REQ] >> 3;
  let nodeScore = 0;
  let weightSum = 0;
  for (let i = 0; i < num; i++) {
    const kind = i32[kindB + i];
    if (kind === L.K_SKIP) continue;
    const pod = f64[podB + i];
    if (kind === L.K_SCALAR && pod === 0) continue; // an extended resource the pod does not request
    const r = i32[resB + i];
    const alloc = f64[allocB + r * cap + s];
    if (alloc === 0) continue;
    const requested =
      pod +
      (kind === L.K_NONZERO_CPU
        ? f64[nzCpuB + s]
        : kind === L.K_NONZERO_MEM
          ? f64[nzMemB + s]
          : f64[reqB + r * cap + s]);
    const w = i32[wB + i];
    const inv = f64[invB + r * cap + s];
    if (type === L.FIT_LEAST_ALLOCATED) {
      nodeScore += (requested > alloc ? 0 : idivInv((alloc - requested) * MAX_NODE_SCORE, alloc, inv)) * w;
      weightSum += w;
    } else if (type === L.FIT_MOST_ALLOCATED) {
      nodeScore += idivInv((requested > alloc ? alloc : requested) * MAX_NODE_SCORE, alloc, inv) * w;
      weightSum += w;
    } else {
      const rs = brokenLinear(i32, Q, requested > alloc ? 100 : idivInv(requested * 100, alloc, inv));
      if (rs > 0) {
        nodeScore += rs * w;
        weightSum += w;
      }
    }
  }
  if (weightSum === 0) return 0;
  if (type === L.FIT_REQUESTED_TO_CAPACITY_RATIO) return idiv(2 * nodeScore + weightSum, 2 * weightSum); // math.Round of a non-negative ratio
  return idiv(nodeScore, weightSum);
}

/** helper.BuildBrokenLinearFunction over the query's shape (scores already ×10) */
function brokenLinear(i32: Int32Array, Q: number, p: number): number {
  const num = i32[Q + L.Q_SHAPE_NUM];
  const uB = i32[Q + L.Q_OFF_SHAPE_U] >> 2;
  const sB = i32[Q + L.Q_OFF_SHAPE_S] >> 2;
  for (let i = 0; i < num; i++) {
    if (p <= i32[uB + i]) {
      if (i === 0) return i32[sB];
      const s0 = i32[sB + i - 1],
        u0 = i32[uB + i - 1];
      return s0 + Math.trunc(((i32[sB + i] - s0) * (p - u0)) / (i32[uB + i] - u0));
    }
  }
  return i32[sB + num - 1];
}

/** NodeResourcesBalancedAllocation: (1 - std of the requested/allocatable fractions) × 100, truncated */
function balancedScore(
  i32: Int32Array,
  f64: Float64Array,
  Q: number,
  allocB: number,
  reqB: number,
  cap: number,
  s: number,
): number {
  const num = i32[Q + L.Q_BAL_NUM];
  const resB = i32[Q + L.Q_OFF_BAL_RES] >> 2;
  const kindB = i32[Q + L.Q_OFF_BAL_KIND] >> 2;
  const podB = i32[Q + L.Q_OFF_BAL_REQ] >> 3;
  if (fractions.length < num) fractions = new Float64Array(num * 2);
  let count = 0;
  let total = 0;
  for (let i = 0; i < num; i++) {
    const kind = i32[kindB + i];
    if (kind === L.K_SKIP) continue;
    const pod = f64[podB + i];
    if (kind === L.K_SCALAR && pod === 0) continue;
    const r = i32[resB + i];
    const alloc = f64[allocB + r * cap + s];
    if (alloc === 0) continue;
    let fraction = (f64[reqB + r * cap + s] + pod) / alloc;
    if (fraction > 1) fraction = 1;
    total += fraction;
    fractions[count++] = fraction;
  }
  let std = 0;
  if (count === 2) std = Math.abs((fractions[0] - fractions[1]) / 2);
  else if (count > 2) {
    const mean = total / count;
    let sum = 0;
    for (let i = 0; i < count; i++) sum = sum + (fractions[i] - mean) * (fractions[i] - mean);
    std = Math.sqrt(sum / count);
  }
  return Math.trunc((1 - std) * MAX_NODE_SCORE);
}

/** ImageLocality: Σ scaled image scores of the pod's images present on the node, clamped and scaled to 0..100 */
function imageScore(
  i32: Int32Array,
  u32: Uint32Array,
  f64: Float64Array,
  Q: number,
  imagesB: number,
  nodeWords: number,
  s: number,
): number {
  const num = i32[Q + L.Q_NUM_IMAGES];
  const idB = i32[Q + L.Q_OFF_IMG] >> 2;
  const scB = i32[Q + L.Q_OFF_IMGSCORE] >> 3;
  let sum = 0;
  for (let i = 0; i < num; i++) {
    if ((u32[imagesB + i32[idB + i] * nodeWords + (s >>> 5)] & (1 << (s & 31))) !== 0) sum += f64[scB + i];
  }
  if (sum <= IMAGE_MIN_THRESHOLD) return 0; // clamped to the minimum: (min - min) / span = 0
  const maxThreshold = IMAGE_MAX_CONTAINER_THRESHOLD * i32[Q + L.Q_NUM_CONTAINERS];
  if (sum > maxThreshold) sum = maxThreshold;
  const span = maxThreshold - IMAGE_MIN_THRESHOLD;
  if (span <= 0) return 0; // no containers: upstream divides 0 by a negative span → 0
  return idiv(MAX_NODE_SCORE * (sum - IMAGE_MIN_THRESHOLD), span);
}

/**
 * the first feasible node with the highest total, the ties with the running maximum on the way,
 * and the positions where the running maximum was reached or raised (the first O_MAX_EVENTS)
 */
function selectBest(i32: Int32Array, feasB: number, count: number, totalB: number, O: number): void {
  let best = i32[feasB];
  let bestTotal = i32[totalB + best];
  let ties = 0;
  let events = 0;
  for (let i = 1; i < count; i++) {
    const s = i32[feasB + i];
    const t = i32[totalB + s];
    if (t < bestTotal) continue;
    if (t > bestTotal) {
      best = s;
      bestTotal = t;
    } else ties++;
    if (events < L.O_MAX_EVENTS) i32[O + L.O_EVENTS + events] = i;
    events++;
  }
  i32[O + L.O_BEST] = best;
  i32[O + L.O_BEST_TOTAL] = bestTotal;
  i32[O + L.O_TIE_EVENTS] = ties;
  i32[O + L.O_EVENT_COUNT] = events;
}

/** NormalizeScore (TaintToleration reversed, NodeAffinity) over the feasible nodes, then the weighted total */
function normalizeAndTotal(
  i32: Int32Array,
  Q: number,
  feasB: number,
  count: number,
  rawB: number,
  normB: number,
  totalB: number,
  ocap: number,
): void {
  let maxTaint = 0;
  let maxAff = 0;
  const tRaw = rawB + ScorePlugin.TaintToleration * ocap;
  const aRaw = rawB + ScorePlugin.NodeAffinity * ocap;
  for (let i = 0; i < count; i++) {
    const s = i32[feasB + i];
    if (i32[tRaw + s] > maxTaint) maxTaint = i32[tRaw + s];
    if (i32[aRaw + s] > maxAff) maxAff = i32[aRaw + s];
  }
  const w0 = i32[Q + L.Q_W],
    w1 = i32[Q + L.Q_W + 1],
    w2 = i32[Q + L.Q_W + 2],
    w3 = i32[Q + L.Q_W + 3],
    w4 = i32[Q + L.Q_W + 4];
  for (let i = 0; i < count; i++) {
    const s = i32[feasB + i];
    const t =
      maxTaint === 0 ? MAX_NODE_SCORE : MAX_NODE_SCORE - idiv(MAX_NODE_SCORE * i32[tRaw + s], maxTaint);
    const a = maxAff === 0 ? 0 : idiv(MAX_NODE_SCORE * i32[aRaw + s], maxAff);
    const f = i32[rawB + 2 * ocap + s],
      b = i32[rawB + 3 * ocap + s],
      im = i32[rawB + 4 * ocap + s];
    i32[normB + s] = w0 === 0 ? 0 : t;
    i32[normB + ocap + s] = a;
    i32[normB + 2 * ocap + s] = f;
    i32[normB + 3 * ocap + s] = b;
    i32[normB + 4 * ocap + s] = im;
    i32[totalB + s] = (w0 === 0 ? 0 : w0 * t) + w1 * a + w2 * f + w3 * b + w4 * im;
  }
}

/** Go's math.Round for x ≥ 0 (half away from zero), as the WASM kernel computes it */
function roundHalfUp(x: number): number {
  const r = Math.floor(x);
  return x - r >= 0.5 ? r + 1 : r;
}

/**
 * The cross-pod scores (crosspod.ts) added to the totals: InterPodAffinity's raw score is the sum
 * of its per-domain sums over its keys, normalized by min/max (interpodaffinity/scoring.go);
 * PodTopologySpread's is Σ count × ln(domains among the scored nodes + 2) + maxSkew − 1 per
 * constraint, rounded, with nodes lacking a key ignored when every key is required, normalized
 * reversed by max and min (podtopologyspread/scoring.go).
 */
function crossPodTotals(
  mem: TableMemory,
  Q: number,
  feasB: number,
  count: number,
  totalB: number,
  topoB: number,
  cap: number,
): void {
  const i32 = mem.i32,
    u8 = mem.u8,
    f64 = mem.f64;
  const scratch = i32[Q + L.Q_X_OFF_SCRATCH] >> 3;
  const wIpa = i32[Q + L.Q_X_W_IPA];
  const nIpa = i32[Q + L.Q_X_NUM_IPA];
  if (wIpa !== 0 && nIpa > 0) {
    const at = i32[Q + L.Q_X_OFF_IPA] >> 2;
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < count; i++) {
      const s = i32[feasB + i];
      let v = 0;
      for (let k = 0; k < nIpa; k++)
        v += i32[at + 4 * k + 2] * f64[(i32[at + 4 * k + 1] >> 3) + i32[topoB + i32[at + 4 * k] * cap + s]];
      f64[scratch + i] = v;
      if (v > max) max = v;
      if (v < min) min = v;
    }
    const diff = max - min;
    for (let i = 0; i < count; i++) {
      const norm = diff > 0 ? Math.trunc(MAX_NODE_SCORE * ((f64[scratch + i] - min) / diff)) : 0;
      i32[totalB + i32[feasB + i]] += wIpa * norm;
    }
  }
  const wPts = i32[Q + L.Q_X_W_PTS];
  const nPts = i32[Q + L.Q_X_NUM_PTS];
  if (wPts === 0 || nPts === 0) return;
  const at = i32[Q + L.Q_X_OFF_PTS] >> 2;
  const allKeys = i32[Q + L.Q_X_PTS_ALL_KEYS] !== 0;
  const logB = i32[Q + L.Q_X_OFF_LOG] >> 3;
  // 1. ignored nodes, and the domains of each key among the others (topologyNormalizingWeight)
  for (let c = 0; c < nPts; c++) {
    const e = at + c * L.PTS_INTS;
    u8.fill(0, i32[e + L.PTS_SEEN], i32[e + L.PTS_SEEN] + i32[e + L.PTS_DOMAINS]);
    i32[e + L.PTS_SIZE] = 0;
  }
  let scored = 0;
  for (let i = 0; i < count; i++) {
    const s = i32[feasB + i];
    let ignored = false;
    if (allKeys)
      for (let c = 0; c < nPts; c++)
        if (i32[topoB + i32[at + c * L.PTS_INTS + L.PTS_ROW] * cap + s] === 0) ignored = true;
    f64[scratch + count + i] = ignored ? 1 : 0;
    if (ignored) continue;
    scored++;
    for (let c = 0; c < nPts; c++) {
      const e = at + c * L.PTS_INTS;
      if (i32[e + L.PTS_PER_NODE] !== 0) continue;
      const seen = i32[e + L.PTS_SEEN] + i32[topoB + i32[e + L.PTS_ROW] * cap + s];
      if (u8[seen] === 0) {
        u8[seen] = 1;
        i32[e + L.PTS_SIZE]++;
      }
    }
  }
  // 2. raw scores, their minimum and maximum over the nodes not ignored
  let min = Number.MAX_SAFE_INTEGER;
  let max = 0;
  for (let i = 0; i < count; i++) {
    if (f64[scratch + count + i] !== 0) continue;
    const s = i32[feasB + i];
    let score = 0;
    for (let c = 0; c < nPts; c++) {
      const e = at + c * L.PTS_INTS;
      const cell = i32[topoB + i32[e + L.PTS_ROW] * cap + s];
      if (cell === 0) continue;
      const perNode = i32[e + L.PTS_PER_NODE] !== 0;
      const cnt = f64[(i32[e + L.PTS_COUNTS] >> 3) + (perNode ? s : cell)];
      const w = f64[logB + (perNode ? scored : i32[e + L.PTS_SIZE])];
      score += cnt * w + i32[e + L.PTS_SKEW];
    }
    const r = roundHalfUp(score);
    f64[scratch + i] = r;
    if (r < min) min = r;
    if (r > max) max = r;
  }
  // 3. NormalizeScore, × weight
  for (let i = 0; i < count; i++) {
    let norm: number;
    if (f64[scratch + count + i] !== 0) norm = 0;
    else if (max === 0) norm = MAX_NODE_SCORE;
    else norm = Math.trunc((MAX_NODE_SCORE * (max + min - f64[scratch + i])) / max);
    i32[totalB + i32[feasB + i]] += wPts * norm;
  }
}

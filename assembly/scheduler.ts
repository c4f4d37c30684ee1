// kubesim scheduler kernel: every node-local Filter and Score plugin of kube-scheduler's default
// profile, over the NodeTable's columns, in ONE call per pod. JS twin: src/scheduler/engine/js.ts
// (the readable reference; both must give bit-identical output — test/scheduler/engine/differential).
//
// ============================================================ linear-memory layout
// The memory is IMPORTED (env.memory): src/scheduler/engine/memory.ts owns it and bump-allocates
// every region from HEAP_START; this module has no allocator and allocates nothing.
//
//   [0, 65536)            AssemblyScript static data (this module's data segments)
//   65536 TABLE HEADER    i32[64]; field indices H_* (src/scheduler/engine/layout.ts)
//   69632 …               columns, each a 64-byte-aligned region whose byte address is in the header:
//     ALLOC  f64[RES_CAP][NODE_CAP]   allocatable per resource (0 cpu m, 1 memory B, 2 ephemeral B,
//                                     3 pods count, 4.. extended resources), exact integers in f64
//     REQ    f64[RES_CAP][NODE_CAP]   Σ requests of the node's pods (row 3: number of pods)
//     NZCPU  f64[NODE_CAP]            Σ non-zero milli-CPU (100m for a container with no cpu request)
//     NZMEM  f64[NODE_CAP]            Σ non-zero memory (200Mi default) — LeastAllocated & co.
//     FLAGS  u8[NODE_CAP]             1 live, 2 unschedulable, 4 Ready=True
//     TAINTS u32[NODE_CAP][TAINT_WORDS]  bit t = node has interned taint t (key, value, effect)
//     LABELS i32[KEY_CAP][NODE_CAP]   per interned label key: value id + 1, 0 = label absent
//     IMAGES u32[IMAGE_CAP][NODE_WORDS]  per interned image name: bitset of nodes holding it
//     ORDER  i32[NODE_CAP]            scan order (zone round-robin like upstream nodeTree)
//     TOPO   i32[TOPO_CAP][NODE_CAP]  topology domain id + 1 per registered key (framework use)
//     ALLOCINV f64[RES_CAP][NODE_CAP] 1 / allocatable (0 when 0): exact floor division by
//                                     multiply + one correction step (idivInv), no f64.div per node
//     FREE   f64[RES_CAP][NODE_CAP]   allocatable − requested (exact), kept in step by the table:
//                                     NodeResourcesFit's filter reads one cell per resource
//   query  i32[64] header (Q_*) + arrays (see podquery.ts): taint masks, expressions, terms,
//          request vector, port-conflict node bitset, image ids/scores, fit/balanced resources
//   output i32[16] header (O_*) + STATUS u8[CAP], REASONS u32[CAP], FEASIBLE i32[CAP],
//          RAW i32[5][CAP], NORM i32[5][CAP], TOTAL i32[CAP]
//
// Worked example: 3 nodes, NODE_CAP 32, 1 label key "zone" with values a→0, b→1.
//   LABELS row 0 = [1, 2, 1, 0, …]  (n0 zone=a, n1 zone=b, n2 zone=a)
//   nodeSelector {zone: b} compiles to expression {op OP_EQ, key 0, arg 2}: only n1 passes.
//   A taint dedicated=gpu:NoSchedule interned as t0 on n2: TAINTS[2][0] = 0b1; a pod without a
//   toleration has BLOCK[0] = 0b1, so n2 fails TaintToleration ("node(s) had untolerated taint(s)").
//
// All integer arithmetic follows upstream's int64 semantics on exact-integer f64 values
// (idiv = floor division with a correction step), and the float steps (BalancedAllocation,
// image spread) perform the same IEEE operations in the same order as the JS twin.

// Every header field, flag, op, strategy id, reason bit, status value and score column index
// comes from the one file both compilers read.
import {
  FIT_LEAST_ALLOCATED, FIT_MOST_ALLOCATED, FIT_REQUESTED_TO_CAPACITY_RATIO,
  F_UNSCHEDULABLE, FB_ALL, FB_FIT,
  H_NODE_CAP, H_NODE_WORDS, H_OFF_ALLOC, H_OFF_ALLOCINV, H_OFF_FLAGS, H_OFF_FREE, H_OFF_IMAGES, H_OFF_LABELS,
  H_OFF_NZCPU, H_OFF_NZMEM, H_OFF_ORDER, H_OFF_REQ, H_OFF_TAINTS, H_OFF_TOPO, H_SIZE, H_TAINT_WORDS,
  K_NONZERO_CPU, K_NONZERO_MEM, K_REQUESTED, K_SCALAR, K_SKIP,
  KF_ALL_REASONS, KF_OFF_SHIFT, KF_RAW_ONLY, KF_SKIP_SCORE, KF_TOTAL_ONLY,
  O_BEST, O_BEST_TOTAL, O_CAP, O_EVENT_COUNT, O_EVENTS, O_FEASIBLE_COUNT, O_MAX_EVENTS, O_OFF_FEASIBLE, O_OFF_NORM, O_OFF_RAW, O_OFF_REASONS,
  O_OFF_STATUS, O_OFF_TOTAL, O_TIE_EVENTS,
  OP_EQ, OP_EXISTS, OP_FALSE, OP_IN, OP_NAME_EQ, OP_NAME_NE, OP_NE, OP_NOT_EXISTS, OP_NOT_IN, OP_TRUE,
  Q_BAL_NUM, Q_FIT_NUM, Q_FIT_TYPE, Q_FLAGS, Q_NODE_NAME, Q_NUM_CONTAINERS, Q_NUM_IMAGES, Q_NUM_PREF,
  Q_NUM_REQ, Q_NUM_TERMS, Q_OFF_BAL_KIND, Q_OFF_BAL_REQ, Q_OFF_BAL_RES, Q_OFF_BLOCK, Q_OFF_EXPR,
  Q_OFF_FIT_KIND, Q_OFF_FIT_REQ, Q_OFF_FIT_RES, Q_OFF_FIT_W, Q_OFF_IMG, Q_OFF_IMGSCORE, Q_OFF_PORTS,
  Q_OFF_PREF, Q_OFF_PREFER, Q_OFF_REQ, Q_OFF_REQLIST, Q_OFF_SHAPE_S, Q_OFF_SHAPE_U, Q_OFF_TERMS,
  Q_SEL_COUNT, Q_SEL_START, Q_SHAPE_NUM, Q_W,
  QF_BEST_EFFORT, QF_HAS_PORTS, QF_HAS_PREFER_TAINTS, QF_HAS_REQUIRED, QF_REQ_ZERO, QF_SELECTOR_NEVER,
  QF_TOL_UNSCHEDULABLE,
  R_CPU, R_MEMORY, R_PODS,
  RB_AFFINITY, RB_CROSS_POD, RB_NODE_NAME, RB_PORTS, RB_TAINT, RB_UNSCHEDULABLE, REASON_RESOURCE_BASE,
  PTS_COUNTS, PTS_DOMAINS, PTS_INTS, PTS_PER_NODE, PTS_ROW, PTS_SEEN, PTS_SIZE, PTS_SKEW,
  Q_X_NUM_CHECKS, Q_X_NUM_IPA, Q_X_NUM_PTS, Q_X_OFF_CHECKS, Q_X_OFF_IPA, Q_X_OFF_LOG, Q_X_OFF_PTS,
  Q_X_OFF_SCRATCH, Q_X_PTS_ALL_KEYS, Q_X_W_IPA, Q_X_W_PTS,
  SP_BALANCED_ALLOCATION, SP_IMAGE_LOCALITY, SP_NODE_AFFINITY, SP_NODE_RESOURCES_FIT, SP_TAINT_TOLERATION,
  ST_FEASIBLE, ST_FILTERED,
} from '../src/scheduler/engine/layout';

const MAX_NODE_SCORE: f64 = 100;
const MB: f64 = 1024 * 1024;
const IMAGE_MIN: f64 = 23 * MB;
const IMAGE_MAX_CONTAINER: f64 = 1000 * MB;

// ============================================================ accessors

@inline function hdr(h: usize, field: i32): i32 {
  return load<i32>(h + (<usize>field << 2));
}

@inline function addr(h: usize, field: i32): usize {
  return <usize>load<i32>(h + (<usize>field << 2));
}

@inline function i32At(base: usize, i: i32): i32 {
  return load<i32>(base + (<usize>i << 2));
}

@inline function u32At(base: usize, i: i32): u32 {
  return load<u32>(base + (<usize>i << 2));
}

@inline function f64At(base: usize, i: i32): f64 {
  return load<f64>(base + (<usize>i << 3));
}

/** score column `plugin` (SP_*) of a raw/normalized region of `cap` i32 per plugin */
@inline function column(region: usize, cap: i32, plugin: i32): usize {
  return region + (<usize>(cap * plugin) << 2);
}

@inline function bitAt(base: usize, i: i32): bool {
  return (load<u32>(base + (<usize>(<u32>i >>> 5) << 2)) & (<u32>1 << (<u32>i & 31))) != 0;
}

/** floor(a / b) for exact non-negative integers a < 2^53, b > 0 (Go int64 division) */
@inline function idiv(a: f64, b: f64): f64 {
  let q = floor(a / b);
  if (q * b > a) q -= 1;
  else if ((q + 1) * b <= a) q += 1;
  return q;
}

/** floor(a / b) given inv = 1/b: multiply, then one correction step (exact for quotients < 2^40) */
@inline function idivInv(a: f64, b: f64, inv: f64): f64 {
  let q = floor(a * inv);
  if (q * b > a) q -= 1;
  else if ((q + 1) * b <= a) q += 1;
  return q;
}

/**
 * floor(x / b) for a quotient in [0, 100] and 0 < b < 2^42, given inv = 1/b, WITHOUT a dependent
 * correction step: x·inv is within Q·2.3e-16 ≤ 2.3e-14 of the exact quotient Q, and adding
 * FLOOR_EPS = 1e-13 rounds by at most 7e-15 more, so the sum lies in [Q + 7e-14, Q + 1.3e-13]:
 * above k for an integer Q = k, and below k + 1 for a non-integer Q = k + j/b because
 * 1/b > 1.3e-13. So floor is exact, with a shorter dependency chain than idivInv (the score loop
 * is latency-bound). b ≥ 2^42 (a node with more than 4 TiB of memory) takes idivInv.
 */
const FLOOR_EPS: f64 = 1e-13;
const FLOOR_EPS_MAX_DIVISOR: f64 = 4398046511104; // 2^42

@inline function floorDivSmall(x: f64, b: f64, inv: f64): f64 {
  return b < FLOOR_EPS_MAX_DIVISOR ? floor(x * inv + FLOOR_EPS) : idivInv(x, b, inv);
}

// ============================================================ kernel state for one call

let gCap: i32 = 0;
let gLabels: usize = 0;
let gExpr: usize = 0;

@inline function exprHolds(e: i32, s: i32): bool {
  const at = gExpr + (<usize>e << 4);
  const op = load<i32>(at);
  const arg = load<i32>(at, 8);
  if (op == OP_NAME_EQ) return s == arg;
  if (op == OP_NAME_NE) return s != arg;
  if (op == OP_TRUE) return true;
  if (op == OP_FALSE) return false;
  const v = i32At(gLabels, load<i32>(at, 4) * gCap + s);
  if (op == OP_EQ) return v == arg;
  if (op == OP_NE) return v != arg;
  if (op == OP_EXISTS) return v != 0;
  if (op == OP_NOT_EXISTS) return v == 0;
  if (op == OP_IN) return bitAt(<usize>arg, v);
  return !bitAt(<usize>arg, v); // OP_NOT_IN
}

/** exprHolds for an expression decoded into locals (op, its label key's row, argument) */
@inline function oneHolds(op: i32, row: usize, arg: i32, s: i32): bool {
  if (op == OP_EQ) return load<i32>(row + (<usize>s << 2)) == arg;
  if (op == OP_IN) return bitAt(<usize>arg, load<i32>(row + (<usize>s << 2)));
  if (op == OP_NAME_EQ) return s == arg;
  if (op == OP_NAME_NE) return s != arg;
  if (op == OP_TRUE) return true;
  if (op == OP_FALSE) return false;
  const v = load<i32>(row + (<usize>s << 2));
  if (op == OP_NE) return v != arg;
  if (op == OP_EXISTS) return v != 0;
  if (op == OP_NOT_EXISTS) return v == 0;
  return !bitAt(<usize>arg, v); // OP_NOT_IN
}

/** expression e's op, argument and label row for oneHolds (e < 0: an always-true expression) */
function exprOp(e: i32): i32 {
  return e < 0 ? OP_TRUE : load<i32>(gExpr + (<usize>e << 4));
}

function exprArg(e: i32): i32 {
  return e < 0 ? 0 : load<i32>(gExpr + (<usize>e << 4), 8);
}

function exprRow(e: i32, cap: i32): usize {
  const op = exprOp(e);
  const labelOp = op != OP_NAME_EQ && op != OP_NAME_NE && op != OP_TRUE && op != OP_FALSE;
  return gLabels + (<usize>(labelOp ? load<i32>(gExpr + (<usize>e << 4), 4) * cap : 0) << 2);
}

@inline function allHold(first: i32, count: i32, s: i32): bool {
  for (let e = first; e < first + count; e++) if (!exprHolds(e, s)) return false;
  return true;
}

function brokenLinear(q: usize, p: i32): i32 {
  const num = hdr(q, Q_SHAPE_NUM);
  const u = addr(q, Q_OFF_SHAPE_U);
  const sc = addr(q, Q_OFF_SHAPE_S);
  for (let i = 0; i < num; i++) {
    if (p <= i32At(u, i)) {
      if (i == 0) return i32At(sc, 0);
      const s0 = i32At(sc, i - 1);
      const u0 = i32At(u, i - 1);
      return s0 + ((i32At(sc, i) - s0) * (p - u0)) / (i32At(u, i) - u0);
    }
  }
  return i32At(sc, num - 1);
}

// per-call constants of the score plugins, read once from the query header (not once per node)
let gFitNum: i32 = 0;
let gFitType: i32 = 0;
let gFitRes: usize = 0;
let gFitKind: usize = 0;
let gFitW: usize = 0;
let gFitReq: usize = 0;
let gFitFast: bool = false;
let gFitW0: f64 = 0;
let gFitW1: f64 = 0;
let gFitWs: f64 = 0;
let gFitReq0: f64 = 0;
let gFitReq1: f64 = 0;
let gFitWsInv: f64 = 0;
let gBalNum: i32 = 0;
let gBalRes: usize = 0;
let gBalKind: usize = 0;
let gBalReq: usize = 0;
let gBalFast: bool = false;
let gBalReq0: f64 = 0;
let gBalReq1: f64 = 0;
let gImgNum: i32 = 0;
let gImgIds: usize = 0;
let gImgScores: usize = 0;
let gImgMax: f64 = 0;
let gImgRow0: usize = 0;
let gImgRow1: usize = 0;
let gImgS1: i32 = 0;
let gImgS2: i32 = 0;
let gImgS3: i32 = 0;

function loadScoreConstants(table: usize, q: usize): void {
  gFitNum = hdr(q, Q_FIT_NUM);
  gFitType = hdr(q, Q_FIT_TYPE);
  gFitRes = addr(q, Q_OFF_FIT_RES);
  gFitKind = addr(q, Q_OFF_FIT_KIND);
  gFitW = addr(q, Q_OFF_FIT_W);
  gFitReq = addr(q, Q_OFF_FIT_REQ);
  gFitFast = gFitType == FIT_LEAST_ALLOCATED && gFitNum == 2 && i32At(gFitKind, 0) == K_NONZERO_CPU && i32At(gFitKind, 1) == K_NONZERO_MEM;
  gFitW0 = <f64>i32At(gFitW, 0);
  gFitW1 = gFitNum > 1 ? <f64>i32At(gFitW, 1) : 0;
  gFitWs = gFitW0 + gFitW1;
  gFitReq0 = gFitNum > 0 ? f64At(gFitReq, 0) : 0;
  gFitReq1 = gFitNum > 1 ? f64At(gFitReq, 1) : 0;
  gFitWsInv = gFitWs > 0 ? 1 / gFitWs : 0;
  gBalNum = hdr(q, Q_BAL_NUM);
  gBalRes = addr(q, Q_OFF_BAL_RES);
  gBalKind = addr(q, Q_OFF_BAL_KIND);
  gBalReq = addr(q, Q_OFF_BAL_REQ);
  gBalFast = gBalNum == 2 && i32At(gBalKind, 0) == K_REQUESTED && i32At(gBalRes, 0) == R_CPU && i32At(gBalKind, 1) == K_REQUESTED && i32At(gBalRes, 1) == R_MEMORY;
  gBalReq0 = gBalNum > 0 ? f64At(gBalReq, 0) : 0;
  gBalReq1 = gBalNum > 1 ? f64At(gBalReq, 1) : 0;
  gImgNum = hdr(q, Q_NUM_IMAGES);
  gImgIds = addr(q, Q_OFF_IMG);
  gImgScores = addr(q, Q_OFF_IMGSCORE);
  gImgMax = IMAGE_MAX_CONTAINER * <f64>hdr(q, Q_NUM_CONTAINERS);
  if (gImgNum >= 1 && gImgNum <= 2) {
    const images = addr(table, H_OFF_IMAGES);
    const words = hdr(table, H_NODE_WORDS);
    gImgRow0 = images + (<usize>(i32At(gImgIds, 0) * words) << 2);
    const s0 = f64At(gImgScores, 0);
    gImgS1 = imageScoreOfSum(0 + s0);
    if (gImgNum == 2) {
      gImgRow1 = images + (<usize>(i32At(gImgIds, 1) * words) << 2);
      const s1 = f64At(gImgScores, 1);
      gImgS2 = imageScoreOfSum(0 + s1);
      gImgS3 = imageScoreOfSum(0 + s0 + s1);
    }
  }
}

/** LeastAllocated over exactly [cpu, memory] with non-zero requests (the default profile) */
@inline function fitFast(alloc: usize, inv: usize, nzCpu: usize, nzMem: usize, cap: i32, s: i32): i32 {
  const ac = f64At(alloc, s);
  const am = f64At(alloc, cap + s);
  const rc = gFitReq0 + f64At(nzCpu, s);
  const rm = gFitReq1 + f64At(nzMem, s);
  let ns: f64 = 0;
  let ws: f64 = 0;
  if (ac != 0) { ns += (rc > ac ? 0 : floorDivSmall((ac - rc) * MAX_NODE_SCORE, ac, f64At(inv, s))) * gFitW0; ws += gFitW0; }
  if (am != 0) { ns += (rm > am ? 0 : floorDivSmall((am - rm) * MAX_NODE_SCORE, am, f64At(inv, cap + s))) * gFitW1; ws += gFitW1; }
  if (ws == 0) return 0;
  // both resources allocatable (every real node): the weight sum is a per-call constant
  return <i32>(ws == gFitWs ? floorDivSmall(ns, ws, gFitWsInv) : idiv(ns, ws));
}

/** NodeResourcesFit score, any strategy and resource list */
function fitGeneral(q: usize, alloc: usize, inv: usize, req: usize, nzCpu: usize, nzMem: usize, cap: i32, s: i32): i32 {
  const num = gFitNum;
  const type = gFitType;
  let nodeScore: f64 = 0;
  let weightSum: f64 = 0;
  for (let i = 0; i < num; i++) {
    const kind = i32At(gFitKind, i);
    if (kind == K_SKIP) continue;
    const pod = f64At(gFitReq, i);
    if (kind == K_SCALAR && pod == 0) continue;
    const r = i32At(gFitRes, i);
    const at = r * cap + s;
    const a = f64At(alloc, at);
    if (a == 0) continue;
    const used = kind == K_NONZERO_CPU ? f64At(nzCpu, s) : kind == K_NONZERO_MEM ? f64At(nzMem, s) : f64At(req, at);
    const requested = pod + used;
    const w = <f64>i32At(gFitW, i);
    const ia = f64At(inv, at);
    if (type == FIT_LEAST_ALLOCATED) {
      nodeScore += (requested > a ? 0 : idivInv((a - requested) * MAX_NODE_SCORE, a, ia)) * w;
      weightSum += w;
    } else if (type == FIT_MOST_ALLOCATED) {
      nodeScore += idivInv((requested > a ? a : requested) * MAX_NODE_SCORE, a, ia) * w;
      weightSum += w;
    } else {
      const rs = brokenLinear(q, requested > a ? 100 : <i32>idivInv(requested * 100, a, ia));
      if (rs > 0) {
        nodeScore += <f64>rs * w;
        weightSum += w;
      }
    }
  }
  if (weightSum == 0) return 0;
  if (type == FIT_REQUESTED_TO_CAPACITY_RATIO) return <i32>idiv(2 * nodeScore + weightSum, 2 * weightSum);
  return <i32>idiv(nodeScore, weightSum);
}

/** requested/allocatable of balanced-resource i on node s, or -1 when the resource is skipped */
@inline function balancedFraction(i: i32, alloc: usize, req: usize, cap: i32, s: i32): f64 {
  const kind = i32At(gBalKind, i);
  if (kind == K_SKIP) return -1;
  const pod = f64At(gBalReq, i);
  if (kind == K_SCALAR && pod == 0) return -1;
  const at = i32At(gBalRes, i) * cap + s;
  const a = f64At(alloc, at);
  if (a == 0) return -1;
  let fraction = (f64At(req, at) + pod) / a;
  if (fraction > 1) fraction = 1;
  return fraction;
}

// No scratch memory: the kernel may run in several threads over one shared memory
// (assembly/scheduler_shared.ts), so the fractions are recomputed in a second pass instead of
// being stored — the same IEEE operations, so the same values as the JS twin's array.
/** [cpu, memory] with actual requests (the default); -1 when an allocatable is 0 (general path) */
@inline function balancedFast(alloc: usize, inv: usize, req: usize, cap: i32, s: i32): i32 {
  const ac = f64At(alloc, s);
  const am = f64At(alloc, cap + s);
  if (ac == 0 || am == 0) return -1;
  // multiply by the per-node 1/allocatable instead of dividing: within ~1e-13 of the exact value,
  // so its truncation is exact unless the value lies within 1e-9 of an integer — then (e.g. equal
  // fractions → exactly 100) the IEEE divisions upstream performs decide
  const x0 = f64At(req, s) + gBalReq0;
  const x1 = f64At(req, cap + s) + gBalReq1;
  let g0 = x0 * f64At(inv, s);
  let g1 = x1 * f64At(inv, cap + s);
  if (g0 > 1) g0 = 1;
  if (g1 > 1) g1 = 1;
  const v = (1 - abs<f64>((g0 - g1) / 2)) * MAX_NODE_SCORE;
  const t = trunc<f64>(v);
  if (v - t > 1e-9 && v - t < 1 - 1e-9) return <i32>t;
  return balancedExact2(x0, ac, x1, am);
}

/** std of two fractions = |f0 - f1| / 2, with upstream's IEEE divisions */
function balancedExact2(x0: f64, a0: f64, x1: f64, a1: f64): i32 {
  let f0 = x0 / a0;
  let f1 = x1 / a1;
  if (f0 > 1) f0 = 1;
  if (f1 > 1) f1 = 1;
  return <i32>trunc<f64>((1 - abs<f64>((f0 - f1) / 2)) * MAX_NODE_SCORE);
}

/** NodeResourcesBalancedAllocation, any resource list */
function balancedGeneral(q: usize, alloc: usize, req: usize, cap: i32, s: i32): i32 {
  const num = gBalNum;
  let count = 0;
  let total: f64 = 0;
  let f0: f64 = 0;
  let f1: f64 = 0;
  for (let i = 0; i < num; i++) {
    const fraction = balancedFraction(i, alloc, req, cap, s);
    if (fraction < 0) continue;
    total += fraction;
    if (count == 0) f0 = fraction;
    else if (count == 1) f1 = fraction;
    count++;
  }
  let std: f64 = 0;
  if (count == 2) {
    std = abs<f64>((f0 - f1) / 2);
  } else if (count > 2) {
    const mean = total / <f64>count;
    let sum: f64 = 0;
    for (let i = 0; i < num; i++) {
      const f = balancedFraction(i, alloc, req, cap, s);
      if (f < 0) continue;
      sum = sum + (f - mean) * (f - mean);
    }
    std = sqrt<f64>(sum / <f64>count);
  }
  return <i32>trunc<f64>((1 - std) * MAX_NODE_SCORE);
}

/** ImageLocality's score for a sum of scaled image sizes (clamped, then scaled to 0..100) */
function imageScoreOfSum(sum: f64): i32 {
  if (sum <= IMAGE_MIN) return 0; // clamped to the minimum: (min - min) / span = 0
  const maxT = gImgMax;
  if (sum > maxT) sum = maxT;
  const span = maxT - IMAGE_MIN;
  if (span <= 0) return 0;
  return <i32>idiv(MAX_NODE_SCORE * (sum - IMAGE_MIN), span);
}

@inline function imageScore(q: usize, images: usize, nodeWords: i32, s: i32): i32 {
  const num = gImgNum;
  if (num == 0) return 0; // no pod image on any node: the sum is 0, clamped to the minimum → 0
  const word = <usize>(<u32>s >>> 5) << 2;
  const bit: u32 = <u32>1 << (<u32>s & 31);
  if (num <= 2) {
    // one or two images (nearly every pod): the score depends only on which of them the node
    // holds, so the four possible scores were computed once per call (same sums, same order)
    const m = ((load<u32>(gImgRow0 + word) & bit) != 0 ? 1 : 0) | (num == 2 && (load<u32>(gImgRow1 + word) & bit) != 0 ? 2 : 0);
    return m == 0 ? 0 : m == 1 ? gImgS1 : m == 2 ? gImgS2 : gImgS3;
  }
  return imageGeneral(images, nodeWords, s);
}

function imageGeneral(images: usize, nodeWords: i32, s: i32): i32 {
  const word = <usize>(<u32>s >>> 5) << 2;
  const bit: u32 = <u32>1 << (<u32>s & 31);
  let sum: f64 = 0;
  for (let i = 0; i < gImgNum; i++) {
    const row = images + (<usize>(i32At(gImgIds, i) * nodeWords) << 2);
    if ((load<u32>(row + word) & bit) != 0) sum += f64At(gImgScores, i);
  }
  return imageScoreOfSum(sum);
}

// ============================================================ filters

// per-call filter constants, hoisted out of the node loop into globals: the loop stores to linear
// memory (status, reasons, feasible, scores), and neither Binaryen nor V8 can prove those stores do
// not alias the query, so a query field read inside the loop would be re-loaded for every node
let gQf: i32 = 0;
let gNodeName: i32 = -1;
let gTaintWords: i32 = 0;
let gTaints: usize = 0;
let gBlock: usize = 0;
let gBlock0: u32 = 0;
let gSelStart: i32 = 0;
let gSelCount: i32 = 0;
let gNumTerms: i32 = 0;
let gTerms: usize = 0;
let gAffinity: bool = false;
/** node-local filter plugins the profile does not enable (RB_* bits, FB_FIT), from the call's flags */
let gOff: u32 = 0;
let gAffE1: i32 = -1;
let gAffE2: i32 = -1;
let gPorts: usize = 0;
let gFlagsCol: usize = 0;
let gNumReq: i32 = 0;
let gReqList: usize = 0;
let gQReq: usize = 0;
let gFree: usize = 0;
let gPodsFree: usize = 0;
// the first three requested resources as (free row, pod request, reason bit)
let gRF0: usize = 0; let gRQ0: f64 = 0; let gRB0: u32 = 0;
let gRF1: usize = 0; let gRQ1: f64 = 0; let gRB1: u32 = 0;
let gRF2: usize = 0; let gRQ2: f64 = 0; let gRB2: u32 = 0;

function loadFilterConstants(table: usize, q: usize): void {
  const cap = gCap;
  gQf = hdr(q, Q_FLAGS);
  gNodeName = hdr(q, Q_NODE_NAME);
  gTaintWords = hdr(table, H_TAINT_WORDS);
  gTaints = addr(table, H_OFF_TAINTS);
  gBlock = addr(q, Q_OFF_BLOCK);
  gBlock0 = gTaintWords > 0 ? u32At(gBlock, 0) : 0;
  gSelStart = hdr(q, Q_SEL_START);
  gSelCount = hdr(q, Q_SEL_COUNT);
  gNumTerms = hdr(q, Q_NUM_TERMS);
  gTerms = addr(q, Q_OFF_TERMS);
  gAffinity = gSelCount > 0 || (gQf & (QF_HAS_REQUIRED | QF_SELECTOR_NEVER)) != 0;
  // a required affinity that is a conjunction of one or two expressions (a nodeSelector of one or
  // two labels, one required term of one or two requirements, or one of each — nearly every
  // constrained pod): the expressions are decoded into locals by the filter loop
  gAffE1 = -1;
  gAffE2 = -1;
  const req = (gQf & QF_HAS_REQUIRED) != 0;
  if ((gQf & QF_SELECTOR_NEVER) == 0 && (!req || gNumTerms == 1)) {
    const termCount = req ? i32At(gTerms, 1) : 0;
    if (gSelCount + termCount >= 1 && gSelCount + termCount <= 2) {
      gAffE1 = gSelCount > 0 ? gSelStart : i32At(gTerms, 0);
      if (gSelCount == 2) gAffE2 = gSelStart + 1;
      else if (gSelCount == 1 && termCount == 1) gAffE2 = i32At(gTerms, 0);
      else if (termCount == 2) gAffE2 = i32At(gTerms, 0) + 1;
    }
  }
  gPorts = addr(q, Q_OFF_PORTS);
  gFlagsCol = addr(table, H_OFF_FLAGS);
  gFree = addr(table, H_OFF_FREE);
  gPodsFree = gFree + (<usize>(R_PODS * cap) << 3);
  gNumReq = (gQf & QF_REQ_ZERO) != 0 ? 0 : hdr(q, Q_NUM_REQ);
  gReqList = addr(q, Q_OFF_REQLIST);
  gQReq = addr(q, Q_OFF_REQ);
  for (let k = 0; k < 3; k++) {
    let rf: usize = 0, rq: f64 = 0, rb: u32 = 0;
    if (k < gNumReq) {
      const r = i32At(gReqList, k);
      rf = gFree + (<usize>(r * cap) << 3);
      rq = f64At(gQReq, r);
      rb = <u32>1 << (REASON_RESOURCE_BASE + <u32>r);
    }
    if (k == 0) { gRF0 = rf; gRQ0 = rq; gRB0 = rb; }
    else if (k == 1) { gRF1 = rf; gRQ1 = rq; gRB1 = rb; }
    else { gRF2 = rf; gRQ2 = rq; gRB2 = rb; }
  }
}

@inline function affinityHolds(s: i32): bool {
  if ((gQf & QF_SELECTOR_NEVER) != 0 || !allHold(gSelStart, gSelCount, s)) return false;
  if ((gQf & QF_HAS_REQUIRED) == 0) return true;
  for (let t = 0; t < gNumTerms; t++) {
    if (allHold(i32At(gTerms, t * 2), i32At(gTerms, t * 2 + 1), s)) return true;
  }
  return false;
}

/** NodeResourcesFit: every insufficient resource (pods first, like upstream's fitsRequest) */
@inline function resourceReasons(s: i32): u32 {
  const s8 = <usize>s << 3;
  let reasons: u32 = 0;
  // requested + 1 > allocatable ⟺ 1 > allocatable − requested (exact integers)
  if (1 > load<f64>(gPodsFree + s8)) reasons |= <u32>1 << (REASON_RESOURCE_BASE + R_PODS);
  const num = gNumReq;
  if (num == 0) return reasons;
  if (gRQ0 > load<f64>(gRF0 + s8)) reasons |= gRB0;
  if (num == 1) return reasons;
  if (gRQ1 > load<f64>(gRF1 + s8)) reasons |= gRB1;
  if (num == 2) return reasons;
  if (gRQ2 > load<f64>(gRF2 + s8)) reasons |= gRB2;
  for (let k = 3; k < num; k++) {
    const r = i32At(gReqList, k);
    if (f64At(gQReq, r) > f64At(gFree, r * gCap + s)) reasons |= <u32>1 << (REASON_RESOURCE_BASE + <u32>r);
  }
  return reasons;
}

@inline function taintBlocked(s: i32): bool {
  const words = gTaintWords;
  if (words == 1) return (load<u32>(gTaints + (<usize>s << 2)) & gBlock0) != 0;
  const t = gTaints + (<usize>(s * words) << 2);
  for (let w = 0; w < words; w++) if ((u32At(t, w) & u32At(gBlock, w)) != 0) return true;
  return false;
}

/** The default profile's node-local filters in order; stops at the first failing plugin. */
@inline function filterFirst(s: i32): u32 {
  const off = gOff;
  if ((off & RB_UNSCHEDULABLE) == 0 && (load<u8>(gFlagsCol + <usize>s) & F_UNSCHEDULABLE) != 0 && (gQf & QF_TOL_UNSCHEDULABLE) == 0) return RB_UNSCHEDULABLE;
  if ((off & RB_NODE_NAME) == 0 && gNodeName != -1 && gNodeName != s) return RB_NODE_NAME;
  if ((off & RB_TAINT) == 0 && taintBlocked(s)) return RB_TAINT;
  if ((off & RB_AFFINITY) == 0 && gAffinity && !affinityHolds(s)) return RB_AFFINITY;
  if ((off & RB_PORTS) == 0 && (gQf & QF_HAS_PORTS) != 0 && bitAt(gPorts, s)) return RB_PORTS;
  return (off & FB_FIT) == 0 ? resourceReasons(s) : 0;
}

/** Every enabled filter's verdict (explain, the framework's general path). */
function filterAll(s: i32): u32 {
  const off = gOff;
  let reasons: u32 = 0;
  if ((off & RB_UNSCHEDULABLE) == 0 && (load<u8>(gFlagsCol + <usize>s) & F_UNSCHEDULABLE) != 0 && (gQf & QF_TOL_UNSCHEDULABLE) == 0) reasons |= RB_UNSCHEDULABLE;
  if ((off & RB_NODE_NAME) == 0 && gNodeName != -1 && gNodeName != s) reasons |= RB_NODE_NAME;
  if ((off & RB_TAINT) == 0 && taintBlocked(s)) reasons |= RB_TAINT;
  if ((off & RB_AFFINITY) == 0 && !affinityHolds(s)) reasons |= RB_AFFINITY;
  if ((off & RB_PORTS) == 0 && (gQf & QF_HAS_PORTS) != 0 && bitAt(gPorts, s)) reasons |= RB_PORTS;
  return (off & FB_FIT) == 0 ? reasons | resourceReasons(s) : reasons;
}

// ============================================================ cross-pod plugins
// PodTopologySpread and InterPodAffinity over per-domain arrays the framework computes per cycle
// (src/scheduler/engine/crosspod.ts describes the layout). JS twin: js.ts crossPodFails /
// crossPodTotals.

let gXChecks: i32 = 0;
let gXCheckAt: usize = 0;
let gTopo: usize = 0;

/** a node that passed every node-local filter fails a cross-pod check: verdict[domain cell] == 0 */
@inline function crossPodFails(s: i32): bool {
  for (let k = 0; k < gXChecks; k++) {
    const at = gXCheckAt + (<usize>k << 3);
    const cell = load<i32>(gTopo + (<usize>(load<i32>(at) * gCap + s) << 2));
    if (load<u8>(<usize>load<i32>(at, 4) + <usize>cell) == 0) return true;
  }
  return false;
}

@inline function topoCell(row: i32, s: i32): i32 {
  return load<i32>(gTopo + (<usize>(row * gCap + s) << 2));
}

/** Go's math.Round for x ≥ 0 (half away from zero); f64.nearest would round half to even */
@inline function roundHalfUp(x: f64): f64 {
  const r = floor(x);
  return x - r >= 0.5 ? r + 1 : r;
}

/**
 * InterPodAffinity's and PodTopologySpread's normalized scores × weight added to `total` for the
 * feasible nodes (interpodaffinity/scoring.go and podtopologyspread/scoring.go NormalizeScore).
 */
function crossPodTotals(q: usize, feasible: usize, fc: i32, totalCol: usize): void {
  const scratch = addr(q, Q_X_OFF_SCRATCH);
  const wIpa = hdr(q, Q_X_W_IPA);
  const nIpa = hdr(q, Q_X_NUM_IPA);
  if (wIpa != 0 && nIpa > 0) {
    const at = addr(q, Q_X_OFF_IPA);
    let mn: f64 = Infinity;
    let mx: f64 = -Infinity;
    for (let i = 0; i < fc; i++) {
      const s = i32At(feasible, i);
      let v: f64 = 0;
      for (let k = 0; k < nIpa; k++) {
        const e = at + (<usize>k << 4);
        v += <f64>load<i32>(e, 8) * f64At(<usize>load<i32>(e, 4), topoCell(load<i32>(e), s));
      }
      store<f64>(scratch + (<usize>i << 3), v);
      if (v > mx) mx = v;
      if (v < mn) mn = v;
    }
    const diff = mx - mn;
    for (let i = 0; i < fc; i++) {
      const norm = diff > 0 ? <i32>(MAX_NODE_SCORE * ((f64At(scratch, i) - mn) / diff)) : 0;
      const so = totalCol + (<usize>i32At(feasible, i) << 2);
      store<i32>(so, load<i32>(so) + wIpa * norm);
    }
  }
  const wPts = hdr(q, Q_X_W_PTS);
  const nPts = hdr(q, Q_X_NUM_PTS);
  if (wPts == 0 || nPts == 0) return;
  const at = addr(q, Q_X_OFF_PTS);
  const allKeys = hdr(q, Q_X_PTS_ALL_KEYS) != 0;
  const logs = addr(q, Q_X_OFF_LOG);
  const flags = scratch + (<usize>fc << 3); // 1: ignored node
  // 1. ignored nodes, and the number of domains of each key among the others (PTS_SIZE)
  for (let c = 0; c < nPts; c++) {
    const e = at + (<usize>(c * PTS_INTS) << 2);
    memory.fill(<usize>load<i32>(e, PTS_SEEN << 2), 0, <usize>load<i32>(e, PTS_DOMAINS << 2));
    store<i32>(e, 0, PTS_SIZE << 2);
  }
  let scored = 0;
  for (let i = 0; i < fc; i++) {
    const s = i32At(feasible, i);
    let ignored = false;
    if (allKeys)
      for (let c = 0; c < nPts; c++)
        if (topoCell(load<i32>(at + (<usize>(c * PTS_INTS) << 2), PTS_ROW << 2), s) == 0) ignored = true;
    store<f64>(flags + (<usize>i << 3), ignored ? 1 : 0);
    if (ignored) continue;
    scored++;
    for (let c = 0; c < nPts; c++) {
      const e = at + (<usize>(c * PTS_INTS) << 2);
      if (load<i32>(e, PTS_PER_NODE << 2) != 0) continue;
      const seen = <usize>load<i32>(e, PTS_SEEN << 2) + <usize>topoCell(load<i32>(e, PTS_ROW << 2), s);
      if (load<u8>(seen) == 0) {
        store<u8>(seen, 1);
        store<i32>(e, load<i32>(e, PTS_SIZE << 2) + 1, PTS_SIZE << 2);
      }
    }
  }
  // 2. raw scores, their minimum and maximum over the nodes not ignored
  let mn: f64 = 9007199254740991; // Number.MAX_SAFE_INTEGER
  let mx: f64 = 0;
  for (let i = 0; i < fc; i++) {
    if (f64At(flags, i) != 0) continue;
    const s = i32At(feasible, i);
    let score: f64 = 0;
    for (let c = 0; c < nPts; c++) {
      const e = at + (<usize>(c * PTS_INTS) << 2);
      const cell = topoCell(load<i32>(e, PTS_ROW << 2), s);
      if (cell == 0) continue;
      const perNode = load<i32>(e, PTS_PER_NODE << 2) != 0;
      const cnt = f64At(<usize>load<i32>(e, PTS_COUNTS << 2), perNode ? s : cell);
      const w = f64At(logs, perNode ? scored : load<i32>(e, PTS_SIZE << 2));
      score += cnt * w + <f64>load<i32>(e, PTS_SKEW << 2);
    }
    const r = roundHalfUp(score);
    store<f64>(scratch + (<usize>i << 3), r);
    if (r < mn) mn = r;
    if (r > mx) mx = r;
  }
  // 3. NormalizeScore (reversed by max and min), × weight
  for (let i = 0; i < fc; i++) {
    let norm: i32;
    if (f64At(flags, i) != 0) norm = 0;
    else if (mx == 0) norm = <i32>MAX_NODE_SCORE;
    else norm = <i32>((MAX_NODE_SCORE * (mx + mn - f64At(scratch, i))) / mx);
    const so = totalCol + (<usize>i32At(feasible, i) << 2);
    store<i32>(so, load<i32>(so) + wPts * norm);
  }
}

/** the cross-pod scores, then the best node */
function finishTotals(q: usize, feasible: usize, fc: i32, totalCol: usize, out: usize): void {
  if (hdr(q, Q_X_NUM_IPA) > 0 || hdr(q, Q_X_NUM_PTS) > 0) crossPodTotals(q, feasible, fc, totalCol);
  selectBest(feasible, fc, totalCol, out);
}

// ============================================================ the kernel

// second result of fusedTotals: the number of nodes it listed with a PreferNoSchedule count
let gTaintListed: i32 = 0;

@inline function pairLoad(base: usize, at0: usize, at1: usize): v128 {
  return f64x2.replace_lane(f64x2.splat(load<f64>(base + at0)), 1, load<f64>(base + at1));
}

/** ImageLocality for one or two pod images from the per-call score table (imageScore's fast case) */
@inline function imagePick(row0: usize, row1: usize, two: bool, v1: i32, v2: i32, v3: i32, s: i32): i32 {
  const word = <usize>(<u32>s >>> 5) << 2;
  const bit: u32 = <u32>1 << (<u32>s & 31);
  // selects, not branches: which nodes hold the image is random
  const h0 = (load<u32>(row0 + word) & bit) != 0;
  const h1 = two && (load<u32>(row1 + word) & bit) != 0;
  return select<i32>(select<i32>(v3, v1, h1), select<i32>(v2, 0, h1), h0);
}

/**
 * The default profile in total-only mode, one pass over the feasible list: LeastAllocated and
 * BalancedAllocation over cpu and memory (two nodes per f64x2 step — the same IEEE operations per
 * lane as fitFast/balancedFast), ImageLocality for ≤ 2 pod images, and — when `p0` is non-zero —
 * TaintToleration's PreferNoSchedule count from a one-word taint set. Every constant lives in a
 * local. `base` already holds TaintToleration's 100 × weight: NormalizeScore gives 100 to every
 * node without a counted taint, so only the few counted nodes (listed in `list`, their counts in
 * `rawTaint`) are corrected afterwards. Returns the largest count; gTaintListed the list length.
 */
function fusedTotals(
  alloc: usize, inv: usize, req: usize, nzCpu: usize, nzMem: usize, cap: i32,
  feasible: usize, fc: i32, totalCol: usize, base: i32, wFit: i32, wBal: i32, wImg: i32,
  taints: usize, p0: u32, rawTaint: usize, list: usize, query: usize, images: usize, nodeWords: i32,
): i32 {
  // BalancedAllocation off (weight 0, or a best-effort pod: PreScore skips it)
  const bal = wBal != 0;
  // more than two pod images: the general per-node sum instead of the per-call score table
  const imgGeneral = wImg != 0 && gImgNum > 2;
  const rowM = <usize>cap << 3;
  const zero = f64x2.splat(0);
  const one = f64x2.splat(1);
  const half = f64x2.splat(0.5);
  const hundred = f64x2.splat(MAX_NODE_SCORE);
  const eps = f64x2.splat(FLOOR_EPS);
  const big = f64x2.splat(FLOOR_EPS_MAX_DIVISOR);
  const lo = f64x2.splat(1e-9);
  const hi = f64x2.splat(1 - 1e-9);
  const balReq0 = f64x2.splat(gBalReq0);
  const balReq1 = f64x2.splat(gBalReq1);
  const fitReq0 = f64x2.splat(gFitReq0);
  const fitReq1 = f64x2.splat(gFitReq1);
  const fitW0 = f64x2.splat(gFitW0);
  const fitW1 = f64x2.splat(gFitW1);
  const fitWsInv = f64x2.splat(gFitWsInv);
  const doImg = wImg != 0 && gImgNum > 0 && gImgNum <= 2;
  const two = gImgNum == 2;
  const row0 = gImgRow0;
  const row1 = gImgRow1;
  const img1 = wImg * gImgS1, img2 = wImg * gImgS2, img3 = wImg * gImgS3;
  const doTaint = p0 != 0;
  let listed = 0;
  let maxTaint = 0;
  let i = 0;
  for (; i + 1 < fc; i += 2) {
    const sA = i32At(feasible, i);
    const sB = i32At(feasible, i + 1);
    const a0 = <usize>sA << 3;
    const b0 = <usize>sB << 3;
    const ac = pairLoad(alloc, a0, b0);
    const am = pairLoad(alloc, a0 + rowM, b0 + rowM);
    let fitA: i32, fitB: i32, balA: i32, balB: i32;
    // a zero or ≥ 2^42 allocatable: the scalar path decides
    let simd = !v128.any_true(v128.or(v128.or(f64x2.eq(ac, zero), f64x2.eq(am, zero)), v128.or(f64x2.ge(ac, big), f64x2.ge(am, big))));
    let t = zero;
    let fit = zero;
    if (simd) {
      const ic = pairLoad(inv, a0, b0);
      const im = pairLoad(inv, a0 + rowM, b0 + rowM);
      if (bal) {
        // BalancedAllocation: a value within 1e-9 of an integer goes to the scalar path
        const x0 = f64x2.add(pairLoad(req, a0, b0), balReq0);
        const x1 = f64x2.add(pairLoad(req, a0 + rowM, b0 + rowM), balReq1);
        // pmin (one minpd): the products are finite and non-negative, so min's NaN/-0 rules never apply
        const g0 = f64x2.pmin(f64x2.mul(x0, ic), one);
        const g1 = f64x2.pmin(f64x2.mul(x1, im), one);
        // |g0 - g1| / 2 — multiplying by 0.5 is exact, the same value as the division
        const v = f64x2.mul(f64x2.sub(one, f64x2.abs(f64x2.mul(f64x2.sub(g0, g1), half))), hundred);
        t = f64x2.trunc(v);
        const fr = f64x2.sub(v, t);
        simd = v128.all_true<i64>(v128.and(f64x2.gt(fr, lo), f64x2.lt(fr, hi)));
      }
      // LeastAllocated, floors as floorDivSmall
      const rc = f64x2.add(fitReq0, pairLoad(nzCpu, a0, b0));
      const rm = f64x2.add(fitReq1, pairLoad(nzMem, a0, b0));
      const sc = v128.andnot(f64x2.floor(f64x2.add(f64x2.mul(f64x2.mul(f64x2.sub(ac, rc), hundred), ic), eps)), f64x2.gt(rc, ac));
      const sm = v128.andnot(f64x2.floor(f64x2.add(f64x2.mul(f64x2.mul(f64x2.sub(am, rm), hundred), im), eps)), f64x2.gt(rm, am));
      fit = f64x2.floor(f64x2.add(f64x2.mul(f64x2.add(f64x2.mul(sc, fitW0), f64x2.mul(sm, fitW1)), fitWsInv), eps));
    }
    if (simd) {
      fitA = <i32>f64x2.extract_lane(fit, 0);
      fitB = <i32>f64x2.extract_lane(fit, 1);
      balA = <i32>f64x2.extract_lane(t, 0);
      balB = <i32>f64x2.extract_lane(t, 1);
    } else {
      fitA = fitFast(alloc, inv, nzCpu, nzMem, cap, sA);
      fitB = fitFast(alloc, inv, nzCpu, nzMem, cap, sB);
      balA = 0;
      balB = 0;
      if (bal) {
        balA = balancedFast(alloc, inv, req, cap, sA);
        if (balA < 0) balA = balancedGeneral(query, alloc, req, cap, sA);
        balB = balancedFast(alloc, inv, req, cap, sB);
        if (balB < 0) balB = balancedGeneral(query, alloc, req, cap, sB);
      }
    }
    let totA = base + wFit * fitA + wBal * balA;
    let totB = base + wFit * fitB + wBal * balB;
    if (doImg) {
      totA += imagePick(row0, row1, two, img1, img2, img3, sA);
      totB += imagePick(row0, row1, two, img1, img2, img3, sB);
    } else if (imgGeneral) {
      totA += wImg * imageGeneral(images, nodeWords, sA);
      totB += wImg * imageGeneral(images, nodeWords, sB);
    }
    store<i32>(totalCol + (<usize>sA << 2), totA);
    store<i32>(totalCol + (<usize>sB << 2), totB);
    if (doTaint) {
      const cA = <i32>popcnt<u32>(load<u32>(taints + (<usize>sA << 2)) & p0);
      const cB = <i32>popcnt<u32>(load<u32>(taints + (<usize>sB << 2)) & p0);
      if ((cA | cB) != 0) {
        if (cA != 0) { store<i32>(rawTaint + (<usize>sA << 2), cA); store<i32>(list + (<usize>listed << 2), sA); listed++; if (cA > maxTaint) maxTaint = cA; }
        if (cB != 0) { store<i32>(rawTaint + (<usize>sB << 2), cB); store<i32>(list + (<usize>listed << 2), sB); listed++; if (cB > maxTaint) maxTaint = cB; }
      }
    }
  }
  for (; i < fc; i++) {
    const s = i32At(feasible, i);
    let b = 0;
    if (bal) {
      b = balancedFast(alloc, inv, req, cap, s);
      if (b < 0) b = balancedGeneral(query, alloc, req, cap, s);
    }
    let tot = base + wFit * fitFast(alloc, inv, nzCpu, nzMem, cap, s) + wBal * b;
    if (doImg) tot += imagePick(row0, row1, two, img1, img2, img3, s);
    else if (imgGeneral) tot += wImg * imageGeneral(images, nodeWords, s);
    store<i32>(totalCol + (<usize>s << 2), tot);
    if (doTaint) {
      const c = <i32>popcnt<u32>(load<u32>(taints + (<usize>s << 2)) & p0);
      if (c != 0) { store<i32>(rawTaint + (<usize>s << 2), c); store<i32>(list + (<usize>listed << 2), s); listed++; if (c > maxTaint) maxTaint = c; }
    }
  }
  gTaintListed = listed;
  return maxTaint;
}

/**
 * The node selectHost would pick without a tie: the first feasible node (in examined order) with
 * the highest total, that total, and the number of ties with the running maximum on the way —
 * the random draws selectHost's reservoir sampling makes (0 → `best` is its answer, no draw) —
 * and the positions where the running maximum was reached or raised, for selectHost to replay
 * its draws without a scan (the first O_MAX_EVENTS; O_EVENT_COUNT counts all).
 */
function selectBest(feasible: usize, count: i32, totalCol: usize, out: usize): void {
  let best = i32At(feasible, 0);
  let bestTotal = i32At(totalCol, best);
  let ties = 0;
  let events = 0;
  const ev = out + (<usize>O_EVENTS << 2);
  for (let i = 1; i < count; i++) {
    const s = i32At(feasible, i);
    const t = i32At(totalCol, s);
    if (t < bestTotal) continue;
    if (t > bestTotal) { best = s; bestTotal = t; }
    else ties++;
    if (events < O_MAX_EVENTS) store<i32>(ev + (<usize>events << 2), i);
    events++;
  }
  store<i32>(out + (<usize>O_BEST << 2), best);
  store<i32>(out + (<usize>O_BEST_TOTAL << 2), bestTotal);
  store<i32>(out + (<usize>O_TIE_EVENTS << 2), ties);
  store<i32>(out + (<usize>O_EVENT_COUNT << 2), events);
}

function zeroColumn(feasible: usize, count: i32, col: usize): void {
  for (let i = 0; i < count; i++) store<i32>(col + (<usize>i32At(feasible, i) << 2), 0);
}

// which score accumulate() computes: NodeResourcesFit (LeastAllocated over cpu and memory, or any
// strategy and resource list), BalancedAllocation, ImageLocality
const S_FIT_FAST = 0;
const S_FIT_GENERAL = 1;
const S_BALANCED = 2;
const S_IMAGE = 3;

/**
 * One score plugin over the feasible list. Raw modes (`writeRaw`) store its score in `rawCol`, 0
 * when the plugin does not run (`on` false); total-only adds weight × score to `total`, on top of
 * the partial sum when `acc` (an earlier plugin wrote it), else on top of TaintToleration's
 * constant part. `kind` is a constant at every call site, so each inlined copy keeps only its own
 * score function in the loop. Returns whether `total` now holds a partial sum.
 */
@inline function accumulate(
  kind: i32, on: bool, writeRaw: bool, acc: bool, rawCol: usize, totalCol: usize, weight: i32, constTotal: i32,
  feasible: usize, fc: i32, query: usize, alloc: usize, inv: usize, req: usize, nzCpu: usize, nzMem: usize,
  cap: i32, images: usize, nodeWords: i32,
): bool {
  if (!on) {
    if (writeRaw) zeroColumn(feasible, fc, rawCol);
    return acc;
  }
  const dst = writeRaw ? rawCol : totalCol;
  const w = writeRaw ? 1 : weight;
  const add = !writeRaw && acc;
  const base = writeRaw || acc ? 0 : constTotal;
  for (let i = 0; i < fc; i++) {
    const s = i32At(feasible, i);
    let v: i32;
    if (kind == S_FIT_FAST) v = fitFast(alloc, inv, nzCpu, nzMem, cap, s);
    else if (kind == S_FIT_GENERAL) v = fitGeneral(query, alloc, inv, req, nzCpu, nzMem, cap, s);
    else if (kind == S_BALANCED) {
      v = gBalFast ? balancedFast(alloc, inv, req, cap, s) : -1;
      if (v < 0) v = balancedGeneral(query, alloc, req, cap, s);
    } else v = imageScore(query, images, nodeWords, s);
    const at = dst + (<usize>s << 2);
    store<i32>(at, (add ? load<i32>(at) : base) + w * v);
  }
  return writeRaw ? acc : true;
}

// an expression as "the node fails when its label value is (not) one of up to four values", for
// the four-node filter: members in gMem0..3 (unused: -1, never a label value), gMemFlip -1 when
// the node fails on NO member matching (Eq, DoesNotExist, In), 0 when it fails on a match
let gMem0: i32 = -1;
let gMem1: i32 = -1;
let gMem2: i32 = -1;
let gMem3: i32 = -1;
let gMemFlip: i32 = 0;

@inline function zeroV(): v128 {
  return i32x4.splat(0);
}

/** Decodes label expression e into gMem*; false when it does not fit (name ops, > 4 set members). */
function decodeMembers(e: i32): bool {
  gMem0 = -1; gMem1 = -1; gMem2 = -1; gMem3 = -1;
  const at = gExpr + (<usize>e << 4);
  const op = load<i32>(at);
  const arg = load<i32>(at, 8);
  if (op == OP_EQ || op == OP_NE) { gMem0 = arg; gMemFlip = op == OP_EQ ? -1 : 0; return true; }
  if (op == OP_EXISTS || op == OP_NOT_EXISTS) { gMem0 = 0; gMemFlip = op == OP_NOT_EXISTS ? -1 : 0; return true; }
  if (op != OP_IN && op != OP_NOT_IN) return false;
  gMemFlip = op == OP_IN ? -1 : 0;
  const words = load<i32>(at, 12);
  let count = 0;
  for (let w = 0; w < words; w++) {
    let bits = load<u32>(<usize>arg + (<usize>w << 2));
    while (bits != 0) {
      const v = (w << 5) + <i32>ctz<u32>(bits);
      bits &= bits - 1;
      if (count == 0) gMem0 = v;
      else if (count == 1) gMem1 = v;
      else if (count == 2) gMem2 = v;
      else if (count == 3) gMem3 = v;
      else return false;
      count++;
    }
  }
  return true;
}

// results of filterSimple besides the feasible count
let gProcessed: i32 = 0;

/**
 * The common filter case in a function of its own, every constant a local: first failing plugin
 * only, at most one taint word, at most three requested resources. Fills status/reasons for each
 * node examined and the feasible list; returns the feasible count, gProcessed the nodes examined.
 */
function filterSimple(n: i32, limit: i32, cap: i32, order: usize, taints: usize, status: usize, reasonsCol: usize, feasible: usize, start: i32, toFind: i32, qf: i32, taintWords: i32): i32 {
  // one copy of the loop per affinity shape (the mode is a constant in each inlined copy, so
  // each keeps only the locals it needs — fewer spills in the loop)
  if (!gAffinity) return filterLoop(n, limit, cap, order, taints, status, reasonsCol, feasible, start, toFind, qf, taintWords, 0);
  if (gAffE1 < 0) return filterLoop(n, limit, cap, order, taints, status, reasonsCol, feasible, start, toFind, qf, taintWords, 3);
  if (gAffE2 < 0) return filterLoop(n, limit, cap, order, taints, status, reasonsCol, feasible, start, toFind, qf, taintWords, 1);
  return filterLoop(n, limit, cap, order, taints, status, reasonsCol, feasible, start, toFind, qf, taintWords, 2);
}

/** affMode: 0 no required affinity, 1 one decoded expression, 2 two, 3 the general evaluation */
@inline function filterLoop(n: i32, limit: i32, cap: i32, order: usize, taints: usize, status: usize, reasonsCol: usize, feasible: usize, start: i32, toFind: i32, qf: i32, taintWords: i32, affMode: i32): i32 {
  let pos = start;
  let feasibleCount = 0;
  let processed = 0;
  const flagsCol = gFlagsCol;
  // a pod that tolerates node.kubernetes.io/unschedulable ignores the flag
  const unschedMask: u8 = (qf & QF_TOL_UNSCHEDULABLE) != 0 ? 0 : <u8>F_UNSCHEDULABLE;
  const nodeName = gNodeName;
  const block0 = gBlock0;
  const oneTaintWord = taintWords == 1; // 0: no taint interned yet (no column to read)
  const hasPorts = (qf & QF_HAS_PORTS) != 0;
  const ports = gPorts;
  const podsF = gPodsFree;
  const nReq = gNumReq;
  // unused request slots read the pods row with a zero reason bit (no branch on nReq)
  const rf0 = nReq > 0 ? gRF0 : podsF, rq0 = gRQ0, rb0 = gRB0;
  const rf1 = nReq > 1 ? gRF1 : podsF, rq1 = gRQ1, rb1 = gRB1;
  const rf2 = nReq > 2 ? gRF2 : podsF, rq2 = gRQ2, rb2 = gRB2;
  const podsBit: u32 = <u32>1 << (REASON_RESOURCE_BASE + R_PODS);
  // a one- or two-expression affinity, decoded once (op, label row, argument each)
  const op1 = affMode == 1 || affMode == 2 ? exprOp(gAffE1) : OP_TRUE;
  const arg1 = affMode == 1 || affMode == 2 ? exprArg(gAffE1) : 0;
  const row1 = affMode == 1 || affMode == 2 ? exprRow(gAffE1, cap) : 0;
  const op2 = affMode == 2 ? exprOp(gAffE2) : OP_TRUE;
  const arg2 = affMode == 2 ? exprArg(gAffE2) : 0;
  const row2 = affMode == 2 ? exprRow(gAffE2, cap) : 0;
  // Four nodes at a time (i32x4 / two f64x2 per column) wherever the scan order runs over four
  // consecutive slots — nearly always: nodes join zone by zone round-robin, so the order is mostly
  // slot order — for the checks that vectorize: unschedulable, one taint word, label affinity of
  // up to two expressions that compare the label with at most four values (Eq, Ne, Exists,
  // DoesNotExist, In/NotIn/Gt/Lt with ≤ 4 matching values), resources. Host ports, a spec.nodeName,
  // larger value sets and the last feasible nodes go node by node.
  let quadAff = affMode == 0;
  let m10 = zeroV(), m11 = zeroV(), m12 = zeroV(), m13 = zeroV(), flip1 = zeroV();
  let m20 = zeroV(), m21 = zeroV(), m22 = zeroV(), m23 = zeroV(), flip2 = zeroV();
  if (affMode == 1 || affMode == 2) {
    quadAff = decodeMembers(gAffE1);
    m10 = i32x4.splat(gMem0); m11 = i32x4.splat(gMem1); m12 = i32x4.splat(gMem2); m13 = i32x4.splat(gMem3); flip1 = i32x4.splat(gMemFlip);
    if (affMode == 2) {
      quadAff = quadAff && decodeMembers(gAffE2);
      m20 = i32x4.splat(gMem0); m21 = i32x4.splat(gMem1); m22 = i32x4.splat(gMem2); m23 = i32x4.splat(gMem3); flip2 = i32x4.splat(gMemFlip);
    }
  }
  const quad = !hasPorts && nodeName == -1 && quadAff;
  const iota = i32x4(0, 1, 2, 3);
  const zero = i32x4.splat(0);
  const vFeasible = i32x4.splat(ST_FEASIBLE);
  const vUnschedMask = i32x4.splat(<i32>unschedMask);
  const vBlock0 = i32x4.splat(<i32>block0);
  const vPodsBit = i32x4.splat(<i32>podsBit);
  const vRb0 = i32x4.splat(<i32>rb0), vRb1 = i32x4.splat(<i32>rb1), vRb2 = i32x4.splat(<i32>rb2);
  const vRq0 = f64x2.splat(rq0), vRq1 = f64x2.splat(rq1), vRq2 = f64x2.splat(rq2);
  const fOne = f64x2.splat(1);
  const vAff = i32x4.splat(<i32>RB_AFFINITY), vTaint = i32x4.splat(<i32>RB_TAINT), vUnsched = i32x4.splat(<i32>RB_UNSCHEDULABLE);
  // the cross-pod checks: a node that passes every node-local filter fails with RB_CROSS_POD
  const xpod = gXChecks > 0;
  let i = 0;
  while (i < limit) {
    if (quad && i + 4 <= limit && pos + 4 <= n) {
      const s = i32At(order, pos);
      if (v128.all_true<i32>(i32x4.eq(v128.load(order + (<usize>pos << 2)), i32x4.add(i32x4.splat(s), iota)))) {
        const so = <usize>s << 2;
        const s8 = <usize>s << 3;
        // NodeResourcesFit: two f64x2 compares per resource, narrowed to one i32 mask per node
        let fit = v128.and(v128.shuffle<i32>(f64x2.lt(v128.load(podsF + s8), fOne), f64x2.lt(v128.load(podsF + s8, 16), fOne), 0, 2, 4, 6), vPodsBit);
        fit = v128.or(fit, v128.and(v128.shuffle<i32>(f64x2.gt(vRq0, v128.load(rf0 + s8)), f64x2.gt(vRq0, v128.load(rf0 + s8, 16)), 0, 2, 4, 6), vRb0));
        fit = v128.or(fit, v128.and(v128.shuffle<i32>(f64x2.gt(vRq1, v128.load(rf1 + s8)), f64x2.gt(vRq1, v128.load(rf1 + s8, 16)), 0, 2, 4, 6), vRb1));
        fit = v128.or(fit, v128.and(v128.shuffle<i32>(f64x2.gt(vRq2, v128.load(rf2 + s8)), f64x2.gt(vRq2, v128.load(rf2 + s8, 16)), 0, 2, 4, 6), vRb2));
        let r = fit;
        if (affMode == 1 || affMode == 2) {
          const l1 = v128.load(row1 + so);
          let fail = v128.xor(v128.or(v128.or(i32x4.eq(l1, m10), i32x4.eq(l1, m11)), v128.or(i32x4.eq(l1, m12), i32x4.eq(l1, m13))), flip1);
          if (affMode == 2) {
            const l2 = v128.load(row2 + so);
            fail = v128.or(fail, v128.xor(v128.or(v128.or(i32x4.eq(l2, m20), i32x4.eq(l2, m21)), v128.or(i32x4.eq(l2, m22), i32x4.eq(l2, m23))), flip2));
          }
          r = v128.bitselect(vAff, r, fail);
        }
        if (oneTaintWord) r = v128.bitselect(vTaint, r, v128.not(i32x4.eq(v128.and(v128.load(taints + so), vBlock0), zero)));
        const fl = i32x4.extend_low_i16x8_u(i16x8.extend_low_i8x16_u(v128.load32_zero(flagsCol + <usize>s)));
        r = v128.bitselect(vUnsched, r, v128.not(i32x4.eq(v128.and(fl, vUnschedMask), zero)));
        if (xpod) {
          let x = i32x4.splat(0);
          x = i32x4.replace_lane(x, 0, select<i32>(RB_CROSS_POD, 0, crossPodFails(s)));
          x = i32x4.replace_lane(x, 1, select<i32>(RB_CROSS_POD, 0, crossPodFails(s + 1)));
          x = i32x4.replace_lane(x, 2, select<i32>(RB_CROSS_POD, 0, crossPodFails(s + 2)));
          x = i32x4.replace_lane(x, 3, select<i32>(RB_CROSS_POD, 0, crossPodFails(s + 3)));
          r = v128.bitselect(x, r, i32x4.eq(r, zero));
        }
        const ok = i32x4.eq(r, zero);
        const nOk = <i32>popcnt<u32>(i32x4.bitmask(ok));
        if (feasibleCount + nOk < toFind) {
          // status ST_FEASIBLE (1) or ST_FILTERED (2) per node, as four bytes
          const st = i32x4.sub(vFeasible, v128.not(ok)); // 1 - (-1) = 2 where a check failed
          store<u32>(status + <usize>s, i32x4.extract_lane(i8x16.narrow_i16x8_u(i16x8.narrow_i32x4_u(st, st), zero), 0));
          v128.store(reasonsCol + so, r);
          store<i32>(feasible + (<usize>feasibleCount << 2), s);
          feasibleCount += i32x4.extract_lane(ok, 0) & 1;
          store<i32>(feasible + (<usize>feasibleCount << 2), s + 1);
          feasibleCount += i32x4.extract_lane(ok, 1) & 1;
          store<i32>(feasible + (<usize>feasibleCount << 2), s + 2);
          feasibleCount += i32x4.extract_lane(ok, 2) & 1;
          store<i32>(feasible + (<usize>feasibleCount << 2), s + 3);
          feasibleCount += i32x4.extract_lane(ok, 3) & 1;
          pos += 4;
          if (pos == n) pos = 0;
          i += 4;
          processed = i;
          continue;
        }
        // the window closes inside these four: node by node, to stop at the exact one
      }
    }
    // Branch-free per node: every check is evaluated and the first failing one picked with
    // selects, and the feasible list is appended unconditionally (the slot is overwritten when the
    // node fails). A node fails at random (~30% of the bench cluster: tainted pools, full nodes),
    // so a branch per verdict mispredicted often.
    const s = i32At(order, pos);
    pos++;
    if (pos == n) pos = 0;
    i++;
    processed = i;
    const so = <usize>s << 2;
    const s8 = <usize>s << 3;
    let fit: u32 = select<u32>(podsBit, 0, 1 > load<f64>(podsF + s8));
    fit |= select<u32>(rb0, 0, rq0 > load<f64>(rf0 + s8));
    fit |= select<u32>(rb1, 0, rq1 > load<f64>(rf1 + s8));
    fit |= select<u32>(rb2, 0, rq2 > load<f64>(rf2 + s8));
    let reasons = xpod ? select<u32>(fit, select<u32>(RB_CROSS_POD, 0, crossPodFails(s)), fit != 0) : fit;
    if (hasPorts) reasons = select<u32>(RB_PORTS, reasons, bitAt(ports, s));
    if (affMode == 1) reasons = select<u32>(RB_AFFINITY, reasons, !oneHolds(op1, row1, arg1, s));
    else if (affMode == 2) reasons = select<u32>(RB_AFFINITY, reasons, !(oneHolds(op1, row1, arg1, s) && oneHolds(op2, row2, arg2, s)));
    else if (affMode == 3) reasons = select<u32>(RB_AFFINITY, reasons, !affinityHolds(s));
    if (oneTaintWord) reasons = select<u32>(RB_TAINT, reasons, (load<u32>(taints + so) & block0) != 0);
    if (nodeName != -1) reasons = select<u32>(RB_NODE_NAME, reasons, nodeName != s);
    reasons = select<u32>(RB_UNSCHEDULABLE, reasons, (load<u8>(flagsCol + <usize>s) & unschedMask) != 0);
    store<u8>(status + <usize>s, select<u8>(<u8>ST_FILTERED, <u8>ST_FEASIBLE, reasons != 0));
    store<u32>(reasonsCol + so, reasons);
    store<i32>(feasible + (<usize>feasibleCount << 2), s);
    feasibleCount += <i32>(reasons == 0);
    if (feasibleCount >= toFind) break;
  }
  gProcessed = processed;
  return feasibleCount;
}

/**
 * Filters and scores one pod over the table. `table`, `query` and `out` are byte addresses of the
 * three headers; `start` is the scan-order position to start from, `numToFind` the number of feasible
 * nodes after which to stop (≤ 0: all), `flags` KF_*, `maxNodes` the most nodes to examine (≤ 0:
 * no limit; callers passing six arguments get 0). Returns the number of nodes processed.
 *
 * Output modes (src/scheduler/engine/types.ts FilterScoreOptions.output): by default every raw,
 * normalized and total column; KF_RAW_ONLY writes the raw columns and skips NormalizeScore (the
 * framework normalizes itself); KF_TOTAL_ONLY writes only `total` — the weighted sum is accumulated
 * while scoring, and the NormalizeScore pass runs only when TaintToleration or NodeAffinity can
 * score unevenly (an untolerated PreferNoSchedule taint or a preferred term), reading the two raw
 * columns it needs.
 */
export function filterAndScore(table: usize, query: usize, out: usize, start: i32, numToFind: i32, flags: i32, maxNodes: i32): i32 {
  const n = hdr(table, H_SIZE);
  if (n == 0) {
    store<i32>(out + (<usize>O_FEASIBLE_COUNT << 2), 0);
    return 0;
  }
  const cap = hdr(table, H_NODE_CAP);
  const taintWords = hdr(table, H_TAINT_WORDS);
  const nodeWords = hdr(table, H_NODE_WORDS);
  const alloc = addr(table, H_OFF_ALLOC);
  const allocInv = addr(table, H_OFF_ALLOCINV);
  const req = addr(table, H_OFF_REQ);
  const nzCpu = addr(table, H_OFF_NZCPU);
  const nzMem = addr(table, H_OFF_NZMEM);
  const taints = addr(table, H_OFF_TAINTS);
  const images = addr(table, H_OFF_IMAGES);
  const order = addr(table, H_OFF_ORDER);
  gCap = cap;
  gLabels = addr(table, H_OFF_LABELS);
  gExpr = addr(query, Q_OFF_EXPR);
  gTopo = addr(table, H_OFF_TOPO);
  gXChecks = hdr(query, Q_X_NUM_CHECKS);
  gXCheckAt = addr(query, Q_X_OFF_CHECKS);
  loadScoreConstants(table, query);
  loadFilterConstants(table, query);

  const qf = gQf;
  const prefer = addr(query, Q_OFF_PREFER);
  const numPref = hdr(query, Q_NUM_PREF);
  const prefs = addr(query, Q_OFF_PREF);
  const wTaint = hdr(query, Q_W + SP_TAINT_TOLERATION);
  const wAff = hdr(query, Q_W + SP_NODE_AFFINITY);
  const wFit = hdr(query, Q_W + SP_NODE_RESOURCES_FIT);
  const wBal = hdr(query, Q_W + SP_BALANCED_ALLOCATION);
  const wImg = hdr(query, Q_W + SP_IMAGE_LOCALITY);

  const ocap = hdr(out, O_CAP);
  const status = addr(out, O_OFF_STATUS);
  const reasonsCol = addr(out, O_OFF_REASONS);
  const feasible = addr(out, O_OFF_FEASIBLE);
  const raw = addr(out, O_OFF_RAW);
  const norm = addr(out, O_OFF_NORM);
  const totalCol = addr(out, O_OFF_TOTAL);
  const rawTaint = column(raw, ocap, SP_TAINT_TOLERATION);
  const rawAff = column(raw, ocap, SP_NODE_AFFINITY);
  const rawFit = column(raw, ocap, SP_NODE_RESOURCES_FIT);
  const rawBal = column(raw, ocap, SP_BALANCED_ALLOCATION);
  const rawImg = column(raw, ocap, SP_IMAGE_LOCALITY);

  const allReasons = (flags & KF_ALL_REASONS) != 0;
  const skipScore = (flags & KF_SKIP_SCORE) != 0;
  gOff = <u32>(flags >> KF_OFF_SHIFT) & FB_ALL;
  // every filter disabled (a profile without node-local filters): every examined node is feasible
  const noFilters = gOff == FB_ALL;
  const totalOnly = (flags & KF_TOTAL_ONLY) != 0;
  const writeRaw = !totalOnly;
  const normalize = (flags & KF_RAW_ONLY) == 0;
  // which score plugins run at all, and which need the NormalizeScore pass
  const doTaint = wTaint != 0 && (qf & QF_HAS_PREFER_TAINTS) != 0;
  const doAff = wAff != 0 && numPref > 0;
  const doFit = wFit != 0;
  const doBal = wBal != 0 && (qf & QF_BEST_EFFORT) == 0;
  const doImg = wImg != 0 && gImgNum > 0;
  // total-only: TaintToleration normalizes to 100 on every node when no taint counts
  const constTotal = wTaint != 0 && !doTaint ? wTaint * 100 : 0;
  const toFind = numToFind <= 0 ? n : numToFind;
  // examine at most maxNodes nodes (≤ 0: no limit) — e.g. exactly one node for a what-if check
  const limit = maxNodes <= 0 || maxNodes > n ? n : maxNodes;
  let pos = start % n;
  if (pos < 0) pos += n;

  let feasibleCount = 0;
  let processed = 0;
  // the common case in a loop of its own whose constants are locals (registers), not globals
  const simple = !allReasons && gOff == 0 && taintWords <= 1 && gNumReq <= 3;
  if (simple) {
    feasibleCount = filterSimple(n, limit, cap, order, taints, status, reasonsCol, feasible, pos, toFind, qf, taintWords);
    processed = gProcessed;
  } else for (let i = 0; i < limit; i++) {
    const s = i32At(order, pos);
    pos++;
    if (pos == n) pos = 0;
    processed = i + 1;
    let reasons: u32 = noFilters ? 0 : allReasons ? filterAll(s) : filterFirst(s);
    if (reasons == 0 && gXChecks > 0 && crossPodFails(s)) reasons = RB_CROSS_POD;
    const so = <usize>s << 2;
    if (reasons != 0) {
      store<u8>(status + <usize>s, <u8>ST_FILTERED);
      store<u32>(reasonsCol + so, reasons);
      continue;
    }
    store<u8>(status + <usize>s, <u8>ST_FEASIBLE);
    store<u32>(reasonsCol + so, 0);
    store<i32>(feasible + (<usize>feasibleCount << 2), s);
    feasibleCount++;
    if (feasibleCount >= toFind) break;
  }
  store<i32>(out + (<usize>O_FEASIBLE_COUNT << 2), feasibleCount);
  if (skipScore || feasibleCount == 0) return processed;

  // Scores, one plugin at a time over the feasible list (column at a time: each loop is small
  // enough for the engine to keep its constants in registers). Raw modes store each plugin's
  // score in its raw column (0 when the plugin does not run); total-only accumulates
  // weight × score into `total`, starting from the constant TaintToleration part.
  const fc = feasibleCount;
  let acc = false; // total-only: whether `total` already holds a partial sum
  // the default profile in total-only mode: LeastAllocated + BalancedAllocation over cpu and
  // memory, ImageLocality and the PreferNoSchedule count in ONE loop — they read the same
  // allocatable and 1/allocatable cells
  const fused = !writeRaw && doFit && gFitFast && (!doBal || gBalFast);
  const fusedTaint = fused && doTaint && taintWords == 1;
  let taintListed = 0;
  let fusedMaxTaint = 0;
  if ((writeRaw || doTaint) && !fusedTaint) {
    if (doTaint && taintWords == 1) {
      const p0 = load<u32>(prefer);
      for (let i = 0; i < fc; i++) {
        const s = i32At(feasible, i);
        store<i32>(rawTaint + (<usize>s << 2), <i32>popcnt<u32>(load<u32>(taints + (<usize>s << 2)) & p0));
      }
    } else if (doTaint) {
      for (let i = 0; i < fc; i++) {
        const s = i32At(feasible, i);
        const t = taints + (<usize>(s * taintWords) << 2);
        let cnt = 0;
        for (let w = 0; w < taintWords; w++) cnt += <i32>popcnt<u32>(u32At(t, w) & u32At(prefer, w));
        store<i32>(rawTaint + (<usize>s << 2), cnt);
      }
    } else zeroColumn(feasible, fc, rawTaint);
  }
  // total-only with ONE preferred term: its raw score is its weight or 0, so NormalizeScore gives
  // exactly 100 to the matching nodes and 0 to the others (max = weight whenever any node matches)
  // — added to the totals in one pass below, without the raw column or a normalize pass
  const affSingle = totalOnly && doAff && numPref == 1;
  if ((writeRaw || doAff) && !affSingle) {
    if (doAff) {
      for (let i = 0; i < fc; i++) {
        const s = i32At(feasible, i);
        let aff = 0;
        for (let p = 0; p < numPref; p++) {
          const at = prefs + (<usize>p << 4);
          if (allHold(load<i32>(at), load<i32>(at, 4), s)) aff += load<i32>(at, 8);
        }
        store<i32>(rawAff + (<usize>s << 2), aff);
      }
    } else zeroColumn(feasible, fc, rawAff);
  }
  if (fused) {
    // the taint-count list goes to the NORM region, which total-only mode does not write
    fusedMaxTaint = fusedTotals(alloc, allocInv, req, nzCpu, nzMem, cap, feasible, fc, totalCol,
      constTotal + (fusedTaint ? wTaint * 100 : 0), wFit, doBal ? wBal : 0, doImg ? wImg : 0,
      taints, fusedTaint ? load<u32>(prefer) : 0, rawTaint, norm, query, images, nodeWords);
    taintListed = gTaintListed;
    acc = true;
  }
  if (!fused) {
    const fitKind = gFitFast ? S_FIT_FAST : S_FIT_GENERAL;
    acc = accumulate(fitKind, doFit, writeRaw, acc, rawFit, totalCol, wFit, constTotal, feasible, fc, query, alloc, allocInv, req, nzCpu, nzMem, cap, images, nodeWords);
    acc = accumulate(S_BALANCED, doBal, writeRaw, acc, rawBal, totalCol, wBal, constTotal, feasible, fc, query, alloc, allocInv, req, nzCpu, nzMem, cap, images, nodeWords);
    acc = accumulate(S_IMAGE, doImg, writeRaw, acc, rawImg, totalCol, wImg, constTotal, feasible, fc, query, alloc, allocInv, req, nzCpu, nzMem, cap, images, nodeWords);
  }
  if (!writeRaw && !acc) {
    for (let i = 0; i < fc; i++) store<i32>(totalCol + (<usize>i32At(feasible, i) << 2), constTotal);
  }
  if (!normalize) return processed;
  if (affSingle) {
    const first = load<i32>(prefs), count = load<i32>(prefs, 4);
    const add = wAff * 100;
    if (count == 1) {
      const op = exprOp(first), arg = exprArg(first), row = exprRow(first, cap);
      for (let i = 0; i < fc; i++) {
        const so = <usize>i32At(feasible, i) << 2;
        store<i32>(totalCol + so, load<i32>(totalCol + so) + select<i32>(add, 0, oneHolds(op, row, arg, <i32>(so >> 2))));
      }
    } else {
      for (let i = 0; i < fc; i++) {
        const s = i32At(feasible, i);
        const so = <usize>s << 2;
        store<i32>(totalCol + so, load<i32>(totalCol + so) + select<i32>(add, 0, allHold(first, count, s)));
      }
    }
  }
  if (fusedTaint) {
    // TaintToleration's NormalizeScore for the listed nodes: 100 × weight is already in, take
    // back weight × ⌊100·count/max⌋ (upstream's reversed DefaultNormalizeScore)
    const inv: f64 = fusedMaxTaint == 0 ? 0 : 1 / <f64>fusedMaxTaint;
    for (let i = 0; i < taintListed; i++) {
      const so = <usize>i32At(norm, i) << 2;
      const cut = <i32>idivInv(MAX_NODE_SCORE * <f64>load<i32>(rawTaint + so), <f64>fusedMaxTaint, inv);
      store<i32>(totalCol + so, load<i32>(totalCol + so) - wTaint * cut);
    }
  }
  if (totalOnly && (fusedTaint || !doTaint) && (!doAff || affSingle)) { finishTotals(query, feasible, feasibleCount, totalCol, out); return processed; }

  // NormalizeScore of TaintToleration (reversed) and NodeAffinity over the feasible set
  let maxTaint = 0;
  let maxAff = 0;
  for (let i = 0; i < feasibleCount; i++) {
    const so = <usize>i32At(feasible, i) << 2;
    if (doTaint && !fusedTaint) { const t = load<i32>(rawTaint + so); if (t > maxTaint) maxTaint = t; }
    if (doAff && !affSingle) { const a = load<i32>(rawAff + so); if (a > maxAff) maxAff = a; }
  }
  const invMaxTaint: f64 = maxTaint == 0 ? 0 : 1 / <f64>maxTaint;
  const invMaxAff: f64 = maxAff == 0 ? 0 : 1 / <f64>maxAff;
  if (totalOnly) {
    for (let i = 0; i < feasibleCount; i++) {
      const so = <usize>i32At(feasible, i) << 2;
      let add = 0;
      if (doTaint && !fusedTaint) add += wTaint * (maxTaint == 0 ? 100 : 100 - <i32>idivInv(MAX_NODE_SCORE * <f64>load<i32>(rawTaint + so), <f64>maxTaint, invMaxTaint));
      if (doAff && maxAff != 0) add += wAff * <i32>idivInv(MAX_NODE_SCORE * <f64>load<i32>(rawAff + so), <f64>maxAff, invMaxAff);
      store<i32>(totalCol + so, load<i32>(totalCol + so) + add);
    }
    finishTotals(query, feasible, feasibleCount, totalCol, out);
    return processed;
  }
  const normTaint = column(norm, ocap, SP_TAINT_TOLERATION);
  const normAff = column(norm, ocap, SP_NODE_AFFINITY);
  const normFit = column(norm, ocap, SP_NODE_RESOURCES_FIT);
  const normBal = column(norm, ocap, SP_BALANCED_ALLOCATION);
  const normImg = column(norm, ocap, SP_IMAGE_LOCALITY);
  for (let i = 0; i < feasibleCount; i++) {
    const so = <usize>i32At(feasible, i) << 2;
    const t = maxTaint == 0 ? 100 : 100 - <i32>idivInv(MAX_NODE_SCORE * <f64>load<i32>(rawTaint + so), <f64>maxTaint, invMaxTaint);
    const a = maxAff == 0 ? 0 : <i32>idivInv(MAX_NODE_SCORE * <f64>load<i32>(rawAff + so), <f64>maxAff, invMaxAff);
    const f = load<i32>(rawFit + so);
    const b = load<i32>(rawBal + so);
    const im = load<i32>(rawImg + so);
    store<i32>(normTaint + so, wTaint == 0 ? 0 : t);
    store<i32>(normAff + so, a);
    store<i32>(normFit + so, f);
    store<i32>(normBal + so, b);
    store<i32>(normImg + so, im);
    store<i32>(totalCol + so, (wTaint == 0 ? 0 : wTaint * t) + wAff * a + wFit * f + wBal * b + wImg * im);
  }
  finishTotals(query, feasible, feasibleCount, totalCol, out);
  return processed;
}

/** First byte after this module's static data; the JS allocator must start above it. */
export function heapBase(): usize {
  return __heap_base;
}

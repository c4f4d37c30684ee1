// kubesim scheduler kernel: every node-local Filter and Score plugin of kube-scheduler's default
// profile, over the NodeTable's columns, in ONE call per pod. JS twin: src/scheduler/kernels/js.ts
// (the readable reference; both must give bit-identical output — test/scheduler/kernels/differential).
//
// ============================================================ linear-memory layout
// The memory is IMPORTED (env.memory): src/scheduler/nodetable/memory.ts owns it and bump-allocates
// every region from HEAP_START; this module has no allocator and allocates nothing.
//
//   [0, 65536)            AssemblyScript static data (this module's data segments)
//   65536 TABLE HEADER    i32[64]; field indices H_* (src/scheduler/nodetable/layout.ts)
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

// ---- table header
const H_NODE_CAP = 0;
const H_SIZE = 1;
const H_TAINT_WORDS = 4;
const H_NODE_WORDS = 6;
const H_OFF_ALLOC = 16;
const H_OFF_REQ = 17;
const H_OFF_NZCPU = 18;
const H_OFF_NZMEM = 19;
const H_OFF_FLAGS = 20;
const H_OFF_TAINTS = 21;
const H_OFF_LABELS = 22;
const H_OFF_IMAGES = 23;
const H_OFF_ORDER = 24;
const H_OFF_ALLOCINV = 26;

const F_UNSCHEDULABLE: u8 = 2;
const R_CPU = 0;
const R_MEMORY = 1;
const R_PODS = 3;

// ---- query header
const Q_FLAGS = 0;
const Q_NODE_NAME = 1;
const Q_TAINT_WORDS = 2;
const Q_SEL_START = 3;
const Q_SEL_COUNT = 4;
const Q_NUM_TERMS = 5;
const Q_NUM_PREF = 6;
const Q_NUM_REQ = 7;
const Q_NUM_IMAGES = 8;
const Q_NUM_CONTAINERS = 9;
const Q_FIT_TYPE = 10;
const Q_FIT_NUM = 11;
const Q_SHAPE_NUM = 12;
const Q_BAL_NUM = 13;
const Q_W = 14;
const Q_OFF_BLOCK = 20;
const Q_OFF_PREFER = 21;
const Q_OFF_EXPR = 22;
const Q_OFF_TERMS = 23;
const Q_OFF_PREF = 24;
const Q_OFF_REQ = 25;
const Q_OFF_REQLIST = 26;
const Q_OFF_PORTS = 27;
const Q_OFF_IMG = 28;
const Q_OFF_IMGSCORE = 29;
const Q_OFF_FIT_RES = 30;
const Q_OFF_FIT_KIND = 31;
const Q_OFF_FIT_W = 32;
const Q_OFF_FIT_REQ = 33;
const Q_OFF_SHAPE_U = 34;
const Q_OFF_SHAPE_S = 35;
const Q_OFF_BAL_RES = 36;
const Q_OFF_BAL_KIND = 37;
const Q_OFF_BAL_REQ = 38;

const QF_TOL_UNSCHEDULABLE = 1;
const QF_HAS_REQUIRED = 2;
const QF_HAS_PORTS = 4;
const QF_REQ_ZERO = 8;
const QF_BEST_EFFORT = 16;
const QF_SELECTOR_NEVER = 32;
const QF_HAS_PREFER_TAINTS = 64;

const OP_EXISTS = 0;
const OP_NOT_EXISTS = 1;
const OP_IN = 2;
const OP_NOT_IN = 3;
const OP_NAME_EQ = 4;
const OP_NAME_NE = 5;
const OP_TRUE = 6;
const OP_FALSE = 7;
const OP_EQ = 8;
const OP_NE = 9;

const K_SKIP = -1;
const K_NONZERO_CPU = 0;
const K_NONZERO_MEM = 1;
const K_REQUESTED = 2;
const K_SCALAR = 3;

// ---- output header
const O_CAP = 0;
const O_FEASIBLE_COUNT = 1;
const O_OFF_STATUS = 2;
const O_OFF_REASONS = 3;
const O_OFF_FEASIBLE = 4;
const O_OFF_RAW = 5;
const O_OFF_NORM = 6;
const O_OFF_TOTAL = 7;

const KF_ALL_REASONS = 1;
const KF_SKIP_SCORE = 2;
const KF_IGNORE_FILTERS = 4;

// ---- reasons (src/scheduler/kernels/types.ts ReasonBit)
const RB_UNSCHEDULABLE: u32 = 1;
const RB_NODE_NAME: u32 = 2;
const RB_TAINT: u32 = 4;
const RB_AFFINITY: u32 = 8;
const RB_PORTS: u32 = 16;
const REASON_RESOURCE_BASE: u32 = 8;

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
let gBalNum: i32 = 0;
let gBalRes: usize = 0;
let gBalKind: usize = 0;
let gBalReq: usize = 0;
let gBalFast: bool = false;
let gImgNum: i32 = 0;
let gImgIds: usize = 0;
let gImgScores: usize = 0;
let gImgMax: f64 = 0;

function loadScoreConstants(q: usize): void {
  gFitNum = hdr(q, Q_FIT_NUM);
  gFitType = hdr(q, Q_FIT_TYPE);
  gFitRes = addr(q, Q_OFF_FIT_RES);
  gFitKind = addr(q, Q_OFF_FIT_KIND);
  gFitW = addr(q, Q_OFF_FIT_W);
  gFitReq = addr(q, Q_OFF_FIT_REQ);
  gFitFast = gFitType == 0 && gFitNum == 2 && i32At(gFitKind, 0) == K_NONZERO_CPU && i32At(gFitKind, 1) == K_NONZERO_MEM;
  gFitW0 = <f64>i32At(gFitW, 0);
  gFitW1 = gFitNum > 1 ? <f64>i32At(gFitW, 1) : 0;
  gBalNum = hdr(q, Q_BAL_NUM);
  gBalRes = addr(q, Q_OFF_BAL_RES);
  gBalKind = addr(q, Q_OFF_BAL_KIND);
  gBalReq = addr(q, Q_OFF_BAL_REQ);
  gBalFast = gBalNum == 2 && i32At(gBalKind, 0) == K_REQUESTED && i32At(gBalRes, 0) == R_CPU && i32At(gBalKind, 1) == K_REQUESTED && i32At(gBalRes, 1) == R_MEMORY;
  gImgNum = hdr(q, Q_NUM_IMAGES);
  gImgIds = addr(q, Q_OFF_IMG);
  gImgScores = addr(q, Q_OFF_IMGSCORE);
  gImgMax = IMAGE_MAX_CONTAINER * <f64>hdr(q, Q_NUM_CONTAINERS);
}

@inline function fitScore(q: usize, alloc: usize, inv: usize, req: usize, nzCpu: usize, nzMem: usize, cap: i32, s: i32): i32 {
  if (gFitFast) {
    // LeastAllocated over exactly [cpu, memory] with non-zero requests (the default profile)
    const ac = f64At(alloc, s);
    const am = f64At(alloc, cap + s);
    const rc = f64At(gFitReq, 0) + f64At(nzCpu, s);
    const rm = f64At(gFitReq, 1) + f64At(nzMem, s);
    let ns: f64 = 0;
    let ws: f64 = 0;
    if (ac != 0) { ns += (rc > ac ? 0 : idivInv((ac - rc) * MAX_NODE_SCORE, ac, f64At(inv, s))) * gFitW0; ws += gFitW0; }
    if (am != 0) { ns += (rm > am ? 0 : idivInv((am - rm) * MAX_NODE_SCORE, am, f64At(inv, cap + s))) * gFitW1; ws += gFitW1; }
    if (ws == 0) return 0;
    return <i32>idiv(ns, ws);
  }
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
    if (type == 0) {
      nodeScore += (requested > a ? 0 : idivInv((a - requested) * MAX_NODE_SCORE, a, ia)) * w;
      weightSum += w;
    } else if (type == 1) {
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
  if (type == 2) return <i32>idiv(2 * nodeScore + weightSum, 2 * weightSum);
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
@inline function balancedScore(q: usize, alloc: usize, req: usize, cap: i32, s: i32): i32 {
  if (gBalFast) {
    // [cpu, memory] with actual requests (the default): std of two fractions = |f0 - f1| / 2
    const ac = f64At(alloc, s);
    const am = f64At(alloc, cap + s);
    if (ac != 0 && am != 0) {
      let f0 = (f64At(req, s) + f64At(gBalReq, 0)) / ac;
      let f1 = (f64At(req, cap + s) + f64At(gBalReq, 1)) / am;
      if (f0 > 1) f0 = 1;
      if (f1 > 1) f1 = 1;
      return <i32>trunc<f64>((1 - abs<f64>((f0 - f1) / 2)) * MAX_NODE_SCORE);
    }
    // a zero allocatable: fall through to the general loop
  }
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

@inline function imageScore(q: usize, images: usize, nodeWords: i32, s: i32): i32 {
  const num = gImgNum;
  if (num == 0) return 0; // no pod image on any node: the sum is 0, clamped to the minimum → 0
  const ids = gImgIds;
  const sc = gImgScores;
  let sum: f64 = 0;
  const word = <u32>s >>> 5;
  const bit: u32 = <u32>1 << (<u32>s & 31);
  for (let i = 0; i < num; i++) {
    const row = images + (<usize>(i32At(ids, i) * nodeWords) << 2);
    if ((load<u32>(row + (<usize>word << 2)) & bit) != 0) sum += f64At(sc, i);
  }
  if (sum <= IMAGE_MIN) return 0; // clamped to the minimum: (min - min) / span = 0
  const maxT = gImgMax;
  if (sum > maxT) sum = maxT;
  const span = maxT - IMAGE_MIN;
  if (span <= 0) return 0;
  return <i32>idiv(MAX_NODE_SCORE * (sum - IMAGE_MIN), span);
}

/**
 * Filters and scores one pod over the table. `table`, `query` and `out` are byte addresses of the
 * three headers; `start` is the scan-order position to start from, `numToFind` the number of feasible
 * nodes after which to stop (≤ 0: all), `flags` KF_*. Returns the number of nodes processed.
 */
export function filterAndScore(table: usize, query: usize, out: usize, start: i32, numToFind: i32, flags: i32): i32 {
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
  const flagsCol = addr(table, H_OFF_FLAGS);
  const taints = addr(table, H_OFF_TAINTS);
  const images = addr(table, H_OFF_IMAGES);
  const order = addr(table, H_OFF_ORDER);
  gCap = cap;
  gLabels = addr(table, H_OFF_LABELS);
  gExpr = addr(query, Q_OFF_EXPR);
  loadScoreConstants(query);

  const qf = hdr(query, Q_FLAGS);
  const qNodeName = hdr(query, Q_NODE_NAME);
  const block = addr(query, Q_OFF_BLOCK);
  const prefer = addr(query, Q_OFF_PREFER);
  const selStart = hdr(query, Q_SEL_START);
  const selCount = hdr(query, Q_SEL_COUNT);
  const numTerms = hdr(query, Q_NUM_TERMS);
  const terms = addr(query, Q_OFF_TERMS);
  const numPref = hdr(query, Q_NUM_PREF);
  const prefs = addr(query, Q_OFF_PREF);
  const qReq = addr(query, Q_OFF_REQ);
  const numReq = hdr(query, Q_NUM_REQ);
  const reqList = addr(query, Q_OFF_REQLIST);
  const ports = addr(query, Q_OFF_PORTS);
  const wTaint = hdr(query, Q_W);
  const wAff = hdr(query, Q_W + 1);
  const wFit = hdr(query, Q_W + 2);
  const wBal = hdr(query, Q_W + 3);
  const wImg = hdr(query, Q_W + 4);

  const ocap = hdr(out, O_CAP);
  const status = addr(out, O_OFF_STATUS);
  const reasonsCol = addr(out, O_OFF_REASONS);
  const feasible = addr(out, O_OFF_FEASIBLE);
  const raw = addr(out, O_OFF_RAW);
  const norm = addr(out, O_OFF_NORM);
  const totalCol = addr(out, O_OFF_TOTAL);
  const rawTaint = raw;
  const rawAff = raw + (<usize>ocap << 2);
  const rawFit = raw + (<usize>ocap << 3);
  const rawBal = raw + (<usize>ocap * 12);
  const rawImg = raw + (<usize>ocap << 4);

  const allReasons = (flags & KF_ALL_REASONS) != 0;
  const skipScore = (flags & KF_SKIP_SCORE) != 0;
  const ignoreFilters = (flags & KF_IGNORE_FILTERS) != 0;
  const toFind = numToFind <= 0 ? n : numToFind;
  let pos = start % n;
  if (pos < 0) pos += n;

  let feasibleCount = 0;
  let processed = 0;
  const podsRow = alloc + (<usize>(R_PODS * cap) << 3);
  const podsReqRow = req + (<usize>(R_PODS * cap) << 3);
  for (let i = 0; i < n; i++) {
    const s = i32At(order, pos);
    pos++;
    if (pos == n) pos = 0;
    processed = i + 1;
    let reasons: u32 = 0;
    if (!ignoreFilters) {
      // NodeUnschedulable
      if ((load<u8>(flagsCol + <usize>s) & F_UNSCHEDULABLE) != 0 && (qf & QF_TOL_UNSCHEDULABLE) == 0) reasons |= RB_UNSCHEDULABLE;
      // NodeName
      if ((reasons == 0 || allReasons) && qNodeName != -1 && qNodeName != s) reasons |= RB_NODE_NAME;
      // TaintToleration
      if (reasons == 0 || allReasons) {
        const t = taints + (<usize>(s * taintWords) << 2);
        for (let w = 0; w < taintWords; w++) {
          if ((u32At(t, w) & u32At(block, w)) != 0) {
            reasons |= RB_TAINT;
            break;
          }
        }
      }
      // NodeAffinity
      if (reasons == 0 || allReasons) {
        let ok = (qf & QF_SELECTOR_NEVER) == 0 && allHold(selStart, selCount, s);
        if (ok && (qf & QF_HAS_REQUIRED) != 0) {
          ok = false;
          for (let t = 0; t < numTerms; t++) {
            if (allHold(i32At(terms, t * 2), i32At(terms, t * 2 + 1), s)) {
              ok = true;
              break;
            }
          }
        }
        if (!ok) reasons |= RB_AFFINITY;
      }
      // NodePorts
      if ((reasons == 0 || allReasons) && (qf & QF_HAS_PORTS) != 0 && bitAt(ports, s)) reasons |= RB_PORTS;
      // NodeResourcesFit
      if (reasons == 0 || allReasons) {
        if (f64At(podsReqRow, s) + 1 > f64At(podsRow, s)) reasons |= <u32>1 << (REASON_RESOURCE_BASE + R_PODS);
        if ((qf & QF_REQ_ZERO) == 0) {
          for (let k = 0; k < numReq; k++) {
            const r = i32At(reqList, k);
            const at = r * cap + s;
            if (f64At(qReq, r) > f64At(alloc, at) - f64At(req, at)) reasons |= <u32>1 << (REASON_RESOURCE_BASE + <u32>r);
          }
        }
      }
    }
    if (reasons != 0) {
      store<u8>(status + <usize>s, 2);
      store<u32>(reasonsCol + (<usize>s << 2), reasons);
      continue;
    }
    store<u8>(status + <usize>s, 1);
    store<u32>(reasonsCol + (<usize>s << 2), 0);
    store<i32>(feasible + (<usize>feasibleCount << 2), s);
    feasibleCount++;
    if (!skipScore) {
      const so = <usize>s << 2;
      // TaintToleration: count of untolerated PreferNoSchedule taints
      let cnt = 0;
      if (wTaint != 0 && (qf & QF_HAS_PREFER_TAINTS) != 0) {
        const t = taints + (<usize>(s * taintWords) << 2);
        for (let w = 0; w < taintWords; w++) cnt += <i32>popcnt<u32>(u32At(t, w) & u32At(prefer, w));
      }
      store<i32>(rawTaint + so, cnt);
      // NodeAffinity: Σ weights of matching preferred terms
      let aff = 0;
      if (wAff != 0) {
        for (let p = 0; p < numPref; p++) {
          const at = prefs + (<usize>p << 4);
          if (allHold(load<i32>(at), load<i32>(at, 4), s)) aff += load<i32>(at, 8);
        }
      }
      store<i32>(rawAff + so, aff);
      store<i32>(rawFit + so, wFit == 0 ? 0 : fitScore(query, alloc, allocInv, req, nzCpu, nzMem, cap, s));
      store<i32>(rawBal + so, wBal == 0 || (qf & QF_BEST_EFFORT) != 0 ? 0 : balancedScore(query, alloc, req, cap, s));
      store<i32>(rawImg + so, wImg == 0 ? 0 : imageScore(query, images, nodeWords, s));
    }
    if (feasibleCount >= toFind) break;
  }
  store<i32>(out + (<usize>O_FEASIBLE_COUNT << 2), feasibleCount);
  if (skipScore) return processed;

  // NormalizeScore over the feasible set, then the weighted total
  let maxTaint = 0;
  let maxAff = 0;
  for (let i = 0; i < feasibleCount; i++) {
    const so = <usize>i32At(feasible, i) << 2;
    const t = load<i32>(rawTaint + so);
    const a = load<i32>(rawAff + so);
    if (t > maxTaint) maxTaint = t;
    if (a > maxAff) maxAff = a;
  }
  const normTaint = norm;
  const normAff = norm + (<usize>ocap << 2);
  const normFit = norm + (<usize>ocap << 3);
  const normBal = norm + (<usize>ocap * 12);
  const normImg = norm + (<usize>ocap << 4);
  for (let i = 0; i < feasibleCount; i++) {
    const so = <usize>i32At(feasible, i) << 2;
    const t = maxTaint == 0 ? 100 : 100 - <i32>idiv(MAX_NODE_SCORE * <f64>load<i32>(rawTaint + so), <f64>maxTaint);
    const a = maxAff == 0 ? 0 : <i32>idiv(MAX_NODE_SCORE * <f64>load<i32>(rawAff + so), <f64>maxAff);
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
  return processed;
}

/** First byte after this module's static data; the JS allocator must start above it. */
export function heapBase(): usize {
  return __heap_base;
}

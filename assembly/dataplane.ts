// Dataplane kernel (WASM twin of src/proxy/dataplane/kernel-js.ts): classifies a batch of
// packets against a compiled kube-proxy ruleset. Both kernels must give identical results;
// test/proxy/dataplane/differential.test.ts checks that on random rulesets and packet batches.
//
// Linear memory layout, set up by src/proxy/dataplane/kernel-wasm.ts (all values i32):
//   header at HEADER (64 i32 slots): byte offsets of every array (H_* below) and dynCount
//   program arrays (rules, chains, tables, slots, lists, vs, reals, meta) — read only
//   runtime state (dynA/dynB/dynV dynamic table, rrCursor, conns, stack) — kept across batches
//   packet columns (dst, src, dport, proto, seed, flags) and result columns (result, rules, lookups)
// Constants (strides, flags, verdicts) mirror src/proxy/dataplane/program.ts.

const HEADER: usize = 0;
const H_RULES = 0; const H_CHAINS = 1; const H_TABLES = 2; const H_SLOTS = 3; const H_LISTS = 4;
const H_VS = 5; const H_REALS = 6; const H_META = 7; const H_DYNA = 8; const H_DYNB = 9; const H_DYNV = 10;
const H_RR = 11; const H_CONNS = 12; const H_DYNCOUNT = 13; const H_DST = 14; const H_SRC = 15;
const H_DPORT = 16; const H_PROTO = 17; const H_SEED = 18; const H_FLAGS = 19; const H_RES = 20;
const H_NRULES = 21; const H_NLOOK = 22; const H_STACKC = 23; const H_STACKI = 24; const H_NVS = 25; const H_NREALS = 26;

const RULE_STRIDE = 16;
const R_FLAGS = 0; const R_DST = 1; const R_DST_MASK = 2; const R_SRC = 3; const R_SRC_MASK = 4; const R_PROTO = 5;
const R_DPORT = 6; const R_STAT = 7; const R_SET = 8; const R_SET_MODE = 9; const R_VERDICT = 10; const R_ARG = 11; const R_ARG2 = 12;

const F_DST = 1; const F_DST_NEG = 2; const F_SRC = 4; const F_SRC_NEG = 8; const F_PROTO = 16; const F_DPORT = 32;
const F_DST_LOCAL = 64; const F_DST_LOCAL_NEG = 128; const F_SRC_LOCAL = 256; const F_SRC_LOCAL_NEG = 512;
const F_STAT = 1024; const F_SET = 2048; const F_SET_NEG = 4096; const F_SET_DYNAMIC = 8192; const F_ADD_SRC = 16384;

const K_PROTO_DPORT = 1; const K_DADDR = 2; const K_SADDR_PROTO_DPORT = 3; const K_SADDR = 4; const K_DPORT = 5;

const V_CONTINUE = 0; const V_JUMP = 1; const V_GOTO = 2; const V_RETURN = 3; const V_DNAT = 4; const V_ACCEPT = 5;
const V_DROP = 6; const V_REJECT = 7; const V_VMAP = 8; const V_NUMGEN = 9;

const RES_DROP = -1; const RES_REJECT = -2; const RES_PASS = -3; const ACCEPTED = -4; const FELL_THROUGH = -5;

const VS_STRIDE = 4; const SCHED_WLC = 1; const SCHED_SH = 2;
const META_NAT_ENTRY = 0; const META_FILTER_ENTRY = 1; const META_LOCAL_TABLE = 2; const META_IPVS_TABLE = 4;
const TABLE_STRIDE = 4; const SLOT_STRIDE = 4; const TEMPLATE_BASE = 0x1000000; const PKT_SRC_LOCAL = 1;

const DYN_CAPACITY: i32 = 1 << 18;
const DYN_LIMIT: i32 = (DYN_CAPACITY * 3) >>> 2;
const MAX_DEPTH: i32 = 32;

// array base pointers, loaded from the header at each call
let pRules: usize = 0; let pChains: usize = 0; let pTables: usize = 0; let pSlots: usize = 0; let pLists: usize = 0;
let pVs: usize = 0; let pReals: usize = 0; let pMeta: usize = 0; let pDynA: usize = 0; let pDynB: usize = 0; let pDynV: usize = 0;
let pRr: usize = 0; let pConns: usize = 0; let pDst: usize = 0; let pSrc: usize = 0; let pDport: usize = 0; let pProto: usize = 0;
let pSeed: usize = 0; let pFlags: usize = 0; let pRes: usize = 0; let pNRules: usize = 0; let pNLook: usize = 0;
let pStackC: usize = 0; let pStackI: usize = 0;
let dynCount: i32 = 0;
let rnd: u32 = 0;
let nRules: i32 = 0;
let nLookups: i32 = 0;
// the packet being classified
let pkDst: i32 = 0; let pkSrc: i32 = 0; let pkDport: i32 = 0; let pkProto: i32 = 0; let pkFlags: i32 = 0;

@inline function hdr(i: i32): usize { return <usize>load<i32>(HEADER + (<usize>i << 2)); }
@inline function ld(base: usize, i: i32): i32 { return load<i32>(base + (<usize>i << 2)); }
@inline function st(base: usize, i: i32, v: i32): void { store<i32>(base + (<usize>i << 2), v); }

function loadHeader(): void {
  pRules = hdr(H_RULES); pChains = hdr(H_CHAINS); pTables = hdr(H_TABLES); pSlots = hdr(H_SLOTS); pLists = hdr(H_LISTS);
  pVs = hdr(H_VS); pReals = hdr(H_REALS); pMeta = hdr(H_META); pDynA = hdr(H_DYNA); pDynB = hdr(H_DYNB); pDynV = hdr(H_DYNV);
  pRr = hdr(H_RR); pConns = hdr(H_CONNS); pDst = hdr(H_DST); pSrc = hdr(H_SRC); pDport = hdr(H_DPORT); pProto = hdr(H_PROTO);
  pSeed = hdr(H_SEED); pFlags = hdr(H_FLAGS); pRes = hdr(H_RES); pNRules = hdr(H_NRULES); pNLook = hdr(H_NLOOK);
  pStackC = hdr(H_STACKC); pStackI = hdr(H_STACKI);
  dynCount = load<i32>(HEADER + (<usize>H_DYNCOUNT << 2));
}

/** same mixing as slotHash() in program.ts */
@inline function slotHash(a: i32, b: i32): u32 {
  let h: u32 = (<u32>a * 0x9e3779b1) ^ (<u32>b * 0x85ebca77);
  h = h ^ (h >> 15);
  h = h * 0x2c1b3c6d;
  return h ^ (h >> 12);
}

@inline function draw(): u32 {
  let x = rnd;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  rnd = x;
  return x;
}

@inline function keyA(sel: i32): i32 {
  return sel == K_PROTO_DPORT || sel == K_DPORT ? 0 : (sel == K_SADDR_PROTO_DPORT || sel == K_SADDR ? pkSrc : pkDst);
}

@inline function keyB(sel: i32): i32 {
  return sel == K_DADDR || sel == K_SADDR ? 0 : sel == K_DPORT ? pkDport : (pkProto << 16) | pkDport;
}

/** slot index (in i32 units) of (a, b) in static table t, or -1 */
function find(t: i32, a: i32, b: i32): i32 {
  const base = ld(pTables, t * TABLE_STRIDE);
  const cap = ld(pTables, t * TABLE_STRIDE + 1);
  let s = <i32>(slotHash(a, b) & <u32>(cap - 1));
  while (true) {
    const o = (base + s) * SLOT_STRIDE;
    const kb = ld(pSlots, o + 1);
    if (kb == -1) return -1;
    if (kb == b && ld(pSlots, o) == a) return o;
    s = (s + 1) & (cap - 1);
  }
  return -1;
}

function dynFind(a: i32, b: i32): i32 {
  let s = <i32>(slotHash(a, b) & <u32>(DYN_CAPACITY - 1));
  while (true) {
    const kb = ld(pDynB, s);
    if (kb == -1) return -1;
    if (kb == b && ld(pDynA, s) == a) return s;
    s = (s + 1) & (DYN_CAPACITY - 1);
  }
  return -1;
}

function dynPut(a: i32, b: i32, v: i32): void {
  let s = <i32>(slotHash(a, b) & <u32>(DYN_CAPACITY - 1));
  while (true) {
    const kb = ld(pDynB, s);
    if (kb == -1) {
      if (dynCount >= DYN_LIMIT) return;
      st(pDynA, s, a); st(pDynB, s, b); st(pDynV, s, v); dynCount++;
      return;
    }
    if (kb == b && ld(pDynA, s) == a) { st(pDynV, s, v); return; }
    s = (s + 1) & (DYN_CAPACITY - 1);
  }
}

function matches(r: i32): bool {
  const f = ld(pRules, r + R_FLAGS);
  if (f == 0) return true;
  if ((f & F_PROTO) != 0 && pkProto != ld(pRules, r + R_PROTO)) return false;
  if ((f & F_DPORT) != 0 && pkDport != ld(pRules, r + R_DPORT)) return false;
  if ((f & F_DST) != 0) {
    const m = (pkDst & ld(pRules, r + R_DST_MASK)) == ld(pRules, r + R_DST);
    if (m == ((f & F_DST_NEG) != 0)) return false;
  }
  if ((f & F_SRC) != 0) {
    const m = (pkSrc & ld(pRules, r + R_SRC_MASK)) == ld(pRules, r + R_SRC);
    if (m == ((f & F_SRC_NEG) != 0)) return false;
  }
  if ((f & F_DST_LOCAL) != 0) {
    nLookups++;
    const lt = ld(pMeta, META_LOCAL_TABLE);
    const m = lt >= 0 && find(lt, pkDst, 0) >= 0;
    if (m == ((f & F_DST_LOCAL_NEG) != 0)) return false;
  }
  if ((f & F_SRC_LOCAL) != 0) {
    const m = (pkFlags & PKT_SRC_LOCAL) != 0;
    if (m == ((f & F_SRC_LOCAL_NEG) != 0)) return false;
  }
  if ((f & F_SET) != 0) {
    nLookups++;
    const set = ld(pRules, r + R_SET);
    const sel = ld(pRules, r + R_SET_MODE);
    let m: bool;
    if ((f & F_SET_DYNAMIC) != 0) m = dynFind(pkSrc, set) >= 0;
    else m = find(set, keyA(sel), keyB(sel)) >= 0;
    if (m == ((f & F_SET_NEG) != 0)) return false;
  }
  if ((f & F_STAT) != 0) {
    if ((draw() & 0x7fffffff) >= <u32>ld(pRules, r + R_STAT)) return false;
  }
  return true;
}

function runChain(entry: i32): i32 {
  let chain = entry;
  let idx = 0;
  let sp = 0;
  while (true) {
    if (idx >= ld(pChains, 2 * chain + 1)) {
      if (sp == 0) return FELL_THROUGH;
      sp--; chain = ld(pStackC, sp); idx = ld(pStackI, sp);
      continue;
    }
    const r = (ld(pChains, 2 * chain) + idx) * RULE_STRIDE;
    idx++;
    nRules++;
    if (!matches(r)) continue;
    if ((ld(pRules, r + R_FLAGS) & F_ADD_SRC) != 0) {
      nLookups++;
      dynPut(pkSrc, ld(pRules, r + R_SET), 1);
    }
    let v = ld(pRules, r + R_VERDICT);
    let arg = ld(pRules, r + R_ARG);
    if (v == V_VMAP) {
      nLookups++;
      const sel = ld(pRules, r + R_ARG2);
      const o = find(arg, keyA(sel), keyB(sel));
      if (o < 0) continue;
      v = ld(pSlots, o + 2);
      arg = ld(pSlots, o + 3);
    }
    if (v == V_CONTINUE) continue;
    if (v == V_JUMP) {
      if (sp >= MAX_DEPTH) return RES_DROP;
      st(pStackC, sp, chain); st(pStackI, sp, idx); sp++;
      chain = arg; idx = 0;
      continue;
    }
    if (v == V_GOTO) { chain = arg; idx = 0; continue; }
    if (v == V_RETURN) {
      if (sp == 0) return FELL_THROUGH;
      sp--; chain = ld(pStackC, sp); idx = ld(pStackI, sp);
      continue;
    }
    if (v == V_DNAT) return arg;
    if (v == V_ACCEPT) return ACCEPTED;
    if (v == V_DROP) return RES_DROP;
    if (v == V_REJECT) return RES_REJECT;
    if (v == V_NUMGEN) {
      const n = ld(pRules, r + R_ARG2);
      const k = <i32>((<u64>draw() * <u64>n) >> 32);
      chain = ld(pLists, arg + k); idx = 0;
      continue;
    }
    return RES_DROP;
  }
  return RES_DROP;
}

function ipvs(table: i32): i32 {
  nLookups++;
  const o = find(table, pkDst, (pkProto << 16) | pkDport);
  if (o < 0) return FELL_THROUGH;
  const vsId = ld(pSlots, o + 3);
  const vs = vsId * VS_STRIDE;
  const first = ld(pVs, vs);
  const n = ld(pVs, vs + 1);
  if (n == 0) return RES_REJECT;
  const persist = ld(pVs, vs + 3) != 0;
  if (persist) {
    nLookups++;
    const t = dynFind(pkSrc, TEMPLATE_BASE + vsId);
    if (t >= 0) return ld(pReals, first + ld(pDynV, t));
  }
  let j = 0;
  const sched = ld(pVs, vs + 2);
  if (sched == SCHED_WLC) {
    nLookups += n;
    for (let k = 1; k < n; k++) if (ld(pConns, first + k) < ld(pConns, first + j)) j = k;
    st(pConns, first + j, ld(pConns, first + j) + 1);
  } else if (sched == SCHED_SH) {
    nLookups++;
    j = <i32>(((<u32>pkSrc * 0x61c88647) >> 24) % <u32>n);
  } else {
    j = ld(pRr, vsId) % n;
    st(pRr, vsId, (j + 1) % n);
  }
  if (persist) dynPut(pkSrc, TEMPLATE_BASE + vsId, j);
  return ld(pReals, first + j);
}

/** Classifies packets [0, n) of the packet columns into the result columns. */
export function classify(n: i32): void {
  loadHeader();
  const nat = ld(pMeta, META_NAT_ENTRY);
  const filter = ld(pMeta, META_FILTER_ENTRY);
  const ipvsTable = ld(pMeta, META_IPVS_TABLE);
  for (let i = 0; i < n; i++) {
    nRules = 0;
    nLookups = 0;
    const s = <u32>ld(pSeed, i);
    rnd = s == 0 ? 0x9e3779b9 : s;
    pkDst = ld(pDst, i); pkSrc = ld(pSrc, i); pkDport = ld(pDport, i); pkProto = ld(pProto, i); pkFlags = ld(pFlags, i);
    let res = nat >= 0 ? runChain(nat) : FELL_THROUGH;
    if ((res == ACCEPTED || res == FELL_THROUGH) && filter >= 0) res = runChain(filter);
    if ((res == ACCEPTED || res == FELL_THROUGH) && ipvsTable >= 0) res = ipvs(ipvsTable);
    if (res == ACCEPTED || res == FELL_THROUGH) res = RES_PASS;
    st(pRes, i, res);
    st(pNRules, i, nRules);
    st(pNLook, i, nLookups);
  }
  store<i32>(HEADER + (<usize>H_DYNCOUNT << 2), dynCount);
}

/** Forgets affinity sets, templates, rr cursors and connection counts. */
export function reset(): void {
  loadHeader();
  for (let i = 0; i < DYN_CAPACITY; i++) st(pDynB, i, -1);
  const nvs = load<i32>(HEADER + (<usize>H_NVS << 2));
  const nreals = load<i32>(HEADER + (<usize>H_NREALS << 2));
  for (let i = 0; i < nvs; i++) st(pRr, i, 0);
  for (let i = 0; i < nreals; i++) st(pConns, i, 0);
  store<i32>(HEADER + (<usize>H_DYNCOUNT << 2), 0);
}

/** Capacity of the dynamic table; the loader checks it against the JS kernel's. */
export function dynCapacity(): i32 {
  return DYN_CAPACITY;
}

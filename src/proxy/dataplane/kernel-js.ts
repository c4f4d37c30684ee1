/**
 * The JavaScript dataplane kernel: classifies a batch of packets against a compiled Program.
 * assembly/dataplane.ts is its line-by-line twin; the two must give identical results (tested
 * differentially on random rulesets and packet batches).
 *
 * Per packet the pipeline is what the kernel does on PREROUTING for a new connection:
 *   1. the nat entry chain (iptables KUBE-SERVICES walk / nft nat-prerouting → services → vmap);
 *      DNAT ends the packet with an endpoint, DROP/REJECT with a verdict;
 *   2. the filter entry chain (no-endpoint REJECT rules, nft service-endpoints-check vmap,
 *      ipvs KUBE-IPVS-FILTER) — filter INPUT/FORWARD run before IPVS's LOCAL_IN hook;
 *   3. ipvs mode only: the IPVS virtual-service lookup and scheduling;
 *   4. otherwise the packet passes unchanged (RES_PASS).
 *
 * Every rule evaluated counts as one rule traversed; every hash lookup (vmap, set match, addrtype
 * LOCAL, dynamic affinity set, IPVS service/template) counts as one lookup; wlc scans its real servers.
 * Nothing is allocated per packet.
 */
import {
  type Program,
  RULE_STRIDE,
  R_FLAGS,
  R_DST,
  R_DST_MASK,
  R_SRC,
  R_SRC_MASK,
  R_PROTO,
  R_DPORT,
  R_STAT,
  R_SET,
  R_SET_MODE,
  R_VERDICT,
  R_ARG,
  R_ARG2,
  F_DST,
  F_DST_NEG,
  F_SRC,
  F_SRC_NEG,
  F_PROTO,
  F_DPORT,
  F_DST_LOCAL,
  F_DST_LOCAL_NEG,
  F_SRC_LOCAL,
  F_SRC_LOCAL_NEG,
  F_STAT,
  F_SET,
  F_SET_NEG,
  F_SET_DYNAMIC,
  K_PROTO_DPORT,
  K_DADDR,
  K_SADDR_PROTO_DPORT,
  K_SADDR,
  K_DPORT,
  V_CONTINUE,
  V_JUMP,
  V_GOTO,
  V_RETURN,
  V_DNAT,
  V_ACCEPT,
  V_DROP,
  V_REJECT,
  V_VMAP,
  V_NUMGEN,
  F_ADD_SRC,
  RES_DROP,
  RES_REJECT,
  RES_PASS,
  VS_STRIDE,
  VS_FIRST,
  VS_COUNT,
  VS_SCHED,
  VS_PERSIST,
  SCHED_WLC,
  SCHED_SH,
  META_NAT_ENTRY,
  META_FILTER_ENTRY,
  META_LOCAL_TABLE,
  META_IPVS_TABLE,
  TABLE_STRIDE,
  SLOT_STRIDE,
  TEMPLATE_BASE,
  PKT_SRC_LOCAL,
  slotHash,
} from './program.js';

/** Packets as columns (struct of arrays). IPs are uint32 stored in int32. */
export interface PacketBatch {
  n: number;
  dst: Int32Array;
  src: Int32Array;
  dport: Int32Array;
  proto: Int32Array;
  /** per-packet seed of the random draws (statistic / numgen); 0 is replaced by a constant */
  seed: Int32Array;
  /** PKT_SRC_LOCAL when the packet comes from the node itself */
  flags: Int32Array;
}

/** An empty batch of `n` packets (every column zero). */
export function newPacketBatch(n: number): PacketBatch {
  return {
    n,
    dst: new Int32Array(n),
    src: new Int32Array(n),
    dport: new Int32Array(n),
    proto: new Int32Array(n),
    seed: new Int32Array(n),
    flags: new Int32Array(n),
  };
}

/** Per-packet results. */
export interface ClassifyResult {
  /** endpoint id (Program.endpoints), or RES_DROP / RES_REJECT / RES_PASS */
  result: Int32Array;
  rules: Int32Array;
  lookups: Int32Array;
}

export function newResult(n: number): ClassifyResult {
  return { result: new Int32Array(n), rules: new Int32Array(n), lookups: new Int32Array(n) };
}

/** Capacity of the dynamic table (affinity sets, recent lists, IPVS templates); must match assembly. */
export const DYN_CAPACITY = 1 << 18;
const DYN_LIMIT = (DYN_CAPACITY * 3) >>> 2;
const MAX_DEPTH = 32;
const ACCEPTED = -4;
const FELL_THROUGH = -5;

export class JsKernel {
  private readonly dynA = new Int32Array(DYN_CAPACITY);
  private readonly dynB = new Int32Array(DYN_CAPACITY);
  private readonly dynV = new Int32Array(DYN_CAPACITY);
  private dynCount = 0;
  private readonly rrCursor: Int32Array;
  private readonly conns: Int32Array;
  private readonly stackChain = new Int32Array(MAX_DEPTH);
  private readonly stackIdx = new Int32Array(MAX_DEPTH);
  // per-packet scratch (fields, not locals, so helpers can update them without allocation)
  private rnd = 0;
  private nRules = 0;
  private nLookups = 0;

  constructor(readonly program: Program) {
    this.rrCursor = new Int32Array(program.vs.length / VS_STRIDE);
    this.conns = new Int32Array(program.reals.length);
    this.reset();
  }

  /** Forgets affinity, templates, rr cursors and connection counts. */
  reset(): void {
    this.dynB.fill(-1);
    this.dynCount = 0;
    this.rrCursor.fill(0);
    this.conns.fill(0);
  }

  classify(p: PacketBatch, out: ClassifyResult): void {
    const meta = this.program.meta;
    const nat = meta[META_NAT_ENTRY],
      filter = meta[META_FILTER_ENTRY],
      ipvs = meta[META_IPVS_TABLE];
    for (let i = 0; i < p.n; i++) {
      this.nRules = 0;
      this.nLookups = 0;
      const s = p.seed[i] >>> 0;
      this.rnd = s === 0 ? 0x9e3779b9 : s;
      let res = nat >= 0 ? this.runChain(nat, p, i) : FELL_THROUGH;
      if ((res === ACCEPTED || res === FELL_THROUGH) && filter >= 0) res = this.runChain(filter, p, i);
      if ((res === ACCEPTED || res === FELL_THROUGH) && ipvs >= 0) res = this.ipvs(ipvs, p, i);
      if (res === ACCEPTED || res === FELL_THROUGH) res = RES_PASS;
      out.result[i] = res;
      out.rules[i] = this.nRules;
      out.lookups[i] = this.nLookups;
    }
  }

  private draw(): number {
    let x = this.rnd;
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    this.rnd = x;
    return x;
  }

  private keyA(sel: number, p: PacketBatch, i: number): number {
    return sel === K_PROTO_DPORT || sel === K_DPORT
      ? 0
      : sel === K_SADDR_PROTO_DPORT || sel === K_SADDR
        ? p.src[i]
        : p.dst[i];
  }

  private keyB(sel: number, p: PacketBatch, i: number): number {
    return sel === K_DADDR || sel === K_SADDR
      ? 0
      : sel === K_DPORT
        ? p.dport[i]
        : (p.proto[i] << 16) | p.dport[i];
  }

  /** slot index of (a, b) in static table t, or -1 */
  private find(t: number, a: number, b: number): number {
    const tb = this.program.tables,
      slots = this.program.slots;
    const base = tb[t * TABLE_STRIDE],
      cap = tb[t * TABLE_STRIDE + 1];
    let s = slotHash(a, b) & (cap - 1);
    for (;;) {
      const o = (base + s) * SLOT_STRIDE;
      const kb = slots[o + 1];
      if (kb === -1) return -1;
      if (kb === b && slots[o] === a) return o;
      s = (s + 1) & (cap - 1);
    }
  }

  private dynFind(a: number, b: number): number {
    let s = slotHash(a, b) & (DYN_CAPACITY - 1);
    for (;;) {
      const kb = this.dynB[s];
      if (kb === -1) return -1;
      if (kb === b && this.dynA[s] === a) return s;
      s = (s + 1) & (DYN_CAPACITY - 1);
    }
  }

  private dynPut(a: number, b: number, v: number): void {
    let s = slotHash(a, b) & (DYN_CAPACITY - 1);
    for (;;) {
      const kb = this.dynB[s];
      if (kb === -1) {
        if (this.dynCount >= DYN_LIMIT) return; // full: the entry is not remembered
        this.dynA[s] = a;
        this.dynB[s] = b;
        this.dynV[s] = v;
        this.dynCount++;
        return;
      }
      if (kb === b && this.dynA[s] === a) {
        this.dynV[s] = v;
        return;
      }
      s = (s + 1) & (DYN_CAPACITY - 1);
    }
  }

  private matches(r: number, p: PacketBatch, i: number): boolean {
    const R = this.program.rules;
    const f = R[r + R_FLAGS];
    if (f === 0) return true;
    if ((f & F_PROTO) !== 0 && p.proto[i] !== R[r + R_PROTO]) return false;
    if ((f & F_DPORT) !== 0 && p.dport[i] !== R[r + R_DPORT]) return false;
    if ((f & F_DST) !== 0) {
      const m = (p.dst[i] & R[r + R_DST_MASK]) === R[r + R_DST];
      if (m === ((f & F_DST_NEG) !== 0)) return false;
    }
    if ((f & F_SRC) !== 0) {
      const m = (p.src[i] & R[r + R_SRC_MASK]) === R[r + R_SRC];
      if (m === ((f & F_SRC_NEG) !== 0)) return false;
    }
    if ((f & F_DST_LOCAL) !== 0) {
      this.nLookups++;
      const lt = this.program.meta[META_LOCAL_TABLE];
      const m = lt >= 0 && this.find(lt, p.dst[i], 0) >= 0;
      if (m === ((f & F_DST_LOCAL_NEG) !== 0)) return false;
    }
    if ((f & F_SRC_LOCAL) !== 0) {
      const m = (p.flags[i] & PKT_SRC_LOCAL) !== 0;
      if (m === ((f & F_SRC_LOCAL_NEG) !== 0)) return false;
    }
    if ((f & F_SET) !== 0) {
      this.nLookups++;
      const set = R[r + R_SET],
        sel = R[r + R_SET_MODE];
      let m: boolean;
      if ((f & F_SET_DYNAMIC) !== 0) m = this.dynFind(p.src[i], set) >= 0;
      else m = this.find(set, this.keyA(sel, p, i), this.keyB(sel, p, i)) >= 0;
      if (m === ((f & F_SET_NEG) !== 0)) return false;
    }
    if ((f & F_STAT) !== 0) {
      if ((this.draw() & 0x7fffffff) >>> 0 >= R[r + R_STAT] >>> 0) return false;
    }
    return true;
  }

  /** Walks from `entry`; returns an endpoint id, RES_DROP, RES_REJECT, ACCEPTED or FELL_THROUGH. */
  private runChain(entry: number, p: PacketBatch, i: number): number {
    const R = this.program.rules,
      C = this.program.chains;
    let chain = entry,
      idx = 0,
      sp = 0;
    for (;;) {
      if (idx >= C[2 * chain + 1]) {
        if (sp === 0) return FELL_THROUGH;
        sp--;
        chain = this.stackChain[sp];
        idx = this.stackIdx[sp];
        continue;
      }
      const r = (C[2 * chain] + idx) * RULE_STRIDE;
      idx++;
      this.nRules++;
      if (!this.matches(r, p, i)) continue;
      if ((R[r + R_FLAGS] & F_ADD_SRC) !== 0) {
        this.nLookups++;
        this.dynPut(p.src[i], R[r + R_SET], 1);
      }
      let v = R[r + R_VERDICT],
        arg = R[r + R_ARG];
      if (v === V_VMAP) {
        this.nLookups++;
        const sel = R[r + R_ARG2];
        const o = this.find(arg, this.keyA(sel, p, i), this.keyB(sel, p, i));
        if (o < 0) continue;
        v = this.program.slots[o + 2];
        arg = this.program.slots[o + 3];
      }
      switch (v) {
        case V_CONTINUE:
          break;
        case V_JUMP:
          if (sp >= MAX_DEPTH) return RES_DROP;
          this.stackChain[sp] = chain;
          this.stackIdx[sp] = idx;
          sp++;
          chain = arg;
          idx = 0;
          break;
        case V_GOTO:
          chain = arg;
          idx = 0;
          break;
        case V_RETURN:
          if (sp === 0) return FELL_THROUGH;
          sp--;
          chain = this.stackChain[sp];
          idx = this.stackIdx[sp];
          break;
        case V_DNAT:
          return arg;
        case V_ACCEPT:
          return ACCEPTED;
        case V_DROP:
          return RES_DROP;
        case V_REJECT:
          return RES_REJECT;
        case V_NUMGEN: {
          const n = R[r + R_ARG2];
          const k = Math.floor((this.draw() * n) / 4294967296);
          chain = this.program.lists[arg + k];
          idx = 0;
          break;
        }
        default:
          return RES_DROP;
      }
    }
  }

  private ipvs(table: number, p: PacketBatch, i: number): number {
    this.nLookups++;
    const o = this.find(table, p.dst[i], (p.proto[i] << 16) | p.dport[i]);
    if (o < 0) return FELL_THROUGH;
    const vs = this.program.slots[o + 3] * VS_STRIDE;
    const V = this.program.vs;
    const first = V[vs + VS_FIRST],
      n = V[vs + VS_COUNT];
    if (n === 0) return RES_REJECT; // ip_vs_leave: no destination → ICMP port unreachable
    const vsId = vs / VS_STRIDE;
    const persist = V[vs + VS_PERSIST] !== 0;
    if (persist) {
      this.nLookups++;
      const t = this.dynFind(p.src[i], TEMPLATE_BASE + vsId);
      if (t >= 0) return this.program.reals[first + this.dynV[t]];
    }
    let j: number;
    const sched = V[vs + VS_SCHED];
    if (sched === SCHED_WLC) {
      this.nLookups += n;
      j = 0;
      for (let k = 1; k < n; k++) if (this.conns[first + k] < this.conns[first + j]) j = k;
      this.conns[first + j]++;
    } else if (sched === SCHED_SH) {
      this.nLookups++;
      j = (Math.imul(p.src[i], 0x61c88647) >>> 24) % n;
    } else {
      j = this.rrCursor[vsId] % n;
      this.rrCursor[vsId] = (j + 1) % n;
    }
    if (persist) this.dynPut(p.src[i], TEMPLATE_BASE + vsId, j);
    return this.program.reals[first + j];
  }
}

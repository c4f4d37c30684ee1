/**
 * The dataplane model's compiled form: a kube-proxy ruleset (iptables, nftables or ipvs) flattened
 * into typed arrays that the JS kernel (kernel-js.ts) and the WASM kernel (assembly/dataplane.ts)
 * walk the same way. Each mode keeps its real lookup structure:
 *
 *   iptables  chains of rules tried one after the other (KUBE-SERVICES: one rule per service IP),
 *             then the KUBE-SVC chain's `-m statistic` rules, then KUBE-SEP's DNAT;
 *   nftables  a few rules whose `vmap @service-ips` is ONE hash lookup, then `numgen random mod N`;
 *   ipvs      a short iptables walk whose `-m set` matches are hash lookups, then the IPVS virtual
 *             service hash lookup and the scheduler (rr / wlc / sh, persistence templates).
 *
 * Layout (all Int32Array; IPv4 addresses as uint32 stored in int32):
 *
 *   rules     RULE_STRIDE ints per rule: flags, dst, dstMask, src, srcMask, proto, dport,
 *             statThreshold, setId, setMode, verdict, arg, arg2, (3 spare)
 *   chains    2 ints per chain: first rule index, rule count
 *   tables    4 ints per static hash table: slot offset, capacity (power of 2), entries, kind
 *   slots     4 ints per slot: keyA, keyB (-1 = empty), value verdict, value arg
 *   lists     numgen targets (chain ids), referenced by (arg = offset, arg2 = N)
 *   vs        VS_STRIDE ints per IPVS virtual server: first real, real count, scheduler, persistent
 *   reals     endpoint id per IPVS real server
 *   meta      entry points and sizes (META_* indices)
 *
 * Dynamic state (affinity sets, `-m recent` lists, IPVS persistence templates, rr cursors,
 * wlc connection counts) lives next to it in the kernels and persists across batches until reset.
 */

export const RULE_STRIDE = 16;
export const R_FLAGS = 0;
export const R_DST = 1;
export const R_DST_MASK = 2;
export const R_SRC = 3;
export const R_SRC_MASK = 4;
export const R_PROTO = 5;
export const R_DPORT = 6;
export const R_STAT = 7;
export const R_SET = 8;
export const R_SET_MODE = 9;
export const R_VERDICT = 10;
export const R_ARG = 11;
export const R_ARG2 = 12;

// match flags
export const F_DST = 1;
export const F_DST_NEG = 2;
export const F_SRC = 4;
export const F_SRC_NEG = 8;
export const F_PROTO = 16;
export const F_DPORT = 32;
/** `-m addrtype --dst-type LOCAL` / `fib daddr type local` */
export const F_DST_LOCAL = 64;
export const F_DST_LOCAL_NEG = 128;
/** `-m addrtype --src-type LOCAL` / `fib saddr type local` */
export const F_SRC_LOCAL = 256;
export const F_SRC_LOCAL_NEG = 512;
/** `-m statistic --mode random --probability p` */
export const F_STAT = 1024;
/** set membership (`-m set --match-set`, `ip saddr @set`, `-m recent --rcheck`) */
export const F_SET = 2048;
export const F_SET_NEG = 4096;
/** set is dynamic (affinity / recent), looked up in the runtime table */
export const F_SET_DYNAMIC = 8192;
/** side effect when the rule matches: add saddr to dynamic set R_SET (`-m recent --set`, nft `update @set { ip saddr }`) */
export const F_ADD_SRC = 16384;

// key selectors for set matches and vmaps: which packet fields form (keyA, keyB)
/** (daddr, proto<<16|dport): `dst,dst` of hash:ip,port, nft `ip daddr . meta l4proto . th dport` */
export const K_DADDR_PROTO_DPORT = 0;
/** (0, proto<<16|dport): bitmap:port `dst`, nft `meta l4proto . th dport` */
export const K_PROTO_DPORT = 1;
/** (daddr, 0): hash:ip `dst`, nft `ip daddr @set` */
export const K_DADDR = 2;
/** (saddr, proto<<16|dport): `src,dst` */
export const K_SADDR_PROTO_DPORT = 3;
/** (saddr, 0): nft `ip saddr @set`, `-m recent` (mask 255.255.255.255) */
export const K_SADDR = 4;
/** (0, dport): bitmap:port `dst` (the protocol is matched by the rule's own `-p`) */
export const K_DPORT = 5;

// verdicts
export const V_CONTINUE = 0;
export const V_JUMP = 1;
export const V_GOTO = 2;
export const V_RETURN = 3;
export const V_DNAT = 4;
export const V_ACCEPT = 5;
export const V_DROP = 6;
export const V_REJECT = 7;
/** look the packet up in static table `arg` with key selector `arg2`; apply the value's verdict; miss = continue */
export const V_VMAP = 8;
/** `numgen random mod N vmap`: goto lists[arg + draw % N], N = arg2 */
export const V_NUMGEN = 9;

// results
export const RES_DROP = -1;
export const RES_REJECT = -2;
/** no rule claimed the packet: it passes unchanged (not service traffic) */
export const RES_PASS = -3;

// IPVS virtual servers
export const VS_STRIDE = 4;
export const VS_FIRST = 0;
export const VS_COUNT = 1;
export const VS_SCHED = 2;
export const VS_PERSIST = 3;
export const SCHED_RR = 0;
export const SCHED_WLC = 1;
export const SCHED_SH = 2;

// meta
export const META_NAT_ENTRY = 0;
export const META_FILTER_ENTRY = 1;
export const META_LOCAL_TABLE = 2;
export const META_DYN_SETS = 3;
/** static table of IPVS virtual services ((vip, proto<<16|port) → vs id), -1 when not ipvs mode */
export const META_IPVS_TABLE = 4;
export const META_LEN = 8;

/** dynamic-table keyB of an IPVS persistence template: TEMPLATE_BASE + vs id (set ids stay below) */
export const TEMPLATE_BASE = 0x1000000;
/** packet flag: the packet originates on this node (fib saddr type local / addrtype --src-type LOCAL) */
export const PKT_SRC_LOCAL = 1;

export const TABLE_STRIDE = 4;
export const SLOT_STRIDE = 4;

/** The compiled ruleset of one mode. */
export interface Program {
  mode: 'iptables' | 'nftables' | 'ipvs';
  rules: Int32Array;
  chains: Int32Array;
  tables: Int32Array;
  slots: Int32Array;
  lists: Int32Array;
  vs: Int32Array;
  reals: Int32Array;
  meta: Int32Array;
  /** endpoint id → "ip:port" */
  endpoints: string[];
  /** chain id → name (for debugging and reports) */
  chainNames: string[];
  /** what the compile saw: rules per chain kind, map sizes */
  summary: { rules: number; chains: number; mapEntries: number; virtualServers: number };
}

/** uint32 of a dotted quad; throws on anything else */
export function ipToU32(ip: string): number {
  const p = ip.split('.');
  if (p.length !== 4) throw new Error(`not an IPv4 address: "${ip}"`);
  let v = 0;
  for (const x of p) {
    if (!/^\d{1,3}$/.test(x) || Number(x) > 255) throw new Error(`not an IPv4 address: "${ip}"`);
    v = v * 256 + Number(x);
  }
  return v >>> 0;
}

/** "a.b.c.d/len" or "a.b.c.d" → [addr, mask] as uint32 */
export function parseCidr4(s: string): [number, number] {
  const [ip, len] = s.split('/');
  const n = len === undefined ? 32 : Number(len);
  if (!Number.isInteger(n) || n < 0 || n > 32) throw new Error(`not an IPv4 CIDR: "${s}"`);
  const mask = n === 0 ? 0 : (0xffffffff << (32 - n)) >>> 0;
  return [(ipToU32(ip) & mask) >>> 0, mask];
}

export const PROTO_NUM: Record<string, number> = { tcp: 6, udp: 17, sctp: 132 };

/** The hash both kernels use for (keyA, keyB) → slot; must stay identical to assembly/dataplane.ts. */
export function slotHash(a: number, b: number): number {
  let h = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77)) >>> 0;
  h = (h ^ (h >>> 15)) >>> 0;
  h = Math.imul(h, 0x2c1b3c6d) >>> 0;
  return (h ^ (h >>> 12)) >>> 0;
}

/** Builds a Program incrementally; compilers use it. */
export class ProgramBuilder {
  private rules: number[] = [];
  private chainRules: number[][] = [];
  readonly chainNames: string[] = [];
  private chainIds = new Map<string, number>();
  private tablesKV: { kind: number; entries: Map<string, [number, number, number, number]> }[] = [];
  private lists: number[] = [];
  private vs: number[] = [];
  private reals: number[] = [];
  private endpointIds = new Map<string, number>();
  readonly endpoints: string[] = [];
  private dynSets = new Map<string, number>();
  meta = { natEntry: -1, filterEntry: -1, localTable: -1, ipvsTable: -1 };

  constructor(readonly mode: Program['mode']) {}

  chain(name: string): number {
    let id = this.chainIds.get(name);
    if (id === undefined) {
      id = this.chainNames.length;
      this.chainIds.set(name, id);
      this.chainNames.push(name);
      this.chainRules.push([]);
    }
    return id;
  }

  hasChain(name: string): boolean {
    return this.chainIds.has(name);
  }

  /** Appends a rule (array of RULE_STRIDE ints) to a chain. */
  addRule(chain: number, r: Int32Array | number[]): void {
    if (r.length !== RULE_STRIDE) throw new Error('internal: rule has the wrong length');
    this.chainRules[chain].push(...r);
  }

  static emptyRule(): number[] {
    const r = new Array<number>(RULE_STRIDE).fill(0);
    r[R_SET] = -1;
    return r;
  }

  endpoint(ipPort: string): number {
    let id = this.endpointIds.get(ipPort);
    if (id === undefined) {
      id = this.endpoints.length;
      this.endpointIds.set(ipPort, id);
      this.endpoints.push(ipPort);
    }
    return id;
  }

  dynamicSet(name: string): number {
    let id = this.dynSets.get(name);
    if (id === undefined) {
      id = this.dynSets.size;
      this.dynSets.set(name, id);
    }
    return id;
  }

  /** a new static hash table; returns its id */
  table(kind = 0): number {
    this.tablesKV.push({ kind, entries: new Map() });
    return this.tablesKV.length - 1;
  }

  tablePut(table: number, a: number, b: number, verdict: number, arg: number): void {
    this.tablesKV[table].entries.set(`${a | 0},${b | 0}`, [a | 0, b | 0, verdict, arg]);
  }

  tableSize(table: number): number {
    return this.tablesKV[table].entries.size;
  }

  list(chainIds: number[]): number {
    const off = this.lists.length;
    this.lists.push(...chainIds);
    return off;
  }

  virtualServer(realEndpointIds: number[], sched: number, persistent: boolean): number {
    const id = this.vs.length / VS_STRIDE;
    this.vs.push(this.reals.length, realEndpointIds.length, sched, persistent ? 1 : 0);
    this.reals.push(...realEndpointIds);
    return id;
  }

  build(): Program {
    // rules laid out chain by chain
    const chains = new Int32Array(this.chainRules.length * 2);
    let total = 0;
    for (let c = 0; c < this.chainRules.length; c++) {
      chains[2 * c] = total / RULE_STRIDE;
      chains[2 * c + 1] = this.chainRules[c].length / RULE_STRIDE;
      total += this.chainRules[c].length;
    }
    const rules = new Int32Array(total);
    let off = 0;
    for (const r of this.chainRules) {
      rules.set(r, off);
      off += r.length;
    }
    // static hash tables: open addressing, load factor <= 0.5
    const tables = new Int32Array(this.tablesKV.length * TABLE_STRIDE);
    let slotCount = 0;
    const caps = this.tablesKV.map((t) => {
      let cap = 4;
      while (cap < t.entries.size * 2) cap <<= 1;
      return cap;
    });
    for (const c of caps) slotCount += c;
    const slots = new Int32Array(slotCount * SLOT_STRIDE);
    for (let i = 0; i < slots.length; i += SLOT_STRIDE) slots[i + 1] = -1;
    let base = 0;
    let mapEntries = 0;
    this.tablesKV.forEach((t, i) => {
      const cap = caps[i];
      tables[i * TABLE_STRIDE] = base;
      tables[i * TABLE_STRIDE + 1] = cap;
      tables[i * TABLE_STRIDE + 2] = t.entries.size;
      tables[i * TABLE_STRIDE + 3] = t.kind;
      for (const [a, b, v, arg] of t.entries.values()) {
        let s = slotHash(a, b) & (cap - 1);
        while (slots[(base + s) * SLOT_STRIDE + 1] !== -1) s = (s + 1) & (cap - 1);
        const o = (base + s) * SLOT_STRIDE;
        slots[o] = a;
        slots[o + 1] = b;
        slots[o + 2] = v;
        slots[o + 3] = arg;
      }
      mapEntries += t.entries.size;
      base += cap;
    });
    const meta = new Int32Array(META_LEN);
    meta[META_NAT_ENTRY] = this.meta.natEntry;
    meta[META_FILTER_ENTRY] = this.meta.filterEntry;
    meta[META_LOCAL_TABLE] = this.meta.localTable;
    meta[META_DYN_SETS] = this.dynSets.size;
    meta[META_IPVS_TABLE] = this.meta.ipvsTable;
    return {
      mode: this.mode,
      rules,
      chains,
      tables,
      slots,
      lists: Int32Array.from(this.lists),
      vs: Int32Array.from(this.vs),
      reals: Int32Array.from(this.reals),
      meta,
      endpoints: this.endpoints,
      chainNames: this.chainNames,
      summary: {
        rules: total / RULE_STRIDE,
        chains: this.chainRules.length,
        mapEntries,
        virtualServers: this.vs.length / VS_STRIDE,
      },
    };
  }
}

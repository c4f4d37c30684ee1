/**
 * The cross-pod plugins' per-cycle inputs to the kernels: PodTopologySpread's and
 * InterPodAffinity's filter verdicts and score sums per topology domain, written next to the
 * compiled query so that the kernel window evaluates them per node with one array read per key
 * (`verdict[domain[node]]`), stops after numFeasibleNodesToFind feasible nodes as
 * findNodesThatPassFilters does, and adds the two plugins' normalized scores to the totals.
 *
 * The framework computes the arrays from its incrementally kept per-node counts
 * (docs/scheduler.md, "Per-node counts kept incrementally"); the kernels only index them. A
 * domain array is indexed by a TOPO row's cell — the node's domain id + 1, 0 for a node without
 * the key — so cell 0 carries the answer for unlabeled nodes. Layout (byte addresses in the query
 * header, layout.ts Q_X_*):
 *
 *   checks  i32[2] per check: TOPO row, address of u8[domains + 1] (1 = the node passes)
 *   ipa     i32[4] per entry: TOPO row, address of f64[domains + 1] (cell 0 = 0), weight, 0 —
 *           a node's raw score is Σ weight × array[cell] over the entries (one per key's sums,
 *           one per weighted term)
 *   pts     i32[PTS_INTS] per ScheduleAnyway constraint: TOPO row, per-node flag, counts address
 *           (f64[domains + 1], or f64[node capacity] by slot for the hostname key), maxSkew − 1,
 *           address and length of a u8 scratch for the domains seen among the scored nodes
 *   log     f64[k]: ln(k + 2) (upstream topologyNormalizingWeight), computed here, not in WASM,
 *           so both kernels read the same bits
 *   scratch f64[2 × node capacity]: raw scores of the feasible nodes
 *
 * Example: zone spread, zones a b c with 3 1 1 matching pods, maxSkew 1, the pod matches itself:
 * verdicts per domain [0 1 1] → u8 [0, 0, 1, 1] (cell 0: a node without a zone fails); a node in
 * zone b (cell 2) passes.
 */
import * as L from './layout.js';
import type { NodeTable } from './table.js';

/** A filter check over one topology key: a node passes when `pass[id]` is 1 for its domain id. */
export interface DomainCheck {
  row: number;
  /** per domain id (the row's ids): 1 pass, 0 fail */
  pass: ArrayLike<number>;
  /** the verdict for a node without the key */
  missing: 0 | 1;
}

/**
 * InterPodAffinity's score sums of one topology key: `sums[j]` for domain id `ids[j]`, 0 for the
 * other domains; without `ids`, `sums[id]` for every domain id
 */
export interface DomainScores {
  row: number;
  /** the key's number of domains */
  domains: number;
  ids?: ArrayLike<number>;
  sums: ArrayLike<number>;
  /** more to add: weight × counts[id] per domain id (the kernel multiplies) */
  terms?: readonly { counts: ArrayLike<number>; weight: number }[];
}

/** One ScheduleAnyway constraint of PodTopologySpread's score. */
export interface SpreadScoreConstraint {
  row: number;
  maxSkew: number;
  /** matching pods per domain id; or, for the hostname key, `perNode` */
  domainCounts?: ArrayLike<number>;
  /** matching pods per node (absent: 0), for the hostname key (upstream counts them at Score) */
  perNode?: Iterable<readonly [{ readonly slot: number }, number]>;
}

export interface CrossPodInputs {
  checks: readonly DomainCheck[];
  ipa?: { weight: number; keys: readonly DomainScores[] };
  pts?: { weight: number; requireAllKeys: boolean; constraints: readonly SpreadScoreConstraint[] };
}

/** Where a written input lives: the query header fields that point at it. */
export interface CrossPodBlock {
  readonly fields: readonly (readonly [field: number, value: number])[];
}

/**
 * Bump regions for the cross-pod inputs, reused every cycle (not zero-filled: every byte a kernel
 * reads is written), plus the persistent log table, raw-score scratch and sparse rows.
 */
export class CrossPodWriter {
  private addr = 0;
  private cap = 0;
  private top = 0;
  private logAddr = 0;
  private logLen = 0;
  private scratchAddr = 0;
  private scratchCap = 0;

  constructor(readonly table: NodeTable) {}

  /**
   * per TOPO row: an array of its domains kept zero but for the ids the last cycle wrote — a key
   * with a few scored domains (the hostname key: 5,000 domains, a handful with matching pods)
   * rewrites those cells instead of zero-filling every domain per cycle
   */
  private readonly sparse = new Map<
    number,
    { addr: number; domains: number; written: Int32Array; count: number }
  >();

  /** `row`'s sparse array for `domains` domains, allocated (zeroed) when new or resized */
  private sparseFor(row: number, domains: number): { addr: number; written: Int32Array; count: number } {
    let r = this.sparse.get(row);
    if (r === undefined || r.domains !== domains) {
      // apart from the bump region, which every write reuses; TableMemory.alloc zero-fills
      r = { addr: this.table.mem.alloc((domains + 1) * 8), domains, written: new Int32Array(16), count: 0 };
      this.sparse.set(row, r);
    }
    return r;
  }

  /** writes `sums[j]` at domain `ids[j]` of the row's sparse array, clearing the last write's cells */
  private sparseWrite(
    f64: Float64Array,
    r: { addr: number; written: Int32Array; count: number },
    ids: ArrayLike<number>,
    sums: ArrayLike<number>,
  ): number {
    const base = (r.addr >> 3) + 1;
    for (let j = 0; j < r.count; j++) f64[base + r.written[j]] = 0;
    if (r.written.length < ids.length) r.written = new Int32Array(ids.length * 2);
    for (let j = 0; j < ids.length; j++) {
      f64[base + ids[j]] = sums[j];
      r.written[j] = ids[j];
    }
    r.count = ids.length;
    return r.addr;
  }

  private alloc(bytes: number): number {
    const at = (this.top + 7) & ~7;
    this.top = at + bytes;
    return at;
  }

  /** writes `inputs` and returns the header fields that make a query read them */
  write(inputs: CrossPodInputs): CrossPodBlock {
    const table = this.table;
    const nodeCap = table.capacity;
    // 1. sizes, then one region
    let bytes = 64 + inputs.checks.length * 8;
    for (const c of inputs.checks) bytes += c.pass.length + 1 + 8;
    if (inputs.ipa)
      // (a key with ids writes its sums into its sparse row, not here)
      for (const k of inputs.ipa.keys)
        bytes +=
          ((k.ids === undefined ? 1 : 0) + (k.terms?.length ?? 0)) * ((k.domains + 1) * 8 + 8) +
          (1 + (k.terms?.length ?? 0)) * 16;
    if (inputs.pts) {
      bytes += inputs.pts.constraints.length * L.PTS_INTS * 4;
      for (const c of inputs.pts.constraints)
        bytes += c.perNode ? nodeCap * 8 + 16 : ((c.domainCounts?.length ?? 0) + 1) * 9 + 16;
    }
    if (bytes > this.cap) {
      this.cap = Math.max(bytes, this.cap * 2, 4096);
      this.addr = table.mem.alloc(this.cap);
    }
    this.top = this.addr;
    if (nodeCap * 16 > this.scratchCap) {
      this.scratchCap = nodeCap * 16;
      this.scratchAddr = table.mem.alloc(this.scratchCap);
    }
    if (inputs.pts && this.logLen < table.size + 1) {
      this.logLen = Math.max(table.size + 1, this.logLen * 2, 64);
      this.logAddr = table.mem.alloc(this.logLen * 8);
      const f64 = table.mem.f64;
      // upstream topologyNormalizingWeight: math.Log(float64(size + 2))
      for (let k = 0; k < this.logLen; k++) f64[(this.logAddr >> 3) + k] = Math.log(k + 2);
    }
    // sparse rows allocated before the views are taken (an allocation may grow the memory)
    if (inputs.ipa)
      for (const k of inputs.ipa.keys) if (k.ids !== undefined) this.sparseFor(k.row, k.domains);
    // views after every allocation above
    const mem = table.mem;
    const i32 = mem.i32,
      u8 = mem.u8,
      f64 = mem.f64;
    const fields: [number, number][] = [[L.Q_X_OFF_SCRATCH, this.scratchAddr]];

    // 2. filter checks
    const checks = inputs.checks;
    if (checks.length > 0) {
      const at = this.alloc(checks.length * 8);
      for (let k = 0; k < checks.length; k++) {
        const c = checks[k];
        const arr = this.alloc(c.pass.length + 1);
        u8[arr] = c.missing;
        const p = c.pass;
        if (p instanceof Uint8Array) u8.set(p, arr + 1);
        else for (let id = 0; id < p.length; id++) u8[arr + 1 + id] = p[id];
        i32[(at >> 2) + 2 * k] = c.row;
        i32[(at >> 2) + 2 * k + 1] = arr;
      }
      fields.push([L.Q_X_NUM_CHECKS, checks.length], [L.Q_X_OFF_CHECKS, at]);
    }

    // 3. InterPodAffinity's sums per domain
    const ipa = inputs.ipa;
    if (ipa && ipa.keys.length > 0) {
      let entries = 0;
      for (const key of ipa.keys) entries += 1 + (key.terms?.length ?? 0);
      const at = this.alloc(entries * 16);
      let e = 0;
      const entry = (row: number, arr: number, weight: number) => {
        i32[(at >> 2) + 4 * e] = row;
        i32[(at >> 2) + 4 * e + 1] = arr;
        i32[(at >> 2) + 4 * e + 2] = weight;
        i32[(at >> 2) + 4 * e + 3] = 0;
        e++;
      };
      for (const key of ipa.keys) {
        const { ids, sums } = key;
        let arr: number;
        if (ids === undefined) {
          arr = this.alloc((key.domains + 1) * 8);
          const base = (arr >> 3) + 1;
          f64[base - 1] = 0;
          if (sums instanceof Float64Array) f64.set(sums.subarray(0, key.domains), base);
          else for (let id = 0; id < key.domains; id++) f64[base + id] = sums[id];
        } else arr = this.sparseWrite(f64, this.sparseFor(key.row, key.domains), ids, sums);
        entry(key.row, arr, 1);
        for (const t of key.terms ?? []) {
          const ta = this.alloc((key.domains + 1) * 8);
          f64[ta >> 3] = 0;
          if (t.counts instanceof Float64Array) f64.set(t.counts.subarray(0, key.domains), (ta >> 3) + 1);
          else for (let id = 0; id < key.domains; id++) f64[(ta >> 3) + 1 + id] = t.counts[id];
          entry(key.row, ta, t.weight);
        }
      }
      fields.push([L.Q_X_NUM_IPA, entries], [L.Q_X_OFF_IPA, at], [L.Q_X_W_IPA, ipa.weight]);
    }

    // 4. PodTopologySpread's counts per domain (or per node) and the seen scratch
    const pts = inputs.pts;
    if (pts && pts.constraints.length > 0) {
      const at = this.alloc(pts.constraints.length * L.PTS_INTS * 4);
      for (let k = 0; k < pts.constraints.length; k++) {
        const c = pts.constraints[k];
        const e = (at >> 2) + k * L.PTS_INTS;
        let counts: number;
        let domains = 1;
        if (c.perNode) {
          counts = this.alloc(nodeCap * 8);
          f64.fill(0, counts >> 3, (counts >> 3) + nodeCap);
          for (const [ni, n] of c.perNode) if (ni.slot >= 0) f64[(counts >> 3) + ni.slot] = n;
        } else {
          const dc = c.domainCounts ?? [];
          domains = dc.length + 1;
          counts = this.alloc(domains * 8);
          f64[counts >> 3] = 0;
          if (dc instanceof Float64Array) f64.set(dc, (counts >> 3) + 1);
          else for (let id = 0; id < dc.length; id++) f64[(counts >> 3) + 1 + id] = dc[id];
        }
        const seen = this.alloc(domains);
        i32[e + L.PTS_ROW] = c.row;
        i32[e + L.PTS_PER_NODE] = c.perNode ? 1 : 0;
        i32[e + L.PTS_COUNTS] = counts;
        i32[e + L.PTS_SKEW] = c.maxSkew - 1;
        i32[e + L.PTS_SEEN] = seen;
        i32[e + L.PTS_DOMAINS] = domains;
      }
      fields.push(
        [L.Q_X_NUM_PTS, pts.constraints.length],
        [L.Q_X_OFF_PTS, at],
        [L.Q_X_W_PTS, pts.weight],
        [L.Q_X_PTS_ALL_KEYS, pts.requireAllKeys ? 1 : 0],
        [L.Q_X_OFF_LOG, this.logAddr],
      );
    }
    return { fields };
  }
}

/** points a compiled query's header at a written block (the query's own fields are left alone) */
export function applyCrossPod(table: NodeTable, queryAddr: number, block: CrossPodBlock): void {
  const i32 = table.mem.i32;
  const q = queryAddr >> 2;
  for (const [f, v] of block.fields) i32[q + f] = v;
}

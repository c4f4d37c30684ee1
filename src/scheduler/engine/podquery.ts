/**
 * compilePod: a pod compiled against one NodeTable for the kernels — kube-scheduler's PreFilter and
 * PreScore work for the node-local plugins, done once per scheduling cycle — and the binary query
 * both kernels read (layout.ts Q_*, described at the top of assembly/scheduler.ts).
 */
import { tolerationsTolerateTaint, UNSCHEDULABLE_TAINT } from '../../api/taints.js';
import type { Pod, Toleration } from '../../api/types.js';
import { type CompiledAffinity, compileNodeAffinity, type Expr } from './affinity.js';
import * as L from './layout.js';
import { MAX_CUSTOM_PRIORITY_SCORE, type ResolvedScoring, resolveScoring } from './scoring.js';
import type { NodeTable, PodAccounting } from './table.js';
import { MAX_NODE_SCORE, NUM_SCORE_PLUGINS } from './types.js';

const DEFAULT_SCORING = resolveScoring();

/**
 * A pod compiled against one NodeTable (kube-scheduler's PreFilter/PreScore work, done once per
 * scheduling cycle): filter request vector, taint masks, node affinity as expressions over interned
 * label value ids, a host-port conflict node bitset, score inputs. Its binary form lives in the
 * table's memory at `addr` (layout in assembly/scheduler.ts) and is read by both kernels. A query is
 * valid until the next compilePod into the same {@link QueryArena} or the next table update.
 */
export class PodQuery {
  constructor(
    readonly table: NodeTable,
    readonly pod: Pod,
    readonly arena: QueryArena,
    readonly addr: number,
    readonly seq: number,
    readonly generation: number,
    /** required nodeSelectorTerms skipped because they failed to parse (upstream ignores them lazily) */
    readonly affinityErrors: string[],
    /** what assuming this pod adds to the table: pass to {@link NodeTable.addPod} with the assumed copy */
    readonly accounting: PodAccounting,
  ) {}

  /** Throws if the table or the arena changed since this query was compiled. */
  assertFresh(): void {
    if (this.arena.seq !== this.seq)
      throw new Error(
        `PodQuery for ${this.pod.metadata?.name}: superseded by a later compilePod into the same arena`,
      );
    if (this.table.generation !== this.generation)
      throw new Error(
        `PodQuery for ${this.pod.metadata?.name}: the NodeTable changed since it was compiled; compile again`,
      );
  }
}

/** A reusable region of the table's memory that holds one compiled query at a time. */
export class QueryArena {
  addr = 0;
  cap = 0;
  seq = 0;
  /** `minBytes`: the first region's size (a cache entry's arena holds one pod's query: querycache.ts) */
  constructor(
    readonly table: NodeTable,
    private readonly minBytes = 4096,
  ) {}

  reserve(bytes: number): number {
    if (bytes > this.cap) {
      this.cap = Math.max(bytes, this.cap * 2, this.minBytes);
      this.addr = this.table.mem.alloc(this.cap);
    } else {
      this.table.mem.u8.fill(0, this.addr, this.addr + bytes);
    }
    this.seq++;
    return this.addr;
  }
}

const arenas = new WeakMap<NodeTable, QueryArena>();
/** The table's default arena (one live query at a time). */
export function defaultArena(table: NodeTable): QueryArena {
  let a = arenas.get(table);
  if (!a) arenas.set(table, (a = new QueryArena(table)));
  return a;
}

/** upstream ImageLocality normalizedImageName: append ":latest" when the name has no tag */
export function normalizedImageName(name: string): string {
  return name.lastIndexOf(':') <= name.lastIndexOf('/') ? name + ':latest' : name;
}

/** normalizedImageName by spelling: the same few image references recur across thousands of pods */
const imageNameCache = new Map<string, string>();
function cachedNormalizedImageName(name: string): string {
  let n = imageNameCache.get(name);
  if (n === undefined) {
    if (imageNameCache.size >= 1 << 14) imageNameCache.clear();
    imageNameCache.set(name, (n = normalizedImageName(name)));
  }
  return n;
}

/** NoSchedule/NoExecute and PreferNoSchedule taint masks of a pod without tolerations, per table */
interface NoTolerationMasks {
  taints: number;
  words: number;
  block: Uint32Array;
  prefer: Uint32Array;
  anyPrefer: boolean;
}
const noTolerationCache = new WeakMap<NodeTable, NoTolerationMasks>();

/**
 * A pod without tolerations is blocked by every NoSchedule/NoExecute taint and counts every
 * PreferNoSchedule one. The masks depend only on the table's taint dictionary, which only grows,
 * so they are rebuilt when it grew — not per pod.
 */
function noTolerationMasks(table: NodeTable): NoTolerationMasks {
  const list = table.taintList;
  const words = table.taintWords;
  let m = noTolerationCache.get(table);
  if (m && m.taints === list.length && m.words === words) return m;
  m = {
    taints: list.length,
    words,
    block: new Uint32Array(words),
    prefer: new Uint32Array(words),
    anyPrefer: false,
  };
  for (let id = 0; id < list.length; id++) {
    if (list[id].effect === 'PreferNoSchedule') {
      m.prefer[id >>> 5] |= 1 << (id & 31);
      m.anyPrefer = true;
    } else m.block[id >>> 5] |= 1 << (id & 31);
  }
  noTolerationCache.set(table, m);
  return m;
}

/** amount of resource row `row` in [row, amount] pairs (0 when absent) */
function pairAmount(pairs: readonly number[], row: number): number {
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === row) return pairs[i + 1];
  return 0;
}

/** whether NodeResourcesFit's filter checks this request: cpu, memory, ephemeral-storage, scalar resources */
function filterChecks(table: NodeTable, row: number, amount: number): boolean {
  return amount > 0 && row !== L.R_PODS && (row <= L.R_EPHEMERAL || table.isScalarRow(row));
}

// per-call scratch (compilePod is synchronous and not re-entrant): image ids and scaled scores
const imgIds: number[] = [];
const imgScores: number[] = [];

const pad8 = (bytes: number) => (bytes + 7) & ~7;
const EMPTY_SPEC = { containers: [] } as unknown as NonNullable<Pod['spec']>;

/** What compilePod gathers before it writes the binary query. */
interface QueryParts {
  flags: number;
  /** -1 no spec.nodeName, -2 names a node not in the table, else its slot */
  nodeName: number;
  acct: PodAccounting;
  /** requests NodeResourcesFit's filter checks (cpu, memory, ephemeral-storage, scalar; not pods) */
  numReq: number;
  affinity: CompiledAffinity;
  /** nodeSelector, then each required term, then each preferred term */
  exprs?: Expr[];
  numContainers: number;
  scoring: ResolvedScoring;
}

/** Byte offsets of the query's sections from its base (8-byte aligned, after the header). */
interface QueryLayout {
  size: number;
  block: number;
  prefer: number;
  expr: number;
  terms: number;
  pref: number;
  req: number;
  reqList: number;
  ports: number;
  img: number;
  imgScore: number;
  fitRes: number;
  fitKind: number;
  fitW: number;
  fitReq: number;
  shapeU: number;
  shapeS: number;
  balRes: number;
  balKind: number;
  balReq: number;
  /** value bitsets of OP_IN / OP_NOT_IN expressions, one after the other */
  sets: number;
}

/**
 * Compiles a pod for {@link Kernel.filterAndScore}. `scoring` comes from {@link resolveScoring}
 * (default: kube-scheduler's default profile). Steps:
 *
 *   1. requests: the table's {@link PodAccounting} (interning resources may relayout the table,
 *      so every interning step comes first), and which of them NodeResourcesFit's filter checks;
 *   2. spec.nodeName → node slot;
 *   3. node affinity: nodeSelector AND (OR of required terms), preferred terms ({@link compileNodeAffinity});
 *   4. images: the pod's images present on some node, with their scaled scores (ImageLocality);
 *   5. layout: the byte offset of every section ({@link queryLayout}), then one reserve in the arena;
 *   6. write the sections: taint masks, filter requests, score inputs, images, host-port
 *      conflicts, expressions; then the header.
 *
 * Runs once per scheduling cycle, so the common pod (containers with requests and images, no
 * selectors or tolerations) allocates almost nothing: requests come from the table's
 * PodAccounting (kept on the query for the assume that follows), the no-toleration taint masks
 * are cached per table, and the binary form is written in place.
 * @throws PodQueryError for an invalid preferred affinity term; ResourceParseError for a bad quantity (naming the field)
 */
export function compilePod(
  table: NodeTable,
  pod: Pod,
  scoring: ResolvedScoring = DEFAULT_SCORING,
  arena = defaultArena(table),
): PodQuery {
  const spec = pod.spec ?? EMPTY_SPEC;
  const acct = table.podAccounting(pod);
  const numReq = countFilterRequests(table, acct.req);
  const affinity = compileNodeAffinity(table, pod);
  const numContainers = collectImages(table, spec);
  const parts: QueryParts = {
    flags: affinity.flags | (numReq === 0 ? L.QF_REQ_ZERO : 0) | (acct.ports.length > 0 ? L.QF_HAS_PORTS : 0),
    nodeName: nodeNameSlot(table, spec.nodeName),
    acct,
    numReq,
    affinity,
    exprs: allExpressions(affinity),
    numContainers,
    scoring,
  };
  const lay = queryLayout(table, parts);
  const base = arena.reserve(lay.size); // zero-filled
  parts.flags |= writeTaintMasks(table, spec.tolerations, base + lay.block, base + lay.prefer);
  writeFilterRequests(table, parts, base + lay.req, base + lay.reqList);
  parts.flags |= writeScoreInputs(table, parts, base, lay);
  writeImagesAndPorts(table, parts, base, lay);
  writeExpressions(table, parts, base, lay);
  writeHeader(table, parts, base, lay);
  return new PodQuery(table, pod, arena, base, arena.seq, table.generation, affinity.errors, acct);
}

/** step 1: the requests NodeResourcesFit's filter checks */
function countFilterRequests(table: NodeTable, pairs: readonly number[]): number {
  let n = 0;
  for (let i = 0; i < pairs.length; i += 2) if (filterChecks(table, pairs[i], pairs[i + 1])) n++;
  return n;
}

/** step 2 */
function nodeNameSlot(table: NodeTable, nodeName: string | undefined): number {
  if (!nodeName) return -1;
  const slot = table.nodeIndex(nodeName);
  return slot >= 0 ? slot : -2;
}

/** step 3: the expressions in query order — nodeSelector, each required term, each preferred term */
function allExpressions(a: CompiledAffinity): Expr[] | undefined {
  const numTerms = a.terms?.length ?? 0;
  const numPrefs = a.prefs?.length ?? 0;
  if ((a.sel?.length ?? 0) + numTerms + numPrefs === 0) return undefined;
  const exprs = a.sel ? [...a.sel] : [];
  for (let t = 0; t < numTerms; t++) exprs.push(...a.terms![t]);
  for (let t = 0; t < numPrefs; t++) exprs.push(...a.prefs![t].exprs);
  return exprs;
}

/**
 * step 4: image ids present on at least one node and their scaled scores into the scratch
 * arrays (init containers first, then containers, as upstream sumImageScores); returns the number
 * of init + regular containers (ImageLocality's maximum threshold)
 */
function collectImages(table: NodeTable, spec: NonNullable<Pod['spec']>): number {
  imgIds.length = 0;
  imgScores.length = 0;
  const total = table.size;
  const inits = spec.initContainers;
  const numInits = inits?.length ?? 0;
  const containers = spec.containers ?? [];
  const numContainers = numInits + containers.length;
  for (let i = 0; i < numContainers; i++) {
    const c = i < numInits ? inits![i] : containers[i - numInits];
    if (!c.image) continue;
    const id = table.images.get(cachedNormalizedImageName(c.image));
    if (id < 0 || table.imageNodes[id] === 0) continue;
    imgIds.push(id);
    imgScores.push(Math.trunc(table.imageSize[id] * (table.imageNodes[id] / total)));
  }
  return numContainers;
}

/** step 5: every section's offset (each 8-byte aligned) and the total size */
function queryLayout(table: NodeTable, q: QueryParts): QueryLayout {
  const { scoring, exprs } = q;
  const taintBytes = pad8(table.taintWords * 4);
  const fitNum = scoring.fitResources.length;
  const balNum = scoring.balancedResources.length;
  const shapeNum = scoring.shape.length;
  const numImgs = imgIds.length;
  let size = L.Q_HEADER_INTS * 4;
  const at = (bytes: number) => {
    const o = size;
    size += pad8(bytes);
    return o;
  };
  const lay: QueryLayout = {
    size: 0,
    block: at(taintBytes),
    prefer: at(taintBytes),
    expr: at((exprs?.length ?? 0) * 16),
    terms: at((q.affinity.terms?.length ?? 0) * 8),
    pref: at((q.affinity.prefs?.length ?? 0) * 16),
    req: at(table.resources.size * 8),
    reqList: at(q.numReq * 4),
    ports: at(q.acct.ports.length > 0 ? table.nodeWords * 4 : 0),
    img: at(numImgs * 4),
    imgScore: at(numImgs * 8),
    fitRes: at(fitNum * 4),
    fitKind: at(fitNum * 4),
    fitW: at(fitNum * 4),
    fitReq: at(fitNum * 8),
    shapeU: at(shapeNum * 4),
    shapeS: at(shapeNum * 4),
    balRes: at(balNum * 4),
    balKind: at(balNum * 4),
    balReq: at(balNum * 8),
    sets: 0,
  };
  lay.sets = size;
  if (exprs) for (const e of exprs) if (e.set) size += pad8(setWords(table, e) * 4);
  lay.size = size;
  return lay;
}

/** words of an OP_IN / OP_NOT_IN expression's value bitset (bit v + 1 per value id v) */
function setWords(table: NodeTable, e: Expr): number {
  return (table.labelValues[e.key].size + 1 + 31) >>> 5;
}

/**
 * step 6a: the NoSchedule/NoExecute taints the pod does not tolerate (TaintToleration's filter)
 * and the PreferNoSchedule ones (its score); returns QF_TOL_UNSCHEDULABLE / QF_HAS_PREFER_TAINTS
 */
function writeTaintMasks(
  table: NodeTable,
  tols: readonly Toleration[] | undefined,
  blockAt: number,
  preferAt: number,
): number {
  const u32 = table.mem.u32;
  const words = table.taintWords;
  const bw = blockAt >> 2,
    pw = preferAt >> 2;
  let flags = 0;
  if (!tols || tols.length === 0) {
    const m = noTolerationMasks(table);
    for (let w = 0; w < words; w++) {
      u32[bw + w] = m.block[w];
      u32[pw + w] = m.prefer[w];
    }
    return m.anyPrefer ? L.QF_HAS_PREFER_TAINTS : 0;
  }
  if (tolerationsTolerateTaint(tols, UNSCHEDULABLE_TAINT)) flags |= L.QF_TOL_UNSCHEDULABLE;
  const preferTols = tols.filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
  const list = table.taintList;
  for (let id = 0; id < list.length; id++) {
    const t = list[id];
    if (t.effect === 'PreferNoSchedule') {
      if (!tolerationsTolerateTaint(preferTols, t)) {
        u32[pw + (id >>> 5)] |= 1 << (id & 31);
        flags |= L.QF_HAS_PREFER_TAINTS;
      }
    } else if (!tolerationsTolerateTaint(tols, t)) u32[bw + (id >>> 5)] |= 1 << (id & 31);
  }
  return flags;
}

/** step 6b: NodeResourcesFit's filter request per resource and the list of requested resources */
function writeFilterRequests(table: NodeTable, q: QueryParts, reqAt: number, listAt: number): void {
  const { i32, f64 } = table.mem;
  const pairs = q.acct.req;
  const rq = reqAt >> 3,
    rl = listAt >> 2;
  for (let i = 0, n = 0; i < pairs.length; i += 2) {
    if (!filterChecks(table, pairs[i], pairs[i + 1])) continue;
    f64[rq + pairs[i]] = pairs[i + 1];
    i32[rl + n++] = pairs[i];
  }
}

/**
 * step 6c: score inputs — NodeResourcesFit's resources (non-zero cpu/memory requests), the
 * RequestedToCapacityRatio shape (scores ×10) and BalancedAllocation's resources (actual
 * requests); returns QF_BEST_EFFORT when BalancedAllocation's requests are all zero and its
 * PreScore (which skips such a pod) runs
 */
function writeScoreInputs(table: NodeTable, q: QueryParts, base: number, lay: QueryLayout): number {
  const { i32, f64 } = table.mem;
  const { acct, scoring } = q;
  const pairs = acct.req;
  const fitRes = scoring.fitResources;
  const fr = (base + lay.fitRes) >> 2,
    fk = (base + lay.fitKind) >> 2,
    fw = (base + lay.fitW) >> 2,
    fq = (base + lay.fitReq) >> 3;
  for (let i = 0; i < fitRes.length; i++) {
    const row = scoreRow(table, fitRes[i].name);
    i32[fr + i] = row;
    i32[fk + i] =
      row === L.R_CPU
        ? L.K_NONZERO_CPU
        : row === L.R_MEMORY
          ? L.K_NONZERO_MEM
          : row < 0
            ? L.K_SKIP
            : row === L.R_EPHEMERAL
              ? L.K_REQUESTED
              : L.K_SCALAR;
    i32[fw + i] = fitRes[i].weight;
    f64[fq + i] =
      row === L.R_CPU ? acct.nzCpu : row === L.R_MEMORY ? acct.nzMem : row < 0 ? 0 : pairAmount(pairs, row);
  }
  const shape = scoring.shape;
  const scale = MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE;
  for (let i = 0; i < shape.length; i++) {
    i32[((base + lay.shapeU) >> 2) + i] = shape[i].utilization;
    i32[((base + lay.shapeS) >> 2) + i] = shape[i].score * scale;
  }
  const balRes = scoring.balancedResources;
  let balZero = true;
  const br = (base + lay.balRes) >> 2,
    bk = (base + lay.balKind) >> 2,
    bq = (base + lay.balReq) >> 3;
  for (let i = 0; i < balRes.length; i++) {
    const row = scoreRow(table, balRes[i].name);
    const amount = row < 0 ? 0 : pairAmount(pairs, row);
    i32[br + i] = row;
    i32[bk + i] = row < 0 ? L.K_SKIP : row <= L.R_EPHEMERAL ? L.K_REQUESTED : L.K_SCALAR;
    f64[bq + i] = amount;
    if (amount !== 0) balZero = false;
  }
  return balZero && scoring.balancedSkipsBestEffort ? L.QF_BEST_EFFORT : 0;
}

/** step 6d: image ids and scores (ImageLocality); the node bitset of host-port conflicts (NodePorts) */
function writeImagesAndPorts(table: NodeTable, q: QueryParts, base: number, lay: QueryLayout): void {
  const { i32, u32, f64 } = table.mem;
  for (let i = 0; i < imgIds.length; i++) {
    i32[((base + lay.img) >> 2) + i] = imgIds[i];
    f64[((base + lay.imgScore) >> 3) + i] = imgScores[i];
  }
  for (const p of q.acct.ports) table.markPortConflicts(p, u32, (base + lay.ports) >> 2);
}

/** step 6e: expressions (i32[4]: op, label key, arg or bitset address, bitset words), required and preferred terms */
function writeExpressions(table: NodeTable, q: QueryParts, base: number, lay: QueryLayout): void {
  const exprs = q.exprs;
  if (!exprs) return;
  const { i32, u32 } = table.mem;
  let setAt = base + lay.sets;
  for (let e = 0; e < exprs.length; e++) {
    const x = exprs[e];
    const at = ((base + lay.expr) >> 2) + e * 4;
    i32[at] = x.op;
    i32[at + 1] = x.key;
    if (x.set) {
      for (const v of x.set) u32[(setAt >> 2) + ((v + 1) >>> 5)] |= 1 << ((v + 1) & 31);
      i32[at + 2] = setAt;
      i32[at + 3] = setWords(table, x);
      setAt += pad8(i32[at + 3] * 4);
    } else i32[at + 2] = x.arg;
  }
  const { sel, terms, prefs } = q.affinity;
  let first = sel?.length ?? 0;
  for (let t = 0; t < (terms?.length ?? 0); t++) {
    i32[((base + lay.terms) >> 2) + t * 2] = first;
    i32[((base + lay.terms) >> 2) + t * 2 + 1] = terms![t].length;
    first += terms![t].length;
  }
  for (let t = 0; t < (prefs?.length ?? 0); t++) {
    const at = ((base + lay.pref) >> 2) + t * 4;
    i32[at] = first;
    i32[at + 1] = prefs![t].exprs.length;
    i32[at + 2] = prefs![t].weight;
    first += prefs![t].exprs.length;
  }
}

/** step 6f: the header — counts, flags, weights and every section's byte address */
function writeHeader(table: NodeTable, q: QueryParts, base: number, lay: QueryLayout): void {
  const i32 = table.mem.i32;
  const h = base >> 2;
  const { scoring, affinity } = q;
  i32[h + L.Q_FLAGS] = q.flags;
  i32[h + L.Q_NODE_NAME] = q.nodeName;
  i32[h + L.Q_TAINT_WORDS] = table.taintWords;
  i32[h + L.Q_SEL_START] = 0;
  i32[h + L.Q_SEL_COUNT] = affinity.sel?.length ?? 0;
  i32[h + L.Q_NUM_TERMS] = affinity.terms?.length ?? 0;
  i32[h + L.Q_NUM_PREF] = affinity.prefs?.length ?? 0;
  i32[h + L.Q_NUM_REQ] = q.numReq;
  i32[h + L.Q_NUM_IMAGES] = imgIds.length;
  i32[h + L.Q_NUM_CONTAINERS] = q.numContainers;
  i32[h + L.Q_FIT_TYPE] = scoring.fitType;
  i32[h + L.Q_FIT_NUM] = scoring.fitResources.length;
  i32[h + L.Q_SHAPE_NUM] = scoring.shape.length;
  i32[h + L.Q_BAL_NUM] = scoring.balancedResources.length;
  for (let p = 0; p < NUM_SCORE_PLUGINS; p++) i32[h + L.Q_W + p] = scoring.weights[p];
  i32[h + L.Q_NUM_RES] = table.resources.size;
  i32[h + L.Q_OFF_BLOCK] = base + lay.block;
  i32[h + L.Q_OFF_PREFER] = base + lay.prefer;
  i32[h + L.Q_OFF_EXPR] = base + lay.expr;
  i32[h + L.Q_OFF_TERMS] = base + lay.terms;
  i32[h + L.Q_OFF_PREF] = base + lay.pref;
  i32[h + L.Q_OFF_REQ] = base + lay.req;
  i32[h + L.Q_OFF_REQLIST] = base + lay.reqList;
  i32[h + L.Q_OFF_PORTS] = base + lay.ports;
  i32[h + L.Q_OFF_IMG] = base + lay.img;
  i32[h + L.Q_OFF_IMGSCORE] = base + lay.imgScore;
  i32[h + L.Q_OFF_FIT_RES] = base + lay.fitRes;
  i32[h + L.Q_OFF_FIT_KIND] = base + lay.fitKind;
  i32[h + L.Q_OFF_FIT_W] = base + lay.fitW;
  i32[h + L.Q_OFF_FIT_REQ] = base + lay.fitReq;
  i32[h + L.Q_OFF_SHAPE_U] = base + lay.shapeU;
  i32[h + L.Q_OFF_SHAPE_S] = base + lay.shapeS;
  i32[h + L.Q_OFF_BAL_RES] = base + lay.balRes;
  i32[h + L.Q_OFF_BAL_KIND] = base + lay.balKind;
  i32[h + L.Q_OFF_BAL_REQ] = base + lay.balReq;
}

/** row of a scoring resource: cpu, memory, ephemeral-storage always; a scalar resource if interned; else -1 (skipped) */
function scoreRow(table: NodeTable, name: string): number {
  if (name === 'cpu') return L.R_CPU;
  if (name === 'memory') return L.R_MEMORY;
  if (name === 'ephemeral-storage') return L.R_EPHEMERAL;
  const r = table.resources.get(name);
  return r < 0 || !table.isScalarRow(r) ? -1 : r;
}

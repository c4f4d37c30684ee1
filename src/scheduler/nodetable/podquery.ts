import { tolerationsTolerateTaint, UNSCHEDULABLE_TAINT } from '../../api/taints.js';
import type { NodeSelectorRequirement, NodeSelectorTerm, Pod } from '../../api/types.js';
import { DEFAULT_SCORE_WEIGHTS, MAX_NODE_SCORE, NUM_SCORE_PLUGINS, SCORE_PLUGINS } from '../kernels/types.js';
import type { ResourceSpec, ScoringConfig, UtilizationShapePoint } from '../kernels/types.js';
import * as L from './layout.js';
import type { NodeTable } from './table.js';
import type { PodAccounting } from './table.js';

/** A pod spec the engine cannot compile (e.g. an invalid preferred node affinity term), naming the field. */
export class PodQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PodQueryError';
  }
}

/** upstream config.MaxCustomPriorityScore: RequestedToCapacityRatio shape scores are 0..10 */
export const MAX_CUSTOM_PRIORITY_SCORE = 10;
const DEFAULT_RESOURCES: ResourceSpec[] = [
  { name: 'cpu', weight: 1 },
  { name: 'memory', weight: 1 },
];

/** A validated {@link ScoringConfig} with defaults filled in; build once per profile. */
export interface ResolvedScoring {
  weights: number[];
  fitType: number;
  fitResources: ResourceSpec[];
  shape: UtilizationShapePoint[];
  balancedResources: ResourceSpec[];
}

/** Validates a scoring config (TypeError naming the field) and fills kube-scheduler's defaults. */
export function resolveScoring(config: ScoringConfig = {}): ResolvedScoring {
  const weights = SCORE_PLUGINS.map((p) => {
    const w = config.weights?.[p] ?? DEFAULT_SCORE_WEIGHTS[p];
    if (!Number.isInteger(w) || w < 0)
      throw new TypeError(`scoring.weights.${p}: must be a non-negative integer, got ${w}`);
    return w;
  });
  const fit = config.fit ?? { type: 'LeastAllocated' };
  const fitType = ['LeastAllocated', 'MostAllocated', 'RequestedToCapacityRatio'].indexOf(fit.type);
  if (fitType < 0)
    throw new TypeError(
      `scoring.fit.type: must be LeastAllocated, MostAllocated or RequestedToCapacityRatio, got ${fit.type}`,
    );
  const checkRes = (list: ResourceSpec[], field: string) => {
    list.forEach((r, i) => {
      if (!r.name) throw new TypeError(`${field}[${i}].name: required`);
      if (!Number.isInteger(r.weight) || r.weight < 1 || r.weight > 100)
        throw new TypeError(`${field}[${i}].weight: must be an integer in 1..100, got ${r.weight}`);
    });
    return list;
  };
  const fitResources = checkRes(fit.resources ?? DEFAULT_RESOURCES, 'scoring.fit.resources');
  const shape = fit.shape ?? [];
  if (fitType === 2) {
    if (shape.length === 0)
      throw new TypeError('scoring.fit.shape: RequestedToCapacityRatio needs at least one point');
    shape.forEach((p, i) => {
      if (!Number.isInteger(p.utilization) || p.utilization < 0 || p.utilization > 100)
        throw new TypeError(`scoring.fit.shape[${i}].utilization: must be an integer in 0..100`);
      if (!Number.isInteger(p.score) || p.score < 0 || p.score > MAX_CUSTOM_PRIORITY_SCORE)
        throw new TypeError(`scoring.fit.shape[${i}].score: must be an integer in 0..10`);
      if (i > 0 && p.utilization <= shape[i - 1].utilization)
        throw new TypeError(`scoring.fit.shape[${i}].utilization: must be greater than the previous point's`);
    });
  }
  const balancedResources = checkRes(
    config.balancedResources ?? DEFAULT_RESOURCES,
    'scoring.balancedResources',
  );
  return { weights, fitType, fitResources, shape, balancedResources };
}

const DEFAULT_SCORING = resolveScoring();

/** upstream ImageLocality normalizedImageName: append ":latest" when the name has no tag */
export function normalizedImageName(name: string): string {
  return name.lastIndexOf(':') <= name.lastIndexOf('/') ? name + ':latest' : name;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** strconv.ParseInt(s, 10, 64): optional sign, decimal digits, in range; else undefined */
export function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const v = BigInt(s);
  return v < INT64_MIN || v > INT64_MAX ? undefined : v;
}

interface Expr {
  op: number;
  key: number;
  /** OP_IN/NOT_IN: value ids (bit v+1); OP_EQ/NE: arg; NAME ops: slot */
  arg: number;
  set?: number[];
}

interface Term {
  exprs: Expr[];
  weight: number;
}

const TRUE: Expr = { op: L.OP_TRUE, key: 0, arg: 0 };
const FALSE: Expr = { op: L.OP_FALSE, key: 0, arg: 0 };

/** where a requirement sits, for error messages: built only when one is thrown */
type Where = () => string;

function labelExpr(table: NodeTable, r: NodeSelectorRequirement, where: Where): Expr {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0)
        throw new PodQueryError(`${where()}: for 'in', 'notin' operators, values set can't be empty`);
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0)
        throw new PodQueryError(`${where()}: values set must be empty for exists and does not exist`);
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1)
        throw new PodQueryError(`${where()}: for 'Gt', 'Lt' operators, exactly one value is required`);
      if (parseInt64(values[0]) === undefined)
        throw new PodQueryError(`${where()}: for 'Gt', 'Lt' operators, the value must be an integer`);
      break;
    default:
      throw new PodQueryError(
        `${where()}: ${JSON.stringify(r.operator)} is not a valid label selector operator`,
      );
  }
  const k = table.labelKeys.get(r.key);
  if (k < 0) {
    // no node has the key
    return r.operator === 'DoesNotExist' || r.operator === 'NotIn' ? TRUE : FALSE;
  }
  const dict = table.labelValues[k];
  switch (r.operator) {
    case 'Exists':
      return { op: L.OP_EXISTS, key: k, arg: 0 };
    case 'DoesNotExist':
      return { op: L.OP_NOT_EXISTS, key: k, arg: 0 };
    case 'In':
    case 'NotIn': {
      const ids: number[] = [];
      for (const v of values) {
        const id = dict.get(v);
        if (id >= 0 && !ids.includes(id)) ids.push(id);
      }
      const neg = r.operator === 'NotIn';
      if (ids.length === 0) return neg ? TRUE : FALSE;
      if (ids.length === 1) return { op: neg ? L.OP_NE : L.OP_EQ, key: k, arg: ids[0] + 1 };
      return { op: neg ? L.OP_NOT_IN : L.OP_IN, key: k, arg: 0, set: ids };
    }
    default: {
      // Gt / Lt: the label must exist and parse as int64; precompute which interned values satisfy it
      const bound = parseInt64(values[0])!;
      const ids: number[] = [];
      for (let v = 0; v < dict.size; v++) {
        const n = parseInt64(dict.value(v));
        if (n === undefined) continue;
        if (r.operator === 'Gt' ? n > bound : n < bound) ids.push(v);
      }
      if (ids.length === 0) return FALSE;
      return { op: L.OP_IN, key: k, arg: 0, set: ids };
    }
  }
}

function fieldExpr(table: NodeTable, r: NodeSelectorRequirement, where: Where): Expr {
  const values = r.values ?? [];
  if (r.operator !== 'In' && r.operator !== 'NotIn')
    throw new PodQueryError(
      `${where()}.operator: ${JSON.stringify(r.operator)} is not a valid selector operator`,
    );
  if (values.length !== 1) throw new PodQueryError(`${where()}.values: must have one element`);
  const neg = r.operator === 'NotIn';
  if (r.key !== 'metadata.name') {
    // a node's only field is metadata.name; any other field reads as ""
    return (values[0] === '') !== neg ? TRUE : FALSE;
  }
  const slot = table.nodeIndex(values[0]);
  if (slot < 0) return neg ? TRUE : FALSE;
  return { op: neg ? L.OP_NAME_NE : L.OP_NAME_EQ, key: 0, arg: slot };
}

function isEmptyTerm(t: NodeSelectorTerm | undefined): boolean {
  return !t || ((t.matchExpressions?.length ?? 0) === 0 && (t.matchFields?.length ?? 0) === 0);
}

/** null when the term can never match; throws PodQueryError on invalid requirements */
function compileTerm(table: NodeTable, t: NodeSelectorTerm, where: Where): Expr[] | null {
  const out: Expr[] = [];
  let ok = true;
  // every requirement is validated even after one can never match (its error must still surface)
  const exprs = t.matchExpressions ?? [];
  for (let i = 0; i < exprs.length; i++) {
    const e = labelExpr(table, exprs[i], () => `${where()}.matchExpressions[${i}]`);
    if (e.op === L.OP_FALSE) ok = false;
    else if (e.op !== L.OP_TRUE) out.push(e);
  }
  const fields = t.matchFields ?? [];
  for (let i = 0; i < fields.length; i++) {
    const e = fieldExpr(table, fields[i], () => `${where()}.matchFields[${i}]`);
    if (e.op === L.OP_FALSE) ok = false;
    else if (e.op !== L.OP_TRUE) out.push(e);
  }
  return ok ? out : null;
}

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
  constructor(readonly table: NodeTable) {}

  reserve(bytes: number): number {
    if (bytes > this.cap) {
      this.cap = Math.max(bytes, this.cap * 2, 4096);
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

/**
 * Compiles a pod for {@link Kernel.filterAndScore}. `scoring` comes from {@link resolveScoring}
 * (default: kube-scheduler's default profile).
 *
 * Runs once per scheduling cycle, so the common pod (containers with requests and images, no
 * selectors or tolerations) allocates almost nothing: requests come from the table's
 * {@link PodAccounting} (kept on the query for the assume that follows), the no-toleration taint
 * masks are cached per table, and the binary form is written in place.
 * @throws PodQueryError for an invalid preferred affinity term; ResourceParseError for a bad quantity (naming the field)
 */
export function compilePod(
  table: NodeTable,
  pod: Pod,
  scoring: ResolvedScoring = DEFAULT_SCORING,
  arena = defaultArena(table),
): PodQuery {
  const spec = pod.spec ?? EMPTY_SPEC;
  let flags = 0;

  // ---- requests (interning resources may relayout the table, so every interning step comes first)
  const acct = table.podAccounting(pod);
  const pairs = acct.req;
  let numReq = 0;
  for (let i = 0; i < pairs.length; i += 2) if (filterChecks(table, pairs[i], pairs[i + 1])) numReq++;
  if (numReq === 0) flags |= L.QF_REQ_ZERO;

  // ---- node name
  const nodeName = spec.nodeName
    ? table.nodeIndex(spec.nodeName) >= 0
      ? table.nodeIndex(spec.nodeName)
      : -2
    : -1;

  // ---- node affinity: nodeSelector AND (OR of required terms); preferred terms
  let sel: Expr[] | undefined;
  if (spec.nodeSelector) {
    sel = [];
    for (const [k, v] of Object.entries(spec.nodeSelector)) {
      const ki = table.labelKeys.get(k);
      const vi = ki >= 0 ? table.labelValues[ki].get(v) : -1;
      if (vi < 0) flags |= L.QF_SELECTOR_NEVER;
      else sel.push({ op: L.OP_EQ, key: ki, arg: vi + 1 });
    }
  }
  let affinityErrors: string[] = NO_ERRORS;
  let terms: Expr[][] | undefined;
  let prefs: Term[] | undefined;
  const nodeAffinity = spec.affinity?.nodeAffinity;
  if (nodeAffinity) {
    const name = () => `pod ${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? '?'}`;
    const required = nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
    if (required) {
      flags |= L.QF_HAS_REQUIRED;
      terms = [];
      (required.nodeSelectorTerms ?? []).forEach((t, i) => {
        if (isEmptyTerm(t)) return; // an empty term selects no objects
        const where = () =>
          `${name()}: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[${i}]`;
        try {
          const c = compileTerm(table, t, where);
          if (c) terms!.push(c);
        } catch (e) {
          if (!(e instanceof PodQueryError)) throw e;
          if (affinityErrors === NO_ERRORS) affinityErrors = [];
          affinityErrors.push(e.message); // upstream LazyErrorNodeSelector: the term is skipped
        }
      });
    }
    prefs = [];
    (nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((p, i) => {
      if (!p.weight || isEmptyTerm(p.preference)) return;
      const c = compileTerm(
        table,
        p.preference,
        () =>
          `${name()}: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[${i}].preference`,
      );
      if (c) prefs!.push({ exprs: c, weight: p.weight });
    });
  }

  // ---- images (init containers first, then containers, as sumImageScores)
  imgIds.length = 0;
  imgScores.length = 0;
  const total = table.size;
  const inits = spec.initContainers;
  const containers = spec.containers ?? [];
  const numContainers = (inits?.length ?? 0) + containers.length;
  for (let i = 0; i < numContainers; i++) {
    const c = inits && i < inits.length ? inits[i] : containers[i - (inits?.length ?? 0)];
    if (!c.image) continue;
    const id = table.images.get(cachedNormalizedImageName(c.image));
    if (id < 0 || table.imageNodes[id] === 0) continue;
    imgIds.push(id);
    imgScores.push(Math.trunc(table.imageSize[id] * (table.imageNodes[id] / total)));
  }

  // ---- ports
  const ports = acct.ports;
  if (ports.length > 0) flags |= L.QF_HAS_PORTS;

  // ---- expressions: nodeSelector, then each required term, then each preferred term
  const selCount = sel?.length ?? 0;
  const numTerms = terms?.length ?? 0;
  const numPrefs = prefs?.length ?? 0;
  let exprs: Expr[] | undefined;
  if (selCount + numTerms + numPrefs > 0) {
    exprs = sel ? [...sel] : [];
    for (let t = 0; t < numTerms; t++) exprs.push(...terms![t]);
    for (let t = 0; t < numPrefs; t++) exprs.push(...prefs![t].exprs);
  }
  const numExprs = exprs?.length ?? 0;

  // ---- layout of the binary query (8-byte aligned sections after the header)
  const taintWords = table.taintWords;
  const nodeWords = table.nodeWords;
  const numRes = table.resources.size;
  const shape = scoring.shape;
  const fitRes = scoring.fitResources;
  const balRes = scoring.balancedResources;
  const numImgs = imgIds.length;
  let size = L.Q_HEADER_INTS * 4;
  const oBlock = size;
  size += pad8(taintWords * 4);
  const oPrefer = size;
  size += pad8(taintWords * 4);
  const oExpr = size;
  size += pad8(numExprs * 16);
  const oTerms = size;
  size += pad8(numTerms * 8);
  const oPref = size;
  size += pad8(numPrefs * 16);
  const oReq = size;
  size += pad8(numRes * 8);
  const oReqList = size;
  size += pad8(numReq * 4);
  const oPorts = size;
  size += pad8(ports.length > 0 ? nodeWords * 4 : 0);
  const oImg = size;
  size += pad8(numImgs * 4);
  const oImgScore = size;
  size += pad8(numImgs * 8);
  const oFitRes = size;
  size += pad8(fitRes.length * 4);
  const oFitKind = size;
  size += pad8(fitRes.length * 4);
  const oFitW = size;
  size += pad8(fitRes.length * 4);
  const oFitReq = size;
  size += pad8(fitRes.length * 8);
  const oShapeU = size;
  size += pad8(shape.length * 4);
  const oShapeS = size;
  size += pad8(shape.length * 4);
  const oBalRes = size;
  size += pad8(balRes.length * 4);
  const oBalKind = size;
  size += pad8(balRes.length * 4);
  const oBalReq = size;
  size += pad8(balRes.length * 8);
  const oSets = size;
  for (let e = 0; e < numExprs; e++)
    if (exprs![e].set) size += pad8(((table.labelValues[exprs![e].key].size + 1 + 31) >>> 5) * 4);

  const base = arena.reserve(size); // zero-filled
  const mem = table.mem;
  const i32 = mem.i32,
    u32 = mem.u32,
    f64 = mem.f64;
  const h = base >> 2;

  // ---- taints
  const tols = spec.tolerations;
  const bw = (base + oBlock) >> 2,
    pw = (base + oPrefer) >> 2;
  if (!tols || tols.length === 0) {
    const m = noTolerationMasks(table);
    for (let w = 0; w < taintWords; w++) {
      u32[bw + w] = m.block[w];
      u32[pw + w] = m.prefer[w];
    }
    if (m.anyPrefer) flags |= L.QF_HAS_PREFER_TAINTS;
  } else {
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
  }

  // ---- filter requests
  const rq = (base + oReq) >> 3,
    rl = (base + oReqList) >> 2;
  for (let i = 0, n = 0; i < pairs.length; i += 2) {
    if (!filterChecks(table, pairs[i], pairs[i + 1])) continue;
    f64[rq + pairs[i]] = pairs[i + 1];
    i32[rl + n++] = pairs[i];
  }

  // ---- score inputs: NodeResourcesFit (non-zero cpu/memory) and BalancedAllocation (actual requests)
  const fr = (base + oFitRes) >> 2,
    fk = (base + oFitKind) >> 2,
    fw = (base + oFitW) >> 2,
    fq = (base + oFitReq) >> 3;
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
  let balZero = true;
  const br = (base + oBalRes) >> 2,
    bk = (base + oBalKind) >> 2,
    bq = (base + oBalReq) >> 3;
  for (let i = 0; i < balRes.length; i++) {
    const row = scoreRow(table, balRes[i].name);
    const amount = row < 0 ? 0 : pairAmount(pairs, row);
    i32[br + i] = row;
    i32[bk + i] = row < 0 ? L.K_SKIP : row <= L.R_EPHEMERAL ? L.K_REQUESTED : L.K_SCALAR;
    f64[bq + i] = amount;
    if (amount !== 0) balZero = false;
  }
  if (balZero) flags |= L.QF_BEST_EFFORT;
  const scale = MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE;
  for (let i = 0; i < shape.length; i++) {
    i32[((base + oShapeU) >> 2) + i] = shape[i].utilization;
    i32[((base + oShapeS) >> 2) + i] = shape[i].score * scale;
  }

  // ---- images, ports, expressions
  for (let i = 0; i < numImgs; i++) {
    i32[((base + oImg) >> 2) + i] = imgIds[i];
    f64[((base + oImgScore) >> 3) + i] = imgScores[i];
  }
  if (ports.length > 0) for (const p of ports) table.markPortConflicts(p, u32, (base + oPorts) >> 2);
  if (exprs) {
    let setAt = base + oSets;
    for (let e = 0; e < numExprs; e++) {
      const x = exprs[e];
      const at = ((base + oExpr) >> 2) + e * 4;
      i32[at] = x.op;
      i32[at + 1] = x.key;
      if (x.set) {
        for (const v of x.set) u32[(setAt >> 2) + ((v + 1) >>> 5)] |= 1 << ((v + 1) & 31);
        i32[at + 2] = setAt;
        i32[at + 3] = (table.labelValues[x.key].size + 1 + 31) >>> 5; // the bitset's words
        setAt += pad8(i32[at + 3] * 4);
      } else i32[at + 2] = x.arg;
    }
    let first = selCount;
    for (let t = 0; t < numTerms; t++) {
      i32[((base + oTerms) >> 2) + t * 2] = first;
      i32[((base + oTerms) >> 2) + t * 2 + 1] = terms![t].length;
      first += terms![t].length;
    }
    for (let t = 0; t < numPrefs; t++) {
      const at = ((base + oPref) >> 2) + t * 4;
      i32[at] = first;
      i32[at + 1] = prefs![t].exprs.length;
      i32[at + 2] = prefs![t].weight;
      first += prefs![t].exprs.length;
    }
  }

  // ---- header
  i32[h + L.Q_FLAGS] = flags;
  i32[h + L.Q_NODE_NAME] = nodeName;
  i32[h + L.Q_TAINT_WORDS] = taintWords;
  i32[h + L.Q_SEL_START] = 0;
  i32[h + L.Q_SEL_COUNT] = selCount;
  i32[h + L.Q_NUM_TERMS] = numTerms;
  i32[h + L.Q_NUM_PREF] = numPrefs;
  i32[h + L.Q_NUM_REQ] = numReq;
  i32[h + L.Q_NUM_IMAGES] = numImgs;
  i32[h + L.Q_NUM_CONTAINERS] = numContainers;
  i32[h + L.Q_FIT_TYPE] = scoring.fitType;
  i32[h + L.Q_FIT_NUM] = fitRes.length;
  i32[h + L.Q_SHAPE_NUM] = shape.length;
  i32[h + L.Q_BAL_NUM] = balRes.length;
  for (let p = 0; p < NUM_SCORE_PLUGINS; p++) i32[h + L.Q_W + p] = scoring.weights[p];
  i32[h + L.Q_NUM_RES] = numRes;
  i32[h + L.Q_OFF_BLOCK] = base + oBlock;
  i32[h + L.Q_OFF_PREFER] = base + oPrefer;
  i32[h + L.Q_OFF_EXPR] = base + oExpr;
  i32[h + L.Q_OFF_TERMS] = base + oTerms;
  i32[h + L.Q_OFF_PREF] = base + oPref;
  i32[h + L.Q_OFF_REQ] = base + oReq;
  i32[h + L.Q_OFF_REQLIST] = base + oReqList;
  i32[h + L.Q_OFF_PORTS] = base + oPorts;
  i32[h + L.Q_OFF_IMG] = base + oImg;
  i32[h + L.Q_OFF_IMGSCORE] = base + oImgScore;
  i32[h + L.Q_OFF_FIT_RES] = base + oFitRes;
  i32[h + L.Q_OFF_FIT_KIND] = base + oFitKind;
  i32[h + L.Q_OFF_FIT_W] = base + oFitW;
  i32[h + L.Q_OFF_FIT_REQ] = base + oFitReq;
  i32[h + L.Q_OFF_SHAPE_U] = base + oShapeU;
  i32[h + L.Q_OFF_SHAPE_S] = base + oShapeS;
  i32[h + L.Q_OFF_BAL_RES] = base + oBalRes;
  i32[h + L.Q_OFF_BAL_KIND] = base + oBalKind;
  i32[h + L.Q_OFF_BAL_REQ] = base + oBalReq;

  return new PodQuery(table, pod, arena, base, arena.seq, table.generation, affinityErrors, acct);
}

const NO_ERRORS: string[] = [];

/** row of a scoring resource: cpu, memory, ephemeral-storage always; a scalar resource if interned; else -1 (skipped) */
function scoreRow(table: NodeTable, name: string): number {
  if (name === 'cpu') return L.R_CPU;
  if (name === 'memory') return L.R_MEMORY;
  if (name === 'ephemeral-storage') return L.R_EPHEMERAL;
  const r = table.resources.get(name);
  return r < 0 || !table.isScalarRow(r) ? -1 : r;
}

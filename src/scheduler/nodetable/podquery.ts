import type { NodeSelectorRequirement, NodeSelectorTerm, Pod, Taint, Toleration } from '../../api/types.js';
import { DEFAULT_SCORE_WEIGHTS, MAX_NODE_SCORE, NUM_SCORE_PLUGINS, SCORE_PLUGINS } from '../kernels/types.js';
import type { ResourceSpec, ScoringConfig, UtilizationShapePoint } from '../kernels/types.js';
import * as L from './layout.js';
import type { NodeTable } from './table.js';
import { podHostPorts } from './table.js';
import { isScalarResourceName, nonZeroCpuMem, podRequests } from './resources.js';

/** A pod spec the engine cannot compile (e.g. an invalid preferred node affinity term), naming the field. */
export class PodQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PodQueryError';
  }
}

/** upstream config.MaxCustomPriorityScore: RequestedToCapacityRatio shape scores are 0..10 */
export const MAX_CUSTOM_PRIORITY_SCORE = 10;
const DEFAULT_RESOURCES: ResourceSpec[] = [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }];

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
    if (!Number.isInteger(w) || w < 0) throw new TypeError(`scoring.weights.${p}: must be a non-negative integer, got ${w}`);
    return w;
  });
  const fit = config.fit ?? { type: 'LeastAllocated' };
  const fitType = ['LeastAllocated', 'MostAllocated', 'RequestedToCapacityRatio'].indexOf(fit.type);
  if (fitType < 0) throw new TypeError(`scoring.fit.type: must be LeastAllocated, MostAllocated or RequestedToCapacityRatio, got ${fit.type}`);
  const checkRes = (list: ResourceSpec[], field: string) => {
    list.forEach((r, i) => {
      if (!r.name) throw new TypeError(`${field}[${i}].name: required`);
      if (!Number.isInteger(r.weight) || r.weight < 1 || r.weight > 100) throw new TypeError(`${field}[${i}].weight: must be an integer in 1..100, got ${r.weight}`);
    });
    return list;
  };
  const fitResources = checkRes(fit.resources ?? DEFAULT_RESOURCES, 'scoring.fit.resources');
  const shape = fit.shape ?? [];
  if (fitType === 2) {
    if (shape.length === 0) throw new TypeError('scoring.fit.shape: RequestedToCapacityRatio needs at least one point');
    shape.forEach((p, i) => {
      if (!Number.isInteger(p.utilization) || p.utilization < 0 || p.utilization > 100) throw new TypeError(`scoring.fit.shape[${i}].utilization: must be an integer in 0..100`);
      if (!Number.isInteger(p.score) || p.score < 0 || p.score > MAX_CUSTOM_PRIORITY_SCORE) throw new TypeError(`scoring.fit.shape[${i}].score: must be an integer in 0..10`);
      if (i > 0 && p.utilization <= shape[i - 1].utilization) throw new TypeError(`scoring.fit.shape[${i}].utilization: must be greater than the previous point's`);
    });
  }
  const balancedResources = checkRes(config.balancedResources ?? DEFAULT_RESOURCES, 'scoring.balancedResources');
  return { weights, fitType, fitResources, shape, balancedResources };
}

const DEFAULT_SCORING = resolveScoring();

/** upstream Toleration.ToleratesTaint */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? '') {
    case '':
    case 'Equal':
      return (t.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

function toleratedByAny(tols: readonly Toleration[], taint: Taint): boolean {
  for (const t of tols) if (toleratesTaint(t, taint)) return true;
  return false;
}

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

function labelExpr(table: NodeTable, r: NodeSelectorRequirement, where: string): Expr {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) throw new PodQueryError(`${where}: for 'in', 'notin' operators, values set can't be empty`);
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0) throw new PodQueryError(`${where}: values set must be empty for exists and does not exist`);
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) throw new PodQueryError(`${where}: for 'Gt', 'Lt' operators, exactly one value is required`);
      if (parseInt64(values[0]) === undefined) throw new PodQueryError(`${where}: for 'Gt', 'Lt' operators, the value must be an integer`);
      break;
    default:
      throw new PodQueryError(`${where}: ${JSON.stringify(r.operator)} is not a valid label selector operator`);
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
      const ids = [...new Set(values.map((v) => dict.get(v)).filter((v) => v >= 0))];
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

function fieldExpr(table: NodeTable, r: NodeSelectorRequirement, where: string): Expr {
  const values = r.values ?? [];
  if (r.operator !== 'In' && r.operator !== 'NotIn') throw new PodQueryError(`${where}.operator: ${JSON.stringify(r.operator)} is not a valid selector operator`);
  if (values.length !== 1) throw new PodQueryError(`${where}.values: must have one element`);
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
function compileTerm(table: NodeTable, t: NodeSelectorTerm, where: string): Expr[] | null {
  const out: Expr[] = [];
  const add = (e: Expr) => {
    if (e.op === L.OP_FALSE) return false;
    if (e.op !== L.OP_TRUE) out.push(e);
    return true;
  };
  let ok = true;
  (t.matchExpressions ?? []).forEach((r, i) => { ok = add(labelExpr(table, r, `${where}.matchExpressions[${i}]`)) && ok; });
  (t.matchFields ?? []).forEach((r, i) => { ok = add(fieldExpr(table, r, `${where}.matchFields[${i}]`)) && ok; });
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
  ) {}

  /** Throws if the table or the arena changed since this query was compiled. */
  assertFresh(): void {
    if (this.arena.seq !== this.seq) throw new Error(`PodQuery for ${this.pod.metadata?.name}: superseded by a later compilePod into the same arena`);
    if (this.table.generation !== this.generation) throw new Error(`PodQuery for ${this.pod.metadata?.name}: the NodeTable changed since it was compiled; compile again`);
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

/**
 * Compiles a pod for {@link Kernel.filterAndScore}. `scoring` comes from {@link resolveScoring}
 * (default: kube-scheduler's default profile).
 * @throws PodQueryError for an invalid preferred affinity term or bad quantities (naming the field)
 */
export function compilePod(table: NodeTable, pod: Pod, scoring: ResolvedScoring = DEFAULT_SCORING, arena = defaultArena(table)): PodQuery {
  const name = `pod ${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? '?'}`;
  const spec = pod.spec ?? { containers: [] };
  let flags = 0;

  // ---- requests (interning resources may relayout the table, so do every interning step first)
  const req = podRequests(pod);
  const reqList: [number, number][] = [];
  for (const [k, v] of req) {
    if (k === 'pods' || v <= 0) continue;
    if (k !== 'cpu' && k !== 'memory' && k !== 'ephemeral-storage' && !isScalarResourceName(k)) continue;
    reqList.push([table.resourceIndex(k), v]);
  }
  if (reqList.length === 0) flags |= L.QF_REQ_ZERO;
  const nonZero = nonZeroCpuMem(pod);
  const scoreKind = (resName: string, useRequested: boolean): [number, number, number] => {
    // [resource index, K_* kind, pod request]
    const actual = req.get(resName) ?? 0;
    if (resName === 'cpu') return useRequested ? [L.R_CPU, L.K_REQUESTED, actual] : [L.R_CPU, L.K_NONZERO_CPU, nonZero.cpu];
    if (resName === 'memory') return useRequested ? [L.R_MEMORY, L.K_REQUESTED, actual] : [L.R_MEMORY, L.K_NONZERO_MEM, nonZero.memory];
    if (resName === 'ephemeral-storage') return [L.R_EPHEMERAL, L.K_REQUESTED, actual];
    const r = table.resources.get(resName);
    if (r < 0 || !isScalarResourceName(resName)) return [-1, L.K_SKIP, 0];
    return [r, L.K_SCALAR, actual];
  };
  const fit = scoring.fitResources.map((s) => [...scoreKind(s.name, false), s.weight]);
  const bal = scoring.balancedResources.map((s) => scoreKind(s.name, true));
  if (bal.every((b) => b[2] === 0)) flags |= L.QF_BEST_EFFORT;

  // ---- taints
  const tols = spec.tolerations ?? [];
  if (toleratedByAny(tols, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' })) flags |= L.QF_TOL_UNSCHEDULABLE;
  const preferTols = tols.filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
  const taintWords = table.taintWords;
  const block = new Uint32Array(taintWords);
  const prefer = new Uint32Array(taintWords);
  table.taintList.forEach((t, id) => {
    if (t.effect === 'PreferNoSchedule') {
      if (!toleratedByAny(preferTols, t)) { prefer[id >>> 5] |= 1 << (id & 31); flags |= L.QF_HAS_PREFER_TAINTS; }
    } else if (!toleratedByAny(tols, t)) block[id >>> 5] |= 1 << (id & 31);
  });

  // ---- node name
  const nodeName = spec.nodeName ? (table.nodeIndex(spec.nodeName) >= 0 ? table.nodeIndex(spec.nodeName) : -2) : -1;

  // ---- node affinity: nodeSelector AND (OR of required terms)
  const sel: Expr[] = [];
  for (const [k, v] of Object.entries(spec.nodeSelector ?? {})) {
    const ki = table.labelKeys.get(k);
    const vi = ki >= 0 ? table.labelValues[ki].get(v) : -1;
    if (vi < 0) flags |= L.QF_SELECTOR_NEVER;
    else sel.push({ op: L.OP_EQ, key: ki, arg: vi + 1 });
  }
  const affinityErrors: string[] = [];
  const terms: Expr[][] = [];
  const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required) {
    flags |= L.QF_HAS_REQUIRED;
    (required.nodeSelectorTerms ?? []).forEach((t, i) => {
      if (isEmptyTerm(t)) return; // an empty term selects no objects
      const where = `${name}: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[${i}]`;
      try {
        const c = compileTerm(table, t, where);
        if (c) terms.push(c);
      } catch (e) {
        if (!(e instanceof PodQueryError)) throw e;
        affinityErrors.push(e.message); // upstream LazyErrorNodeSelector: the term is skipped
      }
    });
  }
  const prefs: Term[] = [];
  (spec.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((p, i) => {
    if (!p.weight || isEmptyTerm(p.preference)) return;
    const c = compileTerm(table, p.preference, `${name}: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[${i}].preference`);
    if (c) prefs.push({ exprs: c, weight: p.weight });
  });

  // ---- images (init containers first, then containers, as sumImageScores)
  const imgs: [number, number][] = [];
  const total = table.size;
  const containers = [...(spec.initContainers ?? []), ...spec.containers];
  for (const c of containers) {
    if (!c.image) continue;
    const id = table.images.get(normalizedImageName(c.image));
    if (id < 0 || table.imageNodes[id] === 0) continue;
    const spread = table.imageNodes[id] / total;
    imgs.push([id, Math.trunc(table.imageSize[id] * spread)]);
  }

  // ---- ports
  const ports = podHostPorts(pod);
  if (ports.length > 0) flags |= L.QF_HAS_PORTS;

  // ---- sizes and layout of the binary query
  const exprs: Expr[] = [...sel];
  const termRows: [number, number][] = [];
  for (const t of terms) { termRows.push([exprs.length, t.length]); exprs.push(...t); }
  const prefRows: [number, number, number][] = [];
  for (const p of prefs) { prefRows.push([exprs.length, p.exprs.length, p.weight]); exprs.push(...p.exprs); }
  const setWords = exprs.map((e) => (e.set ? ((table.labelValues[e.key].size + 1 + 31) >>> 5) : 0));
  const nodeWords = table.nodeWords;
  const numRes = table.resources.size;
  const shape = scoring.shape;

  let size = L.Q_HEADER_INTS * 4;
  const place = (bytes: number) => { const at = size; size += (bytes + 7) & ~7; return at; };
  const oBlock = place(taintWords * 4);
  const oPrefer = place(taintWords * 4);
  const oExpr = place(exprs.length * 16);
  const oTerms = place(termRows.length * 8);
  const oPref = place(prefRows.length * 16);
  const oReq = place(numRes * 8);
  const oReqList = place(reqList.length * 4);
  const oPorts = place(ports.length > 0 ? nodeWords * 4 : 0);
  const oImg = place(imgs.length * 4);
  const oImgScore = place(imgs.length * 8);
  const oFitRes = place(fit.length * 4);
  const oFitKind = place(fit.length * 4);
  const oFitW = place(fit.length * 4);
  const oFitReq = place(fit.length * 8);
  const oShapeU = place(shape.length * 4);
  const oShapeS = place(shape.length * 4);
  const oBalRes = place(bal.length * 4);
  const oBalKind = place(bal.length * 4);
  const oBalReq = place(bal.length * 8);
  const oSets = setWords.map((w) => place(w * 4));

  const base = arena.reserve(size);
  const mem = table.mem;
  const i32 = mem.i32, u32 = mem.u32, f64 = mem.f64;
  const h = base >> 2;
  const a = (off: number) => base + off;
  i32[h + L.Q_FLAGS] = flags;
  i32[h + L.Q_NODE_NAME] = nodeName;
  i32[h + L.Q_TAINT_WORDS] = taintWords;
  i32[h + L.Q_SEL_START] = 0;
  i32[h + L.Q_SEL_COUNT] = sel.length;
  i32[h + L.Q_NUM_TERMS] = termRows.length;
  i32[h + L.Q_NUM_PREF] = prefRows.length;
  i32[h + L.Q_NUM_REQ] = reqList.length;
  i32[h + L.Q_NUM_IMAGES] = imgs.length;
  i32[h + L.Q_NUM_CONTAINERS] = containers.length;
  i32[h + L.Q_FIT_TYPE] = scoring.fitType;
  i32[h + L.Q_FIT_NUM] = fit.length;
  i32[h + L.Q_SHAPE_NUM] = shape.length;
  i32[h + L.Q_BAL_NUM] = bal.length;
  for (let p = 0; p < NUM_SCORE_PLUGINS; p++) i32[h + L.Q_W + p] = scoring.weights[p];
  i32[h + L.Q_NUM_RES] = numRes;
  const offs: [number, number][] = [
    [L.Q_OFF_BLOCK, oBlock], [L.Q_OFF_PREFER, oPrefer], [L.Q_OFF_EXPR, oExpr], [L.Q_OFF_TERMS, oTerms],
    [L.Q_OFF_PREF, oPref], [L.Q_OFF_REQ, oReq], [L.Q_OFF_REQLIST, oReqList], [L.Q_OFF_PORTS, oPorts],
    [L.Q_OFF_IMG, oImg], [L.Q_OFF_IMGSCORE, oImgScore], [L.Q_OFF_FIT_RES, oFitRes], [L.Q_OFF_FIT_KIND, oFitKind],
    [L.Q_OFF_FIT_W, oFitW], [L.Q_OFF_FIT_REQ, oFitReq], [L.Q_OFF_SHAPE_U, oShapeU], [L.Q_OFF_SHAPE_S, oShapeS],
    [L.Q_OFF_BAL_RES, oBalRes], [L.Q_OFF_BAL_KIND, oBalKind], [L.Q_OFF_BAL_REQ, oBalReq],
  ];
  for (const [field, off] of offs) i32[h + field] = a(off);
  for (let w = 0; w < taintWords; w++) { u32[(a(oBlock) >> 2) + w] = block[w]; u32[(a(oPrefer) >> 2) + w] = prefer[w]; }
  exprs.forEach((e, i) => {
    const at = (a(oExpr) >> 2) + i * 4;
    i32[at] = e.op;
    i32[at + 1] = e.key;
    if (e.set) {
      const sAddr = a(oSets[i]);
      for (const v of e.set) u32[(sAddr >> 2) + ((v + 1) >>> 5)] |= 1 << ((v + 1) & 31);
      i32[at + 2] = sAddr;
    } else i32[at + 2] = e.arg;
  });
  termRows.forEach(([s, c], i) => { i32[(a(oTerms) >> 2) + i * 2] = s; i32[(a(oTerms) >> 2) + i * 2 + 1] = c; });
  prefRows.forEach(([s, c, w], i) => { const at = (a(oPref) >> 2) + i * 4; i32[at] = s; i32[at + 1] = c; i32[at + 2] = w; });
  for (const [r, v] of reqList) f64[(a(oReq) >> 3) + r] = v;
  reqList.forEach(([r], i) => { i32[(a(oReqList) >> 2) + i] = r; });
  if (ports.length > 0) for (const p of ports) table.markPortConflicts(p, u32, a(oPorts) >> 2);
  imgs.forEach(([id, s], i) => { i32[(a(oImg) >> 2) + i] = id; f64[(a(oImgScore) >> 3) + i] = s; });
  fit.forEach(([r, k, v, w], i) => {
    i32[(a(oFitRes) >> 2) + i] = r; i32[(a(oFitKind) >> 2) + i] = k; i32[(a(oFitW) >> 2) + i] = w; f64[(a(oFitReq) >> 3) + i] = v;
  });
  const scale = MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE;
  shape.forEach((p, i) => { i32[(a(oShapeU) >> 2) + i] = p.utilization; i32[(a(oShapeS) >> 2) + i] = p.score * scale; });
  bal.forEach(([r, k, v], i) => { i32[(a(oBalRes) >> 2) + i] = r; i32[(a(oBalKind) >> 2) + i] = k; f64[(a(oBalReq) >> 3) + i] = v; });

  return new PodQuery(table, pod, arena, base, arena.seq, table.generation, affinityErrors);
}

import { podKey } from '../../api/keys.js';
import { zoneKey } from '../../api/topology.js';
import type { Container, Node, Pod, Taint } from '../../api/types.js';
import type { NodeTableView } from './types.js';
import { MAX_RESOURCES } from './types.js';
import { Interner } from './interning.js';
import { TableMemory } from './memory.js';
import * as L from './layout.js';
import { isScalarResourceName, nodeAllocatable, podResourceSums, ResourceParseError } from './resources.js';
import type { PodResourceSums } from './resources.js';
import { StringMap } from '../../util/string-map.js';

/** Options of a {@link NodeTable}. */
export interface NodeTableOptions {
  /** node slots to allocate up front (grows by doubling); default 1024 */
  initialCapacity?: number;
  /**
   * Act as the node lifecycle controller for snapshots that lack its taints: a node whose Ready
   * condition is False gets node.kubernetes.io/not-ready:NoSchedule, Unknown gets
   * node.kubernetes.io/unreachable:NoSchedule (TaintNodesByCondition). kube-scheduler itself has no
   * Ready filter; default false.
   */
  synthesizeConditionTaints?: boolean;
  /**
   * Back the table's WebAssembly.Memory with a SharedArrayBuffer so worker threads can scan it
   * (src/scheduler/shard: one cluster's nodes sharded across threads). Default false.
   */
  sharedMemory?: boolean;
}

/** A host port in use: sanitized (hostIP '' → 0.0.0.0, protocol '' → TCP), hostPort > 0. */
export interface HostPort {
  ip: string;
  protocol: string;
  port: number;
}

/**
 * What assuming a pod adds to its node's columns, computed once per pod: compilePod builds it for
 * the query and the assume that follows reuses it (upstream's PodInfo, computed at PreFilter and
 * reused by AddPodInfo). Resource rows are interned ids, never reused, so it stays valid for its
 * table.
 */
export interface PodAccounting {
  readonly table: NodeTable;
  /** [resource row, amount] pairs of the effective requests (PodRequests), non-zero, without "pods" */
  readonly req: number[];
  /** non-zero requested cpu (millicores) and memory (bytes), for scoring */
  readonly nzCpu: number;
  readonly nzMem: number;
  readonly ports: readonly HostPort[];
}

/**
 * One accounted pod. Pods added by key ({@link NodeTable.addPod}) are kept in the table's own map;
 * an entry returned by {@link NodeTable.attachPod} is the caller's handle instead (the scheduler's
 * snapshot keeps it on its PodInfo, so the per-pod bookkeeping exists once).
 */
export interface PodEntry {
  readonly key: string;
  readonly pod: Pod;
  nodeName: string;
  acct: PodAccounting;
  /** slot the requests are applied to, or -1 while its node is absent */
  slot: number;
  /** index in its node's `pods` list while applied */
  at: number;
  /** an attachPod handle that is still accounted (detachPod or its node's removal ends it) */
  attached: boolean;
}

interface NodeEntry {
  node: Node;
  taintIds: number[];
  imageIds: number[];
  zone: string;
  /** the pods accounted on the node (unordered: removal swaps the last one into the gap) */
  pods: PodEntry[];
}

interface ColumnSpec {
  header: number;
  rows: (d: Dims) => number;
  rowLen: (d: Dims) => number;
  bytes: number;
}

interface Dims {
  nodeCap: number;
  resCap: number;
  keyCap: number;
  taintWords: number;
  imageCap: number;
  topoCap: number;
}

const nodeWords = (d: Dims) => d.nodeCap >>> 5;
const COLUMNS: ColumnSpec[] = [
  { header: L.H_OFF_ALLOC, rows: (d) => d.resCap, rowLen: (d) => d.nodeCap, bytes: 8 },
  { header: L.H_OFF_REQ, rows: (d) => d.resCap, rowLen: (d) => d.nodeCap, bytes: 8 },
  { header: L.H_OFF_NZCPU, rows: () => 1, rowLen: (d) => d.nodeCap, bytes: 8 },
  { header: L.H_OFF_NZMEM, rows: () => 1, rowLen: (d) => d.nodeCap, bytes: 8 },
  { header: L.H_OFF_FLAGS, rows: () => 1, rowLen: (d) => d.nodeCap, bytes: 1 },
  { header: L.H_OFF_TAINTS, rows: (d) => d.nodeCap, rowLen: (d) => d.taintWords, bytes: 4 },
  { header: L.H_OFF_LABELS, rows: (d) => d.keyCap, rowLen: (d) => d.nodeCap, bytes: 4 },
  { header: L.H_OFF_IMAGES, rows: (d) => d.imageCap, rowLen: nodeWords, bytes: 4 },
  { header: L.H_OFF_ORDER, rows: () => 1, rowLen: (d) => d.nodeCap, bytes: 4 },
  { header: L.H_OFF_TOPO, rows: (d) => d.topoCap, rowLen: (d) => d.nodeCap, bytes: 4 },
  { header: L.H_OFF_ALLOCINV, rows: (d) => d.resCap, rowLen: (d) => d.nodeCap, bytes: 8 },
  { header: L.H_OFF_FREE, rows: (d) => d.resCap, rowLen: (d) => d.nodeCap, bytes: 8 },
];

function taintKey(t: Taint): string {
  return `${t.key}\x00${t.value ?? ''}\x00${t.effect}`;
}

/**
 * Host ports a pod uses, as NodeInfo.UsedPorts records them and NodePorts' PreFilter asks for them:
 * restartable init containers (sidecars, `restartPolicy: Always`, which run for the pod's whole
 * life) first, then regular containers; hostPort > 0 only. Plain init containers have exited before
 * the app containers start, so their ports are not held. upstream: pkg/scheduler/util GetHostPorts.
 */
export function podHostPorts(pod: Pod): HostPort[] {
  let out: HostPort[] | undefined;
  const add = (c: Container) => {
    const ports = c.ports;
    if (!ports) return;
    for (const p of ports) {
      if (!p.hostPort || p.hostPort <= 0) continue;
      (out ??= []).push({ ip: p.hostIP || '0.0.0.0', protocol: p.protocol || 'TCP', port: p.hostPort });
    }
  };
  for (const c of pod.spec?.initContainers ?? []) if (c.restartPolicy === 'Always') add(c);
  for (const c of pod.spec?.containers ?? []) add(c);
  return out ?? [];
}

const NO_PORTS: readonly HostPort[] = Object.freeze([]);

/**
 * The scheduler's node snapshot as columns (Structure of Arrays) in one WebAssembly.Memory, updated
 * incrementally: addNode/updateNode/removeNode and addPod/removePod (assume/forget) cost
 * O(labels + taints + images) or O(resources) — never a rebuild per pod. Node slots are stable;
 * a removed node's slot is reused. Capacity grows by doubling and copying the columns.
 *
 * Columns (see assembly/scheduler.ts for the byte layout): allocatable and requested per resource
 * (f64 holding exact integers: milli-CPU, bytes, counts), non-zero requested cpu/memory for scoring,
 * flags, a taint-id bitset per node, a label value id per (label key, node), a node bitset per
 * image, the zone-interleaved scan order, and a domain id per (registered topology key, node).
 */
export class NodeTable implements NodeTableView {
  readonly mem: TableMemory;
  readonly options: Required<NodeTableOptions>;
  /** resource names → row; 0 cpu, 1 memory, 2 ephemeral-storage, 3 pods */
  readonly resources = new Interner();
  /** scratch for podAccounting (read before the next call; JS runs it to completion) */
  private readonly sums: PodResourceSums = { names: [], amounts: [], nzCpu: 0, nzMem: 0 };
  /** per resource row: IsScalarResourceName, decided once when the name is interned */
  private readonly scalarRows: boolean[] = [];
  readonly labelKeys = new Interner();
  /** per label key: its values → value id */
  readonly labelValues: Interner[] = [];
  readonly taints = new Interner();
  readonly taintList: Taint[] = [];
  /** node image names (as reported in status.images[].names) → image id */
  readonly images = new Interner();
  /** per image id: size in bytes (first seen, like the scheduler cache) and number of nodes holding it */
  readonly imageSize: number[] = [];
  readonly imageNodes: number[] = [];
  readonly topologyKeys = new Interner();

  private dims: Dims;
  private readonly names: (string | undefined)[] = [];
  private readonly entries: (NodeEntry | undefined)[] = [];
  private readonly slotOf = new Map<string, number>();
  private readonly freeSlots: number[] = [];
  private high = 0;
  private count = 0;
  /** pods added by key (StringMap: the same keys added and removed again and again stay cheap) */
  private readonly pods = new StringMap<PodEntry>();
  /** entries accounted through attachPod (not in `pods`) */
  private attachedCount = 0;
  /** pods bound to a node name the table does not hold (yet) */
  private readonly waiting = new Map<string, Set<string>>();
  /** "protocol/port" → ip → slot → number of pods using it */
  private readonly ports = new Map<string, Map<string, Map<number, number>>>();
  /** upstream nodeTree: zone → slots in insertion order, zones in first-seen order */
  private readonly zones = new Map<string, number[]>();
  private orderDirty = false;
  /** slot → its position in the scan order (the inverse of ORDER), rebuilt with it */
  private posOf = new Int32Array(0);
  /** bumped on every change; compiled queries remember it */
  generation = 0;
  /**
   * Bumped by every change compilePod's output depends on besides placed pods: node add, update
   * and remove (dictionaries, image counts, node names, size) and relayouts (capacities, column
   * addresses) and new resource names. A compiled query of a pod without host ports stays valid
   * while it holds (querycache.ts).
   */
  shapeVersion = 0;
  /**
   * Copies of the table (a contained WASM plugin's, plugins/contained.ts) refresh only what
   * changed: within one change epoch only pods were added or removed, on the slots of
   * {@link podChanges}; anything else (nodes, layout, scan order, topology rows) starts a new epoch.
   */
  changeEpoch = 0;
  private readonly podLog: number[] = [];

  constructor(options: NodeTableOptions = {}) {
    this.options = {
      initialCapacity: options.initialCapacity ?? 1024,
      synthesizeConditionTaints: options.synthesizeConditionTaints ?? false,
      sharedMemory: options.sharedMemory ?? false,
    };
    this.mem = new TableMemory(undefined, this.options.sharedMemory);
    for (const r of ['cpu', 'memory', 'ephemeral-storage', 'pods']) {
      this.resources.intern(r);
      this.scalarRows.push(false);
    }
    this.dims = { nodeCap: 0, resCap: 0, keyCap: 0, taintWords: 0, imageCap: 0, topoCap: 0 };
    this.relayout({
      nodeCap: Math.max(32, (this.options.initialCapacity + 31) & ~31),
      resCap: 8,
      keyCap: 16,
      taintWords: 1,
      imageCap: 64,
      topoCap: 2,
    });
  }

  // ------------------------------------------------------------------ layout

  /** Byte address of the table header (what the WASM kernel receives). */
  get header(): number {
    return L.TABLE_HEADER;
  }

  private hdr(field: number): number {
    return this.mem.i32[(L.TABLE_HEADER >> 2) + field];
  }

  private setHdr(field: number, v: number): void {
    this.mem.i32[(L.TABLE_HEADER >> 2) + field] = v;
  }

  /**
   * [byte address, bytes] of the header and of every live column: what a copy of the table
   * needs (a contained WASM plugin's, src/scheduler/plugins/contained.ts), without the columns'
   * earlier, outgrown copies and the queries the allocator also holds.
   */
  regions(): [number, number][] {
    const d = this.dims;
    const out: [number, number][] = [[L.TABLE_HEADER, 64 * 4]];
    for (const c of COLUMNS) out.push([this.hdr(c.header), c.rows(d) * c.rowLen(d) * c.bytes]);
    return out;
  }

  private newEpoch(): void {
    this.changeEpoch++;
    this.podLog.length = 0;
  }

  /**
   * The slots whose pod columns changed during change epoch `epoch`, in order (a slot may repeat),
   * or undefined when the table is in another epoch (a copy then needs every region).
   */
  podChanges(epoch: number): readonly number[] | undefined {
    return epoch === this.changeEpoch ? this.podLog : undefined;
  }

  /** [byte address, bytes] pairs of the cells a pod add or remove writes on `slot` (REQ, FREE, NZCPU, NZMEM) */
  podCells(slot: number, out: number[]): void {
    const { nodeCap, resCap } = this.dims;
    const req = this.hdr(L.H_OFF_REQ),
      free = this.hdr(L.H_OFF_FREE);
    for (let r = 0; r < resCap; r++)
      out.push(req + (r * nodeCap + slot) * 8, 8, free + (r * nodeCap + slot) * 8, 8);
    out.push(this.hdr(L.H_OFF_NZCPU) + slot * 8, 8, this.hdr(L.H_OFF_NZMEM) + slot * 8, 8);
  }

  /** Node slots allocated. */
  get capacity(): number {
    return this.dims.nodeCap;
  }

  get nodeWords(): number {
    return this.dims.nodeCap >>> 5;
  }

  get taintWords(): number {
    return this.dims.taintWords;
  }

  /** Byte address of a column (re-read after any table update: columns move when they grow). */
  column(headerField: number): number {
    return this.hdr(headerField);
  }

  private relayout(next: Dims): void {
    const old = this.dims;
    const hadOld = old.nodeCap > 0;
    const newAddr: number[] = [];
    for (const c of COLUMNS) newAddr.push(this.mem.alloc(c.rows(next) * c.rowLen(next) * c.bytes));
    if (hadOld) {
      for (let i = 0; i < COLUMNS.length; i++) {
        const c = COLUMNS[i];
        const from = this.hdr(c.header);
        const rows = Math.min(c.rows(old), c.rows(next));
        const oldLen = c.rowLen(old) * c.bytes;
        const newLen = c.rowLen(next) * c.bytes;
        const len = Math.min(oldLen, newLen);
        for (let r = 0; r < rows; r++) this.mem.copy(newAddr[i] + r * newLen, from + r * oldLen, len);
      }
    }
    for (let i = 0; i < COLUMNS.length; i++) this.setHdr(COLUMNS[i].header, newAddr[i]);
    this.dims = next;
    this.setHdr(L.H_NODE_CAP, next.nodeCap);
    this.setHdr(L.H_NODE_WORDS, next.nodeCap >>> 5);
    this.setHdr(L.H_RES_CAP, next.resCap);
    this.setHdr(L.H_KEY_CAP, next.keyCap);
    this.setHdr(L.H_TAINT_WORDS, next.taintWords);
    this.setHdr(L.H_IMAGE_CAP, next.imageCap);
    this.setHdr(L.H_TOPO_CAP, next.topoCap);
    this.syncCounts();
    this.generation++;
  }

  /** after node or layout changes (never per pod): the header's counts, and {@link shapeVersion} */
  private syncCounts(): void {
    this.shapeVersion++;
    this.newEpoch();
    this.setHdr(L.H_SIZE, this.count);
    this.setHdr(L.H_HIGH, this.high);
    this.setHdr(L.H_NUM_RES, this.resources.size);
    this.setHdr(L.H_NUM_KEYS, this.labelKeys.size);
  }

  private grow(patch: Partial<Dims>): void {
    this.relayout({ ...this.dims, ...patch });
  }

  private ensureNodeCap(slots: number): void {
    if (slots <= this.dims.nodeCap) return;
    let cap = this.dims.nodeCap;
    while (cap < slots) cap *= 2;
    this.grow({ nodeCap: cap });
  }

  /** whether resource row `r` is a scalar resource (extended, hugepages-*, …: upstream IsScalarResourceName) */
  isScalarRow(r: number): boolean {
    return this.scalarRows[r] === true;
  }

  /** row of a resource, interning (and growing the resource rows) if new */
  resourceIndex(name: string): number {
    let r = this.resources.get(name);
    if (r >= 0) return r;
    if (this.resources.size >= MAX_RESOURCES) {
      throw new ResourceParseError(
        `resource ${name}: the NodeTable tracks at most ${MAX_RESOURCES} distinct resources`,
      );
    }
    r = this.resources.intern(name);
    this.shapeVersion++;
    this.scalarRows[r] = isScalarResourceName(name);
    if (r >= this.dims.resCap) this.grow({ resCap: Math.min(MAX_RESOURCES, this.dims.resCap * 2) });
    this.setHdr(L.H_NUM_RES, this.resources.size);
    return r;
  }

  private labelKeyIndex(key: string): number {
    let k = this.labelKeys.get(key);
    if (k >= 0) return k;
    k = this.labelKeys.intern(key);
    this.labelValues.push(new Interner());
    if (k >= this.dims.keyCap) this.grow({ keyCap: this.dims.keyCap * 2 });
    this.setHdr(L.H_NUM_KEYS, this.labelKeys.size);
    return k;
  }

  private taintIndex(t: Taint): number {
    const key = taintKey(t);
    let id = this.taints.get(key);
    if (id >= 0) return id;
    id = this.taints.intern(key);
    this.taintList.push({ key: t.key, value: t.value ?? '', effect: t.effect });
    if (id >= this.dims.taintWords * 32) this.grow({ taintWords: this.dims.taintWords * 2 });
    return id;
  }

  private imageIndex(name: string, size: number): number {
    let id = this.images.get(name);
    if (id >= 0) return id;
    id = this.images.intern(name);
    this.imageSize.push(size);
    this.imageNodes.push(0);
    if (id >= this.dims.imageCap) this.grow({ imageCap: this.dims.imageCap * 2 });
    return id;
  }

  // ------------------------------------------------------------------ NodeTableView

  get size(): number {
    return this.count;
  }

  /** 1 + highest slot in use (slots below may be empty) */
  get highWater(): number {
    return this.high;
  }

  get order(): Int32Array {
    this.prepare();
    const base = this.hdr(L.H_OFF_ORDER) >> 2;
    return this.mem.i32.subarray(base, base + this.count);
  }

  nodeIndex(name: string): number {
    return this.slotOf.get(name) ?? -1;
  }

  nodeName(slot: number): string {
    const n = this.names[slot];
    if (n === undefined) throw new RangeError(`NodeTable: slot ${slot} holds no node`);
    return n;
  }

  /** The Node object last added/updated in a slot. */
  node(slot: number): Node {
    const e = this.entries[slot];
    if (!e) throw new RangeError(`NodeTable: slot ${slot} holds no node`);
    return e.node;
  }

  /** Pods (assumed or bound) currently accounted on the node in `slot`. */
  nodePods(slot: number): Pod[] {
    const e = this.entries[slot];
    if (!e) return [];
    const out: Pod[] = [];
    for (const p of e.pods) out.push(p.pod);
    return out;
  }

  /** Live node slots in slot order. */
  *slots(): IterableIterator<number> {
    for (let s = 0; s < this.high; s++) if (this.entries[s]) yield s;
  }

  registerTopologyKey(key: string): number {
    let t = this.topologyKeys.get(key);
    if (t >= 0) return t;
    t = this.topologyKeys.intern(key);
    if (t >= this.dims.topoCap) this.grow({ topoCap: this.dims.topoCap * 2 });
    return t;
  }

  topologyDomain(keyIndex: number, slot: number): number {
    return this.mem.i32[(this.hdr(L.H_OFF_TOPO) >> 2) + keyIndex * this.dims.nodeCap + slot] - 1;
  }

  setTopologyDomains(keyIndex: number, slots: ArrayLike<number>, ids: ArrayLike<number>): void {
    const i32 = this.mem.i32;
    const row = (this.hdr(L.H_OFF_TOPO) >> 2) + keyIndex * this.dims.nodeCap;
    this.newEpoch();
    i32.fill(0, row, row + this.dims.nodeCap);
    for (let i = 0; i < slots.length; i++) if (slots[i] >= 0) i32[row + slots[i]] = ids[i] + 1;
  }

  // ------------------------------------------------------------------ nodes

  /** Adds a node (or updates it if the name is known). */
  addNode(node: Node): number {
    const name = node.metadata?.name;
    if (!name) throw new TypeError('NodeTable.addNode: node has no metadata.name');
    const existing = this.slotOf.get(name);
    if (existing !== undefined) {
      this.updateNode(node);
      return existing;
    }
    const slot = this.freeSlots.length > 0 ? this.freeSlots.pop()! : this.high;
    this.ensureNodeCap(slot + 1);
    if (slot === this.high) this.high++;
    this.count++;
    this.names[slot] = name;
    this.slotOf.set(name, slot);
    const entry: NodeEntry = { node, taintIds: [], imageIds: [], zone: zoneKey(node), pods: [] };
    this.entries[slot] = entry;
    this.writeNode(slot, entry);
    this.zoneAdd(entry.zone, slot);
    // pods that were bound to this name before the node appeared (the scheduler cache keeps them too)
    const waiting = this.waiting.get(name);
    if (waiting) {
      this.waiting.delete(name);
      for (const k of waiting) this.applyPod(this.pods.get(k)!, slot, +1);
    }
    this.syncCounts();
    this.generation++;
    return slot;
  }

  /** Replaces a node's spec/status/labels; its pods and their requests stay. */
  updateNode(node: Node): void {
    const name = node.metadata?.name ?? '';
    const slot = this.slotOf.get(name);
    if (slot === undefined) {
      this.addNode(node);
      return;
    }
    const entry = this.entries[slot]!;
    this.clearNode(slot, entry);
    entry.node = node;
    const zone = zoneKey(node);
    if (zone !== entry.zone) {
      this.zoneRemove(entry.zone, slot);
      entry.zone = zone;
      this.zoneAdd(zone, slot);
    }
    this.writeNode(slot, entry);
    this.syncCounts();
    this.generation++;
  }

  /** Removes a node; its pods stay known and come back if a node of that name is added again. */
  removeNode(name: string): boolean {
    const slot = this.slotOf.get(name);
    if (slot === undefined) return false;
    const entry = this.entries[slot]!;
    for (const p of [...entry.pods]) {
      this.applyPod(p, slot, -1);
      if (p.attached) {
        // the caller attaches its pods again when it adds the node again
        p.attached = false;
        this.attachedCount--;
        continue;
      }
      let w = this.waiting.get(name);
      if (!w) this.waiting.set(name, (w = new Set()));
      w.add(p.key);
    }
    this.clearNode(slot, entry);
    // requested columns: zero what remains (all pods were subtracted, but be exact)
    const { nodeCap } = this.dims;
    const f64 = this.mem.f64;
    const req = this.hdr(L.H_OFF_REQ) >> 3;
    for (let r = 0; r < this.dims.resCap; r++) f64[req + r * nodeCap + slot] = 0;
    this.refreshFree(slot);
    f64[(this.hdr(L.H_OFF_NZCPU) >> 3) + slot] = 0;
    f64[(this.hdr(L.H_OFF_NZMEM) >> 3) + slot] = 0;
    this.zoneRemove(entry.zone, slot);
    this.entries[slot] = undefined;
    this.names[slot] = undefined;
    this.slotOf.delete(name);
    this.freeSlots.push(slot);
    this.count--;
    this.syncCounts();
    this.generation++;
    return true;
  }

  private writeNode(slot: number, entry: NodeEntry): void {
    const node = entry.node;
    // intern everything first: interning may relayout (columns move), so addresses are read after
    const alloc = nodeAllocatable(node);
    const allocIdx: [number, number][] = [];
    for (const [k, v] of alloc) allocIdx.push([this.resourceIndex(k), v]);
    const taints: Taint[] = [...(node.spec?.taints ?? [])];
    if (this.options.synthesizeConditionTaints) {
      const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
      const status = ready?.status ?? 'Unknown';
      const has = (k: string) => taints.some((t) => t.key === k && t.effect === 'NoSchedule');
      if (status === 'False' && !has('node.kubernetes.io/not-ready'))
        taints.push({ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' });
      if (status === 'Unknown' && !has('node.kubernetes.io/unreachable'))
        taints.push({ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' });
    }
    entry.taintIds = taints.map((t) => this.taintIndex(t));
    const labels = node.metadata?.labels ?? {};
    const labelIdx: [number, number][] = [];
    for (const k of Object.keys(labels)) {
      const ki = this.labelKeyIndex(k);
      labelIdx.push([ki, this.labelValues[ki].intern(labels[k])]);
    }
    const imageIds = new Set<number>();
    for (const img of node.status?.images ?? []) {
      for (const n of img.names ?? []) imageIds.add(this.imageIndex(n, img.sizeBytes ?? 0));
    }
    entry.imageIds = [...imageIds];

    const { nodeCap, taintWords } = this.dims;
    const mem = this.mem;
    const f64 = mem.f64,
      i32 = mem.i32,
      u32 = mem.u32,
      u8 = mem.u8;
    const allocBase = this.hdr(L.H_OFF_ALLOC) >> 3;
    const invBase = this.hdr(L.H_OFF_ALLOCINV) >> 3;
    for (const [r, v] of allocIdx) {
      f64[allocBase + r * nodeCap + slot] = v;
      f64[invBase + r * nodeCap + slot] = v > 0 ? 1 / v : 0;
    }
    this.refreshFree(slot);
    let flags = L.F_LIVE;
    if (node.spec?.unschedulable) flags |= L.F_UNSCHEDULABLE;
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    if (ready?.status === 'True') flags |= L.F_READY;
    u8[this.hdr(L.H_OFF_FLAGS) + slot] = flags;
    const tBase = (this.hdr(L.H_OFF_TAINTS) >> 2) + slot * taintWords;
    for (const id of entry.taintIds) u32[tBase + (id >>> 5)] |= 1 << (id & 31);
    const lBase = this.hdr(L.H_OFF_LABELS) >> 2;
    for (const [k, v] of labelIdx) i32[lBase + k * nodeCap + slot] = v + 1;
    const iBase = this.hdr(L.H_OFF_IMAGES) >> 2;
    const words = nodeCap >>> 5;
    for (const id of entry.imageIds) {
      u32[iBase + id * words + (slot >>> 5)] |= 1 << (slot & 31);
      this.imageNodes[id]++;
    }
  }

  /** FREE = ALLOC − REQ for every resource row of a node (after either changed wholesale) */
  private refreshFree(slot: number): void {
    const { nodeCap, resCap } = this.dims;
    const f64 = this.mem.f64;
    const a = this.hdr(L.H_OFF_ALLOC) >> 3,
      q = this.hdr(L.H_OFF_REQ) >> 3,
      f = this.hdr(L.H_OFF_FREE) >> 3;
    for (let r = 0; r < resCap; r++) {
      const at = r * nodeCap + slot;
      f64[f + at] = f64[a + at] - f64[q + at];
    }
  }

  private clearNode(slot: number, entry: NodeEntry): void {
    const { nodeCap, taintWords, resCap, keyCap } = this.dims;
    const mem = this.mem;
    const f64 = mem.f64,
      i32 = mem.i32,
      u32 = mem.u32;
    const allocBase = this.hdr(L.H_OFF_ALLOC) >> 3;
    const invBase = this.hdr(L.H_OFF_ALLOCINV) >> 3;
    for (let r = 0; r < resCap; r++) {
      f64[allocBase + r * nodeCap + slot] = 0;
      f64[invBase + r * nodeCap + slot] = 0;
    }
    this.refreshFree(slot);
    mem.u8[this.hdr(L.H_OFF_FLAGS) + slot] = 0;
    const tBase = (this.hdr(L.H_OFF_TAINTS) >> 2) + slot * taintWords;
    for (let w = 0; w < taintWords; w++) u32[tBase + w] = 0;
    const lBase = this.hdr(L.H_OFF_LABELS) >> 2;
    for (let k = 0; k < keyCap; k++) i32[lBase + k * nodeCap + slot] = 0;
    const iBase = this.hdr(L.H_OFF_IMAGES) >> 2;
    const words = nodeCap >>> 5;
    for (const id of entry.imageIds) {
      u32[iBase + id * words + (slot >>> 5)] &= ~(1 << (slot & 31));
      this.imageNodes[id]--;
    }
    entry.imageIds = [];
    entry.taintIds = [];
    const topo = this.hdr(L.H_OFF_TOPO) >> 2;
    for (let t = 0; t < this.dims.topoCap; t++) i32[topo + t * nodeCap + slot] = 0;
  }

  // ------------------------------------------------------------------ scan order (nodeTree)

  private zoneAdd(zone: string, slot: number): void {
    let z = this.zones.get(zone);
    if (!z) this.zones.set(zone, (z = []));
    z.push(slot);
    this.orderDirty = true;
  }

  private zoneRemove(zone: string, slot: number): void {
    const z = this.zones.get(zone);
    if (!z) return;
    const i = z.indexOf(slot);
    if (i >= 0) z.splice(i, 1);
    if (z.length === 0) this.zones.delete(zone);
    this.orderDirty = true;
  }

  /** Brings derived columns (scan order) up to date; kernels call it before reading the table. */
  prepare(): void {
    if (!this.orderDirty) return;
    this.orderDirty = false;
    this.newEpoch();
    // upstream nodeTree.list(): round robin over zones in first-seen order
    const i32 = this.mem.i32;
    const base = this.hdr(L.H_OFF_ORDER) >> 2;
    const zones = [...this.zones.values()];
    let n = 0;
    for (let idx = 0; n < this.count; idx++) {
      for (const z of zones) if (idx < z.length) i32[base + n++] = z[idx];
    }
    if (this.posOf.length < this.dims.nodeCap) this.posOf = new Int32Array(this.dims.nodeCap);
    this.posOf.fill(-1);
    for (let k = 0; k < n; k++) this.posOf[i32[base + k]] = k;
  }

  /** position of a node slot in the scan order (-1: no live node): a kernel run with `start` there and `maxNodes: 1` examines exactly that node */
  positionOf(slot: number): number {
    this.prepare();
    return slot >= 0 && slot < this.posOf.length ? this.posOf[slot] : -1;
  }

  // ------------------------------------------------------------------ pods

  /**
   * Accounts a pod on `spec.nodeName` (assume or bind). Re-adding a known pod replaces it.
   * A pod whose node is absent is remembered and applied when the node is added. `key`: its
   * podKey, when the caller has it (a new key string costs a hash on its first lookup).
   */
  addPod(pod: Pod, acct?: PodAccounting, key = podKey(pod)): void {
    if (this.pods.has(key)) this.removePod(key);
    const nodeName = pod.spec?.nodeName;
    if (!nodeName) throw new TypeError(`NodeTable.addPod: pod ${key} has no spec.nodeName`);
    if (!acct || acct.table !== this) acct = this.podAccounting(pod);
    const entry: PodEntry = { key, pod, nodeName, acct, slot: -1, at: -1, attached: false };
    this.pods.set(key, entry);
    const slot = this.slotOf.get(nodeName);
    if (slot === undefined) {
      let w = this.waiting.get(nodeName);
      if (!w) this.waiting.set(nodeName, (w = new Set()));
      w.add(key);
    } else this.applyPod(entry, slot, +1);
    this.generation++;
  }

  /**
   * Accounts a pod on the node in `slot` for a caller that keeps its own per-pod bookkeeping (the
   * scheduler's snapshot, through SchedulingEngine): no lookup by key or node name; the returned
   * entry is the handle {@link detachPod} takes. Removing the node ends the accounting (the caller
   * attaches its pods again when the node comes back). `key` only names the pod (its podKey).
   */
  attachPod(pod: Pod, slot: number, acct: PodAccounting | undefined, key: string): PodEntry {
    if (!acct || acct.table !== this) acct = this.podAccounting(pod);
    const nodeName = this.names[slot];
    if (nodeName === undefined) throw new RangeError(`NodeTable.attachPod: slot ${slot} holds no node`);
    const entry: PodEntry = { key, pod, nodeName, acct, slot: -1, at: -1, attached: true };
    this.applyPod(entry, slot, +1);
    this.attachedCount++;
    this.generation++;
    return entry;
  }

  /** Ends an {@link attachPod} accounting (nothing when its node was removed meanwhile). */
  detachPod(entry: PodEntry): void {
    if (!entry.attached) return;
    entry.attached = false;
    this.attachedCount--;
    if (entry.slot >= 0) this.applyPod(entry, entry.slot, -1);
    this.generation++;
  }

  /**
   * The columns a pod adds on assume (see {@link PodAccounting}); interns new resource names, so
   * it may relayout the table — call it before writing into table memory.
   * @throws ResourceParseError for a bad quantity, naming the pod and the field
   */
  podAccounting(pod: Pod): PodAccounting {
    const sums = podResourceSums(pod, this.sums);
    const req: number[] = [];
    for (let i = 0; i < sums.names.length; i++) {
      const k = sums.names[i],
        v = sums.amounts[i];
      if (k === 'pods' || v === 0) continue;
      req.push(this.resourceIndex(k), v);
    }
    const ports = podHostPorts(pod);
    return {
      table: this,
      req,
      nzCpu: sums.nzCpu,
      nzMem: sums.nzMem,
      ports: ports.length === 0 ? NO_PORTS : ports,
    };
  }

  /** Forgets a pod (by object or "namespace/name"); returns whether it was known. */
  removePod(pod: Pod | string): boolean {
    const key = typeof pod === 'string' ? pod : podKey(pod);
    const entry = this.pods.get(key);
    if (!entry) return false;
    if (entry.slot >= 0) this.applyPod(entry, entry.slot, -1);
    else this.waiting.get(entry.nodeName)?.delete(key);
    this.pods.delete(key);
    this.generation++;
    return true;
  }

  /** Whether a pod added by key is accounted, and on which node (attached pods: the caller knows). */
  podNode(key: string): string | undefined {
    return this.pods.get(key)?.nodeName;
  }

  get podCount(): number {
    return this.pods.size + this.attachedCount;
  }

  private applyPod(p: PodEntry, slot: number, sign: 1 | -1): void {
    const { nodeCap } = this.dims;
    const f64 = this.mem.f64;
    const req = this.hdr(L.H_OFF_REQ) >> 3,
      alloc = this.hdr(L.H_OFF_ALLOC) >> 3,
      free = this.hdr(L.H_OFF_FREE) >> 3;
    const a = p.acct;
    const pairs = a.req;
    for (let i = 0; i < pairs.length; i += 2) {
      const at = pairs[i] * nodeCap + slot;
      f64[free + at] = f64[alloc + at] - (f64[req + at] += sign * pairs[i + 1]);
    }
    const podsAt = L.R_PODS * nodeCap + slot;
    f64[free + podsAt] = f64[alloc + podsAt] - (f64[req + podsAt] += sign);
    f64[(this.hdr(L.H_OFF_NZCPU) >> 3) + slot] += sign * a.nzCpu;
    f64[(this.hdr(L.H_OFF_NZMEM) >> 3) + slot] += sign * a.nzMem;
    for (const hp of a.ports) {
      const pp = `${hp.protocol}/${hp.port}`;
      let byIp = this.ports.get(pp);
      if (!byIp) this.ports.set(pp, (byIp = new Map()));
      let bySlot = byIp.get(hp.ip);
      if (!bySlot) byIp.set(hp.ip, (bySlot = new Map()));
      const c = (bySlot.get(slot) ?? 0) + sign;
      if (c <= 0) bySlot.delete(slot);
      else bySlot.set(slot, c);
    }
    if (this.podLog.length >= 1 << 16) this.newEpoch();
    this.podLog.push(slot);
    const list = this.entries[slot]!.pods;
    if (sign > 0) {
      p.at = list.length;
      list.push(p);
      p.slot = slot;
    } else {
      const last = list.pop()!;
      if (last !== p) {
        list[p.at] = last;
        last.at = p.at;
      }
      p.at = -1;
      p.slot = -1;
    }
  }

  /**
   * Sets the bit of every node whose used host ports conflict with `want` (HostPortInfo.CheckConflict):
   * a wanted 0.0.0.0 conflicts with the same protocol/port on any IP; a specific IP conflicts with
   * that IP and with 0.0.0.0.
   */
  markPortConflicts(want: HostPort, u32: Uint32Array, wordBase: number): void {
    const byIp = this.ports.get(`${want.protocol}/${want.port}`);
    if (!byIp) return;
    const mark = (bySlot: Map<number, number> | undefined) => {
      if (bySlot) for (const s of bySlot.keys()) u32[wordBase + (s >>> 5)] |= 1 << (s & 31);
    };
    if (want.ip === '0.0.0.0') for (const bySlot of byIp.values()) mark(bySlot);
    else {
      mark(byIp.get('0.0.0.0'));
      mark(byIp.get(want.ip));
    }
  }

  /** Ports in use on a node, sanitized (for explain and tests). */
  usedPorts(slot: number): HostPort[] {
    const out: HostPort[] = [];
    for (const [pp, byIp] of this.ports) {
      const [protocol, port] = pp.split('/');
      for (const [ip, bySlot] of byIp) if (bySlot.has(slot)) out.push({ ip, protocol, port: Number(port) });
    }
    return out;
  }

  // ------------------------------------------------------------------ reads for explain / tests

  /** allocatable of resource `name` on a node (0 if absent) */
  allocatable(slot: number, name: string): number {
    const r = this.resources.get(name);
    return r < 0 ? 0 : this.allocatableAt(slot, r);
  }

  /** allocatable of the resource at index `r` of {@link resources} on a node (no name lookup) */
  allocatableAt(slot: number, r: number): number {
    return this.mem.f64[(this.hdr(L.H_OFF_ALLOC) >> 3) + r * this.dims.nodeCap + slot];
  }

  /** requested (Σ pod requests; for "pods", the number of pods) of resource `name` on a node */
  requested(slot: number, name: string): number {
    const r = this.resources.get(name);
    if (r < 0) return 0;
    return this.mem.f64[(this.hdr(L.H_OFF_REQ) >> 3) + r * this.dims.nodeCap + slot];
  }

  /** non-zero requested milli-CPU and memory (scoring) */
  nonZeroRequested(slot: number): { cpu: number; memory: number } {
    const f64 = this.mem.f64;
    return {
      cpu: f64[(this.hdr(L.H_OFF_NZCPU) >> 3) + slot],
      memory: f64[(this.hdr(L.H_OFF_NZMEM) >> 3) + slot],
    };
  }

  /** taints of a node as the table holds them (including synthesized condition taints), in spec order */
  nodeTaints(slot: number): Taint[] {
    const e = this.entries[slot];
    return e ? e.taintIds.map((id) => this.taintList[id]) : [];
  }
}

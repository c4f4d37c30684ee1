/**
 * The node-local plugins of kube-scheduler's default profile (NodeUnschedulable, NodeName,
 * TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit, NodeResourcesBalancedAllocation,
 * ImageLocality) as framework plugins over the engine's kernels: ONE kernel call per pod fills a
 * failure-reason bitmask and per-plugin raw scores for every node (src/scheduler/kernels), and
 * each plugin's Filter/Score reads its own bits / column. This file adds no scheduling logic of
 * its own beyond upstream's NormalizeScore helper and the reason texts.
 *
 * {@link SchedulingEngine} keeps the NodeTable in step with the framework's ClusterSnapshot
 * (every node/pod change is mirrored incrementally).
 */
import type { Pod } from '../../api/types.js';
import type { CycleState } from '../framework/cycle-state.js';
import type {
  ClusterSnapshot,
  NodeInfo,
  PodInfo,
  SnapshotListener,
  TopologyDomains,
} from '../framework/snapshot.js';
import { Code, SKIP, Status, type MaybeStatus } from '../framework/status.js';
import {
  MAX_NODE_SCORE,
  type ClusterEventKind,
  type EnqueueExtensions,
  type FilterPlugin,
  type Handle,
  type PreFilterPlugin,
  type PreFilterResult,
  type PreScorePlugin,
  type ScorePlugin,
} from '../framework/types.js';
import { JsKernel } from '../engine/js.js';
import * as L from '../engine/layout.js';
import { podRequests, type ResourceAmounts } from '../engine/resources.js';
import { KernelOutput } from '../engine/output.js';
import {
  applyCrossPod,
  CrossPodWriter,
  type CrossPodBlock,
  type CrossPodInputs,
} from '../engine/crosspod.js';
import {
  ALL_FILTER_BITS,
  FilterBit,
  REASON_RESOURCE_BASE,
  REASON_TEXT,
  ReasonBit,
  resourceReason,
  ScorePlugin as SP,
} from '../engine/types.js';
import type { Kernel, KernelName, ScoringConfig, ScorePluginName } from '../engine/types.js';
import { WasmKernel } from '../engine/wasm.js';
import type { PodQuery } from '../engine/podquery.js';
import { QueryCache } from '../engine/querycache.js';
import { resolveScoring, type ResolvedScoring } from '../engine/scoring.js';
import { NodeTable, podHostPorts, type NodeTableOptions, type PodAccounting } from '../engine/table.js';

/** The NodeTable + kernel shared by every profile of one scheduler, mirrored from the snapshot. */
export class SchedulingEngine implements SnapshotListener {
  readonly table: NodeTable;
  readonly kernel: Kernel<NodeTable, PodQuery, KernelOutput>;
  readonly out: KernelOutput;
  /** NodeInfo by table slot */
  readonly bySlot: (NodeInfo | undefined)[] = [];
  /** the cross-pod plugins' per-cycle inputs, next to the query */
  readonly crossPod: CrossPodWriter;
  /** per TOPO row: the snapshot domains it was last written from */
  private readonly topoWritten = new Map<number, TopologyDomains>();
  /**
   * what assuming a pod adds to the table, as the last compilePod computed it, and the copy being
   * assumed with it (upstream's PodInfo keeps its computed requests across the assume's DeepCopy)
   */
  private compiledPod: Pod | undefined = undefined;
  private compiledAcct: PodAccounting | undefined = undefined;
  private assumingPod: Pod | undefined = undefined;
  private assumingAcct: PodAccounting | undefined = undefined;

  constructor(
    readonly snapshot: ClusterSnapshot,
    kernel: KernelName = 'js',
    tableOptions: NodeTableOptions = {},
  ) {
    this.table = new NodeTable(tableOptions);
    this.kernel = kernel === 'wasm' ? new WasmKernel() : new JsKernel();
    this.out = new KernelOutput(this.table);
    this.crossPod = new CrossPodWriter(this.table);
    for (const ni of snapshot.list()) {
      this.nodeAdded(ni);
      for (const pi of ni.pods) this.podAdded(pi, ni);
    }
    snapshot.listen(this);
  }

  /**
   * The TOPO row of a topology key holding the snapshot's domain ids (`d`), rewritten when the
   * snapshot's domains changed (a node was added, updated or removed): the per-domain arrays the
   * cross-pod plugins compute per cycle then index the kernel's row directly.
   */
  topologyRow(d: TopologyDomains): number {
    const row = this.table.registerTopologyKey(d.key);
    if (this.topoWritten.get(row) !== d) {
      const slots = new Int32Array(d.list.length);
      for (let j = 0; j < slots.length; j++) slots[j] = d.list[j].slot;
      this.table.setTopologyDomains(row, slots, d.ids);
      this.topoWritten.set(row, d);
    }
    return row;
  }

  nodeAdded(ni: NodeInfo): void {
    ni.slot = this.table.addNode(ni.node);
    this.bySlot[ni.slot] = ni;
  }

  nodeUpdated(ni: NodeInfo): void {
    this.table.updateNode(ni.node);
  }

  nodeRemoved(ni: NodeInfo): void {
    this.table.removeNode(ni.name);
    if (ni.slot >= 0) this.bySlot[ni.slot] = undefined;
    ni.slot = -1;
  }

  /** a query was compiled for `pod`: what assuming it adds */
  noteCompiled(pod: Pod, acct: PodAccounting): void {
    this.compiledPod = pod;
    this.compiledAcct = acct;
  }

  /** `copy` (the pod with spec.nodeName set) is about to be added: it adds what the last compile of `pod` computed */
  assumeCopy(pod: Pod, copy: Pod): void {
    if (pod !== this.compiledPod) return;
    this.assumingPod = copy;
    this.assumingAcct = this.compiledAcct;
  }

  podAdded(pi: PodInfo, ni: NodeInfo): void {
    const acct = pi.pod === this.assumingPod ? this.assumingAcct : undefined;
    this.assumingPod = this.assumingAcct = undefined;
    // the snapshot keeps the pod by key: the table's entry rides on its PodInfo
    pi.tableEntry = this.table.attachPod(pi.pod, ni.slot, acct, pi.key);
  }

  podRemoved(pi: PodInfo): void {
    const e = pi.tableEntry;
    if (e === undefined) return;
    pi.tableEntry = undefined;
    this.table.detachPod(e);
  }
}

/** What one kernel call left in the output columns for the current cycle. */
export interface KernelRun {
  /** true: every node evaluated with allReasons; false: a window (upstream sampling) */
  full: boolean;
  /** nodes processed (window runs) */
  processed: number;
  start: number;
  /** the table generation the run saw (a run is stale once the table changes) */
  generation: number;
  /** views of the output columns, valid while `generation` holds (memory only grows on table updates) */
  reasons: Uint32Array;
  status: Uint8Array;
  /** the run also wrote NormalizeScore and the weighted totals of the node-local plugins */
  totals?: boolean;
  /** the raw score columns are valid for the feasible nodes (a window run writes them on demand) */
  raw: boolean;
  /** window runs: the numNodesToFind they were called with (to repeat the same window) */
  toFind?: number;
  /** window runs: the feasible NodeInfo list handed to the framework, in the kernel's feasible order */
  feasibleNodes?: readonly NodeInfo[];
  /** a run over this one node slot only (a what-if check after the table changed) */
  single?: number;
  /** window runs: the cross-pod inputs the window read (repeated with it) */
  crossPod?: CrossPodBlock;
  /** the score plugins whose normalized scores the window added to its totals besides the node-local ones */
  crossPodScored?: ReadonlySet<string>;
  /**
   * chunked runs (the per-node path): scan-order ranges evaluated so far, every reason and the raw
   * scores of their feasible nodes, all at this generation
   */
  chunks?: { start: number; processed: number }[];
}

/** nodes a chunked run evaluates per kernel call: about what one per-node cycle visits at 5k nodes */
const CHUNK_NODES = 1024;

export const RUN_KEY = 'NodeLocalKernelRun';

/** Filter plugin name → its reason bits. */
export const KERNEL_FILTERS: Readonly<Record<string, number>> = {
  NodeUnschedulable: ReasonBit.NodeUnschedulable,
  NodeName: ReasonBit.NodeName,
  TaintToleration: ReasonBit.TaintToleration,
  NodeAffinity: ReasonBit.NodeAffinity,
  NodePorts: ReasonBit.NodePorts,
  NodeResourcesFit: ~0xff,
};

/** Status codes as the upstream plugins return them. */
const FILTER_CODE: Readonly<Record<string, Code>> = {
  NodeUnschedulable: Code.UnschedulableAndUnresolvable,
  NodeName: Code.UnschedulableAndUnresolvable,
  TaintToleration: Code.UnschedulableAndUnresolvable,
  NodeAffinity: Code.UnschedulableAndUnresolvable,
  NodePorts: Code.Unschedulable,
  NodeResourcesFit: Code.Unschedulable, // or UnschedulableAndUnresolvable: filterStatus
};

/**
 * A profile's view of the engine: its scoring configuration (weights, NodeResourcesFit strategy,
 * BalancedAllocation resources) and the per-cycle kernel call.
 */
export class NodeLocalRunner {
  private resolved: ResolvedScoring;
  /** reason bits → Status, built once per distinct bitmask (NodeResourcesFit combinations) */
  private readonly fitStatuses = new Map<number, Status>();
  /** the same for nodes where some request exceeds the whole allocatable */
  private readonly unresolvableFitStatuses = new Map<number, Status>();
  /** the pod's requests (upstream computePodResourceRequest), per pod object */
  private readonly podRequestCache = new WeakMap<Pod, ResourceAmounts>();
  /** exceedsAllocatable's pod and its requests by resource index */
  private exceedPod: Pod | undefined = undefined;
  private exceedReq = new Float64Array(0);
  private readonly constStatuses = new Map<string, Status>();
  /**
   * the node-local filters this profile does not enable ({@link FilterBit} mask): the kernel does not
   * run them, so its feasible nodes — the ones it scores — are those the profile's filters pass
   */
  private disabledFilters = 0;
  /** the pod of the last compiled query and whether it set QF_BEST_EFFORT */
  private lastCompiledPod?: Pod;
  private lastBestEffort = false;
  /** compiled queries per pod template (engine/querycache.ts) */
  private readonly queries: QueryCache;

  constructor(
    readonly engine: SchedulingEngine,
    config: ScoringConfig,
  ) {
    this.resolved = resolveScoring(config);
    this.queries = new QueryCache(engine.table);
  }

  /** the profile's scoring configuration, as the query compiler reads it */
  get scoring(): ResolvedScoring {
    return this.resolved;
  }

  /**
   * the profile's filter and PreScore plugins (set by the profile builder): kernel filters not among
   * them are off, and BalancedAllocation scores best-effort pods unless its PreScore skips them
   */
  configureProfile(filters: readonly string[], preScore: readonly string[]): void {
    let off = ALL_FILTER_BITS;
    for (const n of filters) if (n in FilterBit) off &= ~FilterBit[n];
    this.disabledFilters = off;
    const skips = preScore.includes('NodeResourcesBalancedAllocation');
    if (skips !== this.resolved.balancedSkipsBestEffort)
      this.resolved = { ...this.resolved, balancedSkipsBestEffort: skips };
  }

  private compile(pod: Pod): PodQuery {
    const q = this.queries.compile(pod, this.scoring);
    this.engine.noteCompiled(pod, q.accounting);
    // the compiler already decided BalancedAllocation's best-effort case: PreScore reads it here
    this.lastCompiledPod = pod;
    this.lastBestEffort = (this.engine.table.mem.i32[(q.addr >> 2) + L.Q_FLAGS] & L.QF_BEST_EFFORT) !== 0;
    return q;
  }

  /**
   * A run whose verdict for `ni` is current: the cycle's run when it covers the node; after the
   * table changed — preemption's what-if checks remove and restore pods between two questions
   * about one node — that node alone; otherwise the next chunk of nodes in scan order from `ni`
   * (the per-node path and explain walk the nodes in that order), and after four chunks one pass
   * over every node.
   */
  runFor(state: CycleState, pod: Pod, ni: NodeInfo): KernelRun {
    const run = state.tryRead<KernelRun>(RUN_KEY);
    const table = this.engine.table;
    const current = run !== undefined && run.generation === table.generation;
    if (current && this.covers(run, ni.slot)) return run;
    const pos = table.positionOf(ni.slot);
    // (a caller asking out of scan order — or a whole table's worth — gets one full pass instead)
    if (pos < 0 || (current && run.chunks && run.chunks.length >= 4)) return this.ensureFull(state, pod);
    const q = this.compile(pod);
    const out = this.engine.out;
    if (run && !current) {
      // the table changed since the cycle's run: a what-if question about this node
      this.engine.kernel.filterAndScore(table, q, out, {
        start: pos,
        maxNodes: 1,
        allReasons: true,
        skipScore: true,
        disabledFilters: this.disabledFilters,
      });
      const single: KernelRun = {
        full: false,
        processed: 1,
        start: pos,
        generation: table.generation,
        reasons: out.reasons,
        status: out.status,
        raw: false,
        single: ni.slot,
      };
      state.write(RUN_KEY, single);
      return single;
    }
    // the next chunk from here, every reason and the raw scores: a cycle that stops after
    // numFeasibleNodesToFind nodes costs one or two chunks instead of a pass over every node
    const processed = this.engine.kernel.filterAndScore(table, q, out, {
      start: pos,
      // a PreFilterResult's few nodes are visited one by one, not with the chunk after each
      maxNodes: state.preFilterNodeNames ? 1 : CHUNK_NODES,
      allReasons: true,
      output: 'raw',
      disabledFilters: this.disabledFilters,
    });
    const chunks =
      current && run.chunks ? [...run.chunks, { start: pos, processed }] : [{ start: pos, processed }];
    const chunked: KernelRun = {
      full: false,
      processed,
      start: pos,
      generation: table.generation,
      reasons: out.reasons,
      status: out.status,
      raw: true,
      chunks,
    };
    state.write(RUN_KEY, chunked);
    return chunked;
  }

  /**
   * whether `ni` passes every kernel filter of the profile in this cycle (the run the node-local
   * filters read when the framework reaches the node): a filter plugin after them is asked about it
   */
  passesKernelFilters(state: CycleState, pod: Pod, ni: NodeInfo): boolean {
    return this.runFor(state, pod, ni).reasons[ni.slot] === 0;
  }

  /** whether a run (at the current generation) evaluated the node in `slot` (per node: no allocation) */
  covers(run: KernelRun, slot: number): boolean {
    if (run.full) return true;
    if (run.single !== undefined) return run.single === slot;
    const table = this.engine.table;
    const pos = table.positionOf(slot);
    if (pos < 0) return false;
    const n = table.size;
    const chunks = run.chunks;
    if (!chunks) return (pos - run.start + n) % n < run.processed; // a sampling window
    for (let i = 0; i < chunks.length; i++)
      if ((pos - chunks[i].start + n) % n < chunks[i].processed) return true;
    return false;
  }

  /** every node, every reason (the general path, explain, and the nominated-node check) */
  ensureFull(state: CycleState, pod: Pod): KernelRun {
    const cur = state.tryRead<KernelRun>(RUN_KEY);
    if (cur && cur.full && cur.generation === this.engine.table.generation) return cur;
    const q = this.compile(pod);
    this.engine.kernel.filterAndScore(this.engine.table, q, this.engine.out, {
      allReasons: true,
      output: 'raw',
      disabledFilters: this.disabledFilters,
    });
    const out = this.engine.out;
    const run: KernelRun = {
      full: true,
      processed: this.engine.table.size,
      start: 0,
      generation: this.engine.table.generation,
      reasons: out.reasons,
      status: out.status,
      raw: true,
    };
    state.write(RUN_KEY, run);
    return run;
  }

  /**
   * The fast path: upstream's sampling window done inside the kernel. Output 'total' — the totals
   * and the best node the fast scorer takes; when the cycle needs the per-plugin scores instead (a
   * cross-pod or user score plugin is active, explain), {@link rawForWindow} repeats the window in
   * 'raw' mode.
   */
  runWindow(
    state: CycleState,
    pod: Pod,
    start: number,
    numNodesToFind: number,
    crossPod?: { inputs: CrossPodInputs; scored: ReadonlySet<string> },
  ): KernelRun {
    // the cross-pod inputs first: writing them may register a topology row (the table grows)
    const block = crossPod ? this.engine.crossPod.write(crossPod.inputs) : undefined;
    const q = this.compile(pod);
    if (block) applyCrossPod(this.engine.table, q.addr, block);
    const processed = this.engine.kernel.filterAndScore(this.engine.table, q, this.engine.out, {
      start,
      numNodesToFind,
      output: 'total',
      disabledFilters: this.disabledFilters,
    });
    const out = this.engine.out;
    const run: KernelRun = {
      full: false,
      processed,
      start,
      generation: this.engine.table.generation,
      reasons: out.reasons,
      status: out.status,
      totals: true,
      raw: false,
      toFind: numNodesToFind,
      crossPod: block,
      crossPodScored: crossPod?.scored,
    };
    state.write(RUN_KEY, run);
    return run;
  }

  /** the window's raw score columns: the same window (same table, same query) again in 'raw' mode */
  rawForWindow(state: CycleState, pod: Pod, run: KernelRun): void {
    const q = this.compile(pod);
    if (run.crossPod) applyCrossPod(this.engine.table, q.addr, run.crossPod);
    const processed = this.engine.kernel.filterAndScore(this.engine.table, q, this.engine.out, {
      start: run.start,
      numNodesToFind: run.toFind,
      output: 'raw',
      disabledFilters: this.disabledFilters,
    });
    if (processed !== run.processed)
      throw new Error(`kubesim: repeating the kernel window gave ${processed} nodes, not ${run.processed}`);
    // 'raw' does not write the totals: the fast scorer must not read them any more
    state.write(RUN_KEY, { ...run, raw: true, totals: false });
  }

  /** the status a node-local filter plugin returns for a node, from the reason bits */
  filterStatus(
    plugin: string,
    pod: Pod,
    ni: NodeInfo,
    reasons: Uint32Array = this.engine.out.reasons,
  ): MaybeStatus {
    const bits = reasons[ni.slot] & KERNEL_FILTERS[plugin];
    if (bits === 0) return null;
    if (plugin === 'NodeResourcesFit') return this.fitStatus(pod, ni.slot, bits);
    // constant texts (TaintToleration no longer names the taint: formatting a message per node is
    // what upstream avoids, taint_toleration.go)
    let s = this.constStatuses.get(plugin);
    if (!s) {
      s = new Status(FILTER_CODE[plugin], [REASON_TEXT[bits]], plugin);
      this.constStatuses.set(plugin, s);
    }
    return s;
  }

  /** NodeResourcesFit's status for the node in `slot` from its fit reason bits (not 0) */
  fitStatus(pod: Pod, slot: number, bits: number): Status {
    // upstream fit.go: UnschedulableAndUnresolvable when some request exceeds the node's whole
    // allocatable (removing pods cannot make room), Unschedulable otherwise
    const unresolvable = this.exceedsAllocatable(pod, slot, bits);
    const cache = unresolvable ? this.unresolvableFitStatuses : this.fitStatuses;
    let s = cache.get(bits);
    if (!s) {
      const names = this.engine.table.resources.values;
      const reasons: string[] = [];
      // upstream fitsRequest order: pods first, then cpu, memory, ephemeral-storage, extended
      const order = [3, 0, 1, 2, ...names.map((_, i) => i).filter((i) => i > 3)];
      for (const r of order)
        if (bits & (1 << (REASON_RESOURCE_BASE + r))) reasons.push(resourceReason(names[r]));
      s = new Status(
        unresolvable ? Code.UnschedulableAndUnresolvable : Code.Unschedulable,
        reasons,
        'NodeResourcesFit',
      );
      cache.set(bits, s);
    }
    return s;
  }

  /** the pod's requests (upstream PodRequests: containers, sidecars, init peak, overhead), per pod object */
  requestsOf(pod: Pod): ResourceAmounts {
    let req = this.podRequestCache.get(pod);
    if (!req) {
      req = podRequests(pod);
      this.podRequestCache.set(pod, req);
    }
    return req;
  }

  /** BalancedAllocation's isBestEffortPod: every request of its resources is zero */
  isBestEffortForBalanced(pod: Pod): boolean {
    // the cycle's filter call compiled this pod (QF_BEST_EFFORT is set exactly then, since the
    // profile runs this PreScore); otherwise from the requests
    if (pod === this.lastCompiledPod && this.resolved.balancedSkipsBestEffort) return this.lastBestEffort;
    const req = this.requestsOf(pod);
    for (const r of this.scoring.balancedResources) if ((req.get(r.name) ?? 0) !== 0) return false;
    return true;
  }

  /** whether a resource reported insufficient is requested beyond the node's whole allocatable ("Too many pods" never is) */
  private exceedsAllocatable(pod: Pod, slot: number, bits: number): boolean {
    const table = this.engine.table;
    const names = table.resources.values;
    // the pod's requests by resource index, once per pod (a pod no node fits asks for every
    // rejected node: thousands of calls, two name lookups per resource each before)
    let req = this.exceedReq;
    if (this.exceedPod !== pod || req.length !== names.length) {
      const amounts = this.requestsOf(pod);
      req = this.exceedReq = new Float64Array(names.length);
      for (let r = 0; r < names.length; r++) req[r] = amounts.get(names[r]) ?? 0;
      this.exceedPod = pod;
    }
    for (let r = 0; r < names.length; r++) {
      if (r === L.R_PODS || (bits & (1 << (REASON_RESOURCE_BASE + r))) === 0) continue;
      if (req[r] > table.allocatableAt(slot, r)) return true;
    }
    return false;
  }
}

/** upstream helper.DefaultNormalizeScore: scale to 0..max by the maximum, optionally reversed. */
export function defaultNormalizeScore(maxPriority: number, reverse: boolean, scores: number[]): void {
  let maxCount = 0;
  for (const s of scores) if (s > maxCount) maxCount = s;
  if (maxCount === 0) {
    if (reverse) for (let i = 0; i < scores.length; i++) scores[i] = maxPriority;
    return;
  }
  for (let i = 0; i < scores.length; i++) {
    let s = Math.trunc((maxPriority * scores[i]) / maxCount);
    if (reverse) s = maxPriority - s;
    scores[i] = s;
  }
}

export const SCORE_INDEX: Readonly<Record<string, number>> = SP;
const NORMALIZE: Readonly<Record<string, boolean | undefined>> = {
  TaintToleration: true,
  NodeAffinity: false,
};

const EVENTS: Readonly<Record<string, ClusterEventKind[]>> = {
  NodeUnschedulable: ['NodeAdd', 'NodeUpdate'],
  NodeName: ['NodeAdd', 'NodeUpdate'],
  TaintToleration: ['NodeAdd', 'NodeUpdate'],
  NodeAffinity: ['NodeAdd', 'NodeUpdate'],
  NodePorts: ['AssignedPodDelete', 'NodeAdd'],
  NodeResourcesFit: ['AssignedPodDelete', 'AssignedPodUpdate', 'NodeAdd', 'NodeUpdate'],
};

/**
 * The PreFilter / PreScore verdicts of the node-local plugins (v1.34), as upstream decides them:
 * Skip when the plugin has nothing to check or score for the pod. The framework then runs neither
 * its Filter nor its Score, and explain shows "skip". Plugins without a case here succeed.
 */
const PRE_FILTER: Readonly<Record<string, (pod: Pod) => MaybeStatus | PreFilterResult>> = {
  NodeAffinity: nodeAffinityPreFilter,
  // node_ports.go: the pod asks for no host port (util.GetHostPorts: containers and sidecars)
  NodePorts: (pod) => (podHostPorts(pod).length === 0 ? SKIP : null),
};

const PRE_SCORE: Readonly<Record<string, (pod: Pod, runner: NodeLocalRunner) => MaybeStatus>> = {
  // node_affinity.go: no preferred terms (nil)
  NodeAffinity: (pod) =>
    pod.spec.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution == null ? SKIP : null,
  // balanced_allocation.go: a best-effort pod is not scored (kubernetes#129138)
  NodeResourcesBalancedAllocation: (pod, runner) => (runner.isBestEffortForBalanced(pod) ? SKIP : null),
};

/** upstream errReasonConflict: every required term names nodes, and no node is named by all */
export const ERR_REASON_AFFINITY_CONFLICT = 'pod affinity terms conflict';

/**
 * NodeAffinity's PreFilter (node_affinity.go): Skip without nodeSelector and required affinity (nil,
 * not empty); when every required term has `matchFields` metadata.name `In` requirements, a
 * PreFilterResult of the union over terms of the intersection within each term — no such node:
 * "pod affinity terms conflict", UnschedulableAndUnresolvable. Read from the raw terms, as upstream.
 */
function nodeAffinityPreFilter(pod: Pod): MaybeStatus | PreFilterResult {
  const required = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required == null && pod.spec.nodeSelector == null) return SKIP;
  const terms = required?.nodeSelectorTerms ?? [];
  if (terms.length === 0) return null;
  let names: Set<string> | undefined;
  for (const t of terms) {
    let termNames: Set<string> | undefined;
    for (const r of t.matchFields ?? []) {
      if (r.key !== 'metadata.name' || r.operator !== 'In') continue;
      const s = new Set(r.values ?? []);
      termNames = termNames === undefined ? s : new Set([...termNames].filter((n) => s.has(n)));
    }
    // a term without a metadata.name In requirement: any node may match (terms are ORed)
    if (termNames === undefined) return null;
    names = names === undefined ? termNames : new Set([...names, ...termNames]);
  }
  if (names !== undefined && names.size === 0)
    return new Status(Code.UnschedulableAndUnresolvable, [ERR_REASON_AFFINITY_CONFLICT]);
  return names !== undefined ? { nodeNames: names } : null;
}

/** One node-local plugin; implements Filter and/or Score depending on `name`. */
export class NodeLocalPlugin implements FilterPlugin, ScorePlugin, EnqueueExtensions {
  /**
   * set only for the plugins whose PreFilter / PreScore can answer something other than Success
   * (upstream's others compute state this engine does not need), so the framework calls no no-op
   */
  readonly preFilter?: PreFilterPlugin['preFilter'];
  readonly preScore?: PreScorePlugin['preScore'];

  constructor(
    readonly name: string,
    private readonly runner: NodeLocalRunner,
  ) {
    const pf = PRE_FILTER[name];
    if (pf) this.preFilter = (_state, pod) => pf(pod);
    const ps = PRE_SCORE[name];
    if (ps) this.preScore = (_state, pod) => ps(pod, runner);
  }

  /** the engine runner this plugin reads (the fast scorer checks all plugins share one) */
  runnerOf(): NodeLocalRunner {
    return this.runner;
  }

  eventsToRegister(): ClusterEventKind[] {
    return EVENTS[this.name] ?? ['NodeAdd', 'NodeUpdate'];
  }

  filter(state: CycleState, pod: Pod, ni: NodeInfo): MaybeStatus {
    const run = this.runner.runFor(state, pod, ni);
    return this.runner.filterStatus(this.name, pod, ni, run.reasons);
  }

  score(state: CycleState, pod: Pod, ni: NodeInfo): number {
    const out = [0];
    this.scoreAll(state, pod, [ni], out);
    return out[0];
  }

  scoreAll(state: CycleState, pod: Pod, nodes: readonly NodeInfo[], out: number[]): void {
    const run = state.tryRead<KernelRun>(RUN_KEY);
    // (raw columns are valid for every node the run found feasible)
    const runner = this.runner;
    if (
      !run ||
      run.generation !== runner.engine.table.generation ||
      run.single !== undefined ||
      (run.chunks && !nodes.every((ni) => runner.covers(run, ni.slot)))
    )
      runner.ensureFull(state, pod);
    else if (!run.raw) runner.rawForWindow(state, pod, run);
    const col = this.runner.engine.out.raw(SCORE_INDEX[this.name]);
    for (let i = 0; i < nodes.length; i++) out[i] = col[nodes[i].slot];
  }

  normalizeScore(_state: CycleState, _pod: Pod, _nodes: readonly NodeInfo[], scores: number[]): MaybeStatus {
    const reverse = NORMALIZE[this.name];
    if (reverse !== undefined) defaultNormalizeScore(MAX_NODE_SCORE, reverse, scores);
    return null;
  }
}

export const NODE_LOCAL_SCORES: readonly ScorePluginName[] = [
  'TaintToleration',
  'NodeAffinity',
  'NodeResourcesFit',
  'NodeResourcesBalancedAllocation',
  'ImageLocality',
];

/** Per-profile runner, created on first use from the handle's engine and the profile's config. */
const runners = new WeakMap<Handle, NodeLocalRunner>();

/** Scoring config of a profile from its score weights and plugin args (NodeResourcesFitArgs, …). */
export function scoringConfigFromArgs(
  weights: ReadonlyMap<string, number>,
  args: ReadonlyMap<string, Record<string, unknown>>,
): ScoringConfig {
  const cfg: ScoringConfig = { weights: {} };
  for (const p of NODE_LOCAL_SCORES) cfg.weights![p] = weights.get(p) ?? 0;
  const fit = args.get('NodeResourcesFit');
  if (fit) {
    if (fit.ignoredResources !== undefined || fit.ignoredResourceGroups !== undefined) {
      throw new Error(
        'NodeResourcesFitArgs: ignoredResources/ignoredResourceGroups are not supported by kubesim',
      );
    }
    const ss = fit.scoringStrategy as
      | {
          type?: string;
          resources?: { name: string; weight?: number }[];
          requestedToCapacityRatio?: { shape?: { utilization: number; score: number }[] };
        }
      | undefined;
    if (ss) {
      const type = (ss.type ?? 'LeastAllocated') as
        | 'LeastAllocated'
        | 'MostAllocated'
        | 'RequestedToCapacityRatio';
      cfg.fit = {
        type,
        resources: ss.resources?.map((r) => ({ name: r.name, weight: r.weight ?? 1 })),
        shape: ss.requestedToCapacityRatio?.shape,
      };
    }
  }
  const bal = args.get('NodeResourcesBalancedAllocation');
  if (bal?.resources)
    cfg.balancedResources = (bal.resources as { name: string; weight?: number }[]).map((r) => ({
      name: r.name,
      weight: r.weight ?? 1,
    }));
  const na = args.get('NodeAffinity');
  if (na?.addedAffinity !== undefined)
    throw new Error('NodeAffinityArgs: addedAffinity is not supported by kubesim');
  return cfg;
}

/** Extra per-profile data the node-local factories need (set by the profile builder). */
export interface NodeLocalHandle extends Handle {
  engine: SchedulingEngine;
  scoreWeights: ReadonlyMap<string, number>;
  pluginArgs: ReadonlyMap<string, Record<string, unknown>>;
}

export function runnerFor(h: Handle): NodeLocalRunner {
  let r = runners.get(h);
  if (!r) {
    const nh = h as NodeLocalHandle;
    if (!(nh.engine instanceof SchedulingEngine))
      throw new Error('node-local plugins need a SchedulingEngine in the framework handle');
    r = new NodeLocalRunner(
      nh.engine,
      scoringConfigFromArgs(nh.scoreWeights ?? new Map(), nh.pluginArgs ?? new Map()),
    );
    runners.set(h, r);
  }
  return r;
}

export function nodeLocalFactory(name: string) {
  return (_args: Record<string, unknown> | undefined, h: Handle) => new NodeLocalPlugin(name, runnerFor(h));
}

/**
 * User plugins loaded from files (`--plugin`, `plugin:` strategies), run contained: each in a
 * worker thread of its own (sandbox/host.ts) with time and memory limits, on copies of the objects
 * and of the node table. They become ordinary framework plugins here; a failing call throws, and
 * the framework turns that into an Error status naming the plugin, which fails the pod's cycle as
 * upstream's frameworkImpl does (pkg/scheduler/framework/runtime/framework.go: RunFilterPlugins
 * `running %q filter plugin`, RunScorePlugins).
 *
 * Costs, and how they are kept down (measured in BENCHMARKS.md, "plugin containment"):
 * - one worker round trip per Score batch (all feasible nodes of a pod), not per node;
 * - Filter is asked per node by the framework: a call asks at once about the nodes the framework's
 *   filter loop will reach — the next ones in the snapshot's order that pass the kernel filters,
 *   about numFeasibleNodesToFind of them — and the rest of the cycle reads those verdicts (each
 *   cached with the node's generation, so a node changed meanwhile — preemption's what-if
 *   checks — is asked again, alone);
 * - pods and nodes are sent once (numbered by identity), a node's pod list only when it changed;
 * - a WASM plugin gets the table's bytes copied into its own memory, then per call only what
 *   changed (the header and the cells of nodes whose pods changed; everything after a node or
 *   layout change).
 */
import type { Pod } from '../../api/types.js';
import { podKey } from '../../api/keys.js';
import { TABLE_HEADER } from '../engine/layout.js';
import { podRequests } from '../engine/resources.js';
import type { CycleState } from '../framework/cycle-state.js';
import type { NodeInfo } from '../framework/snapshot.js';
import { Code, Status, type MaybeStatus } from '../framework/status.js';
import {
  MAX_NODE_SCORE,
  MIN_NODE_SCORE,
  type Handle,
  type Plugin,
  type PluginFactory,
} from '../framework/types.js';
import { runnerFor, SchedulingEngine, type NodeLocalHandle, type NodeLocalRunner } from './node-local.js';
import { numFeasibleNodesToFind } from '../engine/types.js';
import type { PluginErrorPolicy } from './sandbox/limits.js';
import { PluginFailure, type PluginSandbox } from './sandbox/host.js';
import type { JsRequest } from './sandbox/protocol.js';
import { normalizer, type Normalization } from './normalize.js';

/** One failed call of a contained plugin. */
export interface PluginFailureRecord {
  plugin: string;
  /** the extension point: Score or Filter */
  point: 'Score' | 'Filter';
  /** the pod whose cycle it failed */
  pod: string;
  message: string;
}

/** What the instances of one loaded plugin share: the worker, the object numbering, the failures. */
export class ContainedRuntime {
  readonly failures: PluginFailureRecord[] = [];
  /** in 'fail' mode, the first failure: later calls fail with it at once */
  private broken?: string;
  private ids = new WeakMap<object, number>();
  private nextId = 1;
  private defs: [number, unknown][] = [];
  /** node number → the NodeInfo and generation whose pods were sent last under it */
  private sentPods = new Map<number, { ni: NodeInfo; generation: number }>();
  private generation = -1;
  /** per cycle: when its budget ends (performance.now() ms) */
  private deadlines = new WeakMap<CycleState, number>();
  /** WASM: the shared buffer the table is copied into */
  private shared?: SharedArrayBuffer;
  private sentShared?: SharedArrayBuffer;
  /** what the shared buffer holds: the table as of this change epoch and this much of its pod log */
  private mirrored?: { epoch: number; logged: number };

  constructor(
    readonly name: string,
    readonly sandbox: PluginSandbox,
    readonly policy: PluginErrorPolicy,
  ) {}

  /** Runs `f` against the worker; a failure is recorded and rethrown as an Error with its reason. */
  guard<T>(point: 'Score' | 'Filter', pod: Pod, f: () => T): T {
    if (this.broken !== undefined) throw new Error(this.broken);
    try {
      return f();
    } catch (e) {
      if (!(e instanceof PluginFailure)) throw e;
      this.failures.push({ plugin: this.name, point, pod: podKey(pod), message: e.message });
      if (this.policy === 'fail') this.broken = e.message;
      throw new Error(e.message);
    }
  }

  deadline(state: CycleState | undefined): number {
    // a caller outside a cycle (no state) gets a budget of its own per call
    if (!state) return performance.now() + this.sandbox.limits.cycleMs;
    let d = this.deadlines.get(state);
    if (d === undefined) {
      d = performance.now() + this.sandbox.limits.cycleMs;
      this.deadlines.set(state, d);
    }
    return d;
  }

  /** A batch request for `nodes`, numbering objects not sent before. */
  jsRequest(op: 'score' | 'filter', pod: Pod, nodes: readonly NodeInfo[]): JsRequest {
    if (this.generation !== this.sandbox.generation) {
      // a new worker knows no objects yet
      this.ids = new WeakMap();
      this.sentPods.clear();
      this.generation = this.sandbox.generation;
    }
    const n = nodes.length;
    const nodeIds = new Int32Array(n);
    const podCount = new Int32Array(n);
    const podIds: number[] = [];
    for (let i = 0; i < n; i++) {
      const ni = nodes[i];
      const id = this.id(ni.node);
      nodeIds[i] = id;
      const last = this.sentPods.get(id);
      if (last && last.ni === ni && last.generation === ni.generation) {
        podCount[i] = -1;
        continue;
      }
      podCount[i] = ni.pods.length;
      for (const p of ni.pods) podIds.push(this.id(p.pod));
      this.sentPods.set(id, { ni, generation: ni.generation });
    }
    const req: JsRequest = {
      op,
      pod: this.id(pod),
      nodes: nodeIds,
      podCount,
      podIds: Int32Array.from(podIds),
      defs: this.defs,
    };
    this.defs = [];
    return req;
  }

  private id(o: object): number {
    let id = this.ids.get(o);
    if (id === undefined) {
      id = this.nextId++;
      this.ids.set(o, id);
      this.defs.push([id, o]);
    }
    return id;
  }

  /**
   * The table's header and live columns, at their addresses − TABLE_HEADER, and the batch's slots
   * in a shared buffer (worker.ts copies the same regions into the plugin's memory). The shared
   * buffer mirrors the table: within one change epoch of the table (only pods placed or removed)
   * just the header and the pod cells of the slots that changed are copied, here and in the worker.
   */
  wasmScores(h: NodeLocalHandle, pod: Pod, nodes: readonly NodeInfo[], deadline: number): Float64Array {
    const table = h.engine.table;
    const mem = table.mem;
    const tableBytes = mem.used - TABLE_HEADER;
    const slotsAt = (tableBytes + 63) & ~63;
    const need = slotsAt + 4 * nodes.length;
    if (!this.shared || this.shared.byteLength < need) {
      this.shared = new SharedArrayBuffer(Math.max(need * 2, 1 << 20));
      this.mirrored = undefined;
    }
    const bytes = new Uint8Array(this.shared);
    const all = table.regions();
    // (columns never move within an epoch; what the allocator adds after them is not copied)
    const log = this.mirrored ? table.podChanges(this.mirrored.epoch) : undefined;
    let regions: number[];
    if (log === undefined) regions = all.flat();
    else {
      regions = [all[0][0], all[0][1]];
      // a slot changed twice needs one copy
      const seen = new Set<number>();
      for (let i = this.mirrored!.logged; i < log.length; i++)
        if (!seen.has(log[i])) {
          seen.add(log[i]);
          table.podCells(log[i], regions);
        }
    }
    for (let k = 0; k < regions.length; k += 2) {
      const at = regions[k];
      bytes.set(mem.u8.subarray(at, at + regions[k + 1]), at - TABLE_HEADER);
    }
    this.mirrored = { epoch: table.changeEpoch, logged: table.podChanges(table.changeEpoch)!.length };
    const slots = new Int32Array(this.shared, slotsAt, nodes.length);
    for (let i = 0; i < nodes.length; i++) slots[i] = nodes[i].slot;
    const req = podRequests(pod);
    const fresh = this.sentShared !== this.shared || this.generation !== this.sandbox.generation;
    this.generation = this.sandbox.generation;
    this.sentShared = this.shared;
    const a = this.sandbox.call(
      {
        op: 'wasm',
        ...(fresh ? { shared: this.shared } : {}),
        tableBytes,
        regions: Int32Array.from(regions),
        all: Int32Array.from(all.flat()),
        header: table.header,
        count: nodes.length,
        podMilliCpu: req.get('cpu') ?? 0,
        podMemory: req.get('memory') ?? 0,
      },
      deadline,
    );
    return a.scores!;
  }
}

/**
 * Verdicts of one cycle's Filter calls, per node, valid while the node's generation holds. Kept in
 * the CycleState as a plain value, so preemption's clones of the state share it.
 */
interface FilterCache {
  pod: Pod;
  /** batches of more than one node asked in this cycle */
  batches: number;
  /** the table's generation when the cycle began: after a change (preemption's what-ifs) nodes go one by one */
  generation: number;
  verdicts: WeakMap<NodeInfo, { generation: number; node: object; reason: string | null }>;
}

/** room above numFeasibleNodesToFind in a Filter batch (nodes the plugin itself rejects) */
const FILTER_SLACK = 1.25;

class ContainedPlugin implements Plugin {
  private readonly statuses = new Map<string, Status>();
  private readonly cacheKey: string;
  /** grows by half whenever a cycle needs a third batch (the plugin rejects many nodes) */
  private slack = FILTER_SLACK;
  /** the profile's kernel filters, which the framework runs before this plugin's (null: no engine) */
  private kernelRunner?: NodeLocalRunner | null;

  constructor(
    readonly name: string,
    private readonly rt: ContainedRuntime,
    private readonly handle: Handle,
    private readonly kind: 'js' | 'wasm',
    isScore: boolean,
    isFilter: boolean,
    private readonly normalize: Normalization | undefined,
  ) {
    this.cacheKey = `ContainedFilter/${name}`;
    const self = this as unknown as Record<string, unknown>;
    if (isScore) {
      self.score = (s: CycleState, pod: Pod, ni: NodeInfo) => {
        const out = [0];
        this.scoreAll(s, pod, [ni], out);
        return out[0];
      };
      self.scoreAll = this.scoreAll.bind(this);
      self.normalizeScore = normalizer(normalize);
    }
    if (isFilter) self.filter = this.filter.bind(this);
  }

  private scoreAll(state: CycleState, pod: Pod, nodes: readonly NodeInfo[], out: number[]): void {
    const deadline = this.rt.deadline(state);
    const scores = this.rt.guard('Score', pod, () =>
      this.kind === 'wasm'
        ? this.rt.wasmScores(this.handle as NodeLocalHandle, pod, nodes, deadline)
        : this.rt.sandbox.call(this.rt.jsRequest('score', pod, nodes), deadline).scores!,
    );
    if (!this.normalize || this.normalize === 'none')
      for (let i = 0; i < nodes.length; i++) {
        const v = scores[i];
        if (!(v >= MIN_NODE_SCORE && v <= MAX_NODE_SCORE))
          this.rt.guard('Score', pod, () => {
            throw new PluginFailure(
              `score on node "${nodes[i].name}" returned ${v}, outside [${MIN_NODE_SCORE}, ${MAX_NODE_SCORE}] (a plugin without normalize returns final scores; normalize: "default" scales raw ones)`,
            );
          });
      }
    for (let i = 0; i < nodes.length; i++) out[i] = scores[i];
  }

  private filter(state: CycleState, pod: Pod, ni: NodeInfo): MaybeStatus {
    let cache = state.tryRead<FilterCache>(this.cacheKey);
    if (!cache || cache.pod !== pod) {
      cache = { pod, batches: 0, generation: this.snapshotGeneration(), verdicts: new WeakMap() };
      state.write(this.cacheKey, cache);
    }
    const verdicts = cache.verdicts;
    const hit = verdicts.get(ni);
    if (hit && hit.generation === ni.generation && hit.node === ni.node) return this.status(hit.reason);
    // A node asked before whose pods changed since (preemption's what-if checks), or one outside
    // the snapshot's list, goes alone. Otherwise the nodes from here in the snapshot's order — the
    // order the framework's filter loop visits them in — that pass the kernel filters (the
    // framework stops at those before asking this plugin) and were not answered yet, about as
    // many as the loop needs to find: one round trip covers a cycle's Filter calls.
    const list = this.handle.snapshot.list();
    let batch: NodeInfo[];
    if (hit || list[ni.index] !== ni || this.snapshotGeneration() !== cache.generation) batch = [ni];
    else {
      batch = [ni];
      const n = list.length;
      if (cache.batches++ === 2) this.slack = Math.min(this.slack * 1.5, 64);
      const want = Math.ceil(numFeasibleNodesToFind(undefined, n) * this.slack);
      for (let k = 1; k < n && batch.length < want; k++) {
        const x = list[(ni.index + k) % n];
        const v = verdicts.get(x);
        if (v && v.generation === x.generation && v.node === x.node) continue;
        if (this.kernel && !this.kernel.passesKernelFilters(state, pod, x)) continue;
        batch.push(x);
      }
    }
    const deadline = this.rt.deadline(state);
    const a = this.rt.guard('Filter', pod, () =>
      this.rt.sandbox.call(this.rt.jsRequest('filter', pod, batch), deadline),
    );
    const codes = a.verdicts!;
    const texts = a.texts!;
    for (let i = 0; i < batch.length; i++)
      verdicts.set(batch[i], {
        generation: batch[i].generation,
        node: batch[i].node,
        reason: codes[i] === 0 ? null : texts[codes[i] - 1],
      });
    return this.status(codes[0] === 0 ? null : texts[codes[0] - 1]);
  }

  /** (asked once the profile is built: the runner takes the profile's score weights when created) */
  private get kernel(): NodeLocalRunner | undefined {
    if (this.kernelRunner === undefined)
      this.kernelRunner =
        (this.handle as NodeLocalHandle).engine instanceof SchedulingEngine ? runnerFor(this.handle) : null;
    return this.kernelRunner ?? undefined;
  }

  private snapshotGeneration(): number {
    return this.kernel ? this.kernel.engine.table.generation : 0;
  }

  /** one Status per distinct reason (statuses are compared and counted, never formatted per node) */
  private status(reason: string | null): MaybeStatus {
    if (reason === null) return null;
    let st = this.statuses.get(reason);
    if (!st) {
      st = new Status(Code.Unschedulable, [reason], this.name);
      this.statuses.set(reason, st);
    }
    return st;
  }
}

/** A factory of framework plugins over a started sandbox. */
export function containedPluginFactory(
  rt: ContainedRuntime,
  kind: 'js' | 'wasm',
  isScore: boolean,
  isFilter: boolean,
  normalize: Normalization | undefined,
): PluginFactory {
  return (_args: Record<string, unknown> | undefined, h: Handle) => {
    if (kind === 'wasm' && !(h as NodeLocalHandle).engine)
      throw new Error(`WASM plugin ${rt.name}: needs the scheduling engine`);
    return new ContainedPlugin(rt.name, rt, h, kind, isScore, isFilter, normalize);
  };
}

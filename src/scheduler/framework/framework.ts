/**
 * The framework of one scheduling profile: its plugins per extension point, in order, with score
 * weights, and the run* methods of upstream's frameworkImpl (pkg/scheduler/framework/runtime).
 *
 * Order matters: Filter stops at the first plugin that rejects a node, so the FitError histogram
 * counts only that plugin's reasons for the node (exactly as kube-scheduler does); {@link
 * Framework.runAllFilters} evaluates every filter for `kubesim explain`.
 */
import type { Pod } from '../../api/types.js';
import { CycleState } from './cycle-state.js';
import type { NodeInfo, PodInfo } from './snapshot.js';
import type { NodeToStatus } from './fit-error.js';
import { Code, errorStatus, Status, type MaybeStatus } from './status.js';
import {
  MAX_NODE_SCORE,
  MIN_NODE_SCORE,
  type BindPlugin,
  type FilterPlugin,
  type Handle,
  type PermitPlugin,
  type Plugin,
  type PostFilterPlugin,
  type PostFilterResult,
  type PreBindPlugin,
  type PreFilterPlugin,
  type PreFilterResult,
  type PreScorePlugin,
  type QueueSortPlugin,
  type ReservePlugin,
  type ScorePlugin,
} from './types.js';

/** Plugin instances of a profile, per extension point, in execution order. */
export interface ProfilePlugins {
  queueSort?: QueueSortPlugin;
  preFilter: PreFilterPlugin[];
  filter: FilterPlugin[];
  postFilter: PostFilterPlugin[];
  preScore: PreScorePlugin[];
  score: { plugin: ScorePlugin; weight: number }[];
  reserve: ReservePlugin[];
  permit: PermitPlugin[];
  /** absent in profiles built before PreBind existed: treated as none */
  preBind?: PreBindPlugin[];
  bind: BindPlugin[];
}

/** The filter plugins one cycle runs, kept on its CycleState (worked out once per cycle). */
interface FilterPlan {
  framework: object;
  skipped: number;
  covers: ReadonlySet<string> | undefined;
  all: FilterPlugin[];
  uncovered: FilterPlugin[];
}

/** What RunPreFilterPlugins answers. */
export interface PreFilterOutcome {
  /** null: every PreFilter succeeded or skipped; otherwise the cycle's rejection or error */
  status: MaybeStatus;
  /** the intersection of the PreFilterResults returned; undefined: every node */
  nodeNames?: ReadonlySet<string>;
  /** the plugins that returned a PreFilterResult, sorted (upstream's pluginsWithNodes) */
  narrowedBy: string[];
}

/** Go's sort.Strings order for the ASCII plugin names */
const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Per-node, per-score-plugin results of one cycle (what `kubesim explain` prints). */
export interface ScoreTable {
  /** score plugin names, in profile order */
  plugins: string[];
  weights: number[];
  /** raw[p][i]: plugin p's score of node i before NormalizeScore */
  raw: number[][];
  /** normalized[p][i]: after NormalizeScore (0..100) */
  normalized: number[][];
  /** total[i]: Σ normalized × weight */
  total: number[];
  /** plugins that returned Skip at PreScore (their scores are 0 and not run) */
  skipped: string[];
}

/**
 * A batch filter that evaluates a window of nodes in one call (the engine's kernel), used instead
 * of per-node Filter calls when every active filter plugin is covered by it. It must stop once
 * `numNodesToFind` nodes fit, exactly like findNodesThatPassFilters.
 */
export interface WindowFilter {
  /** names of the filter plugins it covers */
  readonly covers: ReadonlySet<string>;
  /**
   * whether it also covers filter plugin `name` in this cycle (a cross-pod filter whose PreFilter
   * state is per topology domain); `passesAll` never covers such a plugin
   */
  coversInCycle?(state: CycleState, name: string): boolean;
  /**
   * `recordFiltered` gives the rejected nodes' statuses, in scan order, on demand: only a pod
   * that fits nowhere needs them (for its FitError and preemption), and building ~a thousand
   * statuses per cycle was the largest cost of a cycle that succeeds. Call it before the next
   * kernel run (it reads the kernel's output). `feasible` too is valid until the next run (one
   * array, reused): a caller that keeps it copies it.
   */
  run(
    state: CycleState,
    pod: Pod,
    start: number,
    numNodesToFind: number,
  ): {
    feasible: NodeInfo[];
    /**
     * records the rejected nodes' statuses (in scan order) into `statuses` — positions of `list`,
     * the snapshot's node list — and the rejecting plugins into `plugins`
     */
    recordFiltered: (statuses: NodeToStatus, list: readonly NodeInfo[], plugins: Set<string>) => void;
    filteredCount: number;
    processed: number;
  };
  /** per-node path: true when every covered filter passes on the node (one check instead of one call per plugin) */
  passesAll(state: CycleState, pod: Pod, ni: NodeInfo): boolean;
}

/**
 * The weighted score totals of the feasible nodes straight from the engine, when every score
 * plugin still active for the pod is one the engine computed in the filter call (otherwise
 * undefined, and RunScorePlugins runs). `best`/`ties`: the first highest total and the ties with
 * the running maximum, so selectHost needs no scan when there is no tie; `events`, when known: the
 * positions where the running maximum was reached or raised, the only ones selectHost acts at. The
 * total of `nodes[i]` is `bySlot[slots[i]]` (the engine's columns as they are, valid until its
 * next call: no copy).
 */
export interface FastScorer {
  totals(
    state: CycleState,
    pod: Pod,
    nodes: readonly NodeInfo[],
  ):
    | {
        bySlot: ArrayLike<number>;
        slots: ArrayLike<number>;
        best: number;
        ties: number;
        events?: ArrayLike<number>;
      }
    | undefined;
}

export class Framework {
  /** plugins that implement PreFilterExtensions (preemption keeps their state right) */
  private readonly extenders: PreFilterPlugin[];
  /** set by the profile builder when the engine can run the filters in one call */
  windowFilter?: WindowFilter;
  /** set by the profile builder alongside windowFilter */
  fastScorer?: FastScorer;

  constructor(
    readonly profileName: string,
    readonly plugins: ProfilePlugins,
    readonly handle: Handle,
    /** per-profile percentageOfNodesToScore (0/undefined = adaptive) */
    readonly percentageOfNodesToScore?: number,
  ) {
    this.extenders = plugins.preFilter.filter((p) => p.addPod || p.removePod);
  }

  /** the window filter, if every filter plugin not skipped for this pod is covered by it */
  activeWindowFilter(state: CycleState): WindowFilter | undefined {
    const wf = this.windowFilter;
    if (!wf) return undefined;
    for (const p of this.plugins.filter)
      if (
        !wf.covers.has(p.name) &&
        !state.skipFilterPlugins.has(p.name) &&
        !wf.coversInCycle?.(state, p.name)
      )
        return undefined;
    return wf;
  }

  hasFilterPlugins(): boolean {
    return this.plugins.filter.length > 0;
  }

  hasScorePlugins(): boolean {
    return this.plugins.score.length > 0;
  }

  /** every distinct plugin instance of the profile */
  allPlugins(): Plugin[] {
    const p = this.plugins;
    const all: Plugin[] = [
      ...p.preFilter,
      ...p.filter,
      ...p.postFilter,
      ...p.preScore,
      ...p.score.map((s) => s.plugin),
      ...p.reserve,
      ...p.permit,
      ...(p.preBind ?? []),
      ...p.bind,
    ];
    if (p.queueSort) all.push(p.queueSort);
    return [...new Set(all)];
  }

  /**
   * RunPreFilterPlugins (runtime/framework.go): Skip marks the plugin's Filter as not needed for this
   * pod; UnschedulableAndUnresolvable fails the cycle at once, Unschedulable after the remaining
   * plugins ran (preemption may still help; the last one is reported); any other status is an
   * error. PreFilterResults are intersected: an empty intersection fails the cycle with
   * "node(s) didn't satisfy plugin(s) [A B] simultaneously" ("… plugin A" for one plugin).
   */
  runPreFilter(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): PreFilterOutcome {
    state.activeFilters = undefined;
    let status: MaybeStatus = null;
    let nodeNames: Set<string> | undefined;
    const narrowedBy: string[] = [];
    for (const pl of this.plugins.preFilter) {
      let r: MaybeStatus | PreFilterResult;
      try {
        r = pl.preFilter(state, pod, nodes);
      } catch (e) {
        r = errorStatus(e);
      }
      if (r !== null && !(r instanceof Status)) {
        narrowedBy.push(pl.name);
        if (nodeNames === undefined) nodeNames = new Set(r.nodeNames);
        else for (const n of nodeNames) if (!r.nodeNames.has(n)) nodeNames.delete(n);
        if (nodeNames.size === 0) {
          const names = [...narrowedBy].sort(byteOrder);
          const msg =
            names.length === 1
              ? `node(s) didn't satisfy plugin ${names[0]}`
              : `node(s) didn't satisfy plugin(s) [${names.join(' ')}] simultaneously`;
          this.notePreFilterNodes(state, nodeNames);
          return {
            status: new Status(Code.UnschedulableAndUnresolvable, [msg]),
            nodeNames,
            narrowedBy: names,
          };
        }
        continue;
      }
      const s = r;
      if (s === null || s.code === Code.Success) continue;
      if (s.code === Code.Skip) {
        state.skipFilterPlugins.add(pl.name);
        continue;
      }
      if (s.code === Code.UnschedulableAndUnresolvable)
        return { status: s.withPlugin(pl.name), narrowedBy: [] };
      if (s.code === Code.Unschedulable) {
        status = s.withPlugin(pl.name);
        continue;
      }
      return {
        status: new Status(Code.Error, [`running PreFilter plugin "${pl.name}": ${s.message()}`], pl.name),
        narrowedBy: [],
      };
    }
    this.notePreFilterNodes(state, nodeNames);
    return { status, nodeNames, narrowedBy: narrowedBy.sort(byteOrder) };
  }

  private notePreFilterNodes(state: CycleState, nodeNames: ReadonlySet<string> | undefined): void {
    state.preFilterNodeNames = nodeNames;
  }

  /**
   * The filter plugins a cycle runs, in order: those PreFilter did not skip, and of them those the
   * window filter does not cover (for nodes it passes). Worked out once per cycle, not per node:
   * the per-node path asks for every node.
   */
  private activeFilters(state: CycleState): FilterPlan {
    const skip = state.skipFilterPlugins;
    const known = state.activeFilters as FilterPlan | undefined;
    const covers = this.windowFilter?.covers;
    if (
      known !== undefined &&
      known.framework === this &&
      known.skipped === skip.size &&
      known.covers === covers
    )
      return known;
    const all = this.plugins.filter.filter((pl) => !skip.has(pl.name));
    const uncovered = covers ? all.filter((pl) => !covers.has(pl.name)) : all;
    const plan: FilterPlan = { framework: this, skipped: skip.size, covers, all, uncovered };
    state.activeFilters = plan;
    return plan;
  }

  /** RunFilterPlugins: the first non-success status, attributed to its plugin; null if the node fits */
  runFilter(state: CycleState, pod: Pod, ni: NodeInfo): MaybeStatus {
    const wf = this.windowFilter;
    const active = this.activeFilters(state);
    const plugins = wf !== undefined && wf.passesAll(state, pod, ni) ? active.uncovered : active.all;
    for (let i = 0; i < plugins.length; i++) {
      const pl = plugins[i];
      let s: MaybeStatus;
      try {
        s = pl.filter(state, pod, ni);
      } catch (e) {
        s = errorStatus(e);
      }
      if (s === null || s.code === Code.Success) continue;
      if (!s.isRejected())
        return new Status(Code.Error, [`running "${pl.name}" filter plugin: ${s.message()}`], pl.name);
      return s.withPlugin(pl.name);
    }
    return null;
  }

  /**
   * RunFilterPluginsWithNominatedPods: when pods at least as important as `pod` are nominated to
   * this node, the node must fit both with them (first pass, on a cloned CycleState with the
   * PreFilterExtensions' AddPod applied and the pods placed on the node) and without them.
   */
  runFilterWithNominatedPods(state: CycleState, pod: Pod, ni: NodeInfo): MaybeStatus {
    const snap = this.handle.snapshot;
    if (snap.nominator.size === 0) return this.runFilter(state, pod, ni);
    const nominated = snap.nominator.size
      ? snap.nominator.podsFor(
          ni.name,
          pod.spec.priority ?? 0,
          `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`,
        )
      : [];
    if (nominated.length === 0) return this.runFilter(state, pod, ni);
    const s2 = state.clone();
    const added: string[] = [];
    let first: MaybeStatus;
    try {
      for (const np of nominated) {
        if (snap.hasPod(`${np.metadata.namespace ?? 'default'}/${np.metadata.name ?? ''}`)) continue; // bound meanwhile: already counted
        const pi = snap.addPod({ ...np, spec: { ...np.spec, nodeName: ni.name } });
        added.push(pi.key);
        const st = this.runAddPod(s2, pod, pi, ni);
        if (st) return st;
      }
      first = this.runFilter(s2, pod, ni);
    } finally {
      for (const k of added) snap.removePod(k);
    }
    if (first !== null) return first;
    return this.runFilter(state, pod, ni);
  }

  /** Every filter's verdict on one node (for explain); null entries are passes, skipped ones undefined */
  runAllFilters(state: CycleState, pod: Pod, ni: NodeInfo): (MaybeStatus | undefined)[] {
    return this.plugins.filter.map((pl) => {
      if (state.skipFilterPlugins.has(pl.name)) return undefined;
      try {
        const s = pl.filter(state, pod, ni);
        return s === null || s.code === Code.Success ? null : s.withPlugin(pl.name);
      } catch (e) {
        return errorStatus(e).withPlugin(pl.name);
      }
    });
  }

  /**
   * RunPostFilterPlugins: the first success wins; rejections' reasons are collected;
   * UnschedulableAndUnresolvable stops the chain.
   */
  runPostFilter(
    state: CycleState,
    pod: Pod,
    statuses: ReadonlyMap<string, Status>,
  ): { result?: PostFilterResult; status: Status } {
    const reasons: string[] = [];
    let rejector = '';
    let result: PostFilterResult | undefined;
    for (const pl of this.plugins.postFilter) {
      let out: { result?: PostFilterResult; status: MaybeStatus };
      try {
        out = pl.postFilter(state, pod, statuses);
      } catch (e) {
        out = { status: errorStatus(e) };
      }
      const s = out.status;
      if (s === null || s.code === Code.Success)
        return { result: out.result, status: new Status(Code.Success, [], pl.name) };
      if (s.code === Code.UnschedulableAndUnresolvable)
        return { result: out.result, status: s.withPlugin(pl.name) };
      if (!s.isRejected()) return { status: s.withPlugin(pl.name) };
      if (out.result) result = out.result;
      reasons.push(...s.reasons);
      if (!rejector) rejector = pl.name;
    }
    return { result, status: new Status(Code.Unschedulable, reasons, rejector) };
  }

  /** RunPreFilterExtensionAddPod on every extender (preemption's "what if") */
  runAddPod(state: CycleState, pod: Pod, toAdd: PodInfo, ni: NodeInfo): MaybeStatus {
    for (const pl of this.extenders) {
      if (state.skipFilterPlugins.has(pl.name) || !pl.addPod) continue;
      const s = pl.addPod(state, pod, toAdd, ni);
      if (s !== null && !s.isSuccess()) return s.withPlugin(pl.name);
    }
    return null;
  }

  runRemovePod(state: CycleState, pod: Pod, toRemove: PodInfo, ni: NodeInfo): MaybeStatus {
    for (const pl of this.extenders) {
      if (state.skipFilterPlugins.has(pl.name) || !pl.removePod) continue;
      const s = pl.removePod(state, pod, toRemove, ni);
      if (s !== null && !s.isSuccess()) return s.withPlugin(pl.name);
    }
    return null;
  }

  /** RunPreScorePlugins: Skip marks the plugin's Score as not needed */
  runPreScore(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): MaybeStatus {
    for (const pl of this.plugins.preScore) {
      let s: MaybeStatus;
      try {
        s = pl.preScore(state, pod, nodes);
      } catch (e) {
        s = errorStatus(e);
      }
      if (s === null || s.code === Code.Success) continue;
      if (s.code === Code.Skip) {
        state.skipScorePlugins.add(pl.name);
        continue;
      }
      return new Status(Code.Error, [`running PreScore plugin "${pl.name}": ${s.message()}`], pl.name);
    }
    return null;
  }

  /**
   * RunScorePlugins: raw scores, NormalizeScore, range check, × weight, summed per node
   * (upstream prioritizeNodes without extenders).
   */
  runScore(
    state: CycleState,
    pod: Pod,
    nodes: readonly NodeInfo[],
  ): { table: ScoreTable; status: MaybeStatus } {
    const table: ScoreTable = {
      plugins: [],
      weights: [],
      raw: [],
      normalized: [],
      total: new Array(nodes.length).fill(0),
      skipped: [],
    };
    for (const { plugin: pl, weight } of this.plugins.score) {
      if (state.skipScorePlugins.has(pl.name)) {
        table.skipped.push(pl.name);
        continue;
      }
      const scores = new Array<number>(nodes.length).fill(0);
      try {
        if (pl.scoreAll) pl.scoreAll(state, pod, nodes, scores);
        else for (let i = 0; i < nodes.length; i++) scores[i] = pl.score(state, pod, nodes[i]);
      } catch (e) {
        return {
          table,
          status: new Status(
            Code.Error,
            [`running Score plugins: plugin "${pl.name}" failed with: ${errorStatus(e).message()}`],
            pl.name,
          ),
        };
      }
      const raw = scores.slice();
      if (pl.normalizeScore) {
        let s: MaybeStatus;
        try {
          s = pl.normalizeScore(state, pod, nodes, scores);
        } catch (e) {
          s = errorStatus(e);
        }
        if (s !== null && !s.isSuccess())
          return {
            table,
            status: new Status(
              Code.Error,
              [`running Normalize on Score plugins: plugin "${pl.name}" failed with: ${s.message()}`],
              pl.name,
            ),
          };
      }
      for (let i = 0; i < nodes.length; i++) {
        const v = scores[i];
        // negated so that NaN (no comparison holds) is out of range too
        if (!(v >= MIN_NODE_SCORE && v <= MAX_NODE_SCORE)) {
          return {
            table,
            status: new Status(
              Code.Error,
              [
                `applying score defaultWeights on Score plugins: plugin "${pl.name}" returns an invalid score ${v}, it should in the range of [${MIN_NODE_SCORE}, ${MAX_NODE_SCORE}] after normalizing`,
              ],
              pl.name,
            ),
          };
        }
        table.total[i] += v * weight;
      }
      table.plugins.push(pl.name);
      table.weights.push(weight);
      table.raw.push(raw);
      table.normalized.push(scores);
    }
    return { table, status: null };
  }

  /** RunReservePluginsReserve; on failure the caller runs unreserve */
  runReserve(state: CycleState, pod: Pod, nodeName: string): MaybeStatus {
    for (const pl of this.plugins.reserve) {
      let s: MaybeStatus;
      try {
        s = pl.reserve(state, pod, nodeName);
      } catch (e) {
        s = errorStatus(e);
      }
      if (s !== null && !s.isSuccess()) return s.withPlugin(pl.name);
    }
    return null;
  }

  /** RunReservePluginsUnreserve: in reverse order */
  runUnreserve(state: CycleState, pod: Pod, nodeName: string): void {
    for (let i = this.plugins.reserve.length - 1; i >= 0; i--) {
      try {
        this.plugins.reserve[i].unreserve(state, pod, nodeName);
      } catch {
        /* unreserve must not fail */
      }
    }
  }

  runPermit(state: CycleState, pod: Pod, nodeName: string): MaybeStatus {
    for (const pl of this.plugins.permit) {
      let s: MaybeStatus;
      try {
        s = pl.permit(state, pod, nodeName);
      } catch (e) {
        s = errorStatus(e);
      }
      if (s !== null && !s.isSuccess()) return s.withPlugin(pl.name);
    }
    return null;
  }

  /** RunPreBindPlugins: the first failure stops the binding cycle */
  async runPreBind(state: CycleState, pod: Pod, nodeName: string): Promise<MaybeStatus> {
    for (const pl of this.plugins.preBind ?? []) {
      let s: MaybeStatus;
      try {
        s = await pl.preBind(state, pod, nodeName);
      } catch (e) {
        s = errorStatus(e);
      }
      if (s !== null && !s.isSuccess() && s.code !== Code.Skip)
        return new Status(Code.Error, [`running PreBind plugin "${pl.name}": ${s.message()}`], pl.name);
    }
    return null;
  }

  /** RunBindPlugins: the first plugin that does not Skip binds */
  async runBind(state: CycleState, pod: Pod, nodeName: string): Promise<MaybeStatus> {
    if (this.plugins.bind.length === 0) return new Status(Code.Error, ['no bind plugin is enabled']);
    for (const pl of this.plugins.bind) {
      let s: MaybeStatus;
      try {
        s = await pl.bind(state, pod, nodeName);
      } catch (e) {
        s = errorStatus(e);
      }
      if (s !== null && s.code === Code.Skip) continue;
      return s === null || s.isSuccess() ? null : s.withPlugin(pl.name);
    }
    return new Status(Code.Error, ['all bind plugins skipped the pod']);
  }

  newCycleState(): CycleState {
    return new CycleState();
  }
}

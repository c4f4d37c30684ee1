/**
 * One plugin's extension points run against given nodes and pods, the way upstream's plugin tests
 * exercise a plugin (e.g. pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go: build
 * a snapshot of nodes and existing pods, call PreFilter, Filter on every node, PreScore, Score on
 * every node and NormalizeScore, and compare Status codes, reasons and scores). For writing and
 * testing plugins of one's own, and for transcribing upstream's tables as data.
 *
 *   const runner = new PluginRunner({ plugin: 'NodeAffinity', nodes, pods });
 *   const r = runner.run(pod);
 *   r.filter?.['node-a'];      // { code: 'UnschedulableAndUnresolvable', reasons: [...] }
 *   r.normalizedScore;         // { 'node-a': 100, 'node-b': 0 }
 *
 * The plugin is built as a profile holding only it (plus DefaultBinder, which a profile needs),
 * through the same configuration parsing and registry as `kubesim schedule`, so its args are
 * checked as in a KubeSchedulerConfiguration and the node-local plugins run in the chosen kernel.
 */
import type { Namespace, Node, Pod } from '../api/types.js';
import { CONFIG_API_VERSION, parseSchedulerConfig } from './config.js';
import { CycleState } from './framework/cycle-state.js';
import type { Framework } from './framework/framework.js';
import type { NodeInfo } from './framework/snapshot.js';
import { CODE_NAMES, Code, errorStatus, type MaybeStatus } from './framework/status.js';
import type {
  ClusterObjects,
  FilterPlugin,
  Plugin,
  PreFilterPlugin,
  PreScorePlugin,
  ScorePlugin,
} from './framework/types.js';
import type { KernelName } from './engine/types.js';
import type { OutOfTreeRegistry } from './plugins/registry.js';
import { SchedulerCore } from './scheduler.js';

export interface PluginRunnerOptions {
  /** an in-tree plugin name (NodeAffinity, TaintToleration, …) or a key of `outOfTree` */
  plugin: string;
  /** the plugin's args, as `pluginConfig[].args` of a KubeSchedulerConfiguration */
  args?: Record<string, unknown>;
  nodes: Node[];
  /** pods already on the nodes (spec.nodeName set) */
  pods?: Pod[];
  namespaces?: Namespace[];
  /** Services, ReplicaSets, … (PodTopologySpread's default constraints) */
  objects?: ClusterObjects;
  /** @default 'js' */
  kernel?: KernelName;
  outOfTree?: OutOfTreeRegistry;
}

/** A Status as data: upstream's code name and reasons (Success has none). */
export interface StatusResult {
  code: string;
  reasons: string[];
}

/** What each extension point the plugin implements returned; a point it does not implement is absent. */
export interface PluginRunResult {
  preFilter?: StatusResult;
  /** the nodes a PreFilterResult narrowed the cycle to (sorted); absent when PreFilter named none */
  preFilterResult?: string[];
  /** per node name, in the order the nodes were given; absent when PreFilter returned Skip or rejected */
  filter?: Record<string, StatusResult>;
  preScore?: StatusResult;
  /** raw Score per node name; absent when PreScore returned Skip or failed */
  score?: Record<string, number>;
  /** after NormalizeScore (the raw scores when the plugin has no NormalizeScore) */
  normalizedScore?: Record<string, number>;
  /** a Score or NormalizeScore error */
  scoreError?: StatusResult;
}

const SUCCESS: StatusResult = Object.freeze({ code: 'Success', reasons: [] }) as StatusResult;

function result(s: MaybeStatus): StatusResult {
  return s === null ? { ...SUCCESS, reasons: [] } : { code: CODE_NAMES[s.code], reasons: [...s.reasons] };
}

function call<T>(fn: () => T | MaybeStatus): T | MaybeStatus {
  try {
    return fn();
  } catch (e) {
    return errorStatus(e);
  }
}

const has = (p: Plugin, m: string) => typeof (p as unknown as Record<string, unknown>)[m] === 'function';

export class PluginRunner {
  readonly core: SchedulerCore;
  readonly plugin: Plugin;
  private readonly framework: Framework;
  private readonly nodeNames: string[];

  constructor(opts: PluginRunnerOptions) {
    const enabled = [{ name: opts.plugin }];
    if (opts.plugin !== 'DefaultBinder') enabled.push({ name: 'DefaultBinder' });
    const config = parseSchedulerConfig(
      {
        apiVersion: CONFIG_API_VERSION,
        kind: 'KubeSchedulerConfiguration',
        profiles: [
          {
            plugins: { multiPoint: { enabled, disabled: [{ name: '*' }] } },
            pluginConfig: opts.args ? [{ name: opts.plugin, args: opts.args }] : [],
          },
        ],
      },
      `plugin ${opts.plugin}`,
    );
    this.core = new SchedulerCore({
      config,
      kernel: opts.kernel ?? 'js',
      nodes: opts.nodes,
      pods: opts.pods,
      namespaces: opts.namespaces,
      objects: opts.objects,
      outOfTree: opts.outOfTree,
    });
    this.nodeNames = opts.nodes.map((n) => n.metadata.name!);
    this.framework = [...this.core.frameworks.values()][0]!;
    const p = this.framework.allPlugins().find((x) => x.name === opts.plugin);
    if (!p) throw new TypeError(`plugin "${opts.plugin}" implements no extension point kubesim runs`);
    this.plugin = p;
  }

  /** the snapshot's nodes, in the order they were given */
  private nodes(): NodeInfo[] {
    return this.nodeNames.map((n) => this.core.snapshot.get(n)!);
  }

  /**
   * PreFilter; Filter on every node (when PreFilter neither skipped nor rejected); PreScore; Score
   * on every node and NormalizeScore (when PreScore did not skip or fail) — one CycleState, as in
   * upstream's plugin tests, which score every node they are given.
   */
  run(pod: Pod): PluginRunResult {
    const p = this.plugin;
    const state = new CycleState();
    const nodes = this.nodes();
    const out: PluginRunResult = {};
    let filterOn = true;
    if (has(p, 'preFilter')) {
      const r = call(() => (p as PreFilterPlugin).preFilter(state, pod, nodes));
      const narrowed = r !== null && 'nodeNames' in r ? r : undefined;
      const s = narrowed ? null : (r as MaybeStatus);
      out.preFilter = result(s);
      if (narrowed) out.preFilterResult = [...narrowed.nodeNames].sort();
      filterOn = s === null || s.code === Code.Success;
    }
    if (has(p, 'filter') && filterOn) {
      out.filter = {};
      for (const ni of nodes)
        out.filter[ni.name] = result(call(() => (p as FilterPlugin).filter(state, pod, ni)));
    }
    if (!has(p, 'score') && !has(p, 'scoreAll')) {
      if (has(p, 'preScore'))
        out.preScore = result(call(() => (p as PreScorePlugin).preScore(state, pod, nodes)));
      return out;
    }
    if (has(p, 'preScore')) {
      const s = call(() => (p as PreScorePlugin).preScore(state, pod, nodes));
      out.preScore = result(s);
      if (s !== null && s.code !== Code.Success) return out;
    }
    const sp = p as ScorePlugin;
    const raw = new Array<number>(nodes.length).fill(0);
    const err = call(() => {
      if (sp.scoreAll) sp.scoreAll(state, pod, nodes, raw);
      else for (let i = 0; i < nodes.length; i++) raw[i] = sp.score(state, pod, nodes[i]!);
      return null;
    });
    if (err) {
      out.scoreError = result(err);
      return out;
    }
    out.score = byName(nodes, raw);
    const normalized = [...raw];
    const ns = sp.normalizeScore ? call(() => sp.normalizeScore!(state, pod, nodes, normalized)) : null;
    if (ns) out.scoreError = result(ns);
    else out.normalizedScore = byName(nodes, normalized);
    return out;
  }
}

function byName(nodes: readonly NodeInfo[], values: readonly number[]): Record<string, number> {
  const o: Record<string, number> = {};
  nodes.forEach((ni, i) => {
    o[ni.name] = values[i]!;
  });
  return o;
}

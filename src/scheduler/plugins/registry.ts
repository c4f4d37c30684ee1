/**
 * The in-tree plugin registry (upstream plugins/registry.go) and the profile builder that turns a
 * KubeSchedulerConfiguration profile into a Framework: expand multiPoint per extension point,
 * instantiate each plugin once with its args, and place it at every point it implements.
 *
 * SchedulingGates is accepted in configurations but not modelled as a plugin: scheduling gates are
 * honoured by the scheduler loop before a pod is queued. The volume plugins read the handle's
 * storage objects (docs/scheduler.md, Volumes).
 */
import type { Pod } from '../../api/types.js';
import {
  expandProfilePlugins,
  type ExtensionPoint,
  type ProfileConfig,
  type SchedulerConfig,
  ConfigError,
} from '../config.js';
import { Framework, type ProfilePlugins } from '../framework/framework.js';
import type { CycleState } from '../framework/cycle-state.js';
import type { MaybeStatus } from '../framework/status.js';
import type {
  BindPlugin,
  FilterPlugin,
  Handle,
  Plugin,
  PluginFactory,
  PostFilterPlugin,
  PreFilterPlugin,
  PreScorePlugin,
  QueuedPodInfo,
  QueueSortPlugin,
  ReservePlugin,
  ScorePlugin,
  PermitPlugin,
  PreBindPlugin,
} from '../framework/types.js';
import { prioritySortLess } from '../queue.js';
import { DefaultPreemption } from './default-preemption.js';
import { DynamicResources } from './dynamic-resources/plugin.js';
import { InterPodAffinity } from './inter-pod-affinity.js';
import { kernelFastScorer, kernelWindowFilter } from './kernel-window.js';
import {
  NodeLocalPlugin,
  nodeLocalFactory,
  runnerFor,
  type NodeLocalHandle,
  type SchedulingEngine,
} from './node-local.js';
import { PodTopologySpread } from './pod-topology-spread.js';
import { NodeVolumeLimits } from './node-volume-limits.js';
import { VolumeBinding } from './volume-binding.js';
import { VolumeRestrictions } from './volume-restrictions.js';
import { VolumeZone } from './volume-zone.js';

/** PrioritySort: the default QueueSort. */
export class PrioritySort implements QueueSortPlugin {
  readonly name = 'PrioritySort';
  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean {
    return prioritySortLess(a, b);
  }
}

/** DefaultBinder: POST pods/binding through the ApiServer (the handle's bind function). */
export class DefaultBinder implements BindPlugin {
  readonly name = 'DefaultBinder';
  constructor(private readonly handle: Handle) {}
  bind(_state: CycleState, pod: Pod, nodeName: string): Promise<MaybeStatus> {
    if (!this.handle.bind) return Promise.resolve(null);
    return this.handle.bind(pod, nodeName);
  }
}

/** A plugin accepted in configurations but not modelled (no extension point methods). */
class NotModelled implements Plugin {
  constructor(readonly name: string) {}
}

interface RegistryEntry {
  factory: PluginFactory;
  /** extension points the plugin implements upstream (for config validation) */
  points: readonly ExtensionPoint[];
  /** args kind known and accepted */
  modelled: boolean;
}

const PF: ExtensionPoint[] = ['preFilter', 'filter'];
const PFS: ExtensionPoint[] = ['preFilter', 'filter', 'preScore', 'score'];

/** The in-tree plugins kubesim knows, with the extension points they implement upstream. */
export function inTreeRegistry(): Map<string, RegistryEntry> {
  const m = new Map<string, RegistryEntry>();
  const add = (name: string, points: ExtensionPoint[], factory: PluginFactory, modelled = true) =>
    m.set(name, { factory, points, modelled });
  add('SchedulingGates', ['preEnqueue'], () => new NotModelled('SchedulingGates'), false);
  add('PrioritySort', ['queueSort'], () => new PrioritySort());
  add('NodeUnschedulable', ['filter'], nodeLocalFactory('NodeUnschedulable'));
  add('NodeName', ['filter'], nodeLocalFactory('NodeName'));
  add('TaintToleration', ['filter', 'preScore', 'score'], nodeLocalFactory('TaintToleration'));
  add('NodeAffinity', PFS, nodeLocalFactory('NodeAffinity'));
  add('NodePorts', PF, nodeLocalFactory('NodePorts'));
  add('NodeResourcesFit', PFS, nodeLocalFactory('NodeResourcesFit'));
  add(
    'NodeResourcesBalancedAllocation',
    ['preScore', 'score'],
    nodeLocalFactory('NodeResourcesBalancedAllocation'),
  );
  add('ImageLocality', ['score'], nodeLocalFactory('ImageLocality'));
  add('VolumeRestrictions', PF, VolumeRestrictions.factory);
  add('NodeVolumeLimits', PF, NodeVolumeLimits.factory);
  add(
    'VolumeBinding',
    ['preFilter', 'filter', 'reserve', 'preBind', 'preScore', 'score'],
    VolumeBinding.factory,
  );
  add('VolumeZone', PF, VolumeZone.factory);
  add('PodTopologySpread', PFS, PodTopologySpread.factory);
  add('InterPodAffinity', PFS, InterPodAffinity.factory);
  add(
    'DynamicResources',
    ['preEnqueue', 'preFilter', 'filter', 'postFilter', 'reserve', 'preBind'],
    DynamicResources.factory,
  );
  add('DefaultPreemption', ['postFilter'], DefaultPreemption.factory);
  add('DefaultBinder', ['bind'], (_a, h) => new DefaultBinder(h));
  return m;
}

/** Which extension points a plugin object implements, judged by its methods. */
export function pointsOf(p: Plugin): ExtensionPoint[] {
  const o = p as unknown as Record<string, unknown>;
  const pts: ExtensionPoint[] = [];
  if (typeof o.less === 'function') pts.push('queueSort');
  if (typeof o.preFilter === 'function') pts.push('preFilter');
  if (typeof o.filter === 'function') pts.push('filter');
  if (typeof o.postFilter === 'function') pts.push('postFilter');
  if (typeof o.preScore === 'function') pts.push('preScore');
  if (typeof o.score === 'function' || typeof o.scoreAll === 'function') pts.push('score');
  if (typeof o.reserve === 'function') pts.push('reserve');
  if (typeof o.permit === 'function') pts.push('permit');
  if (typeof o.preBind === 'function') pts.push('preBind');
  if (typeof o.bind === 'function') pts.push('bind');
  return pts;
}

/** Out-of-tree plugins (TS objects, WASM score plugins) by name. */
export type OutOfTreeRegistry = Map<string, PluginFactory>;

export interface BuildOptions {
  engine: SchedulingEngine;
  /** out-of-tree plugins; enable them in a profile by name, or use {@link BuildOptions.extraScore} */
  outOfTree?: OutOfTreeRegistry;
  /** convenience for the CLI/library: append these score plugins (name → weight) to every profile */
  extraScore?: Map<string, number>;
  /** convenience: append these filter plugins to every profile */
  extraFilter?: string[];
  base: Omit<Handle, 'framework'>;
}

/**
 * Builds one Framework per profile. Errors name the profile and plugin and use upstream's words
 * ("score plugin \"X\" does not exist", "plugin \"X\" does not extend filter plugin").
 */
export function buildFrameworks(cfg: SchedulerConfig, opts: BuildOptions): Map<string, Framework> {
  const inTree = inTreeRegistry();
  const out = new Map<string, Framework>();
  for (const prof0 of cfg.profiles) {
    const prof: ProfileConfig = structuredClone({
      ...prof0,
      pluginConfig: undefined,
    }) as unknown as ProfileConfig;
    prof.pluginConfig = prof0.pluginConfig;
    for (const [name, weight] of opts.extraScore ?? [])
      ((prof.plugins.score ??= {}).enabled ??= []).push({ name, weight });
    for (const name of opts.extraFilter ?? []) ((prof.plugins.filter ??= {}).enabled ??= []).push({ name });

    // out-of-tree plugins are instantiated first so that their points can be judged by their methods
    const handle: NodeLocalHandle = {
      ...opts.base,
      engine: opts.engine,
      scoreWeights: new Map(),
      pluginArgs: prof.pluginConfig,
    } as NodeLocalHandle;
    const instances = new Map<string, Plugin>();
    const outPoints = new Map<string, ExtensionPoint[]>();
    for (const [name, factory] of opts.outOfTree ?? []) {
      if (inTree.has(name))
        throw new ConfigError(`plugin "${name}" is an in-tree plugin name; choose another name`);
      const inst = factory(prof.pluginConfig.get(name), handle);
      instances.set(name, inst);
      outPoints.set(name, pointsOf(inst));
    }
    const implementsPoint = (name: string, point: ExtensionPoint): boolean | undefined => {
      const e = inTree.get(name);
      if (e) return e.points.includes(point);
      const op = outPoints.get(name);
      return op ? op.includes(point) : undefined;
    };
    const points = expandProfilePlugins(prof, implementsPoint);
    for (const name of prof.pluginConfig.keys()) {
      if (!inTree.has(name) && !outPoints.has(name))
        throw new ConfigError(
          `profile "${prof.schedulerName}": pluginConfig: plugin "${name}" does not exist`,
        );
    }
    (handle.scoreWeights as Map<string, number>).clear();
    for (const s of points.score) (handle.scoreWeights as Map<string, number>).set(s.name, s.weight);

    const get = (name: string): Plugin => {
      let p = instances.get(name);
      if (!p) {
        const e = inTree.get(name)!;
        try {
          p = e.factory(prof.pluginConfig.get(name), handle);
        } catch (err) {
          throw new ConfigError(
            `profile "${prof.schedulerName}": plugin "${name}": ${(err as Error).message}`,
          );
        }
        instances.set(name, p);
      }
      return p;
    };
    const has = (p: Plugin, m: string) => typeof (p as unknown as Record<string, unknown>)[m] === 'function';
    const pick = <T>(point: ExtensionPoint, method: string): T[] =>
      points[point].map((r) => get(r.name)).filter((p) => has(p, method)) as T[];
    const plugins: ProfilePlugins = {
      queueSort: pick<QueueSortPlugin>('queueSort', 'less')[0],
      preFilter: pick<PreFilterPlugin>('preFilter', 'preFilter'),
      filter: pick<FilterPlugin>('filter', 'filter'),
      postFilter: pick<PostFilterPlugin>('postFilter', 'postFilter'),
      preScore: pick<PreScorePlugin>('preScore', 'preScore'),
      score: points.score
        .map((r) => ({ plugin: get(r.name) as ScorePlugin, weight: r.weight }))
        .filter((s) => has(s.plugin, 'score') || has(s.plugin, 'scoreAll')),
      reserve: pick<ReservePlugin>('reserve', 'reserve'),
      permit: pick<PermitPlugin>('permit', 'permit'),
      preBind: pick<PreBindPlugin>('preBind', 'preBind'),
      bind: pick<BindPlugin>('bind', 'bind'),
    };
    const fwk = new Framework(prof.schedulerName, plugins, handle, prof.percentageOfNodesToScore);
    // the kernel runs only the node-local filters this profile enables, so that it scores every
    // node those pass (upstream scores every node handed to Score)
    if (
      plugins.filter.some((p) => p instanceof NodeLocalPlugin) ||
      plugins.score.some((s) => s.plugin instanceof NodeLocalPlugin)
    )
      runnerFor(handle).configureProfile(
        plugins.filter.map((p) => p.name),
        plugins.preScore.map((p) => p.name),
      );
    if (plugins.filter.some((p) => p.name === 'NodeResourcesFit')) {
      fwk.windowFilter = kernelWindowFilter(
        runnerFor(handle),
        plugins.filter.map((p) => p.name),
        plugins.filter,
        plugins.score,
        (state, pod, ni) => fwk.runFilter(state, pod, ni),
      );
      if (fwk.windowFilter) fwk.fastScorer = kernelFastScorer(runnerFor(handle), fwk);
    }
    handle.framework = fwk;
    out.set(prof.schedulerName, fwk);
  }
  return out;
}

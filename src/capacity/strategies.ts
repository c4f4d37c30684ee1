/**
 * Strategy comparison: the same workload scheduled under different scoring strategies —
 * LeastAllocated (kube-scheduler's default, spreads), MostAllocated and RequestedToCapacityRatio
 * (bin-pack), a KubeSchedulerConfiguration file, or a user score plugin that *replaces*
 * NodeResourcesFit's score — reporting nodes used, utilization spread and unschedulable pods.
 * The "plug in my own scoring function, how many nodes does this workload need" question.
 */
import { storageOf } from './volumes.js';
import { resourcesOf } from './resource-claims.js';
import type { Node, Pod } from '../api/types.js';
import {
  CONFIG_API_VERSION,
  loadSchedulerConfig,
  parseSchedulerConfig,
  type SchedulerConfig,
} from '../scheduler/config.js';
import type { ClusterFile } from '../scheduler/framework/cluster-file.js';
import { loadUserPlugin, type LoadedUserPlugin, type UserPluginOptions } from '../scheduler/plugins/user.js';
import { nodeAllocatable, podRequests } from '../scheduler/engine/resources.js';
import { disruptionOf } from './drain.js';
import { applyWhatIfs, type WhatIf } from './whatif.js';
import { placeOne, podShape, type SchedulerChoice } from './planner.js';
import { isTerminal, SchedulerCore } from '../scheduler/scheduler.js';
import { podKey } from '../api/keys.js';
import type { ClusterObjects } from '../scheduler/framework/types.js';

export interface Strategy extends SchedulerChoice {
  name: string;
  /** the user plugin of a `plugin:` strategy (its failures, its worker to close) */
  plugin?: LoadedUserPlugin;
}

export interface StrategyResult {
  strategy: string;
  placed: number;
  unschedulable: number;
  /** first unschedulable pods with their FitError (at most 5) */
  failures: { pod: string; reason: string }[];
  /** nodes hosting at least one running (not finished) pod after the run: the workload's or any other */
  nodesUsed: number;
  /** nodes hosting at least one pod of the workload */
  workloadNodes: number;
  /** nodes left without running pods: what a cluster autoscaler could remove */
  emptyNodes: number;
  /** requested / allocatable over the nodes used, in percent; finished (Succeeded/Failed) pods request nothing */
  cpu: UtilizationStats;
  memory: UtilizationStats;
  /** per used node: the workload's pods on it, all running pods, and its utilization (percent) */
  placements: NodePlacement[];
}

export interface NodePlacement {
  node: string;
  workloadPods: number;
  pods: number;
  cpu: number;
  memory: number;
}

export interface UtilizationStats {
  mean: number;
  stddev: number;
  min: number;
  max: number;
}

export const BUILTIN_STRATEGIES = ['LeastAllocated', 'MostAllocated', 'RequestedToCapacityRatio'] as const;

function fitConfig(type: string): SchedulerConfig {
  const scoringStrategy: Record<string, unknown> = {
    type,
    resources: [
      { name: 'cpu', weight: 1 },
      { name: 'memory', weight: 1 },
    ],
  };
  // a bin-packing shape: score rises with utilization (the example in the upstream docs)
  if (type === 'RequestedToCapacityRatio')
    scoringStrategy.requestedToCapacityRatio = {
      shape: [
        { utilization: 0, score: 0 },
        { utilization: 100, score: 10 },
      ],
    };
  return parseSchedulerConfig(
    {
      apiVersion: CONFIG_API_VERSION,
      kind: 'KubeSchedulerConfiguration',
      profiles: [
        {
          schedulerName: 'default-scheduler',
          pluginConfig: [{ name: 'NodeResourcesFit', args: { scoringStrategy } }],
        },
      ],
    },
    type,
  );
}

/**
 * Resolves a strategy spec: a built-in name, `config:<file>` (KubeSchedulerConfiguration) or
 * `plugin:<module.{js,ts,wasm}>[:weight]` (the default profile with NodeResourcesFit's score
 * replaced by the plugin, contained as `opts` say).
 */
export async function resolveStrategy(spec: string, opts: UserPluginOptions = {}): Promise<Strategy> {
  if ((BUILTIN_STRATEGIES as readonly string[]).includes(spec))
    return { name: spec, config: fitConfig(spec) };
  if (spec.startsWith('config:')) {
    const file = spec.slice('config:'.length);
    return { name: file.replace(/^.*[\\/]/, ''), config: loadSchedulerConfig(file) };
  }
  if (spec.startsWith('plugin:')) {
    const p = await loadUserPlugin(spec.slice('plugin:'.length), opts);
    if (!p.isScore) {
      await p.close();
      throw new Error(`strategy ${spec}: plugin "${p.name}" has no score function`);
    }
    const config = parseSchedulerConfig(
      {
        apiVersion: CONFIG_API_VERSION,
        kind: 'KubeSchedulerConfiguration',
        profiles: [
          {
            schedulerName: 'default-scheduler',
            plugins: { score: { disabled: [{ name: 'NodeResourcesFit' }] } },
          },
        ],
      },
      spec,
    );
    return {
      name: p.name,
      config,
      outOfTree: new Map([[p.name, p.factory]]),
      extraScore: new Map([[p.name, p.weight]]),
      plugin: p,
    };
  }
  throw new Error(
    `unknown strategy "${spec}" (expected ${BUILTIN_STRATEGIES.join(', ')}, config:<file.yaml> or plugin:<module>[:weight])`,
  );
}

function stats(xs: number[]): UtilizationStats {
  if (!xs.length) return { mean: 0, stddev: 0, min: 0, max: 0 };
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length;
  return { mean, stddev: Math.sqrt(variance), min: Math.min(...xs), max: Math.max(...xs) };
}

/**
 * Utilization of the nodes that host running pods, from bound pods' requests. A finished pod
 * (Succeeded/Failed) holds nothing: the scheduler leaves it out of a node's requested resources
 * (upstream's NodeInfo is built from pods that are not terminal), and so does this. `workload`
 * names the pods (namespace/name) whose nodes `workloadNodes` counts.
 */
export function utilization(
  nodes: Node[],
  pods: Pod[],
  workload: ReadonlySet<string> = new Set(),
): Pick<StrategyResult, 'nodesUsed' | 'workloadNodes' | 'emptyNodes' | 'cpu' | 'memory' | 'placements'> {
  const used = new Map<string, { cpu: number; memory: number; pods: number; workloadPods: number }>();
  for (const p of pods) {
    if (!p.spec.nodeName || isTerminal(p)) continue;
    const r = podRequests(p);
    const u = used.get(p.spec.nodeName) ?? { cpu: 0, memory: 0, pods: 0, workloadPods: 0 };
    u.cpu += r.get('cpu') ?? 0;
    u.memory += r.get('memory') ?? 0;
    u.pods++;
    if (workload.has(podKey(p))) u.workloadPods++;
    used.set(p.spec.nodeName, u);
  }
  const placements: NodePlacement[] = [];
  for (const n of nodes) {
    const u = used.get(n.metadata.name ?? '');
    if (!u) continue;
    const a = nodeAllocatable(n);
    placements.push({
      node: n.metadata.name ?? '',
      workloadPods: u.workloadPods,
      pods: u.pods,
      cpu: (100 * u.cpu) / Math.max(1, a.get('cpu') ?? 0),
      memory: (100 * u.memory) / Math.max(1, a.get('memory') ?? 0),
    });
  }
  return {
    nodesUsed: placements.length,
    workloadNodes: placements.filter((p) => p.workloadPods > 0).length,
    emptyNodes: nodes.length - placements.length,
    cpu: stats(placements.map((p) => p.cpu)),
    memory: stats(placements.map((p) => p.memory)),
    placements,
  };
}

/** Schedules `workload` in order under one strategy; pure and deterministic for a seed. */
export function runStrategy(
  cluster: ClusterFile,
  workload: Pod[],
  strategy: Strategy,
  opts: { whatIfs?: WhatIf[]; seed?: number; kernel?: SchedulerChoice['kernel'] } = {},
): StrategyResult {
  workload.forEach((p, i) => podShape(p, `runStrategy: workload[${i}]`));
  const w = applyWhatIfs(
    { nodes: cluster.nodes, pods: cluster.boundPods, disruption: disruptionOf(cluster) },
    opts.whatIfs ?? [],
  );
  const core = new SchedulerCore({
    config: strategy.config,
    kernel: strategy.kernel ?? opts.kernel ?? 'wasm',
    seed: strategy.seed ?? opts.seed ?? 1,
    nodes: w.nodes,
    pods: w.pods,
    namespaces: cluster.namespaces,
    objects: {
      services: cluster.services,
      replicaSets: cluster.replicaSets,
      others: cluster.others as ClusterObjects['others'],
      storage: storageOf(cluster),
      resources: resourcesOf(cluster, w.clones),
    },
    outOfTree: strategy.outOfTree,
    extraScore: strategy.extraScore,
  });
  const bound: Pod[] = [...w.pods];
  const failures: StrategyResult['failures'] = [];
  let unschedulable = 0;
  for (const shared of [...w.displaced, ...workload]) {
    // the workload's pods serve every strategy: placeOne writes the claims it makes for a pod into
    // its status (capacity/resource-claims.ts), so each strategy places its own shallow copy
    const pod = { ...shared };
    const r = placeOne(core, pod);
    if ('node' in r) bound.push({ ...pod, spec: { ...pod.spec, nodeName: r.node } });
    else {
      unschedulable++;
      if (failures.length < 5) failures.push({ pod: podKey(pod), reason: r.reason });
    }
  }
  return {
    strategy: strategy.name,
    placed: bound.length - w.pods.length,
    unschedulable,
    failures,
    ...utilization(w.nodes, bound, new Set(workload.map(podKey))),
  };
}

/** The workload under every strategy, side by side. */
export function compareStrategies(
  cluster: ClusterFile,
  workload: Pod[],
  strategies: Strategy[],
  opts: { whatIfs?: WhatIf[]; seed?: number; kernel?: SchedulerChoice['kernel'] } = {},
): StrategyResult[] {
  return strategies.map((s) => runStrategy(cluster, workload, s, opts));
}

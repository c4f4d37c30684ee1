// Score plugins the way a user runs them: a KubeSchedulerConfiguration profile that enables only
// the node-local score plugins (no filter), a SchedulerCore over the nodes and bound pods, and
// explainPod's per-node score cells — upstream's plugin tests call Score on every node, which is
// what a profile without filters does. Both kernels run; their cells must agree.
import { expect } from 'vitest';
import type { Node, Pod } from '../../src/api/types.js';
import { explainPod, parseSchedulerConfig, SchedulerCore } from '../../src/scheduler/index.js';
import type { Explanation } from '../../src/scheduler/framework/explain.js';
import {
  DEFAULT_SCORE_WEIGHTS,
  SCORE_PLUGINS,
  type ScoringConfig,
} from '../../src/scheduler/engine/types.js';

/** Per node: raw and normalized score per node-local plugin (index = ScorePlugin), undefined when skipped. */
export interface ProfileScores {
  nodes: Map<string, { raw: (number | undefined)[]; norm: (number | undefined)[]; total: number }>;
  skipped: string[];
  explanation: Explanation;
}

const PRE_SCORE = new Set([
  'TaintToleration',
  'NodeAffinity',
  'NodeResourcesFit',
  'NodeResourcesBalancedAllocation',
]);

/** The KubeSchedulerConfiguration document: these score plugins, their args, no filter plugin. */
export function scoreProfile(scoring: ScoringConfig = {}, filters: string[] = []): Record<string, unknown> {
  const plugins = SCORE_PLUGINS.filter((p) => (scoring.weights?.[p] ?? DEFAULT_SCORE_WEIGHTS[p]) !== 0);
  const pluginConfig: { name: string; args: Record<string, unknown> }[] = [];
  if (scoring.fit)
    pluginConfig.push({
      name: 'NodeResourcesFit',
      args: {
        scoringStrategy: {
          type: scoring.fit.type,
          ...(scoring.fit.resources ? { resources: scoring.fit.resources } : {}),
          ...(scoring.fit.shape ? { requestedToCapacityRatio: { shape: scoring.fit.shape } } : {}),
        },
      },
    });
  if (scoring.balancedResources)
    pluginConfig.push({
      name: 'NodeResourcesBalancedAllocation',
      args: { resources: scoring.balancedResources },
    });
  const none = [{ name: '*' }];
  return {
    apiVersion: 'kubescheduler.config.k8s.io/v1',
    kind: 'KubeSchedulerConfiguration',
    profiles: [
      {
        schedulerName: 'default-scheduler',
        plugins: {
          preFilter: {
            disabled: none,
            enabled: filters
              .filter((f) => ['NodeAffinity', 'NodePorts', 'NodeResourcesFit'].includes(f))
              .map((name) => ({ name })),
          },
          filter: { disabled: none, enabled: filters.map((name) => ({ name })) },
          postFilter: { disabled: none },
          preScore: {
            disabled: none,
            enabled: plugins.filter((p) => PRE_SCORE.has(p)).map((name) => ({ name })),
          },
          score: {
            disabled: none,
            enabled: plugins.map((name) => ({
              name,
              weight: scoring.weights?.[name] ?? DEFAULT_SCORE_WEIGHTS[name],
            })),
          },
        },
        pluginConfig,
      },
    ],
  };
}

/** explain through the profile on both kernels (asserted equal); the js kernel's cells. */
export function profileScores(
  nodes: Node[],
  existing: Pod[],
  pod: Pod,
  scoring: ScoringConfig = {},
  filters: string[] = [],
): ProfileScores {
  const config = parseSchedulerConfig(scoreProfile(scoring, filters), 'sched.yaml');
  const results: ProfileScores[] = [];
  for (const kernel of ['js', 'wasm'] as const) {
    const core = new SchedulerCore({ config, kernel, nodes, pods: existing, seed: 1 });
    const ex = explainPod(core.algo, core.frameworkFor(pod)!, core.snapshot, pod);
    const out: ProfileScores['nodes'] = new Map();
    for (const n of ex.nodes) {
      if (!n.scores) continue;
      const raw: (number | undefined)[] = SCORE_PLUGINS.map(() => undefined);
      const norm = raw.slice();
      for (const c of n.scores) {
        const i = SCORE_PLUGINS.indexOf(c.plugin as (typeof SCORE_PLUGINS)[number]);
        if (i < 0) continue;
        raw[i] = c.raw;
        norm[i] = c.normalized;
      }
      out.set(n.name, { raw, norm, total: n.total ?? 0 });
    }
    results.push({ nodes: out, skipped: ex.skippedScorePlugins, explanation: ex });
  }
  expect(results[1].nodes).toEqual(results[0].nodes);
  expect(results[1].skipped).toEqual(results[0].skipped);
  return results[0];
}

/** Raw score of plugin p for each node, in the given node order (every node must have been scored). */
export function profileRaw(r: ProfileScores, plugin: number, names: string[]): (number | undefined)[] {
  return names.map((n) => {
    const e = r.nodes.get(n);
    if (!e) throw new Error(`node ${n} was not scored`);
    return e.raw[plugin];
  });
}

export function profileNorm(r: ProfileScores, plugin: number, names: string[]): (number | undefined)[] {
  return names.map((n) => {
    const e = r.nodes.get(n);
    if (!e) throw new Error(`node ${n} was not scored`);
    return e.norm[plugin];
  });
}

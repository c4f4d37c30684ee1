/**
 * A custom TypeScript scheduler plugin for kubesim.
 *
 *   Score:  nodes labelled kubesim.io/tier=fast score 100, others 0 (so with weight w the fast
 *           tier wins unless other plugins disagree by more than 100·w).
 *   Filter: nodes labelled kubesim.io/draining=true are rejected with a reason of our own.
 *
 * Use it from the CLI (kubesim compiles TypeScript plugins when it loads them):
 *   kubesim schedule --cluster examples/snapshot/cluster.yaml --pod examples/snapshot/pod-api.yaml --plugin examples/plugins/prefer-label/index.ts:3
 * or the library:
 *   new SchedulerCore({ outOfTree: new Map([['PreferLabel', tsPlugin(plugin)]]), extraScore: new Map([['PreferLabel', 3]]) })
 */
import type { ScorePluginDef } from 'kubesim/scheduler';

const plugin: ScorePluginDef = {
  name: 'PreferLabel',
  score(_pod, node) {
    return node.metadata.labels?.['kubesim.io/tier'] === 'fast' ? 100 : 0;
  },
  filter(_pod, node) {
    return node.metadata.labels?.['kubesim.io/draining'] === 'true' ? 'node(s) are draining' : undefined;
  },
};

export default plugin;

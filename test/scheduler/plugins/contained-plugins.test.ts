// Contained user plugins (loadUserPlugin: a worker per plugin, copies of the pods, nodes and node
// table) place pods exactly as the same plugins run trusted in kubesim's thread (tsPlugin,
// wasmScorePlugin): the examples on a generated cluster with existing pods, under both kernels,
// with scores, a filter that rejects some nodes, and assumed pods changing nodes between cycles.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/types.js';
import { SchedulerCore } from '../../../src/scheduler/scheduler.js';
import { loadUserPlugin, tsPlugin, wasmScorePlugin } from '../../../src/scheduler/plugins/user.js';
import type { PluginFactory } from '../../../src/scheduler/framework/types.js';
import { generateCluster, generatePods } from '../../../src/sim/cluster-gen.js';
import preferLabel from '../../../examples/plugins/prefer-label/index.js';
// @ts-expect-error plain .mjs example without types
import binpack from '../../../examples/plugins/binpack.mjs';

const cluster = generateCluster({ seed: 7, nodes: 60 });
// some nodes for prefer-label: a fast tier (score) and draining nodes (its filter)
const nodes = cluster.nodes.map((n, i) => ({
  ...n,
  metadata: {
    ...n.metadata,
    labels: {
      ...n.metadata.labels,
      ...(i % 5 === 0 ? { 'kubesim.io/tier': 'fast' } : {}),
      ...(i % 7 === 0 ? { 'kubesim.io/draining': 'true' } : {}),
    },
  },
}));
const pods = generatePods({ seed: 8, count: 120, cluster });
// what is compared here is placements: the per-call time limit (default 1 s of wall time, tested in
// hostile-plugins.test.ts) ran out on a machine at load 40, where a worker waits for a core
const limits = { callMs: 60_000, cycleMs: 120_000 };

/** each pod scheduled and assumed in turn: the node, or the outcome's kind and message */
function placements(kernel: 'js' | 'wasm', name: string, factory: PluginFactory, filter: boolean): string[] {
  const core = new SchedulerCore({
    nodes,
    pods: cluster.pods,
    kernel,
    seed: 3,
    outOfTree: new Map([[name, factory]]),
    extraScore: new Map([[name, 5]]),
    extraFilter: filter ? [name] : [],
  });
  return pods.map((pod: Pod) => {
    const out = core.schedule(pod);
    if (out.kind === 'scheduled') {
      core.reserveAndAssume(out);
      return out.nodeName;
    }
    return out.kind === 'unschedulable' ? `unschedulable: ${out.fitError.message}` : `error: ${out.message}`;
  });
}

describe('contained user plugins place pods as the same plugins run trusted', () => {
  for (const kernel of ['js', 'wasm'] as const) {
    it(`prefer-label (TS, score + filter), ${kernel} kernel`, async () => {
      const loaded = await loadUserPlugin('examples/plugins/prefer-label/index.ts', { limits });
      try {
        const trusted = placements(kernel, 'PreferLabel', tsPlugin(preferLabel), true);
        const contained = placements(kernel, 'PreferLabel', loaded.factory, true);
        expect(contained).toEqual(trusted);
        // the filter and the score both decided something
        expect(trusted.some((p) => p.includes('draining'))).toBe(true);
        expect(loaded.failures).toEqual([]);
      } finally {
        await loaded.close();
      }
    });

    it(`binpack.mjs (JS, score), ${kernel} kernel`, async () => {
      const loaded = await loadUserPlugin('examples/plugins/binpack.mjs', { limits });
      try {
        expect(placements(kernel, 'BinPackCpu', loaded.factory, false)).toEqual(
          placements(kernel, 'BinPackCpu', tsPlugin(binpack), false),
        );
      } finally {
        await loaded.close();
      }
    });

    it(`wasm-binpack (WASM over a copy of the node table), ${kernel} kernel`, async () => {
      const file = 'examples/plugins/wasm-binpack/build/binpack.wasm';
      const loaded = await loadUserPlugin(file, { limits });
      try {
        expect(placements(kernel, 'binpack', loaded.factory, false)).toEqual(
          placements(kernel, 'binpack', wasmScorePlugin('binpack', readFileSync(file)), false),
        );
      } finally {
        await loaded.close();
      }
    });
  }
});

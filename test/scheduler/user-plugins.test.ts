// Loads the example user plugins (a TS object and an AssemblyScript/WASM module over the NodeTable
// columns) the way the CLI does, and checks they change placements as designed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SchedulerCore } from '../../src/scheduler/scheduler.js';
import { loadUserPlugin } from '../../src/scheduler/plugins/user.js';
// @ts-expect-error plain .mjs build helper without types
import { buildBinpack } from '../../examples/plugins/wasm-binpack/build.mjs';
import { makeNode, makePod } from './builders.js';

const node = (name: string, labels: Record<string, string> = {}) => {
  const b = makeNode(name).capacity({ cpu: '4', memory: '16Gi', pods: '110' });
  for (const [k, v] of Object.entries(labels)) b.label(k, v);
  return b.obj();
};

describe('user plugins', () => {
  it('TS plugin (examples/plugins/prefer-label): score and filter', async () => {
    const pl = await loadUserPlugin('examples/plugins/prefer-label/index.ts:3');
    expect(pl).toMatchObject({ name: 'PreferLabel', weight: 3, isScore: true, isFilter: true });
    const nodes = [node('slow'), node('fast', { 'kubesim.io/tier': 'fast' }), node('drain', { 'kubesim.io/draining': 'true' })];
    const busy = makePod('busy').node('fast').req({ cpu: '2' }).obj();
    const mk = (withPlugin: boolean) => new SchedulerCore({
      nodes, pods: [busy], seed: 1,
      ...(withPlugin ? { outOfTree: new Map([[pl.name, pl.factory]]), extraScore: new Map([[pl.name, pl.weight]]), extraFilter: [pl.name] } : {}),
    });
    const without = mk(false).schedule(makePod('p').req({ cpu: '1' }).obj());
    expect(without.kind === 'scheduled' && without.nodeName).not.toBe('fast');
    const core = mk(true);
    const out = core.schedule(makePod('p').req({ cpu: '1' }).obj());
    expect(out.kind === 'scheduled' && out.nodeName).toBe('fast');
    const big = core.schedule(makePod('big').req({ cpu: '5' }).obj());
    expect(big.kind === 'unschedulable' && big.fitError.message).toBe(
      '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.');
    const onlyDrain = core.schedule(makePod('d').req({ cpu: '3' }).obj());
    // slow fits 3 cpu; fast has 2 free → Insufficient; drain is rejected by the plugin's filter
    expect(onlyDrain.kind === 'scheduled' && onlyDrain.nodeName).toBe('slow');
    const fe = new SchedulerCore({ nodes: [nodes[2]], seed: 1, outOfTree: new Map([[pl.name, pl.factory]]), extraFilter: [pl.name] })
      .schedule(makePod('x').obj());
    expect(fe.kind === 'unschedulable' && fe.fitError.message.startsWith('0/1 nodes are available: 1 node(s) are draining.')).toBe(true);
  });

  for (const kernel of ['js', 'wasm'] as const) {
    it(`WASM plugin (examples/plugins/wasm-binpack) packs pods onto the fullest node (${kernel} kernel)`, async () => {
      const file = await buildBinpack(join(mkdtempSync(join(tmpdir(), 'kubesim-binpack-')), 'binpack.wasm'));
      const pl = await loadUserPlugin(`${file}:10`);
      expect(pl).toMatchObject({ name: 'binpack', weight: 10, isScore: true });
      const nodes = [node('n1'), node('n2'), node('n3')];
      const place = (withPlugin: boolean) => {
        const core = new SchedulerCore({ nodes, seed: 2, kernel, ...(withPlugin ? { outOfTree: new Map([[pl.name, pl.factory]]), extraScore: new Map([[pl.name, pl.weight]]) } : {}) });
        const placed: string[] = [];
        for (let i = 0; i < 6; i++) {
          const out = core.schedule(makePod(`p${i}`).req({ cpu: '500m', memory: '1Gi' }).obj());
          if (out.kind !== 'scheduled') throw new Error(`unschedulable: ${out.kind}`);
          core.reserveAndAssume(out);
          placed.push(out.nodeName);
        }
        return placed;
      };
      // LeastAllocated alone spreads over all three nodes; with binpack ×10 they pile up on one node
      expect(new Set(place(false)).size).toBe(3);
      const packed = place(true);
      expect(new Set(packed).size).toBe(1);
    });
  }
});

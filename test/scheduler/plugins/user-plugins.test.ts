// Loads the example user plugins (a TS object and an AssemblyScript/WASM module over the NodeTable
// columns) the way the CLI does, and checks they change placements as designed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SchedulerCore } from '../../../src/scheduler/scheduler.js';
import { loadUserPlugin } from '../../../src/scheduler/plugins/user.js';
// @ts-expect-error plain .mjs build helper without types
import { buildBinpack } from '../../../examples/plugins/wasm-binpack/build.mjs';
import { makeNode, makePod } from '../../helpers/builders.js';

const node = (name: string, labels: Record<string, string> = {}) => {
  const b = makeNode(name).capacity({ cpu: '4', memory: '16Gi', pods: '110' });
  for (const [k, v] of Object.entries(labels)) b.label(k, v);
  return b.obj();
};

/** Schedules and assumes `count` identical pods in turn; the nodes they land on. */
function placeAll(core: SchedulerCore, count: number, req: Record<string, string>): string[] {
  const placed: string[] = [];
  for (let i = 0; i < count; i++) {
    const out = core.schedule(makePod(`p${i}`).req(req).obj());
    if (out.kind !== 'scheduled') throw new Error(`unschedulable: ${out.kind}`);
    core.reserveAndAssume(out);
    placed.push(out.nodeName);
  }
  return placed;
}

/** A hand-assembled score module that grows the imported memory by a page, then scores every node 7. */
function growingScoreModule(): Uint8Array {
  const section = (id: number, body: number[]) => [id, body.length, ...body];
  const str = (t: string) => [t.length, ...Buffer.from(t)];
  const code = [
    0x01,
    0x01,
    0x7f, // one i32 local (i = local 6)
    0x41,
    0x01,
    0x40,
    0x00,
    0x1a, // memory.grow(1); drop
    0x02,
    0x40,
    0x03,
    0x40, // block loop
    0x20,
    0x06,
    0x20,
    0x02,
    0x4e,
    0x0d,
    0x01, // if i >= count: break
    0x20,
    0x03,
    0x20,
    0x06,
    0x41,
    0x02,
    0x74,
    0x6a,
    0x41,
    0x07,
    0x36,
    0x02,
    0x00, // out[i] = 7
    0x20,
    0x06,
    0x41,
    0x01,
    0x6a,
    0x21,
    0x06,
    0x0c,
    0x00, // i++; continue
    0x0b,
    0x0b,
    0x0b,
  ];
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [0x01, 0x60, 0x06, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00]),
    ...section(2, [0x01, ...str('env'), ...str('memory'), 0x02, 0x00, 0x01]),
    ...section(3, [0x01, 0x00]),
    ...section(7, [0x01, ...str('score'), 0x00, 0x00]),
    ...section(10, [0x01, code.length, ...code]),
  ]);
}

describe('user plugins', () => {
  it('TS plugin (examples/plugins/prefer-label): score and filter', async () => {
    const pl = await loadUserPlugin('examples/plugins/prefer-label/index.ts:3');
    expect(pl).toMatchObject({ name: 'PreferLabel', weight: 3, isScore: true, isFilter: true });
    const nodes = [
      node('slow'),
      node('fast', { 'kubesim.io/tier': 'fast' }),
      node('drain', { 'kubesim.io/draining': 'true' }),
    ];
    const busy = makePod('busy').node('fast').req({ cpu: '2' }).obj();
    const mk = (withPlugin: boolean) =>
      new SchedulerCore({
        nodes,
        pods: [busy],
        seed: 1,
        ...(withPlugin
          ? {
              outOfTree: new Map([[pl.name, pl.factory]]),
              extraScore: new Map([[pl.name, pl.weight]]),
              extraFilter: [pl.name],
            }
          : {}),
      });
    const without = mk(false).schedule(makePod('p').req({ cpu: '1' }).obj());
    expect(without.kind === 'scheduled' && without.nodeName).not.toBe('fast');
    const core = mk(true);
    const out = core.schedule(makePod('p').req({ cpu: '1' }).obj());
    expect(out.kind === 'scheduled' && out.nodeName).toBe('fast');
    const big = core.schedule(makePod('big').req({ cpu: '5' }).obj());
    expect(big.kind === 'unschedulable' && big.fitError.message).toBe(
      // larger than every node: UnschedulableAndUnresolvable (fit.go), so preemption cannot help
      '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    );
    const onlyDrain = core.schedule(makePod('d').req({ cpu: '3' }).obj());
    // slow fits 3 cpu; fast has 2 free → Insufficient; drain is rejected by the plugin's filter
    expect(onlyDrain.kind === 'scheduled' && onlyDrain.nodeName).toBe('slow');
    const fe = new SchedulerCore({
      nodes: [nodes[2]],
      seed: 1,
      outOfTree: new Map([[pl.name, pl.factory]]),
      extraFilter: [pl.name],
    }).schedule(makePod('x').obj());
    expect(
      fe.kind === 'unschedulable' &&
        fe.fitError.message.startsWith('0/1 nodes are available: 1 node(s) are draining.'),
    ).toBe(true);
  });

  for (const kernel of ['js', 'wasm'] as const) {
    it(`WASM plugin (examples/plugins/wasm-binpack) packs pods onto the fullest node (${kernel} kernel)`, async () => {
      const file = await buildBinpack(join(mkdtempSync(join(tmpdir(), 'kubesim-binpack-')), 'binpack.wasm'));
      const pl = await loadUserPlugin(`${file}:10`);
      expect(pl).toMatchObject({ name: 'binpack', weight: 10, isScore: true });
      const nodes = [node('n1'), node('n2'), node('n3')];
      const place = (withPlugin: boolean) =>
        placeAll(
          new SchedulerCore({
            nodes,
            seed: 2,
            kernel,
            ...(withPlugin
              ? { outOfTree: new Map([[pl.name, pl.factory]]), extraScore: new Map([[pl.name, pl.weight]]) }
              : {}),
          }),
          6,
          { cpu: '500m', memory: '1Gi' },
        );
      // LeastAllocated alone spreads over all three nodes; with binpack ×10 they pile up on one node
      expect(new Set(place(false)).size).toBe(3);
      const packed = place(true);
      expect(new Set(packed).size).toBe(1);
    });
  }

  it('a WASM plugin that grows the shared memory does not break the table (views re-created after the call)', async () => {
    const { wasmScorePlugin } = await import('../../../src/scheduler/plugins/user.js');
    const nodes = Array.from({ length: 8 }, (_, i) => node(`n${i}`));
    const place = (withPlugin: boolean) =>
      placeAll(
        new SchedulerCore({
          nodes,
          seed: 3,
          kernel: 'wasm',
          ...(withPlugin
            ? {
                outOfTree: new Map([['grow', wasmScorePlugin('grow', growingScoreModule())]]),
                extraScore: new Map([['grow', 1]]),
              }
            : {}),
        }),
        12,
        { cpu: '700m', memory: '2Gi' },
      );
    // a constant score changes no placement; assumed pods must keep landing in the live memory
    const baseline = place(false);
    expect(new Set(baseline).size).toBe(8);
    expect(place(true)).toEqual(baseline);
  });
});

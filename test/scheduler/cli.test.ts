// End-to-end `kubesim explain` / `kubesim schedule` on fixture clusters through the real CLI entry.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/index.js';
// @ts-expect-error plain .mjs build helper without types
import { buildBinpack } from '../../examples/plugins/wasm-binpack/build.mjs';

const F = 'test/scheduler/fixtures';

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '',
    err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
    out += String(s);
    return true;
  });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
    err += String(s);
    return true;
  });
  try {
    const code = await main(['node', 'kubesim', ...args]);
    return { code, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

afterEach(() => {
  process.exitCode = undefined;
});

describe('kubesim explain', () => {
  it('explains a Pending pod with the FitError line and reasons grouped', async () => {
    const r = await cli('explain', '--cluster', `${F}/cluster.yaml`, '--pod', `${F}/big-pod.yaml`);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('Pod default/big (profile default-scheduler): Pending');
    expect(r.out).toContain(
      '0/5 nodes are available: 2 node(s) had untolerated taint(s), 3 Insufficient cpu. preemption: 0/5 nodes are available: 2 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.',
    );
    expect(r.out).toMatch(/\s+3 {2}Insufficient cpu {2}\[NodeResourcesFit\]/);
    expect(r.out).toContain('✗ TaintToleration: node(s) had untolerated taint(s)');
  });

  it('explains a schedulable pod: scores per plugin and the chosen node (json)', async () => {
    const r = await cli(
      'explain',
      '--cluster',
      `${F}/cluster.yaml`,
      '--pod',
      `${F}/web-pod.yaml`,
      '-o',
      'json',
    );
    expect(r.code).toBe(0);
    const ex = JSON.parse(r.out);
    // worker-2 has 1 CPU free and worker-1 800m, worker-3 500m: only worker-2 fits 900m
    expect(ex.chosen).toBe('worker-2');
    const chosen = ex.nodes.find((n: { name: string }) => n.name === 'worker-2');
    expect(chosen.feasible).toBe(true);
    expect(chosen.scores.map((s: { plugin: string }) => s.plugin)).toEqual(
      [
        'TaintToleration',
        'NodeAffinity',
        'NodeResourcesFit',
        'PodTopologySpread',
        'InterPodAffinity',
        'NodeResourcesBalancedAllocation',
        'ImageLocality',
      ].filter((p) => !ex.skippedScorePlugins.includes(p)),
    );
    expect(chosen.total).toBe(
      chosen.scores.reduce(
        (s: number, c: { normalized: number; weight: number }) => s + c.normalized * c.weight,
        0,
      ),
    );
    const w1 = ex.nodes.find((n: { name: string }) => n.name === 'worker-1');
    expect(w1.decisive).toEqual({
      plugin: 'NodeResourcesFit',
      code: 'Unschedulable',
      reasons: ['Insufficient cpu'],
    });
    expect(w1.filters.find((f: { plugin: string }) => f.plugin === 'TaintToleration').result).toBe('pass');
  });

  it('reports bad input as one line naming the file', async () => {
    const r = await cli('explain', '--cluster', `${F}/nope.yaml`, '--pod', `${F}/web-pod.yaml`);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^kubesim: .*nope\.yaml/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    const c = await cli(
      'explain',
      '--cluster',
      `${F}/cluster.yaml`,
      '--pod',
      `${F}/web-pod.yaml`,
      '--config',
      `${F}/pods.yaml`,
    );
    expect(c.code).toBe(1);
    expect(c.err).toContain('pods.yaml');
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-bad-'));
    writeFileSync(
      join(dir, 'bad.yaml'),
      'apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: "2", pods: "10"}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {nodeName: n1, containers: [{name: c, image: x, resources: {requests: {cpu: 1.5q}}}]}\n',
    );
    const q = await cli('explain', '--cluster', join(dir, 'bad.yaml'), '--pod', `${F}/web-pod.yaml`);
    expect(q.code).toBe(1);
    expect(q.err).toMatch(
      /^kubesim: .*bad\.yaml:6: pod default\/p: spec\.containers\[0\]\.resources\.requests: invalid quantity "1\.5q" for cpu/,
    );
  });
});

describe('--config with invalid plugin args', () => {
  // parsed (and its args validated) before anything is built: every command exits 1 with the file
  // and the full field path, naming the plugin whose args hold the bad weight
  const bad = join(mkdtempSync(join(tmpdir(), 'kubesim-cfg-')), 'bad.yaml');
  writeFileSync(
    bad,
    [
      'apiVersion: kubescheduler.config.k8s.io/v1',
      'kind: KubeSchedulerConfiguration',
      'profiles:',
      '- pluginConfig:',
      '  - name: NodeAffinity',
      '    args: {}',
      '  - name: NodeResourcesFit',
      '    args:',
      '      scoringStrategy: {type: LeastAllocated, resources: [{name: cpu, weight: 101}]}',
      '',
    ].join('\n'),
  );
  const want = `${bad}: profiles[0].pluginConfig[1].args.scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]`;
  const cmds: [string, string[]][] = [
    ['schedule', ['--pods', `${F}/pods.yaml`]],
    ['explain', ['--pod', `${F}/web-pod.yaml`]],
    ['plan', ['--pod', `${F}/web-pod.yaml`]],
  ];
  for (const [cmd, extra] of cmds)
    it(`kubesim ${cmd} exits 1 with the field path`, async () => {
      const r = await cli(cmd, '--cluster', `${F}/cluster.yaml`, ...extra, '--config', bad);
      expect(r.code).toBe(1);
      expect(r.err).toContain(want);
      expect(r.err).not.toContain('NodeAffinity');
      expect(r.err).not.toMatch(/\n\s+at /);
    });
});

describe('kubesim schedule', () => {
  it('places pods in order, preempts for the high-priority pod, prints FitErrors', async () => {
    const r = await cli(
      'schedule',
      '--cluster',
      `${F}/cluster.yaml`,
      '--pods',
      `${F}/pods.yaml`,
      '--seed',
      '3',
    );
    expect(r.err).toBe('');
    expect(r.out).toMatch(/default\/web-1\s+worker-/);
    expect(r.out).toContain('default/web-3: 0/5 nodes are available:');
    // vip (priority 100000) evicts the lowest-priority victim that makes room
    expect(r.out).toMatch(/default\/vip\s+worker-\d\s+Scheduled \(preempted default\/[\w-]+\)/);
    const j = JSON.parse(
      (
        await cli(
          'schedule',
          '--cluster',
          `${F}/cluster.yaml`,
          '--pods',
          `${F}/pods.yaml`,
          '--seed',
          '3',
          '-o',
          'json',
        )
      ).out,
    );
    expect(j.placements).toHaveLength(4);
    expect(j.scheduled + j.unschedulable).toBe(4);
  });

  it('a KubeSchedulerConfiguration changes the scoring (MostAllocated packs)', async () => {
    const least = JSON.parse(
      (await cli('schedule', '--cluster', `${F}/cluster.yaml`, '--pods', `${F}/pods.yaml`, '-o', 'json')).out,
    );
    const most = JSON.parse(
      (
        await cli(
          'schedule',
          '--cluster',
          `${F}/cluster.yaml`,
          '--pods',
          `${F}/pods.yaml`,
          '--config',
          `${F}/sched-config.yaml`,
          '-o',
          'json',
        )
      ).out,
    );
    expect(least.placements[0].node).not.toBe(most.placements[0].node);
  });

  it('--plugin loads a WASM score plugin with a weight', async () => {
    const wasm = await buildBinpack(join(mkdtempSync(join(tmpdir(), 'kubesim-cli-')), 'binpack.wasm'));
    const base = JSON.parse(
      (await cli('schedule', '--cluster', `${F}/cluster.yaml`, '--pods', `${F}/pods.yaml`, '-o', 'json')).out,
    );
    const r = await cli(
      'schedule',
      '--cluster',
      `${F}/cluster.yaml`,
      '--pods',
      `${F}/pods.yaml`,
      '--plugin',
      `${wasm}:20`,
      '-o',
      'json',
    );
    expect(r.err).toBe('');
    const packed = JSON.parse(r.out);
    // binpack ×20 sends web-1 to the fullest node that fits (worker-3 has 500m free)
    expect(packed.placements[0].node).toBe('worker-3');
    expect(base.placements[0].node).not.toBe('worker-3');
    const bad = await cli(
      'schedule',
      '--cluster',
      `${F}/cluster.yaml`,
      '--pods',
      `${F}/pods.yaml`,
      '--plugin',
      `${F}/pods.yaml:0`,
    );
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^kubesim: --plugin .*weight must be in 1\.\.100/);
  });
});

// `kubesim simulate` with a KubeSchedulerConfiguration and user plugins (--config, --plugin,
// settings.schedulerConfig, settings.plugins), and with the snapshot `kubesim plan` reads: through
// the CLI's entry point, as a user runs it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kubesimInProcess, root } from '../cli/harness.js';

const dir = mkdtempSync(join(tmpdir(), 'kubesim-simplug-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCALE = join(root, 'examples/scenarios/scale-up-down.yaml');
const PLUGIN = join(root, 'examples/plugins/binpack.mjs');
const SNAPSHOT = join(root, 'examples/snapshot/cluster.yaml');

/** the scale-up-down scenario with the given `settings` YAML */
function scenario(name: string, settings = ''): string {
  const text = `${readFileSync(SCALE, 'utf8')}\n${settings}\n`;
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
}

async function json(args: string[]) {
  const r = await kubesimInProcess(['simulate', ...args, '--no-progress', '-o', 'json']);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as {
    pods: { created: number; scheduled: number; ready: number; runningAtEnd: number };
    startupLatencyMs: { count: number };
    series: { running: number[]; nodesUsed: number[]; cpuUtilization: number[] };
    preemptions: number;
  };
}
const peak = (xs: number[]) => Math.max(...xs);

describe('simulate with scheduler configuration and user plugins', () => {
  it('the default scoring spreads the 24 replicas over all 8 nodes; the bin-packing plugin fills 4', async () => {
    const plain = await json([SCALE]);
    expect(plain.pods.ready).toBe(24);
    expect(peak(plain.series.nodesUsed)).toBe(8);
    // settings.plugins (relative paths resolve against the scenario's folder: the error cases below)
    const packed = await json([scenario('packed.yaml', `settings: { plugins: ["${PLUGIN}:5"] }`)]);
    expect(packed.pods.ready).toBe(24);
    // 24 × 500m = 12 CPU on 4-CPU nodes: 3 full nodes would do; the plugin's weight 5 against
    // BalancedAllocation and the default LeastAllocated leaves some slack
    expect(peak(packed.series.nodesUsed)).toBe(4);
    // --plugin is the same run
    const flag = await json([SCALE, '--plugin', `${PLUGIN}:5`]);
    expect(flag.series.nodesUsed).toEqual(packed.series.nodesUsed);
  });

  it('settings.schedulerConfig and --config: MostAllocated at weight 10 packs as well', async () => {
    // at its default weight 1 MostAllocated loses to PodTopologySpread's default constraints (weight
    // 2, ScheduleAnyway over hostnames and zones) and BalancedAllocation: the pods still spread
    const cfg = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      score:
        enabled: [{ name: NodeResourcesFit, weight: 10 }]
    pluginConfig:
      - name: NodeResourcesFit
        args: { scoringStrategy: { type: MostAllocated, resources: [{ name: cpu, weight: 1 }] } }
`;
    writeFileSync(join(dir, 'most.yaml'), cfg);
    const inline = await json([
      scenario(
        'inline.yaml',
        `settings:\n  schedulerConfig:\n${cfg
          .split('\n')
          .map((l) => `    ${l}`)
          .join('\n')}`,
      ),
    ]);
    const file = await json([scenario('file.yaml', 'settings: { schedulerConfig: most.yaml }')]);
    const flag = await json([scenario('flag.yaml'), '--config', join(dir, 'most.yaml')]);
    // 24 × 500m = 12 CPU: 3 full nodes; 8 × 500m at the end: 1
    expect(peak(inline.series.nodesUsed)).toBe(3);
    expect(inline.series.nodesUsed.at(-1)).toBe(1);
    expect(file.series.nodesUsed).toEqual(inline.series.nodesUsed);
    expect(flag.series.nodesUsed).toEqual(inline.series.nodesUsed);
  });

  it('a plugin that throws fails the command naming it; --plugin-errors=continue goes on', async () => {
    writeFileSync(
      join(dir, 'broken.mjs'),
      "export default { name: 'Broken', score() { throw new Error('no score today'); } };\n",
    );
    const f = scenario('broken.yaml', 'settings: { plugins: [broken.mjs] }');
    const r = await kubesimInProcess(['simulate', f, '--no-progress']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^kubesim: running Score plugin "Broken" for pod default\/web-.*no score today/);
    expect(r.stdout).toBe('');
    const c = await kubesimInProcess(['simulate', f, '--no-progress', '--plugin-errors', 'continue']);
    expect(c.status).toBe(0);
    expect(c.stderr).toMatch(/warning: plugin "Broken" failed \d+ scheduling cycle\(s\)/);
  });

  it.each([
    ['settings: { plugins: [nope.mjs] }', /settings\.plugins\[0\]: .*nope\.mjs: no such file/],
    ['settings: { plugins: [broken.mjs:0] }', /settings\.plugins\[0\]: weight must be in 1\.\.100/],
    ['settings: { plugins: "x" }', /settings\.plugins: expected a list/],
    [
      'settings: { scheduler: standin, plugins: [broken.mjs] }',
      /settings\.plugins: needs settings\.scheduler: real/,
    ],
    [
      'settings: { schedulerConfig: { apiVersion: v1, kind: KubeSchedulerConfiguration } }',
      /settings\.schedulerConfig: apiVersion: Unsupported value: "v1"/,
    ],
    ['settings: { schedulerConfig: missing.yaml }', /settings\.schedulerConfig: .*missing\.yaml/],
  ])('%s is an error naming the setting', async (settings, message) => {
    writeFileSync(join(dir, 'broken.mjs'), "export default { name: 'B', score() { return 1; } };\n");
    const r = await kubesimInProcess(['simulate', scenario('bad.yaml', settings), '--no-progress']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });
});

describe('simulate on the snapshot plan reads', () => {
  const snap = (name: string, body: string) => {
    const f = join(dir, name);
    writeFileSync(f, `name: snap\nduration: 1m\ncluster:\n  snapshot: ${SNAPSHOT}\n${body}`);
    return f;
  };

  it("the snapshot's bound pods run on their nodes from the start; only the workload starts up", async () => {
    const r = await json([
      snap('snap.yaml', `workloads:\n  - file: ${join(root, 'examples/snapshot/pod-api.yaml')}\n`),
    ]);
    // cluster.yaml holds 6 pods bound to nodes, Running
    expect(r.series.running[0]).toBe(6);
    expect(r.pods.created).toBe(1);
    expect(r.startupLatencyMs.count).toBe(1);
    expect(r.pods.runningAtEnd).toBe(7);
  });

  it('an object that fails to create names the part of the scenario it came from', async () => {
    const cm = (n: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: n, namespace: 'default' },
    });
    const dup = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [cm('c')] });
    writeFileSync(join(dir, 'dup.json'), dup);
    const f = join(dir, 'dup.yaml');
    writeFileSync(
      f,
      'duration: 1m\ncluster: { pools: [{ name: w, count: 1 }], snapshot: dup.json }\nworkloads: [{ file: dup.json }]\n',
    );
    const r = await kubesimInProcess(['simulate', f, '--no-progress']);
    expect(r.status).toBe(1);
    // created first from cluster.snapshot, so the workloads' copy is the one refused
    expect(r.stderr).toMatch(/dup\.yaml: workloads: ConfigMap default\/c: configmaps "c" already exists/);
  });
});

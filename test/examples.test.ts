// Every file under examples/ runs as written, the way a user runs it: `node` on the built CLI or
// on the example itself, from the repository root, no TypeScript loader (a .ts plugin is compiled
// by kubesim when it loads it). A new example file without a runner here fails the first test.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { packageRoot } from '../src/util/paths.js';

const root = packageRoot();
const cli = join(root, 'dist', 'src', 'cli', 'index.js');
const node = (...args: string[]) =>
  spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 120_000 });
const kubesim = (...args: string[]) => node(cli, ...args);
const ok = (r: ReturnType<typeof node>) => {
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
};

/** Example files (generated build/ output aside), relative to the root. */
function exampleFiles(dir = join(root, 'examples')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? e.name === 'build'
        ? []
        : exampleFiles(join(dir, e.name))
      : [relative(root, join(dir, e.name))],
  );
}

const scenarios = exampleFiles().filter((f) => f.startsWith('examples/scenarios/'));
/** what each non-scenario example is exercised by (the tests below) */
const covered = new Set([
  'examples/library/capacity.mjs',
  'examples/library/plugin-runner.mjs',
  'examples/snapshot/cluster.yaml',
  'examples/snapshot/pod-api.yaml',
  'examples/snapshot/pod-worker.yaml',
  'examples/plugins/prefer-label/index.ts',
  'examples/plugins/binpack.mjs',
  'examples/plugins/wasm-binpack/build.mjs',
  'examples/plugins/wasm-binpack/assembly/index.ts',
  'examples/store/kv-watch-lease.json',
  'examples/bench/sim-before.json',
  'examples/bench/sim-after.json',
]);

describe.skipIf(!existsSync(cli))('examples/', () => {
  it('every example file has a runner in this test', () => {
    expect(exampleFiles().filter((f) => !covered.has(f) && !scenarios.includes(f))).toEqual([]);
  });

  it('library/capacity.mjs prints the hand-checked answers (test/capacity/planner.test.ts)', () => {
    const out = ok(node('examples/library/capacity.mjs'));
    expect(out).toContain('shop/api: 15 more replicas fit (eu-west-1a=4, eu-west-1b=10, eu-west-1c=1)');
    expect(out).toContain('after losing eu-west-1b: 5 fit; 1 displaced pod(s) find no room');
    // 15 + 8k ≥ 40 → k = 4 nodes like b-2 (8 CPU each, shape 1 CPU)
    expect(out).toContain('for 40 replicas add 4 node(s) like b-2');
  });

  it('library/plugin-runner.mjs runs NodeAffinity alone and explains the profile (docs/scheduler.md shows it)', () => {
    const out = ok(node('examples/library/plugin-runner.mjs'));
    expect(out).toContain(
      'filter {"a":{"code":"Success","reasons":[]},"b":{"code":"Success","reasons":[]}}\n' +
        'score {"a":5,"b":0} normalized {"a":100,"b":0}\n',
    );
    expect(out).toMatch(/^chosen a /m);
    // the docs show this file's code as it is, from its first import on
    const code = readFileSync(join(root, 'examples/library/plugin-runner.mjs'), 'utf8');
    const docs = readFileSync(join(root, 'docs/scheduler.md'), 'utf8');
    expect(docs).toContain(`\`\`\`js\n${code.slice(code.indexOf('import '))}\`\`\``);
  });

  it('snapshot/: plan answers 15 for pod-api, explain chooses b-2 for pod-worker (README)', () => {
    const plan = JSON.parse(
      ok(
        kubesim(
          'plan',
          '--cluster',
          'examples/snapshot/cluster.yaml',
          '--pod',
          'examples/snapshot/pod-api.yaml',
          '-o',
          'json',
        ),
      ),
    );
    expect(plan.shapes[0].fits).toBe(15);
    const explain = JSON.parse(
      ok(
        kubesim(
          'explain',
          '--cluster',
          'examples/snapshot/cluster.yaml',
          '--pod',
          'examples/snapshot/pod-worker.yaml',
          '-o',
          'json',
        ),
      ),
    );
    expect(explain.chosen).toBe('b-2');
  });

  it('store/kv-watch-lease.json replays on the in-memory store with every answer as written', () => {
    const out = ok(kubesim('store', 'replay', 'examples/store/kv-watch-lease.json', '--check'));
    expect(out).toContain('examples/store/kv-watch-lease.json: all 16 answers and 2 watchers match');
  });

  it('bench/sim-{before,after}.json: bench compare judges every row of the two saved sim reports', () => {
    const r = kubesim(
      'bench',
      'compare',
      'examples/bench/sim-before.json',
      'examples/bench/sim-after.json',
      '--normalize',
      '-o',
      'json',
    );
    expect(r.status, r.stderr).toBe(0);
    const cmp = JSON.parse(r.stdout);
    expect(cmp.compared.map((x: { id: string }) => x.id)).toEqual(
      [60, 120, 240].map((n) => `sim|demo CPU time|kube-scheduler model|${n}`),
    );
    expect(cmp.regressions).toEqual([]);
    expect(r.stderr).toContain('3 result(s) compared, no regression');
  });

  describe('plugins/ through --plugin', () => {
    // n-fast: tier=fast, empty; n-slow: 2 of 4 CPU requested; n-drain: draining=true
    let dir = '';
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'kubesim-examples-'));
      const node = (name: string, labels: Record<string, string> = {}) => ({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name, labels },
        status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } },
      });
      const pod = (name: string, cpu: string, nodeName?: string) => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'default' },
        spec: {
          nodeName,
          containers: [{ name: 'c', image: 'x', resources: { requests: { cpu, memory: '1Gi' } } }],
        },
      });
      const list = {
        apiVersion: 'v1',
        kind: 'List',
        items: [
          node('n-fast', { 'kubesim.io/tier': 'fast' }),
          node('n-slow'),
          node('n-drain', { 'kubesim.io/draining': 'true' }),
          pod('busy', '2', 'n-slow'),
        ],
      };
      writeFileSync(join(dir, 'cluster.json'), JSON.stringify(list));
      writeFileSync(join(dir, 'pod.json'), JSON.stringify(pod('web', '1')));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    type Explained = {
      chosen?: string;
      nodes: {
        name: string;
        filters: { plugin: string; result: string; reasons?: string[] }[];
        scores?: { plugin: string; raw: number }[];
      }[];
    };
    const explain = (plugin: string): Explained =>
      JSON.parse(
        ok(
          kubesim(
            'explain',
            '--cluster',
            join(dir, 'cluster.json'),
            '--pod',
            join(dir, 'pod.json'),
            '--plugin',
            plugin,
            '-o',
            'json',
          ),
        ),
      );
    const raw = (r: Explained, plugin: string) =>
      Object.fromEntries(
        r.nodes.filter((n) => n.scores).map((n) => [n.name, n.scores!.find((s) => s.plugin === plugin)?.raw]),
      );

    it('prefer-label/index.ts (TypeScript, compiled at load): fast scores 100, draining filtered', () => {
      const r = explain('examples/plugins/prefer-label/index.ts:3');
      expect(raw(r, 'PreferLabel')).toEqual({ 'n-fast': 100, 'n-slow': 0 });
      const drain = r.nodes.find((n) => n.name === 'n-drain')!;
      expect(drain.filters.find((f) => f.plugin === 'PreferLabel')).toMatchObject({
        result: 'Unschedulable',
        reasons: ['node(s) are draining'],
      });
      expect(r.chosen).toBe('n-fast');
    });

    it('binpack.mjs and wasm-binpack (built by its build.mjs) give the same hand-checked scores', () => {
      // (requested + 1000m) × 100 / 4000m: n-fast 25, n-slow (2000m + 1000m) → 75, n-drain 25
      const js = raw(explain('examples/plugins/binpack.mjs:5'), 'BinPackCpu');
      expect(js).toEqual({ 'n-fast': 25, 'n-slow': 75, 'n-drain': 25 });
      expect(ok(node('examples/plugins/wasm-binpack/build.mjs'))).toMatch(/^built .*binpack\.wasm\n$/);
      const wasm = raw(explain('examples/plugins/wasm-binpack/build/binpack.wasm:5'), 'binpack');
      expect(wasm).toEqual(js);
    });
  });

  it.each(scenarios)('%s runs through `kubesim simulate`', (file) => {
    const name = parse(readFileSync(join(root, file), 'utf8')).name;
    const report = JSON.parse(ok(kubesim('simulate', file, '-o', 'json', '--no-progress')));
    expect(report.scenario).toBe(name);
    expect(report.durationS).toBeGreaterThan(0);
  });
});

// `kubesim sweep`: the grid of --set values × seeds, shards that partition it, and merge. The sharded
// sweep runs as N local processes (each with its own worker pool, as the pods of an Indexed Job
// would), and its merged JSON must equal the one-process run byte for byte.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { gridPoints, mergeSweeps, parseSet, parseShard, shardRuns } from '../../src/experiments/sweep.js';
import { spread } from '../../src/sim/run-metrics.js';
import { applyValues } from '../../src/sim/sweep-run.js';
import { cli, kubesim, root } from '../cli/harness.js';

const dir = mkdtempSync(join(tmpdir(), 'kubesim-sweep-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SCENARIO = 'examples/scenarios/inflight-parallel-deploys.yaml';
const GRID = ['--set', 'apiserver.maxMutatingInflight=20,200', '--seeds', '2', '--no-progress'];

/** `kubesim ARGS` as a child process, with an environment (JOB_COMPLETION_INDEX). */
function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stderr: string }> {
  return new Promise((done) => {
    const p = spawn(process.execPath, [cli, ...args], { cwd: root, env: { ...process.env, ...env } });
    let stderr = '';
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (status) => done({ status, stderr }));
  });
}

describe('the grid and its shards', () => {
  it('--set values are YAML scalars; a malformed --set names what is wrong', () => {
    expect(parseSet('controllers.deployment.concurrentSyncs=5,10,50')).toEqual({
      path: 'controllers.deployment.concurrentSyncs',
      values: [5, 10, 50],
    });
    expect(parseSet('settings.watchLatency=0ms,200ms').values).toEqual(['0ms', '200ms']);
    expect(() => parseSet('apiserver.maxMutatingInflight')).toThrow(/expected PATH=V1,V2/);
    expect(() => parseSet('a..b=1')).toThrow(/not a dotted path/);
    expect(() => parseSet('a=1,,2')).toThrow(/empty value/);
  });

  it('a number in a path indexes a list of the scenario', () => {
    expect(parseSet('workloads.0.manifest.spec.replicas=1,2').values).toEqual([1, 2]);
    const doc = { workloads: [{ manifest: { spec: { replicas: 3 } } }], settings: {} };
    expect(
      applyValues(doc, {
        'workloads.0.manifest.spec.replicas': 7,
        'settings.controllers.deployment.concurrentSyncs': 50,
      }),
    ).toEqual({
      workloads: [{ manifest: { spec: { replicas: 7 } } }],
      settings: { controllers: { deployment: { concurrentSyncs: 50 } } },
    });
    expect(() => applyValues({ name: 'x' }, { 'name.first': 1 })).toThrow(
      '"name" is not a mapping or a list',
    );
  });

  it('the grid varies its last parameter fastest', () => {
    expect(gridPoints([parseSet('a=1,2'), parseSet('b=x,y')])).toEqual([
      { a: 1, b: 'x' },
      { a: 1, b: 'y' },
      { a: 2, b: 'x' },
      { a: 2, b: 'y' },
    ]);
  });

  it('the shards of a sweep partition its runs (every run in exactly one shard)', () => {
    for (const [total, n] of [
      [6, 2],
      [7, 3],
      [2, 5],
      [1, 1],
    ]) {
      const all = Array.from({ length: n }, (_, i) => shardRuns(total, { index: i, count: n })).flat();
      expect(all.sort((a, b) => a - b)).toEqual(shardRuns(total, null));
    }
    expect(shardRuns(6, parseShard('1/2'))).toEqual([1, 3, 5]);
    expect(() => parseShard('2/2')).toThrow(/from 0 to N-1/);
    expect(() => parseShard('1')).toThrow(/expected I\/N/);
  });

  it('spread: mean, range and sample standard deviation; null values are left out', () => {
    expect(spread([1, 2, 3, null])).toEqual({ n: 3, mean: 2, min: 1, max: 3, sd: 1 });
    expect(spread([null])).toEqual({ n: 0, mean: null, min: null, max: null, sd: null });
  });
});

describe.skipIf(!existsSync(cli))('kubesim sweep through the CLI', () => {
  it('3 shards in 3 processes, merged, equal the one-process run; a missing or repeated shard is refused', async () => {
    const single = join(dir, 'single.json');
    const shards = [0, 1, 2].map((i) => join(dir, `shard-${i}.json`));
    const runs = await Promise.all([
      run(['sweep', SCENARIO, ...GRID, '--threads', '1', '-o', 'json', '--out', single]),
      // shard 0 by --shard, the others from JOB_COMPLETION_INDEX as an Indexed Job's pods
      run(['sweep', SCENARIO, ...GRID, '--shard', '0/3', '-o', 'json', '--out', shards[0]!]),
      ...[1, 2].map((i) =>
        run(['sweep', SCENARIO, ...GRID, '--shards', '3', '-o', 'json', '--out', shards[i]!], {
          JOB_COMPLETION_INDEX: String(i),
        }),
      ),
    ]);
    for (const r of runs) expect(r.status, r.stderr).toBe(0);
    const parts = shards.map((f) => JSON.parse(readFileSync(f, 'utf8')));
    expect(parts.map((p) => p.runs.map((r: { run: number }) => r.run))).toEqual([[0, 3], [1], [2]]);
    const merged = kubesim(['sweep', 'merge', ...shards, '-o', 'json']);
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.stdout).toBe(readFileSync(single, 'utf8'));
    const whole = JSON.parse(merged.stdout);
    expect(whole.points).toHaveLength(2);
    expect(whole.shard).toBeNull();
    // the tighter limit answers more 429s: the sweep shows what the flag does
    const tmr = whole.points.map(
      (p: { metrics: { tooManyRequests: { mean: number } } }) => p.metrics.tooManyRequests.mean,
    );
    expect(tmr[0]).toBeGreaterThan(tmr[1]);
    expect(whole.points[0].metrics.peakMutatingInflight.max).toBeLessThanOrEqual(20);

    const missing = kubesim(['sweep', 'merge', shards[0]!, shards[2]!]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('1 of 4 runs missing (shards 1/3)');
    const twice = kubesim(['sweep', 'merge', ...shards, shards[1]!]);
    expect(twice.status).toBe(1);
    expect(twice.stderr).toMatch(/run 1 is also in .*shard-1\.json/);
    // a shard of another sweep (other seeds) does not merge
    const other = { ...parts[1], seeds: [1, 2, 3] };
    writeFileSync(join(dir, 'other.json'), JSON.stringify(other));
    const foreign = kubesim(['sweep', 'merge', shards[0]!, join(dir, 'other.json')]);
    expect(foreign.status).toBe(1);
    expect(foreign.stderr).toContain('seeds differs');
  }, 240_000);

  it('-o html charts each metric against the swept value, and tabulates min–max per point', () => {
    const fx = (i: number) => join(root, 'test/fixtures/sweep', `shard-${i}.json`);
    const r = kubesim(['sweep', 'merge', fx(0), fx(1), '-o', 'html']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^<!doctype html>/);
    expect((r.stdout.match(/<svg/g) ?? []).length).toBeGreaterThanOrEqual(10);
    expect(r.stdout).toContain('429s (requests): 429 TooManyRequests answers');
    expect(r.stdout).toContain('apiserver.maxMutatingInflight');
    const t = kubesim(['sweep', 'merge', fx(0), fx(1), '--metrics', 'tooManyRequests,nope']);
    expect(t.status).toBe(2);
    expect(t.stderr).toContain('--metrics: unknown metric "nope"');
  });

  it('merge refuses a file that is not a sweep result', () => {
    expect(() => mergeSweeps([{ file: 'x.json', result: { kind: 'List' } }])).toThrow(
      'x.json: not a sweep result',
    );
  });

  it('a value the scenario refuses is an error naming the point (exit 1); a bad flag is a usage error (exit 2)', () => {
    const bad = kubesim(['sweep', SCENARIO, '--set', 'apiserver.maxMutatingInflight=20,-1']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('--set apiserver.maxMutatingInflight=-1');
    expect(bad.stderr).toContain('settings.maxMutatingInflight');
    const unknown = kubesim(['sweep', SCENARIO, '--set', 'settings.noSuchKnob=1']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('settings.noSuchKnob: unknown field (expected one of');
    expect(kubesim(['sweep', SCENARIO, '--set', 'x']).status).toBe(2);
    const noIndex = kubesim(['sweep', SCENARIO, '--shards', '2'], root);
    expect(noIndex.status).toBe(2);
    expect(noIndex.stderr).toContain('JOB_COMPLETION_INDEX is not set');
  });

  it('sweep job prints an Indexed Job that kubesim itself accepts, with the scenario and the files it names', () => {
    // a scenario naming a workload file in a subfolder: the ConfigMap carries both
    mkdirSync(join(dir, 'job', 'apps'), { recursive: true });
    writeFileSync(
      join(dir, 'job', 'apps', 'web.yaml'),
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web }\nspec:\n  replicas: 2\n  selector: { matchLabels: { app: web } }\n  template:\n    metadata: { labels: { app: web } }\n    spec: { containers: [{ name: c, image: nginx }] }\n',
    );
    const sc = join(dir, 'job', 'web.yaml');
    writeFileSync(
      sc,
      'name: web\nduration: 1m\ncluster: { pools: [{ name: w, count: 2 }] }\nworkloads: [{ file: apps/web.yaml }]\n',
    );
    const grid = ['--set', 'apiserver.maxMutatingInflight=20,200', '--seeds', '3', '--shards', '4'];
    const r = kubesim(['sweep', 'job', sc, ...grid, '--parallelism', '2']);
    expect(r.status, r.stderr).toBe(0);
    const list = parse(r.stdout);
    const [cm, job] = list.items;
    expect(job.spec).toMatchObject({ completionMode: 'Indexed', completions: 4, parallelism: 2 });
    const c = job.spec.template.spec.containers[0];
    expect(c.args).toEqual(expect.arrayContaining(['/scenario/web.yaml', ...grid]));
    expect(Object.keys(cm.data).sort()).toEqual(['apps_web.yaml', 'web.yaml']);
    expect(job.spec.template.spec.volumes[0].configMap.items).toEqual([
      { key: 'web.yaml', path: 'web.yaml' },
      { key: 'apps_web.yaml', path: 'apps/web.yaml' },
    ]);
    const file = join(dir, 'job.yaml');
    writeFileSync(file, r.stdout);
    const v = kubesim(['validate', file]);
    expect(v.status, v.stdout + v.stderr).toBe(0);
    const t = kubesim(['sweep', 'job', SCENARIO, '--shards', '5']);
    expect(t.status).toBe(2);
    expect(t.stderr).toContain('only 1 run(s)');
  });
});

import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/util/paths.js';

const cli = join(packageRoot(), 'dist', 'src', 'cli', 'index.js');
const fx = (f: string) => join(packageRoot(), 'examples', 'snapshot', f);
const run = (...args: string[]) =>
  spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 60_000 });

describe.skipIf(!existsSync(cli))('kubesim plan / strategies CLI', () => {
  it('plan -o json answers with the planner report', () => {
    const r = run('plan', '--cluster', fx('cluster.yaml'), '--pod', fx('pod-api.yaml'), '-o', 'json');
    expect(r.status).toBe(0);
    const rep = JSON.parse(r.stdout);
    expect(rep.shapes[0].fits).toBe(15);
    expect(rep.shapes[0].perZone).toEqual({ 'eu-west-1a': 4, 'eu-west-1b': 10, 'eu-west-1c': 1 });
  });

  it('--sweep runs each what-if on its own in the pool', () => {
    const r = run(
      'plan',
      '--cluster',
      fx('cluster.yaml'),
      '--pod',
      fx('pod-api.yaml'),
      '--sweep',
      '--what-if',
      'lose-zone=eu-west-1b',
      'lose-zone=eu-west-1c',
      '-o',
      'json',
      '--threads',
      '2',
    );
    expect(r.status).toBe(0);
    expect(
      JSON.parse(r.stdout).map((c: { case: string; report: { shapes: { fits: number }[] } }) => [
        c.case,
        c.report.shapes[0].fits,
      ]),
    ).toEqual([
      ['base', 15],
      ['lose-zone=eu-west-1b', 5],
      ['lose-zone=eu-west-1c', 14],
    ]);
  });

  it('writes a self-contained HTML report', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-plan-'));
    try {
      const out = join(dir, 'plan.html');
      expect(
        run('plan', '--cluster', fx('cluster.yaml'), '--pod', fx('pod-api.yaml'), '-o', 'html', '--out', out)
          .status,
      ).toBe(0);
      const html = readFileSync(out, 'utf8');
      expect(html).toContain('<svg');
      expect(html).toContain('shop/api: 15 more replica(s)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [
      ['--what-if', 'lose-zone=mars'],
      'lose-zone: no node in zone "mars" (zones: eu-west-1a, eu-west-1b, eu-west-1c)',
      1,
    ],
    [['--what-if', 'nuke=all'], '--what-if "nuke=all": unknown kind "nuke"', 2],
    [['--min-nodes', 'b-2'], '--min-nodes needs --replicas N', 2],
    [['--kernel', 'gpu'], '--kernel: unknown kernel "gpu"', 2],
  ])('bad input %j gets one clear line and its exit status', (extra, msg, status) => {
    const r = run('plan', '--cluster', fx('cluster.yaml'), '--pod', fx('pod-api.yaml'), ...extra);
    expect(r.status).toBe(status);
    expect(r.stderr).toContain(msg);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('strategies compares scoring strategies on a workload', () => {
    const r = run(
      'strategies',
      '--cluster',
      fx('cluster.yaml'),
      '--pod',
      fx('pod-api.yaml'),
      '--replicas',
      '10',
      '--strategy',
      'LeastAllocated,MostAllocated',
      '-o',
      'json',
    );
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.workload).toBe(10);
    expect(out.strategies.map((s: { strategy: string; placed: number }) => [s.strategy, s.placed])).toEqual([
      ['LeastAllocated', 10],
      ['MostAllocated', 10],
    ]);
  });
});

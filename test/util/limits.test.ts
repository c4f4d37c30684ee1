/**
 * Every documented limit (src/util/limits.ts, README "Limits") through the CLI: a count, size,
 * duration or rate above its maximum is a clear one-line error naming the input and the limit, with
 * a non-zero exit — never a run that grows until it is killed. Each case answers within the spawn
 * timeout, which is the point: before the limits, most of them ran until killed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/util/limits.js';
import { packageRoot } from '../../src/util/paths.js';

const cli = join(packageRoot(), 'dist', 'src', 'cli', 'index.js');
const snapshot = join(packageRoot(), 'examples', 'snapshot', 'cluster.yaml');
const pod = join(packageRoot(), 'examples', 'snapshot', 'pod-api.yaml');
const run = (...args: string[]) =>
  spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 60_000 });
const dir = mkdtempSync(join(tmpdir(), 'kubesim-limits-'));
const file = (name: string, text: string | Buffer) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

/** A scenario file: `body` after its name (and a 2m duration unless the body sets one). */
function scenario(name: string, body: string): string {
  return file(`${name}.yaml`, `name: ${name}\n${body.startsWith('duration') ? '' : 'duration: 2m\n'}${body}`);
}
const POOL = 'cluster:\n  pools:\n    - { name: w, count: 2, zones: [a, b] }\n';

describe.skipIf(!existsSync(cli))('limits through the CLI', () => {
  it.each([
    ['demo --nodes 1000000000', ['demo', '--nodes', '1000000000'], 2, `above the limit of ${LIMITS.nodes}`],
    [
      'plan add-nodes=1000000000:n-1',
      ['plan', '--cluster', snapshot, '--pod', pod, '--what-if', 'add-nodes=1000000000:n-1'],
      2,
      `1000000000 nodes is above the limit of ${LIMITS.nodes}`,
    ],
    [
      'plan --max 2000000',
      ['plan', '--cluster', snapshot, '--pod', pod, '--max', '2000000'],
      2,
      `--max: 2000000 is above the limit of ${LIMITS.pods}`,
    ],
    [
      'plan --threads 100000',
      ['plan', '--cluster', snapshot, '--pod', pod, '--sweep', '--threads', '100000'],
      2,
      `--threads: 100000 is above the limit of ${LIMITS.threads}`,
    ],
    [
      'strategies --replicas 2000000',
      ['strategies', '--cluster', snapshot, '--pod', pod, '--replicas', '2000000'],
      2,
      `above the limit of ${LIMITS.pods}`,
    ],
    [
      'proxy render --generate 1000000x1',
      ['proxy', 'render', '--generate', '1000000x1'],
      2,
      `1000000 services is above the limit of ${LIMITS.services}`,
    ],
    [
      'proxy render --generate 10000x1000',
      ['proxy', 'render', '--generate', '10000x1000'],
      2,
      `10000000 endpoints is above the limit of ${LIMITS.endpoints}`,
    ],
    [
      'proxy render --repeat 1e9',
      ['proxy', 'render', '--generate', '1x1', '--repeat', '1000000000'],
      2,
      `--repeat: 1000000000 is above the limit of ${LIMITS.syncSteps}`,
    ],
  ])('%s', (_name, args, status, message) => {
    const r = run(...args);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.status).toBe(status);
  });

  it.each([
    [
      'pool count 1e9',
      'cluster:\n  pools:\n    - { name: w, count: 1e9 }\n',
      `cluster.pools[0].count: 1000000000 is above the limit of ${LIMITS.nodes}`,
    ],
    [
      'pools together above the node limit',
      'cluster:\n  pools:\n    - { name: a, count: 60000 }\n    - { name: b, count: 60000 }\n',
      `nodes (pools, generator and snapshot together): 120000 is above the limit of ${LIMITS.nodes}`,
    ],
    [
      'generator nodes 1e9',
      'cluster:\n  generator: { nodes: 1000000000 }\n',
      'cluster.generator.nodes: 1000000000 is above',
    ],
    [
      'pool pods per node',
      'cluster:\n  pools:\n    - { name: w, count: 1, pods: 1e12 }\n',
      'cluster.pools[0].pods',
    ],
    [
      'invalid pool cpu',
      'cluster:\n  pools:\n    - { name: w, count: 1, cpu: "-1" }\n',
      'cluster.pools[0].cpu: must be greater than zero',
    ],
    [
      'burst count 1e9',
      `${POOL}timeline:\n  - { at: 1s, action: burst, count: 1e9 }\n`,
      `timeline[0].count: 1000000000 is above the limit of ${LIMITS.pods}`,
    ],
    [
      'scale replicas 1e9',
      `${POOL}timeline:\n  - { at: 1s, action: scale, deployment: web, replicas: 1e9 }\n`,
      'timeline[0].replicas: 1000000000 is above',
    ],
    [
      'nodeDown count 1e9',
      `${POOL}timeline:\n  - { at: 1s, action: nodeDown, count: 1e9 }\n`,
      'timeline[0].count: 1000000000 is above',
    ],
    [
      'sampleEvery 0s',
      `${POOL}settings: { sampleEvery: 0s }\n`,
      'settings.sampleEvery: 0ms is below the smallest allowed, 100ms',
    ],
    [
      'too many samples',
      `duration: 720h\n${POOL}settings: { sampleEvery: 1s }\n`,
      `settings.sampleEvery: 2592000 samples over the run is above the limit of ${LIMITS.samples}`,
    ],
    ['duration 31 days', `duration: 744h\n${POOL}`, 'duration: 31d is above the limit of 30d'],
    [
      'an action after the end',
      `${POOL}timeline:\n  - { at: 5m, action: nodeDown, node: w-0000 }\n`,
      'timeline[0].at: "5m" is after the end of the run',
    ],
    [
      'a zone outage on a missing zone',
      `${POOL}timeline:\n  - { at: 1m, action: zoneOutage, zone: nowhere }\n`,
      'timeline[0].zone: no nodes in zone "nowhere" (zones: a, b)',
    ],
    [
      'a missing node',
      `${POOL}timeline:\n  - { at: 1m, action: nodeDown, node: w-9999 }\n`,
      'timeline[0]: no node named "w-9999"',
    ],
    [
      'a missing deployment',
      `${POOL}timeline:\n  - { at: 1m, action: scale, deployment: web, replicas: 3 }\n`,
      'timeline[0].deployment: no Deployment default/web',
    ],
    [
      'killLeader without leader election',
      `${POOL}timeline:\n  - { at: 1m, action: killLeader, component: scheduler }\n`,
      'killLeader needs settings.leaderElection: true',
    ],
    [
      'evictionRate NaN',
      `${POOL}settings: { evictionRate: .nan }\n`,
      'settings.evictionRate: expected a number from 0 to',
    ],
  ])('simulate: %s', (name, body, message) => {
    const f = scenario(name.replace(/\W+/g, '-'), body);
    const r = run('simulate', f, '--no-progress');
    expect(r.stderr).toContain(`${f}: `);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.status).toBe(1);
  });

  it('input text: nesting, aliases, size and UTF-8 are errors naming the file', () => {
    const deepYaml = file('deep.yaml', `${'['.repeat(10_000)}${']'.repeat(10_000)}\n`);
    const deepJson = file('deep.json', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`);
    const deepBlock = file('deep-block.yaml', `${'- '.repeat(10_000)}x\n`);
    const bomb = file(
      'bomb.yaml',
      `a: &a [x,x,x,x,x,x,x,x,x]\n${Array.from({ length: 8 }, (_, i) => {
        const [n, p] = [String.fromCharCode(98 + i), String.fromCharCode(97 + i)];
        return `${n}: &${n} [${Array(9).fill(`*${p}`).join(',')}]\n`;
      }).join('')}`,
    );
    const badUtf8 = file(
      'bad.yaml',
      Buffer.from('apiVersion: v1\nkind: Pod\nmetadata: {name: "x\xff"}\n', 'latin1'),
    );
    for (const [f, message] of [
      [deepYaml, `${deepYaml}:1:101: nested deeper than ${LIMITS.depth} levels`],
      [deepJson, `${deepJson}:1:501: nested deeper than ${LIMITS.depth} levels`],
      [deepBlock, `${deepBlock}:1:201: nested deeper than ${LIMITS.depth} levels`],
      [bomb, 'Excessive alias count'],
      [badUtf8, `${badUtf8}:3: not UTF-8: byte 0xff at offset 44`],
    ]) {
      // one manifest reader and the scenario reader (test/fuzz runs every command on such files)
      for (const args of [
        ['plan', '--cluster', f, '--pod', pod],
        ['simulate', f],
      ]) {
        const r = run(...args);
        expect(r.stderr, args.join(' ')).toContain(message);
        expect(r.stderr).toContain(`kubesim: ${f}`);
        expect(r.stderr).not.toMatch(/Maximum call stack|\n\s+at /);
        expect(r.status, args.join(' ')).toBe(1);
      }
    }
    const r = run('validate', snapshot, '--max-file-size', '1Ki');
    expect(r.stderr).toMatch(/cluster\.yaml: file is .* KiB, larger than the 1\.0 KiB limit/);
    expect(r.status).toBe(1);
  }, 300_000);

  // issue 29, class 6: every file-reading option goes through the one reader
  it('--config, serve --cluster and sweep merge files: nesting checked, never a stack overflow', () => {
    const deepConfig = file(
      'deep-config.yaml',
      `apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`,
    );
    const deep = file('deep-list.yaml', `${'['.repeat(20_000)}${']'.repeat(20_000)}\n`);
    const cases: [string[], string][] = [
      [
        ['plan', '--cluster', snapshot, '--pod', pod, '--config', deepConfig],
        `${deepConfig}:3:110: nested deeper than ${LIMITS.depth} levels`,
      ],
      [
        ['explain', '--cluster', snapshot, '--pod', pod, '--config', deepConfig],
        `${deepConfig}:3:110: nested deeper`,
      ],
      [['serve', '--cluster', deep, '--port', '0'], `${deep}:1:101: nested deeper`],
      [['sweep', 'merge', deep], `${deep}:1:101: nested deeper`],
    ];
    for (const [args, message] of cases) {
      const r = run(...args);
      expect(r.stderr, args.join(' ')).toContain(message);
      expect(r.stderr).not.toMatch(/Maximum call stack|\n\s+at /);
      expect(r.status, args.join(' ')).toBe(1);
    }
  }, 300_000);

  it('a 50 MB string is refused on the parser tokens, within 8× the input in heap (YAML and JSON)', () => {
    const s = 'x'.repeat(50 * 1024 * 1024);
    const yaml = file(
      'big.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  k: "${s}"\n`,
    );
    const json = file(
      'big.json',
      `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"k":"${s}"}}`,
    );
    for (const [f, at] of [
      [yaml, '5:6'],
      [json, '1:77'],
    ]) {
      // the YAML composer needed ~2 GB for this file: with a 400 MB heap it would die of OOM
      const r = spawnSync(process.execPath, ['--max-old-space-size=400', cli, 'validate', f!], {
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(r.stderr).toContain(
        `kubesim: ${f}:${at}: a string of 50.0 MiB, longer than the 3.0 MiB kube-apiserver accepts in one request`,
      );
      expect(r.status).toBe(1);
    }
  }, 300_000);
});

// Hostile user plugins (test/fixtures/plugins/hostile) through the real CLI: each must end in a
// clear one-line error naming the plugin, the pod and the reason, with exit status 1, no output,
// no stack trace, and no hang or crash (generous process timeouts: behaviour, not speed). Two
// plugins that break the rules without failing (sloppy writes to their arguments, a WASM module
// zeroing its node table) must leave the plan exactly as it is without them.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/util/paths.js';
// @ts-expect-error plain .mjs build helper without types
import { buildBinpack } from '../../../examples/plugins/wasm-binpack/build.mjs';

const root = packageRoot();
const cli = join(root, 'dist', 'src', 'cli', 'index.js');
const H = 'test/fixtures/plugins/hostile';
const CLUSTER = ['--cluster', 'examples/snapshot/cluster.yaml'];
const POD = ['--pod', 'examples/snapshot/pod-api.yaml'];

function kubesim(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  // ended by itself (not by the timeout), without a stack trace or a V8 crash
  expect(r.signal).toBeNull();
  expect(r.stderr).not.toMatch(/\n\s+at |FATAL|Segmentation|Aborted/);
  return r;
}

/** the command failed with one error line naming the plugin and matching `reason` */
function failsWith(r: ReturnType<typeof kubesim>, plugin: string, reason: RegExp, point = 'Score') {
  expect(r.stdout).toBe('');
  expect(r.status).toBe(1);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(
    new RegExp(`^kubesim: running ${point} plugin "${plugin}" for pod shop/api(-0)?: `),
  );
  expect(lines[0]).toMatch(reason);
}

let wasmDir = '';
const wasm = (name: string) => join(wasmDir, `${name}.wasm`);

beforeAll(async () => {
  wasmDir = mkdtempSync(join(tmpdir(), 'kubesim-hostile-'));
  for (const name of ['loop', 'grow', 'overwrite'])
    await buildBinpack(wasm(name), join(root, H, 'wasm', `${name}.ts`));
});
afterAll(() => rmSync(wasmDir, { recursive: true, force: true }));

describe.skipIf(!existsSync(cli))('hostile plugins through the CLI', () => {
  const plan = (...args: string[]) => kubesim('plan', ...CLUSTER, ...POD, '--no-progress', ...args);

  // files are functions: the WASM ones are built in beforeAll
  const cases: [() => string[], string, RegExp, string?][] = [
    [() => [`${H}/loop.ts`], 'Loop', /a call ran longer than 1000 ms and was stopped \(--plugin-timeout/],
    [
      () => [`${H}/grow-memory.mjs`, '--plugin-memory', '64', '--plugin-timeout', '60000'],
      'GrowMemory',
      /ran out of memory: its JavaScript heap reached the 64 MiB limit \(--plugin-memory\)/,
    ],
    [
      () => [`${H}/exit.mjs`],
      'Exit',
      /score on node "[^"]+": called process\.exit\(0\); a plugin cannot end kubesim/,
    ],
    [() => [`${H}/nan.mjs`], 'NaNScore', /returned NaN, not a finite number/],
    [() => [`${H}/promise.mjs`], 'PromiseScore', /returned a Promise \(plugins run synchronously/],
    [() => [`${H}/string.mjs`], 'StringScore', /returned a string "50", not a finite number/],
    [() => [`${H}/huge.mjs`], 'HugeScore', /returned 1000000000, outside \[0, 100\]/],
    [() => [`${H}/filter-number.mjs`], 'FilterNumber', /returned number 1; expected undefined/, 'Filter'],
    [
      () => [`${H}/mutate.mjs`],
      'Mutate',
      /not extensible \(the pod, node and pods a plugin is given are read-only\)/,
    ],
    [() => [`${H}/throw.mjs`], 'Throw', /score on node "[^"]+": boom/],
    [() => [wasm('loop')], 'loop', /a call ran longer than 1000 ms and was stopped/],
    [
      () => [wasm('grow'), '--plugin-memory', '32'],
      'grow',
      /grew its memory to the limit: 32 MiB beyond its copy of the node table/,
    ],
  ];
  for (const [args, name, reason, point] of cases)
    it(`plan: plugin "${name}" fails with its name and the reason`, () => {
      const [file, ...flags] = args();
      failsWith(plan('--plugin', file, ...flags), name, reason, point);
    });

  it('plan: a plugin calling process.exit when imported is a load error naming the file', () => {
    const r = plan('--plugin', `${H}/exit-at-load.mjs`);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^kubesim: --plugin \S+exit-at-load\.mjs: cannot import \S+: called process\.exit\(0\); a plugin cannot end kubesim\n$/,
    );
  });

  it('plan: writes to frozen arguments (sloppy mode) and a zeroed WASM table change nothing', () => {
    const base = plan();
    expect(base.status).toBe(0);
    for (const file of [`${H}/mutate-sloppy.cjs`, wasm('overwrite')]) {
      const r = plan('--plugin', file);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(base.stdout);
    }
  });

  it('schedule and explain fail the same way; strategies too', () => {
    failsWith(kubesim('schedule', ...CLUSTER, ...POD, '--plugin', `${H}/loop.ts`), 'Loop', /ran longer than/);
    failsWith(kubesim('explain', ...CLUSTER, ...POD, '--plugin', `${H}/exit.mjs`), 'Exit', /process\.exit/);
    failsWith(kubesim('explain', ...CLUSTER, ...POD, '--plugin', wasm('loop')), 'loop', /ran longer than/);
    failsWith(
      kubesim('strategies', ...CLUSTER, ...POD, '--no-progress', '--strategy', `plugin:${H}/nan.mjs`),
      'NaNScore',
      /returned NaN/,
    );
  });

  it("--plugin-errors=continue fails only the pod's cycle, runs the plugin again for the next pod, and warns", () => {
    const r = kubesim(
      'schedule',
      ...CLUSTER,
      '--pod',
      'examples/snapshot/pod-api.yaml',
      'examples/snapshot/pod-api.yaml',
      '--plugin',
      `${H}/loop.ts`,
      '--plugin-timeout',
      '200',
      '--plugin-errors',
      'continue',
      '-o',
      'json',
    );
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { placements: { result: string; message?: string }[] };
    // both cycles ran the plugin (a fresh worker for the second) and failed with its name
    expect(out.placements.map((p) => p.result)).toEqual(['Error', 'Error']);
    for (const p of out.placements)
      expect(p.message).toMatch(
        /^running Score plugins: plugin "Loop" failed with: a call ran longer than 200 ms/,
      );
    expect(r.stderr).toMatch(
      /^kubesim: warning: plugin "Loop" failed 2 scheduling cycle\(s\); the first: running Score plugin "Loop" for pod shop\/api/,
    );
  });

  it('bad limit flags are usage errors', () => {
    const r = plan('--plugin', 'examples/plugins/binpack.mjs', '--plugin-errors', 'ignore');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--plugin-errors: unknown mode "ignore" \(expected fail or continue\)/);
    expect(plan('--plugin', 'examples/plugins/binpack.mjs', '--plugin-memory', '1').stderr).toMatch(
      /--plugin-memory: expected an integer in 16\.\.16384, got "1"/,
    );
  });
});

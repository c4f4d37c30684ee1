// Where the compiled package finds its WASM kernels, and what happens when one is missing: a copy of
// the built package (package.json, dist/, build/ — what `npm pack` ships, without asconfig.json or
// any other repository file) in a temp folder, driven through the public paths (the library's
// planCapacity and the CLI's plan). A missing kernel must be an error, never "0 fit".
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/util/paths.js';

const root = packageRoot();
const built = existsSync(join(root, 'dist', 'src', 'cli', 'index.js'));
const fx = (f: string) => join(root, 'examples', 'snapshot', f);

describe.skipIf(!built)('compiled package outside the repository', () => {
  let dir = '';
  const node = (...args: string[]) =>
    spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  const plan = () =>
    node(
      join(dir, 'dist', 'src', 'cli', 'index.js'),
      'plan',
      '--cluster',
      fx('cluster.yaml'),
      '--pod',
      fx('pod-api.yaml'),
      '-o',
      'json',
    );

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kubesim-pkg-'));
    cpSync(join(root, 'package.json'), join(dir, 'package.json'));
    cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true });
    cpSync(join(root, 'build'), join(dir, 'build'), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds build/*.wasm beside dist/ without asconfig.json and answers with the WASM kernel', () => {
    const r = plan();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).shapes[0].fits).toBe(15);
  });

  it('a missing kernel fails the library call and the CLI with a clear error, never 0 fits', () => {
    rmSync(join(dir, 'build', 'scheduler.wasm'));
    const script = join(dir, 'lib.mjs');
    writeFileSync(
      script,
      `import { planCapacity } from 'kubesim/capacity';
import { loadClusterFiles } from 'kubesim/scheduler';
import { loadManifests } from 'kubesim/api';
const cluster = await loadClusterFiles([${JSON.stringify(fx('cluster.yaml'))}]);
const [{ object: pod }] = await loadManifests([${JSON.stringify(fx('pod-api.yaml'))}]);
try {
  const r = planCapacity(cluster, [pod], { kernel: 'wasm' });
  console.log('answered', r.shapes[0].fits, r.shapes[0].stopReason);
} catch (e) {
  console.log(e.name + ': ' + e.message);
}
`,
    );
    const lib = node(script);
    expect(lib.stderr).toBe('');
    expect(lib.stdout).toMatch(/^KernelLoadError: WASM kernel \S+scheduler\.wasm is missing/);

    const cli = plan();
    expect(cli.status).toBe(1);
    expect(cli.stdout).toBe('');
    expect(cli.stderr).toMatch(/^kubesim: WASM kernel \S+scheduler\.wasm is missing; .*reinstall kubesim\n$/);
  });
});

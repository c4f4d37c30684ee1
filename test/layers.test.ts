// The dependency direction of docs/ARCHITECTURE.md holds: scripts/check-layers.mjs finds no import
// running upward and no import circle between files (it also runs on its own in .ci/run, printing
// the area-to-area import counts). The check itself is shown to fail on a small tree that breaks
// each rule.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { packageRoot } from '../src/util/paths.js';

const check = (...args: string[]) =>
  spawnSync(process.execPath, [join(packageRoot(), 'scripts', 'check-layers.mjs'), ...args], {
    encoding: 'utf8',
  });

it('no import in src/ runs upward and none closes a circle', () => {
  const r = check();
  expect(r.stdout).toMatch(/ok: no import runs upward; no import circle between the \d+ files of src\//);
  expect(r.status).toBe(0);
});

const tmp = mkdtempSync(join(tmpdir(), 'kubesim-layers-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function tree(name: string, files: Record<string, string>): string {
  const dir = join(tmp, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

it('fails on a circle, type-only imports and import() types included, naming the files in order', () => {
  const dir = tree('circle', {
    'src/server/rest.ts': "import { serveWatch } from './watch.js';\nexport type Request = { n: number };\n",
    'src/server/watch.ts': "export const serveWatch = (r: import('./rest.js').Request) => r.n;\n",
  });
  const r = check('--root', dir);
  expect(r.status).toBe(1);
  expect(r.stdout).toContain(
    'circle (2 files): src/server/rest.ts → src/server/watch.ts → src/server/rest.ts',
  );
});

it('fails on an import that runs upward: the kubelet may not import the simulation', () => {
  const dir = tree('upward', {
    'src/kubelet/kubelet.ts':
      "import { simulate } from '../sim/simulation.js';\nexport const k = simulate;\n",
    'src/sim/simulation.ts': 'export const simulate = 1;\n',
  });
  const r = check('--root', dir);
  expect(r.status).toBe(1);
  expect(r.stdout).toContain('upward: kubelet → sim: sim is above kubelet');
  expect(r.stdout).toContain('src/kubelet/kubelet.ts:1 imports ../sim/simulation.js');
});

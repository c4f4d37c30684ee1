// The dependency direction of docs/ARCHITECTURE.md holds: scripts/check-layers.mjs finds no import
// running upward (it also runs on its own in .ci/run, printing the area-to-area import counts).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { packageRoot } from '../src/util/paths.js';

it('no import in src/ runs upward', () => {
  const r = spawnSync(process.execPath, [join(packageRoot(), 'scripts', 'check-layers.mjs')], {
    encoding: 'utf8',
  });
  expect(r.stdout).toMatch(/ok: no import runs upward/);
  expect(r.status).toBe(0);
});

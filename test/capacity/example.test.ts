import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/util/paths.js';

const root = packageRoot();
const built = existsSync(join(root, 'dist', 'src', 'capacity', 'planner.js'));

describe.skipIf(!built)('README library example (examples/library/capacity.mjs)', () => {
  it('runs and prints the hand-checked answers', () => {
    const r = spawnSync(process.execPath, [join(root, 'examples', 'library', 'capacity.mjs')], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('shop/api: 15 more replicas fit (eu-west-1a=4, eu-west-1b=10, eu-west-1c=1)');
    expect(r.stdout).toContain('after losing eu-west-1b: 5 fit; 1 displaced pod(s) find no room');
    // 15 + 8k ≥ 40 → k = 4 nodes like b-2 (8 CPU each, shape 1 CPU)
    expect(r.stdout).toContain('for 40 replicas add 4 node(s) like b-2');
  });
});

// Loading user plugins from files (loadUserPlugin, what --plugin calls): TypeScript compiled at
// load with its relative imports, package imports and import.meta.url intact; clear errors that
// name the file (and line and column for syntax).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Node, Pod } from '../../../src/api/types.js';
import { loadUserPlugin } from '../../../src/scheduler/plugins/user.js';
import type { Plugin, ScorePlugin } from '../../../src/scheduler/framework/types.js';
import { makeNode, makePod } from '../../helpers/builders.js';

let dir = '';
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const node = (cpu: string): Node => makeNode('n').allocatable({ cpu }).obj();
const pod: Pod = makePod('p').containers().obj();
const score = (p: Plugin, n: Node) =>
  (p as ScorePlugin).score(undefined as never, pod, { node: n, pods: [] } as never) as number;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kubesim-plugin-'));
  mkdirSync(join(dir, 'lib'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadUserPlugin', () => {
  it('a .ts plugin with a relative .ts import (written NodeNext-style as .js), a kubesim import and import.meta.url', async () => {
    file('lib/weights.ts', 'export const per: number = 100;\n');
    const path = file(
      'cpu.ts',
      `import { cpuMillis } from 'kubesim/api';
import type { ScorePluginDef } from 'kubesim/scheduler';
import { per } from './lib/weights.js';
// named after its own file, through import.meta.url
const name = new URL(import.meta.url).pathname.endsWith('/cpu.ts') ? 'Cpu' : import.meta.url;
const plugin: ScorePluginDef = { name, score: (_p, n) => cpuMillis(n.status?.allocatable?.cpu ?? 0) / per };
export default plugin;
`,
    );
    const loaded = await loadUserPlugin(`${path}:7`);
    expect(loaded).toMatchObject({ name: 'Cpu', weight: 7, isScore: true, isFilter: false });
    const plugin = loaded.factory(undefined, {} as never);
    expect(score(plugin, node('2500m'))).toBe(25);
  });

  it('.mjs and .cjs plugins load as they are', async () => {
    const mjs = file('a.mjs', "export default { name: 'A', score: () => 1 };\n");
    const cjs = file('b.cjs', "module.exports = { plugin: { name: 'B', filter: () => 'never' } };\n");
    expect(await loadUserPlugin(mjs)).toMatchObject({ name: 'A', weight: 1, isScore: true });
    expect(await loadUserPlugin(cjs)).toMatchObject({ name: 'B', isScore: false, isFilter: true });
  });

  it('a syntax error names the file, line and column', async () => {
    const path = file('broken.ts', 'const x: number = ;\nexport default { name: "x" };\n');
    await expect(loadUserPlugin(path)).rejects.toThrow(
      `--plugin ${path}: cannot compile ${path}: ${path}:1:19: Unexpected ";"`,
    );
  });

  it('a package that cannot be found names it', async () => {
    const path = file(
      'missing.ts',
      "import { x } from 'no-such-package-kubesim';\nexport default { name: 'M', score: () => x };\n",
    );
    await expect(loadUserPlugin(path)).rejects.toThrow(/Could not resolve "no-such-package-kubesim"/);
  });

  it('a module without the plugin export says what it needs', async () => {
    const path = file('empty.ts', 'export const unrelated = 1;\n');
    await expect(loadUserPlugin(path)).rejects.toThrow(
      `--plugin ${path}: the module has no default (or "plugin") export with {name, score, filter}`,
    );
  });
});

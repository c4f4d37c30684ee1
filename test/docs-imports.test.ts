// Library use as the README and docs/ show it works from the package: every import in their code
// blocks names kubesim by package name and a subpath package.json exports (never src/ or dist/
// paths, which an installed package does not resolve), and every name it imports exists in that
// module as built (checked in a plain Node process, through the package's self-reference).
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { packageRoot } from '../src/util/paths.js';

const root = packageRoot();
const built = existsSync(join(root, 'dist', 'src', 'index.js'));

interface DocImport {
  where: string;
  spec: string;
  names: string[];
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownFiles(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
}

/** Imports inside ```ts / ```js / ```mjs blocks: `import { a, b as c, type T } from '…'`. */
function docImports(file: string): DocImport[] {
  const text = readFileSync(file, 'utf8');
  const out: DocImport[] = [];
  const block = /```(?:ts|typescript|js|javascript|mjs)\n([\s\S]*?)```/g;
  for (let b = block.exec(text); b; b = block.exec(text)) {
    const code = b[1];
    const imp = /import\s+(type\s+)?([\s\S]*?)\s+from\s+['"]([^'"]+)['"]/g;
    for (let m = imp.exec(code); m; m = imp.exec(code)) {
      const line = text.slice(0, b.index + b[0].indexOf(code) + m.index).split('\n').length;
      const braces = /\{([\s\S]*)\}/.exec(m[2]);
      const names =
        m[1] || !braces
          ? []
          : braces[1]
              .replace(/\/\/.*$/gm, '')
              .split(',')
              .map((n) => n.trim())
              .filter((n) => n && !n.startsWith('type '))
              .map((n) => n.split(/\s+as\s+/)[0]);
      out.push({ where: `${relative(root, file)}:${line}`, spec: m[3], names });
    }
  }
  return out;
}

const imports = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))].flatMap(docImports);
const exportsMap = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).exports as Record<
  string,
  unknown
>;
const subpath = (spec: string) => (spec === 'kubesim' ? '.' : `./${spec.slice('kubesim/'.length)}`);
const isPackage = (spec: string) => spec === 'kubesim' || spec.startsWith('kubesim/');

describe('imports shown in README.md and docs/', () => {
  it('name kubesim by a subpath package.json exports, not a file of the repository', () => {
    const bad = imports
      .filter((i) =>
        isPackage(i.spec) ? !(subpath(i.spec) in exportsMap) : /^\.{0,2}\/(src|dist)\//.test(i.spec),
      )
      .map((i) => `${i.where}: ${i.spec}`);
    expect(bad).toEqual([]);
    expect(imports.filter((i) => isPackage(i.spec)).length).toBeGreaterThan(10);
  });

  it.skipIf(!built)('import names the built modules export', () => {
    const wanted = imports.filter(
      (i) => isPackage(i.spec) && subpath(i.spec) in exportsMap && i.names.length,
    );
    const script = `
      const wanted = JSON.parse(process.env.WANTED);
      const missing = [];
      for (const w of wanted) {
        const mod = await import(w.spec);
        for (const n of w.names) if (!(n in mod)) missing.push(w.where + ': ' + n + ' from ' + w.spec);
      }
      console.log(JSON.stringify(missing));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, WANTED: JSON.stringify(wanted) },
      timeout: 60_000,
    });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([]);
  });
});

#!/usr/bin/env node
// Compiles every top-level assembly/*.ts entry (one file per kernel family) to build/<name>.wasm.
// Files under assembly/lib/ are shared helpers imported by the entries, not entries themselves.
// A full build also compiles the example WASM plugin (examples/plugins/wasm-binpack), which the
// package ships built.
// Usage: node scripts/build-wasm.mjs [--target debug|release] [name ...]
import { readdirSync, mkdirSync, statSync, existsSync } from 'node:fs';
import { join, dirname, basename, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import asc from 'assemblyscript/asc';
import { buildBinpack } from '../examples/plugins/wasm-binpack/build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
let target = 'release';
const ti = args.indexOf('--target');
if (ti >= 0) {
  target = args[ti + 1];
  args.splice(ti, 2);
}
const only = new Set(args);
const entries = readdirSync(join(root, 'assembly'))
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && statSync(join(root, 'assembly', f)).isFile())
  .map((f) => basename(f, '.ts'))
  .filter((n) => only.size === 0 || only.has(n));
mkdirSync(join(root, 'build'), { recursive: true });
let failed = 0;
for (const name of entries) {
  const suffix = target === 'release' ? '' : `.${target}`;
  // a kernel that needs extra options (e.g. an imported memory) ships assembly/<name>.asconfig.json,
  // which "extends" the shared ../asconfig.json
  const own = join('assembly', `${name}.asconfig.json`);
  const config = existsSync(join(root, own)) ? own : 'asconfig.json';
  const { error, stderr } = await asc.main(
    [
      join('assembly', `${name}.ts`),
      '--config',
      config,
      '--target',
      target,
      '--outFile',
      join('build', `${name}${suffix}.wasm`),
    ],
    { stdout: process.stdout, stderr: process.stderr },
  );
  if (error) {
    failed++;
    console.error(`build-wasm: ${name}: ${error.message}\n${stderr.toString()}`);
  } else console.log(`build-wasm: build/${name}${suffix}.wasm (${target})`);
}
if (only.size === 0 && target === 'release') {
  try {
    console.log(`build-wasm: ${relative(root, await buildBinpack())} (example plugin)`);
  } catch (e) {
    failed++;
    console.error(e.message);
  }
}
process.exit(failed ? 1 : 0);

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where kubesim's own files are, computed from this module's location and nothing else (no marker
 * file: an installed package holds only what package.json's `files` lists).
 *
 * This module runs from one of two places, whose depths differ:
 *   source (vitest, tsx)   <root>/src/util/paths.ts
 *   compiled (the package) <root>/dist/src/util/paths.js
 * `tsc` emits .js only into dist/, so the extension tells which.
 */
const here = dirname(fileURLToPath(import.meta.url));
const compiled = !import.meta.url.endsWith('.ts');
const root = join(here, compiled ? '../../..' : '../..');

/** The package root: the folder holding kubesim's package.json, build/ and examples/. */
export function packageRoot(): string {
  return root;
}

/** Absolute path of a compiled WASM module, build/<name>.wasm (built by `npm run build:wasm`). */
export function wasmPath(name: string): string {
  return join(root, 'build', `${name}.wasm`);
}

/**
 * Absolute path of the compiled JavaScript of a module under src/ (e.g. 'capacity/pool-worker'),
 * for worker threads, which need JavaScript also when the caller runs from the TypeScript sources.
 */
export function compiledModulePath(srcRelative: string): string {
  return join(root, 'dist', 'src', `${srcRelative}.js`);
}

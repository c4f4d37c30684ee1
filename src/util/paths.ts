import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cachedRoot: string | undefined;

/**
 * The package root (the folder holding kubesim's package.json), found by walking up from this
 * module. Works the same from src/ under vitest and from dist/src/ after `tsc`, whose depths differ.
 */
export function packageRoot(): string {
  if (cachedRoot) return cachedRoot;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'asconfig.json')))
      return (cachedRoot = dir);
    const up = dirname(dir);
    if (up === dir)
      throw new Error(
        'kubesim: cannot find the package root (package.json + asconfig.json) above ' +
          fileURLToPath(import.meta.url),
      );
    dir = up;
  }
}

/** Absolute path of a compiled WASM module, build/<name>.wasm (built by `npm run build:wasm`). */
export function wasmPath(name: string): string {
  return join(packageRoot(), 'build', `${name}.wasm`);
}

import { readFileSync, existsSync } from 'node:fs';
import { wasmPath } from './paths.js';

const compiled = new Map<string, WebAssembly.Module>();

/**
 * Compiles build/<name>.wasm once per process (and per worker thread) and caches the module;
 * each call to {@link instantiateKernel} then gets a fresh instance with its own linear memory.
 * A missing file is a clear error that says how to build it, not an ENOENT stack trace.
 */
export function compiledKernel(name: string): WebAssembly.Module {
  let mod = compiled.get(name);
  if (!mod) {
    const file = wasmPath(name);
    if (!existsSync(file))
      throw new Error(`kubesim: WASM kernel ${file} is missing; run \`npm run build:wasm\``);
    mod = new WebAssembly.Module(readFileSync(file));
    compiled.set(name, mod);
  }
  return mod;
}

/**
 * Seeds the cache with a module compiled elsewhere — a worker thread receives the main thread's
 * compiled WebAssembly.Module through workerData, so a pool compiles each kernel once, not per worker.
 */
export function registerCompiledKernel(name: string, module: WebAssembly.Module): void {
  compiled.set(name, module);
}

/** Every kernel compiled so far in this thread (to hand to workers). */
export function compiledKernels(): Map<string, WebAssembly.Module> {
  return new Map(compiled);
}

/** Instantiates a kernel module built with `--runtime stub` (it imports only `env.abort`). */
export function instantiateKernel<T extends WebAssembly.Exports>(
  name: string,
  module = compiledKernel(name),
): T {
  const instance = new WebAssembly.Instance(module, {
    env: {
      abort(_msg: number, _file: number, line: number, col: number): never {
        throw new Error(`kubesim: WASM kernel ${name} aborted at ${line}:${col}`);
      },
      seed: () => 0,
    },
  });
  return instance.exports as T;
}

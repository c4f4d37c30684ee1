import { readFileSync, existsSync } from 'node:fs';
import { wasmPath } from './paths.js';

const compiled = new Map<string, WebAssembly.Module>();
const REBUILD =
  'in a source checkout run `npm run build:wasm`; an installed package ships it, so reinstall kubesim';

/**
 * A kernel that cannot be loaded (missing or invalid build/<name>.wasm). It is a fault of the
 * installation, never an answer: the scheduling framework rethrows it instead of turning it into a
 * node's or a pod's status, so a plan cannot report "0 fit" because its kernel is missing.
 */
export class KernelLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KernelLoadError';
  }
}

/**
 * Compiles build/<name>.wasm once per process (and per worker thread) and caches the module;
 * each call to {@link instantiateKernel} then gets a fresh instance with its own linear memory.
 * A missing or invalid file is a {@link KernelLoadError} that names it and says how to build it.
 */
export function compiledKernel(name: string): WebAssembly.Module {
  let mod = compiled.get(name);
  if (!mod) {
    const file = wasmPath(name);
    if (!existsSync(file)) throw new KernelLoadError(`WASM kernel ${file} is missing; ${REBUILD}`);
    try {
      mod = new WebAssembly.Module(readFileSync(file));
    } catch (e) {
      throw new KernelLoadError(
        `WASM kernel ${file} cannot be compiled (${(e as Error).message}); ${REBUILD}`,
      );
    }
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

const PAGE = 65536;

/**
 * A kernel's linear memory as bytes, grown on demand. A grown memory gets a new ArrayBuffer (the
 * old one is detached), so the view is made again after a grow; callers take the view `ensure`
 * returns and never keep one across calls.
 */
export class LinearBytes {
  private view: Buffer;

  constructor(private readonly memory: WebAssembly.Memory) {
    this.view = Buffer.from(memory.buffer);
  }

  /** The whole memory as bytes (a Buffer: strings can be written into it), grown first to at least `bytes` bytes. */
  ensure(bytes: number): Buffer {
    const mem = this.memory;
    if (mem.buffer.byteLength < bytes) mem.grow(Math.ceil((bytes - mem.buffer.byteLength) / PAGE));
    if (this.view.buffer !== mem.buffer) this.view = Buffer.from(mem.buffer);
    return this.view;
  }
}

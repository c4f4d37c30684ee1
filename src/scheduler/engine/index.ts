/**
 * The scheduler engine's public surface: NodeTable, PodQuery compiler, kernels, outputs, reasons.
 *
 * ```
 * import { NodeTable, compilePod, resolveScoring, createKernel, KernelOutput } from './scheduler/engine/index.js';
 * ```
 */
import { JsKernel } from './js.js';
import { WasmKernel } from './wasm.js';
import type { KernelName } from './types.js';

export * from './types.js';
export { JsKernel, idiv, idivInv } from './js.js';
export { WasmKernel } from './wasm.js';
export { KernelOutput } from './output.js';
export { reasonStrings, failedPlugins, fitErrorMessage } from './reasons.js';
export { explainNode } from './explain.js';
export type { NodeRejection, InsufficientResource } from './explain.js';
export { NodeTable, podHostPorts } from './table.js';
export type { NodeTableOptions, HostPort } from './table.js';
export {
  compilePod,
  PodQuery,
  QueryArena,
  normalizedImageName,
  defaultArena,
} from './podquery.js';
export { PodQueryError } from './affinity.js';
export { resolveScoring, type ResolvedScoring } from './scoring.js';
export {
  podRequests,
  nonZeroCpuMem,
  nodeAllocatable,
  ResourceParseError,
  DEFAULT_MILLI_CPU_REQUEST,
  DEFAULT_MEMORY_REQUEST,
} from './resources.js';

/** A kernel by name: 'js' (reference) or 'wasm' (needs build/scheduler.wasm; `npm run build:wasm`). */
export function createKernel(name: KernelName): JsKernel | WasmKernel {
  switch (name) {
    case 'js':
      return new JsKernel();
    case 'wasm':
      return new WasmKernel();
    default:
      throw new TypeError(`unknown scheduler kernel ${JSON.stringify(name)} (expected js or wasm)`);
  }
}

/** Golden-trace replay and comparison (format: etcd-golden-trace/v1). */
export * from './format.js';
export {
  parseTrace,
  MAX_TRACE_DEPTH,
  MAX_TRACE_OPS,
  MAX_SLEEP_MS,
  MAX_TRACE_TIME_MS,
} from './validate.js';
export { loadTrace, MAX_TRACE_BYTES } from './load.js';
export { replayTrace, type ReplayHooks, type ReplayOptions } from './replay.js';
export {
  compareTrace,
  formatDifferences,
  type CompareOptions,
  type TraceDifference,
} from './compare.js';
export { replayOnMemory, memoryStoreForTrace, manualClockHooks } from './memory.js';

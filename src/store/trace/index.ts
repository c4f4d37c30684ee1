/** Golden-trace replay and comparison (format: etcd-golden-trace/v1). */
export * from './format.js';
export { replayTrace, type ReplayHooks, type ReplayOptions } from './replay.js';
export {
  compareTrace,
  matchValue,
  formatDifferences,
  type CompareOptions,
  type TraceDifference,
} from './compare.js';
export { replayOnMemory, memoryStoreForTrace, manualClockHooks } from './memory.js';

/** The store layer: the KvStore contract, the in-memory MVCC implementation, key-range helpers. */
export * from './types.js';
export { MemoryStore, compareBytes, type MemoryStoreOptions } from './memory/store.js';
export { MIN_LEASE_TTL_SECONDS, MAX_LEASE_TTL_SECONDS } from './memory/lessor.js';
export { MAX_REVISIONS_PER_BATCH } from './memory/watch-hub.js';
export { prefixEnd, FROM_KEY, upperBound, inRange } from './keyrange.js';
export { keyBytes, keyFromBytes, compareKeys } from './keybytes.js';
export {
  parseTrace,
  loadTrace,
  MAX_TRACE_BYTES,
  MAX_TRACE_DEPTH,
  MAX_TRACE_OPS,
  MAX_SLEEP_MS,
  MAX_TRACE_TIME_MS,
  replayTrace,
  compareTrace,
  formatDifferences,
  replayOnMemory,
  memoryStoreForTrace,
  manualClockHooks,
  TRACE_FORMAT,
  TraceFormatError,
  type GoldenTrace,
  type TraceOp,
  type TraceResult,
  type ReplayHooks,
  type ReplayOptions,
  type CompareOptions,
  type TraceDifference,
} from './trace/index.js';

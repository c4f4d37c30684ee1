/** One cluster's node scan sharded across worker threads over shared memory (docs/scheduler-shard.md). */
export { ShardedScheduler, ShardError, assertShardingAvailable, type ShardOptions } from './sharded.js';
export { ReferenceScheduler, type ReferenceOptions } from './reference.js';
export { mergeAndSelect, type MergeRecord } from './merge.js';

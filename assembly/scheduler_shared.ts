// The scheduler kernel (assembly/scheduler.ts) compiled for an imported SHARED memory
// (assembly/scheduler_shared.asconfig.json: --sharedMemory, threads), so worker threads can run it
// over one NodeTable (src/scheduler/shard). Same source, same semantics; only the memory type differs.
export * from './scheduler';

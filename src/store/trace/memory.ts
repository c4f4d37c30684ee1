/**
 * Replaying a golden trace on the in-memory store: a fresh MemoryStore on a ManualClock, configured
 * with the limits the trace was recorded with, and hooks that move the virtual clock instead of
 * waiting (leaseExpire advances to the lease's expiry, sleep advances by its milliseconds).
 */
import { ManualClock } from '../../util/clock.js';
import { MemoryStore } from '../memory/store.js';
import type { LeaseId } from '../types.js';
import { parseDurationMs, type GoldenTrace, type TraceResult } from './format.js';
import { replayTrace, type ReplayHooks, type ReplayOptions } from './replay.js';

/** Hooks that drive a MemoryStore's ManualClock. */
export function manualClockHooks(store: MemoryStore, clock: ManualClock): ReplayHooks {
  return {
    async expireLease(id: LeaseId) {
      const at = store.leaseExpiry(id);
      if (at !== undefined) clock.advanceTo(at);
      await store.settle();
    },
    async sleep(ms: number) {
      clock.advance(ms);
      await store.settle();
    },
    settle: () => store.settle(),
  };
}

/** A MemoryStore set up like the etcd that recorded `trace` (progress interval, lease minimum, max txn ops). */
export function memoryStoreForTrace(trace: GoldenTrace, clock = new ManualClock()): MemoryStore {
  const limits = trace.recordedWith?.limits ?? {};
  const interval = limits.progressNotifyInterval ? parseDurationMs(limits.progressNotifyInterval) : undefined;
  return new MemoryStore({
    clock,
    progressNotifyIntervalMs: interval ?? 1000,
    minLeaseTtlSeconds: limits.minLeaseTTLSeconds ?? 2,
    maxTxnOps: limits.maxTxnOps ?? 128,
  });
}

/** Replay `trace` on a fresh MemoryStore with a virtual clock. */
export async function replayOnMemory(trace: GoldenTrace, opts: ReplayOptions = {}): Promise<TraceResult> {
  const clock = new ManualClock();
  const store = memoryStoreForTrace(trace, clock);
  try {
    return await replayTrace(store, trace, manualClockHooks(store, clock), opts);
  } finally {
    await store.close();
  }
}

/**
 * Recording golden traces on a real etcd: launch a fresh etcd (empty, revision 1), replay an op
 * sequence through EtcdStore with the generic trace replayer (src/store/trace), and wrap the
 * answers as an `etcd-golden-trace/v1` document. The same hooks replay a recorded trace on etcd
 * again (test/store/etcd-replay.test.ts).
 */
import { replayTrace, type ReplayHooks, type ReplayOptions } from '../trace/replay.js';
import { TRACE_FORMAT, type GoldenTrace, type TraceOp, type TraceResult } from '../trace/format.js';
import { readTraceJson } from '../trace/load.js';
import { parseTrace } from '../trace/validate.js';
import type { KvStore, LeaseId } from '../types.js';
import { EtcdStore } from './etcd-store.js';
import { launchEtcd, type LaunchEtcdOptions, type LaunchedEtcd } from './launcher.js';
import type { TraceOpSet } from './trace-ops.js';

/** The etcd limits the traces are recorded with (Debian etcd 3.4 defaults + a 1 s progress interval). */
export const RECORDING_LIMITS = {
  maxTxnOps: 128,
  minLeaseTTLSeconds: 2,
  maxLeaseTTLSeconds: 9_000_000_000,
  progressNotifyInterval: '1s',
} as const;

/** How far below the granted TTL a recorded `leaseTimeToLive.ttl` may be on replay (wall time passes). */
export const TTL_SLACK_SECONDS = 10;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Wraps a store so that the time of the last watch response is known (for {@link realTimeHooks}'s
 * settle); every call is passed through unchanged.
 */
export function observeWatchResponses(store: KvStore): { store: KvStore; lastResponseAt(): number } {
  let last = 0;
  const wrapped: KvStore = {
    range: (r) => store.range(r),
    put: (r) => store.put(r),
    deleteRange: (r) => store.deleteRange(r),
    txn: (r) => store.txn(r),
    compact: (r) => store.compact(r),
    watch: (r, on) =>
      store.watch(r, (resp) => {
        last = Date.now();
        on(resp);
      }),
    leaseGrant: (ttl, id) => store.leaseGrant(ttl, id),
    leaseRevoke: (id) => store.leaseRevoke(id),
    leaseKeepAlive: (id) => store.leaseKeepAlive(id),
    leaseTimeToLive: (id, o) => store.leaseTimeToLive(id, o),
    currentRevision: () => store.currentRevision(),
    close: () => store.close(),
  };
  return { store: wrapped, lastResponseAt: () => last };
}

/** Replay timing on a real etcd (see {@link realTimeHooks}). */
export const ETCD_SETTLE = {
  /** always wait this long: etcd syncs a catching-up watcher every 100 ms, so a watch created just before must get two rounds */
  minMs: 300,
  /** then until no watch response arrived for this long */
  quietMs: 300,
  /** give up after this long */
  maxMs: 10_000,
} as const;

/**
 * Replay hooks for a store on a real etcd: time passes for real.
 * - `expireLease` polls the lease's time-to-live until etcd reports it gone (etcd checks expiry
 *   every 500 ms and revokes through raft), then gives the revocation a moment to become visible;
 * - `settle` waits {@link ETCD_SETTLE}.minMs, then until no watch response arrived for quietMs.
 *   (Waiting only for quiet is not enough: a watcher created a moment ago that still has to catch
 *   up has sent nothing yet.) `lastResponseAt` comes from {@link observeWatchResponses}.
 */
export function realTimeHooks(store: KvStore, lastResponseAt: () => number, maxWaitMs = 30_000): ReplayHooks {
  return {
    async expireLease(id: LeaseId) {
      const deadline = Date.now() + maxWaitMs;
      for (;;) {
        const t = await store.leaseTimeToLive(id);
        if (t.ttl === -1) break;
        if (Date.now() > deadline)
          throw new Error(`lease ${id} did not expire within ${maxWaitMs} ms (ttl ${t.ttl})`);
        await sleep(t.ttl > 1 ? (t.ttl - 1) * 1000 : 100);
      }
      await sleep(100);
    },
    sleep,
    async settle() {
      const start = Date.now();
      await sleep(ETCD_SETTLE.minMs);
      while (Date.now() - lastResponseAt() < ETCD_SETTLE.quietMs && Date.now() - start < ETCD_SETTLE.maxMs)
        await sleep(25);
    },
  };
}

/** Replay `trace` on `store` (a store on a real etcd at revision 1) with {@link realTimeHooks}. */
export function replayOnEtcdStore(
  store: KvStore,
  trace: GoldenTrace,
  opts: ReplayOptions = {},
): Promise<TraceResult> {
  const observed = observeWatchResponses(store);
  return replayTrace(observed.store, trace, realTimeHooks(store, observed.lastResponseAt), opts);
}

/** Options of {@link recordTrace} and {@link replayOnEtcd}. */
export interface RecordOptions {
  /** how to launch the etcd (default: launchEtcd with a 1 s progress interval) */
  launch?: LaunchEtcdOptions;
  /** passed to the replayer (e.g. onOp for progress output) */
  replay?: ReplayOptions;
}

async function withFreshEtcd<T>(
  opts: RecordOptions,
  fn: (store: EtcdStore, etcd: LaunchedEtcd) => Promise<T>,
): Promise<T> {
  const etcd = await launchEtcd({
    progressNotifyInterval: RECORDING_LIMITS.progressNotifyInterval,
    ...opts.launch,
  });
  const store = new EtcdStore({ endpoints: etcd.endpoint });
  try {
    const rev = await store.currentRevision();
    if (rev !== 1) throw new Error(`fresh etcd at ${etcd.endpoint} is at revision ${rev}, expected 1`);
    return await fn(store, etcd);
  } finally {
    await store.close();
    await etcd.stop();
  }
}

/** Replay `trace` on a freshly launched etcd (revision 1) and return the answers; throws if etcd stopped answering. */
export function replayOnEtcd(trace: GoldenTrace, opts: RecordOptions = {}): Promise<TraceResult> {
  return withFreshEtcd(opts, async (store) => {
    const result = await replayOnEtcdStore(store, trace, opts.replay);
    assertEtcdAnswered(trace.name, trace.ops, result.expected);
    return result;
  });
}

/**
 * Replaces values that depend on wall time by matchers: the `ttl` of a live lease's
 * `leaseTimeToLive` becomes `{"$range": [grantedTTL - TTL_SLACK_SECONDS, grantedTTL]}`.
 */
export function addTimeMatchers(ops: TraceOp[], expected: unknown[]): unknown[] {
  return expected.map((answer, i) => {
    const op = ops[i]!;
    if (op.op !== 'leaseTimeToLive' || typeof answer !== 'object' || answer === null || 'error' in answer)
      return answer;
    const a = answer as { ttl: number; grantedTTL: number };
    if (a.ttl === -1) return answer;
    return { ...a, ttl: { $range: [Math.max(0, a.grantedTTL - TTL_SLACK_SECONDS), a.grantedTTL] } };
  });
}

/**
 * Throws if etcd stopped answering during a replay (gRPC UNAVAILABLE: it crashed or was killed):
 * such answers describe the transport, not etcd semantics, and must never become a golden trace.
 */
export function assertEtcdAnswered(name: string, ops: TraceOp[], expected: unknown[]): void {
  const i = expected.findIndex(
    (a) => typeof a === 'object' && a !== null && (a as { error?: { code?: number } }).error?.code === 14,
  );
  if (i >= 0) {
    throw new Error(
      `${name}: etcd stopped answering at ops[${i}] (${ops[i]?.op}): ${JSON.stringify((expected[i] as { error: unknown }).error)}; did it crash on ${JSON.stringify(ops[i])}?`,
    );
  }
}

/** Problems worth a look in a fresh recording (they end up in the trace's `warnings`). */
function recordingWarnings(result: TraceResult): string[] {
  const out: string[] = [];
  for (const [id, meta] of Object.entries(result.watchMeta)) {
    for (const e of meta.errors) out.push(`watcher ${id}: ${e}`);
    const seen = new Set<number>();
    for (const r of meta.responses) {
      for (const rev of r.eventRevisions) {
        if (seen.has(rev)) out.push(`watcher ${id}: revision ${rev} split across responses`);
        seen.add(rev);
      }
    }
  }
  return out;
}

/** Record `set` on a freshly launched real etcd and return the golden trace. */
export async function recordTrace(set: TraceOpSet, opts: RecordOptions = {}): Promise<GoldenTrace> {
  return withFreshEtcd(opts, async (store, etcd) => {
    const input: GoldenTrace = {
      format: TRACE_FORMAT,
      name: set.name,
      description: set.description,
      ops: set.ops,
    };
    parseTrace(input, set.name); // the ops must be valid before anything runs
    const result = await replayOnEtcdStore(store, input, opts.replay);
    assertEtcdAnswered(set.name, set.ops, result.expected);
    const progressFlag = etcd.args.indexOf('--experimental-watch-progress-notify-interval');
    return {
      format: TRACE_FORMAT,
      name: set.name,
      description: set.description,
      recordedWith: {
        etcdVersion: etcd.version,
        transport:
          'gRPC: etcd3 npm package (raw KV/Watch/Lease clients, no retries) through kubesim EtcdStore',
        server: `single member on 127.0.0.1, data dir ${etcd.dataDir.startsWith('/dev/shm/') ? 'on tmpfs' : 'on disk'}, started by kubesim launchEtcd (src/store/etcd/launcher.ts)`,
        limits: {
          ...RECORDING_LIMITS,
          progressNotifyInterval:
            progressFlag >= 0 ? etcd.args[progressFlag + 1]! : RECORDING_LIMITS.progressNotifyInterval,
        },
      },
      initialRevision: 1,
      opCount: set.ops.length,
      ops: set.ops,
      expected: addTimeMatchers(set.ops, result.expected),
      watchEvents: result.watchEvents,
      watchMeta: result.watchMeta,
      warnings: recordingWarnings(result),
    };
  });
}

/**
 * Reads an op sequence for recording: `{ "name", "description", "ops": [...] }`, or an existing
 * golden trace (its ops are recorded again). Errors name the file and the op.
 */
export function loadOpSet(file: string): TraceOpSet {
  const raw = readTraceJson(file);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Error(`${file}: expected a JSON object with "ops"`);
  const o = raw as Record<string, unknown>;
  const name = typeof o.name === 'string' ? o.name : file.replace(/^.*\//, '').replace(/\.json$/, '');
  const trace = parseTrace({ format: TRACE_FORMAT, name, ops: o.ops }, file);
  return { name, description: typeof o.description === 'string' ? o.description : '', ops: trace.ops };
}

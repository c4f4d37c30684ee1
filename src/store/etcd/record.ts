/**
 * Recording golden traces on a real etcd: launch a fresh etcd (empty, revision 1), replay an op
 * sequence through EtcdStore with the generic trace replayer (src/store/trace), and wrap the
 * answers as an `etcd-golden-trace/v1` document. The same hooks replay a recorded trace on etcd
 * again (test/store/etcd-replay.test.ts).
 */
import { readFileSync } from 'node:fs';
import { replayTrace, type ReplayHooks, type ReplayOptions } from '../trace/replay.js';
import { parseTrace, TRACE_FORMAT, type GoldenTrace, type TraceOp, type TraceResult } from '../trace/format.js';
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
 * Replay hooks for a store on a real etcd: time passes for real. `expireLease` polls the lease's
 * time-to-live until etcd reports it gone (etcd checks expiry every 500 ms and revokes through raft),
 * then gives the revocation a moment to become visible.
 */
export function realTimeHooks(store: KvStore, maxWaitMs = 30_000): ReplayHooks {
  return {
    async expireLease(id: LeaseId) {
      const deadline = Date.now() + maxWaitMs;
      for (;;) {
        const t = await store.leaseTimeToLive(id);
        if (t.ttl === -1) break;
        if (Date.now() > deadline) throw new Error(`lease ${id} did not expire within ${maxWaitMs} ms (ttl ${t.ttl})`);
        await sleep(t.ttl > 1 ? (t.ttl - 1) * 1000 : 100);
      }
      await sleep(100);
    },
    sleep,
  };
}

/** Options of {@link recordTrace} and {@link replayOnEtcd}. */
export interface RecordOptions {
  /** how to launch the etcd (default: launchEtcd with a 1 s progress interval) */
  launch?: LaunchEtcdOptions;
  /** passed to the replayer (e.g. onOp for progress output) */
  replay?: ReplayOptions;
}

async function withFreshEtcd<T>(opts: RecordOptions, fn: (store: EtcdStore, etcd: LaunchedEtcd) => Promise<T>): Promise<T> {
  const etcd = await launchEtcd({ progressNotifyInterval: RECORDING_LIMITS.progressNotifyInterval, ...opts.launch });
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

/**
 * Replayer defaults for a real etcd: a watcher counts as drained after 300 ms without responses
 * (etcd syncs catching-up watchers every 100 ms; the in-memory default of 150 ms is tight on a
 * loaded machine).
 */
const ETCD_REPLAY_DEFAULTS: ReplayOptions = { quietMs: 300, maxSettleMs: 10_000 };

/** Replay `trace` on a freshly launched etcd (revision 1) and return the answers. */
export function replayOnEtcd(trace: GoldenTrace, opts: RecordOptions = {}): Promise<TraceResult> {
  return withFreshEtcd(opts, (store) => replayTrace(store, trace, realTimeHooks(store), { ...ETCD_REPLAY_DEFAULTS, ...opts.replay }));
}

/**
 * Replaces values that depend on wall time by matchers: the `ttl` of a live lease's
 * `leaseTimeToLive` becomes `{"$range": [grantedTTL - TTL_SLACK_SECONDS, grantedTTL]}`.
 */
export function addTimeMatchers(ops: TraceOp[], expected: unknown[]): unknown[] {
  return expected.map((answer, i) => {
    const op = ops[i]!;
    if (op.op !== 'leaseTimeToLive' || typeof answer !== 'object' || answer === null || 'error' in answer) return answer;
    const a = answer as { ttl: number; grantedTTL: number };
    if (a.ttl === -1) return answer;
    return { ...a, ttl: { $range: [Math.max(0, a.grantedTTL - TTL_SLACK_SECONDS), a.grantedTTL] } };
  });
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
    const input: GoldenTrace = { format: TRACE_FORMAT, name: set.name, description: set.description, ops: set.ops };
    parseTrace(input, set.name); // the ops must be valid before anything runs
    const result = await replayTrace(store, input, realTimeHooks(store), { ...ETCD_REPLAY_DEFAULTS, ...opts.replay });
    const progressFlag = etcd.args.indexOf('--experimental-watch-progress-notify-interval');
    return {
      format: TRACE_FORMAT,
      name: set.name,
      description: set.description,
      recordedWith: {
        etcdVersion: etcd.version,
        transport: 'gRPC: etcd3 npm package (raw KV/Watch/Lease clients, no retries) through kubesim EtcdStore',
        server: 'single member on 127.0.0.1, data dir on tmpfs, started by kubesim launchEtcd (src/store/etcd/launcher.ts)',
        limits: {
          ...RECORDING_LIMITS,
          progressNotifyInterval: progressFlag >= 0 ? etcd.args[progressFlag + 1]! : RECORDING_LIMITS.progressNotifyInterval,
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
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`${file}: expected a JSON object with "ops"`);
  const o = raw as Record<string, unknown>;
  const name = typeof o.name === 'string' ? o.name : file.replace(/^.*\//, '').replace(/\.json$/, '');
  const trace = parseTrace({ format: TRACE_FORMAT, name, ops: o.ops }, file);
  return { name, description: typeof o.description === 'string' ? o.description : '', ops: trace.ops };
}

/**
 * `kubesim record`: a live cluster's changes over a span of time as a trace (src/sim/replay.ts
 * has the format), the way a reflector follows a cluster (upstream:
 * staging/src/k8s.io/client-go/tools/cache/reflector.go ListAndWatch):
 *
 *  1. list each kind of TRACE_KINDS; the objects are the trace's `initial`, the list's
 *     resourceVersion where its watch starts;
 *  2. watch from there (with bookmarks, so a quiet kind's resourceVersion stays fresh); each event
 *     is stamped with the seconds since the start;
 *  3. a watch the server ends is resumed from the last resourceVersion seen; a 410 Gone (the store
 *     compacted past it) relists and records the differences as ADDED / MODIFIED / DELETED, so
 *     nothing that happened is lost, only its timing is coarsened to the relist;
 *  4. at the end (the duration, or Ctrl-C) every watch is stopped and each kind is listed once more,
 *     the differences recorded as in step 3: what happened before the end but was still on its way
 *     to the recorder (a change made just before Ctrl-C) is not lost.
 *
 * Recorded: what users and their tools change. Objects a controller owns are left out (the
 * simulation's controllers make them again), and a MODIFIED event is kept only when something other
 * than status or a pod's binding changed (those the simulation computes itself).
 */
import type { KubeObject } from '../../api/types.js';
import {
  TRACE_API_VERSION,
  TRACE_KINDS,
  type Trace,
  type TraceEvent,
  controllerOwned,
} from '../../sim/replay.js';
import { LiveClusterError, type LiveCluster } from './kube-client.js';
import { collectionPath, listAll, stripLive } from './snapshot.js';

export interface RecordOptions {
  durationMs: number;
  kinds?: readonly string[];
  /** ends the recording early (SIGINT); the trace holds what was seen until then */
  signal?: AbortSignal;
  /** each recorded event, for progress */
  onEvent?: (e: TraceEvent) => void;
  /** every kind is listed and watched: changes from now on are recorded */
  onReady?: () => void;
  /** something the trace may miss (the final list failed) */
  onWarning?: (message: string) => void;
}

/**
 * An object without what the cluster's own components change — status, and a pod's nodeName that
 * the scheduler's binding sets — to tell a user's modification.
 */
function specOf(o: KubeObject): string {
  const { status: _status, ...rest } = o as KubeObject & { status?: unknown };
  if (o.kind === 'Pod') {
    const { nodeName: _nodeName, ...spec } = (rest as { spec?: Record<string, unknown> }).spec ?? {};
    return JSON.stringify({ ...rest, spec });
  }
  return JSON.stringify(rest);
}

const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** Consecutive failed watch attempts of one kind before the recording fails. */
const MAX_FAILURES = 3;

export async function recordTrace(cluster: LiveCluster, opts: RecordOptions): Promise<Trace> {
  const kinds = opts.kinds ?? TRACE_KINDS;
  const t0 = performance.now();
  const start = new Date();
  const at = () => Math.round(performance.now() - t0) / 1000;
  const events: TraceEvent[] = [];
  const initial: KubeObject[] = [];
  const stops: (() => void)[] = [];
  /** step 4's final list of each kind */
  const finals: (() => Promise<unknown>)[] = [];
  /** when set, the time events are stamped with (the end, for the final lists) */
  let stampAt: number | undefined;
  let failure: Error | undefined;
  let fail: (e: Error) => void = () => {};
  const failed = new Promise<void>((resolve) => {
    fail = (e) => {
      failure ??= e;
      resolve();
    };
  });

  const record = (type: TraceEvent['type'], o: KubeObject) => {
    const e = { at: stampAt ?? at(), type, object: o };
    events.push(e);
    opts.onEvent?.(e);
  };

  for (const kind of kinds) {
    const { path, apiVersion } = collectionPath(kind);
    /** the last recorded state of each object of this kind, by namespace/name */
    const known = new Map<string, KubeObject>();
    let resourceVersion = '';
    let failures = 0;
    let handle: { abort(): void } | undefined;
    let stopped = false;
    stops.push(() => {
      stopped = true;
      handle?.abort();
    });

    const observe = (type: string, raw: KubeObject) => {
      const o = stripLive({ ...raw, apiVersion, kind });
      if (controllerOwned(o)) return;
      const k = keyOf(o);
      if (type === 'DELETED') {
        if (known.delete(k)) record('DELETED', o);
        return;
      }
      const before = known.get(k);
      known.set(k, o);
      if (!before) record('ADDED', o);
      else if (specOf(before) !== specOf(o)) record('MODIFIED', o);
    };

    /** lists the kind and records how it differs from what was seen; answers the list's resourceVersion */
    const resync = async () => {
      const list = await listAll(cluster, kind);
      const seen = new Set<string>();
      for (const item of list.items) {
        seen.add(keyOf(item));
        observe('ADDED', item);
      }
      for (const [k, o] of [...known]) if (!seen.has(k)) observe('DELETED', o);
      return list.resourceVersion;
    };
    // step 3: relist after 410, recording what changed meanwhile
    const relist = async () => {
      resourceVersion = await resync();
    };
    finals.push(resync);

    const watch = async (): Promise<void> => {
      if (stopped) return;
      let expired = false;
      handle = await cluster.watch(
        path,
        { resourceVersion, allowWatchBookmarks: true },
        (type, obj) => {
          const o = obj as KubeObject & { code?: number };
          if (type === 'ERROR') {
            if (o.code === 410) expired = true;
            return;
          }
          failures = 0;
          if (o.metadata?.resourceVersion) resourceVersion = o.metadata.resourceVersion;
          if (type !== 'BOOKMARK') observe(type, o);
        },
        (err) => {
          if (stopped) return;
          const code = (err as { statusCode?: number; code?: number } | null)?.statusCode;
          if (expired || code === 410) {
            relist()
              .then(watch)
              .catch((e) => fail(e));
            return;
          }
          if (err && ++failures >= MAX_FAILURES)
            return fail(
              new LiveClusterError(`watch ${cluster.server}${path}: ${(err as Error).message ?? err}`),
            );
          setTimeout(() => void watch().catch((e) => fail(e)), err ? 1000 : 0);
        },
      );
    };

    // step 1: the initial state
    const list = await listAll(cluster, kind);
    resourceVersion = list.resourceVersion;
    for (const item of list.items) {
      const o = stripLive(item);
      if (controllerOwned(o)) continue;
      known.set(keyOf(o), o);
      initial.push(o);
    }
    // step 2
    await watch();
  }

  opts.onReady?.();
  // step 4
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, opts.durationMs - (performance.now() - t0)));
      opts.signal?.addEventListener('abort', () => resolve());
    }),
    failed,
  ]);
  clearTimeout(timer);
  for (const stop of stops) stop();
  if (failure) throw failure;
  const end = performance.now();
  stampAt = Math.round(Math.min(end - t0, opts.durationMs)) / 1000;
  try {
    for (const final of finals) await final();
  } catch (e) {
    opts.onWarning?.(
      `the final list failed (${(e as Error).message}): changes made just before the end may be missing`,
    );
  }
  events.sort((a, b) => a.at - b.at);
  return {
    apiVersion: TRACE_API_VERSION,
    kind: 'Trace',
    server: cluster.server,
    start: start.toISOString(),
    durationSeconds: stampAt,
    kinds: [...kinds],
    initial,
    events,
  };
}

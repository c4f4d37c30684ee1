/**
 * kube-apiserver's compactor on etcd (staging/src/k8s.io/apiserver/pkg/storage/etcd3/compact.go,
 * `compactor` and `compact`), run by every `serve --etcd-servers` every --etcd-compaction-interval
 * (default 5m; 0 turns it off).
 *
 * Each tick is one transaction on the key `compact_rev_key`: if its version is still the one this
 * server last saw, write the revision noted at the previous tick into it (bumping its version) and
 * compact etcd to that revision; otherwise another server has compacted in this interval — adopt
 * its version and the current revision, compact nothing. So several servers over one etcd compact
 * once per interval between them, and between one and two intervals of history stay readable: a
 * watch or list from an older resourceVersion gets 410 Gone (`too old resource version`) and the
 * client relists. Nothing is compacted on the first tick ("we don't compact on bootstrap").
 */
import type { KvStore } from '../store/types.js';

/** the key compact.go keeps its compaction record in, outside /registry */
export const COMPACT_REV_KEY = 'compact_rev_key';

export interface CompactState {
  /** the version of compact_rev_key this server last saw (compact.go's `t`) */
  version: number;
  /** the revision noted at the last tick (compact.go's `rev`): compacted to at the next */
  revision: number;
}

/**
 * One tick of compact.go's `compact`: returns the state for the next tick and the revision
 * compacted to (0 when this tick compacted nothing). A failed compaction rejects after the state
 * was advanced, as upstream's returns `curTime, curRev, err`: the caller keeps `err.state`.
 */
export async function compactOnce(
  store: KvStore,
  state: CompactState,
): Promise<{ state: CompactState; compacted: number }> {
  const resp = await store.txn({
    compare: [{ key: COMPACT_REV_KEY, target: 'VERSION', result: 'EQUAL', version: state.version }],
    success: [
      { requestPut: { key: COMPACT_REV_KEY, value: new TextEncoder().encode(String(state.revision)) } },
    ],
    failure: [{ requestRange: { key: COMPACT_REV_KEY } }],
  });
  const revision = resp.header.revision;
  if (!resp.succeeded) {
    const r = resp.responses[0];
    const version = r && 'responseRange' in r ? (r.responseRange.kvs[0]?.version ?? 0) : 0;
    return { state: { version, revision }, compacted: 0 };
  }
  const next = { version: state.version + 1, revision };
  if (state.revision === 0) return { state: next, compacted: 0 };
  try {
    await store.compact({ revision: state.revision });
  } catch (e) {
    throw Object.assign(e as Error, { state: next });
  }
  return { state: next, compacted: state.revision };
}

export interface Compactor {
  stop(): void;
}

/** Run {@link compactOnce} every `intervalMs` of wall time until stopped. */
export function startCompactor(
  store: KvStore,
  intervalMs: number,
  onCompacted?: (revision: number) => void,
): Compactor {
  let state: CompactState = { version: 0, revision: 0 };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    try {
      const r = await compactOnce(store, state);
      state = r.state;
      if (r.compacted) onCompacted?.(r.compacted);
    } catch (e) {
      // a lost connection or an already compacted revision: try again next interval
      const s = (e as { state?: CompactState }).state;
      if (s) state = s;
    }
    if (!stopped) schedule();
  };
  const schedule = () => {
    timer = setTimeout(() => void tick(), intervalMs);
    timer.unref();
  };
  if (intervalMs > 0) schedule();
  return {
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

/**
 * `kubectl drain NODE --ignore-daemonsets --delete-emptydir-data --force` as a timeline action
 * (upstream: staging/src/k8s.io/kubectl/pkg/drain/drain.go, filters.go, cordon.go; v1.34):
 *
 * 1. cordon: spec.unschedulable = true (an update with resourceVersion, retried on conflict);
 * 2. the pods to delete (GetPodsForDeletion): the node's pods except DaemonSet-managed ones
 *    (daemonSetFilter with --ignore-daemonsets) and mirror pods; pods without a controller and pods
 *    with emptyDir volumes are included (--force, --delete-emptydir-data);
 * 3. every pod is evicted at once through the Eviction subresource; a 429 from a disruption budget
 *    is retried after 5 s, as kubectl does ("will retry after 5s"), until the budget allows it or
 *    the timeout (default none, as --timeout=0) passes; a pod already gone counts as evicted;
 * 4. the drain waits until each evicted pod is gone (waitForDelete, polling every second).
 */
import type { Node, Pod } from '../api/types.js';
import { isConflict, isNotFound } from '../client/api.js';
import type { Clock } from '../util/clock.js';
import type { ServerClient } from '../client/server-client.js';
import { isBudgetError } from '../api/apiserver-evict.js';

/** kubectl drain's wait between eviction attempts a budget refused */
export const EVICTION_RETRY_MS = 5000;
/** waitForDelete's poll interval */
const DELETE_POLL_MS = 1000;

export interface DrainRecord {
  node: string;
  startMs: number;
  /** pods the drain evicts */
  pods: number;
  evicted: number;
  /** 429s from disruption budgets (each one a 5 s wait) */
  refusals: number;
  /** per pod: when its eviction went through (ms since the epoch), or undefined */
  evictedAt: Record<string, number>;
  /** when every pod was gone, or undefined (still blocked, timed out or failed) */
  doneMs?: number;
  error?: string;
}

const sleep = (clock: Clock, ms: number) => new Promise<void>((r) => clock.setTimer(r, ms));

/** is the pod managed by a DaemonSet or a mirror pod? (daemonSetFilter, mirrorPodFilter) */
function skipped(p: Pod): boolean {
  if (p.metadata.annotations?.['kubernetes.io/config.mirror']) return true;
  return !!p.metadata.ownerReferences?.some((r) => r.controller && r.kind === 'DaemonSet');
}

export async function drainNode(
  api: ServerClient,
  clock: Clock,
  node: string,
  rec: DrainRecord,
  timeoutMs = 0,
): Promise<void> {
  const deadline = timeoutMs > 0 ? clock.now() + timeoutMs : Infinity;
  // 1. cordon
  for (let attempt = 0; ; attempt++) {
    const n = await api.get<Node>('nodes', undefined, node);
    if (n.spec?.unschedulable) break;
    try {
      await api.update('nodes', { ...n, spec: { ...(n.spec ?? {}), unschedulable: true } });
      break;
    } catch (err) {
      if (!isConflict(err) || attempt > 10) throw err;
    }
  }
  // 2. pods
  const pods = (await api.list<Pod>('pods', { fieldSelector: `spec.nodeName=${node}` })).items.filter(
    (p) => !skipped(p),
  );
  rec.pods = pods.length;
  // 3. + 4. evict each, then wait for it to go
  const results = await Promise.allSettled(
    pods.map(async (p) => {
      const ns = p.metadata.namespace ?? 'default';
      const name = p.metadata.name!;
      for (;;) {
        try {
          await api.evict(ns, name);
          break;
        } catch (err) {
          if (isNotFound(err)) break;
          if (!isBudgetError(err)) throw err;
          rec.refusals++;
          if (clock.now() + EVICTION_RETRY_MS > deadline)
            throw new Error(`drain did not complete within ${timeoutMs / 1000}s`);
          await sleep(clock, EVICTION_RETRY_MS);
        }
      }
      rec.evicted++;
      rec.evictedAt[`${ns}/${name}`] = clock.now();
      for (;;) {
        try {
          const cur = await api.get<Pod>('pods', ns, name);
          if (cur.metadata.uid !== p.metadata.uid) return;
        } catch (err) {
          if (isNotFound(err)) return;
          throw err;
        }
        if (clock.now() > deadline) throw new Error(`drain did not complete within ${timeoutMs / 1000}s`);
        await sleep(clock, DELETE_POLL_MS);
      }
    }),
  );
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) {
    rec.error = ((failed as PromiseRejectedResult).reason as Error).message;
    throw new Error(rec.error);
  }
  rec.doneMs = clock.now();
}

/**
 * The ReplicaSet controller (pkg/controller/replicaset): keeps the number of active pods owned by
 * each ReplicaSet equal to spec.replicas. Learns about ReplicaSets and pods only from informers,
 * acts only through the ApiServer:
 *
 * - creates missing pods in slow-start batches (1, 2, 4, …; at most burstReplicas = 500 per sync),
 *   named `<rs>-<5 random chars>` with a controller owner reference, and records creation
 *   expectations so a stale cache never causes double creation;
 * - deletes surplus pods, least valuable first (getPodsToDelete's ranking: unscheduled < scheduled,
 *   Pending < Unknown < Running, not ready < ready, more pods of this set on the node first,
 *   ready more recently first, newer first);
 * - writes status (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas,
 *   observedGeneration) and requeues after minReadySeconds so availability is noticed.
 *
 * Simplified: no adoption/orphaning of pods by selector (only controller owner references count),
 * no pod-deletion-cost annotation, exact (not logarithmic) time comparisons when ranking.
 */
import type { Pod, ReplicaSet, ReplicaSetStatus } from '../api/types.js';
import { type ApiClient, isNotFound, keyOf } from '../client/api.js';
import type { EventRecorder } from '../client/events.js';
import type { InformerFactory } from '../client/factory.js';
import type { Informer } from '../client/informer.js';
import { WorkQueue, runWorkers } from '../client/workqueue.js';
import type { Clock } from '../util/clock.js';
import type { Rng } from '../util/rng.js';
import { Expectations } from './expectations.js';
import {
  podGracePeriod,
  CONTROLLER_UID_INDEX,
  controllerOf,
  controllerRef,
  controllerUidIndex,
  getPodCondition,
  isPodActive,
  isPodAvailable,
  isPodReady,
  randomSuffix,
} from './pod-util.js';

/** BurstReplicas: the most pods one sync creates or deletes */
export const BURST_REPLICAS = 500;

export interface ControllerDeps {
  api: ApiClient;
  clock: Clock;
  informers: InformerFactory;
  recorder: EventRecorder;
  rng: Rng;
  /** concurrent syncs (upstream --concurrent-*-syncs, default 5) */
  workers?: number;
}

/** slowStartBatch: run fn `count` times in batches 1, 2, 4, …; stop at the first batch with an error */
export async function slowStartBatch(
  count: number,
  initialBatchSize: number,
  fn: (i: number) => Promise<void>,
): Promise<{ successes: number; error?: unknown }> {
  let remaining = count;
  let successes = 0;
  let index = 0;
  for (let batch = Math.min(remaining, initialBatchSize); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn(index++)));
    let error: unknown;
    for (const r of results) {
      if (r.status === 'fulfilled') successes++;
      else error ??= r.reason;
    }
    if (error !== undefined) return { successes, error };
    remaining -= batch;
  }
  return { successes };
}

/** Ranks pods for deletion: the returned array is most-deletable first (controller.ActivePodsWithRanks). */
export function rankPodsForDeletion(pods: Pod[], relatedPods: Pod[], nowMs: number): Pod[] {
  const perNode = new Map<string, number>();
  for (const p of relatedPods)
    if (p.spec.nodeName && isPodActive(p))
      perNode.set(p.spec.nodeName, (perNode.get(p.spec.nodeName) ?? 0) + 1);
  const phaseRank: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };
  // decorate once, then sort on the keys (Date parsing per comparison is too slow for big sets)
  const keyed = pods.map((p) => {
    const c = getPodCondition(p, 'Ready');
    const ready = c?.status === 'True';
    return {
      p,
      assigned: p.spec.nodeName ? 1 : 0,
      phase: phaseRank[p.status?.phase ?? 'Pending'] ?? 0,
      ready: ready ? 1 : 0,
      doubled: p.spec.nodeName ? (perNode.get(p.spec.nodeName) ?? 0) : 0,
      readySince: ready && c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : nowMs,
      created: p.metadata.creationTimestamp ? Date.parse(p.metadata.creationTimestamp) : Infinity,
      name: p.metadata.name ?? '',
    };
  });
  keyed.sort((a, b) => {
    if (a.assigned !== b.assigned) return a.assigned - b.assigned; // unassigned first
    if (a.phase !== b.phase) return a.phase - b.phase; // Pending < Unknown < Running
    if (a.ready !== b.ready) return a.ready - b.ready; // not ready first
    if (a.doubled !== b.doubled) return b.doubled - a.doubled; // doubled-up first
    if (a.ready && b.ready && a.readySince !== b.readySince) return b.readySince - a.readySince; // ready more recently first
    if (a.created !== b.created) return b.created - a.created; // newer first
    return a.name < b.name ? -1 : 1;
  });
  return keyed.map((k) => k.p);
}

/** what the ReplicaSet controller needs to know of a pod, computed once per pod version */
interface PodFacts {
  active: boolean;
  ready: boolean;
  readySinceMs: number;
}
const facts = new WeakMap<Pod, PodFacts>();
function podFacts(p: Pod): PodFacts {
  let f = facts.get(p);
  if (!f) {
    const c = getPodCondition(p, 'Ready');
    const ready = c?.status === 'True';
    f = {
      active: isPodActive(p),
      ready,
      readySinceMs: ready && c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN,
    };
    facts.set(p, f);
  }
  return f;
}

export class ReplicaSetController {
  readonly queue: WorkQueue<string>;
  private readonly rsInformer: Informer<ReplicaSet>;
  private readonly podInformer: Informer<Pod>;
  private readonly expectations: Expectations;
  private readonly suffix: () => number;
  private running?: Promise<void>;
  podsCreated = 0;
  podsDeleted = 0;
  /**
   * Status counters per ReplicaSet uid, kept up to date from pod events so that a sync does not
   * walk every pod of a large ReplicaSet (the result is the same as upstream's full recount).
   * `dirty` forces a recount (pod seen before its ReplicaSet, template labels changed).
   */
  private readonly counts = new Map<
    string,
    { active: number; ready: number; fully: number; gen: number; dirty: boolean }
  >();
  private readonly contrib = new Map<
    string,
    { uid: string; active: boolean; ready: boolean; fully: boolean }
  >();

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new WorkQueue<string>(deps.clock, undefined, 'replicaset');
    this.expectations = new Expectations(deps.clock);
    const rng = deps.rng.fork('replicaset');
    this.suffix = () => rng.next();
    this.rsInformer = deps.informers.for<ReplicaSet>('replicasets');
    this.podInformer = deps.informers.for<Pod>('pods');
    try {
      this.podInformer.addIndexer(CONTROLLER_UID_INDEX, controllerUidIndex);
    } catch {
      /* shared: already added */
    }

    this.rsInformer.addEventHandler({
      onAdd: (rs) => {
        const c = this.counts.get(rs.metadata.uid!);
        if (c) c.dirty = true;
        this.queue.add(keyOf(rs));
      },
      onUpdate: (_o, rs) => this.queue.add(keyOf(rs)),
      onDelete: (rs) => {
        this.expectations.delete(keyOf(rs));
        this.queue.add(keyOf(rs));
      },
    });
    this.podInformer.addEventHandler({
      onAdd: (pod) => {
        this.account(keyOf(pod), pod);
        const rsKey = this.ownerKey(pod);
        if (!rsKey) return;
        if (pod.metadata.deletionTimestamp) this.expectations.deletionObserved(rsKey, keyOf(pod));
        else this.expectations.creationObserved(rsKey);
        this.queue.add(rsKey);
      },
      onUpdate: (old, pod) => {
        this.account(keyOf(pod), pod);
        const rsKey = this.ownerKey(pod);
        const oldKey = this.ownerKey(old);
        if (oldKey && oldKey !== rsKey) this.queue.add(oldKey);
        if (!rsKey) return;
        if (pod.metadata.deletionTimestamp && !old.metadata.deletionTimestamp)
          this.expectations.deletionObserved(rsKey, keyOf(pod));
        this.queue.add(rsKey);
        // a pod that just became ready may become available after minReadySeconds
        const rs = this.rsInformer.getByKey(rsKey);
        const mrs = rs?.spec.minReadySeconds ?? 0;
        if (mrs > 0 && !isPodReady(old) && isPodReady(pod)) this.queue.addAfter(rsKey, mrs * 1000 + 1000);
      },
      onDelete: (pod) => {
        this.account(keyOf(pod), undefined);
        const rsKey = this.ownerKey(pod);
        if (!rsKey) return;
        this.expectations.deletionObserved(rsKey, keyOf(pod));
        this.queue.add(rsKey);
      },
    });
  }

  /** start the workers (informers must be started by the caller's factory) */
  run(): void {
    this.running = runWorkers(this.queue, this.deps.workers ?? 5, (k) => this.sync(k));
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await this.running;
  }

  private ownerKey(pod: Pod): string | undefined {
    const ref = controllerOf(pod);
    if (!ref || ref.kind !== 'ReplicaSet') return undefined;
    const rs = this.rsInformer.get(pod.metadata.namespace, ref.name);
    if (!rs || rs.metadata.uid !== ref.uid) return undefined;
    return keyOf(rs);
  }

  /** keep the per-ReplicaSet counters in step with one pod's new state (undefined = deleted) */
  private account(podKey: string, pod: Pod | undefined): void {
    const prev = this.contrib.get(podKey);
    if (prev) {
      const c = this.counts.get(prev.uid);
      if (c && prev.active) {
        c.active--;
        if (prev.ready) c.ready--;
        if (prev.fully) c.fully--;
      }
      this.contrib.delete(podKey);
    }
    const ref = pod && controllerOf(pod);
    if (!pod || !ref) return;
    let c = this.counts.get(ref.uid);
    if (!c) this.counts.set(ref.uid, (c = { active: 0, ready: 0, fully: 0, gen: -1, dirty: true }));
    const f = podFacts(pod);
    const rs = this.rsInformer.get(pod.metadata.namespace, ref.name);
    let fully = false;
    if (rs && rs.metadata.uid === ref.uid) fully = labelsMatch(rs, pod);
    else c.dirty = true;
    const k = { uid: ref.uid, active: f.active, ready: f.ready, fully };
    this.contrib.set(podKey, k);
    if (k.active) {
      c.active++;
      if (k.ready) c.ready++;
      if (k.fully) c.fully++;
    }
  }

  /** recount a ReplicaSet's pods from the cache (what upstream does on every sync) */
  private recount(rs: ReplicaSet): {
    active: number;
    ready: number;
    fully: number;
    gen: number;
    dirty: boolean;
  } {
    const uid = rs.metadata.uid!;
    const c = { active: 0, ready: 0, fully: 0, gen: rs.metadata.generation ?? 0, dirty: false };
    this.podInformer.forEachInIndex(CONTROLLER_UID_INDEX, uid, (p) => {
      const f = podFacts(p);
      const k = { uid, active: f.active, ready: f.ready, fully: labelsMatch(rs, p) };
      this.contrib.set(keyOf(p), k);
      if (k.active) {
        c.active++;
        if (k.ready) c.ready++;
        if (k.fully) c.fully++;
      }
    });
    this.counts.set(uid, c);
    return c;
  }

  /** syncReplicaSet */
  async sync(key: string): Promise<void> {
    const rs = this.rsInformer.getByKey(key);
    if (!rs) {
      this.expectations.delete(key);
      return;
    }
    let c = this.counts.get(rs.metadata.uid!);
    if (!c || c.dirty || c.gen !== (rs.metadata.generation ?? 0)) c = this.recount(rs);
    let manageError: unknown;
    let active = c.active;
    if (
      this.expectations.satisfied(key) &&
      !rs.metadata.deletionTimestamp &&
      active !== (rs.spec.replicas ?? 1)
    ) {
      const pods: Pod[] = [];
      this.podInformer.forEachInIndex(CONTROLLER_UID_INDEX, rs.metadata.uid!, (p) => {
        if (podFacts(p).active) pods.push(p);
      });
      active = pods.length;
      manageError = await this.manageReplicas(key, rs, pods);
    }
    if ((rs.spec.minReadySeconds ?? 0) > 0) {
      const pods: Pod[] = [];
      this.podInformer.forEachInIndex(CONTROLLER_UID_INDEX, rs.metadata.uid!, (p) => {
        if (podFacts(p).active) pods.push(p);
      });
      await this.updateStatusScan(rs, pods);
    } else {
      await this.writeStatus(rs, {
        replicas: c.active,
        fullyLabeledReplicas: c.fully,
        readyReplicas: c.ready,
        availableReplicas: c.ready,
        observedGeneration: rs.metadata.generation,
      });
    }
    if (manageError !== undefined) throw manageError;
  }

  private async manageReplicas(key: string, rs: ReplicaSet, active: Pod[]): Promise<unknown> {
    const want = rs.spec.replicas ?? 1;
    const diff = active.length - want;
    if (diff < 0) {
      const n = Math.min(-diff, BURST_REPLICAS);
      this.expectations.expectCreations(key, n);
      const { successes, error } = await slowStartBatch(n, 1, async () => {
        const pod = this.podFromTemplate(rs);
        try {
          await this.deps.api.create('pods', pod);
          this.podsCreated++;
          this.deps.recorder.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`);
        } catch (err) {
          this.deps.recorder.event(
            rs,
            'Warning',
            'FailedCreate',
            `Error creating: ${(err as Error).message}`,
          );
          throw err;
        }
      });
      // creations that failed or were skipped will never be observed
      if (successes < n) this.expectations.lowerCreations(key, n - successes);
      return error;
    }
    if (diff > 0) {
      const n = Math.min(diff, BURST_REPLICAS);
      const victims = rankPodsForDeletion(active, active, this.deps.clock.now()).slice(0, n);
      this.expectations.expectDeletions(key, victims.map(keyOf));
      let error: unknown;
      await Promise.all(
        victims.map(async (p) => {
          try {
            await this.deps.api.delete('pods', p.metadata.namespace, p.metadata.name!, {
              gracePeriodSeconds: podGracePeriod(p),
            });
            this.podsDeleted++;
            this.deps.recorder.event(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
          } catch (err) {
            this.expectations.deletionObserved(key, keyOf(p));
            if (!isNotFound(err)) error ??= err;
          }
        }),
      );
      return error;
    }
    return undefined;
  }

  private podFromTemplate(rs: ReplicaSet): Pod {
    const t = rs.spec.template;
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${rs.metadata.name}-${randomSuffix(this.suffix)}`,
        namespace: rs.metadata.namespace,
        labels: { ...(t.metadata?.labels ?? {}) },
        annotations: t.metadata?.annotations ? { ...t.metadata.annotations } : undefined,
        ownerReferences: [controllerRef(rs)],
      },
      spec: structuredClone(t.spec),
    };
  }

  /** status with minReadySeconds: availability depends on the clock, so walk the pods */
  private async updateStatusScan(rs: ReplicaSet, active: Pod[]): Promise<void> {
    const now = this.deps.clock.now();
    const mrs = rs.spec.minReadySeconds ?? 0;
    let fully = 0,
      ready = 0,
      available = 0;
    for (const p of active) {
      if (labelsMatch(rs, p)) fully++;
      const f = podFacts(p);
      if (f.ready) {
        ready++;
        if (f.readySinceMs + mrs * 1000 <= now) available++;
      }
    }
    await this.writeStatus(rs, {
      replicas: active.length,
      fullyLabeledReplicas: fully,
      readyReplicas: ready,
      availableReplicas: available,
      observedGeneration: rs.metadata.generation,
    });
    if (ready > available) this.queue.addAfter(keyOf(rs), mrs * 1000);
  }

  private async writeStatus(
    rs: ReplicaSet,
    next: Required<
      Pick<ReplicaSetStatus, 'replicas' | 'fullyLabeledReplicas' | 'readyReplicas' | 'availableReplicas'>
    > & { observedGeneration?: number },
  ): Promise<void> {
    const s = rs.status;
    if (
      s &&
      s.replicas === next.replicas &&
      s.fullyLabeledReplicas === next.fullyLabeledReplicas &&
      s.readyReplicas === next.readyReplicas &&
      s.availableReplicas === next.availableReplicas &&
      s.observedGeneration === next.observedGeneration
    )
      return;
    try {
      await this.deps.api.updateStatus('replicasets', { ...rs, status: next });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }
}

/** are all of the ReplicaSet template's labels on the pod? (fullyLabeledReplicas) */
function labelsMatch(rs: ReplicaSet, p: Pod): boolean {
  const tl = rs.spec.template.metadata?.labels;
  if (!tl) return true;
  const l = p.metadata.labels ?? {};
  for (const k in tl) if (l[k] !== tl[k]) return false;
  return true;
}

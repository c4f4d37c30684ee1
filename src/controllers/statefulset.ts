/**
 * The StatefulSet controller (upstream: pkg/controller/statefulset, stateful_set.go,
 * stateful_set_control.go and stateful_set_utils.go, release-1.34): pods with stable names
 * `<set>-0 … <set>-(replicas-1)`, created, replaced, updated and removed in ordinal order.
 * Learns about StatefulSets, pods and ControllerRevisions only from informers and acts only through
 * the ApiServer:
 *
 * - revisions (getStatefulSetRevisions): the template is stored in a ControllerRevision
 *   `<set>-<hash>` owned by the set, with a revision number; a template equal to an older
 *   revision's reuses it with the next number (a rollback); status.currentRevision names the
 *   revision the set is rolling from, status.updateRevision the one it rolls to; each pod carries
 *   `controller-revision-hash: <revision name>`;
 * - pods (newVersionedStatefulSetPod): from the current revision's template for ordinals below the
 *   partition (RollingUpdate) and the update revision's otherwise, with hostname, subdomain
 *   (serviceName), the `statefulset.kubernetes.io/pod-name` and `apps.kubernetes.io/pod-index`
 *   labels and one volume per volumeClaimTemplate naming the claim `<template>-<set>-<ordinal>`;
 * - updateStatefulSet: failed or succeeded pods are deleted and recreated; missing ordinals are
 *   created; with OrderedReady, the walk stops at the first pod that is not created, Running and
 *   Ready (and available after minReadySeconds) or is terminating, so pod n+1 starts only after pod
 *   n is ready; surplus ordinals are deleted from the highest down, one at a time, each only when
 *   every lower pod is healthy; Parallel does all of it at once;
 * - RollingUpdate: the pod with the highest ordinal ≥ partition not on the update revision is
 *   deleted (then recreated at the update revision), one at a time, waiting for each replacement
 *   to be healthy; OnDelete recreates a pod at the update revision only when someone deletes it;
 * - status: replicas, readyReplicas, availableReplicas, currentReplicas, updatedReplicas,
 *   currentRevision, updateRevision (current := update once every pod is updated and ready),
 *   observedGeneration, collisionCount.
 *
 * Simplified (docs/controllers.md): maxUnavailable is ignored (the MaxUnavailableStatefulSet gate
 * is alpha and off in v1.34: updates go one pod at a time); revision history is not truncated; no
 * adoption of orphan pods or revisions by selector; revision hashes are FNV-1a over canonical JSON.
 *
 * Claims (stateful_pod_control.go createPersistentVolumeClaims, updateClaimOwnerRefForSetAndPod):
 * before a pod is created, each volumeClaimTemplate's claim `<template>-<set>-<ordinal>` is created
 * when missing, labelled with the template's labels and the selector's matchLabels;
 * persistentVolumeClaimRetentionPolicy decides its owners: whenDeleted Delete makes the set an
 * owner (the garbage collector deletes the claims with the set), whenScaled Delete makes a
 * condemned pod the owner in the set's place before the scale-down deletes it. Retain (the default) keeps the claims.
 */
import type { PersistentVolumeClaim } from '../api/storage-types.js';
import type {
  KubeObject,
  OwnerReference,
  Pod,
  PodTemplateSpec,
  StatefulSet,
  StatefulSetStatus,
} from '../api/types.js';
import { isAlreadyExists, isNotFound, keyOf } from '../client/api.js';
import type { Informer } from '../client/informer.js';
import { WorkQueue, runWorkers } from '../client/workqueue.js';
import { CONTROLLER_REVISION_HASH_LABEL } from './daemonset-util.js';
import { canonicalJson, computeTemplateHash } from './deployment-util.js';
import {
  CONTROLLER_UID_INDEX,
  controllerOf,
  controllerRef,
  controllerUidIndex,
  isPodReady,
  podGracePeriod,
} from './pod-util.js';
import type { ControllerDeps } from './replicaset.js';
import { slowStartBatch } from './replicaset.js';
import {
  allowsBurst,
  claimName,
  endOrdinal,
  identityMatches,
  isCreated,
  isFailed,
  isHealthy,
  isRunningAndAvailable,
  isRunningAndReady,
  isSucceeded,
  isTerminating,
  ordinalOf,
  podName,
  setIdentity,
  startOrdinal,
} from './statefulset-util.js';

/** an owner reference that is not the controller (a claim's set or pod owner) */
const ownerRef = (o: KubeObject): OwnerReference => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.metadata.name!,
  uid: o.metadata.uid!,
});

/** apps/v1 ControllerRevision: a snapshot of the set's template */
interface ControllerRevision extends KubeObject {
  data?: { spec?: { template?: PodTemplateSpec & { $patch?: string } } };
  revision: number;
}

/** one slot of the ordinal range: an existing pod, or one to create */
interface Slot {
  pod: Pod;
  created: boolean;
}

interface Revisions {
  current: ControllerRevision;
  update: ControllerRevision;
  collisionCount: number;
}

export class StatefulSetController {
  readonly queue: WorkQueue<string>;
  private readonly setInformer: Informer<StatefulSet>;
  private readonly podInformer: Informer<Pod>;
  private readonly revInformer: Informer<ControllerRevision>;
  private readonly claimInformer: Informer<PersistentVolumeClaim>;
  private running?: Promise<void>;
  podsCreated = 0;
  podsDeleted = 0;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new WorkQueue<string>(deps.clock, undefined, 'statefulset');
    this.setInformer = deps.informers.for<StatefulSet>('statefulsets');
    this.podInformer = deps.informers.for<Pod>('pods');
    this.revInformer = deps.informers.for<ControllerRevision>('controllerrevisions');
    this.claimInformer = deps.informers.for<PersistentVolumeClaim>('persistentvolumeclaims');
    const index = (add: () => void) => {
      try {
        add();
      } catch {
        /* shared: already added */
      }
    };
    index(() => this.podInformer.addIndexer(CONTROLLER_UID_INDEX, controllerUidIndex));
    index(() => this.revInformer.addIndexer(CONTROLLER_UID_INDEX, controllerUidIndex));
    this.setInformer.addEventHandler({
      onAdd: (s) => this.queue.add(keyOf(s)),
      onUpdate: (_o, s) => this.queue.add(keyOf(s)),
      onDelete: (s) => this.queue.add(keyOf(s)),
    });
    const owner = (p: Pod) => this.ownerKey(p);
    this.podInformer.addEventHandler({
      onAdd: (p) => {
        const k = owner(p);
        if (k) this.queue.add(k);
      },
      onUpdate: (old, p) => {
        const k = owner(p);
        const ok = owner(old);
        if (ok && ok !== k) this.queue.add(ok);
        if (!k) return;
        this.queue.add(k);
        // a pod that just became ready becomes available after minReadySeconds
        const mrs = this.setInformer.getByKey(k)?.spec.minReadySeconds ?? 0;
        if (mrs > 0 && !isPodReady(old) && isPodReady(p)) this.queue.addAfter(k, mrs * 1000 + 1000);
      },
      onDelete: (p) => {
        const k = owner(p);
        if (k) this.queue.add(k);
      },
    });
  }

  run(): void {
    this.running = runWorkers(this.queue, this.deps.workers ?? 5, (k) => this.sync(k));
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await this.running;
  }

  private ownerKey(pod: Pod): string | undefined {
    const ref = controllerOf(pod);
    if (!ref || ref.kind !== 'StatefulSet') return undefined;
    const set = this.setInformer.get(pod.metadata.namespace, ref.name);
    return set && set.metadata.uid === ref.uid ? keyOf(set) : undefined;
  }

  /** syncStatefulSet */
  async sync(key: string): Promise<void> {
    const set = this.setInformer.getByKey(key);
    if (!set) return;
    const pods: Pod[] = [];
    this.podInformer.forEachInIndex(CONTROLLER_UID_INDEX, set.metadata.uid!, (p) => pods.push(p));
    const revs = await this.revisions(set);
    const status = await this.updateStatefulSet(set, pods, revs);
    await this.writeStatus(set, status, revs);
  }

  /** getStatefulSetRevisions: the current and update revisions, the update one created if new */
  private async revisions(set: StatefulSet): Promise<Revisions> {
    const owned: ControllerRevision[] = [];
    this.revInformer.forEachInIndex(CONTROLLER_UID_INDEX, set.metadata.uid!, (r) => owned.push(r));
    owned.sort((a, b) => a.revision - b.revision);
    const collisionCount = set.status?.collisionCount ?? 0;
    const next = (owned.at(-1)?.revision ?? 0) + 1;
    const want = canonicalJson(set.spec.template);
    const equal = owned.filter((r) => canonicalJson(templateOf(r)) === want);
    let update: ControllerRevision;
    if (equal.length && equal.at(-1) === owned.at(-1)) update = owned.at(-1)!;
    else if (equal.length) {
      // a rollback: the equal older revision becomes the newest
      const r = structuredClone(equal.at(-1)!);
      r.revision = next;
      update = await this.deps.api.update('controllerrevisions', r);
    } else update = await this.createRevision(set, next, collisionCount);
    const current = owned.find((r) => r.metadata.name === set.status?.currentRevision) ?? update;
    return { current, update, collisionCount };
  }

  /** newRevision + CreateControllerRevision: `<set>-<hash of the template>` */
  private async createRevision(set: StatefulSet, revision: number, collisionCount: number) {
    const hash = computeTemplateHash(set.spec.template, collisionCount);
    const r: ControllerRevision = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: `${set.metadata.name}-${hash}`,
        namespace: set.metadata.namespace,
        labels: { ...(set.spec.template.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH_LABEL]: hash },
        ownerReferences: [controllerRef(set)],
      },
      data: { spec: { template: { ...structuredClone(set.spec.template), $patch: 'replace' } } },
      revision,
    };
    try {
      return await this.deps.api.create('controllerrevisions', r);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      const existing = await this.deps.api.get<ControllerRevision>(
        'controllerrevisions',
        set.metadata.namespace,
        r.metadata.name!,
      );
      if (canonicalJson(templateOf(existing)) === canonicalJson(set.spec.template)) return existing;
      throw err; // a hash collision: upstream bumps collisionCount; not modelled
    }
  }

  /** newVersionedStatefulSetPod */
  private newPod(set: StatefulSet, revs: Revisions, ordinal: number): Pod {
    const partition = set.spec.updateStrategy?.rollingUpdate?.partition ?? 0;
    const rolling = (set.spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
    const useCurrent = rolling && ordinal - startOrdinal(set) < partition && revs.current !== revs.update;
    const rev = useCurrent ? revs.current : revs.update;
    const t = templateOf(rev) ?? set.spec.template;
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        labels: { ...(t.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH_LABEL]: rev.metadata.name! },
        ...(t.metadata?.annotations ? { annotations: { ...t.metadata.annotations } } : {}),
        ...(t.metadata?.finalizers ? { finalizers: [...t.metadata.finalizers] } : {}),
        ownerReferences: [controllerRef(set)],
      },
      spec: structuredClone(t.spec),
    };
    setIdentity(set, pod, ordinal);
    return pod;
  }

  /** updateStatefulSet: one pass over the ordinals; returns the status it saw */
  private async updateStatefulSet(
    set: StatefulSet,
    pods: Pod[],
    revs: Revisions,
  ): Promise<StatefulSetStatus> {
    const now = this.deps.clock.now();
    const mrs = set.spec.minReadySeconds ?? 0;
    const start = startOrdinal(set);
    const end = endOrdinal(set);
    const slots: Slot[] = [];
    const condemned: Pod[] = [];
    for (const p of pods) {
      const ord = ordinalOf(set, p);
      if (ord >= start && ord <= end) slots[ord - start] = { pod: p, created: true };
      else if (ord >= 0) condemned.push(p);
    }
    for (let ord = start; ord <= end; ord++)
      slots[ord - start] ??= { pod: this.newPod(set, revs, ord), created: false };
    condemned.sort((a, b) => ordinalOf(set, b) - ordinalOf(set, a));
    let firstUnhealthy: Pod | undefined;
    for (const s of slots) if (!firstUnhealthy && s.created && !isHealthy(s.pod)) firstUnhealthy = s.pod;
    for (let i = condemned.length - 1; i >= 0 && !firstUnhealthy; i--)
      if (!isHealthy(condemned[i])) firstUnhealthy = condemned[i];
    const status = () => computeStatus(slots, condemned, mrs, now, revs);
    if (set.metadata.deletionTimestamp) return status();
    const monotonic = !allowsBurst(set);

    // 1. the living replicas, in ordinal order
    if (
      await this.runForAll(slots.length, monotonic, (i) =>
        this.processReplica(set, slots, i, monotonic, mrs, now),
      )
    )
      return status();
    // 2. the condemned, highest ordinal first
    if (
      await this.runForAll(condemned.length, monotonic, (i) =>
        this.processCondemned(set, condemned[i], firstUnhealthy, monotonic, mrs, now),
      )
    )
      return status();
    const seen = status();
    if ((set.spec.updateStrategy?.type ?? 'RollingUpdate') === 'OnDelete') return seen;
    // 3. RollingUpdate: replace the highest ordinal ≥ partition not at the update revision
    const partition = set.spec.updateStrategy?.rollingUpdate?.partition ?? 0;
    for (let target = slots.length - 1; target >= partition; target--) {
      const p = slots[target].pod;
      if (revisionOf(p) !== revs.update.metadata.name && !isTerminating(p)) {
        await this.deletePod(set, p);
        return seen;
      }
      if (!isHealthy(p)) return seen; // wait for the replacement
    }
    return seen;
  }

  /** runForAll: in order, stopping at the first that says stop (OrderedReady), or all at once (Parallel) */
  private async runForAll(
    n: number,
    monotonic: boolean,
    fn: (i: number) => Promise<boolean>,
  ): Promise<boolean> {
    if (monotonic) {
      for (let i = 0; i < n; i++) if (await fn(i)) return true;
      return false;
    }
    const r = await slowStartBatch(n, 1, async (i) => {
      await fn(i);
    });
    if (r.error !== undefined) throw r.error;
    return false;
  }

  /** processReplica: returns true when the walk must stop here */
  private async processReplica(
    set: StatefulSet,
    slots: Slot[],
    i: number,
    monotonic: boolean,
    mrs: number,
    now: number,
  ): Promise<boolean> {
    const { pod, created } = slots[i];
    if (created && (isFailed(pod) || isSucceeded(pod))) {
      // recreated on a later sync, once this one is gone
      if (!isTerminating(pod)) await this.deletePod(set, pod);
      return true;
    }
    if (!created) {
      await this.createClaims(set, ordinalOf(set, pod));
      const made = await this.deps.api.create('pods', pod);
      this.podsCreated++;
      this.deps.recorder.event(
        set,
        'Normal',
        'SuccessfulCreate',
        `create Pod ${made.metadata.name} in StatefulSet ${set.metadata.name} successful`,
      );
      slots[i] = { pod: made, created: true };
      return monotonic;
    }
    if (isTerminating(pod) && monotonic) return true;
    if (!isRunningAndReady(pod) && monotonic) return true;
    if (!isRunningAndAvailable(pod, mrs, now) && monotonic) return true;
    // enforce the identity invariants (labels someone removed)
    const ordinal = ordinalOf(set, pod);
    if (!identityMatches(set, pod, ordinal)) {
      const fixed = structuredClone(pod);
      setIdentity(set, fixed, ordinal);
      fixed.spec = pod.spec; // the spec of a running pod cannot change
      try {
        await this.deps.api.update('pods', fixed);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    return false;
  }

  /** processCondemned: delete one surplus pod once every lower one is healthy */
  private async processCondemned(
    set: StatefulSet,
    pod: Pod,
    firstUnhealthy: Pod | undefined,
    monotonic: boolean,
    mrs: number,
    now: number,
  ): Promise<boolean> {
    if (isTerminating(pod)) return monotonic;
    if (!isRunningAndReady(pod) && monotonic && pod !== firstUnhealthy) return true;
    if (!isRunningAndAvailable(pod, mrs, now) && monotonic && pod !== firstUnhealthy) return true;
    if (set.spec.persistentVolumeClaimRetentionPolicy?.whenScaled === 'Delete')
      await this.ownClaims(set, ordinalOf(set, pod), pod);
    await this.deletePod(set, pod);
    return true;
  }

  /** getPersistentVolumeClaims: the ordinal's claims from the templates */
  private claimsFor(set: StatefulSet, ordinal: number): PersistentVolumeClaim[] {
    const selectorLabels = set.spec.selector?.matchLabels ?? {};
    return (set.spec.volumeClaimTemplates ?? []).map((t) => {
      const tmpl = t.metadata?.name ?? '';
      const owners: OwnerReference[] =
        set.spec.persistentVolumeClaimRetentionPolicy?.whenDeleted === 'Delete' ? [ownerRef(set)] : [];
      return {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: {
          ...(t.metadata ?? {}),
          name: claimName(set, tmpl, ordinal),
          namespace: set.metadata.namespace,
          labels: { ...(t.metadata?.labels ?? {}), ...selectorLabels },
          ...(owners.length ? { ownerReferences: owners } : {}),
        },
        spec: structuredClone((t.spec ?? {}) as PersistentVolumeClaim['spec']),
      };
    });
  }

  /** createPersistentVolumeClaims: the missing claims of an ordinal */
  private async createClaims(set: StatefulSet, ordinal: number): Promise<void> {
    for (const claim of this.claimsFor(set, ordinal)) {
      if (this.claimInformer.get(claim.metadata.namespace, claim.metadata.name!)) continue;
      try {
        await this.deps.api.create('persistentvolumeclaims', claim);
        this.deps.recorder.event(
          set,
          'Normal',
          'SuccessfulCreate',
          `create Claim ${claim.metadata.name} Pod ${podName(set, ordinal)} in StatefulSet ${set.metadata.name} success`,
        );
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }
  }

  /** whenScaled: Delete — the condemned pod, not the set, owns its claims, so they go with it */
  private async ownClaims(set: StatefulSet, ordinal: number, pod: Pod): Promise<void> {
    for (const c of this.claimsFor(set, ordinal)) {
      const cur = this.claimInformer.get(c.metadata.namespace, c.metadata.name!);
      if (!cur || (cur.metadata.ownerReferences ?? []).some((o) => o.uid === pod.metadata.uid)) continue;
      // a scaled-down pod's claim: the pod replaces the set as owner (updateClaimOwnerRefForSetAndPod)
      const kept = (cur.metadata.ownerReferences ?? []).filter((o) => o.uid !== set.metadata.uid);
      try {
        await this.deps.api.update('persistentvolumeclaims', {
          ...cur,
          metadata: { ...cur.metadata, ownerReferences: [...kept, ownerRef(pod)] },
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }

  private async deletePod(set: StatefulSet, pod: Pod): Promise<void> {
    try {
      await this.deps.api.delete('pods', pod.metadata.namespace, pod.metadata.name!, {
        gracePeriodSeconds: podGracePeriod(pod),
        preconditions: { uid: pod.metadata.uid },
      });
      this.podsDeleted++;
      this.deps.recorder.event(
        set,
        'Normal',
        'SuccessfulDelete',
        `delete Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`,
      );
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** updateStatefulSetStatus + completeRollingUpdate */
  private async writeStatus(set: StatefulSet, seen: StatefulSetStatus, revs: Revisions): Promise<void> {
    const next: StatefulSetStatus = {
      ...seen,
      observedGeneration: set.metadata.generation,
      currentRevision: revs.current.metadata.name,
      updateRevision: revs.update.metadata.name,
      collisionCount: revs.collisionCount,
    };
    const rolling = (set.spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
    if (rolling && next.updatedReplicas === next.replicas && next.readyReplicas === next.replicas) {
      next.currentReplicas = next.updatedReplicas;
      next.currentRevision = next.updateRevision;
    }
    if (canonicalJson(next) === canonicalJson(set.status ?? {})) return;
    try {
      await this.deps.api.updateStatus('statefulsets', { ...set, status: next });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    // availability after minReadySeconds
    const mrs = set.spec.minReadySeconds ?? 0;
    if (mrs > 0 && (next.availableReplicas ?? 0) < (next.readyReplicas ?? 0))
      this.queue.addAfter(keyOf(set), mrs * 1000);
  }
}

function templateOf(r: ControllerRevision): PodTemplateSpec | undefined {
  const t = r.data?.spec?.template;
  if (!t) return undefined;
  const { $patch: _, ...rest } = t;
  return rest;
}

const revisionOf = (p: Pod) => p.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL];

/** updateStatus / computeReplicaStatus over the slots (only created pods count) and the condemned */
function computeStatus(
  slots: Slot[],
  condemned: Pod[],
  mrs: number,
  now: number,
  revs: Revisions,
): StatefulSetStatus {
  const s = { replicas: 0, readyReplicas: 0, availableReplicas: 0, currentReplicas: 0, updatedReplicas: 0 };
  const count = (p: Pod) => {
    s.replicas++;
    if (isRunningAndReady(p)) {
      s.readyReplicas++;
      if (isRunningAndAvailable(p, mrs, now)) s.availableReplicas++;
    }
    if (isTerminating(p)) return;
    if (revisionOf(p) === revs.current.metadata.name) s.currentReplicas++;
    if (revisionOf(p) === revs.update.metadata.name) s.updatedReplicas++;
  };
  for (const sl of slots) if (sl.created && isCreated(sl.pod)) count(sl.pod);
  for (const p of condemned) count(p);
  return s;
}

/**
 * The Deployment controller (pkg/controller/deployment): owns ReplicaSets, one per pod template
 * revision, and moves replicas between them.
 *
 * - The new ReplicaSet is the one whose template equals the Deployment's (ignoring the
 *   pod-template-hash label); it is created as `<deployment>-<hash>` with the hash as label and
 *   selector term, revision annotation max(old)+1, desired-replicas/max-replicas annotations.
 * - RollingUpdate: scale the new ReplicaSet up to replicas+maxSurge in total, scale old ones down
 *   keeping replicas−maxUnavailable available (see deployment-util.ts for the arithmetic).
 * - Recreate: scale every old ReplicaSet to 0, wait until no old pod is running, then scale the new one up.
 * - Scaling (spec.replicas changed while not rolling): the active ReplicaSet is resized; during a
 *   rollout, proportional scaling by the max-replicas annotation as upstream.
 * - Status: replicas/updated/ready/available/unavailable, Available and Progressing conditions;
 *   old ReplicaSets beyond revisionHistoryLimit (default 10) with 0 replicas are deleted.
 * - Rollback: {@link rollbackDeployment} does what `kubectl rollout undo [--to-revision]` does.
 *
 * Simplified: no adoption of orphan ReplicaSets, no progressDeadlineSeconds timeout condition,
 * collision handling only bumps status.collisionCount.
 */
import { rfc3339 } from '../api/time.js';
import type { Deployment, Pod, ReplicaSet } from '../api/types.js';
import { type ApiClient, isAlreadyExists, isNotFound, keyOf } from '../client/api.js';
import type { Informer } from '../client/informer.js';
import { WorkQueue, runWorkers } from '../client/workqueue.js';
import {
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  POD_TEMPLATE_HASH_LABEL,
  REVISION_ANNOTATION,
  availableSum,
  computeTemplateHash,
  isRollingUpdate,
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
  planNewReplicaSet,
  objectTemplateKey,
  planOldReplicaSets,
  replicasOf,
  revisionOf,
  specReplicaSum,
  templatesEqualIgnoringHash,
} from './deployment-util.js';
import { CONTROLLER_UID_INDEX, controllerOf, controllerRef, controllerUidIndex } from './pod-util.js';
import type { ControllerDeps } from './replicaset.js';

export class DeploymentController {
  readonly queue: WorkQueue<string>;
  private readonly dInformer: Informer<Deployment>;
  private readonly rsInformer: Informer<ReplicaSet>;
  private readonly podInformer: Informer<Pod>;
  private running?: Promise<void>;
  /** uid/generation → template key (see objectTemplateKey) */
  private readonly templateKeys = new Map<string, string>();

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new WorkQueue<string>(deps.clock, undefined, 'deployment');
    this.dInformer = deps.informers.for<Deployment>('deployments');
    this.rsInformer = deps.informers.for<ReplicaSet>('replicasets');
    this.podInformer = deps.informers.for<Pod>('pods');
    try {
      this.rsInformer.addIndexer(CONTROLLER_UID_INDEX, controllerUidIndex);
    } catch {
      /* shared */
    }
    try {
      this.podInformer.addIndexer(CONTROLLER_UID_INDEX, controllerUidIndex);
    } catch {
      /* shared */
    }
    this.dInformer.addEventHandler({
      onAdd: (d) => this.queue.add(keyOf(d)),
      onUpdate: (_o, d) => this.queue.add(keyOf(d)),
      onDelete: (d) => this.queue.add(keyOf(d)),
    });
    const enqueueOwner = (rs: ReplicaSet) => {
      const ref = controllerOf(rs);
      if (ref?.kind === 'Deployment') this.queue.add(`${rs.metadata.namespace}/${ref.name}`);
    };
    this.rsInformer.addEventHandler({
      onAdd: enqueueOwner,
      onUpdate: (_o, rs) => enqueueOwner(rs),
      onDelete: enqueueOwner,
    });
    // Recreate waits for old pods to go away: a deleted pod may unblock its deployment
    this.podInformer.addEventHandler({
      onDelete: (pod) => {
        const ref = controllerOf(pod);
        if (ref?.kind !== 'ReplicaSet') return;
        const rs = this.rsInformer.get(pod.metadata.namespace, ref.name);
        if (rs) enqueueOwner(rs);
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

  private get api(): ApiClient {
    return this.deps.api;
  }

  /** syncDeployment */
  async sync(key: string): Promise<void> {
    const cached = this.dInformer.getByKey(key);
    if (!cached || cached.metadata.deletionTimestamp) return;
    // upstream syncDeployment: "Deep-copy otherwise we are mutating our cache" (the sync replaces
    // the copy's metadata after writing the revision annotation; nothing deeper is changed)
    const d = { ...cached };
    const rsList = this.rsInformer.byIndex(CONTROLLER_UID_INDEX, d.metadata.uid!);
    if (d.spec.paused) {
      await this.scale(d, rsList);
      return this.syncStatus(d, rsList);
    }
    if (this.isScalingEvent(d, rsList)) return this.syncScaling(d, rsList);
    if (isRollingUpdate(d)) return this.rolloutRolling(d, rsList);
    return this.rolloutRecreate(d, rsList);
  }

  private split(d: Deployment, rsList: ReplicaSet[]): { newRS?: ReplicaSet; oldRSs: ReplicaSet[] } {
    const sorted = [...rsList].sort(
      (a, b) =>
        (Date.parse(a.metadata.creationTimestamp ?? '') || 0) -
          (Date.parse(b.metadata.creationTimestamp ?? '') || 0) ||
        ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1),
    );
    const dk = objectTemplateKey(d, this.templateKeys);
    const newRS = sorted.find((rs) => objectTemplateKey(rs, this.templateKeys) === dk);
    return { newRS, oldRSs: sorted.filter((rs) => rs !== newRS) };
  }

  /** getNewReplicaSet: find (and re-annotate) or create the ReplicaSet for the current template */
  private async getNewReplicaSet(
    d: Deployment,
    rsList: ReplicaSet[],
    create: boolean,
  ): Promise<{ newRS?: ReplicaSet; oldRSs: ReplicaSet[] }> {
    const { newRS, oldRSs } = this.split(d, rsList);
    const maxOld = oldRSs.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);
    const newRevision = String(maxOld + 1);
    if (newRS) {
      const ann = newRS.metadata.annotations ?? {};
      if (revisionOf(newRS) < maxOld + 1 || ann[DESIRED_REPLICAS_ANNOTATION] === undefined) {
        const updated = await this.api.update<ReplicaSet>('replicasets', {
          ...newRS,
          metadata: {
            ...newRS.metadata,
            annotations: {
              ...ann,
              [REVISION_ANNOTATION]: revisionOf(newRS) < maxOld + 1 ? newRevision : ann[REVISION_ANNOTATION],
              [DESIRED_REPLICAS_ANNOTATION]: String(replicasOf(d)),
              [MAX_REPLICAS_ANNOTATION]: String(replicasOf(d) + maxSurge(d)),
            },
          },
        });
        await this.setDeploymentRevision(d, updated);
        return { newRS: updated, oldRSs };
      }
      await this.setDeploymentRevision(d, newRS);
      return { newRS, oldRSs };
    }
    if (!create) return { oldRSs };
    const collisionCount = (d.status as { collisionCount?: number } | undefined)?.collisionCount;
    const hash = computeTemplateHash(d.spec.template, collisionCount);
    const template = structuredClone(d.spec.template);
    template.metadata = {
      ...(template.metadata ?? {}),
      labels: { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash },
    };
    const rs: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata.name}-${hash}`,
        namespace: d.metadata.namespace,
        labels: { ...(template.metadata.labels ?? {}) },
        annotations: {
          [REVISION_ANNOTATION]: newRevision,
          [DESIRED_REPLICAS_ANNOTATION]: String(replicasOf(d)),
          [MAX_REPLICAS_ANNOTATION]: String(replicasOf(d) + maxSurge(d)),
        },
        ownerReferences: [controllerRef(d)],
      },
      spec: {
        replicas: 0,
        minReadySeconds: d.spec.minReadySeconds,
        selector: {
          ...d.spec.selector,
          matchLabels: { ...(d.spec.selector.matchLabels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash },
        },
        template,
      },
    };
    rs.spec.replicas = newRSNewReplicas(d, oldRSs, rs);
    let created: ReplicaSet;
    try {
      created = await this.api.create('replicasets', rs);
    } catch (err) {
      if (isAlreadyExists(err)) {
        // a ReplicaSet of that name with another template: bump collisionCount and retry with a new hash
        const existing = await this.api.get<ReplicaSet>(
          'replicasets',
          rs.metadata.namespace,
          rs.metadata.name!,
        );
        if (
          controllerOf(existing)?.uid === d.metadata.uid &&
          templatesEqualIgnoringHash(existing.spec.template, d.spec.template)
        )
          return { newRS: existing, oldRSs };
        await this.api.updateStatus('deployments', {
          ...d,
          status: { ...(d.status ?? {}), collisionCount: (collisionCount ?? 0) + 1 } as Deployment['status'],
        });
      }
      throw err;
    }
    if ((created.spec.replicas ?? 0) > 0)
      this.deps.recorder.event(
        d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled up replica set ${created.metadata.name} from 0 to ${created.spec.replicas}`,
      );
    await this.setDeploymentRevision(d, created);
    return { newRS: created, oldRSs };
  }

  private async setDeploymentRevision(d: Deployment, newRS: ReplicaSet): Promise<void> {
    const rev = newRS.metadata.annotations?.[REVISION_ANNOTATION];
    if (!rev || d.metadata.annotations?.[REVISION_ANNOTATION] === rev) return;
    const updated = await this.api.update<Deployment>('deployments', {
      ...d,
      metadata: {
        ...d.metadata,
        annotations: { ...(d.metadata.annotations ?? {}), [REVISION_ANNOTATION]: rev },
      },
    });
    // keep working on the object we just wrote (its resourceVersion is current)
    Object.assign(d, { metadata: updated.metadata });
  }

  private async scaleRS(d: Deployment, rs: ReplicaSet, to: number): Promise<ReplicaSet> {
    const from = rs.spec.replicas ?? 0;
    const ann = {
      ...(rs.metadata.annotations ?? {}),
      [DESIRED_REPLICAS_ANNOTATION]: String(replicasOf(d)),
      [MAX_REPLICAS_ANNOTATION]: String(replicasOf(d) + maxSurge(d)),
    };
    const updated = await this.api.update<ReplicaSet>('replicasets', {
      ...rs,
      metadata: { ...rs.metadata, annotations: ann },
      spec: { ...rs.spec, replicas: to },
    });
    if (from !== to)
      this.deps.recorder.event(
        d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled ${to > from ? 'up' : 'down'} replica set ${rs.metadata.name} from ${from} to ${to}`,
      );
    return updated;
  }

  /** isScalingEvent: an active ReplicaSet was sized for another spec.replicas */
  private isScalingEvent(d: Deployment, rsList: ReplicaSet[]): boolean {
    for (const rs of rsList) {
      if ((rs.spec.replicas ?? 0) === 0) continue;
      const desired = rs.metadata.annotations?.[DESIRED_REPLICAS_ANNOTATION];
      if (desired !== undefined && Number(desired) !== replicasOf(d)) return true;
    }
    return false;
  }

  private async syncScaling(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { newRS, oldRSs } = await this.getNewReplicaSet(d, rsList, false);
    const all = newRS ? [...oldRSs, newRS] : oldRSs;
    await this.scale(d, all, newRS);
    await this.syncStatus(d, this.rsInformer.byIndex(CONTROLLER_UID_INDEX, d.metadata.uid!));
  }

  /** scale(): resize the active ReplicaSet, or proportionally across several during a rollout */
  private async scale(d: Deployment, all: ReplicaSet[], newRS?: ReplicaSet): Promise<void> {
    const active = all.filter((rs) => (rs.spec.replicas ?? 0) > 0);
    const want = replicasOf(d);
    if (active.length <= 1) {
      const target = active[0] ?? newRS ?? [...all].sort((a, b) => revisionOf(b) - revisionOf(a))[0];
      if (!target) return;
      if (
        (target.spec.replicas ?? 0) !== want ||
        target.metadata.annotations?.[DESIRED_REPLICAS_ANNOTATION] !== String(want)
      )
        await this.scaleRS(d, target, want);
      return;
    }
    if (newRS && (newRS.spec.replicas ?? 0) === want && (newRS.status?.availableReplicas ?? 0) >= want) {
      for (const rs of active) if (rs !== newRS) await this.scaleRS(d, rs, 0);
      return;
    }
    if (!isRollingUpdate(d)) return;
    const allowed = want + maxSurge(d);
    const current = specReplicaSum(active);
    const toAdd = allowed - current;
    // largest (then newest) first, as ReplicaSetsBySizeNewer / BySizeOlder
    const ordered = [...active].sort((a, b) =>
      toAdd > 0
        ? (b.spec.replicas ?? 0) - (a.spec.replicas ?? 0) || revisionOf(b) - revisionOf(a)
        : (b.spec.replicas ?? 0) - (a.spec.replicas ?? 0) || revisionOf(a) - revisionOf(b),
    );
    const targets = new Map<ReplicaSet, number>();
    let added = 0;
    for (const rs of ordered) {
      const size = rs.spec.replicas ?? 0;
      let proportion = 0;
      if (toAdd !== 0) {
        const annotated = Number(rs.metadata.annotations?.[MAX_REPLICAS_ANNOTATION] ?? current) || current;
        const fraction = Math.round((size * allowed) / annotated) - size;
        proportion = toAdd > 0 ? Math.min(fraction, toAdd - added) : Math.max(fraction, toAdd - added);
      }
      targets.set(rs, size + proportion);
      added += proportion;
    }
    const leftover = toAdd - added;
    if (ordered.length) targets.set(ordered[0], Math.max(0, targets.get(ordered[0])! + leftover));
    for (const [rs, n] of targets) await this.scaleRS(d, rs, n);
  }

  private async rolloutRolling(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { newRS, oldRSs } = await this.getNewReplicaSet(d, rsList, true);
    const all = newRS ? [...oldRSs, newRS] : oldRSs;
    if (newRS) {
      const target = planNewReplicaSet(d, all, newRS);
      if (target !== undefined) {
        await this.scaleRS(d, newRS, target);
        return this.syncStatus(d, this.rsInformer.byIndex(CONTROLLER_UID_INDEX, d.metadata.uid!));
      }
    }
    const plan = planOldReplicaSets(d, all, oldRSs, newRS);
    if (plan.size > 0) {
      for (const rs of oldRSs) {
        const n = plan.get(rs.metadata.name!);
        if (n !== undefined && n !== rs.spec.replicas) await this.scaleRS(d, rs, n);
      }
      return this.syncStatus(d, this.rsInformer.byIndex(CONTROLLER_UID_INDEX, d.metadata.uid!));
    }
    if (newRS && this.complete(d, newRS, all)) await this.cleanup(d, oldRSs);
    return this.syncStatus(d, all);
  }

  private async rolloutRecreate(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    let { newRS, oldRSs } = await this.getNewReplicaSet(d, rsList, false);
    let scaledDown = false;
    for (const rs of oldRSs)
      if ((rs.spec.replicas ?? 0) > 0) {
        await this.scaleRS(d, rs, 0);
        scaledDown = true;
      }
    if (scaledDown) return this.syncStatus(d, rsList);
    // oldPodsRunning: an old ReplicaSet still reports pods, or an old pod is not terminal
    for (const rs of oldRSs) {
      if ((rs.status?.replicas ?? 0) > 0) return this.syncStatus(d, rsList);
      for (const p of this.podInformer.byIndex(CONTROLLER_UID_INDEX, rs.metadata.uid!)) {
        const ph = p.status?.phase;
        if (ph !== 'Failed' && ph !== 'Succeeded') return this.syncStatus(d, rsList);
      }
    }
    if (!newRS) ({ newRS, oldRSs } = await this.getNewReplicaSet(d, rsList, true));
    if (newRS && (newRS.spec.replicas ?? 0) !== replicasOf(d)) {
      await this.scaleRS(d, newRS, replicasOf(d));
      return this.syncStatus(d, this.rsInformer.byIndex(CONTROLLER_UID_INDEX, d.metadata.uid!));
    }
    const all = newRS ? [...oldRSs, newRS] : oldRSs;
    if (newRS && this.complete(d, newRS, all)) await this.cleanup(d, oldRSs);
    return this.syncStatus(d, all);
  }

  /** DeploymentComplete: every replica updated and available, none of the old ones left */
  private complete(d: Deployment, newRS: ReplicaSet, all: ReplicaSet[]): boolean {
    const want = replicasOf(d);
    let total = 0;
    for (const rs of all) total += rs.status?.replicas ?? 0;
    return (
      (newRS.status?.replicas ?? 0) === want &&
      (newRS.status?.availableReplicas ?? 0) === want &&
      total === want
    );
  }

  /** cleanupDeployment: delete old, empty ReplicaSets beyond revisionHistoryLimit */
  private async cleanup(d: Deployment, oldRSs: ReplicaSet[]): Promise<void> {
    const limit = d.spec.revisionHistoryLimit ?? 10;
    const empty = oldRSs.filter(
      (rs) =>
        (rs.spec.replicas ?? 0) === 0 && (rs.status?.replicas ?? 0) === 0 && !rs.metadata.deletionTimestamp,
    );
    const excess = oldRSs.length - limit;
    if (excess <= 0) return;
    empty.sort((a, b) => revisionOf(a) - revisionOf(b));
    for (const rs of empty.slice(0, excess)) {
      try {
        await this.api.delete('replicasets', rs.metadata.namespace, rs.metadata.name!);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }

  private async syncStatus(d: Deployment, all: ReplicaSet[]): Promise<void> {
    const { newRS } = this.split(d, all);
    const want = replicasOf(d);
    let replicas = 0,
      ready = 0;
    for (const rs of all) {
      replicas += rs.status?.replicas ?? 0;
      ready += rs.status?.readyReplicas ?? 0;
    }
    const available = availableSum(all);
    const updated = newRS?.status?.replicas ?? 0;
    const now = rfc3339(this.deps.clock.now());
    const prev = d.status?.conditions ?? [];
    const cond = (type: string, status: string, reason: string, message: string) => {
      const p = prev.find((c) => c.type === type);
      const same = p && p.status === status;
      return {
        type,
        status,
        reason,
        message,
        lastUpdateTime: same && p.reason === reason ? p.lastUpdateTime : now,
        lastTransitionTime: same ? p.lastTransitionTime : now,
      };
    };
    const minAvail = want - maxUnavailable(d);
    const conditions = [
      available >= minAvail
        ? cond('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.')
        : cond(
            'Available',
            'False',
            'MinimumReplicasUnavailable',
            'Deployment does not have minimum availability.',
          ),
      newRS && updated === want && available === want && replicas === want
        ? cond(
            'Progressing',
            'True',
            'NewReplicaSetAvailable',
            `ReplicaSet "${newRS.metadata.name}" has successfully progressed.`,
          )
        : cond(
            'Progressing',
            'True',
            'ReplicaSetUpdated',
            `ReplicaSet "${newRS?.metadata.name ?? ''}" is progressing.`,
          ),
    ];
    const status = {
      ...(d.status ?? {}),
      observedGeneration: d.metadata.generation,
      replicas,
      updatedReplicas: updated,
      readyReplicas: ready,
      availableReplicas: available,
      unavailableReplicas: Math.max(0, replicas - available, want - available),
      conditions,
    };
    const s = d.status ?? {};
    if (
      s.observedGeneration === status.observedGeneration &&
      s.replicas === replicas &&
      s.updatedReplicas === updated &&
      s.readyReplicas === ready &&
      s.availableReplicas === available &&
      s.unavailableReplicas === status.unavailableReplicas &&
      JSON.stringify(s.conditions?.map((c) => [c.type, c.status, c.reason])) ===
        JSON.stringify(conditions.map((c) => [c.type, c.status, c.reason]))
    )
      return;
    try {
      await this.api.updateStatus('deployments', { ...d, status });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

/**
 * `kubectl rollout undo deployment/<name> [--to-revision=N]`: copy the pod template of the
 * ReplicaSet with revision N (default: the previous revision) into the Deployment. The controller
 * then treats that ReplicaSet as the new one and gives it the next revision number.
 */
export async function rollbackDeployment(
  api: ApiClient,
  namespace: string,
  name: string,
  toRevision?: number,
): Promise<number> {
  const d = await api.get<Deployment>('deployments', namespace, name);
  const rsList = (await api.list<ReplicaSet>('replicasets', { namespace })).items.filter(
    (rs) => controllerOf(rs)?.uid === d.metadata.uid,
  );
  const byRev = rsList.map((rs) => [revisionOf(rs), rs] as const).sort((a, b) => b[0] - a[0]);
  const current = Number(d.metadata.annotations?.[REVISION_ANNOTATION] ?? '0');
  const target = toRevision
    ? byRev.find(([r]) => r === toRevision)
    : (byRev.find(([r]) => r !== current && r < current) ?? byRev.find(([r]) => r !== current));
  if (!target)
    throw new Error(
      toRevision
        ? `unable to find specified revision ${toRevision} in history`
        : 'no rollout history found for deployment ' + JSON.stringify(name),
    );
  const template = structuredClone(target[1].spec.template);
  if (template.metadata?.labels) delete template.metadata.labels[POD_TEMPLATE_HASH_LABEL];
  await api.update('deployments', { ...d, spec: { ...d.spec, template } });
  return target[0];
}

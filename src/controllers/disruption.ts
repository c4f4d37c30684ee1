/**
 * The disruption controller (upstream: pkg/controller/disruption/disruption.go, v1.34): keeps each
 * PodDisruptionBudget's status, which the Eviction subresource (src/api/apiserver-evict.ts) and
 * preemption read.
 *
 * trySync, step by step:
 * 1. the budget's pods: the namespace's pods its selector matches (getPodsForPdb; here `{}` selects
 *    every pod, as LabelSelectorAsSelector does — unlike the eviction's own lookup);
 * 2. expected and desired healthy pods (getExpectedPodCount): an integer minAvailable counts the pods
 *    found; a percentage, or maxUnavailable, scales by the pods' controllers (getExpectedScale: the
 *    sum of spec.replicas of each ReplicationController, ReplicaSet — through its Deployment when it
 *    has one — and StatefulSet owning a selected pod; pods without a controller are not counted, a
 *    controller of another kind fails the sync), percentages rounded up; desiredHealthy =
 *    minAvailable, or expected − maxUnavailable (never below 0);
 * 3. disruptedPods keeps only the evicted pods still present, not yet being deleted and evicted less
 *    than 2 min ago (DeletionTimeout); the earliest expiry requeues the budget (buildDisruptedPodMap);
 * 4. currentHealthy: pods not being deleted, not in disruptedPods, and Ready (countHealthyPods);
 * 5. disruptionsAllowed = currentHealthy − desiredHealthy (0 when negative or nothing is expected);
 *    condition DisruptionAllowed True/SufficientPods or False/InsufficientPods; observedGeneration.
 * A sync that fails (invalid selector, unknown controller) writes the fail-safe status:
 * disruptionsAllowed 0 and DisruptionAllowed False/SyncFailed with the error (failSafe).
 *
 * Simplified: the generic scale subresource finder (custom resources) is not consulted; the
 * stale DisruptionTarget pod condition is not cleaned up; unmanaged pods are not reported by event.
 */
import type { Condition, PodDisruptionBudget } from '../api/batch-types.js';
import { SelectorError, labelSelectorAsSelector } from '../api/label-selector.js';
import { rfc3339 } from '../api/time.js';
import { isQualifiedName } from '../api/validation-names.js';
import type { Deployment, KubeObject, OwnerReference, Pod, ReplicaSet, StatefulSet } from '../api/types.js';
import { isConflict, isNotFound, keyOf } from '../client/api.js';
import type { Informer } from '../client/informer.js';
import { WorkQueue, runWorkers } from '../client/workqueue.js';
import { scaledValue } from './deployment-util.js';
import { controllerOf, isPodReady } from './pod-util.js';
import type { ControllerDeps } from './replicaset.js';

/** DeletionTimeout: an eviction not followed by the pod's deletion within 2 min is forgotten */
export const DELETION_TIMEOUT_MS = 2 * 60_000;

type PdbStatus = NonNullable<PodDisruptionBudget['status']>;

/** how getExpectedScale resolves a pod's controller: its uid and scale, or why not */
export type ScaleLookup = (ns: string, ref: OwnerReference) => { uid: string; scale: number } | undefined;

export interface PdbSyncInput {
  pdb: PodDisruptionBudget;
  /** the pods of the budget's namespace */
  pods: Pod[];
  nowMs: number;
  scaleOf: ScaleLookup;
}

export interface PdbSyncResult {
  status: PdbStatus;
  /** when a disruptedPods entry expires */
  recheckAfterMs?: number;
  error?: string;
}

const groupOf = (apiVersion: string | undefined) => {
  const v = apiVersion ?? '';
  const i = v.indexOf('/');
  return i < 0 ? '' : v.slice(0, i);
};

/**
 * The finders of getExpectedScale over listers: a ReplicationController (core group), a ReplicaSet
 * not controlled by a Deployment, a Deployment through its ReplicaSet, a StatefulSet — each matched
 * by uid, as upstream's getPodReplicaSet / getPodDeployment / getPodReplicationController /
 * getPodStatefulSet.
 */
export function scaleFinder(
  get: (resource: string, ns: string, name: string) => KubeObject | undefined,
): ScaleLookup {
  const replicas = (o: KubeObject) => ((o as { spec?: { replicas?: number } }).spec?.replicas ?? 1) as number;
  return (ns, ref) => {
    const g = groupOf(ref.apiVersion);
    if (ref.kind === 'ReplicationController' && g === '') {
      const rc = get('replicationcontrollers', ns, ref.name);
      return rc && rc.metadata.uid === ref.uid ? { uid: ref.uid, scale: replicas(rc) } : undefined;
    }
    if (ref.kind === 'ReplicaSet' && (g === 'apps' || g === 'extensions')) {
      const rs = get('replicasets', ns, ref.name) as ReplicaSet | undefined;
      if (!rs || rs.metadata.uid !== ref.uid) return undefined;
      const owner = controllerOf(rs);
      if (owner?.kind === 'Deployment' && ['apps', 'extensions'].includes(groupOf(owner.apiVersion))) {
        const d = get('deployments', ns, owner.name) as Deployment | undefined;
        return d && d.metadata.uid === owner.uid ? { uid: owner.uid, scale: replicas(d) } : undefined;
      }
      return { uid: ref.uid, scale: replicas(rs) };
    }
    if (ref.kind === 'StatefulSet' && g === 'apps') {
      const ss = get('statefulsets', ns, ref.name) as StatefulSet | undefined;
      return ss && ss.metadata.uid === ref.uid ? { uid: ref.uid, scale: replicas(ss) } : undefined;
    }
    return undefined;
  };
}

function condition(
  status: 'True' | 'False',
  reason: string,
  message: string,
  prev: Condition[] | undefined,
  now: string,
  gen: number,
): Condition[] {
  const old = prev?.find((c) => c.type === 'DisruptionAllowed');
  return [
    {
      type: 'DisruptionAllowed',
      status,
      reason,
      message,
      observedGeneration: gen,
      lastTransitionTime: old?.status === status ? (old.lastTransitionTime ?? now) : now,
    },
  ];
}

/** the fail-safe status: no disruption allowed, SyncFailed (failSafe) */
function failSafe(pdb: PodDisruptionBudget, nowMs: number, err: string): PdbSyncResult {
  const st = pdb.status;
  const gen = pdb.metadata.generation ?? 1;
  return {
    error: err,
    status: {
      currentHealthy: st?.currentHealthy ?? 0,
      desiredHealthy: st?.desiredHealthy ?? 0,
      expectedPods: st?.expectedPods ?? 0,
      disruptedPods: st?.disruptedPods,
      disruptionsAllowed: 0,
      observedGeneration: gen,
      conditions: condition('False', 'SyncFailed', err, st?.conditions, rfc3339(nowMs), gen),
    },
  };
}

/** trySync as a pure function of the budget, its namespace's pods and the controllers' scales */
export function computePdbStatus(input: PdbSyncInput): PdbSyncResult {
  const { pdb, nowMs } = input;
  // 1. the pods
  let pods: Pod[];
  try {
    // labels.NewRequirement also checks each key (validateLabelKey)
    const sel = pdb.spec.selector;
    for (const k of [
      ...Object.keys(sel?.matchLabels ?? {}),
      ...(sel?.matchExpressions ?? []).map((e) => e.key),
    ]) {
      const errs = isQualifiedName(k);
      if (errs.length)
        return failSafe(pdb, nowMs, `key: Invalid value: ${JSON.stringify(k)}: ${errs.join('; ')}`);
    }
    const selector = labelSelectorAsSelector(sel);
    pods = input.pods.filter((p) => selector.matches(p.metadata.labels));
  } catch (e) {
    if (e instanceof SelectorError) return failSafe(pdb, nowMs, e.message);
    throw e;
  }
  // 2. expected and desired
  let expected: number;
  let desired: number;
  const expectedScale = (): number | string => {
    const scales = new Map<string, number>();
    for (const p of pods) {
      const ref = controllerOf(p);
      if (!ref) continue; // unmanaged: not expected
      const found = input.scaleOf(p.metadata.namespace ?? 'default', ref);
      if (!found) return `found no controllers for pod "${p.metadata.name}"`;
      scales.set(found.uid, found.scale);
    }
    let n = 0;
    for (const s of scales.values()) n += s;
    return n;
  };
  try {
    const { minAvailable, maxUnavailable } = pdb.spec;
    if (maxUnavailable !== undefined) {
      const e = expectedScale();
      if (typeof e === 'string') return failSafe(pdb, nowMs, e);
      expected = e;
      desired = Math.max(0, expected - scaledValue(maxUnavailable, expected, true));
    } else if (typeof minAvailable === 'number' || minAvailable === undefined) {
      expected = pods.length;
      desired = minAvailable ?? 0;
    } else {
      const e = expectedScale();
      if (typeof e === 'string') return failSafe(pdb, nowMs, e);
      expected = e;
      desired = scaledValue(minAvailable, expected, true);
    }
  } catch (e) {
    return failSafe(pdb, nowMs, (e as Error).message);
  }
  // 3. disrupted pods still pending deletion
  const byName = new Map(pods.map((p) => [p.metadata.name!, p]));
  const disrupted: Record<string, string> = {};
  let recheckAt = Infinity;
  for (const [name, at] of Object.entries(pdb.status?.disruptedPods ?? {})) {
    const p = byName.get(name);
    if (!p || p.metadata.deletionTimestamp) continue;
    const expires = Date.parse(at) + DELETION_TIMEOUT_MS;
    if (expires < nowMs) continue;
    disrupted[name] = at;
    recheckAt = Math.min(recheckAt, expires);
  }
  // 4. healthy
  let healthy = 0;
  for (const p of pods)
    if (!p.metadata.deletionTimestamp && !(p.metadata.name! in disrupted) && isPodReady(p)) healthy++;
  // 5. allowed
  let allowed = healthy - desired;
  if (expected <= 0 || allowed <= 0) allowed = 0;
  const gen = pdb.metadata.generation ?? 1;
  return {
    status: {
      currentHealthy: healthy,
      desiredHealthy: desired,
      expectedPods: expected,
      disruptionsAllowed: allowed,
      disruptedPods: Object.keys(disrupted).length ? disrupted : undefined,
      observedGeneration: gen,
      conditions:
        allowed > 0
          ? condition('True', 'SufficientPods', '', pdb.status?.conditions, rfc3339(nowMs), gen)
          : condition('False', 'InsufficientPods', '', pdb.status?.conditions, rfc3339(nowMs), gen),
    },
    recheckAfterMs: recheckAt === Infinity ? undefined : recheckAt - nowMs,
  };
}

const RESOURCES = ['replicationcontrollers', 'replicasets', 'deployments', 'statefulsets'] as const;

export class DisruptionController {
  readonly queue: WorkQueue<string>;
  private readonly pdbs: Informer<PodDisruptionBudget>;
  private readonly pods: Informer<Pod>;
  private readonly owners: Record<(typeof RESOURCES)[number], Informer<KubeObject>>;
  private readonly scaleOf: ScaleLookup;
  private running?: Promise<void>;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new WorkQueue<string>(deps.clock, undefined, 'disruption');
    this.pdbs = deps.informers.for<PodDisruptionBudget>('poddisruptionbudgets');
    this.pods = deps.informers.for<Pod>('pods');
    this.owners = Object.fromEntries(
      RESOURCES.map((r) => [r, deps.informers.for<KubeObject>(r)]),
    ) as typeof this.owners;
    this.scaleOf = scaleFinder((r, ns, name) => this.owners[r as (typeof RESOURCES)[number]].get(ns, name));
    this.pdbs.addEventHandler({
      onAdd: (p) => this.queue.add(keyOf(p)),
      onUpdate: (_o, p) => this.queue.add(keyOf(p)),
    });
    const onPod = (p: Pod) => {
      // getPdbForPod: the budgets whose selector covers the pod
      for (const pdb of this.pdbs.list(p.metadata.namespace))
        if (controllerSelects(pdb, p)) this.queue.add(keyOf(pdb));
    };
    this.pods.addEventHandler({
      onAdd: onPod,
      onUpdate: (o, p) => {
        onPod(p);
        if (JSON.stringify(o.metadata.labels) !== JSON.stringify(p.metadata.labels)) onPod(o);
      },
      onDelete: onPod,
    });
  }

  run(): void {
    this.running = runWorkers(this.queue, this.deps.workers ?? 5, (k) => this.sync(k));
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await this.running;
  }

  async sync(key: string): Promise<void> {
    const pdb = this.pdbs.getByKey(key);
    if (!pdb) return;
    const r = computePdbStatus({
      pdb,
      pods: this.pods.list(pdb.metadata.namespace),
      nowMs: this.deps.clock.now(),
      scaleOf: this.scaleOf,
    });
    if (r.error) this.deps.recorder.event(pdb, 'Warning', 'CalculateExpectedPodCountFailed', r.error);
    if (r.recheckAfterMs !== undefined) this.queue.addAfter(key, r.recheckAfterMs + 1);
    const s = pdb.status;
    const n = r.status;
    if (
      s &&
      s.currentHealthy === n.currentHealthy &&
      s.desiredHealthy === n.desiredHealthy &&
      s.expectedPods === n.expectedPods &&
      s.disruptionsAllowed === n.disruptionsAllowed &&
      s.observedGeneration === n.observedGeneration &&
      JSON.stringify(s.disruptedPods ?? {}) === JSON.stringify(n.disruptedPods ?? {}) &&
      JSON.stringify(s.conditions ?? []) === JSON.stringify(n.conditions ?? [])
    )
      return;
    try {
      await this.deps.api.updateStatus('poddisruptionbudgets', { ...pdb, status: n });
    } catch (err) {
      // a conflict means an eviction changed the budget meanwhile: sync again on the new version
      if (isNotFound(err)) return;
      if (isConflict(err)) this.queue.add(key);
      else throw err;
    }
  }
}

/** the controller's own selection (getPodsForPdb): `{}` selects every pod, an invalid selector none */
function controllerSelects(pdb: PodDisruptionBudget, pod: Pod): boolean {
  try {
    return labelSelectorAsSelector(pdb.spec.selector).matches(pod.metadata.labels);
  } catch {
    return false;
  }
}

/**
 * The Job controller (upstream: pkg/controller/job/job_controller.go syncJob/manageJob,
 * indexed_job_utils.go, backoff_utils.go; Kubernetes v1.34). A Job runs pods until enough succeed:
 *
 * 1. count the Job's pods: active (not finished, not terminating), ready, terminating, succeeded
 *    (NonIndexed: Succeeded pods; Indexed: distinct completed indexes, kept in
 *    status.completedIndexes), failed (Failed pods, and pods deleted out from under the Job before
 *    they succeeded);
 * 2. decide whether the Job has failed — failed > backoffLimit, or (restartPolicy OnFailure) the
 *    active pods' container restarts reach backoffLimit: BackoffLimitExceeded; running longer than
 *    activeDeadlineSeconds since status.startTime: DeadlineExceeded — or succeeded (completions
 *    reached; a work queue Job: one success and nothing active). The first verdict is the
 *    FailureTarget / SuccessCriteriaMet condition; the active pods are deleted (counted as failed
 *    when the Job failed); the terminal Failed / Complete condition (same reason) follows once no
 *    pod is terminating (v1.34: JobPodReplacementPolicy and JobManagedBy delay it);
 * 3. otherwise (expectations satisfied, Job not being deleted) manage the pods: a suspended Job
 *    deletes its active pods (condition Suspended, JobSuspended); else the wanted number of active
 *    pods is min(parallelism, completions − succeeded) (a work queue Job: parallelism until a pod
 *    succeeds); Indexed Jobs first delete pods with an invalid, out-of-range or duplicated index;
 *    surplus pods are deleted least valuable first; missing ones are created (at most 500 per sync,
 *    slow start) after the pod-failure back-off (10 s × 2^(failures−1), at most 10 min) has passed;
 *    an Indexed Job creates the lowest pending indexes, each pod named `<job>-<index>-<suffix>` with
 *    hostname `<job>-<index>`, the completion index annotation and label, and JOB_COMPLETION_INDEX;
 * 4. write status (active, ready, terminating, succeeded, failed, completedIndexes, startTime,
 *    completionTime, conditions) and requeue for the active deadline or the back-off.
 *
 * Simplified: no job-tracking finalizer and no status.uncountedTerminatedPods: succeeded/failed are
 * recounted from the pods the Job owns (never below the counts already in status), and the pods the
 * controller deleted itself (surplus, suspend) are remembered in memory so they are not counted as
 * failed — a controller-manager failover forgets that, and the back-off record, as upstream's
 * in-memory backoffRecordStore does. The back-off starts when the controller sees the failure, not
 * at the container's finishedAt. No podFailurePolicy, successPolicy, backoffLimitPerIndex,
 * podReplacementPolicy other than TerminatingOrFailed, managedBy, or adoption by selector.
 */
import type { Condition, Job, JobStatus } from '../api/batch-types.js';
import type { Pod } from '../api/types.js';
import { rfc3339 } from '../api/time.js';
import { isNotFound, keyOf } from '../client/api.js';
import type { Informer } from '../client/informer.js';
import { WorkQueue, runWorkers } from '../client/workqueue.js';
import { Expectations } from './expectations.js';
import {
  JOB_COMPLETION_INDEX,
  completionIndexOf,
  firstPendingIndexes,
  formatIndexes,
  parseIndexes,
} from './job-indexes.js';
import {
  CONTROLLER_UID_INDEX,
  controllerOf,
  controllerRef,
  controllerUidIndex,
  isPodReady,
  podGracePeriod,
  randomSuffix,
} from './pod-util.js';
import { type ControllerDeps, rankPodsForDeletion, slowStartBatch } from './replicaset.js';

/** MaxPodCreateDeletePerSync */
export const MAX_POD_CREATE_DELETE_PER_SYNC = 500;
/** DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff */
export const POD_FAILURE_BACKOFF_MS = 10_000;
export const MAX_POD_FAILURE_BACKOFF_MS = 600_000;
/** syncJobBatchPeriod: pod events of one Job within a second are handled by one sync */
export const SYNC_JOB_BATCH_PERIOD_MS = 1000;

const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';

export const REASON = {
  backoffLimitExceeded: 'BackoffLimitExceeded',
  deadlineExceeded: 'DeadlineExceeded',
  completionsReached: 'CompletionsReached',
} as const;
const MESSAGE: Record<string, string> = {
  BackoffLimitExceeded: 'Job has reached the specified backoff limit',
  DeadlineExceeded: 'Job was active longer than specified deadline',
  CompletionsReached: 'Reached expected number of succeeded pods',
};

/** the pod-failure back-off of one Job (upstream backoffRecord) */
export interface BackoffRecord {
  failuresAfterLastSuccess: number;
  lastFailureMs?: number;
}

export interface JobPlanInput {
  job: Job;
  /** the pods the Job owns, from the cache */
  pods: Pod[];
  nowMs: number;
  /** the controller's expectations for this Job are satisfied */
  satisfied: boolean;
  backoff?: BackoffRecord;
  /** uids of pods the controller deleted itself (surplus, suspend): not failures */
  ownDeletes?: ReadonlySet<string>;
  /** pods deleted by others before succeeding, already gone from the cache */
  lostFailed?: number;
}

export interface JobPlan {
  /** NonIndexed: how many pods to create */
  create: number;
  /** Indexed: the indexes to create (create === indexes.length) */
  indexes?: number[];
  delete: Pod[];
  /** the deleted pods count as failed (the Job failed) */
  deleteAsFailed: boolean;
  status: JobStatus;
  requeueAfterMs?: number;
}

const isTerminal = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

export function jobCondition(job: { status?: JobStatus }, type: string): Condition | undefined {
  return job.status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

/** IsJobFinished: a Complete or Failed condition is True */
export function isJobFinished(job: { status?: JobStatus }): boolean {
  return !!(jobCondition(job, 'Complete') || jobCondition(job, 'Failed'));
}

/** getBackoff / backoffRecord.getRemainingTime */
export function backoffRemainingMs(b: BackoffRecord | undefined, nowMs: number): number {
  if (!b || b.failuresAfterLastSuccess <= 0 || b.lastFailureMs === undefined) return 0;
  const delay = Math.min(
    MAX_POD_FAILURE_BACKOFF_MS,
    POD_FAILURE_BACKOFF_MS * 2 ** Math.min(30, b.failuresAfterLastSuccess - 1),
  );
  return Math.max(0, b.lastFailureMs + delay - nowMs);
}

/** pastBackoffLimitOnFailure: restarts of the active pods' containers (restartPolicy OnFailure) */
function pastBackoffLimitOnFailure(job: Job, active: Pod[]): boolean {
  if (job.spec.template.spec.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const p of active) {
    const st = p.status as
      | {
          containerStatuses?: { restartCount?: number }[];
          initContainerStatuses?: { restartCount?: number }[];
        }
      | undefined;
    for (const c of [...(st?.initContainerStatuses ?? []), ...(st?.containerStatuses ?? [])])
      restarts += c.restartCount ?? 0;
  }
  const limit = job.spec.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

function setCondition(conds: Condition[], c: Condition): Condition[] {
  const i = conds.findIndex((x) => x.type === c.type);
  if (i < 0) return [...conds, c];
  const old = conds[i];
  if (old.status === c.status && old.reason === c.reason && old.message === c.message) return conds;
  const next = [...conds];
  next[i] = {
    ...c,
    lastTransitionTime: old.status === c.status ? old.lastTransitionTime : c.lastTransitionTime,
  };
  return next;
}

/**
 * One sync of a Job as a pure decision (syncJob + manageJob): what to create and delete and the
 * status to write. Upstream's TestControllerSyncJob rows are checked against this.
 */
export function planJobSync(input: JobPlanInput): JobPlan {
  const { job, nowMs } = input;
  const spec = job.spec;
  const prev = job.status ?? {};
  const none: JobPlan = { create: 0, delete: [], deleteAsFailed: false, status: prev };
  if (isJobFinished(job)) return none;
  const now = rfc3339(nowMs);
  const cond = (type: string, status: 'True' | 'False', reason: string, message: string): Condition => ({
    type,
    status,
    reason,
    message,
    lastProbeTime: now,
    lastTransitionTime: now,
  });
  const parallelism = spec.parallelism ?? 1;
  const completions = spec.completions ?? (spec.parallelism === undefined ? 1 : undefined);
  const indexed = spec.completionMode === 'Indexed' && completions !== undefined;
  const own = input.ownDeletes ?? new Set<string>();
  const validIndex = (p: Pod) => {
    const ix = completionIndexOf(p);
    return ix >= 0 && ix < (completions ?? 0);
  };

  // 1. count
  let active: Pod[] = [];
  let terminating = 0;
  let failedPods = input.lostFailed ?? 0;
  let succeededPods = 0;
  const done = new Set<number>(indexed ? parseIndexes(prev.completedIndexes, completions!) : []);
  for (const p of input.pods) {
    const phase = p.status?.phase;
    const counts = !indexed || validIndex(p);
    if (phase === 'Succeeded') {
      if (indexed) {
        if (counts) done.add(completionIndexOf(p));
      } else succeededPods++;
    } else if (phase === 'Failed') {
      if (counts) failedPods++;
    } else if (p.metadata.deletionTimestamp) {
      terminating++;
      if (counts && !own.has(p.metadata.uid ?? '')) failedPods++;
    } else active.push(p);
  }
  const succeeded = indexed ? done.size : Math.max(prev.succeeded ?? 0, succeededPods);
  let failed = Math.max(prev.failed ?? 0, failedPods);
  let conditions = prev.conditions ?? [];
  const suspended = spec.suspend === true;
  let startTime = prev.startTime;
  if (!startTime && !suspended) startTime = now;
  let requeueAfterMs: number | undefined;
  const plan: JobPlan = { create: 0, delete: [], deleteAsFailed: false, status: prev };

  // 2. verdicts
  let target = jobCondition(job, 'FailureTarget') ?? jobCondition(job, 'SuccessCriteriaMet');
  if (!target) {
    let failure: string | undefined;
    if (input.satisfied && (failed > (spec.backoffLimit ?? 6) || pastBackoffLimitOnFailure(job, active)))
      failure = REASON.backoffLimitExceeded;
    else if (!suspended && spec.activeDeadlineSeconds !== undefined && startTime) {
      const deadline = Date.parse(startTime) + spec.activeDeadlineSeconds * 1000;
      if (nowMs >= deadline) failure = REASON.deadlineExceeded;
      else requeueAfterMs = deadline - nowMs;
    }
    const complete =
      !failure &&
      (completions !== undefined ? succeeded >= completions : succeeded > 0 && active.length === 0);
    if (failure) target = cond('FailureTarget', 'True', failure, MESSAGE[failure]);
    else if (complete)
      target = cond('SuccessCriteriaMet', 'True', REASON.completionsReached, MESSAGE.CompletionsReached);
    if (target) {
      conditions = setCondition(conditions, target);
      // the remaining active pods are removed; after a failure they count as failed
      plan.delete = active;
      plan.deleteAsFailed = !!failure;
      if (failure) failed += active.filter((p) => !indexed || validIndex(p)).length;
      terminating += active.length;
      active = [];
      requeueAfterMs = undefined;
    }
  }
  if (target) {
    if (active.length === 0 && terminating === 0) {
      const type = target.type === 'FailureTarget' ? 'Failed' : 'Complete';
      conditions = setCondition(conditions, cond(type, 'True', target.reason!, target.message!));
      if (type === 'Complete') plan.status = { ...plan.status, completionTime: now };
    }
  } else if (input.satisfied && !job.metadata.deletionTimestamp) {
    // 3. manage the pods
    if (suspended) {
      conditions = setCondition(conditions, cond('Suspended', 'True', 'JobSuspended', 'Job suspended'));
      plan.delete = active;
      terminating += active.length;
      active = [];
    } else {
      if (jobCondition(job, 'Suspended')) {
        conditions = setCondition(conditions, cond('Suspended', 'False', 'JobResumed', 'Job resumed'));
        startTime = now; // the active deadline counts from the resume
      }
      manage(plan, input, { active, done, succeeded, parallelism, completions, indexed, validIndex });
      if (plan.delete.length) {
        const gone = new Set(plan.delete);
        active = active.filter((p) => !gone.has(p));
        terminating += plan.delete.length;
      } else if (
        plan.create === 0 &&
        active.length < wantActive(parallelism, completions, succeeded, active.length)
      ) {
        const wait = backoffRemainingMs(input.backoff, nowMs);
        if (wait > 0) requeueAfterMs = Math.min(requeueAfterMs ?? Infinity, wait);
      }
    }
  }

  // 4. status
  plan.status = {
    ...plan.status,
    startTime,
    active: active.length + plan.create,
    ready: active.filter(isPodReady).length,
    terminating,
    succeeded,
    failed,
    conditions: conditions.length ? conditions : undefined,
  };
  if (indexed) plan.status.completedIndexes = formatIndexes(done);
  plan.requeueAfterMs = requeueAfterMs;
  return plan;
}

function wantActive(
  parallelism: number,
  completions: number | undefined,
  succeeded: number,
  active: number,
): number {
  if (completions === undefined) return succeeded > 0 ? active : parallelism;
  return Math.min(parallelism, Math.max(0, completions - succeeded));
}

/** manageJob without side effects: fills plan.create/indexes/delete */
function manage(
  plan: JobPlan,
  input: JobPlanInput,
  s: {
    active: Pod[];
    done: Set<number>;
    succeeded: number;
    parallelism: number;
    completions: number | undefined;
    indexed: boolean;
    validIndex: (p: Pod) => boolean;
  },
): void {
  const want = wantActive(s.parallelism, s.completions, s.succeeded, s.active.length);
  if (s.indexed) {
    // activePodsForRemoval: invalid, out-of-range, completed or duplicated indexes go first
    const byIndex = new Map<number, Pod[]>();
    const rm: Pod[] = [];
    for (const p of s.active) {
      const ix = completionIndexOf(p);
      if (!s.validIndex(p) || s.done.has(ix)) rm.push(p);
      else byIndex.set(ix, [...(byIndex.get(ix) ?? []), p]);
    }
    for (const ps of byIndex.values())
      if (ps.length > 1) rm.push(...rankPodsForDeletion(ps, s.active, input.nowMs).slice(0, ps.length - 1));
    if (rm.length) {
      plan.delete = rm.slice(0, MAX_POD_CREATE_DELETE_PER_SYNC);
      return;
    }
  }
  const diff = s.active.length - want;
  if (diff > 0) {
    plan.delete = rankPodsForDeletion(s.active, s.active, input.nowMs).slice(
      0,
      Math.min(diff, MAX_POD_CREATE_DELETE_PER_SYNC),
    );
    return;
  }
  if (diff === 0 || backoffRemainingMs(input.backoff, input.nowMs) > 0) return;
  const n = Math.min(-diff, MAX_POD_CREATE_DELETE_PER_SYNC);
  if (s.indexed) {
    const activeIx = new Set(s.active.map(completionIndexOf));
    plan.indexes = firstPendingIndexes(s.done, activeIx, n, s.completions!);
    plan.create = plan.indexes.length;
  } else plan.create = n;
}

interface JobMemory {
  uid: string;
  ownDeletes: Set<string>;
  lostFailed: Set<string>;
  backoff: BackoffRecord;
  seenFailed: number;
  seenSucceeded: number;
}

export class JobController {
  readonly queue: WorkQueue<string>;
  private readonly jobInformer: Informer<Job>;
  private readonly podInformer: Informer<Pod>;
  private readonly expectations: Expectations;
  private readonly memory = new Map<string, JobMemory>();
  private readonly suffix: () => number;
  private running?: Promise<void>;
  podsCreated = 0;
  podsDeleted = 0;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new WorkQueue<string>(deps.clock, undefined, 'job');
    this.expectations = new Expectations(deps.clock);
    const rng = deps.rng.fork('job');
    this.suffix = () => rng.next();
    this.jobInformer = deps.informers.for<Job>('jobs');
    this.podInformer = deps.informers.for<Pod>('pods');
    try {
      this.podInformer.addIndexer(CONTROLLER_UID_INDEX, controllerUidIndex);
    } catch {
      /* shared: already added */
    }
    this.jobInformer.addEventHandler({
      onAdd: (j) => this.queue.add(keyOf(j)),
      onUpdate: (_o, j) => this.queue.add(keyOf(j)),
      onDelete: (j) => {
        this.expectations.delete(keyOf(j));
        this.memory.delete(keyOf(j));
      },
    });
    this.podInformer.addEventHandler({
      onAdd: (pod) => {
        const k = this.ownerKey(pod);
        if (!k) return;
        if (pod.metadata.deletionTimestamp) this.expectations.deletionObserved(k, keyOf(pod));
        else this.expectations.creationObserved(k);
        this.enqueue(k);
      },
      onUpdate: (old, pod) => {
        const k = this.ownerKey(pod);
        if (!k) return;
        if (pod.metadata.deletionTimestamp && !old.metadata.deletionTimestamp)
          this.expectations.deletionObserved(k, keyOf(pod));
        // a readiness change alone is batched (upstream: syncJobBatchPeriod)
        this.enqueue(k);
      },
      onDelete: (pod) => {
        const k = this.ownerKey(pod);
        if (!k) return;
        this.expectations.deletionObserved(k, keyOf(pod));
        const m = this.memory.get(k);
        const uid = pod.metadata.uid ?? '';
        if (m && !isTerminal(pod) && !m.ownDeletes.has(uid)) m.lostFailed.add(uid);
        m?.ownDeletes.delete(uid);
        this.enqueue(k);
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

  private enqueue(key: string): void {
    this.queue.addAfter(key, SYNC_JOB_BATCH_PERIOD_MS);
  }

  private ownerKey(pod: Pod): string | undefined {
    const ref = controllerOf(pod);
    if (!ref || ref.kind !== 'Job') return undefined;
    const job = this.jobInformer.get(pod.metadata.namespace, ref.name);
    return job && job.metadata.uid === ref.uid ? keyOf(job) : undefined;
  }

  private mem(key: string, job: Job): JobMemory {
    let m = this.memory.get(key);
    if (!m || m.uid !== job.metadata.uid) {
      m = {
        uid: job.metadata.uid!,
        ownDeletes: new Set(),
        lostFailed: new Set(),
        backoff: { failuresAfterLastSuccess: 0 },
        seenFailed: job.status?.failed ?? 0,
        seenSucceeded: job.status?.succeeded ?? 0,
      };
      this.memory.set(key, m);
    }
    return m;
  }

  /** syncJob */
  async sync(key: string): Promise<void> {
    const job = this.jobInformer.getByKey(key);
    if (!job) {
      this.expectations.delete(key);
      return;
    }
    if (isJobFinished(job)) return;
    const m = this.mem(key, job);
    const pods: Pod[] = [];
    this.podInformer.forEachInIndex(CONTROLLER_UID_INDEX, job.metadata.uid!, (p) => pods.push(p));
    const now = this.deps.clock.now();
    const input = {
      job,
      pods,
      nowMs: now,
      satisfied: this.expectations.satisfied(key),
      backoff: m.backoff,
      ownDeletes: m.ownDeletes,
      lostFailed: m.lostFailed.size,
    };
    let plan = planJobSync(input);
    // the back-off record (newBackoffRecord): failures since the last success, updated before the
    // pods are managed, so the replacement of a pod that just failed waits
    const newFailed = (plan.status.failed ?? 0) - m.seenFailed;
    const newSucceeded = (plan.status.succeeded ?? 0) > m.seenSucceeded;
    if (newSucceeded) m.backoff = { failuresAfterLastSuccess: 0 };
    if (newFailed > 0)
      m.backoff = {
        failuresAfterLastSuccess: m.backoff.failuresAfterLastSuccess + newFailed,
        lastFailureMs: now,
      };
    if (newFailed > 0 || newSucceeded) plan = planJobSync({ ...input, backoff: m.backoff });
    const st = plan.status;
    m.seenFailed = st.failed ?? 0;
    m.seenSucceeded = st.succeeded ?? 0;

    let error: unknown;
    if (plan.delete.length) error = await this.deletePods(key, job, plan.delete, !plan.deleteAsFailed, m);
    else if (plan.create) error = await this.createPods(key, job, plan);
    await this.writeStatus(job, st);
    if (plan.requeueAfterMs !== undefined) this.queue.addAfter(key, plan.requeueAfterMs);
    if (error !== undefined) throw error;
  }

  private async createPods(key: string, job: Job, plan: JobPlan): Promise<unknown> {
    const n = plan.create;
    this.expectations.expectCreations(key, n);
    const { successes, error } = await slowStartBatch(n, 1, async (i) => {
      const pod = this.podFromTemplate(job, plan.indexes?.[i]);
      try {
        await this.deps.api.create('pods', pod);
        this.podsCreated++;
        this.deps.recorder.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`);
      } catch (err) {
        this.deps.recorder.event(job, 'Warning', 'FailedCreate', `Error creating: ${(err as Error).message}`);
        throw err;
      }
    });
    if (successes < n) this.expectations.lowerCreations(key, n - successes);
    return error;
  }

  private async deletePods(key: string, job: Job, pods: Pod[], own: boolean, m: JobMemory): Promise<unknown> {
    this.expectations.expectDeletions(key, pods.map(keyOf));
    let error: unknown;
    await Promise.all(
      pods.map(async (p) => {
        if (own) m.ownDeletes.add(p.metadata.uid ?? '');
        try {
          await this.deps.api.delete('pods', p.metadata.namespace, p.metadata.name!, {
            gracePeriodSeconds: podGracePeriod(p),
          });
          this.podsDeleted++;
          this.deps.recorder.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
        } catch (err) {
          this.expectations.deletionObserved(key, keyOf(p));
          if (!isNotFound(err)) error ??= err;
        }
      }),
    );
    return error;
  }

  /** the pod of one completion (upstream: getPodFromTemplate + addCompletionIndexEnvVariables) */
  private podFromTemplate(job: Job, index: number | undefined): Pod {
    const t = job.spec.template;
    const name = job.metadata.name!;
    const labels: Record<string, string> = {
      ...(t.metadata?.labels ?? {}),
      [CONTROLLER_UID_LABEL]: job.metadata.uid!,
      [JOB_NAME_LABEL]: name,
      'controller-uid': job.metadata.uid!,
      'job-name': name,
    };
    const annotations: Record<string, string> = { ...(t.metadata?.annotations ?? {}) };
    const spec = structuredClone(t.spec);
    let podName = `${name}-${randomSuffix(this.suffix)}`;
    if (index !== undefined) {
      const ix = String(index);
      annotations[JOB_COMPLETION_INDEX] = ix;
      labels[JOB_COMPLETION_INDEX] = ix;
      podName = `${name}-${ix}-${randomSuffix(this.suffix)}`;
      spec.hostname = `${name}-${ix}`;
      for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
        const env = (c.env as { name: string; value?: string }[] | undefined) ?? [];
        if (!env.some((e) => e.name === 'JOB_COMPLETION_INDEX'))
          c.env = [...env, { name: 'JOB_COMPLETION_INDEX', value: ix }];
      }
    }
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: podName,
        namespace: job.metadata.namespace,
        labels,
        annotations: Object.keys(annotations).length ? annotations : undefined,
        ownerReferences: [{ ...controllerRef(job), apiVersion: 'batch/v1', kind: 'Job' }],
      },
      spec,
    };
  }

  private async writeStatus(job: Job, next: JobStatus): Promise<void> {
    const s = job.status ?? {};
    const same =
      s.active === next.active &&
      s.ready === next.ready &&
      s.terminating === next.terminating &&
      s.succeeded === next.succeeded &&
      s.failed === next.failed &&
      s.completedIndexes === next.completedIndexes &&
      s.startTime === next.startTime &&
      s.completionTime === next.completionTime &&
      JSON.stringify(s.conditions ?? []) === JSON.stringify(next.conditions ?? []);
    if (same) return;
    try {
      await this.deps.api.updateStatus('jobs', { ...job, status: next });
      if (!isJobFinished(job) && isJobFinished({ status: next })) {
        const c = jobCondition({ status: next }, 'Failed');
        if (c) this.deps.recorder.event(job, 'Warning', c.reason ?? 'Failed', c.message ?? '');
        else this.deps.recorder.event(job, 'Normal', 'Completed', 'Job completed');
      }
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }
}

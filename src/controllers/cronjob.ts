/**
 * The CronJob controller (upstream: pkg/controller/cronjob/cronjob_controllerv2.go syncCronJob,
 * utils.go; Kubernetes v1.34), on the simulation's virtual clock:
 *
 * 1. reconcile status.active with the Jobs the CronJob owns: finished Jobs leave the list (a
 *    succeeded one moves lastSuccessfulTime forward to its completionTime), vanished ones too;
 * 2. suspended, or an unparseable schedule / unknown timeZone: nothing more;
 * 3. the most recent unmet schedule time after lastScheduleTime (or creation), not earlier than
 *    startingDeadlineSeconds ago (mostRecentScheduleTime; more than 100 missed → a warning event);
 *    none due → requeue for the next one;
 * 4. too late (scheduled time + startingDeadlineSeconds < now) → MissSchedule, skip;
 * 5. already started (its Job is active, or it is lastScheduleTime) → skip;
 * 6. concurrencyPolicy Forbid with an active Job → skip; Replace → delete the active Jobs first;
 * 7. create the Job `<cronjob>-<scheduled time in minutes since the epoch>` from jobTemplate with
 *    the `batch.kubernetes.io/cronjob-scheduled-timestamp` annotation, add it to status.active,
 *    set lastScheduleTime, and requeue 100 ms after the next schedule time;
 * 8. keep successfulJobsHistoryLimit (default 3) succeeded and failedJobsHistoryLimit (default 1)
 *    failed Jobs, deleting the oldest by start time (cleanupFinishedJobs).
 *
 * Simplified: Jobs are deleted with a plain DELETE (upstream: background propagation; their pods go
 * where a garbage collector runs); orphan Jobs are not adopted; events are the main ones.
 */
import type { CronJob, CronJobStatus, Job, ObjectReference } from '../api/batch-types.js';
import { rfc3339 } from '../api/time.js';
import { isAlreadyExists, isNotFound, keyOf } from '../client/api.js';
import type { Informer } from '../client/informer.js';
import { WorkQueue, runWorkers } from '../client/workqueue.js';
import { type Schedule, ScheduleError, parseSchedule } from './cron-schedule.js';
import { isJobFinished, jobCondition } from './job.js';
import { CONTROLLER_UID_INDEX, controllerOf, controllerRef, controllerUidIndex } from './pod-util.js';
import type { ControllerDeps } from './replicaset.js';

const SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
/** nextScheduleDelta: requeue this long after a schedule time so the clock has surely passed it */
export const NEXT_SCHEDULE_DELTA_MS = 100;

export type Missed = 'none' | 'few' | 'many';

/** getJobName: the scheduled time in minutes since the epoch makes the name deterministic */
export function jobNameFor(cj: CronJob, scheduledMs: number): string {
  return `${cj.metadata.name}-${Math.floor(scheduledMs / 60_000)}`;
}

/**
 * mostRecentScheduleTime: from the earliest time to consider (lastScheduleTime, else creation;
 * with `includeDeadline`, not before now − startingDeadlineSeconds), the latest activation ≤ now.
 */
export function mostRecentScheduleTime(
  cj: CronJob,
  nowMs: number,
  sched: Schedule,
  includeDeadline: boolean,
): { earliestMs: number; recentMs?: number; missed: Missed; error?: string } {
  let earliest = Date.parse(cj.status?.lastScheduleTime ?? cj.metadata.creationTimestamp ?? '');
  if (Number.isNaN(earliest)) earliest = nowMs;
  const sds = cj.spec.startingDeadlineSeconds;
  if (includeDeadline && sds !== undefined) earliest = Math.max(earliest, nowMs - sds * 1000);
  const t1 = sched.next(earliest);
  const t2 = t1 === undefined ? undefined : sched.next(t1);
  if (t1 !== undefined && nowMs < t1) return { earliestMs: earliest, missed: 'none' };
  if (t1 !== undefined && t2 !== undefined && nowMs < t2)
    return { earliestMs: earliest, recentMs: t1, missed: 'none' };
  // many: start one interval before the estimated last activation and let the schedule walk to
  // the real one (irregular schedules such as 30 6-16/4 * * 1-5)
  const between = t1 !== undefined && t2 !== undefined ? Math.round((t2 - t1) / 1000) : 0;
  if (between < 1)
    return {
      earliestMs: earliest,
      missed: 'none',
      error: 'time difference between two schedules is less than 1 second',
    };
  const elapsed = Math.trunc((nowMs - t1!) / 1000);
  const missedCount = Math.trunc(elapsed / between) + 1;
  const potentialEarliest = t1! + (missedCount - 2) * between * 1000;
  let recent: number | undefined;
  for (let t = sched.next(potentialEarliest); t !== undefined && t <= nowMs; t = sched.next(t)) recent = t;
  return { earliestMs: earliest, recentMs: recent, missed: missedCount > 100 ? 'many' : 'few' };
}

/** nextScheduleTimeDuration: how long until 100 ms after the next activation */
export function nextScheduleDelayMs(cj: CronJob, nowMs: number, sched: Schedule): number | undefined {
  const r = mostRecentScheduleTime(cj, nowMs, sched, false);
  const base = r.error ? nowMs : (r.recentMs ?? (r.missed === 'none' ? r.earliestMs : nowMs));
  const next = sched.next(base);
  return next === undefined ? undefined : next + NEXT_SCHEDULE_DELTA_MS - nowMs;
}

/** the RFC 3339 time in the CronJob's zone (time.Time.Format(time.RFC3339) in its location) */
function rfc3339In(ms: number, timeZone: string | undefined): string {
  if (!timeZone || timeZone === 'UTC' || timeZone === 'Etc/UTC') return rfc3339(ms);
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms));
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '00';
  const local = Date.UTC(
    +get('year'),
    +get('month') - 1,
    +get('day'),
    +get('hour'),
    +get('minute'),
    +get('second'),
  );
  const off = Math.round((local - Math.floor(ms / 1000) * 1000) / 60_000);
  if (off === 0)
    return `${get('year')}-${get('month')}-${get('day')}T${get('hour')}:${get('minute')}:${get('second')}Z`;
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  const hh = String(Math.floor(a / 60)).padStart(2, '0');
  const mm = String(a % 60).padStart(2, '0');
  return `${get('year')}-${get('month')}-${get('day')}T${get('hour')}:${get('minute')}:${get('second')}${sign}${hh}:${mm}`;
}

const refOf = (j: Job): ObjectReference => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  name: j.metadata.name,
  namespace: j.metadata.namespace,
  uid: j.metadata.uid,
  resourceVersion: j.metadata.resourceVersion,
});

const startOf = (j: Job) => Date.parse(j.status?.startTime ?? j.metadata.creationTimestamp ?? '') || 0;

export class CronJobController {
  readonly queue: WorkQueue<string>;
  private readonly cronJobs: Informer<CronJob>;
  private readonly jobs: Informer<Job>;
  private running?: Promise<void>;
  jobsCreated = 0;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new WorkQueue<string>(deps.clock, undefined, 'cronjob');
    this.cronJobs = deps.informers.for<CronJob>('cronjobs');
    this.jobs = deps.informers.for<Job>('jobs');
    try {
      this.jobs.addIndexer(CONTROLLER_UID_INDEX, controllerUidIndex);
    } catch {
      /* shared: already added */
    }
    this.cronJobs.addEventHandler({
      onAdd: (c) => this.queue.add(keyOf(c)),
      onUpdate: (_o, c) => this.queue.add(keyOf(c)),
    });
    const onJob = (j: Job) => {
      const ref = controllerOf(j);
      if (ref?.kind !== 'CronJob') return;
      const cj = this.cronJobs.get(j.metadata.namespace, ref.name);
      if (cj && cj.metadata.uid === ref.uid) this.queue.add(keyOf(cj));
    };
    this.jobs.addEventHandler({ onAdd: onJob, onUpdate: (_o, j) => onJob(j), onDelete: onJob });
  }

  run(): void {
    this.running = runWorkers(this.queue, this.deps.workers ?? 5, (k) => this.sync(k));
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await this.running;
  }

  /** syncCronJob */
  async sync(key: string): Promise<void> {
    const cj = this.cronJobs.getByKey(key);
    if (!cj || cj.metadata.deletionTimestamp) return;
    const now = this.deps.clock.now();
    const owned: Job[] = [];
    this.jobs.forEachInIndex(CONTROLLER_UID_INDEX, cj.metadata.uid!, (j) => owned.push(j));
    const status: CronJobStatus = { ...(cj.status ?? {}) };
    // 1. the active list
    const byUid = new Map(owned.map((j) => [j.metadata.uid!, j]));
    let active = (status.active ?? []).filter((r) => {
      const j = byUid.get(r.uid ?? '');
      return j !== undefined && !isJobFinished(j);
    });
    for (const j of owned) {
      if (!isJobFinished(j) && !active.some((r) => r.uid === j.metadata.uid)) active.push(refOf(j));
      const done = jobCondition(j, 'Complete');
      if (done && j.status?.completionTime) {
        const t = Date.parse(j.status.completionTime);
        if (!status.lastSuccessfulTime || Date.parse(status.lastSuccessfulTime) < t)
          status.lastSuccessfulTime = j.status.completionTime;
      }
    }
    const finish = async (requeueMs?: number) => {
      status.active = active.length ? active : undefined;
      await this.writeStatus(cj, status);
      await this.cleanupFinishedJobs(cj, owned);
      if (requeueMs !== undefined) this.queue.addAfter(key, requeueMs);
    };
    // 2. suspended or unusable schedule
    if (cj.spec.suspend) return finish();
    let sched: Schedule;
    try {
      sched = parseSchedule(cj.spec.schedule, cj.spec.timeZone);
    } catch (e) {
      if (!(e instanceof ScheduleError)) throw e;
      const reason = /time zone/.test(e.message) ? 'UnknownTimeZone' : 'UnparseableSchedule';
      this.deps.recorder.event(
        cj,
        'Warning',
        reason,
        `unparseable schedule: ${JSON.stringify(cj.spec.schedule)} : ${e.message}`,
      );
      return finish();
    }
    const requeue = () => nextScheduleDelayMs({ ...cj, status }, now, sched);
    // 3. the time due
    const due = mostRecentScheduleTime({ ...cj, status }, now, sched, true);
    if (due.missed === 'many')
      this.deps.recorder.event(
        cj,
        'Warning',
        'TooManyMissedTimes',
        'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew',
      );
    if (due.recentMs === undefined || due.recentMs > now) return finish(requeue());
    const scheduled = due.recentMs;
    // 4. too late
    const sds = cj.spec.startingDeadlineSeconds;
    if (sds !== undefined && scheduled + sds * 1000 < now) {
      this.deps.recorder.event(
        cj,
        'Warning',
        'MissSchedule',
        `Missed scheduled time to start a job: ${rfc3339In(scheduled, cj.spec.timeZone)}`,
      );
      return finish(requeue());
    }
    // 5. already started
    const name = jobNameFor(cj, scheduled);
    if (
      active.some((r) => r.name === name) ||
      (status.lastScheduleTime && Date.parse(status.lastScheduleTime) === scheduled)
    )
      return finish(requeue());
    // 6. concurrency
    const policy = cj.spec.concurrencyPolicy ?? 'Allow';
    if (policy === 'Forbid' && active.length > 0) {
      this.deps.recorder.event(
        cj,
        'Normal',
        'JobAlreadyActive',
        'Not starting job because prior execution is running and concurrency policy is Forbid',
      );
      return finish(requeue());
    }
    if (policy === 'Replace') {
      for (const r of active) {
        try {
          await this.deps.api.delete('jobs', cj.metadata.namespace, r.name!, {
            preconditions: { uid: r.uid },
          });
          this.deps.recorder.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${r.name}`);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
      active = [];
    }
    // 7. the Job
    const t = cj.spec.jobTemplate;
    const job: Job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name,
        namespace: cj.metadata.namespace,
        labels: t.metadata?.labels ? { ...t.metadata.labels } : undefined,
        annotations: {
          ...(t.metadata?.annotations ?? {}),
          [SCHEDULED_TIMESTAMP_ANNOTATION]: rfc3339In(scheduled, cj.spec.timeZone),
        },
        ownerReferences: [{ ...controllerRef(cj), apiVersion: 'batch/v1', kind: 'CronJob' }],
      },
      spec: structuredClone(t.spec),
    };
    try {
      const created = await this.deps.api.create<Job>('jobs', job);
      this.jobsCreated++;
      active.push(refOf(created));
      this.deps.recorder.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${name}`);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    status.lastScheduleTime = rfc3339(scheduled);
    return finish(requeue());
  }

  /** cleanupFinishedJobs: the oldest finished Jobs beyond the history limits go */
  private async cleanupFinishedJobs(cj: CronJob, owned: Job[]): Promise<void> {
    const limits: [string, number][] = [
      ['Complete', cj.spec.successfulJobsHistoryLimit ?? 3],
      ['Failed', cj.spec.failedJobsHistoryLimit ?? 1],
    ];
    for (const [type, limit] of limits) {
      const done = owned
        .filter((j) => jobCondition(j, type) && !j.metadata.deletionTimestamp)
        .sort((a, b) => startOf(a) - startOf(b));
      for (const j of done.slice(0, Math.max(0, done.length - limit))) {
        try {
          await this.deps.api.delete('jobs', j.metadata.namespace, j.metadata.name!, {
            preconditions: { uid: j.metadata.uid },
          });
          this.deps.recorder.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${j.metadata.name}`);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
    }
  }

  private async writeStatus(cj: CronJob, next: CronJobStatus): Promise<void> {
    const norm = (s: CronJobStatus | undefined) =>
      JSON.stringify({
        a: (s?.active ?? []).map((r) => r.uid),
        l: s?.lastScheduleTime,
        s: s?.lastSuccessfulTime,
      });
    if (norm(cj.status) === norm(next)) return;
    try {
      await this.deps.api.updateStatus('cronjobs', { ...cj, status: next });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

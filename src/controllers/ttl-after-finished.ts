/**
 * The TTL-after-finished controller (upstream: pkg/controller/ttlafterfinished/
 * ttlafterfinished_controller.go; Kubernetes v1.34): a finished Job (Complete or Failed) with
 * spec.ttlSecondsAfterFinished is deleted that many seconds after it finished — the finish time
 * being the terminal condition's lastTransitionTime (getFinishAndExpireTime). Jobs not yet expired
 * are requeued for their expiry time.
 *
 * Simplified: the Job is deleted with a plain DELETE (upstream asks for foreground propagation);
 * its pods go with it only where a garbage collector runs.
 */
import type { Job } from '../api/batch-types.js';
import { isNotFound, keyOf } from '../client/api.js';
import type { Informer } from '../client/informer.js';
import { WorkQueue, runWorkers } from '../client/workqueue.js';
import { jobCondition } from './job.js';
import type { ControllerDeps } from './replicaset.js';

/** when a finished Job with a TTL expires (ms since the epoch), or undefined */
export function jobExpiresAt(job: Job): number | undefined {
  const ttl = job.spec.ttlSecondsAfterFinished;
  if (ttl === undefined || job.metadata.deletionTimestamp) return undefined;
  const c = jobCondition(job, 'Complete') ?? jobCondition(job, 'Failed');
  if (!c) return undefined;
  const finished = Date.parse(c.lastTransitionTime ?? job.status?.completionTime ?? '');
  return Number.isNaN(finished) ? undefined : finished + ttl * 1000;
}

export class TtlAfterFinishedController {
  readonly queue: WorkQueue<string>;
  private readonly jobs: Informer<Job>;
  private running?: Promise<void>;
  deleted = 0;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new WorkQueue<string>(deps.clock, undefined, 'ttl-after-finished');
    this.jobs = deps.informers.for<Job>('jobs');
    this.jobs.addEventHandler({
      onAdd: (j) => this.queue.add(keyOf(j)),
      onUpdate: (_o, j) => this.queue.add(keyOf(j)),
    });
  }

  run(): void {
    this.running = runWorkers(this.queue, this.deps.workers ?? 5, (k) => this.sync(k));
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await this.running;
  }

  /** processJob */
  async sync(key: string): Promise<void> {
    const job = this.jobs.getByKey(key);
    if (!job) return;
    const at = jobExpiresAt(job);
    if (at === undefined) return;
    const wait = at - this.deps.clock.now();
    if (wait > 0) {
      this.queue.addAfter(key, wait);
      return;
    }
    try {
      await this.deps.api.delete('jobs', job.metadata.namespace, job.metadata.name!, {
        preconditions: { uid: job.metadata.uid },
      });
      this.deleted++;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

/**
 * The Job and TTL-after-finished controllers in a whole simulation: pods created by the Job
 * controller, scheduled, started and finished by the kubelet model after the scenario's `runs:`
 * duration, counted into the Job's status.
 */
import { describe, expect, it } from 'vitest';
import type { Job } from '../../src/api/batch-types.js';
import type { Pod } from '../../src/api/types.js';
import { parseScenario } from '../../src/sim/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';

function scenario(job: object, runs: string, duration = '10m'): Simulation {
  const text = `
name: jobs
seed: 3
duration: ${duration}
cluster:
  pools: [{ name: w, count: 3, cpu: "8", memory: 32Gi }]
runs: ${runs}
workloads:
  - manifest: ${JSON.stringify(job)}
settings: { scheduler: standin }
`;
  return new Simulation(parseScenario(text, 'jobs.yaml', '.'));
}

function job(name: string, spec: object): object {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: 'default' },
    spec: {
      template: {
        metadata: { labels: { app: name } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] },
      },
      ...spec,
    },
  };
}

async function run(sim: Simulation) {
  await sim.run();
  const jobs = (await sim.server.list<Job>('jobs')).items;
  const pods = (await sim.server.list<Pod>('pods')).items;
  return { jobs, pods };
}

const cond = (j: Job, type: string) =>
  j.status?.conditions?.find((c) => c.type === type && c.status === 'True');

describe('Job controller in the simulation', () => {
  it('runs 5 completions 2 at a time, each 60 s, and completes', async () => {
    const sim = scenario(
      job('batch', { completions: 5, parallelism: 2 }),
      '[{match: {app: batch}, duration: {median: 60s, sigma: 0}}]',
    );
    const { jobs, pods } = await run(sim);
    const j = jobs[0];
    expect(j.status).toMatchObject({ succeeded: 5, failed: 0, active: 0, ready: 0 });
    expect(cond(j, 'SuccessCriteriaMet')?.reason).toBe('CompletionsReached');
    expect(cond(j, 'Complete')).toBeDefined();
    expect(pods.length).toBe(5);
    expect(pods.every((p) => p.status?.phase === 'Succeeded')).toBe(true);
    expect(pods.every((p) => p.metadata.labels?.['batch.kubernetes.io/job-name'] === 'batch')).toBe(true);
    // three waves of ≤2 pods, 60 s each plus start-up: done after 180 s, well before 10 min
    const took = Date.parse(j.status!.completionTime!) - Date.parse(j.status!.startTime!);
    expect(took).toBeGreaterThanOrEqual(180_000);
    expect(took).toBeLessThan(240_000);
  });

  it('Indexed: pods carry their index, hostname and JOB_COMPLETION_INDEX; completedIndexes 0-3', async () => {
    const sim = scenario(
      job('ix', { completions: 4, parallelism: 4, completionMode: 'Indexed' }),
      '[{duration: {median: 20s, sigma: 0}}]',
    );
    const { jobs, pods } = await run(sim);
    expect(jobs[0].status).toMatchObject({ succeeded: 4, completedIndexes: '0-3' });
    const idx = pods.map((p) => p.metadata.annotations?.['batch.kubernetes.io/job-completion-index']).sort();
    expect(idx).toEqual(['0', '1', '2', '3']);
    for (const p of pods) {
      const i = p.metadata.annotations!['batch.kubernetes.io/job-completion-index'];
      expect(p.spec.hostname).toBe(`ix-${i}`);
      expect(p.metadata.name!.startsWith(`ix-${i}-`)).toBe(true);
      expect(p.metadata.labels?.['batch.kubernetes.io/job-completion-index']).toBe(i);
      expect(p.spec.containers[0].env).toEqual([{ name: 'JOB_COMPLETION_INDEX', value: i }]);
    }
  });

  it('pods that always fail: backoffLimit 2 → 3 failed pods, then Failed/BackoffLimitExceeded', async () => {
    const sim = scenario(
      job('bad', { completions: 1, backoffLimit: 2 }),
      '[{match: {app: bad}, duration: {median: 5s, sigma: 0}, failureProbability: 1}]',
    );
    const { jobs, pods } = await run(sim);
    const j = jobs[0];
    expect(j.status).toMatchObject({ failed: 3, succeeded: 0, active: 0 });
    expect(cond(j, 'Failed')?.reason).toBe('BackoffLimitExceeded');
    expect(cond(j, 'Failed')?.message).toBe('Job has reached the specified backoff limit');
    expect(pods.filter((p) => p.status?.phase === 'Failed').length).toBe(3);
    // the back-off: the second pod 10 s after the first failure, the third 20 s after the second
    const starts = pods
      .map((p) => Date.parse(p.metadata.creationTimestamp!))
      .sort((a, b) => a - b)
      .map((t, i, a) => t - a[0]);
    expect(starts[1]).toBeGreaterThanOrEqual(15_000); // 5 s run + 10 s back-off
    expect(starts[2] - starts[1]).toBeGreaterThanOrEqual(25_000); // 5 s run + 20 s back-off
  });

  it('activeDeadlineSeconds: a 10 min pod under a 60 s deadline → Failed/DeadlineExceeded, pod deleted', async () => {
    const sim = scenario(
      job('slow', { activeDeadlineSeconds: 60 }),
      '[{duration: {median: 10m, sigma: 0}}]',
      '3m',
    );
    const { jobs, pods } = await run(sim);
    const j = jobs[0];
    const failed = cond(j, 'Failed');
    expect(failed?.reason).toBe('DeadlineExceeded');
    expect(Date.parse(failed!.lastTransitionTime!) - Date.parse(j.status!.startTime!)).toBeGreaterThanOrEqual(
      60_000,
    );
    expect(j.status).toMatchObject({ failed: 1, active: 0 });
    expect(pods.length).toBe(0);
  });

  it('ttlSecondsAfterFinished: the finished Job is deleted 30 s after completing', async () => {
    const sim = scenario(
      job('short', { ttlSecondsAfterFinished: 30 }),
      '[{duration: {median: 10s, sigma: 0}}]',
      '3m',
    );
    const { jobs } = await run(sim);
    expect(jobs.length).toBe(0);
    expect(sim.cm.ttl.deleted).toBe(1);
  });

  it('suspend: no pods while suspended', async () => {
    const sim = scenario(job('held', { suspend: true, completions: 2 }), '[]', '1m');
    const { jobs, pods } = await run(sim);
    expect(pods.length).toBe(0);
    expect(cond(jobs[0], 'Suspended')?.reason).toBe('JobSuspended');
  });
});

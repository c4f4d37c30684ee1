/**
 * The CronJob controller on the virtual clock: Jobs named after their scheduled minute, the
 * concurrency policies, history limits and lastScheduleTime/lastSuccessfulTime.
 * The run starts at 2026-01-01T00:00:00Z.
 */
import { describe, expect, it } from 'vitest';
import type { CronJob, Job } from '../../src/api/batch-types.js';
import { parseScenario } from '../../src/sim/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';

const START = Date.UTC(2026, 0, 1);

function scenario(spec: object, run: string, duration: string): Simulation {
  const cj = {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'tick', namespace: 'default' },
    spec: {
      jobTemplate: {
        spec: {
          template: {
            metadata: { labels: { app: 'tick' } },
            spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] },
          },
        },
      },
      ...spec,
    },
  };
  const text = `
name: cron
duration: ${duration}
cluster: { pools: [{ name: w, count: 2, images: [busybox] }] }
runs: [{ match: { app: tick }, duration: { median: ${run}, sigma: 0 } }]
workloads: [{ manifest: ${JSON.stringify(cj)} }]
settings: { scheduler: standin }
`;
  return new Simulation(parseScenario(text, 'cron.yaml', '.'));
}

async function state(sim: Simulation) {
  const cj = (await sim.server.list<CronJob>('cronjobs')).items[0];
  const jobs = (await sim.server.list<Job>('jobs')).items.sort((a, b) =>
    a.metadata.name! < b.metadata.name! ? -1 : 1,
  );
  return { cj, jobs };
}

const minute = (m: number) => START / 60_000 + m;

describe('CronJob controller in the simulation', () => {
  it('*/5: a Job every 5 minutes named <cronjob>-<minutes>, the last 3 successful kept', async () => {
    const sim = scenario({ schedule: '*/5 * * * *' }, '30s', '31m');
    const r = await sim.run();
    const { cj, jobs } = await state(sim);
    // runs at 5, 10, …, 30: six Jobs, the three oldest deleted by successfulJobsHistoryLimit
    expect(sim.cm.cronjob.jobsCreated).toBe(6);
    expect(jobs.map((j) => j.metadata.name)).toEqual([20, 25, 30].map((m) => `tick-${minute(m)}`));
    expect(cj.status?.lastScheduleTime).toBe('2026-01-01T00:30:00Z');
    expect(jobs[2].metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp']).toBe(
      '2026-01-01T00:30:00Z',
    );
    // the 00:30 Job finished 30 s + pod start-up after 00:30, before the run ended at 00:31
    expect(Date.parse(cj.status!.lastSuccessfulTime!)).toBeGreaterThan(START + 30 * 60_000 + 30_000);
    expect(Date.parse(cj.status!.lastSuccessfulTime!)).toBeLessThan(START + 31 * 60_000);
    expect(
      r.events.filter((e) => e.reason === 'SuccessfulCreate' && e.object === 'cronjob/tick').length,
    ).toBe(6);
  });

  it('Forbid: a 7-minute Job every 5 minutes; a run found blocked starts late when the active one ends', async () => {
    const sim = scenario({ schedule: '*/5 * * * *', concurrencyPolicy: 'Forbid' }, '7m', '31m');
    const r = await sim.run();
    const { cj, jobs } = await state(sim);
    // 00:05 runs to ~00:12; 00:10 is due but blocked and starts when that Job finishes (no
    // startingDeadlineSeconds); so does 00:15 at ~00:19; at ~00:26 the most recent missed time is
    // 00:25 (00:20 is skipped: only the latest unmet time runs); 00:30 finds it active
    expect(jobs.map((j) => j.metadata.name)).toEqual([5, 10, 15, 25].map((m) => `tick-${minute(m)}`));
    expect(cj.status?.active?.map((a) => a.name)).toEqual([`tick-${minute(25)}`]);
    const late = jobs.find((j) => j.metadata.name === `tick-${minute(10)}`);
    expect(Date.parse(late?.metadata.creationTimestamp ?? '')).toBeGreaterThan(START + 12 * 60_000);
    expect(r.events.filter((e) => e.reason === 'JobAlreadyActive').length).toBeGreaterThan(0);
  });

  it('Forbid with startingDeadlineSeconds 60: blocked runs are missed, not started late', async () => {
    const sim = scenario(
      { schedule: '*/5 * * * *', concurrencyPolicy: 'Forbid', startingDeadlineSeconds: 60 },
      '7m',
      '31m',
    );
    await sim.run();
    const { jobs } = await state(sim);
    // when 00:05's Job ends (~00:12) only times after now − 60 s count: 00:10 is never started
    expect(jobs.map((j) => j.metadata.name)).toEqual([5, 15, 25].map((m) => `tick-${minute(m)}`));
  });

  it('Replace: each run replaces the still-running one', async () => {
    const sim = scenario({ schedule: '*/5 * * * *', concurrencyPolicy: 'Replace' }, '7m', '16m');
    await sim.run();
    const { cj, jobs } = await state(sim);
    expect(sim.cm.cronjob.jobsCreated).toBe(3);
    expect(jobs.map((j) => j.metadata.name)).toEqual([`tick-${minute(15)}`]);
    expect(cj.status?.active?.map((a) => a.name)).toEqual([`tick-${minute(15)}`]);
  });

  it('Allow: overlapping runs all stay active', async () => {
    const sim = scenario({ schedule: '*/5 * * * *' }, '12m', '16m');
    await sim.run();
    const { cj } = await state(sim);
    expect(cj.status?.active?.length).toBe(3);
  });

  it('suspend: no Jobs', async () => {
    const sim = scenario({ schedule: '* * * * *', suspend: true }, '10s', '5m');
    await sim.run();
    expect(sim.cm.cronjob.jobsCreated).toBe(0);
  });

  it('timeZone: 0 1 * * * in Asia/Tokyo runs at 16:00 UTC', async () => {
    const sim = scenario({ schedule: '0 1 * * *', timeZone: 'Asia/Tokyo' }, '10s', '16h1m');
    await sim.run();
    const { jobs } = await state(sim);
    expect(jobs.map((j) => j.metadata.name)).toEqual([`tick-${minute(16 * 60)}`]);
    expect(jobs[0].metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp']).toBe(
      '2026-01-02T01:00:00+09:00',
    );
  });
});

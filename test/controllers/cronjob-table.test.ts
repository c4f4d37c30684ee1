/**
 * upstream's pkg/controller/cronjob/utils_test.go (v1.34) TestMostRecentScheduleTime and
 * TestNextScheduleTimeDuration rows as data, against mostRecentScheduleTime / nextScheduleDelayMs
 * over the schedule parser (cron-parser underneath, robfig/cron's ParseStandard rules on top).
 * Times are offsets from upstream's topOfTheHour, 2016-05-19T10:00:00Z (a Thursday).
 */
import { describe, expect, it } from 'vitest';
import type { CronJob } from '../../src/api/batch-types.js';
import { parseSchedule, ScheduleError } from '../../src/controllers/cron-schedule.js';
import { jobNameFor, mostRecentScheduleTime, nextScheduleDelayMs } from '../../src/controllers/cronjob.js';

const TOP = Date.parse('2016-05-19T10:00:00Z');
const M = 60_000;
const H = 60 * M;
const at = (ms: number) => new Date(TOP + ms).toISOString();

function cj(schedule: string, created: number, last?: number, sds?: number): CronJob {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'cj', namespace: 'default', creationTimestamp: at(created) },
    spec: {
      schedule,
      startingDeadlineSeconds: sds,
      jobTemplate: { spec: { template: { spec: { containers: [] } } } },
    },
    status: last === undefined ? {} : { lastScheduleTime: at(last) },
  };
}

// name, cronjob, includeSDS, now, earliest, recent (undefined = nil), missed, wantErr
const rows: [string, CronJob, boolean, number, number | undefined, number | undefined, string, boolean][] = [
  ['now before next schedule', cj('0 * * * *', 0), false, 30_000, 0, undefined, 'none', false],
  ['now just after next schedule', cj('0 * * * *', 0), false, 61 * M, 0, 60 * M, 'none', false],
  ['missed 5 schedules', cj('0 * * * *', 10_000), false, 301 * M, 10_000, 300 * M, 'few', false],
  [
    'complex schedule',
    cj('30 6-16/4 * * 1-5', 0, 30 * M),
    false,
    24 * H + 31 * M,
    30 * M,
    24 * H + 30 * M,
    'few',
    false,
  ],
  [
    'another complex schedule',
    cj('30 10,11,12 * * 1-5', 0, 30 * M),
    false,
    30 * H + 30 * M,
    30 * M,
    undefined,
    'few',
    false,
  ],
  [
    'complex schedule with longer diff between executions',
    cj('30 6-16/4 * * 1-5', 0, 30 * M),
    false,
    96 * H + 31 * M,
    30 * M,
    96 * H + 30 * M,
    'few',
    false,
  ],
  [
    'complex schedule with shorter diff between executions',
    cj('30 6-16/4 * * 1-5', 0),
    false,
    24 * H + 31 * M,
    0,
    24 * H + 30 * M,
    'few',
    false,
  ],
  [
    '@every schedule',
    cj('@every 1h', -59 * M, 1 * M, 10),
    false,
    7 * 24 * H,
    1 * M,
    6 * 24 * H + 23 * H + 1 * M,
    'many',
    false,
  ],
  ['rogue cronjob', cj('59 23 31 2 *', 10_000), false, 1 * H, undefined, undefined, 'none', true],
  [
    'earliestTime being CreationTimestamp and LastScheduleTime',
    cj('0 * * * *', 0, 0),
    false,
    30_000,
    0,
    undefined,
    'none',
    false,
  ],
  [
    'earliestTime being LastScheduleTime',
    cj('*/5 * * * *', 0, 30 * M),
    false,
    31 * M,
    30 * M,
    undefined,
    'none',
    false,
  ],
  [
    'earliestTime being LastScheduleTime (within StartingDeadlineSeconds)',
    cj('*/5 * * * *', 0, 30 * M, 60),
    false,
    31 * M,
    30 * M,
    undefined,
    'none',
    false,
  ],
  [
    'earliestTime being LastScheduleTime (outside StartingDeadlineSeconds)',
    cj('*/5 * * * *', 0, 30 * M, 60),
    true,
    32 * M,
    31 * M,
    undefined,
    'none',
    false,
  ],
];

describe('CronJob: upstream TestMostRecentScheduleTime', () => {
  for (const [name, c, sds, now, earliest, recent, missed, wantErr] of rows)
    it(name, () => {
      const r = mostRecentScheduleTime(c, TOP + now, parseSchedule(c.spec.schedule), sds);
      if (wantErr) {
        expect(r.error).toBeDefined();
        return;
      }
      expect(r.error).toBeUndefined();
      expect(r.earliestMs).toBe(TOP + earliest!);
      expect(r.recentMs).toBe(recent === undefined ? undefined : TOP + recent);
      expect(r.missed).toBe(missed);
    });
});

describe('CronJob: upstream TestNextScheduleTimeDuration', () => {
  const delta = 100;
  const rows2: [string, CronJob, number, number][] = [
    [
      'complex schedule skipping weekend',
      cj('30 6-16/4 * * 1-5', 0, 30 * M),
      24 * H + 31 * M,
      3 * H + 59 * M + delta,
    ],
    [
      'another complex schedule skipping weekend',
      cj('30 10,11,12 * * 1-5', 0, 30 * M),
      30 * H + 30 * M,
      66 * H + delta,
    ],
    [
      'once a week cronjob, missed two runs',
      cj('0 12 * * 4', 0, 2 * H),
      19 * 24 * H + 1 * H + 30 * M,
      48 * H + 30 * M + delta,
    ],
    ['no previous run of a cronjob', cj('0 12 * * 5', 0), 6 * H, 20 * H + delta],
  ];
  for (const [name, c, now, want] of rows2)
    it(name, () => {
      expect(nextScheduleDelayMs(c, TOP + now, parseSchedule(c.spec.schedule))).toBe(want);
    });
});

describe('CronJob schedules: what robfig/cron ParseStandard accepts', () => {
  it('descriptors, @every, names, and the day-of-month OR day-of-week rule', () => {
    const next = (s: string, from: number, tz?: string) =>
      new Date(parseSchedule(s, tz).next(TOP + from)!).toISOString();
    expect(next('@hourly', 0)).toBe('2016-05-19T11:00:00.000Z');
    expect(next('@midnight', 0)).toBe('2016-05-20T00:00:00.000Z');
    expect(next('@weekly', 0)).toBe('2016-05-22T00:00:00.000Z');
    expect(next('@every 90m', 30_500)).toBe('2016-05-19T11:30:30.000Z');
    expect(next('0 0 1,15 * WED', 0)).toBe('2016-05-25T00:00:00.000Z'); // Wednesday before June 1
    expect(next('0 9 * * *', 0, 'Europe/Berlin')).toBe('2016-05-20T07:00:00.000Z'); // 09:00 CEST
  });
  it('rejects six fields, unknown descriptors, TZ prefixes and unknown zones', () => {
    expect(() => parseSchedule('0 0 * * * *')).toThrow(ScheduleError);
    expect(() => parseSchedule('@minutely')).toThrow('unrecognized descriptor: @minutely');
    expect(() => parseSchedule('TZ=UTC 0 * * * *')).toThrow('use timeZone field instead');
    expect(() => parseSchedule('0 * * * *', 'Mars/Olympus')).toThrow('unknown time zone Mars/Olympus');
  });
  it('getJobName: the scheduled time in minutes since the epoch', () => {
    expect(jobNameFor(cj('* * * * *', 0), TOP)).toBe(`cj-${TOP / 60_000}`);
  });
});

/**
 * CronJob schedules as kube-controller-manager reads them (upstream: pkg/controller/cronjob uses
 * robfig/cron/v3 `cron.ParseStandard`): five fields — minute, hour, day of month, month, day of
 * week, with ranges, steps, lists and names; day of month and day of week ORed when both are
 * restricted — or one of the descriptors @yearly/@annually, @monthly, @weekly, @daily/@midnight,
 * @hourly and `@every <duration>`; evaluated in `spec.timeZone` (an IANA name, default UTC).
 *
 * The five-field arithmetic is the `cron-parser` library's (pinned); this module adds what
 * ParseStandard accepts and cron-parser does not (@midnight, @every), and refuses what cron-parser
 * accepts and ParseStandard does not (a sixth seconds field, @minutely, @weekdays, …).
 */
import { CronExpressionParser } from 'cron-parser';

export class ScheduleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScheduleError';
  }
}

/** a parsed schedule: the first activation strictly after `ms` (whole seconds), or undefined */
export interface Schedule {
  next(ms: number): number | undefined;
}

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** Go's time.ParseDuration for the units a schedule uses (h, m, s, ms) */
function parseGoDuration(s: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(h|ms|m|s)/gy;
  let total = 0;
  let m: RegExpExecArray | null;
  let pos = 0;
  while ((m = re.exec(s))) {
    const n = Number(m[1]);
    total += m[2] === 'h' ? n * 3_600_000 : m[2] === 'm' ? n * 60_000 : m[2] === 's' ? n * 1000 : n;
    pos = re.lastIndex;
  }
  return pos === s.length && s.length > 0 ? total : undefined;
}

/** cron.ParseStandard + the location of spec.timeZone */
export function parseSchedule(spec: string, timeZone?: string): Schedule {
  const s = spec.trim();
  if (/^(CRON_)?TZ=/.test(s))
    throw new ScheduleError('cannot use TZ or CRON_TZ in schedule, use timeZone field instead');
  if (s.startsWith('@every ')) {
    const d = parseGoDuration(s.slice(7).trim());
    if (d === undefined) throw new ScheduleError(`failed to parse duration ${s}`);
    // ConstantDelaySchedule: at least one second, whole seconds
    const delay = Math.max(1000, Math.floor(d / 1000) * 1000);
    return { next: (ms) => Math.floor(ms / 1000) * 1000 + delay };
  }
  let expr = s;
  if (s.startsWith('@')) {
    expr = DESCRIPTORS[s];
    if (!expr) throw new ScheduleError(`unrecognized descriptor: ${s}`);
  } else {
    const n = s.split(/\s+/).length;
    if (n !== 5) throw new ScheduleError(`expected exactly 5 fields, found ${n}: ${s}`);
  }
  if (timeZone !== undefined && !isTimeZone(timeZone))
    throw new ScheduleError(`unknown time zone ${timeZone}`);
  try {
    CronExpressionParser.parse(expr, { currentDate: new Date(0), tz: timeZone ?? 'UTC' });
  } catch (e) {
    // a date that never comes (Feb 31) parses in robfig/cron and simply never activates
    if (/day of month definition/.test((e as Error).message)) return { next: () => undefined };
    throw new ScheduleError((e as Error).message);
  }
  return {
    next: (ms) => {
      try {
        const it = CronExpressionParser.parse(expr, { currentDate: new Date(ms), tz: timeZone ?? 'UTC' });
        return it.next().getTime();
      } catch {
        return undefined; // no activation can ever come (robfig returns the zero time)
      }
    },
  };
}

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

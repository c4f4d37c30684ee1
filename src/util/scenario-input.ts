/**
 * What every reader of a scenario section shares, below the scenario parser (src/sim/scenario.ts)
 * and the components whose settings a scenario holds (src/kubelet/, src/autoscaler/), so that those
 * components parse their own sections without importing the simulation: the error a bad scenario
 * raises, and durations.
 */
import { checkDurationMs, LIMITS, LimitError } from './limits.js';

/** A scenario (or a section of one) that cannot be read: the message names the file and the field. */
export class ScenarioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScenarioError';
  }
}

/**
 * "90s", "5m", "1h30m", "250ms", or a number of seconds; at most LIMITS.durationMs (30 days), so
 * every duration a scenario names stays a safe number of milliseconds on the virtual clock.
 */
export function parseDuration(v: unknown, where: string): number {
  const ms = parseDurationText(v, where);
  try {
    return checkDurationMs(where, ms, LIMITS.durationMs);
  } catch (e) {
    if (e instanceof LimitError) throw new ScenarioError(e.message);
    throw e;
  }
}

function parseDurationText(v: unknown, where: string): number {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v * 1000;
  if (typeof v !== 'string')
    throw new ScenarioError(`${where}: expected a duration like "30s", "5m", got ${JSON.stringify(v)}`);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0,
    m: RegExpExecArray | null,
    pos = 0;
  const s = v.trim();
  if (!s) throw new ScenarioError(`${where}: empty duration`);
  while ((m = re.exec(s))) {
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
    pos = re.lastIndex;
  }
  if (pos !== s.length)
    throw new ScenarioError(
      `${where}: invalid duration ${JSON.stringify(v)} (use e.g. 250ms, 30s, 5m, 1h30m)`,
    );
  return total;
}

/** Raises the caller's input error for `path` (a scenario field path) with `message`. */
export type Fail = (path: string, message: string) => never;

/** A {@link Fail} throwing a ScenarioError `<at(path)>: <message>` (`at` adds the file name). */
export const failAt =
  (at: (path: string) => string): Fail =>
  (path, message) => {
    throw new ScenarioError(`${at(path)}: ${message}`);
  };

/**
 * Every field of the mapping at `where` is one of `known`; the first that is not is an input error
 * naming its path, in the wording of the API's validation (api/validation.ts):
 * `<where>.<field>: unknown field (expected one of a, b, c)`. No field is dropped silently.
 */
export function checkKnownFields(obj: object, known: Iterable<string>, where: string, fail: Fail): void {
  const names = [...known];
  for (const k of Object.keys(obj))
    if (!names.includes(k))
      fail(where ? `${where}.${k}` : k, `unknown field (expected one of ${names.join(', ')})`);
}

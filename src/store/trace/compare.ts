/**
 * Compares a replay's answers with a golden trace, by the format's rules:
 *
 * 1. `expected[i]` deep-equals the answer to `ops[i]` in both directions (no missing or extra
 *    fields, arrays in order), with matchers `{"$any": true}`, `{"$range": [lo, hi]}` and
 *    `{"$oneOf": [...]}`; errors match on `code` and on the message without a leading
 *    "etcdserver: " (only on the code with `ignoreErrorMessages`).
 * 2. `watchEvents[id]`: exact list equality.
 * 3. `watchMeta[id].compactRevision` and `cancelReason` (absent = null): equality.
 * 4. no revision split across two watch responses (grouping itself is not compared).
 * 5. `skipQuirks` skips ops, and watchers created by ops, tagged with `quirk`.
 */
import type { GoldenTrace, TraceOp, TraceResult } from './format.js';

export interface CompareOptions {
  skipQuirks?: boolean;
  ignoreErrorMessages?: boolean;
}

export interface TraceDifference {
  /** where: "ops[3] put a .prevKv.version", "watchEvents.w1[2]", ... */
  where: string;
  expected: unknown;
  actual: unknown;
  message: string;
}

const stripPrefix = (m: unknown) => (typeof m === 'string' && m.startsWith('etcdserver: ') ? m.slice(12) : m);

function isMatcher(x: unknown): x is { $any?: true; $range?: [number, number]; $oneOf?: unknown[] } {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return false;
  const keys = Object.keys(x);
  return keys.length === 1 && (keys[0] === '$any' || keys[0] === '$range' || keys[0] === '$oneOf');
}

/** Deep match of `exp` (may contain matchers) against `act`; differences are appended to `out`. */
export function matchValue(
  exp: unknown,
  act: unknown,
  where: string,
  out: TraceDifference[],
  opts: CompareOptions = {},
): void {
  if (isMatcher(exp)) {
    if (exp.$any) return;
    if (exp.$range) {
      const [lo, hi] = exp.$range;
      if (typeof act !== 'number' || act < lo || act > hi)
        out.push({ where, expected: exp, actual: act, message: `expected a number in [${lo}, ${hi}]` });
      return;
    }
    if (exp.$oneOf) {
      if (
        !exp.$oneOf.some((alt) => {
          const d: TraceDifference[] = [];
          matchValue(alt, act, where, d, opts);
          return d.length === 0;
        })
      ) {
        out.push({ where, expected: exp, actual: act, message: 'matches none of the alternatives' });
      }
      return;
    }
  }
  if (Array.isArray(exp)) {
    if (!Array.isArray(act)) {
      out.push({ where, expected: exp, actual: act, message: 'expected an array' });
      return;
    }
    if (exp.length !== act.length)
      out.push({
        where: `${where}.length`,
        expected: exp.length,
        actual: act.length,
        message: `expected ${exp.length} items, got ${act.length}`,
      });
    const n = Math.min(exp.length, act.length);
    for (let i = 0; i < n; i++) matchValue(exp[i], act[i], `${where}[${i}]`, out, opts);
    return;
  }
  if (typeof exp === 'object' && exp !== null) {
    if (typeof act !== 'object' || act === null || Array.isArray(act)) {
      out.push({ where, expected: exp, actual: act, message: 'expected an object' });
      return;
    }
    const e = exp as Record<string, unknown>,
      a = act as Record<string, unknown>;
    if ('error' in e && typeof e.error === 'object' && e.error !== null) {
      const ee = e.error as Record<string, unknown>,
        ae = (a.error ?? null) as Record<string, unknown> | null;
      if (!ae) {
        out.push({ where, expected: exp, actual: act, message: 'expected an error' });
        return;
      }
      if (ee.code !== ae.code)
        out.push({
          where: `${where}.error.code`,
          expected: ee.code,
          actual: ae.code,
          message: 'error code differs',
        });
      if (!opts.ignoreErrorMessages && stripPrefix(ee.message) !== stripPrefix(ae.message)) {
        out.push({
          where: `${where}.error.message`,
          expected: ee.message,
          actual: ae.message,
          message: 'error message differs',
        });
      }
      return;
    }
    if ('error' in a && !('error' in e)) {
      out.push({ where, expected: exp, actual: act, message: 'unexpected error' });
      return;
    }
    for (const k of Object.keys(e)) {
      if (!(k in a))
        out.push({ where: `${where}.${k}`, expected: e[k], actual: undefined, message: 'missing field' });
      else matchValue(e[k], a[k], `${where}.${k}`, out, opts);
    }
    for (const k of Object.keys(a)) {
      if (!(k in e))
        out.push({ where: `${where}.${k}`, expected: undefined, actual: a[k], message: 'unexpected field' });
    }
    return;
  }
  if (!Object.is(exp, act)) out.push({ where, expected: exp, actual: act, message: 'differs' });
}

function opLabel(i: number, op: TraceOp): string {
  const subject =
    typeof op.key === 'string'
      ? ` ${JSON.stringify(op.key)}`
      : op.lease
        ? ` ${op.lease}`
        : op.id !== undefined
          ? ` ${op.id}`
          : '';
  return `ops[${i}] ${op.op}${subject}`;
}

/** Compare a replay result with the trace's recorded answers; an empty list means "conforms". */
export function compareTrace(
  trace: GoldenTrace,
  actual: TraceResult,
  opts: CompareOptions = {},
): TraceDifference[] {
  const out: TraceDifference[] = [];
  const exp = trace.expected ?? [];
  if (actual.expected.length !== exp.length) {
    out.push({
      where: 'expected.length',
      expected: exp.length,
      actual: actual.expected.length,
      message: 'different number of answers',
    });
  }
  const skippedWatchers = new Set<string>();
  trace.ops.forEach((op, i) => {
    if (opts.skipQuirks && op.quirk) {
      if (op.op === 'watch') skippedWatchers.add(String(op.id));
      return;
    }
    if (i < exp.length && i < actual.expected.length)
      matchValue(exp[i], actual.expected[i], opLabel(i, op), out, opts);
  });
  for (const [id, events] of Object.entries(trace.watchEvents ?? {})) {
    if (skippedWatchers.has(id)) continue;
    const got = actual.watchEvents[id];
    if (got === undefined) {
      out.push({
        where: `watchEvents.${id}`,
        expected: events,
        actual: undefined,
        message: 'watcher missing',
      });
      continue;
    }
    matchValue(events, got, `watchEvents.${id}`, out, opts);
  }
  for (const id of Object.keys(actual.watchEvents)) {
    if (!(id in (trace.watchEvents ?? {})) && trace.watchEvents)
      out.push({
        where: `watchEvents.${id}`,
        expected: undefined,
        actual: actual.watchEvents[id],
        message: 'unexpected watcher',
      });
  }
  for (const [id, meta] of Object.entries(trace.watchMeta ?? {})) {
    if (skippedWatchers.has(id)) continue;
    const got = actual.watchMeta[id];
    if (!got) continue; // reported above through watchEvents
    if ((meta.compactRevision ?? null) !== (got.compactRevision ?? null)) {
      out.push({
        where: `watchMeta.${id}.compactRevision`,
        expected: meta.compactRevision,
        actual: got.compactRevision,
        message: 'compactRevision differs',
      });
    }
    if ((meta.cancelReason ?? null) !== (got.cancelReason ?? null)) {
      out.push({
        where: `watchMeta.${id}.cancelReason`,
        expected: meta.cancelReason ?? null,
        actual: got.cancelReason ?? null,
        message: 'cancel reason differs',
      });
    }
  }
  for (const [id, meta] of Object.entries(actual.watchMeta)) {
    if (skippedWatchers.has(id)) continue;
    const seen = new Map<number, number>();
    meta.responses.forEach((r, i) => {
      for (const rev of r.eventRevisions) {
        const first = seen.get(rev);
        if (first !== undefined && first !== i)
          out.push({
            where: `watchMeta.${id}.responses[${i}]`,
            expected: `revision ${rev} in one response`,
            actual: `also in response ${first}`,
            message: 'revision split across responses',
          });
        seen.set(rev, i);
      }
    });
    for (const err of meta.errors)
      out.push({ where: `watchMeta.${id}.errors`, expected: [], actual: err, message: 'watcher error' });
  }
  return out;
}

/** One line per difference, for the CLI and test failure messages. */
export function formatDifferences(diffs: TraceDifference[], limit = 50): string {
  const lines = diffs
    .slice(0, limit)
    .map(
      (d) =>
        `  ${d.where}: ${d.message}\n      expected ${JSON.stringify(d.expected)}\n      actual   ${JSON.stringify(d.actual)}`,
    );
  if (diffs.length > limit) lines.push(`  … and ${diffs.length - limit} more`);
  return lines.join('\n');
}

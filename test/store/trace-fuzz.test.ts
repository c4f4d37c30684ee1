/**
 * Seeded fuzzing of trace loading and replay (`kubesim store replay`'s path: loadTrace/parseTrace,
 * then replayOnMemory). Each case mutates a recorded or hand-written trace once. A mutation that
 * makes the trace malformed must be rejected with a TraceFormatError naming the file and the op
 * (or top-level field) it broke; a mutation that keeps it well-formed must be accepted and replay
 * to the end. Never an internal error, a hang (each case runs in a worker thread under a
 * watchdog) or a malformed trace accepted silently.
 *
 * More cases: KUBESIM_FUZZ_CASES=5000; another seed: KUBESIM_FUZZ_SEED=7.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/util/rng.js';

const SEED = Number(process.env.KUBESIM_FUZZ_SEED ?? 1);
const CASES = Number(process.env.KUBESIM_FUZZ_CASES ?? 300);
const HANG_MS = 15_000;
const dist = join(import.meta.dirname, '..', '..', 'dist', 'src', 'store', 'index.js');
const fixtures = join(import.meta.dirname, '..', 'fixtures');

type Json = Record<string, unknown>;
interface Case {
  i: number;
  mutation: string;
  /** for a malformed trace: text the error must contain (the op or field it names) */
  mustName?: string;
  json?: string;
  file?: string;
}

const bases: Json[] = ['etcd', 'store'].flatMap((d) =>
  readdirSync(join(fixtures, d))
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(fixtures, d, f), 'utf8')) as Json),
);

const KEY_FIELDS = ['key', 'rangeEnd', 'value'];
const INT_FIELDS = [
  'revision',
  'limit',
  'startRevision',
  'minModRevision',
  'maxModRevision',
  'minCreateRevision',
  'maxCreateRevision',
  'ttl',
];
const REQUIRED: Record<string, string> = {
  put: 'key',
  range: 'key',
  delete: 'key',
  compact: 'revision',
  leaseGrant: 'ttl',
  leaseRevoke: 'lease',
  leaseKeepAlive: 'lease',
  leaseTimeToLive: 'lease',
  leaseExpire: 'lease',
  watch: 'id',
  watchCancel: 'id',
  sleep: 'ms',
};
/** ops that can be dropped, duplicated or moved without breaking a reference */
const MOVABLE = new Set(['put', 'range', 'delete', 'txn', 'compact', 'leaseKeepAlive', 'leaseTimeToLive']);
const KEYS = ['a', 'b/1', '', '\u0000', 'é', '😀', '\uffff', '\udcff', 'a\u007f', 'w/a'];

/** a value of another JSON type than `v`, accepted by no field of that kind */
function wrongType(rng: Rng, v: unknown): unknown {
  if (typeof v === 'boolean') return rng.pick([1, 'true', {}]);
  if (typeof v === 'number') return rng.pick(['1', true, {}, [1]]);
  if (typeof v === 'string') return rng.pick([true, {}, ['x']]);
  if (v === null) return rng.pick([5, true, {}]);
  if (Array.isArray(v)) return rng.pick(['x', 5, {}]);
  return 'x';
}

const strip = (t: Json) => {
  delete t.expected;
  delete t.watchEvents;
  delete t.watchMeta;
  delete t.opCount;
};

/** One mutation of a copy of a base trace; returns the case without its index. */
function mutate(rng: Rng, base: Json, dir: string, n: number): Omit<Case, 'i'> {
  const t = structuredClone(base);
  const ops = t.ops as Json[];
  const i = rng.int(ops.length);
  const op = ops[i]!;
  const at = `ops[${i}]`;
  const fields = Object.keys(op).filter((f) => !['op', 'note', 'quirk'].includes(f));
  const json = () => JSON.stringify(t);
  switch (rng.int(16)) {
    case 0: {
      if (fields.length === 0) break;
      const f = rng.pick(fields);
      op[f] = wrongType(rng, op[f]);
      return {
        mutation: `wrong type of ${at}.${f}`,
        mustName: `${at} (${op.op}): field "${f}"`,
        json: json(),
      };
    }
    case 1:
      op.op = `frob${rng.int(100)}`;
      return { mutation: `unknown op at ${at}`, mustName: `${at}: unknown op`, json: json() };
    case 2:
      // an own property even for "__proto__" (JSON.parse makes one; plain assignment would not)
      Object.defineProperty(op, rng.pick(['prevkv', 'Key', 'zz', '__proto__', 'constructor']), {
        value: 1,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      return {
        mutation: `unknown field in ${at}`,
        mustName: `${at} (${op.op}): unknown field`,
        json: json(),
      };
    case 3: {
      const f = REQUIRED[op.op as string];
      if (!f) break;
      delete op[f];
      return {
        mutation: `${at} without ${f}`,
        mustName: `${at} (${op.op}): field "${f}" is required`,
        json: json(),
      };
    }
    case 4: {
      const f = fields.find((x) => INT_FIELDS.includes(x) || x === 'ms');
      if (!f) break;
      op[f] = rng.pick([0.5, 1e300, -1e300, 2 ** 60]);
      return { mutation: `non-integer ${at}.${f}`, mustName: `${at} (${op.op}): field "${f}"`, json: json() };
    }
    case 5:
      strip(t);
      ops.splice(i, 0, { op: 'sleep', ms: rng.pick([1e12, 3_600_001, -5]) });
      return {
        mutation: `sleep out of bounds at ${at}`,
        mustName: `${at} (sleep): field "ms"`,
        json: json(),
      };
    case 6: {
      const f = fields.find((x) => KEY_FIELDS.includes(x) && typeof op[x] === 'string');
      if (!f) break;
      op[f] = `${op[f]}${rng.pick(['\ud800', '\udc00', '\udcc3\udca9'])}`;
      return {
        mutation: `${at}.${f} names no bytes`,
        mustName: `${at} (${op.op}): field "${f}"`,
        json: json(),
      };
    }
    case 7:
      strip(t);
      ops.splice(i, 0, { op: 'watchCancel', id: `never-${rng.int(1000)}` });
      return {
        mutation: `cancel of an unknown watch at ${at}`,
        mustName: `${at} (watchCancel): no watch`,
        json: json(),
      };
    case 8: {
      let deep: Json = { op: 'range', key: 'a' };
      for (let d = 0; d < 60; d++) deep = { op: 'txn', success: [deep] };
      ops[i] = deep;
      return { mutation: `deeply nested txn at ${at}`, mustName: `${at}: nested deeper`, json: json() };
    }
    case 9:
      strip(t);
      ops.splice(i, 0, { op: 'leaseGrant', lease: 'Lfuzz', ttl: 1e6 }, { op: 'leaseExpire', lease: 'Lfuzz' });
      return {
        mutation: `a 1e6 s lease waited out at ops[${i + 1}]`,
        mustName: `ops[${i + 1}] (leaseExpire): the trace's virtual time`,
        json: json(),
      };
    case 10: {
      const which = rng.int(4);
      if (which === 0) t.format = 'etcd-golden-trace/v2';
      else if (which === 1) t.watchMeta = { w1: null };
      else if (which === 2) t.expected = [];
      else t[`extra${rng.int(9)}`] = true;
      const names = ['field "format"', 'watchMeta["w1"]', '"expected" has 0 entries', 'unknown field "extra'];
      return { mutation: `top level ${names[which]}`, mustName: names[which], json: json() };
    }
    case 11: {
      const text = JSON.stringify(t, null, rng.pick([0, 2]));
      const file = join(dir, `case-${n}.json`);
      if (rng.next() < 0.5) {
        writeFileSync(file, text.slice(0, rng.int(text.length - 1)));
        return { mutation: 'truncated file', mustName: `${file}: not valid JSON`, file };
      }
      const bytes = Buffer.from(text, 'utf8');
      const off = rng.int(bytes.length);
      writeFileSync(file, Buffer.concat([bytes.subarray(0, off), Buffer.of(0xff), bytes.subarray(off)]));
      return { mutation: 'invalid UTF-8', mustName: `${file}: not UTF-8: byte 0xff at offset ${off}`, file };
    }
    // ── mutations that keep the trace well-formed ──
    case 12:
      if (!MOVABLE.has(op.op as string)) break;
      ops.splice(i, 1);
      strip(t);
      return { mutation: `drop ${at}`, json: json() };
    case 13:
      if (!MOVABLE.has(op.op as string)) break;
      ops.splice(i, 0, structuredClone(op));
      strip(t);
      return { mutation: `duplicate ${at}`, json: json() };
    case 14: {
      const f = fields.find((x) => INT_FIELDS.includes(x));
      if (!f) break;
      op[f] = rng.range(-3, 200);
      strip(t);
      return { mutation: `${at}.${f} = ${op[f]}`, json: json() };
    }
    case 15: {
      if (typeof op.key !== 'string') break;
      op.key = rng.pick(KEYS);
      delete op.prefix;
      delete op.fromKey;
      delete op.allKeys;
      strip(t);
      return { mutation: `${at}.key = ${JSON.stringify(op.key)}`, json: json() };
    }
  }
  // the chosen mutation did not apply to this op: an unchanged trace must replay
  return { mutation: 'unchanged', json: json() };
}

async function runCases(cases: Case[]): Promise<Map<number, { outcome: string; message?: string }>> {
  const results = new Map<number, { outcome: string; message?: string }>();
  let worker: Worker | undefined;
  const start = () =>
    new Promise<Worker>((resolve, reject) => {
      const w = new Worker(new URL('./trace-fuzz-worker.mjs', import.meta.url));
      w.once('message', () => resolve(w));
      w.once('error', reject);
    });
  for (const c of cases) {
    worker ??= await start();
    const w = worker;
    const r = await new Promise<{ outcome: string; message?: string }>((resolve) => {
      const timer = setTimeout(() => {
        void w.terminate();
        resolve({ outcome: 'hang', message: `no answer within ${HANG_MS} ms` });
      }, HANG_MS);
      w.once('message', (m: { outcome: string; message?: string }) => {
        clearTimeout(timer);
        resolve(m);
      });
      w.once('error', (e) => {
        clearTimeout(timer);
        resolve({ outcome: 'internal', message: `worker died: ${e.message}` });
      });
      w.postMessage({ i: c.i, json: c.json, file: c.file });
    });
    if (r.outcome === 'hang' || r.message?.startsWith('worker died')) worker = undefined;
    else w.removeAllListeners('error');
    results.set(c.i, r);
  }
  await worker?.terminate();
  return results;
}

describe.skipIf(!existsSync(dist))(
  `trace fuzzing (seed ${SEED}, ${CASES} cases; needs npm run build)`,
  () => {
    it('a clear error naming the op, or a replay to the end: never an internal error, hang or silent acceptance', async () => {
      const rng = new Rng(SEED);
      const dir = mkdtempSync(join(tmpdir(), 'kubesim-trace-fuzz-'));
      const cases: Case[] = [];
      for (let i = 0; i < CASES; i++) cases.push({ i, ...mutate(rng, rng.pick(bases), dir, i) });
      const results = await runCases(cases);
      const bad: string[] = [];
      const tally = { rejected: 0, accepted: 0 };
      for (const c of cases) {
        const r = results.get(c.i)!;
        const what = `case ${c.i} (${c.mutation}): ${r.outcome}${r.message ? `: ${r.message.slice(0, 400)}` : ''}`;
        if (r.outcome === 'rejected' || r.outcome === 'accepted') tally[r.outcome]++;
        if (c.mustName !== undefined) {
          if (r.outcome !== 'rejected' || !r.message?.includes(c.mustName))
            bad.push(`${what}\n    expected a rejection naming ${JSON.stringify(c.mustName)}`);
          else if (!r.message.startsWith(c.file ?? 'fuzz.json'))
            bad.push(`${what}\n    the message does not name the file`);
        } else if (r.outcome !== 'accepted') bad.push(`${what}\n    expected the trace to replay`);
      }
      expect(bad, `seed ${SEED} (KUBESIM_FUZZ_SEED=${SEED} KUBESIM_FUZZ_CASES=${CASES})`).toEqual([]);
      // both kinds of case were exercised
      expect(tally.rejected).toBeGreaterThan(CASES / 3);
      expect(tally.accepted).toBeGreaterThan(CASES / 10);
    });
  },
);

/**
 * `kubesim store …`: the etcd-semantics store from the command line.
 *
 *   kubesim store demo                      a guided tour of the in-memory store (puts, txn CAS, watch, lease, compaction)
 *   kubesim store replay <trace.json>       replay an etcd golden trace on the in-memory store
 *            [--check] [--skip-quirks] [--ignore-error-messages] [-o table|json]
 *
 * `kubesim store record` (recording traces on a real etcd) lives in src/cli/store-record.ts.
 */
import type { Command } from 'commander';
import { CliError } from './errors.js';
import { registerRecord } from './store-record.js';
import { json, parseOutputFormat } from './output.js';
import { table } from '../report/table.js';
import { ManualClock } from '../util/clock.js';
import { MemoryStore } from '../store/memory/store.js';
import { prefixEnd } from '../store/keyrange.js';
import type { KeyValue, WatchEvent } from '../store/types.js';
import {
  compareTrace,
  formatDifferences,
  loadTrace as loadTraceFile,
  replayOnMemory,
  TraceFormatError,
  type GoldenTrace,
  type TraceOp,
} from '../store/trace/index.js';

export function register(program: Command): void {
  const store = program
    .command('store')
    .description('the etcd v3 semantics store: an in-memory MVCC demo and golden-trace replay');

  store
    .command('demo')
    .description(
      'walk through puts, a compare-and-swap txn, a prefix watch, a lease expiring and a compaction on the in-memory store',
    )
    .option('-o, --output <format>', 'table | json', 'table')
    .action(async (o: { output: string }) => {
      const format = parseOutputFormat(o.output);
      const result = await runDemo();
      process.stdout.write(format === 'json' ? json(result) : renderDemo(result));
    });

  store
    .command('replay')
    .argument('<trace>', 'an etcd-golden-trace/v1 JSON file (e.g. test/fixtures/etcd/kv-basic.json)')
    .description(
      'replay an etcd golden trace on the in-memory store (virtual clock) and print every answer and watch event; with --check, compare them with the recorded etcd answers and exit 1 on any difference',
    )
    .option(
      '--check',
      "compare with the trace's expected answers and watch events; exit 1 with a diff on mismatch",
    )
    .option(
      '--skip-quirks',
      'skip ops and watchers tagged "quirk" (etcd behaviour an implementation may choose not to copy)',
    )
    .option('--ignore-error-messages', 'compare error codes only')
    .option('-o, --output <format>', 'table | json', 'table')
    .action(
      async (
        file: string,
        o: { check?: boolean; skipQuirks?: boolean; ignoreErrorMessages?: boolean; output: string },
      ) => {
        const format = parseOutputFormat(o.output);
        const trace = loadTrace(file);
        const actual = await replayOnMemory(trace);
        const diffs = o.check
          ? compareTrace(trace, actual, {
              skipQuirks: o.skipQuirks,
              ignoreErrorMessages: o.ignoreErrorMessages,
            })
          : [];
        if (format === 'json') {
          process.stdout.write(json(o.check ? { ...actual, differences: diffs } : actual));
        } else {
          process.stdout.write(
            renderReplay(
              trace,
              actual.expected,
              actual.watchEvents,
              o.check ? diffs.map((d) => d.where) : undefined,
            ),
          );
        }
        if (o.check) {
          if (diffs.length > 0) {
            throw new CliError(
              `${file}: ${diffs.length} difference(s) from the recorded etcd answers:\n${formatDifferences(diffs)}`,
            );
          }
          if (format === 'table')
            process.stdout.write(
              `\n${file}: all ${trace.ops.length} answers and ${Object.keys(actual.watchEvents).length} watchers match${o.skipQuirks ? ' (quirks skipped)' : ''}\n`,
            );
        }
      },
    );
  registerRecord(store);
}

function loadTrace(file: string): GoldenTrace {
  try {
    return loadTraceFile(file);
  } catch (err) {
    if (err instanceof TraceFormatError) throw new CliError(err.message);
    throw err;
  }
}

const show = (s: string) => JSON.stringify(s).slice(1, -1);

function describeOp(op: TraceOp): string {
  const parts: string[] = [op.op];
  if (typeof op.id === 'string' || typeof op.id === 'number') parts.push(String(op.id));
  if (typeof op.key === 'string')
    parts.push(show(op.key) + (typeof op.rangeEnd === 'string' ? `..${show(op.rangeEnd)}` : ''));
  if (typeof op.value === 'string') parts.push(`=${show(op.value)}`);
  if (typeof op.lease === 'string' || op.lease === null) parts.push(`lease=${op.lease}`);
  for (const f of ['revision', 'startRevision', 'limit', 'ttl', 'ms'])
    if (op[f] !== undefined) parts.push(`${f}=${op[f]}`);
  if (op.op === 'txn')
    parts.push(
      `${(op.compare as unknown[] | undefined)?.length ?? 0} cmp, ${(op.success as unknown[] | undefined)?.length ?? 0}/${(op.failure as unknown[] | undefined)?.length ?? 0} ops`,
    );
  return parts.join(' ');
}

function summarize(answer: unknown): string {
  const a = answer as Record<string, unknown>;
  if (a.error)
    return `ERROR ${(a.error as { codeName: string; message: string }).codeName}: ${(a.error as { message: string }).message}`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(a)) {
    if (k === 'revision') continue;
    if (k === 'kvs')
      parts.push(
        `kvs=[${(v as { key: string; value: string }[]).map((kv) => `${show(kv.key)}=${show(kv.value)}`).join(' ')}]`,
      );
    else if (k === 'responses') parts.push(`${(v as unknown[]).length} responses`);
    else if (k === 'prevKvs') parts.push(`prevKvs=${(v as unknown[]).length}`);
    else if (v !== null && v !== false) parts.push(`${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`);
  }
  return parts.join(' ');
}

function renderReplay(
  trace: GoldenTrace,
  answers: unknown[],
  events: Record<string, { type: string; kv: { key: string; value: string; modRevision: number } }[]>,
  diffWheres?: string[],
): string {
  const rows = trace.ops.map((op, i) => {
    const rev = (answers[i] as { revision?: number })?.revision;
    const row: (string | number)[] = [i, describeOp(op), rev ?? '', summarize(answers[i])];
    if (diffWheres)
      row.unshift(diffWheres.some((w) => w.startsWith(`ops[${i}] `)) ? 'DIFF' : op.quirk ? 'ok*' : 'ok');
    return row;
  });
  const headers = ['#', 'OP', 'REV', 'ANSWER'];
  if (diffWheres) headers.unshift('CHECK');
  let out =
    `trace ${trace.name}: ${trace.ops.length} ops${trace.description ? `\n${trace.description}` : ''}\n\n` +
    table(headers, rows);
  const wrows: (string | number)[][] = [];
  for (const [id, evs] of Object.entries(events)) {
    if (evs.length === 0) wrows.push([id, '', '(no events)', '']);
    for (const e of evs)
      wrows.push([
        id,
        e.kv.modRevision,
        e.type,
        `${show(e.kv.key)}${e.type === 'PUT' ? `=${show(e.kv.value)}` : ''}`,
      ]);
  }
  if (wrows.length) out += '\nwatch events\n' + table(['WATCHER', 'REV', 'TYPE', 'KEY'], wrows);
  return out;
}

// ───────────────────────────── demo ─────────────────────────────

interface DemoStep {
  step: string;
  revision: number | string;
  result: string;
}
interface DemoResult {
  steps: DemoStep[];
  watchEvents: { revision: number; type: string; key: string; value: string; version: number }[];
}

/** A scripted tour of MemoryStore on a virtual clock; deterministic output. */
export async function runDemo(): Promise<DemoResult> {
  const clock = new ManualClock();
  const s = new MemoryStore({ clock });
  const enc = new TextEncoder(),
    dec = new TextDecoder();
  const steps: DemoStep[] = [];
  const add = (step: string, revision: number | string, result: string) =>
    steps.push({ step, revision, result });
  const fmt = (kv: KeyValue) =>
    `${kv.key}=${dec.decode(kv.value)} (create ${kv.createRevision}, mod ${kv.modRevision}, version ${kv.version}${kv.lease ? `, lease ${kv.lease}` : ''})`;
  const events: WatchEvent[] = [];
  const prefix = '/registry/pods/default/';

  const w = await s.watch({ key: prefix, rangeEnd: prefixEnd(prefix) }, (r) => events.push(...r.events));
  add(`watch prefix ${prefix}`, w.createdRevision, 'informer-style watcher created');
  for (const name of ['web-1', 'web-2']) {
    const r = await s.put({ key: prefix + name, value: enc.encode('{"phase":"Pending"}') });
    add(`put ${prefix}${name}`, r.header.revision, 'created');
  }
  const before = (await s.range({ key: prefix + 'web-1' })).kvs[0];
  const cas = (mod: number, phase: string) =>
    s.txn({
      compare: [{ key: prefix + 'web-1', target: 'MOD', result: 'EQUAL', modRevision: mod }],
      success: [{ requestPut: { key: prefix + 'web-1', value: enc.encode(`{"phase":"${phase}"}`) } }],
      failure: [{ requestRange: { key: prefix + 'web-1' } }],
    });
  const ok = await cas(before.modRevision, 'Running');
  add(
    `txn: if mod(web-1) == ${before.modRevision} then put Running`,
    ok.header.revision,
    ok.succeeded ? 'succeeded (resourceVersion matched)' : 'failed',
  );
  const stale = await cas(before.modRevision, 'Failed');
  add(
    `txn: if mod(web-1) == ${before.modRevision} then put Failed`,
    stale.header.revision,
    stale.succeeded ? 'succeeded' : 'failed: conflict, no new revision',
  );
  const lease = await s.leaseGrant(10);
  const lp = await s.put({ key: prefix + 'lease-holder', value: enc.encode('{}'), lease: lease.id });
  add(
    `lease grant 10s; put lease-holder with it`,
    lp.header.revision,
    `lease ${lease.id}, ttl ${lease.ttl}s`,
  );
  clock.advance(10_000);
  await s.settle();
  add(
    'advance the virtual clock 10 s',
    await s.currentRevision(),
    'lease expired: lease-holder deleted in its own revision',
  );
  const del = await s.deleteRange({ key: prefix + 'web-2', prevKv: true });
  add(`delete ${prefix}web-2`, del.header.revision, `deleted ${del.deleted}, was ${fmt(del.prevKvs[0])}`);
  const old = await s.range({ key: prefix, rangeEnd: prefixEnd(prefix), revision: 3 });
  add('range the prefix at revision 3', old.header.revision, old.kvs.map(fmt).join('; '));
  const now = await s.range({ key: prefix, rangeEnd: prefixEnd(prefix) });
  add('range the prefix now', now.header.revision, now.kvs.map(fmt).join('; '));
  await s.compact({ revision: 4 });
  add('compact at revision 4', await s.currentRevision(), 'history below 4 dropped');
  try {
    await s.range({ key: prefix, rangeEnd: prefixEnd(prefix), revision: 3 });
  } catch (err) {
    add(
      'range the prefix at revision 3 again',
      await s.currentRevision(),
      `error: ${(err as Error).message}`,
    );
  }
  await s.settle();
  await w.cancel();
  await s.close();
  return {
    steps,
    watchEvents: events.map((e) => ({
      revision: e.kv.modRevision,
      type: e.type,
      key: e.kv.key,
      value: dec.decode(e.kv.value),
      version: e.kv.version,
    })),
  };
}

function renderDemo(r: DemoResult): string {
  return (
    'MemoryStore: etcd v3 semantics in memory (virtual clock)\n\n' +
    table(
      ['STEP', 'REV', 'RESULT'],
      r.steps.map((s) => [s.step, s.revision, s.result]),
    ) +
    '\nwhat the prefix watcher received\n' +
    table(
      ['REV', 'TYPE', 'KEY', 'VALUE', 'VERSION'],
      r.watchEvents.map((e) => [e.revision, e.type, e.key, e.value, e.version]),
    )
  );
}

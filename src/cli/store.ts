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
import { addOutputOptions, emit, isStructured, type OutputFlags, structured } from './output.js';
import { renderReplay } from './store-trace-table.js';
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
} from '../store/trace/index.js';

export function register(program: Command): void {
  const store = program
    .command('store')
    .description('the etcd v3 semantics store: an in-memory MVCC demo and golden-trace replay');

  addOutputOptions(
    store
      .command('demo')
      .description(
        'walk through puts, a compare-and-swap txn, a prefix watch, a lease expiring and a compaction on the in-memory store',
      ),
  )
    .addHelpText(
      'after',
      `
Examples:
  kubesim store demo
  kubesim store demo -o json --out store-demo.json`,
    )
    .action(async (o: OutputFlags) => {
      const result = await runDemo();
      emit(o, isStructured(o.output) ? structured(o.output, result) : renderDemo(result));
    });

  const replay = store
    .command('replay')
    .argument('<trace>', 'an etcd-golden-trace/v1 JSON file (e.g. examples/store/kv-watch-lease.json)')
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
    .option('--ignore-error-messages', 'compare error codes only');
  addOutputOptions(replay)
    .addHelpText(
      'after',
      `
Examples:
  kubesim store replay examples/store/kv-watch-lease.json --check
  kubesim store replay examples/store/kv-watch-lease.json -o json`,
    )
    .action(
      async (
        file: string,
        o: OutputFlags & { check?: boolean; skipQuirks?: boolean; ignoreErrorMessages?: boolean },
      ) => {
        const format = o.output;
        const trace = loadTrace(file);
        const actual = await replayOnMemory(trace);
        const diffs = o.check
          ? compareTrace(trace, actual, {
              skipQuirks: o.skipQuirks,
              ignoreErrorMessages: o.ignoreErrorMessages,
            })
          : [];
        let text = isStructured(format)
          ? structured(format, o.check ? { ...actual, differences: diffs } : actual)
          : renderReplay(
              trace,
              actual.expected,
              actual.watchEvents,
              o.check ? diffs.map((d) => d.where) : undefined,
            );
        if (o.check && diffs.length === 0 && !isStructured(format))
          text += `\n${file}: all ${trace.ops.length} answers and ${Object.keys(actual.watchEvents).length} watchers match${o.skipQuirks ? ' (quirks skipped)' : ''}\n`;
        emit(o, text);
        if (o.check && diffs.length > 0)
          throw new CliError(
            `${file}: ${diffs.length} difference(s) from the recorded etcd answers:\n${formatDifferences(diffs)}`,
          );
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

/**
 * `kubesim store record`: record golden traces on a real etcd. Added under `kubesim store` by
 * src/cli/store.ts. The recorder (and the etcd client it uses) loads only when the command runs.
 *
 *   kubesim store record --builtin all --out-dir traces/
 *   kubesim store record --builtin lease --out lease.json
 *   kubesim store record my-ops.json --out my-trace.json [--check]
 */
import type { Command } from 'commander';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';
import { CliError, UsageError } from './errors.js';
import { addOutputOptions, emit, isStructured, type OutputFlags, structured } from './output.js';
import { renderReplay } from './store-trace-table.js';
import { compareTrace, formatDifferences } from '../store/trace/compare.js';
import { replayOnMemory } from '../store/trace/memory.js';
import type { GoldenTrace } from '../store/trace/format.js';
import { traceOpSet, traceOpSets, type TraceOpSet } from '../store/etcd/trace-ops.js';

interface RecordCliOptions extends OutputFlags {
  builtin?: string;
  outDir?: string;
  etcd?: string;
  check?: boolean;
}

/** Adds `record` to the `kubesim store` command. */
export function registerRecord(store: Command): void {
  const cmd = store
    .command('record')
    .argument(
      '[ops]',
      'JSON file with {"name", "description", "ops": [...]} in the golden-trace op vocabulary (or an existing trace: its ops are recorded again)',
    )
    .description(
      'run an op sequence on a freshly launched real etcd (needs the etcd binary, e.g. Debian etcd-server) and write the ' +
        'etcd-golden-trace/v1 file: every answer, every watch event, lease TTLs as {"$range"} matchers. ' +
        `Built-in sets: ${traceOpSets.map((s) => s.name).join(', ')}.`,
    )
    .option('--builtin <name>', 'record a built-in op set, or "all"')
    .option('--out-dir <dir>', 'with --builtin all: write <name>.json files here', '.')
    .option('--etcd <binary>', 'etcd binary (default: $KUBESIM_ETCD_BIN, etcd on PATH, /usr/bin/etcd)')
    .option(
      '--check',
      'replay each recorded trace on the in-memory store and report differences (exit 1 if any)',
    );
  // json is the trace file itself (what store replay reads); table shows its ops and answers
  addOutputOptions(cmd, ['json', 'yaml', 'table', 'wide'])
    .addHelpText(
      'after',
      `
Examples:
  kubesim store record --builtin lease --out lease.json --check
  kubesim store record --builtin all --out-dir traces/`,
    )
    .action(async (file: string | undefined, o: RecordCliOptions) => {
      const { EtcdNotFoundError } = await import('../store/etcd/launcher.js');
      const { loadOpSet, recordTrace } = await import('../store/etcd/record.js');
      const sets = selectSets(file, o, loadOpSet);
      let failed = 0;
      for (const set of sets) {
        let trace: GoldenTrace;
        const started = Date.now();
        try {
          trace = await recordTrace(set, { launch: o.etcd ? { binary: o.etcd } : {} });
        } catch (e) {
          if (e instanceof EtcdNotFoundError) throw new CliError(e.message);
          throw new CliError(`recording ${set.name}: ${(e as Error).message}`);
        }
        const text = isStructured(o.output)
          ? structured(o.output, trace)
          : renderReplay(trace, trace.expected ?? [], trace.watchEvents ?? {});
        let target = o.out;
        if (o.builtin === 'all') {
          const dir = o.outDir ?? '.';
          target = join(dir, `${set.name}.json`);
          try {
            mkdirSync(dir, { recursive: true });
            writeFileAtomic(target, text);
          } catch (e) {
            throw new CliError(`--out-dir ${dir}: cannot write: ${(e as Error).message}`);
          }
        } else {
          emit(o, text);
        }
        const watchers = Object.keys(trace.watchEvents ?? {}).length;
        process.stderr.write(
          `recorded ${set.name}: ${trace.opCount} ops, ${watchers} watchers, ${trace.warnings?.length ?? 0} warnings` +
            ` in ${((Date.now() - started) / 1000).toFixed(1)} s${target ? ` → ${target}` : ''}\n`,
        );
        for (const w of trace.warnings ?? []) process.stderr.write(`  warning: ${w}\n`);
        if (o.check) {
          const diffs = compareTrace(trace, await replayOnMemory(trace));
          if (diffs.length > 0) {
            failed++;
            process.stderr.write(
              `  MemoryStore differs in ${diffs.length} place(s):\n${formatDifferences(diffs)}\n`,
            );
          } else {
            process.stderr.write('  MemoryStore matches\n');
          }
        }
      }
      if (failed > 0) throw new CliError(`${failed} trace(s) differ between etcd and MemoryStore`);
    });
}

function selectSets(
  file: string | undefined,
  o: RecordCliOptions,
  loadOpSet: (file: string) => TraceOpSet,
): TraceOpSet[] {
  if (file && o.builtin) throw new UsageError('give either an ops file or --builtin, not both');
  if (o.builtin === 'all') {
    if (o.out)
      throw new UsageError(
        '--builtin all writes one file per set into --out-dir; --out is for a single trace',
      );
    if (o.output !== 'json') throw new UsageError('--builtin all writes trace files: -o json only');
    return [...traceOpSets];
  }
  if (o.builtin) {
    const set = traceOpSet(o.builtin);
    if (!set)
      throw new UsageError(
        `unknown built-in op set "${o.builtin}" (known: ${traceOpSets.map((s) => s.name).join(', ')}, all)`,
      );
    return [set];
  }
  if (!file)
    throw new UsageError('give an ops file or --builtin <name|all> (see kubesim store record --help)');
  try {
    return [loadOpSet(file)];
  } catch (e) {
    throw new CliError((e as Error).message);
  }
}

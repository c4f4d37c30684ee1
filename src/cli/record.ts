/**
 * `kubesim record --kubeconfig FILE --duration D [--out trace.yaml]`: a live cluster's changes as a
 * timestamped trace that `kubesim simulate --replay` plays against a simulated cluster. Thin over
 * src/server/live/record.ts; the format is in src/sim/replay.ts and docs/server.md.
 */
import type { Command } from 'commander';
import { table } from '../report/table.js';
import { LiveClusterError, connect } from '../server/live/kube-client.js';
import { recordTrace } from '../server/live/record.js';
import { ScenarioError, parseDuration } from '../util/scenario-input.js';
import type { Trace } from '../sim/replay.js';
import { CliError, UsageError } from './errors.js';
import { type OutputFlags, addOutputOptions, emit, isStructured, structured } from './output.js';
import { progress } from './progress.js';
import { defaultKubeconfig } from './snapshot.js';

interface RecordCliOptions extends OutputFlags {
  kubeconfig?: string;
  context?: string;
  duration: string;
  progress: boolean;
}

/** events per kind and type: what -o table prints */
function summary(trace: Trace, wide: boolean): string {
  const rows = trace.kinds.map((kind) => {
    const n = (type: string) => trace.events.filter((e) => e.object.kind === kind && e.type === type).length;
    return [
      kind,
      trace.initial.filter((o) => o.kind === kind).length,
      n('ADDED'),
      n('MODIFIED'),
      n('DELETED'),
    ];
  });
  return table(
    ['KIND', { header: 'INITIAL', wide: true }, 'ADDED', 'MODIFIED', 'DELETED'],
    rows.filter((r) => wide || (r as number[]).slice(2).some((x) => x > 0)),
    { wide },
  );
}

export function register(program: Command): void {
  const cmd = program
    .command('record')
    .description(
      "record a live cluster's changes (creates, scales, deletes) as a trace for simulate --replay",
    )
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context (default: its current context)')
    .option('--duration <d>', 'how long to record (e.g. 30s, 10m); Ctrl-C ends it early', '60s')
    .option('--no-progress', 'no progress on stderr');
  addOutputOptions(cmd, ['yaml', 'json', 'table', 'wide'])
    .addHelpText(
      'after',
      `
Watches Namespaces, PriorityClasses, PDBs, Services, Deployments, StatefulSets, DaemonSets,
ReplicaSets, Jobs, CronJobs and Pods. The trace holds the objects present at the start and every
create, delete and change of spec after it, stamped with seconds since the start; objects a
controller owns and status-only changes are left out. -o yaml|json writes the trace; -o table
counts its events per kind.

Examples:
  kubesim record --kubeconfig kubeconfig --duration 10m --out trace.yaml
  kubesim simulate examples/scenarios/node-failure-eviction.yaml --replay trace.yaml`,
    )
    .action(async (o: RecordCliOptions) => {
      let durationMs: number;
      try {
        durationMs = parseDuration(o.duration, '--duration');
      } catch (e) {
        if (e instanceof ScenarioError) throw new UsageError(e.message);
        throw e;
      }
      if (durationMs <= 0) throw new UsageError('--duration: expected a duration > 0');
      const file = o.kubeconfig ?? defaultKubeconfig();
      const ctl = new AbortController();
      const stop = () => ctl.abort();
      process.once('SIGINT', stop);
      const bar = progress('record', o.progress);
      const t0 = performance.now();
      let recorded = 0;
      const tick = setInterval(
        () => bar.update(performance.now() - t0, durationMs, `${recorded} events`),
        1000,
      );
      let trace: Trace;
      try {
        const cluster = await connect(file, o.context);
        trace = await recordTrace(cluster, {
          durationMs,
          signal: ctl.signal,
          onEvent: () => recorded++,
          onReady: () =>
            process.stderr.write(`kubesim record: watching ${cluster.server} for ${o.duration}\n`),
          onWarning: (m) => process.stderr.write(`kubesim record: warning: ${m}\n`),
        });
      } catch (e) {
        if (e instanceof LiveClusterError) throw new CliError(e.message);
        throw e;
      } finally {
        clearInterval(tick);
        bar.finish();
        process.off('SIGINT', stop);
      }
      process.stderr.write(
        `kubesim record: ${trace.events.length} events in ${trace.durationSeconds}s from ${trace.server} (${trace.initial.length} objects at the start)\n`,
      );
      if (isStructured(o.output)) return emit(o, structured(o.output, trace));
      emit(o, summary(trace, o.output === 'wide'));
    });
}

/**
 * `kubesim schedule`: schedule a list of pods in order against a cluster snapshot, each placement
 * counting for the next (assume), with preemption carried out (victims evicted, the pod retried
 * once); prints placements and, for unschedulable pods, kube-scheduler's FitError message.
 * Workloads in --pod stand for the pods their controllers create (a Deployment's replicas, a
 * StatefulSet's ordinals, a DaemonSet's pod per eligible node: inputs.ts loadPods); a pod with
 * schedulingGates is not tried, as kube-scheduler keeps it out of its queue.
 */
import { type Command, Option } from 'commander';
import type { Pod } from '../api/types.js';
import { podKey } from '../api/keys.js';
import type { SchedulerCore } from '../scheduler/index.js';
import { CliError, EXIT, UsageError } from './errors.js';
import { addClusterOptions } from './flags.js';
import { loadPods, type SchedulerFlags, schedulerFromFlags } from './inputs.js';
import { addOutputOptions, emit, isStructured, type OutputFlags, structured } from './output.js';
import { table } from '../report/table.js';
import { gatesOf } from '../capacity/workloads.js';
import { unusedText } from '../capacity/cluster-input.js';

export interface PlacementRow {
  pod: string;
  node?: string;
  /** SchedulingGated: the pod has schedulingGates, so kube-scheduler never tries it */
  result: 'Scheduled' | 'Unschedulable' | 'SchedulingGated' | 'Error';
  message?: string;
  preempted?: string[];
}

interface ScheduleFlags extends OutputFlags, SchedulerFlags {
  pod?: string[];
  /** the former spelling of --pod */
  pods?: string[];
  failOnUnschedulable?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('schedule')
    .description(
      'schedule pods in order against a cluster snapshot (each placement affects the next) and print placements and FitErrors',
    );
  addClusterOptions(cmd, 'cluster snapshot files (Nodes, bound Pods, Services, ReplicaSets, Namespaces)')
    .option(
      '--pod <files...>',
      'pods to schedule, in file order (pods with spec.nodeName are added as already bound; a workload adds the pods its controller creates) (required)',
    )
    .addOption(new Option('--pods <files...>').hideHelp())
    .option('--config <file>', 'KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)')
    .option(
      '--kernel <name>',
      'node-local kernel: wasm (fast) | js (the readable reference; same results)',
      'wasm',
    )
    .option('--seed <n>', 'seed for tie-breaks and preemption offsets', '1')
    .option(
      '--plugin <spec...>',
      'user plugin as path[:weight]: a .wasm score module or a JS/TS module exporting {name, score, filter} (repeatable)',
    )
    .option('--fail-on-unschedulable', 'exit 4 when any pod is left unschedulable');
  addOutputOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  kubesim schedule --cluster cluster.yaml --pod deploy-pods.yaml --seed 7
  kubesim schedule --cluster cluster.yaml --pod pods.yaml --plugin examples/plugins/wasm-binpack/build/binpack.wasm:5`,
    )
    .action(async (opts: ScheduleFlags) => {
      const podFiles = opts.pod ?? opts.pods;
      if (!podFiles?.length) throw new UsageError("required option '--pod <files...>' not specified");
      const core = await schedulerFromFlags(opts);
      const unused = new Map<string, number>();
      const pods = await loadPods(
        podFiles,
        { replicas: true, nodes: () => core.snapshot.list().map((n) => n.node) },
        unused,
      );
      if (unused.size) process.stderr.write(`warning: not used by schedule: ${unusedText(unused)} (--pod)\n`);
      const rows = schedulePods(core, pods);
      const gated = rows.filter((r) => r.result === 'SchedulingGated').length;
      const unschedulable = rows.filter((r) => r.result !== 'Scheduled').length - gated;
      emit(
        opts,
        isStructured(opts.output)
          ? structured(opts.output, {
              placements: rows,
              scheduled: rows.length - unschedulable - gated,
              unschedulable,
              ...(gated ? { gated } : {}),
            })
          : renderPlacements(rows, { wide: opts.output === 'wide' }),
      );
      if (opts.failOnUnschedulable && unschedulable > 0) process.exitCode = EXIT.unschedulable;
    });
}

/** Schedules pods in order; bound pods are added as they are. Preemption evicts and retries once. */
export function schedulePods(core: SchedulerCore, pods: Pod[]): PlacementRow[] {
  const rows: PlacementRow[] = [];
  for (const pod of pods) {
    if (pod.spec.nodeName) {
      core.snapshot.addPod(pod);
      continue;
    }
    const gated = gatesOf(pod);
    if (gated) {
      rows.push({ pod: podKey(pod), result: 'SchedulingGated', message: gated });
      continue;
    }
    let out = core.schedule(pod);
    let preempted: string[] | undefined;
    if (out.kind === 'unschedulable' && out.postFilter?.nominatedNodeName) {
      preempted = (out.postFilter.victims ?? []).map(podKey);
      for (const v of out.postFilter.victims ?? []) core.snapshot.removePod(podKey(v));
      const again = core.schedule(pod);
      if (again.kind === 'scheduled') out = again;
    }
    if (out.kind === 'scheduled') {
      const s = core.reserveAndAssume(out);
      if (s) rows.push({ pod: podKey(pod), result: 'Unschedulable', message: s.message() });
      else
        rows.push({
          pod: podKey(pod),
          node: out.nodeName,
          result: 'Scheduled',
          ...(preempted ? { preempted } : {}),
        });
    } else if (out.kind === 'unschedulable') {
      rows.push({ pod: podKey(pod), result: 'Unschedulable', message: out.fitError.message });
    } else {
      rows.push({ pod: podKey(pod), result: 'Error', message: out.message });
    }
  }
  return rows;
}

export function renderPlacements(rows: PlacementRow[], opts: { wide?: boolean } = {}): string {
  const t = table(
    ['POD', 'NODE', 'RESULT', { header: 'MESSAGE', wide: true }],
    rows.map((r) => [
      r.pod,
      r.node ?? '<none>',
      r.preempted ? `${r.result} (preempted ${r.preempted.join(', ')})` : r.result,
      r.message ?? '',
    ]),
    opts,
  );
  const lines = [t.trimEnd()];
  const failed = rows.filter((r) => r.result !== 'Scheduled');
  if (failed.length && !opts.wide) {
    lines.push('');
    for (const r of failed) lines.push(`${r.pod}: ${r.message}`);
  }
  const gated = failed.filter((r) => r.result === 'SchedulingGated').length;
  lines.push(
    '',
    `${rows.length - failed.length} scheduled, ${failed.length - gated} unschedulable${gated ? `, ${gated} gated` : ''}`,
  );
  return lines.join('\n') + '\n';
}

/**
 * `kubesim schedule`: schedule a list of pods in order against a cluster snapshot, each placement
 * counting for the next (assume), with preemption carried out (victims evicted, the pod retried
 * once); prints placements and, for unschedulable pods, kube-scheduler's FitError message.
 */
import type { Command } from 'commander';
import type { Pod } from '../api/types.js';
import { loadManifests } from '../api/manifest.js';
import { createOfflineScheduler, podKey, type SchedulerCore } from '../scheduler/index.js';
import { CliError } from './errors.js';
import { json, parseOutputFormat } from './output.js';
import { table } from '../report/table.js';

export interface PlacementRow {
  pod: string;
  node?: string;
  result: 'Scheduled' | 'Unschedulable' | 'Error';
  message?: string;
  preempted?: string[];
}

export function register(program: Command): void {
  program
    .command('schedule')
    .description(
      'schedule pods in order against a cluster snapshot (each placement affects the next) and print placements and FitErrors',
    )
    .requiredOption(
      '--cluster <files...>',
      'cluster snapshot files (Nodes, bound Pods, Services, ReplicaSets, Namespaces)',
    )
    .requiredOption(
      '--pods <files...>',
      'pods to schedule, in file order (pods with spec.nodeName are added as already bound)',
    )
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
    .option('-o, --output <format>', 'table | json', 'table')
    .addHelpText(
      'after',
      `
Example:
  kubesim schedule --cluster cluster.yaml --pods deploy-pods.yaml --seed 7
  kubesim schedule --cluster cluster.yaml --pods pods.yaml --plugin examples/plugins/wasm-binpack/build/binpack.wasm:5`,
    )
    .action(
      async (opts: {
        cluster: string[];
        pods: string[];
        config?: string;
        kernel: string;
        seed: string;
        plugin?: string[];
        output: string;
      }) => {
        const format = parseOutputFormat(opts.output);
        if (opts.kernel !== 'js' && opts.kernel !== 'wasm')
          throw new CliError(`--kernel: unknown kernel "${opts.kernel}" (expected js or wasm)`);
        const seed = Number(opts.seed);
        if (!Number.isInteger(seed)) throw new CliError(`--seed: not an integer: "${opts.seed}"`);
        const loaded = (await loadManifests(opts.pods)).filter((o) => o.object.kind === 'Pod');
        const pods: Pod[] = [];
        for (const o of loaded) {
          const p = o.object as Pod;
          if (!Array.isArray(p.spec?.containers))
            throw new CliError(
              `${o.source.file}:${o.source.line}: Pod "${p.metadata?.name}": spec.containers: Required value`,
            );
          p.metadata.namespace ??= 'default';
          pods.push(p);
        }
        const { core } = await createOfflineScheduler({
          cluster: opts.cluster,
          config: opts.config,
          kernel: opts.kernel,
          seed,
          plugins: opts.plugin,
        });
        const rows = schedulePods(core, pods);
        if (format === 'json') {
          process.stdout.write(
            json({
              placements: rows,
              scheduled: rows.filter((r) => r.result === 'Scheduled').length,
              unschedulable: rows.filter((r) => r.result !== 'Scheduled').length,
            }),
          );
          return;
        }
        process.stdout.write(renderPlacements(rows));
      },
    );
}

/** Schedules pods in order; bound pods are added as they are. Preemption evicts and retries once. */
export function schedulePods(core: SchedulerCore, pods: Pod[]): PlacementRow[] {
  const rows: PlacementRow[] = [];
  for (const pod of pods) {
    if (pod.spec.nodeName) {
      core.snapshot.addPod(pod);
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

export function renderPlacements(rows: PlacementRow[]): string {
  const t = table(
    ['POD', 'NODE', 'RESULT'],
    rows.map((r) => [
      r.pod,
      r.node ?? '<none>',
      r.preempted ? `${r.result} (preempted ${r.preempted.join(', ')})` : r.result,
    ]),
  );
  const lines = [t.trimEnd()];
  const failed = rows.filter((r) => r.result !== 'Scheduled');
  if (failed.length) {
    lines.push('');
    for (const r of failed) lines.push(`${r.pod}: ${r.message}`);
  }
  lines.push('', `${rows.length - failed.length} scheduled, ${failed.length} unschedulable`);
  return lines.join('\n') + '\n';
}

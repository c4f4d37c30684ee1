/**
 * `kubesim plan`: how many more replicas of a pod fit in a cluster snapshot, where, and what stops
 * the next one; what-ifs (lose a zone, remove/add/cordon nodes); the fewest nodes to add for a
 * target; a sweep that runs each what-if on its own in the worker pool.
 */
import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import type { Pod } from '../api/types.js';
import { loadManifests } from '../api/manifest.js';
import { isWorkload, podFromWorkload } from '../api/workload-pod.js';
import { loadClusterFiles, type ClusterFile } from '../scheduler/framework/cluster-file.js';
import { loadSchedulerConfig, type SchedulerConfig } from '../scheduler/config.js';
import { loadUserPlugin } from '../scheduler/plugins/user.js';
import type { KernelChoice } from '../scheduler/plugins/node-local.js';
import { planCapacity, minNodesToAdd, type PlanOptions, type PlanReport } from '../capacity/planner.js';
import { parseWhatIf, type WhatIf } from '../capacity/whatif.js';
import { PlannerPool } from '../capacity/pool.js';
import { renderPlanText, renderPlanHtml, renderMinNodesText } from '../capacity/report.js';
import { CliError } from './errors.js';
import { json, parseOutputFormat } from './output.js';
import { table } from '../report/table.js';

interface PlanCliOptions {
  cluster: string[];
  pod: string[];
  whatIf?: string[];
  max: string;
  mix?: boolean;
  seed: string;
  kernel: string;
  config?: string;
  plugin?: string[];
  minNodes?: string;
  replicas?: string;
  zone?: string;
  sweep?: boolean;
  threads?: string;
  output: string;
  out?: string;
}

/** Loads the shapes: every Pod in the files (workloads contribute the pod they create). */
export async function loadShapes(files: string[]): Promise<Pod[]> {
  const shapes: Pod[] = [];
  for (const o of await loadManifests(files)) {
    if (!isWorkload(o.object)) continue;
    let pod: Pod;
    try {
      pod = podFromWorkload(o.object);
    } catch (e) {
      throw new CliError(`${o.source.file}:${o.source.line}: ${(e as Error).message}`);
    }
    if (!Array.isArray(pod.spec?.containers))
      throw new CliError(
        `${o.source.file}:${o.source.line}: ${o.object.kind} "${o.object.metadata?.name}": spec.containers: Required value`,
      );
    pod.metadata.namespace ??= 'default';
    shapes.push(pod);
  }
  if (!shapes.length)
    throw new CliError(`--pod ${files.join(' ')}: no Pod or workload with a pod template found`);
  return shapes;
}

function intOpt(name: string, v: string, min = 0): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min)
    throw new CliError(`${name}: expected an integer >= ${min}, got "${v}"`);
  return n;
}

export function register(program: Command): void {
  program
    .command('plan')
    .description(
      'capacity planning: how many more replicas of a pod fit, where, and what stops the next one (with what-ifs)',
    )
    .requiredOption(
      '--cluster <files...>',
      'cluster snapshot (`kubectl get nodes,pods -A -o yaml` output, manifests, dirs)',
    )
    .requiredOption(
      '--pod <files...>',
      'pod shape(s): Pods, or Deployments/ReplicaSets/StatefulSets (their template)',
    )
    .option(
      '--what-if <spec...>',
      'remove-nodes=a,b | lose-zone=Z | cordon=a,b | add-nodes=N:TEMPLATE[@ZONE] (applied in order)',
    )
    .option('--max <n>', 'stop counting a shape at this many replicas', '10000')
    .option('--mix', 'place the shapes round-robin into one cluster instead of each on its own')
    .option(
      '--min-nodes <template>',
      'find the fewest nodes like TEMPLATE to add so that --replicas replicas fit',
    )
    .option('--replicas <n>', 'target replicas for --min-nodes')
    .option('--zone <zone>', "zone of the nodes added by --min-nodes (default: the template's)")
    .option('--sweep', 'plan the base cluster and each --what-if on its own, in parallel (worker pool)')
    .option('--threads <n>', 'worker threads for --sweep (default: cores)')
    .option('--seed <n>', 'seed for scheduler tie-breaks', '1')
    .option('--kernel <name>', 'node-local kernel: js | wasm', 'wasm')
    .option('--config <file>', 'KubeSchedulerConfiguration (profiles, plugin weights, scoring strategy)')
    .option(
      '--plugin <spec...>',
      'user plugin as path[:weight] added to the profile: a .wasm score module or a JS/TS module exporting {name, score, filter} (repeatable)',
    )
    .option('-o, --output <format>', 'table | json | html', 'table')
    .option('--out <file>', 'write the output to a file instead of stdout')
    .addHelpText(
      'after',
      `
Examples:
  kubesim plan --cluster snapshot.yaml --pod api-pod.yaml
  kubesim plan --cluster snapshot.yaml --pod api.yaml worker.yaml --what-if lose-zone=eu-west-1b
  kubesim plan --cluster snapshot.yaml --pod api.yaml --min-nodes b-2 --replicas 50
  kubesim plan --cluster snapshot.yaml --pod api.yaml --sweep --what-if lose-zone=a lose-zone=b lose-zone=c
  kubesim plan --cluster snapshot.yaml --pod api.yaml -o html --out plan.html`,
    )
    .action(async (o: PlanCliOptions) => {
      const format = parseOutputFormat(o.output, ['table', 'json', 'html']);
      if (o.kernel !== 'js' && o.kernel !== 'wasm')
        throw new CliError(`--kernel: unknown kernel "${o.kernel}" (expected js or wasm)`);
      const seed = intOpt('--seed', o.seed);
      const max = intOpt('--max', o.max, 1);
      const whatIfs: WhatIf[] = (o.whatIf ?? []).map(parseWhatIf);
      const cluster = await loadClusterFiles(o.cluster);
      if (!cluster.nodes.length)
        throw new CliError(`--cluster ${o.cluster.join(' ')}: no Node objects found`);
      const shapes = await loadShapes(o.pod);
      const config: SchedulerConfig | undefined = o.config ? loadSchedulerConfig(o.config) : undefined;
      const plugins = await Promise.all((o.plugin ?? []).map(loadUserPlugin));
      const opts: PlanOptions = {
        seed,
        kernel: o.kernel as KernelChoice,
        config,
        maxReplicas: max,
        mix: !!o.mix,
        outOfTree: plugins.length ? new Map(plugins.map((p) => [p.name, p.factory])) : undefined,
        extraScore: plugins.length
          ? new Map(plugins.filter((p) => p.isScore).map((p) => [p.name, p.weight]))
          : undefined,
        onProgress: process.stderr.isTTY
          ? (shape, n) => process.stderr.write(`\r\x1b[K${shape}: ${n} placed…`)
          : undefined,
      };
      const emit = (text: string) => {
        if (o.out) writeFileSync(o.out, text);
        else process.stdout.write(text);
      };
      const command = ['kubesim', ...process.argv.slice(2)].join(' ');

      if (o.minNodes) {
        if (!o.replicas) throw new CliError('--min-nodes needs --replicas N (the target)');
        const r = minNodesToAdd(cluster, shapes[0], intOpt('--replicas', o.replicas, 1), o.minNodes, {
          ...opts,
          whatIfs,
          zone: o.zone,
        });
        emit(format === 'json' ? json(r) : renderMinNodesText(r));
        return;
      }
      if (o.sweep) {
        if (config || plugins.length)
          throw new CliError(
            '--sweep runs in worker threads: use the default profile (no --config/--plugin) or plan each case on its own',
          );
        const cases: { name: string; whatIfs: WhatIf[] }[] = [
          { name: 'base', whatIfs: [] },
          ...(o.whatIf ?? []).map((s, i) => ({ name: s, whatIfs: [whatIfs[i]] })),
        ];
        const pool = new PlannerPool({ threads: o.threads ? intOpt('--threads', o.threads, 1) : undefined });
        try {
          const reports = (await pool.runAll(
            cases.map((c) => ({
              kind: 'plan' as const,
              cluster: cluster as ClusterFile,
              shapes,
              whatIfs: c.whatIfs,
              seed,
              kernel: opts.kernel,
              maxReplicas: max,
              mix: opts.mix,
            })),
            (done, total) =>
              process.stderr.write(
                process.stderr.isTTY ? `\r\x1b[K${done}/${total} cases` : `${done}/${total} cases\n`,
              ),
          )) as PlanReport[];
          if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
          if (format === 'json') {
            emit(json(cases.map((c, i) => ({ case: c.name, report: reports[i] }))));
            return;
          }
          const rows = cases.flatMap((c, i) =>
            reports[i].shapes.map((s) => [
              c.name,
              s.shape,
              s.limitReached ? `≥${s.fits}` : s.fits,
              reports[i].displaced.unschedulable.length,
              s.stopReason ?? 'limit',
            ]),
          );
          emit(table(['CASE', 'SHAPE', 'FITS', 'DISPLACED UNSCHEDULABLE', 'NEXT REPLICA'], rows));
        } finally {
          await pool.close();
        }
        return;
      }
      const rep = planCapacity(cluster, shapes, { ...opts, whatIfs });
      if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
      emit(
        format === 'json'
          ? json(rep)
          : format === 'html'
            ? renderPlanHtml(rep, command)
            : renderPlanText(rep),
      );
    });
}

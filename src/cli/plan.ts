/**
 * `kubesim plan`: how many more replicas of a pod fit in a cluster snapshot, where, and what stops
 * the next one; what-ifs (lose a zone, a zone outage, remove/add/cordon/drain nodes); the fewest nodes to add for a
 * target; a sweep that runs each what-if on its own in the worker pool.
 */
import type { Command } from 'commander';
import type { Pod } from '../api/types.js';
import type { ClusterFile } from '../scheduler/framework/cluster-file.js';
import { loadPlanCluster, unusedText } from '../capacity/cluster-input.js';
import { loadSchedulerConfig, type SchedulerConfig } from '../scheduler/config.js';
import { loadUserPlugin, type LoadedUserPlugin } from '../scheduler/plugins/user.js';
import { addPluginLimitOptions, finishPlugins, pluginOptions, type PluginFlags } from './plugin-flags.js';
import { planCapacity, minNodesChoice, type PlanOptions, type PlanReport } from '../capacity/planner.js';
import { parseWhatIf, WhatIfError, zoneName, type WhatIf } from '../capacity/whatif.js';
import { PlannerPool } from '../capacity/pool.js';
import {
  renderPlanText,
  renderPlanHtml,
  renderMinNodesText,
  renderMinNodesHtml,
  renderMinNodesChoiceText,
  renderSweepText,
  renderSweepHtml,
  type SweepCase,
} from '../capacity/report.js';
import { CliError, EXIT, UsageError } from './errors.js';
import { addClusterOptions, clusterFiles, intFlag, kernelAndSeed } from './flags.js';
import {
  addOutputOptions,
  BASE_FORMATS,
  emit,
  isStructured,
  type OutputFlags,
  structured,
} from './output.js';
import { progress } from './progress.js';
import { LIMITS } from '../util/limits.js';
import { loadPods, warnMissingPriorityClasses } from './inputs.js';

interface PlanCliOptions extends OutputFlags, PluginFlags {
  cluster?: string[];
  kubeconfig?: string;
  pod: string[];
  whatIf?: string[];
  max: string;
  mix?: boolean;
  seed: string;
  kernel: string;
  config?: string;
  plugin?: string[];
  minNodes?: string[];
  replicas?: string;
  zone?: string;
  sweep?: boolean;
  threads?: string;
  progress: boolean;
  failOnUnschedulable?: boolean;
}

/**
 * Loads the shapes through the validating loader: every Pod in the files (workloads contribute the
 * pod they create); other objects are counted by kind in `unused`.
 */
export async function loadShapes(files: string[], unused = new Map<string, number>()): Promise<Pod[]> {
  const shapes = await loadPods(files, {}, unused);
  if (!shapes.length)
    throw new CliError(`--pod ${files.join(' ')}: no Pod or workload with a pod template found`);
  return shapes;
}

/** --what-if specs, each a usage error when it does not parse. */
export function whatIfFlags(specs: string[] | undefined): WhatIf[] {
  return (specs ?? []).map((s) => {
    try {
      return parseWhatIf(s);
    } catch (e) {
      if (e instanceof WhatIfError) throw new UsageError(e.message);
      throw e;
    }
  });
}

export function register(program: Command): void {
  const cmd = program
    .command('plan')
    .description(
      'capacity planning: how many more replicas of a pod fit, where, and what stops the next one (with what-ifs)',
    );
  addClusterOptions(cmd, 'cluster snapshot (`kubectl get nodes,pods -A -o yaml` output, manifests, dirs)')
    .requiredOption(
      '--pod <files...>',
      'pod shape(s): Pods, or Deployments/ReplicaSets/StatefulSets (their template)',
    )
    .option(
      '--what-if <spec...>',
      'remove-nodes=a,b | lose-zone=Z (nodes deleted) | zone-outage=Z[@DURATION] (nodes stay, unreachable) | cordon=a,b | drain=a,b | add-nodes=N:TEMPLATE[@ZONE] (applied in order)',
    )
    .option('--max <n>', 'stop counting a shape at this many replicas', '10000')
    .option('--mix', 'place the shapes round-robin into one cluster instead of each on its own')
    .option(
      '--min-nodes <template:cost...>',
      'find the fewest nodes like TEMPLATE (a node name, :COST optional) to add so that --replicas replicas fit, spread over every zone (node groups = template × zone, balanced); several templates: the cheapest by cost per node',
    )
    .option(
      '--replicas <n>',
      'target replicas: for --min-nodes, and for --fail-on-unschedulable (a shape with fewer fits fails)',
    )
    .option('--zone <zone>', 'put every node --min-nodes adds in this zone (default: spread over the zones)')
    .option('--sweep', 'plan the base cluster and each --what-if on its own, in parallel (worker pool)')
    .option('--threads <n>', 'worker threads for --sweep (default: cores)')
    .option('--seed <n>', 'seed for scheduler tie-breaks', '1')
    .option('--kernel <name>', 'node-local kernel: js | wasm', 'wasm')
    .option('--config <file>', 'KubeSchedulerConfiguration (profiles, plugin weights, scoring strategy)')
    .option(
      '--plugin <spec...>',
      'user plugin as path[:weight] added to the profile: a .wasm score module or a JS/TS module exporting {name, score, filter} (repeatable)',
    )
    .option(
      '--fail-on-unschedulable',
      'exit 4 when a displaced pod cannot be placed again, a shape fits fewer than --replicas (default 1), or --min-nodes finds no answer',
    )
    .option('--no-progress', 'no progress on stderr');
  addPluginLimitOptions(cmd);
  addOutputOptions(cmd, [...BASE_FORMATS, 'html'])
    .addHelpText(
      'after',
      `
Examples:
  kubesim plan --cluster snapshot.yaml --pod api-pod.yaml
  kubesim plan --cluster snapshot.yaml --pod api.yaml worker.yaml --what-if lose-zone=eu-west-1b
  kubesim plan --cluster snapshot.yaml --pod api.yaml --what-if zone-outage=eu-west-1b@2m
  kubesim plan --cluster snapshot.yaml --pod api.yaml --min-nodes b-2 --replicas 50
  kubesim plan --cluster snapshot.yaml --pod api.yaml --min-nodes a-1:0.19 b-2:0.38 --replicas 50
  kubesim plan --cluster snapshot.yaml --pod api.yaml --sweep --what-if lose-zone=eu-west-1a zone-outage=eu-west-1a zone-outage=eu-west-1a@2m
  kubesim plan --cluster snapshot.yaml --pod api.yaml -o html --out plan.html`,
    )
    .action(async (o: PlanCliOptions) => {
      await planCommand(o);
    });
}

async function planCommand(o: PlanCliOptions): Promise<void> {
  const files = clusterFiles(o);
  const { kernel, seed } = kernelAndSeed(o);
  const max = intFlag('--max', o.max, 1, LIMITS.pods);
  const replicas = o.replicas === undefined ? undefined : intFlag('--replicas', o.replicas, 1, LIMITS.pods);
  const threads = o.threads === undefined ? undefined : intFlag('--threads', o.threads, 1, LIMITS.threads);
  if (o.minNodes && replicas === undefined)
    throw new UsageError('--min-nodes needs --replicas N (the target)');
  if (o.minNodes && o.sweep) throw new UsageError('--min-nodes and --sweep do not go together');
  const whatIfs = whatIfFlags(o.whatIf);
  if (o.sweep && (o.config || o.plugin?.length))
    throw new UsageError(
      '--sweep runs in worker threads: use the default profile (no --config/--plugin) or plan each case on its own',
    );
  const { cluster, unused } = await loadPlanCluster(files);
  // a drain= what-if reads the PodDisruptionBudgets
  if (whatIfs.some((w) => w.kind === 'drain')) unused.delete('PodDisruptionBudget');
  if (!cluster.nodes.length) throw new CliError(`--cluster ${files.join(' ')}: no Node objects found`);
  const unusedShapes = new Map<string, number>();
  const shapes = await loadShapes(o.pod, unusedShapes);
  // what the answer does not use, in one line (never dropped silently)
  const notUsed = [
    ...(unused.size ? [`${unusedText(unused)} (--cluster)`] : []),
    ...(unusedShapes.size ? [`${unusedText(unusedShapes)} (--pod)`] : []),
  ];
  if (notUsed.length) process.stderr.write(`warning: not used by the plan: ${notUsed.join('; ')}\n`);
  warnMissingPriorityClasses([
    ...[...cluster.boundPods, ...cluster.pendingPods].map((p) => ({ kind: 'Pod', spec: p.spec })),
    ...cluster.workloads.priorityClasses.map((c) => ({ kind: 'PriorityClass', metadata: c.metadata })),
  ]);
  const config: SchedulerConfig | undefined = o.config ? loadSchedulerConfig(o.config) : undefined;
  const pluginOpts = pluginOptions(o);
  const plugins: LoadedUserPlugin[] = [];
  for (const spec of o.plugin ?? []) plugins.push(await loadUserPlugin(spec, pluginOpts));
  const bar = progress('plan', o.progress);
  const opts: PlanOptions = {
    seed,
    kernel,
    config,
    maxReplicas: max,
    mix: !!o.mix,
    outOfTree: plugins.length ? new Map(plugins.map((p) => [p.name, p.factory])) : undefined,
    extraScore: plugins.length
      ? new Map(plugins.filter((p) => p.isScore).map((p) => [p.name, p.weight]))
      : undefined,
    extraFilter: plugins.length ? plugins.filter((p) => p.isFilter).map((p) => p.name) : undefined,
    onProgress: (shape, placed, bound) => bar.update(placed, bound, `${shape}: ${placed}/${bound} replicas`),
  };
  const command = ['kubesim', ...process.argv.slice(2)].join(' ');
  const fmt = o.output;
  let unschedulable: boolean;
  let text: string;
  try {
    if (o.minNodes?.length) {
      const templates = minNodesTemplates(o.minNodes, cluster);
      // node groups: the template in every zone of the cluster, unless --zone pins one
      const zones = [...new Set(cluster.nodes.map(zoneName).filter(Boolean))].sort();
      const r = minNodesChoice(cluster, shapes[0], replicas!, templates, {
        ...opts,
        whatIfs,
        zone: o.zone,
        zones,
      });
      unschedulable = r.best === undefined;
      const one = r.options.length === 1 ? r.options[0]! : undefined;
      text = isStructured(fmt)
        ? structured(fmt, one ?? r)
        : fmt === 'html'
          ? renderMinNodesHtml(one ?? r.options[r.best ?? 0]!, command, one ? undefined : r)
          : one
            ? renderMinNodesText(one)
            : renderMinNodesChoiceText(r);
    } else if (o.sweep) {
      const cases = await sweep(o.whatIf ?? [], whatIfs, {
        cluster,
        shapes,
        seed,
        kernel,
        max,
        mix: !!o.mix,
        threads,
        onDone: (done, total) => bar.update(done, total, `${done}/${total} cases`),
      });
      unschedulable = cases.some((c) => falls(c.report, replicas));
      text = isStructured(fmt)
        ? structured(fmt, cases)
        : fmt === 'html'
          ? renderSweepHtml(cases, command)
          : renderSweepText(cases, { wide: fmt === 'wide' });
    } else {
      const rep = planCapacity(cluster, shapes, { ...opts, whatIfs });
      unschedulable = falls(rep, replicas);
      text = isStructured(fmt)
        ? structured(fmt, rep)
        : fmt === 'html'
          ? renderPlanHtml(rep, command)
          : renderPlanText(rep, { wide: fmt === 'wide' });
    }
  } catch (e) {
    // a what-if that names what the cluster does not have (a node, a zone, a template)
    if (e instanceof WhatIfError) throw new CliError(`--what-if: ${e.message}`);
    throw e;
  } finally {
    bar.finish();
  }
  await finishPlugins(plugins, o);
  emit(o, text);
  if (o.failOnUnschedulable && unschedulable) process.exitCode = EXIT.unschedulable;
}

/** `--min-nodes b-2:0.19 c-1`: node names with an optional cost per node, each node in the cluster. */
function minNodesTemplates(
  specs: string[],
  cluster: ClusterFile,
): { template: string; costPerNode?: number }[] {
  const names = new Set(cluster.nodes.map((n) => n.metadata.name));
  return specs.map((spec) => {
    const m = /^([^:]+)(?::(.+))?$/.exec(spec.trim());
    const cost = m?.[2] === undefined ? undefined : Number(m[2]);
    if (!m || (cost !== undefined && (!Number.isFinite(cost) || cost < 0)))
      throw new UsageError(`--min-nodes "${spec}": expected TEMPLATE[:COST], e.g. b-2 or b-2:0.19`);
    if (!names.has(m[1]!))
      throw new CliError(
        `--min-nodes "${spec}": no node named "${m[1]}" in the cluster to use as a template`,
      );
    return { template: m[1]!, ...(cost !== undefined ? { costPerNode: cost } : {}) };
  });
}

/** The plan leaves a pod out: a displaced pod unplaced, or a shape short of `replicas` (default 1). */
function falls(rep: PlanReport, replicas = 1): boolean {
  return rep.displaced.unschedulable.length > 0 || rep.shapes.some((s) => s.fits < replicas);
}

/** The base cluster and each what-if on its own, in the worker pool. */
async function sweep(
  specs: string[],
  whatIfs: WhatIf[],
  o: {
    cluster: ClusterFile;
    shapes: Pod[];
    seed: number;
    kernel: 'js' | 'wasm';
    max: number;
    mix: boolean;
    threads?: number;
    onDone: (done: number, total: number) => void;
  },
): Promise<SweepCase[]> {
  const cases = [
    { name: 'base', whatIfs: [] as WhatIf[] },
    ...specs.map((s, i) => ({ name: s, whatIfs: [whatIfs[i]] })),
  ];
  const pool = new PlannerPool({ threads: o.threads });
  try {
    const reports = (await pool.runAll(
      cases.map((c) => ({
        kind: 'plan' as const,
        cluster: o.cluster,
        shapes: o.shapes,
        whatIfs: c.whatIfs,
        seed: o.seed,
        kernel: o.kernel,
        maxReplicas: o.max,
        mix: o.mix,
      })),
      o.onDone,
    )) as PlanReport[];
    return cases.map((c, i) => ({ case: c.name, report: reports[i] }));
  } finally {
    await pool.close();
  }
}

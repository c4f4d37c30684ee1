/**
 * `kubesim explain`: why is my pod Pending (or why did it land there)? Runs the scheduler's real
 * cycle for the pod against a cluster snapshot and prints, per node, each filter's verdict and
 * reason and each score plugin's raw and normalized score, the weighted total, the chosen node,
 * failing nodes grouped by reason, and the FitError line kube-scheduler would write. A workload
 * (Deployment, StatefulSet, DaemonSet, Job, …) is explained through the pod its template describes;
 * a pod with schedulingGates is reported as gated without a cycle, as kube-scheduler never tries it.
 */
import type { Command } from 'commander';
import type { Explanation } from '../scheduler/index.js';
import { CliError, EXIT } from './errors.js';
import { addClusterOptions } from './flags.js';
import { addPluginLimitOptions, finishPlugins } from './plugin-flags.js';
import { loadPods, type SchedulerFlags, schedulerFromFlags, warnUnused } from './inputs.js';
import { addOutputOptions, emit, isStructured, type OutputFlags, structured } from './output.js';
import { table } from '../report/table.js';
import { podKey } from '../api/keys.js';
import { gatesOf } from '../capacity/workloads.js';
import { ensureResourceClaims } from '../capacity/resource-claims.js';
import type { ClaimExplanation } from '../scheduler/framework/explain.js';
import { REASON_NOT_AVAILABLE } from '../scheduler/plugins/dynamic-resources/explain.js';

export interface ExplainFlags extends SchedulerFlags {
  pod: string;
}

export function register(program: Command): void {
  const cmd = program
    .command('explain')
    .description(
      'explain the scheduling decision for a pod: every filter verdict and score per node, the chosen node, the FitError',
    );
  addClusterOptions(
    cmd,
    'cluster snapshot: YAML/JSON files with Nodes, bound Pods, Services, ReplicaSets, Namespaces, PVs, PVCs, StorageClasses, CSINodes (kubectl get -o yaml output works)',
  )
    .requiredOption(
      '--pod <file>',
      "the pod to explain: the first Pod in the file, or the pod the first workload's template describes (spec.nodeName must be empty)",
    )
    .option(
      '--config <file>',
      'KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) with profiles, plugins, weights, pluginConfig',
    )
    .option(
      '--kernel <name>',
      'node-local kernel: wasm (fast) | js (the readable reference; same results)',
      'wasm',
    )
    .option('--seed <n>', 'seed for tie-breaks', '1')
    .option(
      '--plugin <spec...>',
      'user plugin as path[:weight]: a .wasm score module or a JS/TS module exporting {name, score, filter} (repeatable)',
    )
    .option('--fail-on-unschedulable', 'exit 4 when the pod fits no node');
  addPluginLimitOptions(cmd);
  addOutputOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  kubesim explain --cluster cluster.yaml --pod pending.yaml
  kubesim explain --cluster nodes.yaml pods.yaml --pod web.yaml --config sched.yaml -o json

Filters stop at the first failing plugin per node, so the summary counts that plugin's reasons,
exactly as kube-scheduler's "0/N nodes are available: …" message does; the table also lists
the other filters that would fail (-o wide: with their reasons).`,
    )
    .action(async (opts: ExplainFlags & OutputFlags & { failOnUnschedulable?: boolean }) => {
      const [pod] = await loadPods([opts.pod]);
      const gated = pod && gatesOf(pod);
      if (gated) {
        const key = podKey(pod);
        emit(
          opts,
          isStructured(opts.output)
            ? structured(opts.output, { pod: key, gated: true, message: gated })
            : `Pod ${key}: Pending (${gated}; kube-scheduler does not try a pod until its gates are removed)\n`,
        );
        if (opts.failOnUnschedulable) process.exitCode = EXIT.unschedulable;
        return;
      }
      const ex = await explainFiles(opts);
      emit(
        opts,
        isStructured(opts.output)
          ? structured(opts.output, ex)
          : renderExplanation(ex, { wide: opts.output === 'wide' }),
      );
      if (opts.failOnUnschedulable && !ex.chosen) process.exitCode = EXIT.unschedulable;
    });
}

export async function explainFiles(opts: ExplainFlags): Promise<Explanation> {
  const unusedPods = new Map<string, number>();
  const [pod, ...others] = await loadPods([opts.pod], {}, unusedPods);
  if (!pod) throw new CliError(`${opts.pod}: no Pod or workload with a pod template found`);
  if (others.length) unusedPods.set('Pod (only the first is explained)', others.length);
  if (pod.spec.nodeName)
    throw new CliError(
      `${opts.pod}: Pod "${pod.metadata.name}" already has spec.nodeName=${pod.spec.nodeName}; nothing to schedule`,
    );
  const unusedCluster = new Map<string, number>();
  const { core, plugins } = await schedulerFromFlags(opts, unusedCluster);
  warnUnused('explain', [
    ['--cluster', unusedCluster],
    ['--pod', unusedPods],
  ]);
  if (!core.frameworkFor(pod))
    throw new CliError(`Pod "${pod.metadata.name}": no scheduler profile named "${pod.spec.schedulerName}"`);
  // claims from templates are made as the ResourceClaim controller would make them, owned by the pod
  pod.metadata.uid ??= `explain-${pod.metadata.namespace ?? 'default'}-${pod.metadata.name ?? ''}`;
  ensureResourceClaims(core, pod);
  const ex = core.explain(pod);
  await finishPlugins(plugins, opts);
  return ex;
}

export function renderExplanation(ex: Explanation, opts: { wide?: boolean } = {}): string {
  const lines: string[] = [];
  const head = ex.chosen
    ? `Pod ${ex.pod} (profile ${ex.profile}): scheduled to ${ex.chosen}`
    : ex.error
      ? `Pod ${ex.pod} (profile ${ex.profile}): error: ${ex.error}`
      : `Pod ${ex.pod} (profile ${ex.profile}): Pending`;
  lines.push(head, '');
  const scoreHeads = ex.scorePlugins.map((s) => `${s.name}(×${s.weight})`);
  const rows = ex.nodes.map((n) => {
    let verdict: string;
    if (n.chosen) verdict = 'chosen';
    else if (n.feasible) verdict = n.total !== undefined ? 'feasible' : 'feasible (not scored)';
    else {
      const others = n.filters
        .filter(
          (f) =>
            f.result !== 'pass' &&
            f.result !== 'skip' &&
            f.result !== 'not run' &&
            f.plugin !== n.decisive?.plugin,
        )
        .map((f) => f.plugin);
      verdict = `✗ ${n.decisive?.plugin}: ${n.decisive?.reasons.join(', ')}${others.length ? ` (also ${others.join(', ')})` : ''}`;
    }
    const cells = ex.scorePlugins.map((s) => {
      const c = n.scores?.find((x) => x.plugin === s.name);
      if (!c) return ex.skippedScorePlugins.includes(s.name) && n.scores ? 'skip' : '';
      return c.raw === c.normalized ? String(c.normalized) : `${c.normalized} (raw ${c.raw})`;
    });
    const failing = n.filters
      .filter((f) => f.result !== 'pass' && f.result !== 'skip' && f.result !== 'not run')
      .map((f) => `${f.plugin}: ${(f.reasons ?? []).join(', ')}`)
      .join('; ');
    return [n.name, ...cells, n.total === undefined ? '' : String(n.total), verdict, failing];
  });
  const failingColumn = { header: 'FAILING FILTERS', wide: true };
  if (ex.nodes.some((n) => n.scores))
    lines.push(
      table(['NODE', ...scoreHeads, 'TOTAL', 'VERDICT', failingColumn], rows, { wide: opts.wide }).trimEnd(),
    );
  else
    lines.push(
      table(
        ['NODE', 'VERDICT', failingColumn],
        rows.map((r) => [r[0], r[r.length - 2], r[r.length - 1]]),
        { wide: opts.wide },
      ).trimEnd(),
    );
  if (ex.reasonCounts.length) {
    lines.push('', 'Nodes that do not fit, by reason:');
    for (const r of ex.reasonCounts)
      lines.push(`  ${String(r.nodes).padStart(4)}  ${r.reason}  [${r.plugin}]`);
  }
  if (ex.preemption)
    lines.push(
      '',
      `Preemption: would nominate ${ex.preemption.nominatedNodeName}, evicting ${ex.preemption.victims.join(', ')}`,
    );
  for (const c of ex.claims ?? []) lines.push('', ...renderClaim(c));
  if (ex.fitError) lines.push('', ex.fitError);
  return lines.join('\n') + '\n';
}

/** One ResourceClaim of the pod: its state, and for a pending one each node × request. */
function renderClaim(c: ClaimExplanation): string[] {
  const name = `Claim ${c.podClaim}${c.claim ? ` (ResourceClaim ${c.claim})` : ''}`;
  if (c.state === 'unusable') return [`${name}: cannot be used: ${c.message}`];
  if (c.state === 'allocated') {
    const out = c.nodes!.filter((n) => n.reason).map((n) => n.node);
    return [
      `${name}: allocated (${c.devices!.join(', ')})${out.length ? `; ${REASON_NOT_AVAILABLE}: ${out.join(', ')}` : ''}`,
    ];
  }
  const rows = c.nodes!.flatMap((n) =>
    (n.requests ?? []).map((r, i) => [
      i === 0 ? n.node : '',
      r.request,
      r.deviceClassName,
      String(r.wanted),
      String(r.devices),
      String(r.selectable),
      String(r.free),
      i > 0 ? '' : n.reason ? `✗ ${n.reason}` : `fits alone: ${n.devices!.join(', ')}`,
    ]),
  );
  return [
    `${name}: pending allocation, each node tried for this claim alone:`,
    table(['NODE', 'REQUEST', 'CLASS', 'WANTED', 'DEVICES', 'SELECTED', 'FREE', 'RESULT'], rows).trimEnd(),
  ];
}

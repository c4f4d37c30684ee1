/** Reading the pods and the scheduler a scheduling command works on, the same way in each. */
import { loadValidManifests } from '../api/manifest-check.js';
import { missingPriorityClassWarnings } from '../api/priority.js';
import type { KubeObject, Node, Pod, StatefulSet } from '../api/types.js';
import { isWorkload, podFromWorkload } from '../api/workload-pod.js';
import { unusedText } from '../capacity/cluster-input.js';
import {
  nodeShouldRunDaemonPod,
  replaceDaemonSetPodNodeNameNodeAffinity,
} from '../controllers/daemonset-util.js';
import { setIdentity, startOrdinal } from '../controllers/statefulset-util.js';
import { checkClusterObject } from '../scheduler/framework/cluster-file.js';
import { createOfflineScheduler, type LoadedUserPlugin, type SchedulerCore } from '../scheduler/index.js';
import { CliError } from './errors.js';
import { clusterFiles, kernelAndSeed } from './flags.js';
import { pluginOptions, type PluginFlags } from './plugin-flags.js';

export interface LoadPodsOptions {
  /**
   * Expand each workload into the pods its controller creates (schedule): `spec.replicas` of a
   * Deployment, ReplicaSet or ReplicationController (`<name>-<i>`), a StatefulSet's ordinals with
   * their identity (`<name>-<ordinal>`), a Job's parallelism (at most its completions), a
   * CronJob's job's, and a DaemonSet's pod for every node of `nodes()` that should run it, pinned to
   * it by metadata.name affinity as the DaemonSet controller does. Without it a workload gives the
   * one pod its template describes (explain).
   */
  replicas?: boolean;
  nodes?: () => Node[];
}

/**
 * The pods in the files, in order, with a namespace, read through the validating loader (an object
 * the apiserver would reject is an error naming file, line, object and field): Pods as they are,
 * workloads as the pods they create (`podFromWorkload`, as `plan` reads them); other kinds are
 * counted in `unused` by kind.
 */
export async function loadPods(
  files: string[],
  opts: LoadPodsOptions = {},
  unused = new Map<string, number>(),
): Promise<Pod[]> {
  const pods: Pod[] = [];
  for (const o of await loadValidManifests(files)) {
    if (!isWorkload(o.object)) {
      const kind = o.object.kind ?? '(no kind)';
      unused.set(kind, (unused.get(kind) ?? 0) + 1);
      continue;
    }
    let made: Pod[];
    try {
      made = opts.replicas ? workloadPods(o.object, opts.nodes ?? (() => [])) : [podFromWorkload(o.object)];
    } catch (e) {
      throw new CliError(`${o.source.file}:${o.source.line}: ${(e as Error).message}`);
    }
    for (const p of made) {
      checkClusterObject({ ...o, object: p });
      p.metadata.namespace ??= 'default';
      pods.push(p);
    }
  }
  return pods;
}

type Obj = KubeObject & { spec?: Record<string, any> };

const count = (v: unknown, dflt: number) => (typeof v === 'number' && v >= 0 ? Math.floor(v) : dflt);

/** The pods one workload's controller creates (see {@link LoadPodsOptions.replicas}). */
function workloadPods(w: Obj, nodes: () => Node[]): Pod[] {
  const template = podFromWorkload(w);
  if (w.kind === 'Pod' || w.kind === 'PodTemplate') return [template];
  const name = w.metadata?.name ?? '';
  const copy = (n: string) => {
    const p = structuredClone(template);
    p.metadata.name = n;
    return p;
  };
  switch (w.kind) {
    case 'DaemonSet':
      return nodes()
        .filter((n) => nodeShouldRunDaemonPod(template, n).shouldRun)
        .map((n) => {
          const p = copy(`${name}-${n.metadata.name}`);
          p.spec.affinity = replaceDaemonSetPodNodeNameNodeAffinity(p.spec.affinity, n.metadata.name!);
          return p;
        });
    case 'StatefulSet': {
      const sts = w as unknown as StatefulSet;
      const start = startOrdinal(sts);
      return Array.from({ length: count(w.spec?.replicas, 1) }, (_, i) => {
        const p = copy(name);
        setIdentity(sts, p, start + i);
        return p;
      });
    }
    case 'Job':
    case 'CronJob': {
      const job = w.kind === 'CronJob' ? w.spec?.jobTemplate?.spec : w.spec;
      const parallelism = count(job?.parallelism, 1);
      const n =
        job?.completions === undefined ? parallelism : Math.min(parallelism, count(job.completions, 1));
      return Array.from({ length: n }, (_, i) => copy(`${name}-${i}`));
    }
    default:
      return Array.from({ length: count(w.spec?.replicas, 1) }, (_, i) => copy(`${name}-${i}`));
  }
}

/** The flags that choose a cluster and a scheduler (explain, schedule). */
export interface SchedulerFlags extends PluginFlags {
  cluster?: string[];
  kubeconfig?: string;
  config?: string;
  kernel: string;
  seed: string;
  plugin?: string[];
}

/**
 * A scheduler over the --cluster snapshot with the --config profile, --kernel, --seed and --plugin
 * (contained as the --plugin-* flags say; finishPlugins once the answer is computed); `unused` gets
 * the snapshot's objects of kinds the scheduler does not read.
 */
export async function schedulerFromFlags(
  o: SchedulerFlags,
  unused?: Map<string, number>,
): Promise<{ core: SchedulerCore; plugins: LoadedUserPlugin[] }> {
  const cluster = clusterFiles(o);
  const { kernel, seed } = kernelAndSeed(o);
  const {
    core,
    plugins,
    cluster: loaded,
  } = await createOfflineScheduler({
    cluster,
    config: o.config,
    kernel,
    seed,
    plugins: o.plugin,
    pluginOptions: pluginOptions(o),
  });
  for (const [k, n] of loaded.unused ?? []) unused?.set(k, (unused.get(k) ?? 0) + n);
  return { core, plugins };
}

/** The one warning line naming the input a command does not use (nothing is dropped silently). */
export function warnUnused(command: string, parts: [flag: string, unused: Map<string, number>][]): void {
  const text = parts.filter(([, u]) => u.size).map(([flag, u]) => `${unusedText(u)} (${flag})`);
  if (text.length) process.stderr.write(`warning: not used by ${command}: ${text.join('; ')}\n`);
}

/**
 * One `warning:` line per PriorityClass a snapshot's pods name but the snapshot lacks (their
 * stored priority stands: api/priority.ts), the same in plan, simulate and serve --cluster.
 */
export function warnMissingPriorityClasses(
  objects: readonly { kind?: string; spec?: unknown; metadata?: { name?: string } }[],
): void {
  const pods = objects.filter((o) => o.kind === 'Pod');
  const classes = objects.filter((o) => o.kind === 'PriorityClass');
  for (const w of missingPriorityClassWarnings(pods, classes)) process.stderr.write(`warning: ${w}\n`);
}

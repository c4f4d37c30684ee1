/** Reading the pods and the scheduler a scheduling command works on, the same way in each. */
import { loadManifests } from '../api/manifest.js';
import type { KubeObject, Node, Pod, StatefulSet } from '../api/types.js';
import { isWorkload, podFromWorkload } from '../api/workload-pod.js';
import {
  nodeShouldRunDaemonPod,
  replaceDaemonSetPodNodeNameNodeAffinity,
} from '../controllers/daemonset-util.js';
import { setIdentity, startOrdinal } from '../controllers/statefulset-util.js';
import { createOfflineScheduler, type SchedulerCore } from '../scheduler/index.js';
import { CliError } from './errors.js';
import { clusterFiles, kernelAndSeed } from './flags.js';

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
 * The pods in the files, in order, with a namespace: Pods as they are, workloads as the pods they
 * create (`podFromWorkload`, as `plan` reads them). A pod without containers is an error naming the
 * file and line; other kinds are counted in `unused` by kind.
 */
export async function loadPods(
  files: string[],
  opts: LoadPodsOptions = {},
  unused = new Map<string, number>(),
): Promise<Pod[]> {
  const pods: Pod[] = [];
  for (const o of await loadManifests(files)) {
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
      if (!Array.isArray(p.spec?.containers))
        throw new CliError(
          `${o.source.file}:${o.source.line}: ${o.object.kind} "${o.object.metadata?.name}": spec.containers: Required value`,
        );
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
export interface SchedulerFlags {
  cluster?: string[];
  kubeconfig?: string;
  config?: string;
  kernel: string;
  seed: string;
  plugin?: string[];
}

/** A scheduler over the --cluster snapshot with the --config profile, --kernel, --seed and --plugin. */
export async function schedulerFromFlags(o: SchedulerFlags): Promise<SchedulerCore> {
  const cluster = clusterFiles(o);
  const { kernel, seed } = kernelAndSeed(o);
  const { core } = await createOfflineScheduler({
    cluster,
    config: o.config,
    kernel,
    seed,
    plugins: o.plugin,
  });
  return core;
}

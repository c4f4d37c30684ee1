/** Reading the pods and the scheduler a scheduling command works on, the same way in each. */
import { loadValidManifests } from '../api/manifest-check.js';
import type { Pod } from '../api/types.js';
import { unusedText } from '../capacity/cluster-input.js';
import { checkClusterObject } from '../scheduler/framework/cluster-file.js';
import { createOfflineScheduler, type LoadedUserPlugin, type SchedulerCore } from '../scheduler/index.js';
import { CliError } from './errors.js';
import { clusterFiles, kernelAndSeed } from './flags.js';
import { pluginOptions, type PluginFlags } from './plugin-flags.js';

/**
 * Every Pod in the files, in order, with a namespace, read through the validating loader (an
 * object the apiserver would reject is an error naming file, line, object and field); objects of
 * other kinds are counted by kind in `unused`.
 */
export async function loadPods(files: string[], unused = new Map<string, number>()): Promise<Pod[]> {
  const pods: Pod[] = [];
  for (const o of await loadValidManifests(files)) {
    if (o.object.kind !== 'Pod') {
      unused.set(o.object.kind, (unused.get(o.object.kind) ?? 0) + 1);
      continue;
    }
    const p = o.object as Pod;
    checkClusterObject(o);
    p.metadata.namespace ??= 'default';
    pods.push(p);
  }
  return pods;
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
  const { core, plugins, cluster: loaded } = await createOfflineScheduler({
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

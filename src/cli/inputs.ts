/** Reading the pods and the scheduler a scheduling command works on, the same way in each. */
import { loadManifests } from '../api/manifest.js';
import type { Pod } from '../api/types.js';
import { createOfflineScheduler, type LoadedUserPlugin, type SchedulerCore } from '../scheduler/index.js';
import { CliError } from './errors.js';
import { clusterFiles, kernelAndSeed } from './flags.js';
import { pluginOptions, type PluginFlags } from './plugin-flags.js';

/** Every Pod in the files, in order, with a namespace; a Pod without containers is an error. */
export async function loadPods(files: string[]): Promise<Pod[]> {
  const pods: Pod[] = [];
  for (const o of await loadManifests(files)) {
    if (o.object.kind !== 'Pod') continue;
    const p = o.object as Pod;
    if (!Array.isArray(p.spec?.containers))
      throw new CliError(
        `${o.source.file}:${o.source.line}: Pod "${p.metadata?.name}": spec.containers: Required value`,
      );
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
 * (contained as the --plugin-* flags say; finishPlugins once the answer is computed).
 */
export async function schedulerFromFlags(
  o: SchedulerFlags,
): Promise<{ core: SchedulerCore; plugins: LoadedUserPlugin[] }> {
  const cluster = clusterFiles(o);
  const { kernel, seed } = kernelAndSeed(o);
  const { core, plugins } = await createOfflineScheduler({
    cluster,
    config: o.config,
    kernel,
    seed,
    plugins: o.plugin,
    pluginOptions: pluginOptions(o),
  });
  return { core, plugins };
}

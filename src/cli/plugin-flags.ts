/**
 * The flags that bound user plugins (--plugin, `plugin:` strategies), and what a command does with
 * a plugin that failed: with --plugin-errors=fail (the default) the command ends with the first
 * failure, naming the plugin, the extension point, the pod and the reason (exit 1, no report);
 * with --plugin-errors=continue the failed pods are in the report like any pod that did not fit,
 * a warning line counts them, and the exit status is the command's usual one.
 */
import type { Command } from 'commander';
import type { LoadedUserPlugin, UserPluginOptions } from '../scheduler/plugins/user.js';
import {
  DEFAULT_PLUGIN_LIMITS,
  MAX_PLUGIN_MEMORY_MIB,
  MAX_PLUGIN_MS,
} from '../scheduler/plugins/sandbox/limits.js';
import { CliError, UsageError } from './errors.js';

export interface PluginFlags {
  pluginErrors: string;
  pluginTimeout: string;
  pluginCycleTimeout: string;
  pluginMemory: string;
}

/** Adds --plugin-errors, --plugin-timeout, --plugin-cycle-timeout, --plugin-memory to `cmd`. */
export function addPluginLimitOptions(cmd: Command): Command {
  const d = DEFAULT_PLUGIN_LIMITS;
  return cmd
    .option(
      '--plugin-errors <mode>',
      "a user plugin that fails (throws, returns a bad score, runs over a limit): fail = end the command with the error (exit 1); continue = fail only that pod's scheduling cycle, as kube-scheduler does",
      'fail',
    )
    .option('--plugin-timeout <ms>', 'time limit of one user plugin call', String(d.callMs))
    .option(
      '--plugin-cycle-timeout <ms>',
      "time limit of all calls of one user plugin in one pod's scheduling cycle",
      String(d.cycleMs),
    )
    .option(
      '--plugin-memory <MiB>',
      'memory limit of a user plugin: JS heap of its worker, or WASM memory beyond its copy of the node table',
      String(d.memoryMiB),
    );
}

/** The contained-plugin options the flags ask for. */
export function pluginOptions(o: PluginFlags): UserPluginOptions {
  if (o.pluginErrors !== 'fail' && o.pluginErrors !== 'continue')
    throw new UsageError(`--plugin-errors: unknown mode "${o.pluginErrors}" (expected fail or continue)`);
  const int = (flag: string, v: string, min: number, max: number) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new UsageError(`${flag}: expected an integer in ${min}..${max}, got "${v}"`);
    return n;
  };
  return {
    errors: o.pluginErrors,
    limits: {
      callMs: int('--plugin-timeout', o.pluginTimeout, 1, MAX_PLUGIN_MS),
      cycleMs: int('--plugin-cycle-timeout', o.pluginCycleTimeout, 1, MAX_PLUGIN_MS),
      memoryMiB: int('--plugin-memory', o.pluginMemory, 16, MAX_PLUGIN_MEMORY_MIB),
    },
  };
}

/**
 * Stops the plugins' workers, then applies --plugin-errors: throws the first failure (fail), or
 * prints one warning line per failed plugin (continue). Call it after the command computed its
 * answer and before it prints it.
 */
export async function finishPlugins(plugins: readonly LoadedUserPlugin[], o: PluginFlags): Promise<void> {
  await Promise.all(plugins.map((p) => p.close()));
  for (const p of plugins) {
    const f = p.failures[0];
    if (!f) continue;
    const what = `running ${f.point} plugin "${f.plugin}" for pod ${f.pod}: ${f.message}`;
    if (o.pluginErrors !== 'continue')
      throw new CliError(`${what} (--plugin-errors=continue fails only the pods' cycles and goes on)`);
    process.stderr.write(
      `kubesim: warning: plugin "${p.name}" failed ${p.failures.length} scheduling cycle(s); the first: ${what}\n`,
    );
  }
}

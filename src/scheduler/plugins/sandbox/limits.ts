/**
 * The bounds a contained user plugin runs within (src/scheduler/plugins/sandbox/host.ts), and what
 * a failing plugin does to the command. The CLI sets them with --plugin-timeout,
 * --plugin-cycle-timeout, --plugin-memory and --plugin-errors (docs/scheduler.md, "User plugins").
 */

export interface PluginLimits {
  /**
   * one call of the plugin's function: score or filter on one node (TS/JS), or one score call over
   * the pod's batch of nodes (WASM)
   * @default 1000
   */
  callMs: number;
  /** every call of one plugin within one pod's scheduling cycle, together @default 10000 */
  cycleMs: number;
  /**
   * TS/JS: the plugin worker's JavaScript heap (V8 old generation); WASM: what the module's memory
   * may grow beyond its copy of the node table
   * @default 512
   */
  memoryMiB: number;
  /** loading the module: compiling TypeScript, importing, instantiating @default 10000 */
  loadMs: number;
}

export const DEFAULT_PLUGIN_LIMITS: Readonly<PluginLimits> = Object.freeze({
  callMs: 1000,
  cycleMs: 10_000,
  memoryMiB: 512,
  loadMs: 10_000,
});

/** Upper bounds of the limits themselves (an hour; 16 GiB). */
export const MAX_PLUGIN_MS = 3_600_000;
export const MAX_PLUGIN_MEMORY_MIB = 16_384;

/**
 * What a plugin error does: 'fail' (the default) ends the command with the error and exit status 1
 * once the run is over; 'continue' fails only the pod's scheduling cycle, as kube-scheduler does
 * (the pod is reported with the error, the command goes on and exits as it would otherwise).
 */
export type PluginErrorPolicy = 'fail' | 'continue';

/** The limits with `partial` applied; a value out of range is a RangeError naming the field. */
export function pluginLimits(partial: Partial<PluginLimits> = {}): PluginLimits {
  const l = { ...DEFAULT_PLUGIN_LIMITS, ...partial };
  for (const k of ['callMs', 'cycleMs', 'loadMs'] as const)
    if (!Number.isInteger(l[k]) || l[k] < 1 || l[k] > MAX_PLUGIN_MS)
      throw new RangeError(`plugin limits: ${k} must be an integer in 1..${MAX_PLUGIN_MS}, got ${l[k]}`);
  if (!Number.isInteger(l.memoryMiB) || l.memoryMiB < 16 || l.memoryMiB > MAX_PLUGIN_MEMORY_MIB)
    throw new RangeError(
      `plugin limits: memoryMiB must be an integer in 16..${MAX_PLUGIN_MEMORY_MIB}, got ${l.memoryMiB}`,
    );
  return l;
}

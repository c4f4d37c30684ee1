/**
 * `kubesim simulate <scenario.yaml>`: run a scenario on a virtual clock (controllers, scheduler,
 * kubelets all talking to one in-memory ApiServer) and print what happened.
 */
import { ManifestError, readInputTextSync } from '../api/manifest-read.js';
import { warnMissingPriorityClasses } from './inputs.js';
import { type Command, Option } from 'commander';
import { type Trace, TraceError, parseTrace, planReplay, withReplay } from '../sim/replay.js';
import { loadScenario } from '../sim/scenario.js';
import type { Scenario } from '../sim/scenario-types.js';
import { ScenarioError } from '../util/scenario-input.js';
import { loadScenarioPlugins, simulate } from '../sim/simulation.js';
import type { RunOptions, SimulationResult } from '../sim/result.js';
import { ConfigError, loadSchedulerConfig } from '../scheduler/config.js';
import { loadUserPlugin, type LoadedUserPlugin } from '../scheduler/plugins/user.js';
import { addPluginLimitOptions, finishPlugins, pluginOptions, type PluginFlags } from './plugin-flags.js';
import { formatEvents, formatSummary, renderReport } from '../sim/report.js';
import { clockTime } from '../report/units.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { CliError, UsageError } from './errors.js';
import { intFlag } from './flags.js';
import {
  addOutputOptions,
  BASE_FORMATS,
  emit,
  isStructured,
  type OutputFlags,
  structured,
} from './output.js';
import { progress } from './progress.js';
import { limitHeapGrowth } from './heap-growth.js';

/** Flags simulate and demo share. */
export interface RunFlags extends OutputFlags {
  /** `--events` alone: every event; `--events N`: the last N */
  events?: string | boolean;
  progress: boolean;
  /** the former `--html FILE`: also write the HTML report */
  html?: string;
}

export function addRunOptions(cmd: Command, eventsHelp: string): Command {
  cmd
    .option('--events [n]', eventsHelp)
    .option('--no-progress', 'no progress on stderr')
    .addOption(new Option('--html <file>').hideHelp());
  return addOutputOptions(cmd, [...BASE_FORMATS, 'html']);
}

/** How many events to print: undefined = none, Infinity = all. */
export function eventCount(v: string | boolean | undefined, dflt?: number): number | undefined {
  if (v === undefined || v === false) return dflt;
  if (v === true) return Infinity;
  return intFlag('--events', v, 0);
}

/** Runs the scenario with progress on stderr, then writes the result in the chosen format. */
export async function runAndReport(
  scenario: Scenario,
  o: RunFlags,
  run: {
    seed?: number;
    /** the scheduler configuration and user plugins (RunOptions); plugins are closed by the caller */
    scheduler?: Pick<RunOptions, 'plugins' | 'schedulerConfig'>;
    /** after the run, before the report: closes the plugins and applies --plugin-errors */
    finish?: () => Promise<void>;
    command: string;
    label: string;
    /** printed above the summary (table/wide) */
    intro?: string;
    events?: number;
    /** which events the table shows (default: all) */
    keyEvents?: (e: SimulationResult['events'][number]) => boolean;
  },
): Promise<void> {
  limitHeapGrowth();
  const bar = progress(run.label, o.progress);
  let result: SimulationResult;
  try {
    result = await simulate(scenario, {
      ...run.scheduler,
      seed: run.seed,
      timing: true,
      onProgress: (done, total) =>
        bar.update(done, total, `${clockTime(done / 1000)} of ${clockTime(total / 1000)} virtual`),
    });
  } catch (e) {
    throw new CliError((e as Error).message);
  } finally {
    bar.finish();
  }
  await run.finish?.();
  if (o.html) {
    try {
      writeFileAtomic(o.html, renderReport(result, run.command));
    } catch (e) {
      throw new CliError(`--html ${o.html}: cannot write: ${(e as Error).message}`);
    }
  }
  const fmt = o.output;
  if (isStructured(fmt)) {
    // events are many: the structured output carries them when --events was given
    emit(o, structured(fmt, o.events === undefined ? { ...result, events: undefined } : result));
    return;
  }
  if (fmt === 'html') {
    emit(o, renderReport(result, run.command));
    return;
  }
  const wide = fmt === 'wide';
  let text = run.intro ?? '';
  text += formatSummary(result, { wide });
  if (run.events !== undefined && run.events > 0) {
    const shown = run.keyEvents ? result.events.filter(run.keyEvents) : result.events;
    const n = Math.min(run.events, shown.length);
    text += run.keyEvents
      ? `\nKey events (${shown.length} of ${result.events.length}; last ${n}):\n`
      : `\nEvents (last ${n} of ${result.events.length}):\n`;
    text += formatEvents({ ...result, events: shown }, run.events, { wide });
  }
  emit(o, text);
}

/** The scenario with a recorded trace on top; what is not replayed is named in one warning line. */
function replayOnto(scenario: Scenario, file: string): Scenario {
  let trace: Trace;
  try {
    trace = parseTrace(readInputTextSync(file), file);
  } catch (e) {
    if (e instanceof TraceError) throw new CliError(e.message);
    if (e instanceof ManifestError) throw new CliError(`--replay ${e.message}`);
    const code = (e as NodeJS.ErrnoException).code;
    throw new CliError(`--replay ${file}: cannot read: ${code ?? (e as Error).message}`);
  }
  const plan = planReplay(trace, scenario);
  process.stderr.write(
    `replay: ${file}: ${plan.workloads.length} objects at the start, ${plan.timeline.length} timeline entries over ${trace.durationSeconds}s\n`,
  );
  if (plan.skipped.size)
    process.stderr.write(
      `warning: not replayed from ${file}: ${[...plan.skipped].map(([why, n]) => `${n} ${why}`).join(', ')}\n`,
    );
  return withReplay(scenario, plan, trace);
}

export function register(program: Command): void {
  const cmd = program
    .command('simulate')
    .description(
      'run a scenario (cluster, workloads, timeline) through controllers, scheduler and kubelets on a virtual clock',
    )
    .argument('<scenario>', 'scenario file (YAML or JSON; format in docs/sim.md)')
    .option('--seed <n>', "seed for every random choice (overrides the scenario's seed)")
    .option(
      '--replay <trace>',
      "replay a `kubesim record` trace's creates, deletes, scales and image changes on top of the scenario",
    );
  addRunOptions(cmd, 'print the events of the run, like kubectl get events (all, or the last n)')
    .addHelpText(
      'after',
      `
The simulation is deterministic: the same scenario and seed give the same result.
Examples:
  kubesim simulate examples/scenarios/node-failure-eviction.yaml --events
  kubesim simulate examples/scenarios/mass-create-429.yaml -o json
  kubesim simulate examples/scenarios/generated-cluster-rollout.yaml --seed 7 -o html --out report.html
  kubesim simulate examples/scenarios/scale-up-down.yaml --plugin examples/plugins/binpack.mjs:5
  kubesim simulate examples/scenarios/scale-up-down.yaml --config sched.yaml
  kubesim simulate examples/scenarios/node-failure-eviction.yaml --replay trace.yaml   # trace: kubesim record`,
    )
    .option(
      '--config <file>',
      "KubeSchedulerConfiguration of the scheduler (profiles, plugin weights, scoring strategy), in place of the scenario's settings.schedulerConfig",
    )
    .option(
      '--plugin <spec...>',
      "user plugin as path[:weight] added to every profile, beside the scenario's settings.plugins: a .wasm score module or a JS/TS module exporting {name, score, filter} (repeatable)",
    );
  addPluginLimitOptions(cmd);
  cmd.action(async (file: string, opts: SimulateFlags) => {
    let seed: number | undefined;
    if (opts.seed !== undefined) {
      seed = Number(opts.seed);
      if (!Number.isInteger(seed)) throw new UsageError(`--seed: not an integer: "${opts.seed}"`);
    }
    const events = eventCount(opts.events);
    const pluginOpts = pluginOptions(opts);
    let scenario: Scenario;
    try {
      scenario = loadScenario(file);
    } catch (e) {
      if (e instanceof ScenarioError) throw new CliError(e.message);
      throw e;
    }
    warnMissingPriorityClasses(scenario.snapshotObjects);
    if (opts.replay) scenario = replayOnto(scenario, opts.replay);
    if (scenario.settings.scheduler !== 'real' && (opts.config || opts.plugin?.length))
      throw new UsageError(
        `--config/--plugin: ${file} runs the stand-in scheduler (settings.scheduler: standin), which has fixed plugins`,
      );
    let schedulerConfig;
    try {
      schedulerConfig = opts.config ? loadSchedulerConfig(opts.config) : undefined;
    } catch (e) {
      if (e instanceof ConfigError) throw new CliError(`--config: ${e.message}`);
      throw e;
    }
    const plugins = await loadPlugins(scenario, opts.plugin ?? [], pluginOpts);
    try {
      await runAndReport(scenario, opts, {
        seed,
        events,
        scheduler: { plugins, schedulerConfig },
        finish: () => finishPlugins(plugins, opts),
        label: `simulate ${scenario.name}`,
        command: `kubesim simulate ${file}${seed !== undefined ? ` --seed ${seed}` : ''}${opts.replay ? ` --replay ${opts.replay}` : ''}${opts.config ? ` --config ${opts.config}` : ''}${(opts.plugin ?? []).map((p) => ` --plugin ${p}`).join('')}`,
      });
    } finally {
      await Promise.all(plugins.map((p) => p.close()));
    }
  });
}

interface SimulateFlags extends RunFlags, PluginFlags {
  seed?: string;
  replay?: string;
  config?: string;
  plugin?: string[];
}

/** The scenario's settings.plugins and the --plugin ones, loaded contained; closed on an error. */
async function loadPlugins(
  scenario: Scenario,
  specs: string[],
  opts: ReturnType<typeof pluginOptions>,
): Promise<LoadedUserPlugin[]> {
  let out: LoadedUserPlugin[];
  try {
    out = await loadScenarioPlugins(scenario, opts);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  try {
    for (const spec of specs) out.push(await loadUserPlugin(spec, opts));
  } catch (e) {
    await Promise.all(out.map((p) => p.close()));
    throw new CliError((e as Error).message);
  }
  const names = new Set<string>();
  for (const p of out) {
    if (names.has(p.name)) {
      await Promise.all(out.map((q) => q.close()));
      throw new UsageError(
        `--plugin: two plugins are named "${p.name}" (settings.plugins and --plugin together)`,
      );
    }
    names.add(p.name);
  }
  return out;
}

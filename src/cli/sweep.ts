/**
 * `kubesim sweep SCENARIO --set PATH=V1,V2 … [--seeds N]`: the scenario run over a grid of values ×
 * seeds in the worker pool, each metric per point with its spread over the seeds (src/experiments/sweep.ts).
 * `--shard I/N` runs a deterministic slice, `sweep merge` combines the slices' JSON, and `sweep job`
 * prints the Kubernetes Indexed Job that runs the slices on a cluster.
 */
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { parse } from 'yaml';
import { ManifestError, parseYamlValue, readInputTextSync } from '../api/manifest-read.js';
import { ScenarioError } from '../util/scenario-input.js';
import {
  mergeSweeps,
  parseSet,
  parseShard,
  runSweep,
  type Shard,
  SweepError,
  type SweepParameter,
  type SweepResult,
  gridPoints,
  shardRuns,
} from '../experiments/sweep.js';
import { collectCommands, scenarioFileRefs, sweepJobManifest } from '../experiments/sweep-job.js';
import { formatSweepTable, renderSweepReport } from '../experiments/sweep-report.js';
import { RUN_METRICS, type RunMetricName } from '../sim/run-metrics.js';
import { sweepScenario } from '../sim/sweep-run.js';
import { table } from '../report/table.js';
import { LIMITS } from '../util/limits.js';
import { CliError, UsageError } from './errors.js';
import { intFlag } from './flags.js';
import {
  addOutputOptions,
  BASE_FORMATS,
  emit,
  type Format,
  isStructured,
  type OutputFlags,
  structured,
} from './output.js';
import { progress } from './progress.js';

interface GridFlags {
  set?: string[];
  seeds: string;
  seed?: string;
}

interface Grid {
  file: string;
  text: string;
  parameters: SweepParameter[];
  seeds: number[];
}

/** An input file's text (size and UTF-8 checked), its problems as one-line errors. */
function readText(file: string): string {
  try {
    return readInputTextSync(file);
  } catch (e) {
    if (e instanceof ManifestError) throw new CliError(e.message);
    throw e;
  }
}

/** The scenario file, the --set lists and the seeds (base: --seed, else the scenario's). */
function readGrid(file: string, o: GridFlags): Grid {
  let parameters: SweepParameter[];
  try {
    parameters = (o.set ?? []).map(parseSet);
  } catch (e) {
    if (e instanceof SweepError) throw new UsageError(e.message);
    throw e;
  }
  const dup = parameters.find((p, i) => parameters.findIndex((q) => q.path === p.path) !== i);
  if (dup) throw new UsageError(`--set ${dup.path}: given twice (put every value in one list)`);
  const n = intFlag('--seeds', o.seeds, 1, LIMITS.sweepRuns);
  const points = parameters.reduce((k, p) => k * p.values.length, 1);
  if (points * n > LIMITS.sweepRuns)
    throw new UsageError(
      `${points} point(s) × ${n} seed(s) = ${points * n} runs is above the limit of ${LIMITS.sweepRuns} (see "Limits" in the README)`,
    );
  const text = readText(file);
  let base: number;
  if (o.seed !== undefined) base = intFlag('--seed', o.seed, 0);
  else {
    try {
      base = sweepScenario({ text, source: file, baseDir: dirname(resolve(file)), values: {} }).seed;
    } catch (e) {
      if (e instanceof ScenarioError) throw new CliError(e.message);
      throw new CliError(`${file}: ${(e as Error).message}`);
    }
  }
  return { file, text, parameters, seeds: Array.from({ length: n }, (_, i) => base + i) };
}

/** --shard I/N, or --shards N with I from JOB_COMPLETION_INDEX (an Indexed Job's pod). */
function readShard(o: { shard?: string; shards?: string }): Shard | null {
  if (o.shard !== undefined && o.shards !== undefined)
    throw new UsageError(
      '--shard I/N and --shards N do not go together (--shards reads I from JOB_COMPLETION_INDEX)',
    );
  try {
    if (o.shard !== undefined) return parseShard(o.shard);
    if (o.shards === undefined) return null;
    const n = intFlag('--shards', o.shards, 1, LIMITS.sweepRuns);
    const i = process.env.JOB_COMPLETION_INDEX;
    if (i === undefined || !/^\d+$/.test(i))
      throw new UsageError(
        `--shards ${n}: JOB_COMPLETION_INDEX is ${i === undefined ? 'not set' : `"${i}"`} (set in the pods of an Indexed Job; elsewhere use --shard I/${n})`,
      );
    return parseShard(`${i}/${n}`);
  } catch (e) {
    if (e instanceof SweepError) throw new UsageError(e.message);
    throw e;
  }
}

/** --metrics a,b: the table's columns, each a metric name. */
function readMetrics(v: string | undefined): RunMetricName[] | undefined {
  if (v === undefined) return undefined;
  const names = v.split(',').map((x) => x.trim());
  const bad = names.find((n) => !(n in RUN_METRICS));
  if (bad !== undefined)
    throw new UsageError(
      `--metrics: unknown metric "${bad}" (one of ${Object.keys(RUN_METRICS).join(', ')})`,
    );
  return names as RunMetricName[];
}

function writeResult(r: SweepResult, o: OutputFlags & { metrics?: string }, command: string): void {
  const fmt: Format = o.output;
  const metrics = readMetrics(o.metrics);
  if (isStructured(fmt)) emit(o, structured(fmt, r));
  else if (fmt === 'html') emit(o, renderSweepReport(r, command));
  else emit(o, formatSweepTable(r, { wide: fmt === 'wide', metrics }));
}

function addGridOptions(cmd: Command): Command {
  return cmd
    .argument('<scenario>', 'scenario file (YAML or JSON; format in docs/sim.md)')
    .option(
      '--set <path=values...>',
      'a swept parameter and its values, e.g. controllers.deployment.concurrentSyncs=5,10,50 or apiserver.maxMutatingInflight=200,400 (repeatable; paths in docs/sim.md)',
    )
    .option('--seeds <n>', 'seeds per point: the base seed and the n-1 after it', '1')
    .option('--seed <n>', "the base seed (default: the scenario's)");
}

function registerRun(sweep: Command): void {
  const cmd = addGridOptions(
    sweep
      .command('run', { isDefault: true })
      .description(
        'run the grid (every --set value × every seed) in the worker pool and report each metric per point',
      ),
  )
    .option(
      '--shard <I/N>',
      'run only shard I of N (runs k with k mod N = I); merge the shards with sweep merge',
    )
    .option(
      '--shards <n>',
      'run shard JOB_COMPLETION_INDEX of N (in the pods of a Kubernetes Indexed Job: sweep job)',
    )
    .option('--threads <n>', 'worker threads (default: cores; 1 runs in this thread)')
    .option(
      '--metrics <names>',
      `the table's metric columns, comma-separated: ${Object.keys(RUN_METRICS).join(', ')}`,
    )
    .option('--no-progress', 'no progress on stderr');
  addOutputOptions(cmd, [...BASE_FORMATS, 'html']).addHelpText(
    'after',
    `
Each run is deterministic: the same scenario, values and seed give the same numbers, in any thread,
process or shard. "kubesim sweep SCENARIO …" is "kubesim sweep run SCENARIO …".
Examples:
  kubesim sweep examples/scenarios/inflight-parallel-deploys.yaml --set apiserver.maxMutatingInflight=20,200 --seeds 2
  kubesim sweep examples/scenarios/inflight-parallel-deploys.yaml --set apiserver.maxMutatingInflight=20,200 -o html --out sweep.html
  kubesim sweep examples/scenarios/inflight-parallel-deploys.yaml --set apiserver.maxMutatingInflight=20,200 --seeds 2 --shard 0/2 -o json --out shard-0.json`,
  );
  cmd.action(
    async (
      file: string,
      o: GridFlags &
        OutputFlags & {
          shard?: string;
          shards?: string;
          threads?: string;
          progress: boolean;
          metrics?: string;
        },
    ) => {
      readMetrics(o.metrics);
      const shard = readShard(o);
      const threads =
        o.threads === undefined ? undefined : intFlag('--threads', o.threads, 1, LIMITS.threads);
      const g = readGrid(file, o);
      const bar = progress(`sweep ${file}`, o.progress);
      let r: SweepResult;
      try {
        r = await runSweep(
          {
            text: g.text,
            source: file,
            baseDir: dirname(resolve(file)),
            parameters: g.parameters,
            seeds: g.seeds,
          },
          { shard, threads, onDone: (d, t) => bar.update(d, t, `${d} of ${t} runs`) },
        );
      } catch (e) {
        throw new CliError((e as Error).message);
      } finally {
        bar.finish();
      }
      writeResult(r, o, `kubesim sweep ${process.argv.slice(3).join(' ')}`);
    },
  );
}

function registerMerge(sweep: Command): void {
  const cmd = sweep
    .command('merge')
    .description("combine the JSON results of a sharded sweep's shards into the result of the whole sweep")
    .argument('<files...>', 'shard results (sweep --shard I/N -o json), one per shard')
    .option('--metrics <names>', "the table's metric columns, comma-separated (as sweep run)");
  addOutputOptions(cmd, [...BASE_FORMATS, 'html']).addHelpText(
    'after',
    `
The merged result equals the result of the same sweep run in one process.
Examples:
  kubesim sweep merge shard-0.json shard-1.json
  kubesim sweep merge shard-0.json shard-1.json -o json`,
  );
  cmd.action((files: string[], o: OutputFlags & { metrics?: string }) => {
    const named = files.map((file) => {
      const text = readText(file);
      try {
        return { file, result: parseYamlValue(text, file) };
      } catch (e) {
        if (e instanceof ManifestError) throw new CliError(e.message);
        throw e;
      }
    });
    let r: SweepResult;
    try {
      r = mergeSweeps(named);
    } catch (e) {
      if (e instanceof SweepError) throw new CliError(e.message);
      throw e;
    }
    writeResult(r, o, `kubesim sweep merge ${files.join(' ')}`);
  });
}

function registerJob(sweep: Command): void {
  const cmd = addGridOptions(
    sweep
      .command('job')
      .description(
        'print the Kubernetes Indexed Job (and the ConfigMap with the scenario) that runs a sweep as N shards',
      ),
  )
    .option('--shards <n>', 'completions: one pod per shard', '4')
    .option('--parallelism <n>', 'pods at once (default: --shards)')
    .option('--name <name>', 'Job name', 'kubesim-sweep')
    .option('--namespace <ns>', 'namespace of the Job and the ConfigMap')
    .option('--image <image>', 'an image with kubesim on its PATH', 'kubesim:latest')
    .option('--results-claim <pvc>', "a ReadWriteMany PVC for the shards' results (default: each pod's log)")
    .option('--cpu <q>', "each pod's CPU request (the pod's worker pool uses what it is given)", '2')
    .option('--memory <q>', "each pod's memory request", '2Gi');
  addOutputOptions(cmd, ['yaml', 'json', 'table', 'wide']).addHelpText(
    'after',
    `
-o table lists the runs of each shard and the commands that collect and merge the results.
Examples:
  kubesim sweep job examples/scenarios/inflight-parallel-deploys.yaml --set apiserver.maxMutatingInflight=20,200 --seeds 4 --shards 4
  kubesim sweep job examples/scenarios/inflight-parallel-deploys.yaml --set apiserver.maxMutatingInflight=20,200 --shards 2 -o table`,
  );
  cmd.action(
    (
      file: string,
      o: GridFlags &
        OutputFlags & {
          shards: string;
          parallelism?: string;
          name: string;
          namespace?: string;
          image: string;
          resultsClaim?: string;
          cpu: string;
          memory: string;
        },
    ) => {
      const shards = intFlag('--shards', o.shards, 1, LIMITS.sweepRuns);
      const parallelism =
        o.parallelism === undefined ? undefined : intFlag('--parallelism', o.parallelism, 1);
      if (!/^[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?$/.test(o.name))
        throw new UsageError(
          `--name ${o.name}: expected a DNS label of at most 52 characters (lower case, digits, '-')`,
        );
      const g = readGrid(file, o);
      const total = gridPoints(g.parameters).length * g.seeds.length;
      if (shards > total)
        throw new UsageError(
          `--shards ${shards}: the sweep has only ${total} run(s); a shard would be empty`,
        );
      const files: Record<string, string> = {};
      for (const f of scenarioFileRefs(parse(g.text))) {
        if (f.split('/').includes('..'))
          throw new CliError(
            `${file}: ${f}: a file outside the scenario's folder cannot go in the Job's ConfigMap`,
          );
        files[f] = readText(resolve(dirname(file), f));
      }
      const opts = {
        files,
        name: o.name,
        namespace: o.namespace,
        image: o.image,
        scenarioFile: file,
        scenarioText: g.text,
        parameters: g.parameters,
        seeds: g.seeds.length,
        shards,
        parallelism,
        resultsClaim: o.resultsClaim,
        cpu: o.cpu,
        memory: o.memory,
      };
      const manifest = sweepJobManifest(opts);
      if (o.output === 'yaml' || o.output === 'json') {
        emit(o, structured(o.output, manifest));
        return;
      }
      const rows = Array.from({ length: shards }, (_, i) => {
        const runs = shardRuns(total, { index: i, count: shards });
        return [
          i,
          runs.length,
          o.output === 'wide'
            ? runs.join(',')
            : `${runs.slice(0, 8).join(',')}${runs.length > 8 ? ',…' : ''}`,
        ];
      });
      emit(
        o,
        `Indexed Job ${o.name}: ${total} run(s) in ${shards} shard(s), image ${o.image}\n\n` +
          table(['SHARD', 'RUNS', 'RUN NUMBERS'], rows) +
          `\nThen:\n${collectCommands(opts)
            .map((l) => `  ${l}`)
            .join('\n')}\n`,
      );
    },
  );
}

export function register(program: Command): void {
  const sweep = program
    .command('sweep')
    .description(
      'run a scenario over a grid of settings × seeds; shard it over processes or a Kubernetes Indexed Job',
    );
  registerRun(sweep);
  registerMerge(sweep);
  registerJob(sweep);
}

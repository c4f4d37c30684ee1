/**
 * A sweep: one scenario run over a grid of parameter values × seeds, each run on its own (in the
 * worker pool, src/capacity/pool.ts), each metric reported per grid point with its spread over the
 * seeds. A run's numbers depend only on the scenario, its values and its seed (sweep-run.ts), so a
 * sweep can be cut into shards that run anywhere — as the pods of a Kubernetes Indexed Job
 * (sweep-job.ts) — and merged into what one process would have produced.
 *
 * Runs are numbered point-major: run k is grid point ⌊k / seeds⌋ with seed index k mod seeds, the
 * grid's last parameter varying fastest. Shard I of N takes the runs k with k mod N = I, so every
 * shard gets a share of every part of the grid (points differ in cost far more than seeds do):
 *
 *   2 points × 3 seeds = runs 0..5;  shard 0/2 → 0, 2, 4;  shard 1/2 → 1, 3, 5
 */
import { createHash } from 'node:crypto';
import { PlannerPool } from '../capacity/pool.js';
import { type MetricSpread, type RunMetricName, type RunMetrics, spreads } from '../sim/run-metrics.js';
import { runSweepRun, type SweepRunTask, scenarioPath, sweepScenario } from '../sim/sweep-run.js';

export class SweepError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SweepError';
  }
}

/** One swept parameter: its path as given (`apiserver.maxMutatingInflight`) and its values. */
export interface SweepParameter {
  path: string;
  values: unknown[];
}

export interface SweepSpec {
  /** the scenario file: text, path and folder (sweep-run.ts) */
  text: string;
  source: string;
  baseDir: string;
  parameters: SweepParameter[];
  /** the seeds every point runs with */
  seeds: number[];
}

export interface Shard {
  index: number;
  count: number;
}

export interface SweepRunResult {
  /** the run's number (point-major, see the header) */
  run: number;
  point: number;
  seed: number;
  metrics: RunMetrics;
}

export interface SweepPointSummary {
  point: number;
  /** parameter path → value */
  values: Record<string, unknown>;
  metrics: Record<RunMetricName, MetricSpread>;
}

/** What `kubesim sweep` writes (-o json) and `sweep merge` reads. */
export interface SweepResult {
  kind: 'SweepResult';
  version: 1;
  scenario: string;
  source: string;
  /** sha256 of the scenario file's text: shards of different scenario files do not merge */
  scenarioDigest: string;
  parameters: SweepParameter[];
  seeds: number[];
  /** the slice this result holds; null when it holds every run */
  shard: Shard | null;
  totalRuns: number;
  runs: SweepRunResult[];
  /** per grid point, over the runs this result holds */
  points: SweepPointSummary[];
}

/** `--set path=v1,v2,…`: values read as YAML scalars (`200` a number, `30s` a string, `true` a boolean). */
export function parseSet(spec: string): SweepParameter {
  const eq = spec.indexOf('=');
  if (eq <= 0 || eq === spec.length - 1)
    throw new SweepError(`--set ${spec}: expected PATH=V1,V2,… (e.g. apiserver.maxMutatingInflight=200,400)`);
  const path = spec.slice(0, eq).trim();
  if (!/^[A-Za-z][\w-]*(\.([A-Za-z][\w-]*|\d+))*$/.test(path))
    throw new SweepError(
      `--set ${spec}: "${path}" is not a dotted path like controllers.deployment.concurrentSyncs`,
    );
  const values = spec
    .slice(eq + 1)
    .split(',')
    .map((v) => v.trim());
  if (values.some((v) => v === '')) throw new SweepError(`--set ${spec}: an empty value in the list`);
  return { path, values: values.map(scalar) };
}

function scalar(v: string): unknown {
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (v === 'true' || v === 'false') return v === 'true';
  return v;
}

/** The grid points in order (the last parameter varies fastest). */
export function gridPoints(parameters: SweepParameter[]): Record<string, unknown>[] {
  let points: Record<string, unknown>[] = [{}];
  for (const p of parameters) points = points.flatMap((pt) => p.values.map((v) => ({ ...pt, [p.path]: v })));
  return points;
}

/** The runs of shard I/N (every run without a shard). */
export function shardRuns(total: number, shard: Shard | null): number[] {
  const out: number[] = [];
  for (let k = 0; k < total; k++) if (!shard || k % shard.count === shard.index) out.push(k);
  return out;
}

/** `I/N` → a shard; `I` may come from JOB_COMPLETION_INDEX (an Indexed Job's pod). */
export function parseShard(spec: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(spec.trim());
  if (!m) throw new SweepError(`--shard ${spec}: expected I/N, e.g. 0/4 (shard 0 of 4)`);
  const index = Number(m[1]),
    count = Number(m[2]);
  if (count < 1 || index >= count)
    throw new SweepError(`--shard ${spec}: the index must be from 0 to N-1 and N at least 1`);
  return { index, count };
}

export interface SweepOptions {
  shard?: Shard | null;
  /** worker threads; 1 runs in this thread (default: the pool's, the available cores) */
  threads?: number;
  onDone?: (done: number, total: number) => void;
}

/**
 * Checks every grid point's scenario before anything runs: a value the scenario refuses
 * (`maxMutatingInflight: -1`, an unknown setting) is an error naming the point, not a failed run.
 */
function checkPoints(spec: SweepSpec, points: Record<string, unknown>[]): string {
  let name = 'scenario';
  for (const pt of points) {
    try {
      name = sweepScenario({ ...spec, values: pathsOf(pt) }).name;
    } catch (e) {
      const at = Object.entries(pt)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(' ');
      throw new SweepError(`${at ? `--set ${at}: ` : ''}${(e as Error).message}`);
    }
  }
  return name;
}

const pathsOf = (pt: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(pt).map(([k, v]) => [scenarioPath(k), v]));

/** Runs the sweep (or one shard of it). */
export async function runSweep(spec: SweepSpec, opts: SweepOptions = {}): Promise<SweepResult> {
  if (!spec.seeds.length) throw new SweepError('a sweep needs at least one seed');
  const points = gridPoints(spec.parameters);
  const name = checkPoints(spec, points);
  const total = points.length * spec.seeds.length;
  const shard = opts.shard ?? null;
  const mine = shardRuns(total, shard);
  const task = (k: number): SweepRunTask => ({
    text: spec.text,
    source: spec.source,
    baseDir: spec.baseDir,
    values: pathsOf(points[Math.floor(k / spec.seeds.length)]!),
    seed: spec.seeds[k % spec.seeds.length]!,
  });
  let done = 0;
  let metrics: RunMetrics[];
  if ((opts.threads ?? 2) <= 1 || mine.length <= 1) {
    metrics = [];
    for (const k of mine) {
      metrics.push(await runSweepRun(task(k)));
      opts.onDone?.(++done, mine.length);
    }
  } else {
    const pool = new PlannerPool({ threads: Math.min(opts.threads ?? Infinity, mine.length) || undefined });
    try {
      metrics = await Promise.all(
        mine.map(async (k) => {
          const m = (await pool.run({ kind: 'sweepRun', run: task(k) })) as RunMetrics;
          opts.onDone?.(++done, mine.length);
          return m;
        }),
      );
    } finally {
      await pool.close();
    }
  }
  const runs = mine.map((k, i) => ({
    run: k,
    point: Math.floor(k / spec.seeds.length),
    seed: spec.seeds[k % spec.seeds.length]!,
    metrics: metrics[i]!,
  }));
  return assemble(
    {
      scenario: name,
      source: spec.source,
      scenarioDigest: digest(spec.text),
      parameters: spec.parameters,
      seeds: spec.seeds,
      shard,
      totalRuns: total,
    },
    runs,
  );
}

export const digest = (text: string) => createHash('sha256').update(text).digest('hex');

type Header = Omit<SweepResult, 'kind' | 'version' | 'runs' | 'points'>;

function assemble(h: Header, runs: SweepRunResult[]): SweepResult {
  const points = gridPoints(h.parameters);
  const byPoint = new Map<number, SweepRunResult[]>();
  for (const r of runs) byPoint.set(r.point, [...(byPoint.get(r.point) ?? []), r]);
  return {
    kind: 'SweepResult',
    version: 1,
    ...h,
    runs,
    points: [...byPoint.keys()]
      .sort((a, b) => a - b)
      .map((p) => ({
        point: p,
        values: points[p]!,
        metrics: spreads(byPoint.get(p)!.map((r) => r.metrics)),
      })),
  };
}

/**
 * Shards of one sweep merged into the result of the whole: the same scenario text, parameters and
 * seeds, every run exactly once. `named` pairs each result with the file it came from, for errors.
 */
export function mergeSweeps(named: { file: string; result: unknown }[]): SweepResult {
  if (!named.length) throw new SweepError('nothing to merge');
  const results = named.map(({ file, result }) => {
    const r = result as Partial<SweepResult>;
    if (!r || r.kind !== 'SweepResult' || r.version !== 1 || !Array.isArray(r.runs))
      throw new SweepError(
        `${file}: not a sweep result (kubesim sweep … -o json; kind SweepResult, version 1)`,
      );
    return { file, r: r as SweepResult };
  });
  const first = results[0]!;
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  for (const { file, r } of results.slice(1)) {
    for (const k of ['scenarioDigest', 'parameters', 'seeds', 'totalRuns'] as const)
      if (!same(r[k], first.r[k]))
        throw new SweepError(`${file}: ${k} differs from ${first.file}'s: not a shard of the same sweep`);
  }
  const seen = new Map<number, string>();
  const runs: SweepRunResult[] = [];
  for (const { file, r } of results)
    for (const run of r.runs) {
      if (seen.has(run.run))
        throw new SweepError(
          `${file}: run ${run.run} is also in ${seen.get(run.run)} (a shard given twice?)`,
        );
      seen.set(run.run, file);
      runs.push(run);
    }
  const total = first.r.totalRuns;
  const missing = shardRuns(total, null).filter((k) => !seen.has(k));
  if (missing.length) {
    const count = first.r.shard?.count;
    const shards = count ? [...new Set(missing.map((k) => k % count))].map((i) => `${i}/${count}`) : [];
    throw new SweepError(
      `${missing.length} of ${total} runs missing${shards.length ? ` (shards ${shards.join(', ')})` : ''}: merge every shard's result`,
    );
  }
  runs.sort((a, b) => a.run - b.run);
  const { scenario, source, scenarioDigest, parameters, seeds } = first.r;
  return assemble(
    { scenario, source, scenarioDigest, parameters, seeds, shard: null, totalRuns: total },
    runs,
  );
}

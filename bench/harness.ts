/**
 * The benchmark harness behind `kubesim bench`: suites (one file each under bench/) record
 * results through a {@link BenchRecorder}; the CLI prints them side by side, writes versioned JSON,
 * and compares against a baseline. Timing uses tinybench (warm-up, p50/p99, margin of error).
 *
 * A suite measures with {@link BenchRecorder.measure} (timed) and records plain figures such as
 * rule counts or bytes with {@link BenchRecorder.figure}. Failures are data (state 'errored' or
 * 'skipped' with the reason), never a crash of the whole run.
 */
import { Bench } from 'tinybench';
import os from 'node:os';

export const BENCH_SCHEMA = 'kubesim-bench/v1';

/**
 * The unit of a row that is the ratio of two rows measured side by side in one run
 * ({@link BenchRecorder.ratio}): a baseline compares it without the machine factor.
 */
export const RATIO_UNIT = 'ratio';

/** Options every suite receives. `args` holds the suite's own options (see {@link BenchSuite.options}). */
export interface BenchOptions {
  /** sizes to sweep (nodes, services…); the suite's defaults when absent */
  sizes?: number[];
  /** a short run for CI and smoke tests: fewer sizes, shorter time budgets */
  quick: boolean;
  /** time budget per timed task in ms (tinybench `time`) */
  timeMs: number;
  seed: number;
  /** suite-specific options, by long flag name without dashes (e.g. services, endpoints, modes) */
  args: Record<string, string | boolean | undefined>;
  /** progress line (stderr), e.g. "wasm 5000 nodes", with the size being measured when there is one */
  progress(message: string, size?: number): void;
}

/** One row of a report. `id` is stable across runs and is what baselines match on. */
export interface BenchResult {
  id: string;
  suite: string;
  /** what is measured, e.g. "put", "filter+score", "render full" */
  name: string;
  /** the side-by-side dimension: js | wasm | pool, iptables | ipvs | nftables, memory | etcd */
  mode?: string;
  /** the scaling dimension (nodes, services, watchers …) and its unit */
  size?: number;
  sizeUnit?: string;
  state: 'completed' | 'errored' | 'skipped';
  /** work units per second (units per iteration / mean iteration time) */
  throughput?: number;
  unit?: string;
  /** iteration latency in ms */
  latency?: { mean: number; p50: number; p75: number; p99: number; p999: number; min: number; max: number };
  /** relative margin of error of the mean latency, percent */
  rme?: number;
  samples?: number;
  /** non-timed figures: rules, bytes, rules traversed per packet … */
  figures?: Record<string, number>;
  error?: string;
  reason?: string;
}

export interface BenchReport {
  schema: typeof BENCH_SCHEMA;
  suite: string;
  startedAt: string;
  durationMs: number;
  machine: MachineInfo;
  options: { sizes?: number[]; quick: boolean; timeMs: number; seed: number; args: BenchOptions['args'] };
  results: BenchResult[];
  notes: string[];
}

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  platform: string;
}

export interface SuiteOption {
  /** commander flags, e.g. "--services <list>" */
  flags: string;
  description: string;
  default?: string;
}

/**
 * A chart that answers the suite's question (not only "how fast is kubesim"): one value per result
 * of one measurement, a line per series against size.
 */
export interface BenchChart {
  title: string;
  measurement: string;
  yLabel: string;
  value(r: BenchResult): number | undefined;
  /** the series a result belongs to (default: its mode); the first result per (series, size) wins */
  series?(r: BenchResult): string;
  /** the value is timed: results with a large margin of error are flagged */
  timed?: boolean;
}

export interface BenchSuite {
  name: string;
  description: string;
  /** what `size` means in this suite (nodes, services …) */
  sizeUnit: string;
  defaultSizes: number[];
  quickSizes: number[];
  options?: SuiteOption[];
  /**
   * Suite options for `kubesim bench all` (by camelCase name, as commander names them), e.g. a
   * smaller real-tool sweep so that the whole run stays within its time budget.
   */
  allArgs?: BenchOptions['args'];
  /** charts the HTML report draws before the generic throughput charts */
  charts?: BenchChart[];
  run(opts: BenchOptions, rec: BenchRecorder): Promise<void>;
}

export interface MeasureOptions {
  mode?: string;
  size?: number;
  /** work units done by one call of fn (e.g. 1000 puts), for throughput */
  units?: number;
  unit?: string;
  /** override the time budget for this task */
  timeMs?: number;
  /** minimum iterations (tinybench `iterations`) */
  iterations?: number;
  /** extra figures to attach */
  figures?: Record<string, number>;
  setup?: () => void | Promise<void>;
  /** what `size` counts in this row when not the suite's {@link BenchSuite.sizeUnit} (e.g. replicas) */
  sizeUnit?: string;
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpus: os.availableParallelism?.() ?? cpus.length,
    cpuModel: cpus[0]?.model?.trim() ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

function resultId(suite: string, name: string, mode?: string, size?: number): string {
  return [suite, name, mode ?? '-', size ?? '-'].join('|');
}

/** Collects a suite's results. */
export class BenchRecorder {
  readonly results: BenchResult[] = [];
  readonly notes: string[] = [];

  constructor(
    readonly suite: BenchSuite,
    readonly opts: BenchOptions,
  ) {}

  /** Times fn with tinybench (warm-up included) and records throughput and latency percentiles. */
  async measure(
    name: string,
    fn: () => unknown | Promise<unknown>,
    o: MeasureOptions = {},
  ): Promise<BenchResult> {
    const label = [name, o.mode, o.size !== undefined ? `${o.size} ${this.suite.sizeUnit}` : '']
      .filter(Boolean)
      .join(' ');
    this.opts.progress(label, o.size);
    const base = this.base(name, o);
    try {
      if (o.setup) await o.setup();
      const bench = new Bench({
        time: o.timeMs ?? this.opts.timeMs,
        iterations: o.iterations ?? (this.opts.quick ? 3 : 10),
        warmup: true,
        warmupTime: Math.min(250, (o.timeMs ?? this.opts.timeMs) / 4),
        warmupIterations: this.opts.quick ? 1 : 3,
        throws: false,
      });
      bench.add(label, fn);
      await bench.run();
      const r = bench.tasks[0].result;
      if (r.state === 'errored') return this.push({ ...base, state: 'errored', error: errorText(r.error) });
      if (r.state !== 'completed')
        return this.push({ ...base, state: 'errored', error: `task ended in state ${r.state}` });
      const l = r.latency;
      const units = o.units ?? 1;
      return this.push({
        ...base,
        state: 'completed',
        throughput: l.mean > 0 ? (units * 1000) / l.mean : Infinity,
        unit: o.unit ?? 'ops',
        latency: { mean: l.mean, p50: l.p50, p75: l.p75, p99: l.p99, p999: l.p999, min: l.min, max: l.max },
        rme: l.rme,
        samples: l.samplesCount,
        figures: o.figures,
      });
    } catch (err) {
      return this.push({ ...base, state: 'errored', error: errorText(err) });
    }
  }

  /** Records non-timed figures (counts, bytes, a one-shot wall time) as a completed row. */
  figure(
    name: string,
    figures: Record<string, number>,
    o: Omit<MeasureOptions, 'figures'> = {},
  ): BenchResult {
    return this.push({ ...this.base(name, o), state: 'completed', figures });
  }

  /**
   * Records one wall-clock timing taken by the suite itself (one long run, or a checkpoint inside
   * one: a plan's time to its first N replicas) as a completed row with a single sample, so that
   * throughput, ratios and the growth fit treat it like a measured row.
   */
  timing(
    name: string,
    wallMs: number,
    o: Omit<MeasureOptions, 'setup' | 'timeMs' | 'iterations'> = {},
  ): BenchResult {
    const units = o.units ?? 1;
    return this.push({
      ...this.base(name, o),
      state: 'completed',
      throughput: wallMs > 0 ? (units * 1000) / wallMs : Infinity,
      unit: o.unit ?? 'ops',
      latency: {
        mean: wallMs,
        p50: wallMs,
        p75: wallMs,
        p99: wallMs,
        p999: wallMs,
        min: wallMs,
        max: wallMs,
      },
      rme: 0,
      samples: 1,
      figures: o.figures,
    });
  }

  /**
   * Records `num` ÷ `den` (two completed rows of this run, e.g. contained ÷ trusted) as a row of
   * unit {@link RATIO_UNIT}; its margin of error is the sum of theirs (noisy when either is).
   */
  ratio(
    name: string,
    num: BenchResult,
    den: BenchResult,
    o: Omit<MeasureOptions, 'figures'> = {},
  ): BenchResult {
    if (num.throughput === undefined || !(den.throughput! > 0))
      return this.push({ ...this.base(name, o), state: 'skipped', reason: 'a side did not complete' });
    return this.push({
      ...this.base(name, o),
      state: 'completed',
      throughput: num.throughput / den.throughput!,
      unit: RATIO_UNIT,
      rme: (num.rme ?? 0) + (den.rme ?? 0),
      samples: Math.min(num.samples ?? 0, den.samples ?? 0),
    });
  }

  /** Records that a measurement could not run here, with the reason (e.g. "etcd not installed"). */
  skip(name: string, reason: string, o: Omit<MeasureOptions, 'figures'> = {}): BenchResult {
    this.opts.progress(`skip ${name}: ${reason}`, o.size);
    return this.push({ ...this.base(name, o), state: 'skipped', reason });
  }

  note(text: string): void {
    this.notes.push(text);
  }

  private base(name: string, o: { mode?: string; size?: number; sizeUnit?: string }): BenchResult {
    return {
      id: resultId(this.suite.name, name, o.mode, o.size),
      suite: this.suite.name,
      name,
      mode: o.mode,
      size: o.size,
      sizeUnit: o.size !== undefined ? (o.sizeUnit ?? this.suite.sizeUnit) : undefined,
      state: 'completed',
    };
  }

  private push(r: BenchResult): BenchResult {
    const i = this.results.findIndex((x) => x.id === r.id);
    if (i >= 0) this.results[i] = r;
    else this.results.push(r);
    return r;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Runs one suite and returns its versioned report. */
export async function runSuite(suite: BenchSuite, opts: BenchOptions): Promise<BenchReport> {
  const started = Date.now();
  const rec = new BenchRecorder(suite, opts);
  try {
    await suite.run(opts, rec);
  } catch (err) {
    rec.results.push({
      id: resultId(suite.name, 'suite', undefined, undefined),
      suite: suite.name,
      name: 'suite',
      state: 'errored',
      error: errorText(err),
    });
  }
  return {
    schema: BENCH_SCHEMA,
    suite: suite.name,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    machine: machineInfo(),
    options: { sizes: opts.sizes, quick: opts.quick, timeMs: opts.timeMs, seed: opts.seed, args: opts.args },
    results: rec.results,
    notes: rec.notes,
  };
}

/** commander's attribute name of a flag: "--real-tools-max <n>" → realToolsMax, "--no-etcd" → etcd */
export function optionAttribute(flags: string): string {
  const long = flags.split(/[ ,|]+/).find((f) => f.startsWith('--')) ?? flags;
  return long.replace(/^--(no-)?/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The arguments a suite runs with under `bench all`: its declared defaults, then its allArgs. */
export function defaultArgs(suite: BenchSuite): BenchOptions['args'] {
  const args: BenchOptions['args'] = {};
  for (const o of suite.options ?? []) {
    const name = optionAttribute(o.flags);
    if (o.default !== undefined) args[name] = o.default;
    else if (/^--no-/.test(o.flags.trim())) args[name] = true; // a --no-x flag defaults x to true
  }
  return { ...args, ...(suite.allArgs ?? {}) };
}

/** Parses "1000,5000,10k" into numbers (k = 1000). */
export function parseSizes(list: string): number[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const m = /^(\d+(?:\.\d+)?)(k)?$/i.exec(s);
      if (!m) throw new Error(`invalid size "${s}" (expected numbers like 1000,5000 or 10k)`);
      return Math.round(Number(m[1]) * (m[2] ? 1000 : 1));
    });
}

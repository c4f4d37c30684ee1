/**
 * `kubesim bench watch`: watch fan-out over HTTP, as kube-apiserver's clients meet it. An
 * ApiServer over the in-memory store behind `startHttpServer`; W raw HTTP watchers on ConfigMaps
 * from one resourceVersion, in child processes of their own (bench/watch-client.ts: one per CPU),
 * and 20 writers creating and then updating ConfigMaps over HTTP for a fixed time, in one more
 * child process, so that the server process's CPU time is the server's alone. Per size (watchers):
 * writes/s, delivery latency (write sent → event read by a watcher, p50/p99), the CPU time of the
 * server process and of the watchers, the load average, and the lost / duplicated / out-of-order events
 * summed over all watchers, which must be 0 (the run fails otherwise). Four modes side by side:
 * `per-watcher` (each watcher encodes each event and writes it on its own), `shared` (each event
 * encoded once, its bytes shared, but written per event), `batched` (shared bytes, each watcher's
 * events of one event-loop turn written at once; each watcher still has a store watch of its own),
 * `cached` (batched, and one store watch per resource feeding every watcher: watch-cache.ts — the
 * server's default).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { ApiServer } from '../src/api/apiserver.js';
import { startHttpServer } from '../src/server/http.js';
import { MemoryStore } from '../src/store/memory/store.js';
import type { BenchOptions, BenchRecorder, BenchSuite } from './harness.js';
import type { ClientReport, WriterReport } from './watch-client.js';

const WRITERS = 20;
const MODES = {
  'per-watcher': { shareEncoded: false, batchWrites: false, watchCache: false },
  shared: { shareEncoded: true, batchWrites: false, watchCache: false },
  batched: { shareEncoded: true, batchWrites: true, watchCache: false },
  cached: { shareEncoded: true, batchWrites: true, watchCache: true },
} as const;
type Mode = keyof typeof MODES;

/** a child process holding `count` watchers, started and ready */
async function clients(url: string, rv: string, count: number): Promise<ChildProcess> {
  const child = fork(new URL('./watch-client.js', import.meta.url), [], { serialization: 'advanced' });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`watch client exited (${code}) before it was ready`)));
    child.send({ start: { url, rv, count } });
  });
  child.removeAllListeners('exit');
  return child;
}

/** send `message` to a watcher process and wait for its answer */
function ask<T>(child: ChildProcess, message: object): Promise<T> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) =>
      reject(new Error(`watch client exited (${code}) without a report`));
    child.once('exit', exited);
    child.once('message', (m) => {
      child.off('exit', exited);
      resolve(m as T);
    });
    child.send(message);
  });
}

async function fanout(
  watchers: number,
  mode: Mode,
  rate: number | undefined,
  opts: BenchOptions,
  rec: BenchRecorder,
): Promise<void> {
  const { watchCache, ...settings } = MODES[mode];
  const api = new ApiServer(new MemoryStore(), { seed: opts.seed });
  await api.bootstrapNamespaces();
  const srv = await startHttpServer({
    api,
    version: 'bench',
    watch: { minRequestTimeoutMs: 0, bookmarkEveryMs: 3_600_000, ...settings },
    watchCache,
  });
  const children: ChildProcess[] = [];
  let writer: ChildProcess | undefined;
  try {
    const rv = (await api.list('configmaps', { namespace: 'default' })).metadata.resourceVersion!;
    const procs = Math.min(watchers, Math.max(1, availableParallelism()));
    for (let i = 0; i < procs; i++)
      children.push(
        await clients(srv.url, rv, Math.floor(watchers / procs) + (i < watchers % procs ? 1 : 0)),
      );
    opts.progress(
      `${mode}: ${watchers} watchers, ${WRITERS} writers${rate ? ` at ${rate} writes/s` : ''}`,
      watchers,
    );
    const durationMs = opts.quick ? 2_000 : 10_000;
    const load0 = loadavg()[0]!;
    const cpu0 = process.cpuUsage();
    writer = fork(new URL('./watch-client.js', import.meta.url), [], { serialization: 'advanced' });
    const {
      writes,
      failed,
      ms: wallMs,
    } = await new Promise<WriterReport>((resolve, reject) => {
      writer!.once('message', (m) => resolve(m as WriterReport));
      writer!.once('exit', (code) => reject(new Error(`writer exited (${code}) without a report`)));
      writer!.send({ write: { url: srv.url, writers: WRITERS, durationMs, rate } });
    });
    const expected = writes - failed;
    const reports = await Promise.all(children.map((c) => ask<ClientReport>(c, { expect: expected })));
    // the server's CPU time ends here: receiving the latencies (MBs) is the bench's own cost
    const cpu = process.cpuUsage(cpu0);
    const lats = await Promise.all(children.map((c) => ask<Float64Array>(c, { latencies: true })));
    const sum = (f: (r: ClientReport) => number) => reports.reduce((a, r) => a + f(r), 0);
    const lost = sum((r) => r.lost);
    const duplicated = sum((r) => r.duplicated);
    const outOfOrder = sum((r) => r.outOfOrder);
    const latencies = new Float64Array(lats.reduce((n, l) => n + l.length, 0));
    let at = 0;
    for (const l of lats) latencies.set(l, (at += l.length) - l.length);
    latencies.sort();
    const pct = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
    const serverCpuMs = (cpu.user + cpu.system) / 1000;
    rec.timing('writes while watched', wallMs, {
      mode,
      size: watchers,
      units: writes,
      unit: 'writes',
      figures: {
        writers: WRITERS,
        // the paced rate asked for (0: back to back)
        rate: rate ?? 0,
        failedWrites: failed,
        lost,
        duplicated,
        outOfOrder,
        p50Ms: pct(0.5),
        p99Ms: pct(0.99),
        // CPU ms of the server process per write (writers and watchers run in child processes),
        // and of the watcher processes; the load average (1 min) when the run started
        serverCpuMsPerWrite: serverCpuMs / Math.max(1, writes),
        watcherCpuMs: sum((r) => r.cpuMs),
        load: load0,
      },
    });
    if (lost || duplicated || outOfOrder || failed)
      throw new Error(
        `${watchers} watchers: ${lost} lost, ${duplicated} duplicated, ${outOfOrder} out-of-order events, ${failed} failed writes`,
      );
  } finally {
    for (const c of children) c.kill();
    writer?.kill();
    await srv.close();
  }
}

export const suite: BenchSuite = {
  name: 'watch',
  description:
    'HTTP watch fan-out: W watchers × 20 writers on ConfigMaps; lost/duplicated/out-of-order must be 0',
  sizeUnit: 'watchers',
  defaultSizes: [100, 500],
  quickSizes: [50],
  options: [
    { flags: '--modes <list>', description: 'modes to compare', default: Object.keys(MODES).join(',') },
    {
      flags: '--rate <writes/s>',
      description:
        'pace the 20 writers to this many writes/s in all (open loop), so p50/p99 are the latency at that rate; default: back to back',
    },
  ],
  async run(opts, rec) {
    const modes = String(opts.args.modes ?? Object.keys(MODES).join(',')).split(',');
    for (const m of modes)
      if (!(m in MODES))
        throw new Error(`--modes: unknown mode "${m}" (expected ${Object.keys(MODES).join(', ')})`);
    const rate = opts.args.rate === undefined ? undefined : Number(opts.args.rate);
    if (rate !== undefined && !(Number.isFinite(rate) && rate > 0))
      throw new Error(`--rate: expected a positive number of writes per second, got "${opts.args.rate}"`);
    for (const w of opts.sizes ?? (opts.quick ? suite.quickSizes : suite.defaultSizes))
      for (const mode of modes as Mode[]) await fanout(w, mode, rate, opts, rec);
  },
};

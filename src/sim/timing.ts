/**
 * Where a run's wall time goes, measured by the tool itself. The simulation's components do not run
 * in call-and-return blocks that a timer could wrap: an ApiServer request or a controller's sync
 * resumes in a fresh microtask after every `await`, interleaved with the others. So the time is
 * sampled instead: V8's CPU sampler (the `node --cpu-prof` sampler, through node:inspector's
 * Profiler domain) records the running function every {@link SAMPLE_INTERVAL_US} µs, and each
 * interval is charged to a component by the file that function lives in. Built-ins and Node
 * internals (a Map lookup, a microtask trampoline) are charged to the nearest caller that has a
 * component, codec work to the side that asked for it (a write, a read, a watch event). The
 * components add up to the profiled wall time exactly, idle time and V8's garbage collector
 * included.
 *
 * The sampler's cost grows with the run: at 1 ms it was within the noise at `demo --nodes 1000`,
 * but 7–16 % of the CPU time of `demo --nodes 5000` (its event-processor thread alone ~5 %, and a
 * signal per sample); every 10 ms it costs about half of that (docs/bench/sim.md, issue 26), and a
 * run of a few seconds still gets hundreds of samples. Two simulations measured at once in one thread
 * would charge each other's samples, so only callers that run one simulation at a time ask for it
 * (the CLI's simulate and demo).
 */
import { Session } from 'node:inspector/promises';

/** sampling interval, µs (ten times node --cpu-prof's default: see the file comment) */
export const SAMPLE_INTERVAL_US = 10_000;

/**
 * The components, in report order. Files are matched on their path below src/ (or the package
 * name under node_modules), first match wins.
 */
export const COMPONENTS = [
  'api: encode (msgpackr)',
  'api: decode for requests',
  'watch fan-out: decode per watcher',
  'watch fan-out: hub and informers',
  'api: request handling (validation, admission, defaults)',
  'store (MVCC, index, txn)',
  'clients (rate limits, retries)',
  'controllers',
  'scheduler',
  'kubelets',
  'metrics observer',
  'simulation loop and clock',
  'garbage collection',
  'idle',
  'other (V8, Node internals)',
] as const;
export type Component = (typeof COMPONENTS)[number];

export interface Timing {
  /** wall time covered by the samples (set-up and run; not the report), ms */
  profiledMs: number;
  sampleIntervalMs: number;
  /** watch events handed to the simulation's clients per wall second */
  watchEventsPerSecond: number;
  /** API requests (retries included) per wall second */
  requestsPerSecond: number;
  /** wall ms per component; they add up to profiledMs */
  components: { name: Component; ms: number; percent: number }[];
  /** the controllers' share split by controller (the file it lives in), ms, largest first */
  controllers: { name: string; ms: number }[];
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** files whose functions only pass a decode through (decodeKv, the selector probes) */
const DECODE_HELPERS = /\/src\/api\/(apiserver-kv|probe-cache)\.js$/;

/** The component a function's own file belongs to; undefined to inherit the caller's. */
function componentOfUrl(
  url: string,
  functionName: string,
): Component | 'codec-pack' | 'codec-unpack' | undefined {
  if (!url) {
    if (functionName === '(garbage collector)') return 'garbage collection';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)' || functionName === '(root)') return 'other (V8, Node internals)';
    return undefined; // a built-in: its caller's
  }
  if (url.startsWith('node:')) return undefined;
  if (url.startsWith('wasm://')) return 'scheduler';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 14);
    if (rest.startsWith('msgpackr/')) return rest.includes('unpack') ? 'codec-unpack' : 'codec-pack';
    if (rest.startsWith('sorted-btree/')) return 'store (MVCC, index, txn)';
    return undefined;
  }
  const i = url.lastIndexOf('/src/');
  if (i < 0) return undefined;
  const p = url.slice(i + 5);
  if (p === 'api/codec.js')
    return functionName.includes('decode')
      ? 'codec-unpack'
      : functionName.includes('encode')
        ? 'codec-pack'
        : undefined;
  if (p === 'api/apiserver-watch.js' || p === 'client/informer.js' || p === 'client/factory.js')
    return 'watch fan-out: hub and informers';
  if (p === 'store/memory/watch-hub.js') return 'watch fan-out: hub and informers';
  if (p.startsWith('store/')) return 'store (MVCC, index, txn)';
  if (p.startsWith('api/')) return 'api: request handling (validation, admission, defaults)';
  if (p.startsWith('controllers/') || p === 'client/workqueue.js' || p === 'client/events.js')
    return 'controllers';
  if (p.startsWith('client/')) return 'clients (rate limits, retries)';
  if (p.startsWith('scheduler/') || p === 'sim/scheduler-bridge.js' || p === 'sim/standin-scheduler.js')
    return 'scheduler';
  if (p.startsWith('kubelet/')) return 'kubelets';
  if (p === 'sim/metrics.js') return 'metrics observer';
  // the autoscaler model runs inside the loop's ticks; counted with it as before it had a folder
  if (p.startsWith('sim/') || p.startsWith('autoscaler/') || p.startsWith('util/'))
    return 'simulation loop and clock';
  return undefined;
}

/** the controller a file under src/controllers names, or the shared client helpers */
function controllerOfUrl(url: string): string | undefined {
  const i = url.lastIndexOf('/src/');
  if (i < 0) return undefined;
  const p = url.slice(i + 5);
  if (p.startsWith('controllers/')) return p.slice(12).replace(/\.js$/, '');
  if (p === 'client/workqueue.js') return 'work queues';
  if (p === 'client/events.js') return 'event recorders';
  return undefined;
}

/**
 * Charge every sampled interval of a CPU profile to a component (see the file comment).
 * Codec frames go to the caller's side: under the watch path a decode is "per watcher", elsewhere
 * a decode serves a request; every encode is a write's.
 */
export function attribute(profile: Profile): {
  ms: Map<Component, number>;
  controllers: Map<string, number>;
  profiledMs: number;
} {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  /** the first caller above the codec and its readers: the watch path, or a request */
  const forWatch = (id: number | undefined): boolean => {
    for (; id !== undefined; id = parent.get(id)) {
      const cf = byId.get(id)!.callFrame;
      const own = componentOfUrl(cf.url, cf.functionName);
      if (own === undefined || own === 'codec-unpack' || own === 'codec-pack' || DECODE_HELPERS.test(cf.url))
        continue;
      return cf.url.endsWith('/api/apiserver-watch.js');
    }
    return false;
  };
  const memo = new Map<number, { c: Component; ctl?: string }>();
  const resolve = (id: number): { c: Component; ctl?: string } => {
    const hit = memo.get(id);
    if (hit) return hit;
    const n = byId.get(id)!;
    const own = componentOfUrl(n.callFrame.url, n.callFrame.functionName);
    const up = parent.get(id);
    let out: { c: Component; ctl?: string };
    if (own === 'codec-pack') out = { c: 'api: encode (msgpackr)' };
    else if (own === 'codec-unpack')
      out = { c: forWatch(up) ? 'watch fan-out: decode per watcher' : 'api: decode for requests' };
    else if (own) out = { c: own, ctl: own === 'controllers' ? controllerOfUrl(n.callFrame.url) : undefined };
    else out = up === undefined ? { c: 'other (V8, Node internals)' } : resolve(up);
    memo.set(id, out);
    return out;
  };
  const ms = new Map<Component, number>();
  const controllers = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // sample i covers [t_i, t_{i+1}); the last one runs to the profile's end
  let t = profile.startTime;
  const times: number[] = [];
  for (let i = 0; i < samples.length; i++) {
    t += deltas[i] ?? 0;
    times.push(t);
  }
  for (let i = 0; i < samples.length; i++) {
    const us = (i + 1 < samples.length ? times[i + 1] : profile.endTime) - times[i];
    if (us <= 0) continue;
    const r = resolve(samples[i]);
    ms.set(r.c, (ms.get(r.c) ?? 0) + us / 1000);
    if (r.c === 'controllers') {
      const k = r.ctl ?? 'other controller code';
      controllers.set(k, (controllers.get(k) ?? 0) + us / 1000);
    }
  }
  const first = samples.length ? times[0] : profile.endTime;
  return { ms, controllers, profiledMs: (profile.endTime - first) / 1000 };
}

/** A running measurement: {@link startTiming}, then `stop()` with the run's counters. */
export interface RunTimer {
  stop(counts: { watchEvents: number; requests: number }): Promise<Timing>;
}

/** Start sampling this thread (see the file comment). */
export async function startTiming(): Promise<RunTimer> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: SAMPLE_INTERVAL_US });
  await session.post('Profiler.start');
  return {
    async stop(counts) {
      let profile: Profile;
      try {
        profile = (await session.post('Profiler.stop')).profile as Profile;
      } finally {
        session.disconnect();
      }
      const { ms, controllers, profiledMs } = attribute(profile);
      const round = (x: number) => Math.round(x * 10) / 10;
      const s = Math.max(1e-3, profiledMs / 1000);
      return {
        profiledMs: round(profiledMs),
        sampleIntervalMs: SAMPLE_INTERVAL_US / 1000,
        watchEventsPerSecond: Math.round(counts.watchEvents / s),
        requestsPerSecond: Math.round(counts.requests / s),
        components: COMPONENTS.map((name) => ({
          name,
          ms: round(ms.get(name) ?? 0),
          percent: round((100 * (ms.get(name) ?? 0)) / Math.max(1e-9, profiledMs)),
        })),
        controllers: [...controllers]
          .map(([name, v]) => ({ name, ms: round(v) }))
          .sort((a, b) => b.ms - a.ms || (a.name < b.name ? -1 : 1)),
      };
    },
  };
}

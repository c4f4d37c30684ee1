/**
 * What a simulation run reports (SimulationResult) and how the state at the end of a run becomes
 * it: pod counts and latencies, API and client figures, evictions, node lifecycle, drains, events.
 * simulation.ts hands over the components' counters as plain data (RunRecord), so this module reads
 * no component and the figures have one home.
 */
import type { FlowControlStats } from '../api/flowcontrol.js';
import type { AutoscalerResult } from '../autoscaler/cluster-autoscaler.js';
import { type ClientStats, LatencyHistogram } from '../client/server-client.js';
import type { EvictionRecord } from '../controllers/taint-eviction.js';
import type { KubeletEvictionRecord } from '../kubelet/eviction-manager.js';
import type { LoadedUserPlugin } from '../scheduler/plugins/user.js';
import type { SchedulerConfig } from '../scheduler/config.js';
import type { KvStore } from '../store/types.js';
import type { DrainRecord } from './drain.js';
import { type Observer, percentile, type Series } from './metrics.js';
import type { Scenario } from './scenario-types.js';
import type { Timing } from './timing.js';

export interface EventRow {
  lastSeen: number;
  type: string;
  reason: string;
  object: string;
  message: string;
  count: number;
}

export interface SimulationResult {
  scenario: string;
  seed: number;
  nodes: number;
  durationS: number;
  wallMs: number;
  simSecondsPerWallSecond: number;
  scheduler: string;
  /** created/scheduled/ready count pods created during the run (not the snapshot's running pods) */
  pods: { created: number; scheduled: number; ready: number; pendingAtEnd: number; runningAtEnd: number };
  startupLatencyMs: { count: number; p50: number; p90: number; p99: number; max: number };
  /** sorted start-up latencies (ms), down-sampled to at most 2,000 quantiles, for histograms */
  startupLatencySamplesMs: number[];
  schedulingLatencyMs: { count: number; p50: number; p99: number };
  schedulingThroughput: { peakPodsPerSecond: number; meanPodsPerSecondWhileBusy: number };
  api: {
    requests: number;
    tooManyRequests: number;
    retries: number;
    failedAfterRetries: number;
    /** requests that waited for their client's QPS/burst token bucket, and the total wait (s) */
    clientThrottled: number;
    clientThrottledWaitS: number;
    peakMutatingInflight: number;
    peakInflight: number;
    /** successful calls as their callers saw them (service time, 429 waits, retries), ms */
    latencyP50Ms: number;
    latencyP99Ms: number;
  };
  evictions: {
    count: number;
    firstAtS: number | null;
    records: { atS: number; pod: string; node: string }[];
  };
  /** node-pressure evictions by the kubelets (settings.kubelet / usage:), in order */
  kubeletEvictions: {
    count: number;
    records: { atS: number; pod: string; node: string; signal: string; qosClass: string }[];
  };
  nodeLifecycle: { markedUnknown: number; noExecuteTainted: number; podsMarkedNotReady: number };
  /** pods the scheduler's DefaultPreemption made room for (victims evicted, node nominated) */
  preemptions: number;
  timeline: { atS: number; label: string; convergedAfterS: number | null; error?: string }[];
  deployments: {
    name: string;
    replicas: number;
    updated: number;
    ready: number;
    available: number;
    revision: string;
  }[];
  pendingReasons: { message: string; pods: number }[];
  series: Series;
  events: EventRow[];
  relists: number;
  /** with leader election: who started leading when */
  leaders: { atS: number; component: string; identity: string }[];
  /** drain actions: pods evicted, budget refusals (each a 5 s wait), when the node was empty */
  drains: {
    node: string;
    atS: number;
    pods: number;
    evicted: number;
    refusals: number;
    lastEvictionAtS: number | null;
    doneAtS: number | null;
    error?: string;
  }[];
  /** with `autoscaler:` in the scenario: the cluster-autoscaler's decisions, nodes and cost */
  autoscaler?: AutoscalerResult;
  /** with RunOptions.timing: where the wall time went, per component, and events per second (timing.ts) */
  timing?: Timing;
}

export interface RunOptions {
  /**
   * user plugins, loaded (scheduler/plugins/user.ts loadUserPlugin), added to every profile of the
   * real scheduler: score plugins with their weight, filter plugins as filters. Default: the
   * scenario's settings.plugins, loaded contained here and closed at the end of the run (a
   * plugin failure then ends the run with its error). Plugins handed over stay open: the caller
   * closes them and reads their failures.
   */
  plugins?: LoadedUserPlugin[];
  /** the KubeSchedulerConfiguration of the real scheduler, in place of settings.schedulerConfig */
  schedulerConfig?: SchedulerConfig;
  /** called after each sample with the virtual time reached (ms since start) */
  onProgress?: (elapsedMs: number, totalMs: number) => void;
  /** override the scenario's seed */
  seed?: number;
  /** keep the events of the run (kubectl get events); default true */
  collectEvents?: boolean;
  /** virtual start time, ms since the epoch (default 2026-01-01T00:00:00Z) */
  startMs?: number;
  /** run no scheduler, so an outside one binds the pods (default false) */
  noScheduler?: boolean;
  /**
   * the store of the run in place of a fresh in-memory one (`kubesim serve --etcd-servers`: an
   * EtcdStore); the caller closes it (and compacts it: server/etcd-compactor.ts). The loop does
   * not settle it between steps.
   */
  store?: KvStore;
  /** the store already holds the cluster (a restarted `serve`): create none of the scenario's objects */
  resume?: boolean;
  /**
   * set up the cluster's objects but start no component (controllers, scheduler, kubelet model,
   * observer, autoscaler, timeline) until {@link Simulation.startComponents}: a `serve` that is not
   * the elected leader of several over one etcd serves the API only
   */
  standby?: boolean;
  /**
   * sample where the wall time goes (timing.ts) into the result's `timing`; only for one
   * simulation at a time in a thread (default false)
   */
  timing?: boolean;
  /**
   * elide the kubelets' Lease renewals no one can tell from not sending them (kubelet/lease-elision.ts)
   * when the scenario allows it exactly (no request or watch latency, no timeline action on Leases);
   * {@link Simulation.run} then writes each Lease's last renewal before it returns. Default true;
   * false writes every renewal (the same outputs, more work)
   */
  elideLeaseRenewals?: boolean;
}

/** The state at the end of a run, as {@link summarize} reads it (simulation.ts gathers it). */
export interface RunRecord {
  scenario: Scenario;
  seed: number;
  /** the virtual clock's start, ms since the epoch */
  startMs: number;
  wallMs: number;
  collectEvents: boolean;
  observer: Observer;
  flowControl: FlowControlStats;
  /** every ApiServer client's counters */
  clients: ClientStats[];
  /** NoExecute evictions of every controller-manager instance */
  taintEvictions: EvictionRecord[];
  /** the node lifecycle controller's counters, per controller-manager instance */
  nodeLifecycle: { markedUnknown: number; noExecuteTainted: number; podsMarkedNotReady: number }[];
  relists: number;
  preemptions: number;
  kubeletEvictions: readonly KubeletEvictionRecord[];
  leaders: readonly { atMs: number; component: string; identity: string }[];
  timeline: SimulationResult['timeline'];
  drains: readonly DrainRecord[];
  nodes: number;
  scheduler: string;
  autoscaler?: AutoscalerResult;
}

/** The result of a run from the state at its end (read at the instant the run ended). */
export function summarize(run: RunRecord): SimulationResult {
  const sc = run.scenario;
  const o = run.observer;
  const startMs = run.startMs;
  const { startup, scheduling } = o.latencies();
  const series = o.series;
  const busy = series.bindRate.filter((r) => r > 0);
  let created = 0,
    scheduled = 0,
    ready = 0;
  for (const t of o.times.values()) {
    if (t.preexisting) continue;
    created++;
    if (t.scheduled !== undefined) scheduled++;
    if (t.ready !== undefined) ready++;
  }
  const pods = o.pods.list();
  const pendingMsgs = new Map<string, number>();
  let pendingAtEnd = 0,
    runningAtEnd = 0;
  for (const p of pods) {
    if (p.metadata.deletionTimestamp) continue;
    if (!p.spec.nodeName) {
      pendingAtEnd++;
      const c = p.status?.conditions?.find((x) => x.type === 'PodScheduled' && x.status === 'False');
      const m = c?.message ?? '(not yet attempted)';
      pendingMsgs.set(m, (pendingMsgs.get(m) ?? 0) + 1);
    } else if (p.status?.phase === 'Running') runningAtEnd++;
  }
  const fc = run.flowControl;
  const latency = new LatencyHistogram();
  let requests = 0,
    tmr = 0,
    retries = 0,
    failedAfter = 0,
    waits = 0,
    waitMs = 0;
  for (const c of run.clients) {
    waits += c.clientWaits;
    waitMs += c.clientWaitMs;
    requests += c.requests;
    tmr += c.tooManyRequests;
    retries += c.retries;
    failedAfter += c.failedAfterRetries;
    latency.addAll(c.latency);
  }
  const ev = [...run.taintEvictions].sort((a, b) => a.atMs - b.atMs);
  const nlc = (k: 'markedUnknown' | 'noExecuteTainted' | 'podsMarkedNotReady') =>
    run.nodeLifecycle.reduce((n, s) => n + s[k], 0);
  const events: EventRow[] = !run.collectEvents
    ? []
    : o.events
        .list()
        .map((e) => ({
          lastSeen: (Date.parse(e.lastTimestamp ?? e.firstTimestamp ?? '') - startMs) / 1000,
          type: e.type ?? 'Normal',
          reason: e.reason ?? '',
          object: `${(e.involvedObject.kind ?? '').toLowerCase()}/${e.involvedObject.name}`,
          message: e.message ?? '',
          count: e.count ?? 1,
        }))
        .sort((a, b) => a.lastSeen - b.lastSeen || (a.object < b.object ? -1 : a.object > b.object ? 1 : 0));
  const r = (x: number) => Math.round(x);
  return {
    scenario: sc.name,
    seed: run.seed,
    nodes: run.nodes,
    durationS: sc.durationMs / 1000,
    wallMs: r(run.wallMs),
    simSecondsPerWallSecond: Math.round((sc.durationMs / Math.max(1, run.wallMs)) * 10) / 10,
    scheduler: run.scheduler,
    pods: { created, scheduled, ready, pendingAtEnd, runningAtEnd },
    startupLatencyMs: {
      count: startup.length,
      p50: r(percentile(startup, 50)),
      p90: r(percentile(startup, 90)),
      p99: r(percentile(startup, 99)),
      max: r(startup[startup.length - 1] ?? NaN),
    },
    startupLatencySamplesMs: downsample(startup, 2000).map(r),
    schedulingLatencyMs: {
      count: scheduling.length,
      p50: r(percentile(scheduling, 50)),
      p99: r(percentile(scheduling, 99)),
    },
    schedulingThroughput: {
      peakPodsPerSecond: Math.round(Math.max(0, ...series.bindRate) * 10) / 10,
      meanPodsPerSecondWhileBusy: busy.length
        ? Math.round((busy.reduce((a, b) => a + b, 0) / busy.length) * 10) / 10
        : 0,
    },
    api: {
      requests,
      tooManyRequests: tmr,
      retries,
      failedAfterRetries: failedAfter,
      clientThrottled: waits,
      clientThrottledWaitS: Math.round(waitMs) / 1000,
      peakMutatingInflight: fc.peakInflightMutating,
      peakInflight: fc.peakInflight,
      latencyP50Ms: Math.round(latency.percentile(50) * 100) / 100,
      latencyP99Ms: Math.round(latency.percentile(99) * 100) / 100,
    },
    evictions: {
      count: ev.length,
      firstAtS: ev.length ? (ev[0].atMs - startMs) / 1000 : null,
      records: ev.map((e) => ({ atS: (e.atMs - startMs) / 1000, pod: e.pod, node: e.node })),
    },
    preemptions: run.preemptions,
    kubeletEvictions: {
      count: run.kubeletEvictions.length,
      records: run.kubeletEvictions.map((e) => ({
        atS: (e.atMs - startMs) / 1000,
        pod: e.pod,
        node: e.node,
        signal: e.signal,
        qosClass: e.qosClass,
      })),
    },
    nodeLifecycle: {
      markedUnknown: nlc('markedUnknown'),
      noExecuteTainted: nlc('noExecuteTainted'),
      podsMarkedNotReady: nlc('podsMarkedNotReady'),
    },
    leaders: run.leaders.map((l) => ({
      atS: (l.atMs - startMs) / 1000,
      component: l.component,
      identity: l.identity,
    })),
    timeline: run.timeline,
    drains: run.drains.map((d) => {
      const rel = (ms: number | undefined) => (ms === undefined ? null : (ms - startMs) / 1000);
      const times = Object.values(d.evictedAt);
      return {
        node: d.node,
        atS: (d.startMs - startMs) / 1000,
        pods: d.pods,
        evicted: d.evicted,
        refusals: d.refusals,
        lastEvictionAtS: times.length ? rel(Math.max(...times)) : null,
        doneAtS: rel(d.doneMs),
        error: d.error,
      };
    }),
    deployments: o.deployments
      .list()
      .map((d) => ({
        name: `${d.metadata.namespace}/${d.metadata.name}`,
        replicas: d.spec.replicas ?? 1,
        updated: d.status?.updatedReplicas ?? 0,
        ready: d.status?.readyReplicas ?? 0,
        available: d.status?.availableReplicas ?? 0,
        revision: d.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? '',
      }))
      .sort((a, b) => (a.name < b.name ? -1 : 1)),
    pendingReasons: [...pendingMsgs]
      .map(([message, n]) => ({ message, pods: n }))
      .sort((a, b) => b.pods - a.pods),
    series,
    events,
    relists: run.relists,
    ...(run.autoscaler ? { autoscaler: run.autoscaler } : {}),
  };
}

/** at most n evenly spaced elements of a sorted array (keeps its distribution) */
function downsample(sorted: number[], n: number): number[] {
  if (sorted.length <= n) return sorted;
  return Array.from({ length: n }, (_, i) => sorted[Math.floor((i * (sorted.length - 1)) / (n - 1))]);
}

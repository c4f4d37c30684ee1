/**
 * The simulation's observer: like a monitoring agent, it learns everything from its own watches
 * on the ApiServer (pods, nodes, deployments, events) and samples the cluster's state over virtual
 * time. Pod start-up latency is creation → first observed Ready (the upstream pod-startup SLI
 * measures to Running-and-observed; Ready includes the readiness probe).
 */
import type { Deployment, Event, Node, Pod } from '../api/types.js';
import { OBJECT_KEY } from '../api/keys.js';
import { keyOf } from '../client/api.js';
import type { InformerFactory } from '../client/factory.js';
import type { Informer } from '../client/informer.js';
import { isPodReady } from '../controllers/pod-util.js';
import { nodeAllocatable } from '../scheduler/engine/resources.js';
import { type PodCounts, PodFactsCache, PodTally, scanPods } from './pod-tally.js';
import type { Clock } from '../util/clock.js';

export interface Series {
  /** virtual seconds since the start */
  t: number[];
  pending: number[];
  running: number[];
  ready: number[];
  terminating: number[];
  nodesReady: number[];
  nodesNotReady: number[];
  /** pods bound per second over the last sample interval */
  bindRate: number[];
  /** 429 answers per sample interval */
  throttled: number[];
  /**
   * nodes that run at least one pod that is neither finished nor a DaemonSet's (what the cluster
   * autoscaler does not count as empty)
   */
  nodesUsed: number[];
  /** CPU requested / allocatable over the used nodes, percent: mean and standard deviation */
  cpuUtilization: number[];
  cpuUtilizationStddev: number[];
}

/**
 * When the observer saw a pod created, bound and Ready, in ms since the run's start (small integers:
 * V8 keeps them in the object, where absolute epoch milliseconds would be a heap number each), all
 * fields set at construction (one object shape, no out-of-object property array): at the scale
 * envelope there is one per pod.
 */
export class PodTimes {
  scheduled: number | undefined = undefined;
  ready: number | undefined = undefined;
  constructor(
    readonly created: number,
    /** already bound when first seen (snapshot / generated running pods): not a start-up */
    readonly preexisting: boolean,
  ) {}
}

/**
 * the fields of an Event the report reads (kubectl get events' columns), and the informer's key and
 * resourceVersion; the copy keeps the shared decode's key string (src/api/keys.ts OBJECT_KEY)
 * instead of making one more per Event
 */
function slimEvent(e: Event): Event {
  const m = e.metadata;
  const slim: Event = {
    apiVersion: e.apiVersion,
    kind: e.kind,
    metadata: { name: m.name, namespace: m.namespace, resourceVersion: m.resourceVersion },
    involvedObject: { kind: e.involvedObject.kind, name: e.involvedObject.name },
    reason: e.reason,
    message: e.message,
    type: e.type,
    count: e.count,
    firstTimestamp: e.firstTimestamp,
    lastTimestamp: e.lastTimestamp,
  };
  Object.defineProperty(slim, OBJECT_KEY, { value: keyOf(e) });
  return slim;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

/** what {@link Observer.sample} reads of one node object */
interface SampledNode {
  readonly name: string;
  readonly ready: boolean;
  /** allocatable milli-CPU (read the first time a pod counts on the node) */
  alloc?: number;
}

export class Observer {
  readonly pods: Informer<Pod>;
  readonly nodes: Informer<Node>;
  readonly deployments: Informer<Deployment>;
  readonly events: Informer<Event>;
  /** by pod uid (unique per object, as namespace/name/uid was; the string the pod already holds) */
  readonly times = new Map<string, PodTimes>();
  readonly series: Series = {
    t: [],
    pending: [],
    running: [],
    ready: [],
    terminating: [],
    nodesReady: [],
    nodesNotReady: [],
    bindRate: [],
    throttled: [],
    nodesUsed: [],
    cpuUtilization: [],
    cpuUtilizationStddev: [],
  };
  /** what a sample reads of a pod, per pod object (informer objects are replaced, never changed) */
  private readonly podFacts = new PodFactsCache();
  /** the same figures kept from the pod events (undefined: every sample walks the pods) */
  private readonly tally?: PodTally;
  /** what a sample reads of a node, per node object */
  private readonly nodeFacts = new WeakMap<Node, SampledNode>();
  bound = 0;
  private lastBound = 0;
  private lastThrottled = 0;
  private lastSampleMs: number;

  constructor(
    informers: InformerFactory,
    private readonly clock: Clock,
    readonly startMs: number,
    private readonly sampleEveryMs = 5000,
    /** keep the pods' figures from their events rather than walking every pod per sample */
    incremental = true,
  ) {
    this.lastSampleMs = startMs;
    this.pods = informers.for<Pod>('pods');
    this.nodes = informers.for<Node>('nodes');
    this.deployments = informers.for<Deployment>('deployments');
    this.events = informers.for<Event>('events');
    // every Event of the run stays in this cache: keep only what the report reads
    this.events.setTransform(slimEvent);
    const see = (p: Pod) => {
      const k = p.metadata.uid ?? `${keyOf(p)}/`;
      let t = this.times.get(k);
      const now = this.clock.now() - this.startMs;
      if (!t) this.times.set(k, (t = new PodTimes(now, !!p.spec.nodeName && this.firstSeen(p))));
      if (p.spec.nodeName && t.scheduled === undefined) {
        t.scheduled = now;
        if (!t.preexisting) this.bound++;
      }
      if (t.ready === undefined && isPodReady(p)) t.ready = now;
    };
    this.pods.addEventHandler({ onAdd: see, onUpdate: (_o, p) => see(p) });
    if (incremental) {
      const tally = new PodTally(this.podFacts);
      this.tally = tally;
      this.pods.addEventHandler({
        onAdd: (p) => tally.added(p),
        onUpdate: (o, p) => tally.updated(o, p),
        onDelete: (p) => tally.deleted(p),
      });
    }
  }

  /** the pods' figures now: from the tally, or from a walk over every pod */
  podCounts(): PodCounts {
    const t = this.tally;
    return t?.exact ? t.counts : scanPods(this.pods.list(), this.podFacts);
  }

  /** a pod observed for the first time already bound at the very start is part of the initial cluster */
  private firstSeen(p: Pod): boolean {
    return this.clock.now() === this.startMs && (p.status?.phase === 'Running' || isPodReady(p));
  }

  /** take one sample of the cluster state */
  sample(throttledTotal: number): void {
    const now = this.clock.now();
    const { pending, running, ready, terminating, cpuOnNode, usersOnNode } = this.podCounts();
    let nr = 0,
      nn = 0;
    const util: number[] = [];
    for (const n of this.nodes.list()) {
      let f = this.nodeFacts.get(n);
      if (!f)
        this.nodeFacts.set(
          n,
          (f = {
            name: n.metadata.name ?? '',
            ready: n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
          }),
        );
      if (f.ready) nr++;
      else nn++;
      if (!usersOnNode.has(f.name)) continue;
      if (f.alloc === undefined) f.alloc = nodeAllocatable(n).get('cpu') ?? 0;
      util.push((100 * (cpuOnNode.get(f.name) ?? 0)) / Math.max(1, f.alloc));
    }
    const mean = util.length ? util.reduce((a, b) => a + b, 0) / util.length : 0;
    const sd = util.length ? Math.sqrt(util.reduce((a, b) => a + (b - mean) ** 2, 0) / util.length) : 0;
    // the first sample covers the set-up instant: rate over one sample period
    const dt = Math.max(this.sampleEveryMs, now - this.lastSampleMs) / 1000;
    const s = this.series;
    s.t.push((now - this.startMs) / 1000);
    s.pending.push(pending);
    s.running.push(running);
    s.ready.push(ready);
    s.terminating.push(terminating);
    s.nodesReady.push(nr);
    s.nodesNotReady.push(nn);
    s.bindRate.push((this.bound - this.lastBound) / dt);
    s.throttled.push(throttledTotal - this.lastThrottled);
    s.nodesUsed.push(util.length);
    s.cpuUtilization.push(Math.round(mean * 10) / 10);
    s.cpuUtilizationStddev.push(Math.round(sd * 10) / 10);
    this.lastBound = this.bound;
    this.lastThrottled = throttledTotal;
    this.lastSampleMs = now;
  }

  /** every deployment fully rolled out and available, and no pod pending */
  converged(): boolean {
    for (const d of this.deployments.list()) {
      const want = d.spec.replicas ?? 1;
      const s = d.status ?? {};
      if ((s.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) return false;
      if (
        (s.updatedReplicas ?? 0) !== want ||
        (s.availableReplicas ?? 0) !== want ||
        (s.replicas ?? 0) !== want
      )
        return false;
    }
    return this.podCounts().notReady === 0;
  }

  /** pod start-up latency (creation → Ready) and scheduling latency (creation → bound), ms, sorted */
  latencies(): { startup: number[]; scheduling: number[] } {
    const startup: number[] = [],
      scheduling: number[] = [];
    for (const t of this.times.values()) {
      if (t.preexisting) continue;
      if (t.ready !== undefined) startup.push(t.ready - t.created);
      if (t.scheduled !== undefined) scheduling.push(t.scheduled - t.created);
    }
    startup.sort((a, b) => a - b);
    scheduling.sort((a, b) => a - b);
    return { startup, scheduling };
  }
}

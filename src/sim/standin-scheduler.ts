/**
 * A STAND-IN scheduler for simulations, used only where the real kube-scheduler model
 * (src/scheduler) is not wired in. It is a deliberately small subset of kube-scheduler, watching
 * pods and nodes through the ApiServer and binding through it like the real one:
 *
 * - filters, in upstream's order and with upstream's reason strings: NodeUnschedulable,
 *   NodeName, TaintToleration, NodeAffinity (nodeSelector and required node affinity),
 *   NodeResourcesFit (cpu, memory, pods);
 * - numFeasibleNodesToFind sampling from a rotating start index, LeastAllocated scoring
 *   (cpu and memory, equal weights), seeded tie-breaking;
 * - a FitError message "0/N nodes are available: …" on a PodScheduled=False condition and a
 *   FailedScheduling event; unschedulable pods retry on node changes and pod deletions;
 * - one scheduling cycle costs `cycleMs` of virtual time (default 2 ms), which bounds throughput.
 *
 * Missing (by design; the real scheduler has them): pod (anti-)affinity, topology spread,
 * preemption, extended resources, host ports, volume plugins, score plugins other than LeastAllocated.
 */
import type { Binding, Node, Pod } from '../api/types.js';
import { cpuMillis, bytes } from '../api/quantity.js';
import { podRequests as resourceRequests } from '../api/pod-requests.js';
import {
  doNotScheduleTaint,
  findMatchingUntoleratedTaint,
  tolerationsTolerateTaint,
  UNSCHEDULABLE_TAINT,
} from '../api/taints.js';
import { type ApiClient, keyOf } from '../client/api.js';
import type { EventRecorder } from '../client/events.js';
import type { InformerFactory } from '../client/factory.js';
import type { Informer } from '../client/informer.js';
import { isPodActive } from '../controllers/pod-util.js';
import { numFeasibleNodesToFind } from '../scheduler/engine/types.js';
import { requiredNodeAffinityMatches } from '../api/node-affinity.js';
import type { Clock, TimerHandle } from '../util/clock.js';
import type { Rng } from '../util/rng.js';
import { rfc3339 } from '../api/time.js';

export interface SchedulerComponent {
  start(): void | Promise<void>;
  stop(): void;
  /** preemptions: pods that nominated a node after evicting victims (the real scheduler only) */
  readonly stats: { scheduled: number; failedAttempts: number; bindErrors: number; preemptions?: number };
}

export interface StandInSchedulerOptions {
  api: ApiClient;
  clock: Clock;
  informers: InformerFactory;
  recorder: EventRecorder;
  rng: Rng;
  schedulerName?: string;
  /** virtual time one scheduling cycle takes (default 2 ms) */
  cycleMs?: number;
}

interface NodeUse {
  cpu: number;
  mem: number;
  pods: number;
}

/** cpu and memory requests (api/pod-requests.ts: sidecars, init containers, pod-level, overhead) */
function podRequests(pod: Pod): NodeUse {
  const r = resourceRequests(pod);
  return { cpu: r.get('cpu') ?? 0, mem: r.get('memory') ?? 0, pods: 1 };
}

function allocatable(node: Node): NodeUse {
  const a = node.status?.allocatable ?? node.status?.capacity ?? {};
  return {
    cpu: a.cpu !== undefined ? cpuMillis(a.cpu) : 0,
    mem: a.memory !== undefined ? bytes(a.memory) : 0,
    pods: a.pods !== undefined ? bytes(a.pods) : 110,
  };
}

export class StandInScheduler implements SchedulerComponent {
  private readonly pods: Informer<Pod>;
  private readonly nodes: Informer<Node>;
  private readonly active: string[] = [];
  private readonly queued = new Set<string>();
  private readonly unschedulable = new Map<string, string>();
  /** node → requested resources of its bound (or assumed) active pods */
  private readonly used = new Map<string, NodeUse>();
  /** pods counted in `used` → node */
  private readonly counted = new Map<string, { node: string; req: NodeUse }>();
  /** parsed allocatable per node (quantities parsed once per node version, not per pod) */
  private readonly alloc = new Map<string, NodeUse>();
  private nodeOrder: string[] = [];
  private nodeOrderDirty = true;
  private nextStart = 0;
  private timer?: TimerHandle;
  private flushTimer?: TimerHandle;
  private stopped = false;
  private readonly rng: Rng;
  readonly stats = { scheduled: 0, failedAttempts: 0, bindErrors: 0 };

  constructor(private readonly o: StandInSchedulerOptions) {
    this.rng = o.rng.fork('standin-scheduler');
    this.pods = o.informers.for<Pod>('pods');
    this.nodes = o.informers.for<Node>('nodes');
    this.pods.addEventHandler({
      onAdd: (p) => this.onPod(p),
      onUpdate: (_o, p) => this.onPod(p),
      onDelete: (p) => {
        this.uncount(keyOf(p));
        this.flushUnschedulable();
      },
    });
    this.nodes.addEventHandler({
      onAdd: (n) => {
        this.alloc.set(n.metadata.name!, allocatable(n));
        this.nodeOrderDirty = true;
        this.flushUnschedulable();
      },
      onUpdate: (a, b) => {
        this.alloc.set(b.metadata.name!, allocatable(b));
        if (
          JSON.stringify(a.spec) !== JSON.stringify(b.spec) ||
          JSON.stringify(a.status?.allocatable) !== JSON.stringify(b.status?.allocatable)
        )
          this.flushUnschedulable();
      },
      onDelete: (n) => {
        this.alloc.delete(n.metadata.name!);
        this.nodeOrderDirty = true;
      },
    });
  }

  private get name(): string {
    return this.o.schedulerName ?? 'default-scheduler';
  }

  start(): void {
    this.stopped = false;
    for (const p of this.pods.list()) this.onPod(p);
    this.kick();
    // flushUnschedulablePodsLeftover: retry everything unschedulable every 30 s anyway
    const flush = () => {
      this.flushUnschedulable();
      this.flushTimer = this.o.clock.setTimer(flush, 30_000);
    };
    this.flushTimer = this.o.clock.setTimer(flush, 30_000);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.o.clock.clearTimer(this.timer);
    if (this.flushTimer) this.o.clock.clearTimer(this.flushTimer);
    this.timer = undefined;
  }

  private onPod(p: Pod): void {
    const key = keyOf(p);
    if (p.spec.nodeName) {
      if (isPodActive(p) || p.metadata.deletionTimestamp) this.count(key, p.spec.nodeName, p);
      if (p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') {
        this.uncount(key);
        this.flushUnschedulable();
      }
      return;
    }
    if (p.metadata.deletionTimestamp || (p.spec.schedulerName ?? 'default-scheduler') !== this.name) return;
    // SchedulingGates: a gated pod is not queued until its gates are removed (as the real scheduler)
    if (((p.spec as { schedulingGates?: unknown[] }).schedulingGates ?? []).length > 0) return;
    if (this.unschedulable.has(key) || this.queued.has(key)) return;
    this.queued.add(key);
    this.active.push(key);
    this.kick();
  }

  private count(key: string, node: string, p: Pod): void {
    const c = this.counted.get(key);
    if (c && c.node === node) return;
    if (c) this.uncount(key);
    const req = podRequests(p);
    this.counted.set(key, { node, req });
    const u = this.used.get(node) ?? { cpu: 0, mem: 0, pods: 0 };
    u.cpu += req.cpu;
    u.mem += req.mem;
    u.pods += 1;
    this.used.set(node, u);
  }

  private uncount(key: string): void {
    const c = this.counted.get(key);
    if (!c) return;
    this.counted.delete(key);
    const u = this.used.get(c.node);
    if (u) {
      u.cpu -= c.req.cpu;
      u.mem -= c.req.mem;
      u.pods -= 1;
    }
  }

  private flushUnschedulable(): void {
    if (this.unschedulable.size === 0) return;
    for (const k of this.unschedulable.keys())
      if (!this.queued.has(k)) {
        this.queued.add(k);
        this.active.push(k);
      }
    this.unschedulable.clear();
    this.kick();
  }

  private kick(): void {
    if (this.timer || this.stopped || this.active.length === 0) return;
    this.timer = this.o.clock.setTimer(() => {
      this.timer = undefined;
      this.cycle();
      this.kick();
    }, this.o.cycleMs ?? 2);
  }

  private cycle(): void {
    const key = this.active.shift();
    if (!key) return;
    this.queued.delete(key);
    const pod = this.pods.getByKey(key);
    if (!pod || pod.spec.nodeName || pod.metadata.deletionTimestamp || this.counted.has(key)) return;
    if (this.nodeOrderDirty) {
      this.nodeOrder = [...this.nodes.keys()].sort();
      this.nodeOrderDirty = false;
    }
    const all = this.nodeOrder;
    const want = numFeasibleNodesToFind(undefined, all.length);
    const req = podRequests(pod);
    const reasons = new Map<string, number>();
    const fail = (r: string) => reasons.set(r, (reasons.get(r) ?? 0) + 1);
    let found = 0,
      best = '',
      bestScore = -1,
      ties = 0;
    let i = 0;
    for (; i < all.length && found < want; i++) {
      const name = all[(this.nextStart + i) % all.length];
      const node = this.nodes.getByKey(name);
      if (!node) continue;
      const r = this.filter(pod, node, req);
      if (r) {
        for (const x of r) fail(x);
        continue;
      }
      found++;
      const a = this.alloc.get(name)!;
      const u = this.used.get(name) ?? { cpu: 0, mem: 0, pods: 0 };
      const s =
        ((a.cpu ? ((a.cpu - u.cpu - req.cpu) * 100) / a.cpu : 0) +
          (a.mem ? ((a.mem - u.mem - req.mem) * 100) / a.mem : 0)) /
        2;
      const score = Math.floor(s);
      if (score > bestScore) {
        bestScore = score;
        best = name;
        ties = 1;
      } else if (score === bestScore && this.rng.int(++ties) === 0) best = name; // reservoir sampling, as selectHost
    }
    if (all.length) this.nextStart = (this.nextStart + i) % all.length;
    if (!best) {
      this.stats.failedAttempts++;
      const parts = [...reasons].map(([r, n]) => `${n} ${r}`).sort();
      const msg =
        all.length === 0
          ? 'no nodes available to schedule pods'
          : `0/${all.length} nodes are available: ${parts.join(', ')}.`;
      const prev = this.unschedulable.get(key);
      this.unschedulable.set(key, msg);
      const cond = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
      if (prev !== msg && cond?.message !== msg) {
        this.o.recorder.event(pod, 'Warning', 'FailedScheduling', msg);
        const conditions = [
          ...(pod.status?.conditions ?? []).filter((c) => c.type !== 'PodScheduled'),
          {
            type: 'PodScheduled',
            status: 'False' as const,
            reason: 'Unschedulable',
            message: msg,
            lastTransitionTime: rfc3339(this.o.clock.now()),
          },
        ];
        this.o.api
          .updateStatus('pods', { ...pod, status: { ...(pod.status ?? {}), phase: 'Pending', conditions } })
          .catch(() => {});
      }
      return;
    }
    // assume, then bind asynchronously (the binding cycle)
    this.count(key, best, pod);
    const binding: Binding = {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid },
      target: { kind: 'Node', name: best },
    };
    this.o.api.bind(binding).then(
      () => {
        this.stats.scheduled++;
        this.o.recorder.event(pod, 'Normal', 'Scheduled', `Successfully assigned ${key} to ${best}`);
      },
      () => {
        this.stats.bindErrors++;
        this.uncount(key);
        this.unschedulable.set(key, 'bind failed');
      },
    );
  }

  /** the failing filter's reasons, or undefined when the node fits */
  private filter(pod: Pod, node: Node, req: NodeUse): string[] | undefined {
    if (node.spec?.unschedulable && !tolerationsTolerateTaint(pod.spec.tolerations, UNSCHEDULABLE_TAINT))
      return ['node(s) were unschedulable'];
    if (pod.spec.nodeName && pod.spec.nodeName !== node.metadata.name)
      return ["node(s) didn't match the requested node name"];
    const taint = findMatchingUntoleratedTaint(node.spec?.taints, pod.spec.tolerations, doNotScheduleTaint);
    if (taint) return ['node(s) had untolerated taint(s)'];
    if (!requiredNodeAffinityMatches(pod, node)) return ["node(s) didn't match Pod's node affinity/selector"];
    const a = this.alloc.get(node.metadata.name!) ?? allocatable(node);
    const u = this.used.get(node.metadata.name!) ?? { cpu: 0, mem: 0, pods: 0 };
    const out: string[] = [];
    if (u.pods + 1 > a.pods) out.push('Too many pods');
    if (req.cpu > 0 && u.cpu + req.cpu > a.cpu) out.push('Insufficient cpu');
    if (req.mem > 0 && u.mem + req.mem > a.mem) out.push('Insufficient memory');
    return out.length ? out : undefined;
  }
}

/**
 * The scheduling queue (kube-scheduler's PriorityQueue, pkg/scheduler/backend/queue):
 *
 * - activeQ: pods ready to be tried, ordered by the profile's QueueSort (PrioritySort: higher
 *   spec.priority first, then earlier timestamp);
 * - backoffQ: pods that failed and wait out an exponential backoff (initial 1 s, doubling per
 *   attempt, at most 10 s), ordered by expiry;
 * - unschedulablePods: pods no node fits, parked until a cluster event that could help them
 *   (a node added or changed, a pod deleted, …) or for at most 5 minutes.
 *
 * Time comes from an injectable Clock; the flushes upstream runs in goroutines (backoffQ every
 * 1 s, unschedulablePods leftover every 30 s) are clock timers, so a ManualClock replays them
 * exactly. Example, initial 1 s / max 10 s: attempts 1,2,3,4,5 back off 1,2,4,8,10 s.
 */
import type { Pod } from '../api/types.js';
import type { Clock, TimerHandle } from '../util/clock.js';
import { podKey } from '../api/keys.js';
import { BinaryHeap } from '../util/binary-heap.js';
import type { ClusterEventKind, QueuedPodInfo } from './framework/types.js';

export const DEFAULT_POD_INITIAL_BACKOFF_MS = 1_000;
export const DEFAULT_POD_MAX_BACKOFF_MS = 10_000;
/** upstream DefaultPodMaxInUnschedulablePodsDuration */
export const DEFAULT_POD_MAX_IN_UNSCHEDULABLE_MS = 5 * 60_000;
const BACKOFF_FLUSH_MS = 1_000;
const UNSCHEDULABLE_FLUSH_MS = 30_000;

/** A binary heap ordered by `less`, with removal by key (upstream's heap.Heap with its keyFunc). */
class KeyedHeap<T> extends BinaryHeap<T> {
  private readonly pos = new Map<string, number>();
  constructor(
    private readonly keyOf: (t: T) => string,
    less: (a: T, b: T) => boolean,
  ) {
    super(less);
  }

  has(key: string): boolean {
    return this.pos.has(key);
  }
  get(key: string): T | undefined {
    const i = this.pos.get(key);
    return i === undefined ? undefined : this.items[i];
  }
  list(): T[] {
    return [...this.items];
  }

  /** inserts or replaces (and re-sorts) the item with this key */
  upsert(t: T): void {
    const i = this.pos.get(this.keyOf(t));
    if (i === undefined) {
      this.push(t);
      return;
    }
    this.place(i, t);
    this.fix(i);
  }

  override pop(): T | undefined {
    const t = super.pop();
    if (t !== undefined) this.pos.delete(this.keyOf(t));
    return t;
  }

  delete(key: string): T | undefined {
    const i = this.pos.get(key);
    if (i === undefined) return undefined;
    this.pos.delete(key);
    return this.removeAt(i);
  }

  protected override place(i: number, t: T): void {
    this.items[i] = t;
    this.pos.set(this.keyOf(t), i);
  }
}

/** PrioritySort's Less: higher priority first, then earlier (queue) timestamp. */
export function prioritySortLess(a: QueuedPodInfo, b: QueuedPodInfo): boolean {
  const pa = a.pod.spec.priority ?? 0;
  const pb = b.pod.spec.priority ?? 0;
  return pa > pb || (pa === pb && a.timestamp < b.timestamp);
}

export interface SchedulingQueueOptions {
  clock: Clock;
  less?: (a: QueuedPodInfo, b: QueuedPodInfo) => boolean;
  podInitialBackoffMs?: number;
  podMaxBackoffMs?: number;
  podMaxInUnschedulablePodsMs?: number;
  /** plugin name → cluster events that may make pods it rejected schedulable; absent = any event */
  pluginEvents?: Map<string, ReadonlySet<ClusterEventKind>>;
}

export class SchedulingQueue {
  private readonly clock: Clock;
  private readonly activeQ: KeyedHeap<QueuedPodInfo>;
  private readonly backoffQ: KeyedHeap<QueuedPodInfo>;
  private readonly unschedulable = new Map<string, QueuedPodInfo>();
  /** pods popped and not yet done (upstream inFlightPods), by key */
  private readonly inFlight = new Map<string, QueuedPodInfo>();
  private readonly initialBackoff: number;
  private readonly maxBackoff: number;
  private readonly maxInUnschedulable: number;
  private readonly pluginEvents?: Map<string, ReadonlySet<ClusterEventKind>>;
  /** incremented by every pop (upstream schedulingCycle) */
  schedulingCycle = 0;
  /** the cycle at which the last move request happened (upstream moveRequestCycle) */
  private moveRequestCycle = -1;
  private waiters: ((p: QueuedPodInfo | undefined) => void)[] = [];
  private timers: TimerHandle[] = [];
  private closed = false;

  constructor(opts: SchedulingQueueOptions) {
    this.clock = opts.clock;
    const less = opts.less ?? prioritySortLess;
    this.activeQ = new KeyedHeap((p) => p.key, less);
    this.backoffQ = new KeyedHeap(
      (p) => p.key,
      (a, b) => this.backoffExpiry(a) < this.backoffExpiry(b),
    );
    this.initialBackoff = opts.podInitialBackoffMs ?? DEFAULT_POD_INITIAL_BACKOFF_MS;
    this.maxBackoff = opts.podMaxBackoffMs ?? DEFAULT_POD_MAX_BACKOFF_MS;
    this.maxInUnschedulable = opts.podMaxInUnschedulablePodsMs ?? DEFAULT_POD_MAX_IN_UNSCHEDULABLE_MS;
    this.pluginEvents = opts.pluginEvents;
  }

  /** starts the periodic flushes (upstream Run) */
  run(): void {
    const every = (ms: number, fn: () => void) => {
      const tick = () => {
        if (this.closed) return;
        fn();
        this.timers.push(this.clock.setTimer(tick, ms));
      };
      this.timers.push(this.clock.setTimer(tick, ms));
    };
    every(BACKOFF_FLUSH_MS, () => this.flushBackoffQCompleted());
    every(UNSCHEDULABLE_FLUSH_MS, () => this.flushUnschedulablePodsLeftover());
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) this.clock.clearTimer(t);
    this.timers = [];
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  get lengths(): { active: number; backoff: number; unschedulable: number } {
    return { active: this.activeQ.size, backoff: this.backoffQ.size, unschedulable: this.unschedulable.size };
  }

  has(key: string): boolean {
    return (
      this.activeQ.has(key) || this.backoffQ.has(key) || this.unschedulable.has(key) || this.inFlight.has(key)
    );
  }

  /** which sub-queue holds a pod ('active' | 'backoff' | 'unschedulable' | 'inFlight' | undefined) */
  where(key: string): 'active' | 'backoff' | 'unschedulable' | 'inFlight' | undefined {
    if (this.activeQ.has(key)) return 'active';
    if (this.backoffQ.has(key)) return 'backoff';
    if (this.unschedulable.has(key)) return 'unschedulable';
    if (this.inFlight.has(key)) return 'inFlight';
    return undefined;
  }

  /** Add: a new pending pod goes to activeQ */
  add(pod: Pod): void {
    const key = podKey(pod);
    const now = this.clock.now();
    this.backoffQ.delete(key);
    this.unschedulable.delete(key);
    const existing = this.activeQ.get(key);
    this.activeQ.upsert(
      existing
        ? { ...existing, pod }
        : {
            pod,
            key,
            timestamp: now,
            initialAttemptTimestamp: now,
            attempts: 0,
            unschedulablePlugins: new Set(),
          },
    );
    this.wake();
  }

  /**
   * Update: the pod object changed. A parked pod moves (to backoffQ or activeQ) only when
   * `specChanged` (upstream isPodUpdated: more than status/resourceVersion changed).
   */
  update(pod: Pod, specChanged = true): void {
    const key = podKey(pod);
    for (const q of [this.activeQ, this.backoffQ]) {
      const p = q.get(key);
      if (p) {
        q.upsert({ ...p, pod });
        return;
      }
    }
    const inflight = this.inFlight.get(key);
    if (inflight) {
      inflight.pod = pod;
      return;
    }
    const u = this.unschedulable.get(key);
    if (u) {
      u.pod = pod;
      if (!specChanged) return;
      this.unschedulable.delete(key);
      if (this.isBackingOff(u)) this.backoffQ.upsert(u);
      else {
        this.activeQ.upsert(u);
        this.wake();
      }
      return;
    }
    this.add(pod);
  }

  delete(key: string): void {
    this.activeQ.delete(key);
    this.backoffQ.delete(key);
    this.unschedulable.delete(key);
    this.inFlight.delete(key);
  }

  /** Pop without waiting: the next pod, or undefined when activeQ is empty */
  tryPop(): QueuedPodInfo | undefined {
    const p = this.activeQ.pop();
    if (!p) return undefined;
    p.attempts++;
    this.schedulingCycle++;
    this.inFlight.set(p.key, p);
    return p;
  }

  /** Pop: waits until a pod is active (resolves undefined once closed) */
  pop(): Promise<QueuedPodInfo | undefined> {
    const p = this.tryPop();
    if (p || this.closed) return Promise.resolve(p);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** the scheduling attempt for a popped pod is over (bound, or re-queued) */
  done(key: string): void {
    this.inFlight.delete(key);
  }

  /**
   * AddUnschedulableIfNotPresent: a popped pod that failed. With rejecting plugins it waits in
   * unschedulablePods (or backoffQ if a move request arrived during its cycle); after an
   * internal error it goes to backoffQ.
   */
  addUnschedulable(
    p: QueuedPodInfo,
    podSchedulingCycle: number,
    unschedulablePlugins: Iterable<string> = [],
  ): void {
    this.inFlight.delete(p.key);
    if (this.activeQ.has(p.key) || this.backoffQ.has(p.key) || this.unschedulable.has(p.key)) return;
    p.timestamp = this.clock.now();
    p.unschedulablePlugins = new Set(unschedulablePlugins);
    if (p.unschedulablePlugins.size === 0 || this.moveRequestCycle >= podSchedulingCycle)
      this.backoffQ.upsert(p);
    else this.unschedulable.set(p.key, p);
  }

  /** the backoff of a pod after `attempts` attempts: initial × 2^(attempts−1), at most max */
  backoffDuration(p: QueuedPodInfo): number {
    let d = this.initialBackoff;
    for (let i = 1; i < p.attempts; i++) {
      d *= 2;
      if (d > this.maxBackoff) return this.maxBackoff;
    }
    return d;
  }

  backoffExpiry(p: QueuedPodInfo): number {
    return p.timestamp + this.backoffDuration(p);
  }

  isBackingOff(p: QueuedPodInfo): boolean {
    return this.backoffExpiry(p) > this.clock.now();
  }

  /** moves pods whose backoff has expired to activeQ */
  flushBackoffQCompleted(): void {
    const now = this.clock.now();
    let moved = false;
    for (;;) {
      const top = this.backoffQ.peek();
      if (!top || this.backoffExpiry(top) > now) break;
      this.backoffQ.pop();
      this.activeQ.upsert(top);
      moved = true;
    }
    if (moved) this.wake();
  }

  /** pods parked longer than podMaxInUnschedulablePodsDuration go back to active/backoff */
  flushUnschedulablePodsLeftover(): void {
    const now = this.clock.now();
    const stale = [...this.unschedulable.values()].filter((p) => now - p.timestamp > this.maxInUnschedulable);
    this.movePods(stale);
  }

  /**
   * MoveAllToActiveOrBackoffQueue: a cluster event happened; parked pods that a plugin interested
   * in this event rejected (or whose rejectors are unknown) become active, or back off.
   */
  moveAllToActiveOrBackoffQueue(event: ClusterEventKind): void {
    const pods = [...this.unschedulable.values()].filter((p) => this.eventMayHelp(p, event));
    this.movePods(pods);
    this.moveRequestCycle = this.schedulingCycle;
  }

  private eventMayHelp(p: QueuedPodInfo, event: ClusterEventKind): boolean {
    if (!this.pluginEvents || p.unschedulablePlugins.size === 0) return true;
    for (const pl of p.unschedulablePlugins) {
      const evs = this.pluginEvents.get(pl);
      if (!evs || evs.has(event)) return true;
    }
    return false;
  }

  private movePods(pods: QueuedPodInfo[]): void {
    let active = false;
    for (const p of pods) {
      this.unschedulable.delete(p.key);
      if (this.isBackingOff(p)) this.backoffQ.upsert(p);
      else {
        this.activeQ.upsert(p);
        active = true;
      }
    }
    if (active) this.wake();
  }

  /** the pending pods in every sub-queue (for reports) */
  pendingPods(): QueuedPodInfo[] {
    return [...this.activeQ.list(), ...this.backoffQ.list(), ...this.unschedulable.values()];
  }

  private wake(): void {
    while (this.waiters.length && this.activeQ.size) {
      const w = this.waiters.shift()!;
      w(this.tryPop());
    }
  }
}

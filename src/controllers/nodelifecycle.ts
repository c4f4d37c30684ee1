/**
 * The node lifecycle controller (pkg/controller/nodelifecycle), taint-based eviction mode:
 *
 * - Health: a node's "probe time" is the controller's own clock reading when it last saw the node's
 *   Lease renewTime or its Ready lastHeartbeatTime change. Every nodeMonitorPeriod (5 s) a node
 *   whose probe time is older than nodeMonitorGracePeriod (50 s) gets Ready (and the pressure
 *   conditions) set to Unknown, reason NodeStatusUnknown, "Kubelet stopped posting node status.",
 *   a NodeNotReady event, and its pods marked not ready (MarkPodsNotReady).
 * - Taints: Ready=False → node.kubernetes.io/not-ready, Ready=Unknown → node.kubernetes.io/unreachable.
 *   The NoSchedule taint is applied at once; the NoExecute taint goes through a per-zone
 *   rate-limited queue (token bucket, burst 1): --node-eviction-rate 0.1/s in a normal zone,
 *   --secondary-node-eviction-rate 0.01/s in a partially disrupted one (≥ 55 % not ready and
 *   more than 2 nodes; 0 when the zone has ≤ 50 nodes), the normal rate in a fully disrupted zone,
 *   and nothing at all when every zone is fully disrupted (then the taints are removed, as upstream
 *   assumes a control-plane network problem). A Ready node loses both taints.
 * The NoExecute taint makes the taint eviction controller (taint-eviction.ts) delete pods.
 */
import { NODE_NAME_INDEX, nodeNameIndex } from './pod-util.js';
import type { Lease, Node, NodeCondition, Pod, Taint } from '../api/types.js';
import { isConflict } from '../client/api.js';
import type { Informer } from '../client/informer.js';
import type { TimerHandle } from '../util/clock.js';
import { rfc3339, rfc3339Micro } from '../api/time.js';
import { zoneKey } from '../api/topology.js';
import type { ControllerDeps } from './replicaset.js';

export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/**
 * kube-controller-manager's --node-monitor-grace-period: 50 s since v1.32 (kubernetes PR #126287,
 * pkg/controller/nodelifecycle/config/v1alpha1/defaults.go; 40 s before), so that a node is marked
 * unreachable only after its kubelet's nodeLease (40 s) has expired.
 */
export const NODE_MONITOR_GRACE_PERIOD_MS = 50_000;
/** node condition → the NoSchedule taint it puts on the node (TaintNodesByCondition) */
const PRESSURE_TAINTS = {
  MemoryPressure: 'node.kubernetes.io/memory-pressure',
  DiskPressure: 'node.kubernetes.io/disk-pressure',
  PIDPressure: 'node.kubernetes.io/pid-pressure',
} as const;

/**
 * Renewals of node Leases the kubelets did not write (kubelet/lease-elision.ts): the Lease informer
 * never sees them, so the controller asks. Upstream has no such thing: there every renewal is a
 * write the lease informer delivers.
 */
export interface NodeLeaseFreshness {
  /** the virtual time of the node's last elided Lease renewal (its renewTime), if any */
  elidedRenewal(node: string): number | undefined;
}

const PRESSURE_TAINT_KEYS: ReadonlySet<string> = new Set(Object.values(PRESSURE_TAINTS));

export interface NodeLifecycleOptions {
  /** elided Lease renewals, read as the Lease events they stand for */
  leaseFreshness?: NodeLeaseFreshness;
  nodeMonitorPeriodMs?: number;
  nodeMonitorGracePeriodMs?: number;
  evictionRate?: number;
  secondaryEvictionRate?: number;
  largeClusterThreshold?: number;
  unhealthyZoneThreshold?: number;
}

export type ZoneState = 'Normal' | 'PartialDisruption' | 'FullDisruption';

/** ComputeZoneState over the Ready statuses of a zone's nodes */
export function computeZoneState(
  readyStatuses: (string | undefined)[],
  unhealthyThreshold = 0.55,
): ZoneState {
  let ready = 0,
    notReady = 0;
  for (const s of readyStatuses) {
    if (s === 'True') ready++;
    else notReady++;
  }
  if (ready === 0 && notReady > 0) return 'FullDisruption';
  if (notReady > 2 && notReady / (notReady + ready) >= unhealthyThreshold) return 'PartialDisruption';
  return 'Normal';
}

/** A token bucket with burst 1 on virtual time (flowcontrol.NewTokenBucketRateLimiter(qps, 1)). */
class ZoneTainter {
  queue: string[] = [];
  qps: number;
  private tokens = 1;
  private last: number;
  constructor(qps: number, now: number) {
    this.qps = qps;
    this.last = now;
  }
  setRate(qps: number, now: number): void {
    this.refill(now);
    this.qps = qps;
  }
  private refill(now: number): void {
    this.tokens = Math.min(1, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
  }
  tryTake(now: number): boolean {
    this.refill(now);
    if (this.qps <= 0 || this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

interface Health {
  probeMs: number;
  renewTime?: string;
  heartbeat?: string;
}

export class NodeLifecycleController {
  private readonly nodes: Informer<Node>;
  private readonly leases: Informer<Lease>;
  private readonly pods: Informer<Pod>;
  private readonly health = new Map<string, Health>();
  private readonly zones = new Map<string, ZoneTainter>();
  private readonly zoneStates = new Map<string, ZoneState>();
  private monitorTimer?: TimerHandle;
  private taintTimer?: TimerHandle;
  private readonly o: Required<Omit<NodeLifecycleOptions, 'leaseFreshness'>>;
  private readonly freshness?: NodeLeaseFreshness;
  private allDisrupted = false;
  private stopped = false;
  stats = { markedUnknown: 0, noExecuteTainted: 0, untainted: 0, podsMarkedNotReady: 0, writeErrors: 0 };

  constructor(
    private readonly deps: ControllerDeps,
    opts: NodeLifecycleOptions = {},
  ) {
    this.freshness = opts.leaseFreshness;
    this.o = {
      nodeMonitorPeriodMs: opts.nodeMonitorPeriodMs ?? 5_000,
      nodeMonitorGracePeriodMs: opts.nodeMonitorGracePeriodMs ?? NODE_MONITOR_GRACE_PERIOD_MS,
      evictionRate: opts.evictionRate ?? 0.1,
      secondaryEvictionRate: opts.secondaryEvictionRate ?? 0.01,
      largeClusterThreshold: opts.largeClusterThreshold ?? 50,
      unhealthyZoneThreshold: opts.unhealthyZoneThreshold ?? 0.55,
    };
    this.nodes = deps.informers.for<Node>('nodes');
    this.leases = deps.informers.for<Lease>('leases');
    this.pods = deps.informers.for<Pod>('pods');
    try {
      this.pods.addIndexer(NODE_NAME_INDEX, nodeNameIndex);
    } catch {
      /* shared */
    }
    const observeNode = (n: Node) => {
      const hb = n.status?.conditions?.find((c) => c.type === 'Ready')?.lastHeartbeatTime;
      const h = this.health.get(n.metadata.name!);
      if (!h) this.health.set(n.metadata.name!, { probeMs: deps.clock.now(), heartbeat: hb });
      else if (hb !== h.heartbeat) {
        h.heartbeat = hb;
        h.probeMs = deps.clock.now();
      }
    };
    this.nodes.addEventHandler({
      onAdd: observeNode,
      onUpdate: (_o, n) => observeNode(n),
      onDelete: (n) => this.health.delete(n.metadata.name!),
    });
    const observeLease = (l: Lease) => {
      if (l.metadata.namespace !== NODE_LEASE_NAMESPACE) return;
      const h = this.health.get(l.metadata.name!);
      if (!h) this.health.set(l.metadata.name!, { probeMs: deps.clock.now(), renewTime: l.spec.renewTime });
      else if (l.spec.renewTime !== h.renewTime) {
        h.renewTime = l.spec.renewTime;
        // the Lease written late with a renewal that was elided: seen when it was made
        const e = this.freshness?.elidedRenewal(l.metadata.name!);
        h.probeMs =
          e !== undefined && rfc3339Micro(e) === l.spec.renewTime ? Math.max(h.probeMs, e) : deps.clock.now();
      }
    };
    this.leases.addEventHandler({ onAdd: observeLease, onUpdate: (_o, l) => observeLease(l) });
  }

  run(): void {
    // wait.Until: the next pass starts a period after the previous one finished (never overlapping)
    const monitor = () => {
      this.monitorTimer = undefined;
      this.monitorNodeHealth()
        .catch(() => {
          this.stats.writeErrors++;
        })
        .finally(() => {
          if (!this.stopped)
            this.monitorTimer = this.deps.clock.setTimer(monitor, this.o.nodeMonitorPeriodMs);
        });
    };
    this.monitorTimer = this.deps.clock.setTimer(monitor, this.o.nodeMonitorPeriodMs);
    // doNoExecuteTaintingPass runs every 100 ms (nodeEvictionPeriod); only while work is queued
    this.scheduleTaintPass();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.monitorTimer) this.deps.clock.clearTimer(this.monitorTimer);
    if (this.taintTimer) this.deps.clock.clearTimer(this.taintTimer);
    this.monitorTimer = this.taintTimer = undefined;
  }

  /** zone → state at the last monitor pass (for reports) */
  get zoneStatus(): ReadonlyMap<string, ZoneState> {
    return this.zoneStates;
  }

  private scheduleTaintPass(): void {
    if (this.taintTimer) return;
    let pending = false;
    for (const z of this.zones.values()) if (z.queue.length) pending = true;
    if (!pending) return;
    this.taintTimer = this.deps.clock.setTimer(() => {
      this.taintTimer = undefined;
      this.taintPass().catch(() => {
        this.stats.writeErrors++;
        this.scheduleTaintPass();
      });
    }, 100);
  }

  private async monitorNodeHealth(): Promise<void> {
    const now = this.deps.clock.now();
    const byZone = new Map<string, (string | undefined)[]>();
    const work: (() => Promise<void>)[] = [];
    for (const node of this.nodes.list()) {
      const name = node.metadata.name!;
      const h = this.health.get(name) ?? { probeMs: now };
      if (!this.health.has(name)) this.health.set(name, h);
      // an elided renewal is the Lease event it stands for: a probe at the time it was made
      const elided = this.freshness?.elidedRenewal(name);
      if (elided !== undefined && elided > h.probeMs) h.probeMs = elided;
      let ready = node.status?.conditions?.find((c) => c.type === 'Ready');
      if (h.probeMs + this.o.nodeMonitorGracePeriodMs < now && ready?.status !== 'Unknown') {
        work.push(() => this.markUnknown(node));
        ready = { type: 'Ready', status: 'Unknown' };
      }
      const zone = zoneKey(node);
      if (!byZone.has(zone)) byZone.set(zone, []);
      byZone.get(zone)!.push(ready?.status);
      this.reconcileTaints(node, ready?.status, zone, work);
      this.reconcilePressureTaints(node, work);
    }
    this.handleDisruption(byZone, now, work);
    // upstream updates nodes with workqueue.ParallelizeUntil(nodeUpdateWorkerSize = 8)
    await parallelize(8, work);
    this.scheduleTaintPass();
  }

  private async markUnknown(node: Node): Promise<void> {
    const now = rfc3339(this.deps.clock.now());
    const types = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];
    const conds = [...(node.status?.conditions ?? [])];
    for (const t of types) {
      const i = conds.findIndex((c) => c.type === t);
      const c: NodeCondition = {
        type: t,
        status: 'Unknown',
        reason: 'NodeStatusUnknown',
        message: 'Kubelet stopped posting node status.',
        lastHeartbeatTime: conds[i]?.lastHeartbeatTime,
        lastTransitionTime: now,
      };
      if (i >= 0) conds[i] = c;
      else conds.push(c);
    }
    try {
      await this.deps.api.updateStatus('nodes', {
        ...node,
        status: { ...(node.status ?? {}), conditions: conds },
      });
      this.stats.markedUnknown++;
      this.deps.recorder.event(
        node,
        'Normal',
        'NodeNotReady',
        `Node ${node.metadata.name} status is now: NodeNotReady`,
      );
    } catch {
      // conflict, not found, or throttled past the client's retries: re-evaluated on the next pass
      this.stats.writeErrors++;
      return;
    }
    // MarkPodsNotReady
    for (const p of this.pods.byIndex(NODE_NAME_INDEX, node.metadata.name!)) {
      const rc = p.status?.conditions?.find((c) => c.type === 'Ready');
      if (rc?.status !== 'True') continue;
      const conditions = (p.status?.conditions ?? []).map((c) =>
        c.type === 'Ready' ? { ...c, status: 'False' as const, lastTransitionTime: now } : c,
      );
      try {
        await this.deps.api.updateStatus('pods', { ...p, status: { ...(p.status ?? {}), conditions } });
        this.stats.podsMarkedNotReady++;
      } catch {
        /* the next pass or the kubelet will fix it */
      }
    }
  }

  private reconcileTaints(
    node: Node,
    ready: string | undefined,
    zone: string,
    work: (() => Promise<void>)[],
  ): void {
    const name = node.metadata.name!;
    const want = ready === 'False' ? TAINT_NOT_READY : ready === 'Unknown' ? TAINT_UNREACHABLE : undefined;
    const taints = node.spec?.taints ?? [];
    const hasNoSched = (k: string) => taints.some((t) => t.key === k && t.effect === 'NoSchedule');
    const hasNoExec = (k: string) => taints.some((t) => t.key === k && t.effect === 'NoExecute');
    const other = want === TAINT_NOT_READY ? TAINT_UNREACHABLE : TAINT_NOT_READY;
    const tainter = this.tainter(zone);
    if (!want) {
      // (a Ready node is in no queue but after a recovery: no new array per node and pass)
      if (tainter.queue.includes(name)) tainter.queue = tainter.queue.filter((n) => n !== name);
      if (
        hasNoSched(TAINT_NOT_READY) ||
        hasNoSched(TAINT_UNREACHABLE) ||
        hasNoExec(TAINT_NOT_READY) ||
        hasNoExec(TAINT_UNREACHABLE)
      ) {
        work.push(() =>
          this.patchTaints(name, (ts) =>
            ts.filter((t) => t.key !== TAINT_NOT_READY && t.key !== TAINT_UNREACHABLE),
          ).then((ok) => {
            if (ok) this.stats.untainted++;
          }),
        );
      }
      return;
    }
    // NoSchedule at once (TaintNodeByCondition), swapping not-ready/unreachable as the condition changes
    if (!hasNoSched(want) || hasNoSched(other) || hasNoExec(other)) {
      work.push(() =>
        this.patchTaints(name, (ts) => {
          const kept = ts.filter((t) => t.key !== other && !(t.key === want && t.effect === 'NoSchedule'));
          return [...kept, { key: want, effect: 'NoSchedule' }];
        }).then(() => {}),
      );
    }
    if (!hasNoExec(want) && !tainter.queue.includes(name) && !this.allDisrupted) tainter.queue.push(name);
  }

  /**
   * doNoScheduleTaintingPass for the pressure conditions (nodeConditionToTaintKeyStatusMap):
   * MemoryPressure=True → node.kubernetes.io/memory-pressure:NoSchedule, DiskPressure → disk-pressure,
   * PIDPressure → pid-pressure; the taint goes when the condition does. Checked on the monitor pass
   * (5 s) rather than on every node update.
   */
  private reconcilePressureTaints(node: Node, work: (() => Promise<void>)[]): void {
    const conds = node.status?.conditions ?? [];
    // the common case, decided without building the sets below: no pressure and no pressure taint
    if (
      !conds.some((c) => c.status === 'True' && Object.hasOwn(PRESSURE_TAINTS, c.type)) &&
      !(node.spec?.taints ?? []).some((t) => PRESSURE_TAINT_KEYS.has(t.key))
    )
      return;
    const want = new Set<string>(
      Object.entries(PRESSURE_TAINTS)
        .filter(([type]) => conds.some((c) => c.type === type && c.status === 'True'))
        .map(([, key]) => key),
    );
    const keys = new Set<string>(Object.values(PRESSURE_TAINTS));
    const have = new Set(
      (node.spec?.taints ?? []).filter((t) => keys.has(t.key) && t.effect === 'NoSchedule').map((t) => t.key),
    );
    if ([...want].every((k) => have.has(k)) && [...have].every((k) => want.has(k))) return;
    work.push(() =>
      this.patchTaints(node.metadata.name!, (ts) => [
        ...ts.filter((t) => !(keys.has(t.key) && t.effect === 'NoSchedule')),
        ...[...want].map((key) => ({ key, effect: 'NoSchedule' as const })),
      ]).then(() => {}),
    );
  }

  private tainter(zone: string): ZoneTainter {
    let z = this.zones.get(zone);
    if (!z) this.zones.set(zone, (z = new ZoneTainter(this.o.evictionRate, this.deps.clock.now())));
    return z;
  }

  /** handleDisruption: per-zone eviction rates from zone states */
  private handleDisruption(
    byZone: Map<string, (string | undefined)[]>,
    now: number,
    work: (() => Promise<void>)[],
  ): void {
    let allFull = byZone.size > 0;
    for (const [zone, statuses] of byZone) {
      const state = computeZoneState(statuses, this.o.unhealthyZoneThreshold);
      this.zoneStates.set(zone, state);
      if (state !== 'FullDisruption') allFull = false;
    }
    if (allFull && !this.allDisrupted) {
      // every zone down: assume the control plane lost the network; stop evicting, lift NoExecute taints
      this.allDisrupted = true;
      for (const z of this.zones.values()) {
        z.setRate(0, now);
        z.queue = [];
      }
      for (const node of this.nodes.list()) {
        if (
          (node.spec?.taints ?? []).some(
            (t) => t.effect === 'NoExecute' && (t.key === TAINT_UNREACHABLE || t.key === TAINT_NOT_READY),
          )
        ) {
          work.push(() =>
            this.patchTaints(node.metadata.name!, (ts) =>
              ts.filter(
                (t) =>
                  !(t.effect === 'NoExecute' && (t.key === TAINT_UNREACHABLE || t.key === TAINT_NOT_READY)),
              ),
            ).then(() => {}),
          );
        }
      }
      return;
    }
    if (!allFull) this.allDisrupted = false;
    if (this.allDisrupted) return;
    for (const [zone, statuses] of byZone) {
      const state = this.zoneStates.get(zone)!;
      const rate =
        state === 'PartialDisruption'
          ? statuses.length > this.o.largeClusterThreshold
            ? this.o.secondaryEvictionRate
            : 0
          : this.o.evictionRate;
      this.tainter(zone).setRate(rate, now);
    }
  }

  /** doNoExecuteTaintingPass: each zone's queue, as fast as its limiter allows */
  private async taintPass(): Promise<void> {
    const now = this.deps.clock.now();
    const work: Promise<void>[] = [];
    for (const z of this.zones.values()) {
      while (z.queue.length && z.tryTake(now)) {
        const name = z.queue.shift()!;
        const node = this.nodes.get(undefined, name);
        const ready = node?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
        const key = ready === 'False' ? TAINT_NOT_READY : ready === 'Unknown' ? TAINT_UNREACHABLE : undefined;
        if (!node || !key) continue;
        const timeAdded = rfc3339(now);
        work.push(
          this.patchTaints(name, (ts) => [
            ...ts.filter(
              (t) =>
                !(t.effect === 'NoExecute' && (t.key === TAINT_NOT_READY || t.key === TAINT_UNREACHABLE)),
            ),
            { key, effect: 'NoExecute', timeAdded },
          ]).then((ok) => {
            if (ok) this.stats.noExecuteTainted++;
            else z.queue.push(name);
          }),
        );
      }
    }
    await Promise.all(work);
    this.scheduleTaintPass();
  }

  /** read-modify-write of spec.taints with retries on conflict (controller.SwapNodeControllerTaint) */
  private async patchTaints(name: string, f: (ts: Taint[]) => Taint[]): Promise<boolean> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const node =
        attempt === 0
          ? this.nodes.get(undefined, name)
          : await this.deps.api.get<Node>('nodes', undefined, name).catch(() => undefined);
      if (!node) return false;
      const next = f(node.spec?.taints ?? []);
      if (JSON.stringify(next) === JSON.stringify(node.spec?.taints ?? [])) return true;
      try {
        await this.deps.api.update('nodes', { ...node, spec: { ...(node.spec ?? {}), taints: next } });
        return true;
      } catch (err) {
        if (!isConflict(err)) return false;
      }
    }
    return false;
  }
}

/** run jobs with at most `workers` in flight (workqueue.ParallelizeUntil) */
export async function parallelize(workers: number, jobs: (() => Promise<void>)[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      try {
        await job();
      } catch {
        /* each job handles its own failures; keep going */
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, jobs.length) }, worker));
}

/**
 * The kubelet model: one object playing the kubelet of many nodes (a "fleet") behind ONE pod watch,
 * because a watch per node would cost the simulated ApiServer N× the fan-out without changing what
 * each kubelet sees. Per node it keeps what a kubelet keeps: its Lease, its pods, its image cache.
 *
 * - Heartbeats: the node Lease in kube-node-lease is renewed every 10 s (leaseDuration 40 s ×
 *   0.25, as the kubelet's nodeLeaseRenewIntervalFraction); node status (Ready=True with
 *   lastHeartbeatTime) is posted at start, on recovery and every 5 minutes (nodeStatusReportFrequency).
 * - Pod start-up, once a pod bound to a live node is seen: sandbox → CNI (pod IP) → image pull
 *   (skipped when the node's image cache has it; concurrent pulls of one image on a node share
 *   one download) → container start → status Running (written with updateStatus) → readiness
 *   probe (initialDelaySeconds + a random phase within periodSeconds) → Ready=True. Each phase
 *   draws from a seeded log-normal distribution.
 * - Volumes: a pod using PersistentVolumeClaims starts only once each is Bound to its volume
 *   (volumes.ts, WaitForAttachAndMount), checked again every second until then.
 * - DRA: a pod with `spec.resourceClaims` has its claims prepared first (dra.ts: reserved for it and
 *   allocated, else FailedPrepareDynamicResources and a retry; then each driver's seeded
 *   NodePrepareResources latency); a node's `devices` are published as ResourceSlices when it registers.
 * - Termination: a pod with deletionTimestamp is stopped within its grace period, then deleted
 *   with gracePeriodSeconds=0 (the kubelet's final delete).
 * - Failure: failNode() stops heartbeats and all pod work on the node (a powered-off machine);
 *   recoverNodes() resumes them and re-syncs the nodes' pods.
 *
 * - Run to completion: a pod with restartPolicy Never or OnFailure (a Job's pod) runs for a seeded
 *   log-normal duration, then exits: with probability failureProbability it fails — Never: phase
 *   Failed (exit code 1, reason Error); OnFailure: the container restarts in place after the
 *   kubelet's crash back-off (10 s doubling, at most 5 min), restartCount + 1 — otherwise phase
 *   Succeeded (exit code 0, reason Completed). Duration and probability come from the first
 *   {@link RunRule} whose labels the pod carries (the scenario's `runs:`), else {@link DEFAULT_RUN}.
 *
 * - Node-pressure eviction (when the scenario gives `usage:` or settings.kubelet): the eviction
 *   manager (eviction-manager.ts) posts MemoryPressure/DiskPressure/PIDPressure and evicts pods;
 *   an evicted pod's containers stop and it stays in the API with phase Failed, reason Evicted.
 *
 * Simplified: restartPolicy Always containers never crash or restart; probes succeed on their first
 * try.
 */
import { registeredNodeInfo } from '../api/kinds.js';
import type { Lease, Node, NodeCondition, Pod, PodCondition } from '../api/types.js';
import { type ApiClient, isConflict, isNotFound, keyOf } from '../client/api.js';
import type { InformerFactory } from '../client/factory.js';
import type { Informer } from '../client/informer.js';
import type { Clock, TimerHandle } from '../util/clock.js';
import type { Rng } from '../util/rng.js';
import { rfc3339, rfc3339Micro } from '../api/time.js';
import { isPodReady } from '../controllers/pod-util.js';
import type { EventRecorder } from '../client/events.js';
import type { PressureCondition, Threshold } from './eviction.js';
import { EvictionManager } from './eviction-manager.js';
import type { KubeletEvictionSettings, Latency, RunRule, UsageRule } from './settings.js';
import { podResourceClaims } from '../api/resource-claims.js';
import { type NodeDevices, resourceSliceFor } from '../api/resource-slices.js';
import { claimsToPrepare, FAILED_PREPARE_REASON, PREPARE_RETRY_MS, prepareLatency } from './dra.js';
import {
  FAILED_MOUNT_REASON,
  failedMountMessage,
  unboundVolumes,
  usesClaims,
  VOLUME_RETRY_MS,
} from './volumes.js';
import { LazyRenewals, type LazyNode, type RenewalElisionHost } from './lease-elision.js';

/** a seeded log-normal latency: median ms and sigma of the underlying normal */
export interface KubeletLatencies {
  sandbox: Latency;
  cni: Latency;
  imagePull: Latency;
  containerStart: Latency;
  /** time a container takes to exit after SIGTERM (capped by the grace period) */
  containerStop: Latency;
}

export const DEFAULT_LATENCIES: KubeletLatencies = {
  sandbox: { medianMs: 600, sigma: 0.3 },
  cni: { medianMs: 150, sigma: 0.4 },
  imagePull: { medianMs: 4000, sigma: 0.6 },
  containerStart: { medianMs: 300, sigma: 0.3 },
  containerStop: { medianMs: 1500, sigma: 0.8 },
};

/** a Job pod nobody described: about 30 s, never fails */
export const DEFAULT_RUN: RunRule = {
  matchLabels: {},
  duration: { medianMs: 30_000, sigma: 0.5 },
  failureProbability: 0,
};

/** the kubelet's container restart back-off: 10 s doubling up to 5 min */
export const CRASH_BACKOFF_MS = 10_000;
export const MAX_CRASH_BACKOFF_MS = 300_000;

export interface KubeletOptions {
  /** run-to-completion pods: the first rule whose labels match (default DEFAULT_RUN) */
  runs?: RunRule[];
  api: ApiClient;
  clock: Clock;
  informers: InformerFactory;
  rng: Rng;
  latencies?: Partial<KubeletLatencies>;
  leaseDurationSeconds?: number;
  /** default 10 s */
  leaseRenewIntervalMs?: number;
  /** default 5 min */
  nodeStatusReportMs?: number;
  /** records the kubelet's pod events (FailedPrepareDynamicResources) */
  recorder?: EventRecorder;
  /** NodePrepareResources latency per DRA driver name (`default`: any other driver) */
  draPrepare?: Record<string, Latency>;
  /**
   * elide the Lease renewals no one can tell from not sending them (lease-elision.ts); only for a
   * simulation whose requests and watch events take no virtual time
   */
  elision?: RenewalElisionHost;
  /** the devices a node's DRA drivers publish as ResourceSlices when the node registers */
  devices?: (node: Node) => readonly NodeDevices[];
  /** node-pressure eviction: the kubelet settings, the usage rules, and an event recorder */
  eviction?: {
    settings: KubeletEvictionSettings;
    thresholds: Threshold[];
    usage: UsageRule[];
    recorder: EventRecorder;
  };
}

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

interface NodeState extends LazyNode {
  name: string;
  index: number;
  alive: boolean;
  lease?: Lease;
  /** a renewal (or the Lease's creation) is in flight */
  renewing?: boolean;
  /** the last renewal was elided: the stored Lease has an older renewTime */
  leaseStale?: boolean;
  /** the heartbeat: renew, and post status when the node does not report Ready */
  beat?: () => void;
  heartbeat?: TimerHandle;
  statusTimer?: TimerHandle;
  /** image → virtual time the image is (or will be) present */
  images: Map<string, number>;
  nextIp: number;
  /** a status write is in flight */
  posting?: boolean;
  /** pressure conditions the eviction manager reports True */
  pressure?: PressureCondition[];
}

interface PodState {
  key: string;
  node: string;
  timers: TimerHandle[];
  started: boolean;
  terminating: boolean;
  ip?: string;
  /** container restarts (restartPolicy OnFailure) */
  restarts?: number;
  /** a run-to-completion pod exited: phase Succeeded or Failed */
  finished?: boolean;
  /** virtual time the containers started */
  startedAt?: number;
}

export class KubeletFleet {
  private readonly nodes = new Map<string, NodeState>();
  private readonly pods = new Map<string, PodState>();
  /** the same pod states by node, each set in the order of `pods` (a failure or recovery visits one node's) */
  private readonly podsOnNode = new Map<string, Set<PodState>>();
  /**
   * pods bound to a node not adopted yet, by node: a fleet started on an existing cluster (a
   * `serve` taking over as leader) may hear of a node's pods before the node itself
   */
  private readonly unadopted = new Map<string, Set<string>>();
  private readonly podInformer: Informer<Pod>;
  private readonly nodeInformer: Informer<Node>;
  private readonly lat: KubeletLatencies;
  private readonly rng: Rng;
  private nodeCount = 0;
  /** metrics the simulation reads */
  stats = {
    leaseRenewals: 0,
    statusWrites: 0,
    writeErrors: 0,
    imagePulls: 0,
    podsStarted: 0,
    podsTerminated: 0,
    /** pods whose claims were prepared, and failed preparations (each retried) */
    claimsPrepared: 0,
    prepareFailures: 0,
  };
  /** node-pressure eviction, when the scenario turns it on */
  readonly evictionManager?: EvictionManager;
  /** elided Lease renewals (lease-elision.ts), when opts.elision is given */
  readonly lazy?: LazyRenewals;

  constructor(private readonly opts: KubeletOptions) {
    this.lat = { ...DEFAULT_LATENCIES, ...(opts.latencies ?? {}) };
    this.rng = opts.rng.fork('kubelet');
    this.podInformer = opts.informers.for<Pod>('pods');
    this.nodeInformer = opts.informers.for<Node>('nodes');
    this.nodeInformer.addEventHandler({
      onAdd: (n) => this.adoptNode(n),
      onUpdate: (_o, n) => this.nodeChanged(n),
      onDelete: (n) => this.forgetNode(n.metadata.name!),
    });
    if (opts.elision) {
      this.lazy = new LazyRenewals(
        opts.elision,
        opts.leaseRenewIntervalMs ?? 10_000,
        (n) => {
          this.stats.leaseRenewals++;
          (n as NodeState).leaseStale = true;
        },
        (n, at, prev) => {
          const s = n as NodeState;
          if (s.beat) s.heartbeat = opts.elision!.setTimerAt(s.beat, at, prev);
        },
      );
    }
    this.podInformer.addEventHandler({
      onAdd: (p) => this.onPod(p),
      onUpdate: (_o, p) => this.onPod(p),
      onDelete: (p) => this.dropPod(keyOf(p)),
    });
    const ev = opts.eviction;
    if (ev) {
      this.evictionManager = new EvictionManager(
        {
          clock: opts.clock,
          rng: this.rng.fork('eviction'),
          nodes: () =>
            [...this.nodes.values()]
              .filter((n) => n.alive)
              .map((n) => this.nodeInformer.get(undefined, n.name))
              .filter((n): n is Node => !!n),
          pods: (node) =>
            [...(this.podsOnNode.get(node) ?? [])]
              .filter((p) => p.started && !p.terminating && !p.finished)
              .map((p) => ({ pod: this.podInformer.getByKey(p.key), startedAt: p.startedAt ?? 0 }))
              .filter((x): x is { pod: Pod; startedAt: number } => !!x.pod),
          evict: (pod, message) => this.evictPod(pod, message),
          setPressure: (node, conditions) => {
            const n = this.nodes.get(node);
            if (!n) return;
            n.pressure = conditions;
            if (!n.posting) this.postStatus(n);
          },
          event: (obj, type, reason, message) => ev.recorder.event(obj, type, reason, message),
        },
        ev.settings,
        ev.thresholds,
        ev.usage,
      );
      this.evictionManager.start();
    }
  }

  /**
   * The eviction manager's kill: the containers stop and the pod is posted Failed, reason Evicted,
   * with a DisruptionTarget condition (upstream: killPodFunc + the pod status the manager sets).
   */
  private evictPod(pod: Pod, message: string): void {
    const st = this.pods.get(keyOf(pod));
    if (!st || st.finished) return;
    for (const t of st.timers) this.clock.clearTimer(t);
    st.timers = [];
    st.finished = true;
    const now = rfc3339(this.clock.now());
    const conditions = [
      ...(pod.status?.conditions ?? [])
        .filter((c) => c.type !== 'DisruptionTarget')
        .map((c) =>
          c.type === 'Ready' || c.type === 'ContainersReady'
            ? { ...c, status: 'False' as const, lastTransitionTime: now }
            : c,
        ),
      {
        type: 'DisruptionTarget',
        status: 'True' as const,
        reason: 'TerminationByKubelet',
        message,
        lastTransitionTime: now,
      },
    ];
    const startedAt = pod.status?.startTime ?? now;
    void this.postPodStatus(
      st,
      {
        ...pod,
        status: {
          ...(pod.status ?? {}),
          phase: 'Failed',
          reason: 'Evicted',
          message,
          conditions,
          containerStatuses: terminatedStatuses(pod, st, 137, 'ContainerStatusUnknown', startedAt, now),
        },
      },
      0,
      async () => this.evictPod(pod, message),
    );
  }

  private get clock(): Clock {
    return this.opts.clock;
  }
  private get api(): ApiClient {
    return this.opts.api;
  }
  private draw(l: Latency): number {
    return Math.max(1, Math.round(this.rng.logNormal(l.medianMs, l.sigma)));
  }

  isAlive(node: string): boolean {
    return this.nodes.get(node)?.alive ?? false;
  }
  get nodeNames(): string[] {
    return [...this.nodes.keys()];
  }

  /**
   * Elided renewals (lease-elision.ts): book those due before virtual time `t` and make those due at
   * `t` real timers; `through`: book those at `t` too (the run ends there)
   */
  catchUpRenewals(t: number, through = false): void {
    this.lazy?.catchUp(t, through);
  }

  /** a request of node `key`'s kubelet took a token of its client bucket (ServerClient.onTake) */
  tokenTaken(key: string): void {
    const n = this.lazy && this.nodes.get(key);
    if (n) this.lazy!.tokenTaken(n);
  }

  /**
   * The virtual time of the node's last Lease renewal that was elided, not written (the node
   * lifecycle controller's NodeLeaseFreshness): a probe of its health the Lease informer never sees.
   */
  elidedRenewal(node: string): number | undefined {
    return this.nodes.get(node)?.elidedAt;
  }

  /**
   * Writes each Lease whose last renewal was elided with that renewal's renewTime, so that a reader
   * sees what the kubelet would have written (the simulation calls it when its run ends). Not
   * counted as renewals: they were counted when they were elided.
   */
  async writeElidedLeases(): Promise<void> {
    for (const n of this.nodes.values()) {
      if (!n.leaseStale || !n.lease || n.elidedAt === undefined) continue;
      const l = n.lease;
      try {
        n.lease = await this.api.update<Lease>('leases', {
          ...l,
          spec: { ...l.spec, holderIdentity: n.name, renewTime: rfc3339Micro(n.elidedAt) },
        });
        n.leaseStale = false;
      } catch {
        this.stats.writeErrors++;
      }
    }
  }

  /** a node update: a node that no longer reports Ready gets real beats (they post its status) */
  private nodeChanged(node: Node): void {
    const n = this.lazy && this.nodes.get(node.metadata.name!);
    if (!n || n.lazyAt === undefined) return;
    if (node.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True') this.lazy!.wake(n);
  }

  /** a powered-off node: no heartbeats, no pod work */
  failNode(name: string): void {
    const n = this.nodes.get(name);
    if (!n || !n.alive) return;
    n.alive = false;
    this.lazy?.stop(n);
    if (n.heartbeat) this.clock.clearTimer(n.heartbeat);
    if (n.statusTimer) this.clock.clearTimer(n.statusTimer);
    for (const p of this.podsOnNode.get(name) ?? []) {
      for (const t of p.timers) this.clock.clearTimer(t);
      p.timers = [];
    }
  }

  /**
   * The nodes boot again, one after the other: status and lease at once, then each node's pods are
   * re-synced. The pod cache is read once for all of them (a zone of 1,667 nodes coming back read it
   * once per node).
   */
  recoverNodes(names: readonly string[]): void {
    const recovering = names.filter((name) => {
      const n = this.nodes.get(name);
      return n !== undefined && !n.alive;
    });
    if (!recovering.length) return;
    const podsOf = new Map<string, Pod[]>(recovering.map((name) => [name, []]));
    for (const p of this.podInformer.list()) podsOf.get(p.spec.nodeName ?? '')?.push(p);
    for (const name of recovering) {
      const n = this.nodes.get(name)!;
      if (n.alive) continue;
      n.alive = true;
      // pods that were mid-start-up begin again (containers did not survive the reboot)
      for (const p of [...(this.podsOnNode.get(name) ?? [])]) this.forgetPod(p.key);
      // the kubelet's first Lease renewal comes at a random point of its renew interval, as for a
      // node that registers: machines of a zone that comes back do not boot in the same millisecond,
      // and renewals in lockstep would hit max-in-flight every interval for the rest of the run
      this.startHeartbeats(n, this.rng.next() * (this.opts.leaseRenewIntervalMs ?? 10_000));
      this.postStatus(n);
      for (const p of podsOf.get(name)!) this.onPod(p, true);
    }
  }

  private trackPod(st: PodState): void {
    this.pods.set(st.key, st);
    let on = this.podsOnNode.get(st.node);
    if (!on) this.podsOnNode.set(st.node, (on = new Set()));
    on.add(st);
  }

  private forgetPod(key: string): void {
    const st = this.pods.get(key);
    if (!st) return;
    this.pods.delete(key);
    this.podsOnNode.get(st.node)?.delete(st);
  }

  private adoptNode(node: Node): void {
    const name = node.metadata.name!;
    if (this.nodes.has(name)) return;
    const n: NodeState = { name, index: this.nodeCount++, alive: true, images: new Map(), nextIp: 2 };
    for (const img of node.status?.images ?? []) for (const nm of img.names ?? []) n.images.set(nm, 0);
    this.nodes.set(name, n);
    // a random phase so that thousands of nodes do not heartbeat in the same instant
    this.startHeartbeats(n, this.rng.next() * (this.opts.leaseRenewIntervalMs ?? 10_000));
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    if (ready?.status !== 'True') this.postStatus(n);
    else this.scheduleStatusReport(n);
    const parked = this.unadopted.get(name);
    this.unadopted.delete(name);
    for (const key of parked ?? []) {
      const p = this.podInformer.getByKey(key);
      if (p) this.onPod(p);
    }
    for (const d of this.opts.devices?.(node) ?? []) void this.publishSlice(node, d);
  }

  /** the node's DRA driver publishes its devices (one ResourceSlice; one already there is kept) */
  private async publishSlice(node: Node, devices: NodeDevices): Promise<void> {
    try {
      await this.api.create('resourceslices', resourceSliceFor(node, devices));
    } catch {
      this.stats.writeErrors++;
    }
  }

  private forgetNode(name: string): void {
    this.unadopted.delete(name);
    this.failNode(name);
    this.nodes.delete(name);
  }

  private startHeartbeats(n: NodeState, firstDelayMs: number): void {
    const every = this.opts.leaseRenewIntervalMs ?? 10_000;
    const beat = () => {
      if (!n.alive) return;
      // nodeStatusUpdateFrequency (10 s): post status when it differs from what the kubelet
      // reports (e.g. the node controller set Ready=Unknown while we were unreachable)
      const ready = this.nodeInformer
        .get(undefined, n.name)
        ?.status?.conditions?.find((c) => c.type === 'Ready');
      // a beat that only renews, alone in its instant: elided (lease-elision.ts)
      if (ready?.status === 'True' && n.lease && !n.renewing && this.lazy?.tryElide(n, this.clock.now())) {
        n.heartbeat = undefined;
        return;
      }
      n.heartbeat = this.clock.setTimer(beat, every);
      void this.renewLease(n);
      if (ready?.status !== 'True' && !n.posting) this.postStatus(n);
    };
    n.beat = beat;
    n.heartbeat = this.clock.setTimer(beat, firstDelayMs);
  }

  private async renewLease(n: NodeState): Promise<void> {
    const now = rfc3339Micro(this.clock.now());
    n.renewing = true;
    try {
      if (!n.lease) {
        try {
          n.lease = await this.api.get<Lease>('leases', NODE_LEASE_NAMESPACE, n.name);
        } catch (err) {
          if (!isNotFound(err)) throw err;
          n.lease = await this.api.create<Lease>('leases', {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name: n.name, namespace: NODE_LEASE_NAMESPACE },
            spec: {
              holderIdentity: n.name,
              leaseDurationSeconds: this.opts.leaseDurationSeconds ?? 40,
              renewTime: now,
            },
          });
          this.stats.leaseRenewals++;
          return;
        }
      }
      const l = n.lease!;
      n.lease = await this.api.update<Lease>('leases', {
        ...l,
        spec: { ...l.spec, holderIdentity: n.name, renewTime: now },
      });
      n.leaseStale = false;
      this.stats.leaseRenewals++;
    } catch (err) {
      this.stats.writeErrors++;
      if (isConflict(err) || isNotFound(err)) n.lease = undefined; // re-read next time
    } finally {
      n.renewing = false;
    }
  }

  private scheduleStatusReport(n: NodeState): void {
    if (n.statusTimer) this.clock.clearTimer(n.statusTimer);
    n.statusTimer = this.clock.setTimer(() => {
      if (n.alive) this.postStatus(n);
    }, this.opts.nodeStatusReportMs ?? 300_000);
  }

  /** post node status: Ready=True and healthy pressure conditions, with a fresh heartbeat time */
  private postStatus(n: NodeState, attempt = 0): void {
    const node = this.nodeInformer.get(undefined, n.name);
    if (!node || !n.alive) return;
    const now = rfc3339(this.clock.now());
    const prev = node.status?.conditions ?? [];
    const cond = (type: string, status: 'True' | 'False', reason: string, message: string): NodeCondition => {
      const p = prev.find((c) => c.type === type);
      return {
        type,
        status,
        reason,
        message,
        lastHeartbeatTime: now,
        lastTransitionTime: p?.status === status ? (p.lastTransitionTime ?? now) : now,
      };
    };
    const p = (c: PressureCondition) => n.pressure?.includes(c) ?? false;
    // upstream: pkg/kubelet/nodestatus setters MemoryPressureCondition, DiskPressureCondition, PIDPressureCondition
    const conditions = [
      p('MemoryPressure')
        ? cond(
            'MemoryPressure',
            'True',
            'KubeletHasInsufficientMemory',
            'kubelet has insufficient memory available',
          )
        : cond(
            'MemoryPressure',
            'False',
            'KubeletHasSufficientMemory',
            'kubelet has sufficient memory available',
          ),
      p('DiskPressure')
        ? cond('DiskPressure', 'True', 'KubeletHasDiskPressure', 'kubelet has disk pressure')
        : cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
      p('PIDPressure')
        ? cond('PIDPressure', 'True', 'KubeletHasInsufficientPID', 'kubelet has insufficient PID available')
        : cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
      cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
    ];
    const images = [...n.images.keys()].map((name) => ({ names: [name], sizeBytes: 100_000_000 }));
    n.posting = true;
    this.api
      .updateStatus<Node>('nodes', {
        ...node,
        status: {
          ...(node.status ?? {}),
          conditions,
          images: images.length ? images : node.status?.images,
          // VersionInfo: a node registered without it gets this release's; a snapshot's keeps its own
          nodeInfo: node.status?.nodeInfo?.kubeletVersion
            ? node.status.nodeInfo
            : { ...node.status?.nodeInfo, ...registeredNodeInfo(node.metadata.labels) },
        },
      })
      .then(() => {
        n.posting = false;
        this.stats.statusWrites++;
        this.scheduleStatusReport(n);
      })
      .catch(() => {
        n.posting = false;
        this.stats.writeErrors++;
        // conflict with the node lifecycle controller: retry soon with the newer object
        if (attempt < 5) n.statusTimer = this.clock.setTimer(() => this.postStatus(n, attempt + 1), 200);
      });
  }

  /** @param restart the node came back: running pods' containers start again (they did not survive) */
  private onPod(pod: Pod, restart = false): void {
    const nodeName = pod.spec.nodeName;
    if (!nodeName) return;
    const n = this.nodes.get(nodeName);
    const key = keyOf(pod);
    if (!n) {
      let parked = this.unadopted.get(nodeName);
      if (!parked) this.unadopted.set(nodeName, (parked = new Set()));
      parked.add(key);
      return;
    }
    if (!n.alive) return;
    let st = this.pods.get(key);
    if (pod.metadata.deletionTimestamp) {
      if (!st) {
        st = { key, node: nodeName, timers: [], started: false, terminating: false };
        this.trackPod(st);
      }
      if (!st.terminating) this.terminate(st, pod);
      return;
    }
    if (st) return;
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return;
    st = { key, node: nodeName, timers: [], started: false, terminating: false };
    this.trackPod(st);
    if (!restart && phase === 'Running' && (pod.status?.podIP || isPodReady(pod))) {
      st.started = true;
      st.startedAt = this.clock.now();
      st.ip = pod.status?.podIP;
      return;
    } // already running (snapshot)
    if (restart && pod.status?.podIP) st.ip = pod.status.podIP;
    this.startPod(n, st, pod);
  }

  private after(st: PodState, ms: number, fn: () => void): void {
    const t = this.clock.setTimer(() => {
      st.timers = st.timers.filter((x) => x !== t);
      fn();
    }, ms);
    st.timers.push(t);
  }

  /**
   * SyncPod: a pod's volumes are attached and mounted before anything else (WaitForAttachAndMount,
   * volumes.ts): a pod using PersistentVolumeClaims waits until each is Bound to its volume, and is
   * looked at again every VOLUME_RETRY_MS until then.
   */
  private startPod(n: NodeState, st: PodState, pod: Pod): void {
    if (!usesClaims(pod)) {
      this.prepareClaims(n, st, pod);
      return;
    }
    void unboundVolumes(this.api, pod).then((w) => {
      if (!n.alive || this.pods.get(st.key) !== st || st.terminating) return;
      if (w.waiting.length === 0) return this.prepareClaims(n, st, pod);
      if (w.errors.length > 0)
        this.opts.recorder?.event(pod, 'Warning', FAILED_MOUNT_REASON, failedMountMessage(w));
      this.after(st, VOLUME_RETRY_MS, () => {
        const cur = this.podInformer.getByKey(st.key);
        if (cur && !cur.metadata.deletionTimestamp) this.startPod(n, st, cur);
      });
    });
  }

  /**
   * kuberuntime SyncPod: a pod with claims has them prepared before its sandbox is created (dra.ts);
   * a pod whose claims are not ready does not start and is tried again after the pod worker's back-off.
   */
  private prepareClaims(n: NodeState, st: PodState, pod: Pod): void {
    if (podResourceClaims(pod).length === 0) {
      this.createSandbox(n, st, pod);
      return;
    }
    void claimsToPrepare(this.api, pod).then((r) => {
      if (!n.alive || this.pods.get(st.key) !== st || st.terminating) return;
      if (r.error !== undefined) {
        this.stats.prepareFailures++;
        this.opts.recorder?.event(pod, 'Warning', FAILED_PREPARE_REASON, r.error);
        const retry = PREPARE_RETRY_MS + Math.floor(this.rng.next() * PREPARE_RETRY_MS * 0.5);
        this.after(st, retry, () => {
          const cur = this.podInformer.getByKey(st.key);
          if (cur && !cur.metadata.deletionTimestamp) this.prepareClaims(n, st, cur);
        });
        return;
      }
      let ms = 0;
      for (const d of r.drivers) ms += this.draw(prepareLatency(this.opts.draPrepare, d));
      this.after(st, ms, () => {
        this.stats.claimsPrepared++;
        this.createSandbox(n, st, pod);
      });
    });
  }

  private createSandbox(n: NodeState, st: PodState, pod: Pod): void {
    const sandbox = this.draw(this.lat.sandbox);
    const cni = this.draw(this.lat.cni);
    this.after(st, sandbox + cni, () => {
      st.ip ??= this.allocateIp(n);
      // images: pull what the node lacks; a pull in progress for the same image is shared
      const now = this.clock.now();
      let ready = now;
      for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
        const img = c.image ?? 'unknown';
        let at = n.images.get(img);
        if (at === undefined || c.imagePullPolicy === 'Always') {
          at = now + this.draw(this.lat.imagePull);
          n.images.set(img, at);
          this.stats.imagePulls++;
        }
        ready = Math.max(ready, at);
      }
      const start = this.draw(this.lat.containerStart);
      this.after(st, ready - now + start, () => this.markRunning(st, pod));
    });
  }

  private allocateIp(n: NodeState): string {
    const i = n.index;
    const host = n.nextIp;
    n.nextIp = n.nextIp >= 254 ? 2 : n.nextIp + 1;
    return `10.${64 + ((i >> 8) & 63)}.${i & 255}.${host}`;
  }

  private hostIp(nodeName: string): string {
    const i = this.nodes.get(nodeName)?.index ?? 0;
    return `172.${16 + ((i >> 16) & 15)}.${(i >> 8) & 255}.${i & 255}`;
  }

  private markRunning(st: PodState, pod: Pod): void {
    st.started = true;
    st.startedAt = this.clock.now();
    this.stats.podsStarted++;
    const probe = pod.spec.containers.find((c) => c.readinessProbe)?.readinessProbe;
    const readyNow = !probe;
    void this.writeStatus(st, readyNow);
    if (pod.spec.restartPolicy === 'Never' || pod.spec.restartPolicy === 'OnFailure')
      this.runToCompletion(st, pod);
    if (probe) {
      const delay =
        (probe.initialDelaySeconds ?? 0) * 1000 +
        Math.floor(this.rng.next() * (probe.periodSeconds ?? 10) * 1000);
      this.after(st, delay, () => void this.writeStatus(st, true));
    }
  }

  /** the rule for a run-to-completion pod */
  private runRule(pod: Pod): RunRule {
    const labels = pod.metadata.labels ?? {};
    for (const r of this.opts.runs ?? [])
      if (Object.entries(r.matchLabels).every(([k, v]) => labels[k] === v)) return r;
    return DEFAULT_RUN;
  }

  /** the containers run for a drawn duration, then the pod succeeds, fails or restarts */
  private runToCompletion(st: PodState, pod: Pod): void {
    const rule = this.runRule(pod);
    this.after(st, this.draw(rule.duration), () => {
      const fails = this.rng.next() < rule.failureProbability;
      if (!fails) return void this.writeFinished(st, 'Succeeded');
      if (pod.spec.restartPolicy === 'Never') return void this.writeFinished(st, 'Failed');
      st.restarts = (st.restarts ?? 0) + 1;
      void this.writeStatus(st, false);
      const backoff = Math.min(MAX_CRASH_BACKOFF_MS, CRASH_BACKOFF_MS * 2 ** Math.min(20, st.restarts - 1));
      this.after(st, backoff, () => {
        void this.writeStatus(st, true);
        this.runToCompletion(st, pod);
      });
    });
  }

  /** the pod's containers exited: a terminal phase (upstream: kubelet getPhase) */
  private async writeFinished(st: PodState, phase: 'Succeeded' | 'Failed', attempt = 0): Promise<void> {
    const cur = this.podInformer.getByKey(st.key);
    if (!cur || cur.metadata.deletionTimestamp || !this.isAlive(st.node)) return;
    st.finished = true;
    const now = rfc3339(this.clock.now());
    const startedAt = cur.status?.startTime ?? now;
    const ok = phase === 'Succeeded';
    const conditions = (cur.status?.conditions ?? []).map((c) =>
      c.type === 'Ready' || c.type === 'ContainersReady'
        ? { ...c, status: 'False' as const, reason: 'PodCompleted', lastTransitionTime: now }
        : c,
    );
    const status = {
      ...(cur.status ?? {}),
      phase,
      conditions,
      containerStatuses: terminatedStatuses(cur, st, ok ? 0 : 1, ok ? 'Completed' : 'Error', startedAt, now),
    };
    await this.postPodStatus(st, { ...cur, status }, attempt, () =>
      this.writeFinished(st, phase, attempt + 1),
    );
  }

  /** PUT pods/status; on a failed write (not a 404) try again after 100 ms × attempt, 5 times */
  private async postPodStatus(
    st: PodState,
    pod: Pod,
    attempt: number,
    again: () => Promise<void>,
  ): Promise<void> {
    try {
      await this.api.updateStatus<Pod>('pods', pod);
      this.stats.statusWrites++;
    } catch (err) {
      this.stats.writeErrors++;
      if (isNotFound(err)) return;
      if (attempt < 5) this.after(st, 100 * (attempt + 1), () => void again());
    }
  }

  private async writeStatus(st: PodState, ready: boolean, attempt = 0): Promise<void> {
    const cur = this.podInformer.getByKey(st.key);
    if (!cur || cur.metadata.deletionTimestamp || !this.isAlive(st.node) || st.finished) return;
    const now = rfc3339(this.clock.now());
    const prev = cur.status?.conditions ?? [];
    const cond = (type: string, status: boolean): PodCondition => {
      const s = status ? 'True' : 'False';
      const p = prev.find((c) => c.type === type);
      return { type, status: s, lastTransitionTime: p?.status === s ? (p.lastTransitionTime ?? now) : now };
    };
    const startedAt = cur.status?.startTime ?? now;
    const status = {
      ...(cur.status ?? {}),
      phase: 'Running' as const,
      hostIP: this.hostIp(st.node),
      podIP: st.ip,
      podIPs: st.ip ? [{ ip: st.ip }] : undefined,
      startTime: startedAt,
      conditions: [
        cond('PodReadyToStartContainers', true),
        cond('Initialized', true),
        cond('Ready', ready),
        cond('ContainersReady', ready),
        cond('PodScheduled', true),
      ],
      // what kubectl reads for READY and STATUS (upstream: kubelet's convertToAPIContainerStatuses)
      containerStatuses: cur.spec.containers.map((c) => ({
        name: c.name,
        image: c.image ?? '',
        imageID: '',
        ready,
        started: true,
        restartCount: st.restarts ?? 0,
        state: { running: { startedAt } },
      })),
    };
    await this.postPodStatus(st, { ...cur, status }, attempt, () => this.writeStatus(st, ready, attempt + 1));
  }

  private terminate(st: PodState, pod: Pod): void {
    st.terminating = true;
    for (const t of st.timers) this.clock.clearTimer(t);
    st.timers = [];
    const grace =
      (pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30) * 1000;
    const stop = st.started && !st.finished ? Math.min(grace, this.draw(this.lat.containerStop)) : 0;
    this.after(st, stop, () => {
      this.stats.podsTerminated++;
      const cur = this.podInformer.getByKey(st.key);
      this.api
        .delete('pods', pod.metadata.namespace, pod.metadata.name!, {
          gracePeriodSeconds: 0,
          preconditions: cur?.metadata.uid ? { uid: cur.metadata.uid } : undefined,
        })
        .catch(() => {
          this.stats.writeErrors++;
        });
    });
  }

  private dropPod(key: string): void {
    const st = this.pods.get(key);
    if (!st) return;
    for (const t of st.timers) this.clock.clearTimer(t);
    this.forgetPod(key);
  }
}

/** Every container of the pod terminated (exit code, reason), as the kubelet reports an exited pod. */
function terminatedStatuses(
  pod: Pod,
  st: { restarts?: number },
  exitCode: number,
  reason: string,
  startedAt: string,
  finishedAt: string,
) {
  return pod.spec.containers.map((c) => ({
    name: c.name,
    image: c.image ?? '',
    imageID: '',
    ready: false,
    started: false,
    restartCount: st.restarts ?? 0,
    state: { terminated: { exitCode, reason, startedAt, finishedAt } },
  }));
}

/**
 * The scheduler: {@link SchedulerCore} (snapshot + engine + one Framework per profile + the cycle,
 * usable offline by `kubesim schedule/explain` and capacity planning) and {@link Scheduler}, the
 * process that learns of pods and nodes ONLY through ApiServer watches (informers), schedules one
 * pod at a time from the SchedulingQueue, assumes it in its cache, and binds it through the
 * ApiServer's pods/binding (resourceVersion CAS; 409 when another scheduler won), forgetting the
 * assumption on failure — as kube-scheduler's scheduleOne / bindingCycle.
 *
 * Cycle (scheduleOne):
 *   pop → profile by spec.schedulerName → PreFilter/Filter/Score/selectHost
 *     → success: Reserve, Permit, assume, bind (async) → the watch event confirms the assumption
 *     → FitError: PostFilter (preemption: evict victims, set status.nominatedNodeName),
 *       PodScheduled=False condition + FailedScheduling event, back to the queue.
 */
import { rfc3339 } from '../api/time.js';
import type { PodDisruptionBudget } from '../api/batch-types.js';
import type { Binding, KubeObject, Namespace, Node, Pod, ReplicaSet, Service } from '../api/types.js';
import type {
  CSIDriver,
  CSIStorageCapacity,
  CSINode,
  PersistentVolume,
  PersistentVolumeClaim,
  StorageClass,
  VolumeAttachment,
} from '../api/storage-types.js';
import type { DeviceClass, ResourceClaim, ResourceObjects, ResourceSlice } from '../api/resource-types.js';
import type { ApiClient } from '../client/api.js';
import { keyOf } from '../client/api.js';
import { NO_EVENTS, type EventRecorder } from '../client/events.js';
import type { InformerFactory } from '../client/factory.js';
import type { Informer } from '../client/informer.js';
import { WallClock, type Clock } from '../util/clock.js';
import { Rng } from '../util/rng.js';
import { shallowCopy } from '../util/shallow-copy.js';
import { defaultSchedulerConfig, DEFAULT_SCHEDULER_NAME, type SchedulerConfig } from './config.js';
import type { CycleState } from './framework/cycle-state.js';
import type { Framework } from './framework/framework.js';
import { explainPod, type Explanation } from './framework/explain.js';
import { runSchedulingCycle, SchedulingAlgorithm, type CycleOutcome } from './framework/schedule-one.js';
import { podKey } from '../api/keys.js';
import { ClusterSnapshot, type NodeInfo } from './framework/snapshot.js';
import { podResourceClaims } from '../api/resource-claims.js';
import { Code, Status, type MaybeStatus } from './framework/status.js';
import type {
  ClusterEventKind,
  ClusterObjects,
  EnqueueExtensions,
  QueuedPodInfo,
} from './framework/types.js';
import { buildFrameworks, type OutOfTreeRegistry } from './plugins/registry.js';
import { SchedulingEngine } from './plugins/node-local.js';
import type { KernelName } from './engine/types.js';
import { SchedulingQueue } from './queue.js';

export interface SchedulerCoreOptions {
  config?: SchedulerConfig;
  /** node-local kernel: 'wasm' (build/scheduler.wasm; default) or 'js' (the reference; identical results) */
  kernel?: KernelName;
  /** seeds tie-breaks and preemption offsets */
  seed?: number | string;
  clock?: Clock;
  nodes?: Node[];
  /** pods already bound (spec.nodeName set) */
  pods?: Pod[];
  objects?: ClusterObjects;
  namespaces?: Namespace[];
  outOfTree?: OutOfTreeRegistry;
  /** extra score plugins (by out-of-tree name) with weights, appended to every profile */
  extraScore?: Map<string, number>;
  extraFilter?: string[];
  /** binds through an ApiServer (DefaultBinder); absent offline */
  bind?: (pod: Pod, nodeName: string) => Promise<MaybeStatus>;
  /** writes an object or its status through an ApiServer (PreBind); absent offline */
  update?: (obj: KubeObject, subresource?: 'status') => Promise<MaybeStatus>;
  /** waits on the scheduler's clock in a binding cycle (VolumeBinding's PreBind); absent offline */
  sleep?: (ms: number) => Promise<boolean>;
}

/** The outcome of scheduling one pod offline. */
export type PlacementOutcome = CycleOutcome & { pod: Pod; profile: string };

/**
 * Snapshot, engine, frameworks and the cycle driver. Synchronous and deterministic for a seed.
 */
export class SchedulerCore {
  readonly snapshot: ClusterSnapshot;
  readonly engine: SchedulingEngine;
  readonly frameworks: Map<string, Framework>;
  readonly algo: SchedulingAlgorithm;
  readonly rng: Rng;
  readonly clock: Clock;
  readonly config: SchedulerConfig;
  readonly objects: ClusterObjects;

  constructor(opts: SchedulerCoreOptions = {}) {
    this.config = opts.config ?? defaultSchedulerConfig();
    this.rng = new Rng(opts.seed ?? 1);
    this.clock = opts.clock ?? new WallClock();
    this.snapshot = new ClusterSnapshot();
    for (const ns of opts.namespaces ?? []) this.snapshot.setNamespace(ns);
    this.engine = new SchedulingEngine(this.snapshot, opts.kernel ?? 'wasm');
    for (const n of opts.nodes ?? []) this.snapshot.addNode(n);
    for (const p of opts.pods ?? []) if (p.spec.nodeName && !isTerminal(p)) this.snapshot.addPod(p);
    this.objects = opts.objects ?? {};
    this.frameworks = buildFrameworks(this.config, {
      engine: this.engine,
      outOfTree: opts.outOfTree,
      extraScore: opts.extraScore,
      extraFilter: opts.extraFilter,
      base: {
        snapshot: this.snapshot,
        rng: this.rng.fork('plugins'),
        clock: this.clock,
        objects: this.objects,
        bind: opts.bind,
        update: opts.update,
        sleep: opts.sleep,
      },
    });
    this.algo = new SchedulingAlgorithm(
      this.snapshot,
      this.rng.fork('selectHost'),
      this.config.percentageOfNodesToScore,
    );
  }

  /** the profile responsible for a pod (spec.schedulerName, default "default-scheduler") */
  frameworkFor(pod: Pod): Framework | undefined {
    return this.frameworks.get(pod.spec.schedulerName ?? DEFAULT_SCHEDULER_NAME);
  }

  /** one scheduling cycle (no assume); the state is returned for Reserve/Permit/Bind */
  schedule(pod: Pod): PlacementOutcome {
    const fwk = this.frameworkFor(pod);
    const profile = pod.spec.schedulerName ?? DEFAULT_SCHEDULER_NAME;
    if (!fwk) {
      return {
        kind: 'error',
        message: `pod ${podKey(pod)}: no profile for schedulerName "${profile}"`,
        state: undefined as unknown as CycleState,
        pod,
        profile,
      };
    }
    const out = runSchedulingCycle(this.algo, fwk, pod);
    // upstream handleSchedulingFailure: remember (or clear) the nomination preemption made
    if (out.kind === 'unschedulable' && out.postFilter?.nominatedNodeName !== undefined) {
      this.snapshot.nominator.set(pod, out.postFilter.nominatedNodeName);
    }
    // (the outcome is this cycle's own object: naming the pod and profile on it costs no copy)
    const placed = out as PlacementOutcome;
    placed.pod = pod;
    placed.profile = profile;
    return placed;
  }

  /**
   * "Why is my pod Pending?": the scheduler's real decision for the pod (the cycle `schedule`
   * runs), plus every filter's verdict on every node and every score plugin's raw and normalized
   * score (framework/explain.ts). Nothing is assumed or bound.
   * @throws Error when no profile serves the pod's schedulerName
   */
  explain(pod: Pod): Explanation {
    const fwk = this.frameworkFor(pod);
    if (!fwk)
      throw new Error(
        `pod ${podKey(pod)}: no profile for schedulerName "${pod.spec.schedulerName ?? DEFAULT_SCHEDULER_NAME}"`,
      );
    const ex = explainPod(this.algo, fwk, this.snapshot, pod);
    // DynamicResources explains each of the pod's claims on each node (dynamic-resources/explain.ts)
    const dra = fwk.allPlugins().find((p) => p.name === 'DynamicResources') as
      | { explainClaims?: (pod: Pod, nodes: readonly NodeInfo[]) => Explanation['claims'] }
      | undefined;
    if (dra?.explainClaims && podResourceClaims(pod).length > 0)
      ex.claims = dra.explainClaims(pod, this.snapshot.list());
    return ex;
  }

  /** Reserve + Permit on the chosen node, then assume (the pod counts on the node from now on) */
  reserveAndAssume(out: PlacementOutcome & { kind: 'scheduled' }): MaybeStatus {
    const fwk = this.frameworkFor(out.pod)!;
    const s = fwk.runReserve(out.state, out.pod, out.nodeName);
    if (s) {
      fwk.runUnreserve(out.state, out.pod, out.nodeName);
      return s;
    }
    const p = fwk.runPermit(out.state, out.pod, out.nodeName);
    if (p) {
      fwk.runUnreserve(out.state, out.pod, out.nodeName);
      return p;
    }
    this.assume(out.pod, out.nodeName, out.result.node);
    return null;
  }

  /** `node`: the cycle's NodeInfo of nodeName, if it has one (the snapshot checks it is still listed) */
  assume(pod: Pod, nodeName: string, node?: NodeInfo): Pod {
    const key = podKey(pod);
    this.snapshot.nominator.delete(key);
    const assumed = withNodeName(pod, nodeName);
    // the copy differs only in spec.nodeName: it adds what the cycle computed for the pod
    this.engine.assumeCopy(pod, assumed);
    this.snapshot.addPod(assumed, key, node);
    return assumed;
  }

  forget(pod: Pod): void {
    this.snapshot.removePod(podKey(pod));
  }

  /** plugin name → cluster events that may help pods it rejected (for the queue) */
  pluginEvents(): Map<string, ReadonlySet<ClusterEventKind>> {
    const m = new Map<string, ReadonlySet<ClusterEventKind>>();
    for (const fwk of this.frameworks.values()) {
      for (const p of fwk.allPlugins()) {
        const e = (p as Partial<EnqueueExtensions>).eventsToRegister;
        if (typeof e === 'function') m.set(p.name, new Set(e.call(p)));
      }
    }
    return m;
  }
}

/** the resources plugins write in PreBind, by kind */
const UPDATED_RESOURCES: Readonly<Record<string, string>> = {
  PersistentVolume: 'persistentvolumes',
  PersistentVolumeClaim: 'persistentvolumeclaims',
  ResourceClaim: 'resourceclaims',
};

/** A copy of the pod bound to `nodeName` (shallow: only spec is a new object). */
function withNodeName(pod: Pod, nodeName: string): Pod {
  const spec = shallowCopy(pod.spec);
  spec.nodeName = nodeName;
  const copy = shallowCopy(pod);
  copy.spec = spec;
  return copy;
}

/**
 * upstream isPodUpdated: did anything but status / resourceVersion / generation change? A pod
 * whose scheduler-visible fields did not change is not worth another attempt. One status field
 * counts: `resourceClaimStatuses`, which the ResourceClaim controller writes once it made the pod's
 * claims (upstream: framework/events.go PodSchedulingPropertiesChange reports
 * UpdatePodGeneratedResourceClaim, which DynamicResources registers for).
 */
export function isPodUpdated(old: Pod, cur: Pod): boolean {
  const strip = (p: Pod) => {
    const {
      resourceVersion: _rv,
      generation: _g,
      ...meta
    } = p.metadata as Pod['metadata'] & { managedFields?: unknown };
    delete (meta as { managedFields?: unknown }).managedFields;
    return JSON.stringify([meta, p.spec, p.status?.resourceClaimStatuses]);
  };
  return strip(old) !== strip(cur);
}

export function isTerminal(p: Pod): boolean {
  return p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
}

/** Options of the API-driven scheduler. */
export interface SchedulerOptions extends Omit<SchedulerCoreOptions, 'nodes' | 'pods' | 'bind' | 'clock'> {
  api: ApiClient;
  informers: InformerFactory;
  clock: Clock;
  recorder?: EventRecorder;
  /** identity in events (default "default-scheduler") */
  name?: string;
}

export interface SchedulerStats {
  scheduled: number;
  failedAttempts: number;
  bindErrors: number;
  preemptions: number;
}

/**
 * kube-scheduler as a process of the simulation: informers in, pods/binding out.
 * `start()` runs the loop until `stop()`; {@link scheduleOne} runs one cycle (tests, simulations).
 */
export class Scheduler {
  readonly core: SchedulerCore;
  readonly queue: SchedulingQueue;
  readonly stats: SchedulerStats = { scheduled: 0, failedAttempts: 0, bindErrors: 0, preemptions: 0 };
  private readonly api: ApiClient;
  private readonly recorder: EventRecorder;
  private readonly podInformer: Informer<Pod>;
  private readonly nodeInformer: Informer<Node>;
  private running = false;
  private loop?: Promise<void>;
  /** binds in flight (so tests can wait for them) */
  private readonly inflight = new Set<Promise<void>>();
  /** binding cycles sleeping on the clock, woken with false when the scheduler stops */
  private readonly sleepers = new Set<(ok: boolean) => void>();
  private stopped = false;
  readonly name: string;

  constructor(private readonly opts: SchedulerOptions) {
    this.api = opts.api;
    this.recorder = opts.recorder ?? NO_EVENTS;
    this.name = opts.name ?? DEFAULT_SCHEDULER_NAME;
    const objects: ClusterObjects = {};
    this.core = new SchedulerCore({
      ...opts,
      objects,
      bind: (pod, node) => this.bindThroughApi(pod, node),
      update: (obj, sub) => this.updateThroughApi(obj, sub),
      sleep: (ms) => this.sleep(ms),
    });
    this.queue = new SchedulingQueue({
      clock: opts.clock,
      podInitialBackoffMs: this.core.config.podInitialBackoffSeconds * 1000,
      podMaxBackoffMs: this.core.config.podMaxBackoffSeconds * 1000,
      pluginEvents: this.core.pluginEvents(),
    });
    this.podInformer = opts.informers.for<Pod>('pods');
    this.nodeInformer = opts.informers.for<Node>('nodes');
    const svc = opts.informers.for<Service>('services');
    const rs = opts.informers.for<ReplicaSet>('replicasets');
    const ns = opts.informers.for<Namespace>('namespaces');
    // PodTopologySpread's default constraints read these through the live listers
    Object.defineProperty(objects, 'services', { get: () => svc.list(), enumerable: true });
    Object.defineProperty(objects, 'replicaSets', { get: () => rs.list(), enumerable: true });
    objects.inNamespace = (kind, namespace) => (kind === 'services' ? svc : rs).list(namespace);
    // DefaultPreemption's PDB criterion reads the budgets the disruption controller keeps
    const pdbs = opts.informers.for<PodDisruptionBudget>('poddisruptionbudgets');
    Object.defineProperty(objects, 'podDisruptionBudgets', { get: () => pdbs.list(), enumerable: true });
    // the volume plugins read the storage listers
    const pvs = opts.informers.for<PersistentVolume>('persistentvolumes');
    const pvcs = opts.informers.for<PersistentVolumeClaim>('persistentvolumeclaims');
    const classes = opts.informers.for<StorageClass>('storageclasses');
    const csiNodes = opts.informers.for<CSINode>('csinodes');
    const csiDrivers = opts.informers.for<CSIDriver>('csidrivers');
    const vas = opts.informers.for<VolumeAttachment>('volumeattachments');
    const capacities = opts.informers.for<CSIStorageCapacity>('csistoragecapacities');
    objects.storage = {};
    Object.defineProperties(objects.storage, {
      persistentVolumes: { get: () => pvs.list(), enumerable: true },
      persistentVolumeClaims: { get: () => pvcs.list(), enumerable: true },
      storageClasses: { get: () => classes.list(), enumerable: true },
      csiNodes: { get: () => csiNodes.list(), enumerable: true },
      csiDrivers: { get: () => csiDrivers.list(), enumerable: true },
      volumeAttachments: { get: () => vas.list(), enumerable: true },
      csiStorageCapacities: { get: () => capacities.list(), enumerable: true },
    });
    // a claim bound, a volume provisioned, a class or CSINode added may help the volume plugins' pods
    const storageChanged = { onAdd: () => this.storageChanged(), onUpdate: () => this.storageChanged() };
    pvs.addEventHandler(storageChanged);
    pvcs.addEventHandler(storageChanged);
    classes.addEventHandler(storageChanged);
    csiNodes.addEventHandler(storageChanged);
    // VolumeBinding's EventsToRegister: a driver's capacity published or grown, a CSIDriver changed
    capacities.addEventHandler(storageChanged);
    csiDrivers.addEventHandler(storageChanged);
    // the DynamicResources plugin reads the resource.k8s.io listers; `revision` tells it when to re-read
    const deviceClasses = opts.informers.for<DeviceClass>('deviceclasses');
    const claims = opts.informers.for<ResourceClaim>('resourceclaims');
    const slices = opts.informers.for<ResourceSlice>('resourceslices');
    const resources: ResourceObjects = { revision: 0 };
    Object.defineProperties(resources, {
      deviceClasses: { get: () => deviceClasses.list(), enumerable: true },
      resourceClaims: { get: () => claims.list(), enumerable: true },
      resourceSlices: { get: () => slices.list(), enumerable: true },
    });
    objects.resources = resources;
    const resourceChanged = () => {
      resources.revision!++;
      this.queue.moveAllToActiveOrBackoffQueue('ResourceChange');
    };
    const onChange = { onAdd: resourceChanged, onUpdate: resourceChanged, onDelete: resourceChanged };
    deviceClasses.addEventHandler(onChange);
    claims.addEventHandler(onChange);
    slices.addEventHandler(onChange);
    ns.addEventHandler({
      onAdd: (n) => this.core.snapshot.setNamespace(n),
      onUpdate: (_o, n) => this.core.snapshot.setNamespace(n),
    });
    const nodeGuard = (fn: () => void, n: Node) => {
      try {
        fn();
      } catch (e) {
        this.recorder.event(n, 'Warning', 'SchedulerCache', `node not usable: ${(e as Error).message}`);
      }
    };
    this.nodeInformer.addEventHandler({
      onAdd: (n) =>
        nodeGuard(() => {
          this.core.snapshot.addNode(n);
          this.queue.moveAllToActiveOrBackoffQueue('NodeAdd');
        }, n),
      onUpdate: (_o, n) =>
        nodeGuard(() => {
          this.core.snapshot.updateNode(n);
          this.queue.moveAllToActiveOrBackoffQueue('NodeUpdate');
        }, n),
      onDelete: (n) =>
        nodeGuard(() => {
          this.core.snapshot.removeNode(n.metadata.name ?? '');
        }, n),
    });
    // a pod the cache cannot account (e.g. an unparsable quantity) must not break the watch
    const guard = (fn: () => void, p: Pod) => {
      try {
        fn();
      } catch (e) {
        this.recorder.event(p, 'Warning', 'FailedScheduling', `scheduler cache: ${(e as Error).message}`);
      }
    };
    this.podInformer.addEventHandler({
      onAdd: (p) => guard(() => this.onPod(undefined, p), p),
      onUpdate: (o, p) => guard(() => this.onPod(o, p), p),
      onDelete: (p) => guard(() => this.onPodDelete(p), p),
    });
  }

  private responsible(p: Pod): boolean {
    return this.core.frameworks.has(p.spec.schedulerName ?? DEFAULT_SCHEDULER_NAME);
  }

  private onPod(old: Pod | undefined, p: Pod): void {
    const key = podKey(p);
    // nominations come from pod status (ours or another scheduler's preemption)
    if (p.spec.nodeName || isTerminal(p)) this.core.snapshot.nominator.delete(key);
    else if (p.status?.nominatedNodeName) this.core.snapshot.nominator.set(p, p.status.nominatedNodeName);
    if (p.spec.nodeName) {
      // assigned (by us or anyone): the cache counts it; a terminal pod frees its node
      this.queue.delete(key);
      if (isTerminal(p)) {
        this.core.snapshot.removePod(key);
        this.queue.moveAllToActiveOrBackoffQueue('AssignedPodDelete');
        return;
      }
      this.core.snapshot.addPod(p);
      this.queue.moveAllToActiveOrBackoffQueue(old?.spec.nodeName ? 'AssignedPodUpdate' : 'AssignedPodAdd');
      return;
    }
    if (!this.responsible(p) || isTerminal(p) || p.metadata.deletionTimestamp) return;
    // SchedulingGates: a gated pod is not queued until its gates are removed
    if (((p.spec as { schedulingGates?: unknown[] }).schedulingGates ?? []).length > 0) return;
    if (this.core.snapshot.hasPod(key)) return; // assumed, binding in flight
    if (old) this.queue.update(p, isPodUpdated(old, p));
    else this.queue.add(p);
  }

  private onPodDelete(p: Pod): void {
    const key = podKey(p);
    this.queue.delete(key);
    this.core.snapshot.nominator.delete(key);
    if (this.core.snapshot.hasPod(key)) {
      this.core.snapshot.removePod(key);
      this.queue.moveAllToActiveOrBackoffQueue('AssignedPodDelete');
    }
  }

  /** starts informers and the scheduling loop */
  async start(): Promise<void> {
    await this.opts.informers.start();
    this.queue.run();
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        const qp = await this.queue.pop();
        if (!qp || !this.running) break;
        await this.scheduleQueued(qp);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopped = true;
    // binding cycles waiting on the clock end now (their context is cancelled)
    for (const wake of [...this.sleepers]) wake(false);
    this.queue.close();
    await this.loop;
    await this.idle();
  }

  /** waits until no bind is in flight */
  async idle(): Promise<void> {
    while (this.inflight.size) await Promise.all([...this.inflight]);
  }

  /** pops and schedules one pod if one is active; false when the queue had none */
  async scheduleOne(): Promise<boolean> {
    const qp = this.queue.tryPop();
    if (!qp) return false;
    await this.scheduleQueued(qp);
    return true;
  }

  private async scheduleQueued(qp: QueuedPodInfo): Promise<void> {
    const cycle = this.queue.schedulingCycle;
    // the informer's object is the truth; skip pods deleted or bound meanwhile
    const pod = this.podInformer.getByKey(keyOf(qp.pod)) ?? qp.pod;
    if (pod.spec.nodeName || !this.podInformer.getByKey(keyOf(pod))) {
      this.queue.done(qp.key);
      return;
    }
    let out: PlacementOutcome;
    try {
      out = this.core.schedule(pod);
    } catch (e) {
      this.fail(qp, cycle, pod, (e as Error).message, []);
      return;
    }
    if (out.kind === 'scheduled') {
      const s = this.core.reserveAndAssume(out);
      if (s) {
        this.fail(qp, cycle, pod, s.message(), s.plugin ? [s.plugin] : []);
        return;
      }
      const p = this.bindingCycle(qp, out);
      this.inflight.add(p);
      void p.finally(() => this.inflight.delete(p));
      return;
    }
    if (out.kind === 'error') {
      this.fail(qp, cycle, pod, out.message, []);
      return;
    }
    const fe = out.fitError;
    if (out.postFilter?.nominatedNodeName)
      await this.preempt(pod, out.postFilter.nominatedNodeName, out.postFilter.victims ?? []);
    this.fail(qp, cycle, pod, fe.message, [...fe.diagnosis.unschedulablePlugins]);
  }

  private async bindingCycle(
    qp: QueuedPodInfo,
    out: PlacementOutcome & { kind: 'scheduled' },
  ): Promise<void> {
    const fwk = this.core.frameworkFor(out.pod)!;
    const s =
      (await fwk.runPreBind(out.state, out.pod, out.nodeName)) ??
      (await fwk.runBind(out.state, out.pod, out.nodeName));
    if (s === null) {
      this.stats.scheduled++;
      this.queue.done(qp.key);
      this.recorder.event(
        out.pod,
        'Normal',
        'Scheduled',
        `Successfully assigned ${podKey(out.pod)} to ${out.nodeName}`,
      );
      return;
    }
    // forget the assumption; the pod goes back to the queue (a 409 means someone else bound it,
    // which the watch will show: the pod is then dropped from the queue). As upstream's
    // handleBindingCycleError → FailureHandler: a FailedScheduling event with the error and the
    // PodScheduled condition False, reason SchedulerError
    this.stats.bindErrors++;
    this.markFailed(out.pod, 'SchedulerError', s.message());
    fwk.runUnreserve(out.state, out.pod, out.nodeName);
    if (
      this.core.snapshot.nodeOfPod(podKey(out.pod)) === out.nodeName &&
      !this.podInformer.getByKey(keyOf(out.pod))?.spec.nodeName
    ) {
      this.core.forget(out.pod);
    }
    this.queue.addUnschedulable(qp, this.queue.schedulingCycle, []);
    this.queue.done(qp.key);
  }

  /** a wait on the scheduler's clock that {@link stop} cuts short (resolves false) */
  private sleep(ms: number): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => {
      const wake = (ok: boolean) => {
        this.sleepers.delete(wake);
        if (!ok) this.opts.clock.clearTimer(timer);
        resolve(ok);
      };
      const timer = this.opts.clock.setTimer(() => wake(true), ms);
      this.sleepers.add(wake);
    });
  }

  private storageChanged(): void {
    this.queue.moveAllToActiveOrBackoffQueue('StorageChange');
  }

  private async updateThroughApi(obj: KubeObject, subresource?: 'status'): Promise<MaybeStatus> {
    const resource = UPDATED_RESOURCES[obj.kind] ?? 'persistentvolumeclaims';
    try {
      if (subresource === 'status') await this.api.updateStatus(resource, obj);
      else await this.api.update(resource, obj);
      return null;
    } catch (e) {
      return new Status(Code.Error, [`updating ${obj.kind} "${obj.metadata.name}": ${(e as Error).message}`]);
    }
  }

  private async bindThroughApi(pod: Pod, nodeName: string): Promise<MaybeStatus> {
    const binding: Binding = {
      apiVersion: 'v1',
      kind: 'Binding',
      // like upstream's DefaultBinder: name, namespace and UID (no resourceVersion); the ApiServer
      // answers 409 when the pod is already assigned, so two schedulers can never both bind it
      metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid },
      target: { apiVersion: 'v1', kind: 'Node', name: nodeName },
    };
    try {
      await this.api.bind(binding);
      return null;
    } catch (e) {
      return new Status(Code.Error, [`binding rejected: ${(e as Error).message}`]);
    }
  }

  private async preempt(pod: Pod, nodeName: string, victims: Pod[]): Promise<void> {
    this.stats.preemptions++;
    for (const v of victims) {
      this.recorder.event(
        v,
        'Normal',
        'Preempted',
        `Preempted by pod ${pod.metadata.uid ?? podKey(pod)} on node ${nodeName}`,
      );
      try {
        await this.api.delete('pods', v.metadata.namespace, v.metadata.name ?? '');
      } catch {
        /* already gone */
      }
    }
    await this.patchStatus(pod, (st) => {
      st.nominatedNodeName = nodeName;
    });
  }

  private fail(qp: QueuedPodInfo, cycle: number, pod: Pod, message: string, plugins: string[]): void {
    this.stats.failedAttempts++;
    this.markFailed(pod, 'Unschedulable', message);
    this.queue.addUnschedulable(qp, cycle, plugins);
  }

  /** a FailedScheduling event and the PodScheduled=False condition with `reason` */
  private markFailed(pod: Pod, reason: 'Unschedulable' | 'SchedulerError', message: string): void {
    this.recorder.event(pod, 'Warning', 'FailedScheduling', message);
    void this.patchStatus(pod, (st) => {
      const cond = {
        type: 'PodScheduled',
        status: 'False' as const,
        reason,
        message,
        lastTransitionTime: rfc3339(this.opts.clock.now()),
      };
      st.conditions = [...(st.conditions ?? []).filter((c) => c.type !== 'PodScheduled'), cond];
    });
  }

  private async patchStatus(pod: Pod, edit: (st: NonNullable<Pod['status']>) => void): Promise<void> {
    const cur = this.podInformer.getByKey(keyOf(pod)) ?? pod;
    const next: Pod = structuredClone(cur);
    next.status ??= {};
    edit(next.status);
    try {
      await this.api.updateStatus('pods', next);
    } catch {
      /* stale resourceVersion: the next attempt writes again */
    }
  }
}

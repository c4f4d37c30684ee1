/**
 * A simulation run: an in-memory store and the ApiServer, and around them, as separate "processes"
 * each with its own informers and only the ApiServer in common: kube-controller-manager
 * (Deployment, ReplicaSet, DaemonSet, StatefulSet, EndpointSlice, node lifecycle, taint eviction, pod GC, garbage collector,
 * ResourceClaim, …), kube-scheduler (the real
 * one from src/scheduler, or the stand-in), the kubelet fleet, and an observer taking metrics.
 * The scenario's timeline acts through the ApiServer too (scaling, rollouts, node deletion), except
 * machine failures, which stop a kubelet — as pulling a power cord does.
 */
import { ApiServer } from '../api/apiserver.js';
import { rfc3339 } from '../api/time.js';
import { creationStage, inCreationOrder } from '../api/manifest.js';
import type { Deployment, KubeObject, Node, Pod } from '../api/types.js';
import type { ApiClient } from '../client/api.js';
import { ApiEventRecorder } from '../client/events.js';
import { InformerFactory } from '../client/factory.js';
import { DaemonSetController } from '../controllers/daemonset.js';
import { DeploymentController, rollbackDeployment } from '../controllers/deployment.js';
import { GarbageCollector } from '../controllers/garbagecollector.js';
import { StatefulSetController } from '../controllers/statefulset.js';
import { PersistentVolumeController } from '../controllers/pv-controller.js';
import { AttachDetachController } from '../controllers/attach-detach.js';
import { EndpointSliceController } from '../controllers/endpointslice.js';
import { CronJobController } from '../controllers/cronjob.js';
import { DisruptionController } from '../controllers/disruption.js';
import { HorizontalController } from '../controllers/hpa.js';
import { JobController } from '../controllers/job.js';
import { TtlAfterFinishedController } from '../controllers/ttl-after-finished.js';
import { NodeLifecycleController } from '../controllers/nodelifecycle.js';
import { PodGCController } from '../controllers/podgc.js';
import { ReplicaSetController } from '../controllers/replicaset.js';
import { ResourceClaimController } from '../controllers/resourceclaim.js';
import { TaintEvictionController } from '../controllers/taint-eviction.js';
import { LeaderElector } from '../controllers/leaderelection.js';
import { MemoryStore } from '../store/memory/store.js';
import type { KvStore } from '../store/types.js';
import { Rng } from '../util/rng.js';
import {
  type AdapterOptions,
  CLIENT_RATE_LIMITS,
  type ClientRateLimit,
  ServerClient,
} from '../client/server-client.js';
import { type DrainRecord, drainNode } from './drain.js';
import { KubeletFleet } from '../kubelet/kubelet.js';
import type { RenewalElisionHost } from '../kubelet/lease-elision.js';
import { CurveMetrics } from './metric-curves.js';
import { ownersFirst, rewriteOwnerUids } from './owner-order.js';
import { SimLoop } from './loop.js';
import { Observer } from './metrics.js';
import { nodesFromPools } from './scenario.js';
import type { Action, Scenario } from './scenario-types.js';
import type { NodeDevices } from '../api/resource-slices.js';
import { LABEL_NODE_POOL } from '../api/topology.js';
import { parseDuration } from '../util/scenario-input.js';
import { evictionThresholds } from '../kubelet/eviction-manager.js';
import type { ControllerName } from './scenario-knobs.js';
import { type SchedulerComponent, StandInScheduler } from './standin-scheduler.js';
import { createScheduler } from './scheduler-bridge.js';
import { startTiming } from './timing.js';
import { type RunOptions, type SimulationResult, summarize } from './result.js';
import { ClusterAutoscaler } from '../autoscaler/cluster-autoscaler.js';
import { type AutoscalerConfig, groupDevices, initialGroupNodes } from '../autoscaler/config.js';
import { loadUserPlugin, type LoadedUserPlugin, type UserPluginOptions } from '../scheduler/plugins/user.js';

/**
 * --endpointslice-updates-batch-period in the simulation. Real syncs take real time, so pod changes
 * coalesce; with zero-cost syncs on a virtual clock they would not, and every readiness change would
 * rewrite the service's slices. 1 s is a common production setting.
 */
export const ENDPOINTSLICE_BATCH_MS = 1000;

interface ControllerManager {
  informers: InformerFactory;
  rs: ReplicaSetController;
  deploy: DeploymentController;
  eps: EndpointSliceController;
  nlc: NodeLifecycleController;
  taint: TaintEvictionController;
  ds: DaemonSetController;
  podgc: PodGCController;
  job: JobController;
  ttl: TtlAfterFinishedController;
  disruption: DisruptionController;
  cronjob: CronJobController;
  hpa: HorizontalController;
  gc: GarbageCollector;
  sts: StatefulSetController;
  pv: PersistentVolumeController;
  attach: AttachDetachController;
  claims: ResourceClaimController;
}

export class Simulation {
  readonly loop: SimLoop;
  readonly store: KvStore;
  /** the store when it is the in-memory one (settled between steps, compacted synchronously) */
  private readonly memory?: MemoryStore;
  readonly server: ApiServer;
  readonly rng: Rng;
  readonly clients: Record<string, ServerClient> = {};
  kubelet!: KubeletFleet;
  cm!: ControllerManager;
  scheduler!: SchedulerComponent;
  schedulerKind = '';
  observer!: Observer;
  private readonly user: ServerClient;
  private readonly cms: ControllerManager[] = [];
  private readonly schedulers: SchedulerComponent[] = [];
  private readonly electors: {
    component: 'controller-manager' | 'scheduler';
    identity: string;
    elector: LeaderElector;
  }[] = [];
  private readonly leaderLog: { atMs: number; component: string; identity: string }[] = [];
  private readonly timelineResults: SimulationResult['timeline'] = [];
  private readonly failed = new Set<string>();
  private readonly drains: DrainRecord[] = [];
  private nodesByZone = new Map<string, string[]>();
  private allNodes: Node[] = [];
  /** owners the input's ownerReferences name but does not contain (owner-order.ts) */
  private readonly outsideOwners = new Set<string>();
  /** uid an object had in its input → the uid it was created with, over every createAll (nodes first) */
  private readonly createdUids = new Map<string, string>();
  private autoscaler?: ClusterAutoscaler;
  private autoscalerInformers?: InformerFactory;

  constructor(
    readonly scenario: Scenario,
    private readonly opts: RunOptions = {},
  ) {
    const seed = opts.seed ?? scenario.seed;
    this.rng = new Rng(seed);
    // an outside store (EtcdStore: `kubesim serve --etcd-servers`) answers over the network, so
    // there is nothing to settle between steps: only the in-memory store has queued deliveries
    this.loop = new SimLoop({
      settle: opts.store ? undefined : () => this.memory!.settle(),
      startMs: opts.startMs,
    });
    const clock = this.loop.clock;
    if (opts.store) this.store = opts.store;
    else this.store = this.memory = new MemoryStore({ clock });
    this.server = new ApiServer(this.store, {
      clock,
      seed,
      flowControl: {
        maxRequestsInflight: scenario.settings.maxRequestsInflight,
        maxMutatingRequestsInflight: scenario.settings.maxMutatingInflight,
      },
      onWatchHandlerError: (e) => {
        throw e;
      },
    });
    this.user = this.client('user');
  }

  /**
   * A client of the ApiServer; `limit` is its client-side QPS/burst (CLIENT_RATE_LIMITS), applied
   * unless settings.clientRateLimits is false.
   */
  private client(name: string, limit?: ClientRateLimit, limitKey?: AdapterOptions['limitKey']): ServerClient {
    const s = this.scenario.settings;
    const c = new ServerClient(this.server, {
      clock: this.loop.clock,
      rateLimit: s.clientRateLimits === false ? undefined : limit,
      limitKey,
      watchLatencyMs: s.watchLatencyMs,
      watchJitterMs: s.watchJitterMs,
      rng: this.rng.fork(`watch-${name}`),
    });
    this.clients[name] = c;
    if (this.rateLimiting) c.startRateLimits();
    return c;
  }

  /** set once the set-up is done: clients made from then on are rate-limited at once */
  private rateLimiting = false;

  private deps(api: ApiClient, informers: InformerFactory, component: string) {
    return {
      api,
      clock: this.loop.clock,
      informers,
      recorder: new ApiEventRecorder(api, this.loop.clock, component),
      rng: this.rng.fork(component),
    };
  }

  /** a controller's dependencies with its worker count (settings.controllers, v1.34 defaults) */
  private workers<D>(deps: D, controller: ControllerName): D & { workers: number } {
    return { ...deps, workers: this.scenario.settings.controllers[controller] };
  }

  /** create the cluster and workloads, start every component (with `standby`: none yet) */
  async setup(): Promise<void> {
    const sc = this.scenario;
    // the cluster: nodes as if registered by their kubelets
    const nodes = [
      ...sc.snapshotNodes.map((n) => structuredClone(n)),
      ...nodesFromPools(sc.pools),
      ...(sc.autoscaler ? initialGroupNodes(sc.autoscaler) : []),
    ];
    // a snapshot node keeps its uid until created (createAll maps it to the new one), so that the
    // ownerReferences of its mirror pods follow it instead of naming an outside owner
    for (const n of nodes) {
      delete n.metadata.resourceVersion;
      delete (n.metadata as { creationTimestamp?: string }).creationTimestamp;
    }
    const resume = this.opts.resume ?? false;
    if (!resume) await this.createAll(nodes, 'cluster');
    this.allNodes = nodes;
    // the snapshot's other objects exist before any process starts, and its bound pods keep the
    // status their kubelet reported: they run on their nodes from the start, as in the cluster
    if (!resume) {
      await this.createAll(
        sc.snapshotObjects.map((o) => structuredClone(o)),
        'cluster.snapshot',
        true,
      );
      await this.restoreStatuses(sc.snapshotObjects);
    }
    for (const n of nodes) {
      const z = n.metadata.labels?.['topology.kubernetes.io/zone'] ?? '';
      if (!this.nodesByZone.has(z)) this.nodesByZone.set(z, []);
      this.nodesByZone.get(z)!.push(n.metadata.name!);
    }

    if (!this.opts.standby) await this.startProcesses();
    if (!resume)
      await this.createAll(
        sc.workloads.map((o) => structuredClone(o)),
        'workloads',
      );
    if (!this.opts.standby) await this.startLate();
    // requests take virtual time from here on (the clock runs from now)
    this.server.setLatency(sc.settings.apiLatency);
    this.scheduleCompaction();
    // client-side rate limits apply to the run, not to the set-up (docs/sim.md)
    this.rateLimiting = true;
    for (const c of Object.values(this.clients)) c.startRateLimits();
  }

  /**
   * With `standby`: start the components set-up left out — what a `serve` does when it becomes the
   * leader of several over one etcd (server/leader.ts). Once only.
   */
  async startComponents(): Promise<void> {
    if (this.componentsStarted) return;
    await this.startProcesses();
    await this.startLate();
  }

  private componentsStarted = false;

  /** the components that work after the workloads exist: autoscaler, the timeline's actions */
  private async startLate(): Promise<void> {
    if (this.scenario.autoscaler) await this.startAutoscaler(this.scenario.autoscaler);
    // a resumed cluster has had its timeline already
    if (!this.opts.resume) this.scheduleTimeline();
  }

  /** observer, kubelet model, controller-manager(s) and scheduler(s) */
  private async startProcesses(): Promise<void> {
    this.componentsStarted = true;
    const sc = this.scenario;
    const clock = this.loop.clock;
    const obsInf = new InformerFactory(this.client('observer'), clock);
    this.observer = new Observer(obsInf, clock, this.loop.startMs, sc.settings.sampleEveryMs);

    // every kubelet is a client of its own: a bucket per node (a Lease and a Node are named after
    // their node, a pod's status names it in spec.nodeName)
    const kInf = new InformerFactory(
      this.client('kubelet', CLIENT_RATE_LIMITS.kubelet, (resource, obj, name) =>
        resource === 'pods'
          ? ((obj as Pod | undefined)?.spec?.nodeName ?? '')
          : (obj?.metadata?.name ?? name ?? ''),
      ),
      clock,
    );
    this.kubelet = new KubeletFleet({
      api: this.clients.kubelet,
      elision: this.elisionHost(),
      clock,
      informers: kInf,
      rng: this.rng.fork('kubelet'),
      latencies: sc.settings.latencies,
      runs: sc.runs,
      recorder: new ApiEventRecorder(this.clients.kubelet, clock, 'kubelet'),
      draPrepare: sc.settings.draPrepare,
      devices: devicesOf(sc),
      eviction: sc.settings.kubelet && {
        settings: sc.settings.kubelet,
        thresholds: evictionThresholds(
          sc.settings.kubelet,
          (v, w) => parseDuration(v, w),
          (p, m) => {
            throw new Error(`${sc.source}: ${p}: ${m}`);
          },
        ),
        usage: sc.usage ?? [],
        recorder: new ApiEventRecorder(this.clients.kubelet, clock, 'kubelet'),
      },
    });

    const fleet = this.kubelet;
    this.clients.kubelet.onTake = (key) => fleet.tokenTaken(key);
    await Promise.all([obsInf.start(), kInf.start()]);
    this.schedulerKind = this.opts.noScheduler
      ? 'none'
      : sc.settings.scheduler === 'real'
        ? 'kube-scheduler model (src/scheduler)'
        : 'stand-in scheduler (src/sim/standin-scheduler.ts)';
    if (!sc.settings.leaderElection) {
      this.cm = await this.startControllerManager('controller-manager');
      if (!this.opts.noScheduler) this.scheduler = await this.startScheduler('scheduler');
    } else {
      // two instances of each; only the Lease holder runs (and builds its informers) — as upstream
      const components = this.opts.noScheduler
        ? (['controller-manager'] as const)
        : (['controller-manager', 'scheduler'] as const);
      for (const component of components) {
        for (const i of [0, 1]) {
          const id = `${component}-${i}`;
          let proc: Promise<{ stop(): Promise<void> | void }> | undefined;
          const elector = new LeaderElector({
            api: this.client(
              `${id}-election`,
              component === 'scheduler' ? CLIENT_RATE_LIMITS.scheduler : CLIENT_RATE_LIMITS.controllerManager,
            ),
            clock,
            name: component === 'scheduler' ? 'kube-scheduler' : 'kube-controller-manager',
            identity: id,
            onStartedLeading: () => {
              this.leaderLog.push({ atMs: clock.now(), component, identity: id });
              proc =
                component === 'scheduler'
                  ? this.startScheduler(id).then((x) => {
                      this.scheduler = x;
                      return x;
                    })
                  : this.startControllerManager(id).then((x) => {
                      this.cm = x;
                      return { stop: () => this.stopControllerManager(x) };
                    });
            },
            onStoppedLeading: () => {
              void proc?.then((x) => x.stop());
              proc = undefined;
            },
          });
          this.electors.push({ component, identity: id, elector });
          elector.run();
        }
      }
      // let the first leaders start before the workloads arrive
      await this.loop.runFor(1000);
    }
  }

  /** the cluster-autoscaler model (cluster-autoscaler.ts): its own client and informers */
  private async startAutoscaler(config: AutoscalerConfig): Promise<void> {
    const api = this.client('cluster-autoscaler');
    const informers = new InformerFactory(api, this.loop.clock);
    this.autoscaler = new ClusterAutoscaler(
      {
        ...this.deps(api, informers, 'cluster-autoscaler'),
        api,
        startMs: this.loop.startMs,
        onNodeDeleted: (n) => this.kubelet.failNode(n),
      },
      config,
    );
    await informers.start();
    this.autoscaler.run();
    this.autoscalerInformers = informers;
  }

  private async startControllerManager(id: string): Promise<ControllerManager> {
    const clock = this.loop.clock;
    const sc = this.scenario;
    const api = this.client(id, CLIENT_RATE_LIMITS.controllerManager);
    // the shared informers and every controller are clients of their own (ClientBuilder)
    const informers = new InformerFactory(api.as('shared-informers'), clock);
    const deps = this.deps(api, informers, id);
    const ctl = (name: string) => ({ ...deps, api: api.as(name) });
    const cm: ControllerManager = {
      informers,
      rs: new ReplicaSetController({
        ...this.workers(ctl('replicaset'), 'replicaset'),
        recorder: new ApiEventRecorder(api, clock, 'replicaset-controller'),
      }),
      deploy: new DeploymentController({
        ...this.workers(ctl('deployment'), 'deployment'),
        recorder: new ApiEventRecorder(api, clock, 'deployment-controller'),
      }),
      eps: new EndpointSliceController(
        this.workers(ctl('endpointslice'), 'endpointslice'),
        ENDPOINTSLICE_BATCH_MS,
      ),
      nlc: new NodeLifecycleController(
        { ...ctl('node-controller'), recorder: new ApiEventRecorder(api, clock, 'node-controller') },
        {
          leaseFreshness: this.kubelet,
          nodeMonitorGracePeriodMs: sc.settings.nodeMonitorGracePeriodMs,
          evictionRate: sc.settings.evictionRate,
        },
      ),
      taint: new TaintEvictionController({
        ...ctl('taint-eviction-controller'),
        recorder: new ApiEventRecorder(api, clock, 'taint-eviction-controller'),
      }),
      ds: new DaemonSetController({
        ...this.workers(ctl('daemonset'), 'daemonset'),
        recorder: new ApiEventRecorder(api, clock, 'daemonset-controller'),
      }),
      podgc: new PodGCController(ctl('podgc')),
      job: new JobController({
        ...this.workers(ctl('job'), 'job'),
        recorder: new ApiEventRecorder(api, clock, 'job-controller'),
      }),
      ttl: new TtlAfterFinishedController(this.workers(ctl('ttlafterfinished'), 'ttlafterfinished')),
      disruption: new DisruptionController({
        ...this.workers(ctl('disruption'), 'disruption'),
        recorder: new ApiEventRecorder(api, clock, 'controllermanager'),
      }),
      cronjob: new CronJobController({
        ...this.workers(ctl('cronjob'), 'cronjob'),
        recorder: new ApiEventRecorder(api, clock, 'cronjob-controller'),
      }),
      hpa: new HorizontalController(
        {
          ...this.workers(ctl('horizontalpodautoscaling'), 'horizontalpodautoscaling'),
          recorder: new ApiEventRecorder(api, clock, 'horizontal-pod-autoscaler'),
        },
        new CurveMetrics(sc.metrics ?? [], clock, this.loop.startMs),
      ),
      gc: new GarbageCollector(this.workers(ctl('garbagecollector'), 'garbagecollector'), this.outsideOwners),
      sts: new StatefulSetController({
        ...this.workers(ctl('statefulset'), 'statefulset'),
        recorder: new ApiEventRecorder(api, clock, 'statefulset-controller'),
      }),
      pv: new PersistentVolumeController({
        ...ctl('persistentvolume-binder'),
        recorder: new ApiEventRecorder(api, clock, 'persistentvolume-controller'),
      }),
      attach: new AttachDetachController(ctl('attachdetach')),
      claims: new ResourceClaimController({
        ...ctl('resource-claim-controller'),
        recorder: new ApiEventRecorder(api, clock, 'resource_claim'),
      }),
    };
    this.cms.push(cm);
    await informers.start();
    cm.rs.run();
    cm.deploy.run();
    cm.eps.run();
    cm.nlc.run();
    cm.taint.run();
    cm.ds.run();
    cm.podgc.run();
    cm.job.run();
    cm.ttl.run();
    cm.disruption.run();
    cm.cronjob.run();
    cm.hpa.run();
    cm.gc.run();
    cm.sts.run();
    cm.pv.run();
    cm.attach.run();
    cm.claims.run();
    return cm;
  }

  /**
   * Stop a controller-manager's controllers and informers. With `wait`, resolve once every
   * worker's sync in progress has finished — only while the loop still runs: a sync waiting for a
   * client-side rate-limit token or a 429 retry waits on the virtual clock, which stands still
   * once the run has ended.
   */
  private async stopControllerManager(cm: ControllerManager, wait = true): Promise<void> {
    const stopped = Promise.all(controllersOf(cm).map((c) => c.stop()));
    if (wait) await stopped;
    cm.informers.stop();
  }

  private async startScheduler(id: string): Promise<SchedulerComponent> {
    const sc = this.scenario;
    const api = this.client(id, CLIENT_RATE_LIMITS.scheduler);
    const informers = new InformerFactory(api, this.loop.clock);
    const deps = this.deps(api, informers, 'default-scheduler');
    const plugins = this.opts.plugins ?? [];
    const s =
      sc.settings.scheduler === 'real'
        ? await createScheduler({
            ...deps,
            cycleMs: sc.settings.schedulerCycleMs,
            config: this.opts.schedulerConfig ?? sc.settings.schedulerConfig,
            outOfTree: plugins.length ? new Map(plugins.map((p) => [p.name, p.factory])) : undefined,
            extraScore: plugins.length
              ? new Map(plugins.filter((p) => p.isScore).map((p) => [p.name, p.weight]))
              : undefined,
            extraFilter: plugins.length ? plugins.filter((p) => p.isFilter).map((p) => p.name) : undefined,
          })
        : new StandInScheduler({ ...deps, cycleMs: sc.settings.schedulerCycleMs });
    await informers.start();
    await s.start();
    this.schedulers.push(s);
    return {
      start: () => {},
      stop: () => {
        s.stop();
        informers.stop();
      },
      get stats() {
        return s.stats;
      },
    };
  }

  /**
   * Creates objects as an install would: stage by stage (PriorityClasses and Namespaces before the
   * Pods that name them, CRDs before their custom resources; api/manifest.ts creationStage), each
   * stage finished before the next starts, in chunks below the mutating in-flight limit (setup is
   * not the experiment). Within a stage owners come before their dependents, whose
   * ownerReferences follow the uids the owners were given (owner-order.ts).
   */
  /** `restore`: snapshot objects, admitted where they were captured (pods keep their priority) */
  private async createAll(objs: KubeObject[], what: string, restore = false): Promise<void> {
    const chunk = Math.max(1, Math.min(100, this.scenario.settings.maxMutatingInflight || 100));
    const ordered = inCreationOrder(objs.map((object) => ({ object }))).map((x) => x.object);
    const uids = this.createdUids;
    for (let i = 0; i < ordered.length; ) {
      const stage = creationStage(ordered[i].kind);
      let end = i + 1;
      while (end < ordered.length && creationStage(ordered[end].kind) === stage) end++;
      for (const wave of ownersFirst(ordered.slice(i, end)))
        for (let j = 0; j < wave.length; j += chunk) {
          await Promise.all(
            wave.slice(j, j + chunk).map(async (o) => {
              try {
                rewriteOwnerUids(o, uids, this.outsideOwners);
                const made = restore
                  ? await this.server.create(o, { restore })
                  : await this.user.create(this.resourceOf(o), o);
                if (o.metadata.uid && made.metadata.uid) uids.set(o.metadata.uid, made.metadata.uid);
              } catch (err) {
                throw new Error(
                  `${this.scenario.source}: ${what}: ${o.kind} ${o.metadata.namespace ? o.metadata.namespace + '/' : ''}${o.metadata.name}: ${(err as Error).message}`,
                );
              }
            }),
          );
        }
      i = end;
    }
  }

  /**
   * Pods of the snapshot bound to a node in a running or finished phase get their status back (the
   * apiserver's create resets it to Pending, registry PrepareForCreate), as their kubelet posted it;
   * a Running pod without conditions is given Ready ones (the cluster generator writes only the phase).
   */
  private async restoreStatuses(objs: readonly KubeObject[]): Promise<void> {
    const now = rfc3339(this.loop.clock.now());
    const pods = objs.filter(
      (o): o is Pod =>
        o.kind === 'Pod' &&
        !!(o as Pod).spec?.nodeName &&
        ['Running', 'Succeeded', 'Failed'].includes((o as Pod).status?.phase ?? ''),
    );
    const chunk = Math.max(1, Math.min(100, this.scenario.settings.maxMutatingInflight || 100));
    for (let i = 0; i < pods.length; i += chunk)
      await Promise.all(
        pods.slice(i, i + chunk).map(async (p) => {
          const ns = p.metadata.namespace ?? 'default';
          try {
            const cur = await this.user.get<Pod>('pods', ns, p.metadata.name!);
            const status = { ...cur.status, ...structuredClone(p.status) };
            if (status.phase === 'Running' && !status.conditions?.length)
              status.conditions = ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({
                type,
                status: 'True',
                lastTransitionTime: now,
              }));
            status.startTime ??= now;
            await this.user.updateStatus('pods', { ...cur, status });
          } catch (err) {
            throw new Error(
              `${this.scenario.source}: cluster.snapshot: Pod ${ns}/${p.metadata.name}: status: ${(err as Error).message}`,
            );
          }
        }),
      );
  }

  /** The resource an object is created under (`priorityclasses`, `ingresses`), from the served kinds. */
  private resourceOf(o: KubeObject): string {
    return this.server.kinds.lookupKind(o.apiVersion, o.kind)?.resource ?? o.kind;
  }

  /**
   * Compact the store as kube-apiserver's compactor does (staging/src/k8s.io/apiserver/pkg/storage/
   * etcd3/compact.go, `compact`): every settings.compactionInterval (--etcd-compaction-interval,
   * default 5m) it notes the current revision and compacts to the one noted at the previous tick —
   * nothing on the first ("we don't compact on bootstrap"). So between one and two intervals of
   * history stay readable; a watch or list from before that gets 410 Gone and the informer relists.
   */
  private scheduleCompaction(): void {
    const every = this.scenario.settings.compactionIntervalMs;
    // an outside store (etcd) is compacted by serve (server/etcd-compactor.ts), as kube-apiserver does
    const store = this.memory;
    if (every <= 0 || !store) return;
    let noted = 0;
    const tick = () => {
      this.loop.clock.setTimer(tick, every);
      const rev = store.revision;
      if (noted > 0 && noted > store.compactRevision) store.compactSync({ revision: noted });
      noted = rev;
    };
    this.loop.clock.setTimer(tick, every);
  }

  private scheduleTimeline(): void {
    for (const e of this.scenario.timeline) {
      const entry = {
        atS: e.atMs / 1000,
        label: e.label,
        convergedAfterS: null as number | null,
        error: undefined as string | undefined,
      };
      this.timelineResults.push(entry);
      this.loop.clock.setTimer(() => {
        this.apply(e.action).catch((err) => {
          entry.error = (err as Error).message;
        });
      }, e.atMs);
    }
  }

  private deploymentRef(ref: string): [string, string] {
    const i = ref.indexOf('/');
    return i < 0 ? ['default', ref] : [ref.slice(0, i), ref.slice(i + 1)];
  }

  /** carry out one timeline action */
  async apply(a: Action): Promise<void> {
    const api = this.user;
    switch (a.kind) {
      case 'scale':
      case 'rollout': {
        const [ns, name] = this.deploymentRef(a.deployment);
        for (let attempt = 0; ; attempt++) {
          const d = await api.get<Deployment>('deployments', ns, name);
          if (a.kind === 'scale') d.spec.replicas = a.replicas;
          else {
            const c = a.container
              ? d.spec.template.spec.containers.find((x) => x.name === a.container)
              : d.spec.template.spec.containers[0];
            if (!c) throw new Error(`deployment ${ns}/${name} has no container ${a.container}`);
            c.image = a.image;
          }
          try {
            await api.update('deployments', d);
            return;
          } catch (err) {
            if (attempt > 5) throw err;
          }
        }
      }
      case 'rollback': {
        const [ns, name] = this.deploymentRef(a.deployment);
        await rollbackDeployment(api, ns, name, a.toRevision);
        return;
      }
      case 'nodeDown': {
        let names = a.nodes;
        if (names.length === 0) {
          const pool = this.allNodes
            .filter((n) => !a.pool || n.metadata.labels?.['node.kubernetes.io/pool'] === a.pool)
            .map((n) => n.metadata.name!)
            .filter((n) => !this.failed.has(n));
          names = this.rng.fork('nodeDown').shuffle(pool).slice(0, a.count);
        }
        for (const n of names) {
          this.kubelet.failNode(n);
          this.failed.add(n);
        }
        return;
      }
      case 'nodeUp': {
        const names = a.nodes.length ? a.nodes : [...this.failed];
        this.kubelet.recoverNodes(names);
        for (const n of names) this.failed.delete(n);
        return;
      }
      case 'zoneOutage':
      case 'zoneRecover': {
        const names = this.nodesByZone.get(a.zone);
        if (!names)
          throw new Error(`no nodes in zone ${a.zone} (zones: ${[...this.nodesByZone.keys()].join(', ')})`);
        if (a.kind === 'zoneRecover') {
          this.kubelet.recoverNodes(names);
          for (const n of names) this.failed.delete(n);
          return;
        }
        for (const n of names) {
          this.kubelet.failNode(n);
          this.failed.add(n);
        }
        return;
      }
      case 'deleteNode': {
        for (const n of a.nodes) {
          this.kubelet.failNode(n);
          await api.delete('nodes', undefined, n);
        }
        return;
      }
      case 'burst': {
        // all at once, as a client firing N requests concurrently would (this is what hits max-inflight)
        const t = a.template as Pod;
        await Promise.all(
          Array.from({ length: a.count }, (_, i) => {
            const p = structuredClone(t);
            p.metadata = {
              ...(p.metadata ?? {}),
              name: `${a.namePrefix}-${String(i).padStart(5, '0')}`,
              namespace: a.namespace,
            };
            return api.create('pods', p).catch(() => {});
          }),
        );
        return;
      }
      case 'apply':
        await this.createAll(
          a.objects.map((o) => structuredClone(o)),
          'timeline apply',
        );
        return;
      case 'delete':
        // Background: the garbage collector takes the dependents (kubectl delete's default)
        await api.delete(a.resource, a.namespace, a.name, { propagationPolicy: 'Background' });
        return;
      case 'drain': {
        const rec: DrainRecord = {
          node: a.node,
          startMs: this.loop.clock.now(),
          pods: 0,
          evicted: 0,
          refusals: 0,
          evictedAt: {},
        };
        this.drains.push(rec);
        await drainNode(this.user, this.loop.clock, a.node, rec, a.timeoutMs);
        return;
      }
      case 'killLeader': {
        if (!this.electors.length) throw new Error('killLeader needs settings.leaderElection: true');
        const e = this.electors.find((x) => x.component === a.component && x.elector.isLeader);
        if (!e) throw new Error(`no ${a.component} instance is leading`);
        e.elector.stop(); // the process dies without releasing its lease
        return;
      }
    }
  }

  /** Lease renewals are being elided (run() turns it on once set up, when the scenario allows it) */
  private eliding = false;

  /** what the kubelet fleet needs to elide renewals exactly (kubelet/lease-elision.ts) */
  private elisionHost(): RenewalElisionHost {
    const clock = this.loop.clock;
    const fc = this.server.flowControl;
    const idle = () => fc.inflightOf(true) === 0 && fc.inflightOf(false) === 0;
    return {
      setTimerAt: (fn, at, createdAt) => clock.setTimerAt(fn, at, createdAt),
      lone: () => this.eliding && this.loop.firedAtInstant === 0 && clock.peek() !== clock.now() && idle(),
      idle,
      tokensAt: (node, atMs) => this.clients.kubelet.tokensAt(node, atMs),
      book: (node, atMs, inflight) => {
        this.clients.kubelet.bookAnswered(node, atMs);
        fc.bookAdmitted(true, inflight);
      },
    };
  }

  /**
   * Whether a renewal alone in its instant has only the effects lease-elision.ts books: requests
   * and watch events take no virtual time (no apiLatency, no watch latency or jitter, the in-memory
   * store settled between instants), and nothing but the kubelets writes node Leases (no timeline
   * `apply` of a Lease or `delete` of leases).
   */
  private canElide(): boolean {
    const s = this.scenario.settings;
    if (this.opts.elideLeaseRenewals === false || !this.memory || !this.kubelet) return false;
    if (s.apiLatency || s.watchLatencyMs !== 0 || s.watchJitterMs !== 0) return false;
    return !this.scenario.timeline.some(
      (e) =>
        (e.action.kind === 'apply' && e.action.objects.some((o) => o.kind === 'Lease')) ||
        (e.action.kind === 'delete' && e.action.resource.toLowerCase().startsWith('lease')),
    );
  }

  /** run the scenario to its end and summarize */
  async run(): Promise<SimulationResult> {
    const timer = this.opts.timing ? await startTiming() : undefined;
    const wall0 = performance.now();
    await this.setup();
    if (this.canElide()) {
      this.eliding = true;
      this.loop.beforeInstant = (t, through) => this.kubelet.catchUpRenewals(t, through);
    }
    const sc = this.scenario;
    const start = this.loop.startMs;
    const end = start + sc.durationMs;
    const every = sc.settings.sampleEveryMs;
    let nextSample = start;
    const convergedAt: { t: number; ok: boolean }[] = [];
    const throttledTotal = () => {
      let n = 0;
      for (const c of Object.values(this.clients)) n += c.stats.tooManyRequests;
      return n;
    };
    while (nextSample <= end) {
      await this.loop.runUntil(nextSample);
      this.observer.sample(throttledTotal());
      convergedAt.push({ t: this.loop.clock.now(), ok: this.observer.converged() });
      this.opts.onProgress?.(this.loop.clock.now() - start, sc.durationMs);
      nextSample += every;
    }
    this.computeConvergence(convergedAt);
    const wallMs = performance.now() - wall0;
    // summarized before anything awaits: the state is read at the instant the run ended
    const result = this.summarize(wallMs);
    if (timer) result.timing = await timer.stop(this.clientCounts());
    if (this.eliding) {
      // the API view after the run: every Lease with its last renewal (what the kubelet wrote)
      this.eliding = false;
      this.loop.beforeInstant = undefined;
      await this.kubelet.writeElidedLeases();
      if (process.env.KUBESIM_DEBUG_ELISION)
        console.error('elision', JSON.stringify(this.kubelet.lazy?.stats), this.kubelet.stats.leaseRenewals);
    }
    await this.shutdown();
    return result;
  }

  /**
   * Time to converge after each action: within [action, next action), the time of the last sample
   * at which the cluster became converged (every deployment updated and available, every pod
   * ready) and stayed so until the window ends; null when it never settled in the window.
   */
  private computeConvergence(samples: { t: number; ok: boolean }[]): void {
    const start = this.loop.startMs;
    const times = this.scenario.timeline.map((e) => start + e.atMs);
    times.forEach((t0, i) => {
      const t1 = i + 1 < times.length ? times[i + 1] : Infinity;
      let since: number | null = null;
      for (const s of samples) {
        if (s.t < t0 || s.t >= t1) continue;
        if (s.ok && since === null) since = s.t;
        if (!s.ok) since = null;
      }
      this.timelineResults[i].convergedAfterS = since === null ? null : (since - t0) / 1000;
    });
  }

  /** watch events delivered to and requests made by every client so far */
  private clientCounts(): { watchEvents: number; requests: number } {
    let watchEvents = 0,
      requests = 0;
    for (const c of Object.values(this.clients)) {
      watchEvents += c.stats.watchEvents;
      requests += c.stats.requests;
    }
    return { watchEvents, requests };
  }

  /** stop every component (informers, controllers, schedulers, elections) */
  async shutdown(): Promise<void> {
    this.kubelet?.evictionManager?.stop();
    for (const e of this.electors) e.elector.stop();
    for (const s of this.schedulers) s.stop();
    this.autoscaler?.stop();
    this.autoscalerInformers?.stop();
    await Promise.all(this.cms.map((cm) => this.stopControllerManager(cm, false)));
  }

  private summarize(wallMs: number): SimulationResult {
    return summarize({
      scenario: this.scenario,
      seed: this.opts.seed ?? this.scenario.seed,
      startMs: this.loop.startMs,
      wallMs,
      collectEvents: this.opts.collectEvents !== false,
      observer: this.observer,
      flowControl: this.server.stats(),
      clients: Object.values(this.clients).map((c) => c.stats),
      taintEvictions: this.cms.flatMap((cm) => cm.taint.evictions),
      nodeLifecycle: this.cms.map((cm) => cm.nlc.stats),
      relists: this.cms.reduce((n, cm) => n + cm.informers.relists, 0) + this.observer.pods.relists,
      preemptions: this.schedulers.reduce((n, x) => n + (x.stats.preemptions ?? 0), 0),
      kubeletEvictions: this.kubelet.evictionManager?.records ?? [],
      leaders: this.leaderLog,
      timeline: this.timelineResults,
      drains: this.drains,
      nodes: this.allNodes.length,
      scheduler: this.schedulerKind,
      autoscaler: this.autoscaler?.result(),
    });
  }
}

/**
 * The DRA devices of a node made from a scenario pool (found by the node's pool label) or an
 * autoscaler node group (by its node-group label); nodes of other origins (snapshots publish their
 * own ResourceSlices) have none.
 */
function devicesOf(sc: Scenario): ((node: Node) => readonly NodeDevices[]) | undefined {
  const byPool = new Map(sc.pools.filter((p) => p.devices?.length).map((p) => [p.name, p.devices!]));
  const ofGroup = groupDevices(sc.autoscaler);
  if (byPool.size === 0) return ofGroup;
  return (node) => byPool.get(node.metadata.labels?.[LABEL_NODE_POOL] ?? '') ?? ofGroup?.(node) ?? [];
}

/** every controller of a controller-manager instance */
function controllersOf(cm: ControllerManager): { stop(): Promise<void> }[] {
  return [
    cm.rs,
    cm.deploy,
    cm.eps,
    cm.nlc,
    cm.taint,
    cm.ds,
    cm.podgc,
    cm.job,
    cm.ttl,
    cm.disruption,
    cm.cronjob,
    cm.hpa,
    cm.gc,
    cm.sts,
    cm.pv,
    cm.attach,
    cm.claims,
  ];
}

/** Run a scenario end to end. */
export async function simulate(scenario: Scenario, opts: RunOptions = {}): Promise<SimulationResult> {
  if (opts.plugins || !scenario.settings.plugins.length) return new Simulation(scenario, opts).run();
  const plugins = await loadScenarioPlugins(scenario);
  try {
    const result = await new Simulation(scenario, { ...opts, plugins }).run();
    const f = plugins.flatMap((p) => p.failures)[0];
    if (f) throw new Error(`running ${f.point} plugin "${f.plugin}" for pod ${f.pod}: ${f.message}`);
    return result;
  } finally {
    await Promise.all(plugins.map((p) => p.close()));
  }
}

/**
 * The scenario's settings.plugins, loaded contained (each in a worker of its own, as `opts` bound
 * it); the caller closes them. On an error the ones loaded so far are closed.
 */
export async function loadScenarioPlugins(
  scenario: Scenario,
  opts: UserPluginOptions = {},
): Promise<LoadedUserPlugin[]> {
  const out: LoadedUserPlugin[] = [];
  try {
    for (const spec of scenario.settings.plugins) out.push(await loadUserPlugin(spec, opts));
  } catch (e) {
    await Promise.all(out.map((p) => p.close()));
    throw new Error(`${scenario.source}: settings.plugins: ${(e as Error).message}`);
  }
  return out;
}

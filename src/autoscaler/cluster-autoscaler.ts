/**
 * A cluster-autoscaler model for scenarios (kubernetes/autoscaler cluster-autoscaler: core/static_autoscaler.go
 * RunOnce, core/scaleup/orchestrator, core/scaledown/{eligibility,unneeded,actuation}, estimator/binpacking,
 * expander/*; read, not copied). Like the real one it is a component of the simulated cluster: it
 * learns nodes, pods and PodDisruptionBudgets from informers and acts through the ApiServer.
 *
 * Every `scanInterval` (10 s) RunOnce:
 *   1. node groups whose requested nodes did not register within max-node-provision-time (15 min)
 *      give them up and back off (5 min, doubling to 30 min);
 *   2. scale-up — the unschedulable pods (PodScheduled=False, reason Unschedulable) that would not
 *      fit on the existing and upcoming nodes are binpacked, per node group, onto copies of the
 *      group's template node with the scheduler's own filters (SchedulerCore: the default
 *      profile's plugins, topology spread and affinity included); each group that helps some pod is
 *      an option; the expander picks one (least-waste, most-pods, random, price); with
 *      balance-similar-node-groups the nodes are spread over the groups of the same template in
 *      other zones; the group's target grows and its nodes register after its provisioning latency;
 *   3. scale-down — unless a scale-up happened within scale-down-delay-after-add (10 min): a group
 *      node is *unneeded* when its utilization (max of cpu and memory requests over allocatable) is
 *      below 0.5 and every pod on it can move elsewhere: not blocked by safe-to-evict "false", a
 *      missing controller, local storage, a kube-system pod without a budget or a
 *      PodDisruptionBudget with no disruption allowed, and placed by the scheduler's filters on the
 *      other nodes; a node unneeded for scale-down-unneeded-time (10 min) is removed — empty nodes
 *      up to 10 at a time, others one at a time: tainted ToBeDeletedByClusterAutoscaler, pods
 *      evicted through the Eviction API (budget refusals retried for 2 min), then the Node deleted.
 *
 * Every decision is logged with its reason ("pod X: no group fits: …", "node Y not removed: …")
 * and the model writes upstream's Events (TriggeredScaleUp / NotTriggerScaleUp on pods, ScaleDown on
 * nodes, ScaledUpGroup / ScaleDownEmpty / FailedToScaleUpGroup on kube-system/cluster-autoscaler-status).
 * Nodes and cost (per-node price per hour) are sampled every scan.
 */
import type { KubeObject, Node, Pod, Taint } from '../api/types.js';
import type { DeviceClass, ResourceClaim, ResourceSlice } from '../api/resource-types.js';
import type { PodDisruptionBudget } from '../api/batch-types.js';
import { labelSelectorAsSelector } from '../api/label-selector.js';
import { podKey } from '../api/keys.js';
import { isBudgetError } from '../api/apiserver-evict.js';
import { isConflict, isNotFound } from '../client/api.js';
import type { EventRecorder } from '../client/events.js';
import type { InformerFactory } from '../client/factory.js';
import type { Informer } from '../client/informer.js';
import { SchedulerCore } from '../scheduler/scheduler.js';
import { claimsAfterReserve } from '../scheduler/plugins/dynamic-resources/plugin.js';
import { podRequests } from '../scheduler/engine/resources.js';
import type { Clock, TimerHandle } from '../util/clock.js';
import type { Rng } from '../util/rng.js';
import type { ServerClient } from '../client/server-client.js';
import {
  balanceScaleUp,
  checkEligibility,
  chooseOption,
  deviceUtilization,
  type ExpanderName,
  type ExpansionOption,
} from './autoscaler-rules.js';
import { type AutoscalerConfig, groupNode, groupSlices, type NodeGroupSpec, nodeName } from './config.js';
import {
  type ClaimOverlay,
  claimsOfPod,
  type DraListers,
  reservedForPod,
  simulationResources,
} from './autoscaler-dra.js';

/** the taint the autoscaler puts on a node it deletes (taints.ToBeDeletedTaint) */
export const TO_BE_DELETED_TAINT = 'ToBeDeletedByClusterAutoscaler';
/** --max-empty-bulk-delete / --max-scale-down-parallelism default */
const MAX_EMPTY_BULK_DELETE = 10;
/** --max-pod-eviction-time: how long budget refusals are retried */
const MAX_POD_EVICTION_MS = 120_000;
/** how long a drain waits for evicted pods to be gone (--max-graceful-termination-sec 600) */
const MAX_GRACEFUL_TERMINATION_MS = 600_000;
/** --scale-down-delay-after-failure */
const DELAY_AFTER_FAILURE_MS = 180_000;
/** initial and maximum backoff of a group whose scale-up failed (--initial/max-node-group-backoff-duration) */
const INITIAL_BACKOFF_MS = 300_000;
const MAX_BACKOFF_MS = 1_800_000;

/** One logged decision. */
export interface AutoscalerDecision {
  atS: number;
  kind:
    | 'scale-up'
    | 'no-scale-up'
    | 'scale-up-failed'
    | 'unneeded'
    | 'not-removed'
    | 'scale-down'
    | 'scale-down-failed';
  /** pod namespace/name, node name or node group */
  subject: string;
  message: string;
}

export interface AutoscalerResult {
  expander: ExpanderName;
  groups: {
    name: string;
    template: string;
    zone: string;
    min: number;
    max: number;
    costPerHour: number;
    nodesAtStart: number;
    nodesAtEnd: number;
    peakNodes: number;
  }[];
  scaleUps: number;
  nodesAdded: number;
  nodesRemoved: number;
  failedScaleUps: number;
  /** node-hours and cost over the run (registered and requested nodes, each at its group's price) */
  nodeHours: number;
  cost: number;
  decisions: AutoscalerDecision[];
  /** sampled every scan: t (s), group nodes registered, requested but not registered, cost per hour */
  series: {
    t: number[];
    nodes: number[];
    upcoming: number[];
    costPerHour: number[];
    perGroup: Record<string, number[]>;
  };
}

interface Upcoming {
  name: string;
  requestedMs: number;
  timer?: TimerHandle;
}

interface GroupState {
  spec: NodeGroupSpec;
  /** nodes created for the group (registered with the ApiServer) */
  nodes: Set<string>;
  upcoming: Upcoming[];
  next: number;
  backoffUntilMs: number;
  backoffMs: number;
  peak: number;
  start: number;
}

export interface ClusterAutoscalerDeps {
  api: ServerClient;
  clock: Clock;
  informers: InformerFactory;
  recorder: EventRecorder;
  rng: Rng;
  startMs: number;
  /** the machine behind a deleted node is gone (the simulation stops its kubelet) */
  onNodeDeleted?: (name: string) => void;
}

const STATUS_OBJECT = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cluster-autoscaler-status', namespace: 'kube-system' },
} as KubeObject;

export class ClusterAutoscaler {
  private readonly nodes: Informer<Node>;
  private readonly pods: Informer<Pod>;
  private readonly pdbs: Informer<PodDisruptionBudget>;
  /** DeviceClasses, ResourceClaims, ResourceSlices for the simulations (autoscaler-dra.ts) */
  private readonly dra: DraListers;
  private readonly groups = new Map<string, GroupState>();
  private readonly groupOfNode = new Map<string, GroupState>();
  private readonly unneededSince = new Map<string, number>();
  private readonly deleting = new Set<string>();
  private readonly decisions: AutoscalerDecision[] = [];
  /** last message per subject, so a state repeated every scan is logged once */
  private readonly lastMessage = new Map<string, string>();
  private readonly series: AutoscalerResult['series'] = {
    t: [],
    nodes: [],
    upcoming: [],
    costPerHour: [],
    perGroup: {},
  };
  private timer?: TimerHandle;
  private busy = false;
  private lastScaleUpMs = -Infinity;
  private lastScaleDownFailMs = -Infinity;
  private lastSampleMs?: number;
  private stats = { scaleUps: 0, nodesAdded: 0, nodesRemoved: 0, failedScaleUps: 0, nodeHours: 0, cost: 0 };

  constructor(
    private readonly deps: ClusterAutoscalerDeps,
    private readonly config: AutoscalerConfig,
  ) {
    this.nodes = deps.informers.for<Node>('nodes');
    this.pods = deps.informers.for<Pod>('pods');
    this.pdbs = deps.informers.for<PodDisruptionBudget>('poddisruptionbudgets');
    this.dra = {
      deviceClasses: deps.informers.for<DeviceClass>('deviceclasses'),
      claims: deps.informers.for<ResourceClaim>('resourceclaims'),
      slices: deps.informers.for<ResourceSlice>('resourceslices'),
    };
    for (const spec of config.groups) {
      const st: GroupState = {
        spec,
        nodes: new Set(),
        upcoming: [],
        next: spec.initial,
        backoffUntilMs: -Infinity,
        backoffMs: 0,
        peak: spec.initial,
        start: spec.initial,
      };
      for (let i = 0; i < spec.initial; i++) {
        st.nodes.add(nodeName(spec, i));
        this.groupOfNode.set(nodeName(spec, i), st);
      }
      this.groups.set(spec.name, st);
      this.series.perGroup[spec.name] = [];
    }
  }

  run(): void {
    this.sample();
    const tick = () => {
      this.timer = this.deps.clock.setTimer(tick, this.config.scanIntervalMs);
      if (this.busy) return;
      this.busy = true;
      void this.runOnce()
        .catch((e) =>
          this.log('scale-down-failed', 'cluster-autoscaler', `RunOnce failed: ${(e as Error).message}`),
        )
        .finally(() => {
          this.busy = false;
        });
    };
    this.timer = this.deps.clock.setTimer(tick, this.config.scanIntervalMs);
  }

  stop(): void {
    if (this.timer) this.deps.clock.clearTimer(this.timer);
    for (const g of this.groups.values())
      for (const u of g.upcoming) if (u.timer) this.deps.clock.clearTimer(u.timer);
  }

  private get now(): number {
    return this.deps.clock.now();
  }

  private log(kind: AutoscalerDecision['kind'], subject: string, message: string, always = false): void {
    const key = `${kind}/${subject}`;
    if (!always && this.lastMessage.get(key) === message) return;
    this.lastMessage.set(key, message);
    this.decisions.push({ atS: (this.now - this.deps.startMs) / 1000, kind, subject, message });
  }

  /** one loop: provisioning timeouts, scale-up, scale-down (static_autoscaler.go RunOnce) */
  async runOnce(): Promise<void> {
    this.sample();
    this.checkProvisioning();
    const pods = this.pods.list();
    const unschedulable = pods.filter(
      (p) =>
        !p.spec.nodeName &&
        !p.metadata.deletionTimestamp &&
        p.status?.conditions?.some(
          (c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable',
        ),
    );
    let scaledUp = false;
    if (unschedulable.length) scaledUp = this.scaleUp(unschedulable);
    if (!scaledUp && this.config.scaleDownEnabled) await this.scaleDown();
  }

  // --- nodes and cost -------------------------------------------------------------------------

  private sample(): void {
    const now = this.now;
    let nodes = 0,
      upcoming = 0,
      rate = 0;
    for (const g of this.groups.values()) {
      nodes += g.nodes.size;
      upcoming += g.upcoming.length;
      rate += (g.nodes.size + g.upcoming.length) * g.spec.costPerHour;
      this.series.perGroup[g.spec.name]!.push(g.nodes.size);
      g.peak = Math.max(g.peak, g.nodes.size);
    }
    if (this.lastSampleMs !== undefined) {
      const h = (now - this.lastSampleMs) / 3_600_000;
      const prev = this.series.costPerHour[this.series.costPerHour.length - 1]!;
      const prevNodes =
        this.series.nodes[this.series.nodes.length - 1]! +
        this.series.upcoming[this.series.upcoming.length - 1]!;
      this.stats.cost += prev * h;
      this.stats.nodeHours += prevNodes * h;
    }
    this.lastSampleMs = now;
    this.series.t.push((now - this.deps.startMs) / 1000);
    this.series.nodes.push(nodes);
    this.series.upcoming.push(upcoming);
    this.series.costPerHour.push(Math.round(rate * 1e6) / 1e6);
  }

  /** 1. requested nodes that did not register in time are given up; the group backs off */
  private checkProvisioning(): void {
    for (const g of this.groups.values()) {
      const late = g.upcoming.filter((u) => this.now - u.requestedMs >= this.config.maxNodeProvisionTimeMs);
      if (!late.length) continue;
      for (const u of late) if (u.timer) this.deps.clock.clearTimer(u.timer);
      g.upcoming = g.upcoming.filter((u) => !late.includes(u));
      g.backoffMs = Math.min(MAX_BACKOFF_MS, g.backoffMs ? g.backoffMs * 2 : INITIAL_BACKOFF_MS);
      g.backoffUntilMs = this.now + g.backoffMs;
      this.stats.failedScaleUps++;
      const msg = `${late.length} node(s) did not register within max-node-provision-time ${this.config.maxNodeProvisionTimeMs / 1000}s; target back to ${g.nodes.size + g.upcoming.length}, group backs off for ${g.backoffMs / 1000}s`;
      this.log('scale-up-failed', g.spec.name, msg, true);
      this.deps.recorder.event(
        STATUS_OBJECT,
        'Warning',
        'FailedToScaleUpGroup',
        `Scale-up timed out for node group ${g.spec.name}`,
      );
    }
  }

  private templateNode(g: NodeGroupSpec, name: string): Node {
    const n = groupNode(g, name);
    n.status!.conditions = [{ type: 'Ready', status: 'True' }];
    return n;
  }

  /**
   * the scheduler's view of the cluster: nodes (ready or not deleting), bound live pods, plus extra
   * nodes (template copies, with their groups' ResourceSlices); `moving`: pods taken off their
   * nodes, whose claims are released; `overlay`: claims as earlier simulations of this pass left them
   */
  private core(
    extraNodes: { node: Node; group: NodeGroupSpec }[],
    skipNodes: ReadonlySet<string> = new Set(),
    moved: Pod[] = [],
    moving?: ReadonlySet<string>,
    overlay?: ClaimOverlay,
  ): SchedulerCore {
    const nodes = this.nodes
      .list()
      .filter((n) => !skipNodes.has(n.metadata.name!) && !this.deleting.has(n.metadata.name!));
    const pods = this.pods
      .list()
      .filter((p) => p.spec.nodeName && !skipNodes.has(p.spec.nodeName) && !p.metadata.deletionTimestamp);
    const resources = simulationResources(this.dra, {
      skipNodes: (n) => skipNodes.has(n) || this.deleting.has(n),
      moving,
      overlay,
      extraSlices: extraNodes.flatMap((x) => groupSlices(x.group, x.node)),
    });
    return new SchedulerCore({
      kernel: 'js',
      seed: 1,
      nodes: [...nodes, ...extraNodes.map((x) => x.node)],
      pods: [...pods, ...moved],
      objects: { resources },
    });
  }

  /** a template node added to a simulation, with its ResourceSlices */
  private static addTemplateNode(core: SchedulerCore, node: Node, group: NodeGroupSpec): void {
    core.snapshot.addNode(node);
    core.objects.resources?.resourceSlices?.push(...groupSlices(group, node));
  }

  private static place(
    core: SchedulerCore,
    pod: Pod,
  ): { node: string; claims: ResourceClaim[] } | { reason: string; reasons: string[] } {
    const out = core.schedule(pod);
    if (out.kind === 'scheduled') {
      const s = core.reserveAndAssume(out);
      if (!s) return { node: out.nodeName, claims: claimsAfterReserve(out.state) };
      return { reason: s.message(), reasons: [s.message()] };
    }
    if (out.kind === 'unschedulable')
      return { reason: out.fitError.message, reasons: [...out.fitError.histogram().keys()] };
    return { reason: out.message, reasons: [out.message] };
  }

  // --- scale-up -------------------------------------------------------------------------------

  /** 2. one scale-up decision for the unschedulable pods (scaleup/orchestrator.go ScaleUp) */
  private scaleUp(unschedulable: Pod[]): boolean {
    // pods the existing and upcoming nodes can take wait for them (filterOutSchedulable)
    // upcoming: requested nodes, and group nodes created but not Ready yet (clusterstate's upcoming
    // nodes), as template nodes in place of the real ones
    const notReady = new Set<string>();
    const upcoming: { node: Node; group: NodeGroupSpec }[] = [];
    for (const g of this.groups.values()) {
      for (const u of g.upcoming) upcoming.push({ node: this.templateNode(g.spec, u.name), group: g.spec });
      for (const name of g.nodes) {
        const n = this.nodes.get(undefined, name);
        if (n?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) continue;
        notReady.add(name);
        upcoming.push({ node: this.templateNode(g.spec, name), group: g.spec });
      }
    }
    const base = this.core(upcoming, notReady);
    const pending = unschedulable.filter((p) => !('node' in ClusterAutoscaler.place(base, strip(p))));
    if (!pending.length) return false;
    // biggest first, as the binpacking estimator orders them
    pending.sort((a, b) => size(b) - size(a) || (podKey(a) < podKey(b) ? -1 : 1));

    const options: ExpansionOption[] = [];
    const whyNot = new Map<string, string[]>(); // pod → per-group reasons
    for (const g of this.groups.values()) {
      const reasons = (p: Pod, r: string) => {
        const k = podKey(p);
        if (!whyNot.has(k)) whyNot.set(k, []);
        whyNot.get(k)!.push(r);
      };
      const room = g.spec.max - g.nodes.size - g.upcoming.length;
      if (this.now < g.backoffUntilMs) {
        for (const p of pending) reasons(p, `${g.spec.name}: in backoff after a failed scale-up`);
        continue;
      }
      if (room <= 0) {
        for (const p of pending) reasons(p, `${g.spec.name}: max node group size reached (${g.spec.max})`);
        continue;
      }
      const opt = this.estimate(g, pending, room, reasons);
      if (opt) options.push(opt);
    }
    const helped = new Set(options.flatMap((o) => o.pods.map(podKey)));
    for (const p of pending) {
      if (helped.has(podKey(p))) continue;
      const why = (whyNot.get(podKey(p)) ?? []).join('; ');
      this.log('no-scale-up', podKey(p), `pod ${podKey(p)}: no group fits: ${why}`);
      this.deps.recorder.event(p, 'Normal', 'NotTriggerScaleUp', `pod didn't trigger scale-up: ${why}`);
    }
    const choice = chooseOption(this.config.expander, options, this.deps.rng);
    if (!choice) return false;
    const opt = choice.option;
    const g0 = this.groups.get(opt.group)!;
    // balance-similar-node-groups: the same template in other zones, each able to take the pods
    let plan = new Map([[opt.group, opt.nodeCount]]);
    if (this.config.balanceSimilarNodeGroups) {
      const similar = [...this.groups.values()].filter(
        (g) =>
          g === g0 ||
          (g.spec.template === g0.spec.template &&
            this.now >= g.backoffUntilMs &&
            options.some((o) => o.group === g.spec.name)),
      );
      if (similar.length > 1)
        plan = balanceScaleUp(
          similar.map((g) => ({
            group: g.spec.name,
            size: g.nodes.size + g.upcoming.length,
            max: g.spec.max,
          })),
          opt.nodeCount,
        ).add;
    }
    const parts: string[] = [];
    for (const [name, delta] of plan) {
      const g = this.groups.get(name)!;
      const from = g.nodes.size + g.upcoming.length;
      for (let i = 0; i < delta; i++) this.requestNode(g);
      parts.push(`{${name} ${from}->${from + delta} (max: ${g.spec.max})}`);
      this.deps.recorder.event(
        STATUS_OBJECT,
        'Normal',
        'ScaledUpGroup',
        `Scale-up: setting group ${name} size to ${from + delta} instead of ${from} (max: ${g.spec.max})`,
      );
    }
    this.stats.scaleUps++;
    this.lastScaleUpMs = this.now;
    const names = opt.pods.map(podKey);
    const shown = names.slice(0, 3).join(', ') + (names.length > 3 ? ` and ${names.length - 3} more` : '');
    this.log(
      'scale-up',
      opt.group,
      `scale-up [${parts.join(' ')}] for ${names.length} pod(s) (${shown}); expander ${this.config.expander} chose ${opt.group} among ${options.length} option(s): ${choice.why}`,
      true,
    );
    for (const p of opt.pods) {
      const orig = pending.find((x) => podKey(x) === podKey(p))!;
      this.deps.recorder.event(
        orig,
        'Normal',
        'TriggeredScaleUp',
        `pod triggered scale-up: [${parts.join(' ')}]`,
      );
      this.lastMessage.delete(`no-scale-up/${podKey(p)}`);
    }
    return true;
  }

  /**
   * Binpacking estimator: the pods go one by one onto the cluster plus new template nodes of the
   * group, a node added only when a pod fits nowhere; a pod that does not fit even on an empty
   * template node records that node's FitError.
   */
  private estimate(
    g: GroupState,
    pods: Pod[],
    room: number,
    reasons: (p: Pod, r: string) => void,
  ): ExpansionOption | undefined {
    const template = this.templateNode(g.spec, `${g.spec.name}-template`);
    // the template alone: the cluster's classes and claims, the template's own slices only
    const lone = new SchedulerCore({
      kernel: 'js',
      seed: 1,
      nodes: [template],
      objects: {
        resources: simulationResources(this.dra, {
          skipNodes: () => true,
          extraSlices: groupSlices(g.spec, template),
        }),
      },
    });
    const core = this.core([]);
    const used = new Set<string>();
    const helped: Pod[] = [];
    let added = 0;
    for (const p0 of pods) {
      const p = strip(p0);
      const alone = lone.schedule(p);
      if (alone.kind !== 'scheduled') {
        const msg =
          alone.kind === 'unschedulable' ? [...alone.fitError.histogram().keys()].join(', ') : alone.message;
        reasons(p0, `${g.spec.name}: ${msg}`);
        continue;
      }
      let r = ClusterAutoscaler.place(core, p);
      if (!('node' in r) && added < room) {
        ClusterAutoscaler.addTemplateNode(
          core,
          this.templateNode(g.spec, `${g.spec.name}-estimate-${added}`),
          g.spec,
        );
        added++;
        r = ClusterAutoscaler.place(core, p);
      }
      if ('node' in r) {
        helped.push(p);
        used.add(r.node);
      } else
        reasons(
          p0,
          added >= room
            ? `${g.spec.name}: max node group size reached (${g.spec.max})`
            : `${g.spec.name}: ${r.reasons.join(', ')}`,
        );
    }
    if (!helped.length) return undefined;
    const nodeCount = [...used].filter((n) => n.startsWith(`${g.spec.name}-estimate-`)).length;
    if (!nodeCount) return undefined;
    return { group: g.spec.name, nodeCount, pods: helped, node: template, costPerHour: g.spec.costPerHour };
  }

  /** the group's target grows by one: the node registers after the provisioning latency */
  private requestNode(g: GroupState): void {
    const name = nodeName(g.spec, g.next++);
    const u: Upcoming = { name, requestedMs: this.now };
    // a latency beyond max-node-provision-time never delivers: the node is given up (checkProvisioning)
    if (g.spec.provisioningMs < this.config.maxNodeProvisionTimeMs)
      u.timer = this.deps.clock.setTimer(() => {
        g.upcoming = g.upcoming.filter((x) => x !== u);
        g.nodes.add(name);
        this.groupOfNode.set(name, g);
        this.stats.nodesAdded++;
        void this.deps.api.create('nodes', groupNode(g.spec, name)).catch((e) => {
          g.nodes.delete(name);
          this.log(
            'scale-up-failed',
            g.spec.name,
            `node ${name} could not register: ${(e as Error).message}`,
            true,
          );
        });
      }, g.spec.provisioningMs);
    g.upcoming.push(u);
  }

  // --- scale-down -----------------------------------------------------------------------------

  /** 3. unneeded nodes, then removal of those unneeded long enough (scaledown/planner, actuation) */
  private async scaleDown(): Promise<void> {
    if (this.now - this.lastScaleUpMs < this.config.scaleDownDelayAfterAddMs) return;
    if (this.now - this.lastScaleDownFailMs < DELAY_AFTER_FAILURE_MS) return;
    const nodes = this.nodes
      .list()
      .filter((n) => this.groupOfNode.has(n.metadata.name!) && !this.deleting.has(n.metadata.name!));
    const podsOn = new Map<string, Pod[]>();
    for (const p of this.pods.list()) {
      if (!p.spec.nodeName || p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
      if (!podsOn.has(p.spec.nodeName)) podsOn.set(p.spec.nodeName, []);
      podsOn.get(p.spec.nodeName)!.push(p);
    }
    // nodes found unneeded in this pass, and where their pods would go (the next candidates see
    // them there, as upstream's simulation moves them in its cluster snapshot)
    const removed = new Set<string>();
    const moved = new Map<string, Pod>();
    // the claims of moved pods, allocated where they would land
    const overlay = new Map<string, ResourceClaim>();
    const unneeded: { node: string; pods: Pod[] }[] = [];
    for (const n of nodes.sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1))) {
      const name = n.metadata.name!;
      const hinted = [...moved.values()].filter((p) => p.spec.nodeName === name);
      const verdict = this.eligible(
        n,
        [...(podsOn.get(name) ?? []), ...hinted],
        removed,
        [...moved.values()],
        overlay,
      );
      if (typeof verdict === 'string') {
        this.unneededSince.delete(name);
        this.log('not-removed', name, `node ${name} not removed: ${verdict}`);
        continue;
      }
      if (!this.unneededSince.has(name)) this.unneededSince.set(name, this.now);
      this.log('unneeded', name, `node ${name} unneeded: ${verdict.why}`);
      removed.add(name);
      for (const p of verdict.moved) moved.set(podKey(p), p);
      for (const [k, c] of verdict.claims) overlay.set(k, c);
      // only the node's own pods are evicted; hinted ones were never there
      unneeded.push({ node: name, pods: verdict.pods.filter((p) => p.spec.nodeName === name) });
    }
    for (const name of [...this.unneededSince.keys()])
      if (!unneeded.some((u) => u.node === name)) this.unneededSince.delete(name);
    // removal: unneeded long enough, group above min (counting this round's removals)
    const ripe = unneeded.filter(
      (u) => this.now - this.unneededSince.get(u.node)! >= this.config.scaleDownUnneededTimeMs,
    );
    const size = new Map(
      [...this.groups.values()].map((g) => [g.spec.name, g.nodes.size + g.upcoming.length]),
    );
    const take = (u: { node: string }) => {
      const g = this.groupOfNode.get(u.node)!;
      if (size.get(g.spec.name)! <= g.spec.min) {
        this.log(
          'not-removed',
          u.node,
          `node ${u.node} not removed: node group ${g.spec.name} min size reached (${g.spec.min})`,
        );
        return false;
      }
      size.set(g.spec.name, size.get(g.spec.name)! - 1);
      return true;
    };
    const empty = ripe.filter((u) => u.pods.length === 0 && take(u)).slice(0, MAX_EMPTY_BULK_DELETE);
    if (empty.length) {
      await Promise.all(empty.map((u) => this.removeNode(u.node, [])));
      return;
    }
    const drain = ripe.find((u) => u.pods.length > 0 && take(u));
    if (drain) await this.removeNode(drain.node, drain.pods);
  }

  /**
   * Can the node go? A string says why not; otherwise the pods to move and where they would land
   * (eligibility.go, simulator/drain.go GetPodsToMove, simulator/cluster.go findPlaceFor).
   */
  private eligible(
    n: Node,
    pods: Pod[],
    removed: ReadonlySet<string>,
    moved: Pod[],
    overlay: ClaimOverlay,
  ): string | { why: string; pods: Pod[]; moved: Pod[]; claims: [string, ResourceClaim][] } {
    const name = n.metadata.name!;
    const e = checkEligibility(n, pods, this.now, {
      threshold: this.config.scaleDownUtilizationThreshold,
      ignoreDaemonSetsUtilization: this.config.ignoreDaemonSetsUtilization,
      devices: () =>
        deviceUtilization(
          this.dra.slices.list().filter((s) => s.spec.nodeName === name),
          pods.flatMap((p) => claimsOfPod(p, this.dra.claims, overlay)),
        ),
    });
    if (!e.removable) return e.reason;
    const toMove = pods.filter(
      (p) =>
        !p.metadata.deletionTimestamp &&
        !p.metadata.ownerReferences?.some((o) => o.kind === 'DaemonSet') &&
        p.metadata.annotations?.['kubernetes.io/config.mirror'] === undefined,
    );
    const pdbs = this.pdbs.list();
    const budgetUse = new Map<PodDisruptionBudget, number>();
    for (const p of toMove) {
      const ann = p.metadata.annotations?.['cluster-autoscaler.kubernetes.io/safe-to-evict'];
      if (ann === 'false')
        return `pod ${podKey(p)} is annotated cluster-autoscaler.kubernetes.io/safe-to-evict: "false"`;
      const covering = pdbs.filter(
        (b) =>
          b.metadata.namespace === p.metadata.namespace &&
          b.spec.selector &&
          labelSelectorAsSelector(b.spec.selector).matches(p.metadata.labels ?? {}),
      );
      if (ann !== 'true') {
        if (!p.metadata.ownerReferences?.some((o) => o.controller))
          return `pod ${podKey(p)} is not replicated (no controller)`;
        if (p.metadata.namespace === 'kube-system' && !covering.length)
          return `non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: ${podKey(p)}`;
        if (
          (p.spec.volumes as { emptyDir?: unknown; hostPath?: unknown }[] | undefined)?.some(
            (v) => v.emptyDir || v.hostPath,
          )
        )
          return `pod with local storage present: ${podKey(p)}`;
      }
      for (const b of covering) {
        budgetUse.set(b, (budgetUse.get(b) ?? 0) + 1);
        if ((b.status?.disruptionsAllowed ?? 0) < budgetUse.get(b)!)
          return `not enough pod disruption budget to move ${podKey(p)} (${b.metadata.namespace}/${b.metadata.name} allows ${b.status?.disruptionsAllowed ?? 0})`;
      }
    }
    const moving = new Set(toMove.map(podKey));
    // this node's pods leave their claims (autoscaler-dra.ts); those of removed nodes' pods are
    // in the overlay, allocated where the pods would land
    const leaving = new Set(toMove.map((p) => p.metadata.uid).filter((u): u is string => u !== undefined));
    const core = this.core(
      [],
      new Set([...removed, name]),
      moved.filter((p) => !moving.has(podKey(p))),
      leaving,
      overlay,
    );
    const landed: Pod[] = [];
    const claims: [string, ResourceClaim][] = [];
    for (const p of toMove) {
      const r = ClusterAutoscaler.place(core, strip(p));
      if (!('node' in r)) return `pod ${podKey(p)} can't be moved: ${r.reason}`;
      landed.push({ ...strip(p), spec: { ...p.spec, nodeName: r.node } });
      claims.push(...reservedForPod(p, r.claims));
    }
    const where = landed.map((p) => `${podKey(p)} → ${p.spec.nodeName}`).join(', ');
    return {
      why: `${e.why}${toMove.length ? `; pods can move: ${where}` : '; empty'}`,
      pods: toMove,
      moved: landed,
      claims,
    };
  }

  /** taint, evict (budget refusals retried), wait for the pods to go, delete the Node */
  private async removeNode(name: string, pods: Pod[]): Promise<void> {
    const g = this.groupOfNode.get(name)!;
    this.deleting.add(name);
    const fail = async (why: string) => {
      this.deleting.delete(name);
      this.lastScaleDownFailMs = this.now;
      await this.setTaint(name, false).catch(() => {});
      this.log('scale-down-failed', name, `node ${name} not removed: ${why}`, true);
      this.deps.recorder.event(
        STATUS_OBJECT,
        'Warning',
        'ScaleDownFailed',
        `failed to drain the node ${name}: ${why}`,
      );
    };
    try {
      await this.setTaint(name, true);
    } catch (e) {
      await fail(`could not taint it: ${(e as Error).message}`);
      return;
    }
    const node = this.nodes.get(undefined, name);
    if (node)
      this.deps.recorder.event(node, 'Normal', 'ScaleDown', 'marked the node as toBeDeleted/unschedulable');
    const since = this.unneededSince.get(name) ?? this.now;
    for (const p of pods) {
      const ns = p.metadata.namespace ?? 'default';
      const deadline = this.now + MAX_POD_EVICTION_MS;
      for (;;) {
        try {
          await this.deps.api.evict(ns, p.metadata.name!);
          this.deps.recorder.event(p, 'Normal', 'ScaleDown', `deleting pod for node scale down`);
          break;
        } catch (e) {
          if (isNotFound(e)) break;
          if (!isBudgetError(e) || this.now + 5000 > deadline) {
            await fail(`eviction of pod ${podKey(p)} failed: ${(e as Error).message}`);
            return;
          }
          await new Promise<void>((r) => this.deps.clock.setTimer(r, 5000));
        }
      }
    }
    const waitUntil = this.now + MAX_GRACEFUL_TERMINATION_MS;
    while (this.now < waitUntil) {
      const left = this.pods
        .list()
        .filter((p) => p.spec.nodeName === name && pods.some((x) => x.metadata.uid === p.metadata.uid));
      if (!left.length) break;
      await new Promise<void>((r) => this.deps.clock.setTimer(r, 1000));
    }
    try {
      await this.deps.api.delete('nodes', undefined, name);
    } catch (e) {
      if (!isNotFound(e)) {
        await fail(`could not delete it: ${(e as Error).message}`);
        return;
      }
    }
    this.deps.onNodeDeleted?.(name);
    g.nodes.delete(name);
    this.groupOfNode.delete(name);
    this.unneededSince.delete(name);
    this.deleting.delete(name);
    this.stats.nodesRemoved++;
    const after = Math.round((this.now - since) / 1000);
    this.log(
      'scale-down',
      name,
      `node ${name} removed from ${g.spec.name} (now ${g.nodes.size + g.upcoming.length}): unneeded since ${after}s ago, ${pods.length ? `${pods.length} pod(s) evicted` : 'empty'}`,
      true,
    );
    this.deps.recorder.event(
      STATUS_OBJECT,
      'Normal',
      pods.length ? 'ScaleDown' : 'ScaleDownEmpty',
      `Scale-down: removing ${pods.length ? '' : 'empty '}node ${name}`,
    );
  }

  private async setTaint(name: string, on: boolean): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const n = await this.deps.api.get<Node>('nodes', undefined, name);
      const taints = (n.spec?.taints ?? []).filter((t) => t.key !== TO_BE_DELETED_TAINT);
      if (on)
        taints.push({
          key: TO_BE_DELETED_TAINT,
          value: String(Math.floor(this.now / 1000)),
          effect: 'NoSchedule',
        });
      try {
        await this.deps.api.update('nodes', {
          ...n,
          spec: { ...(n.spec ?? {}), taints: taints.length ? taints : undefined },
        });
        return;
      } catch (e) {
        if (!isConflict(e) || attempt > 5) throw e;
      }
    }
  }

  result(): AutoscalerResult {
    this.sample();
    const r = (x: number) => Math.round(x * 1000) / 1000;
    return {
      expander: this.config.expander,
      groups: [...this.groups.values()].map((g) => ({
        name: g.spec.name,
        template: g.spec.template,
        zone: g.spec.zone,
        min: g.spec.min,
        max: g.spec.max,
        costPerHour: g.spec.costPerHour,
        nodesAtStart: g.start,
        nodesAtEnd: g.nodes.size,
        peakNodes: g.peak,
      })),
      scaleUps: this.stats.scaleUps,
      nodesAdded: this.stats.nodesAdded,
      nodesRemoved: this.stats.nodesRemoved,
      failedScaleUps: this.stats.failedScaleUps,
      nodeHours: r(this.stats.nodeHours),
      cost: r(this.stats.cost),
      decisions: this.decisions,
      series: this.series,
    };
  }
}

/** the pod as the scheduler sees a new one: unbound, no status but the names of its claims */
function strip(p: Pod): Pod {
  const claims = p.status?.resourceClaimStatuses;
  return {
    ...p,
    spec: { ...p.spec, nodeName: undefined },
    status: claims ? { phase: 'Pending', resourceClaimStatuses: claims } : { phase: 'Pending' },
  };
}

/** cpu (cores) + memory (GiB): the estimator's order, biggest first */
function size(p: Pod): number {
  const r = podRequests(p);
  return (r.get('cpu') ?? 0) / 1000 + (r.get('memory') ?? 0) / 2 ** 30;
}

/**
 * The HorizontalPodAutoscaler controller, autoscaling/v2 (upstream: pkg/controller/podautoscaler/
 * horizontal.go reconcileAutoscaler, normalizeDesiredReplicas(WithBehaviors),
 * stabilizeRecommendation(WithBehaviors), convertDesiredReplicasWithBehaviorRate,
 * calculateScaleUp/DownLimitWithScalingRules; Kubernetes v1.34). Every HPA is synced every 15 s
 * (--horizontal-pod-autoscaler-sync-period):
 *
 * 1. the target (Deployment, ReplicaSet or StatefulSet: the kinds with a scale subresource) gives
 *    the current replicas and, through its selector, the pods; AbleToScale/SucceededGetScale;
 * 2. a target scaled to 0 (with minReplicas ≠ 0) disables autoscaling (ScalingActive False,
 *    ScalingDisabled); replicas outside [minReplicas, maxReplicas] are brought inside;
 * 3. otherwise each metric proposes a count (replica-calculator.ts) and the largest wins
 *    (ScalingActive True, ValidMetricFound); without `behavior` the recommendation is stabilized
 *    over the 5 min downscale window and a scale-up is capped at max(2 × current, 4); with
 *    `behavior`, the up/down stabilization windows bound it, the scaling policies (Pods/Percent per
 *    periodSeconds, selectPolicy Max/Min/Disabled) limit the rate from the scale events of the
 *    period, and min/max replicas clamp it (ScalingLimited with upstream's reasons);
 * 4. a changed count is written to the target's spec.replicas (SucceededRescale, event
 *    SuccessfulRescale), then status: currentReplicas, desiredReplicas, currentMetrics,
 *    lastScaleTime, conditions, observedGeneration.
 *
 * Metrics come from a {@link MetricsSource} — in the simulation, the scenario's metric curves.
 * Simplified: Resource and Pods metrics (and ContainerResource as Resource) are modelled; Object and
 * External metrics are not read (the HPA reports ScalingActive False FailedGetObjectMetric /
 * FailedGetExternalMetric for them); the target is rescaled by an update of its object with
 * resourceVersion (a scale subresource write upstream).
 */
import type {
  Condition,
  HPAScalingPolicy,
  HPAScalingRules,
  HorizontalPodAutoscaler,
  MetricSpec,
} from '../api/batch-types.js';
import { SelectorError, labelSelectorAsSelector } from '../api/label-selector.js';
import { cpuMillis } from '../api/quantity.js';
import { rfc3339 } from '../api/time.js';
import type { KubeObject, LabelSelector, Pod } from '../api/types.js';
import { isConflict, isNotFound, keyOf } from '../client/api.js';
import type { Informer } from '../client/informer.js';
import { WorkQueue, runWorkers } from '../client/workqueue.js';
import type { ControllerDeps } from './replicaset.js';
import { MetricsError, type Sample, plainMetricReplicas, resourceReplicas } from './replica-calculator.js';

/** --horizontal-pod-autoscaler-sync-period */
export const HPA_SYNC_PERIOD_MS = 15_000;
/** --horizontal-pod-autoscaler-downscale-stabilization */
export const DOWNSCALE_STABILIZATION_MS = 300_000;
/** scaleUpLimitFactor and scaleUpLimitMinimum (no behavior) */
const SCALE_UP_LIMIT_FACTOR = 2;
const SCALE_UP_LIMIT_MINIMUM = 4;

/** where the HPA reads its metrics (metrics.k8s.io / custom.metrics.k8s.io) */
export interface MetricsSource {
  /** per-pod samples of a resource (`cpu`, `memory`) or a Pods metric, milli-units, by pod name */
  podMetrics(
    namespace: string,
    target: { kind: string; name: string },
    metric: string,
    pods: Pod[],
  ): Map<string, Sample>;
}

const TARGETS: Record<string, string> = {
  Deployment: 'deployments',
  ReplicaSet: 'replicasets',
  StatefulSet: 'statefulsets',
};

export interface ScaleEvent {
  change: number;
  atMs: number;
  outdated: boolean;
}

interface Rules {
  stabilizationMs: number;
  selectPolicy: 'Max' | 'Min' | 'Disabled';
  policies: HPAScalingPolicy[];
}

/** GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: the defaults for what is left out */
export function scaleRules(r: HPAScalingRules | undefined, up: boolean): Rules {
  const def: HPAScalingPolicy[] = up
    ? [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ]
    : [{ type: 'Percent', value: 100, periodSeconds: 15 }];
  return {
    stabilizationMs: (r?.stabilizationWindowSeconds ?? (up ? 0 : DOWNSCALE_STABILIZATION_MS / 1000)) * 1000,
    selectPolicy: r?.selectPolicy ?? 'Max',
    policies: r?.policies?.length ? r.policies : def,
  };
}

/** getReplicasChangePerPeriod */
function changeInPeriod(periodS: number, events: ScaleEvent[], nowMs: number): number {
  let n = 0;
  for (const e of events) if (e.atMs > nowMs - periodS * 1000 && !e.outdated) n += e.change;
  return n;
}

/** calculateScaleUpLimitWithScalingRules */
export function scaleUpLimit(
  current: number,
  up: ScaleEvent[],
  down: ScaleEvent[],
  rules: Rules,
  nowMs: number,
): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const pick = rules.selectPolicy === 'Min' ? Math.min : Math.max;
  let result = rules.selectPolicy === 'Min' ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
  for (const p of rules.policies) {
    const start =
      current - changeInPeriod(p.periodSeconds, up, nowMs) + changeInPeriod(p.periodSeconds, down, nowMs);
    const proposed = p.type === 'Pods' ? start + p.value : Math.ceil(start * (1 + p.value / 100));
    result = pick(result, proposed);
  }
  return result;
}

/** calculateScaleDownLimitWithBehaviors */
export function scaleDownLimit(
  current: number,
  up: ScaleEvent[],
  down: ScaleEvent[],
  rules: Rules,
  nowMs: number,
): number {
  if (rules.selectPolicy === 'Disabled') return current;
  // for scaling down the smallest change ('Min') is the largest count
  const pick = rules.selectPolicy === 'Min' ? Math.max : Math.min;
  let result = rules.selectPolicy === 'Min' ? Number.MIN_SAFE_INTEGER : Number.MAX_SAFE_INTEGER;
  for (const p of rules.policies) {
    const start =
      current - changeInPeriod(p.periodSeconds, up, nowMs) + changeInPeriod(p.periodSeconds, down, nowMs);
    const proposed = p.type === 'Pods' ? start - p.value : Math.trunc(start * (1 - p.value / 100));
    result = pick(result, proposed);
  }
  return result;
}

interface Recommendation {
  replicas: number;
  atMs: number;
}

/** what the normalization decided, with the conditions it sets */
export interface Normalized {
  desired: number;
  ableToScale: [string, string];
  limited: [boolean, string, string];
}

/** the per-HPA memory of the controller: recommendations and scale events (upstream keeps them in memory too) */
export class HpaMemory {
  recommendations: Recommendation[] = [];
  up: ScaleEvent[] = [];
  down: ScaleEvent[] = [];

  /** normalizeDesiredReplicas: no behavior — downscale stabilization and the 2×/4 scale-up cap */
  normalize(current: number, proposed: number, min: number, max: number, nowMs: number): Normalized {
    // stabilizeRecommendation
    let best = proposed;
    let oldIndex = -1;
    for (let i = 0; i < this.recommendations.length; i++) {
      const r = this.recommendations[i];
      if (r.atMs < nowMs - DOWNSCALE_STABILIZATION_MS) oldIndex = i;
      else if (r.replicas > best) best = r.replicas;
    }
    if (oldIndex >= 0) this.recommendations[oldIndex] = { replicas: proposed, atMs: nowMs };
    else this.recommendations.push({ replicas: proposed, atMs: nowMs });
    const ableToScale: [string, string] =
      best !== proposed
        ? [
            'ScaleDownStabilized',
            'recent recommendations were higher than current one, applying the highest recent recommendation',
          ]
        : ['ReadyForNewScale', 'recommended size matches current size'];
    // convertDesiredReplicasWithRules
    const upLimit = Math.max(SCALE_UP_LIMIT_FACTOR * current, SCALE_UP_LIMIT_MINIMUM);
    let maxAllowed = max;
    let reason = 'TooManyReplicas';
    let message = 'the desired replica count is more than the maximum replica count';
    if (max > upLimit) {
      maxAllowed = upLimit;
      reason = 'ScaleUpLimit';
      message = 'the desired replica count is increasing faster than the maximum scale rate';
    }
    let desired = best;
    if (best < min) {
      desired = min;
      reason = 'TooFewReplicas';
      message = 'the desired replica count is less than the minimum replica count';
    } else if (best > maxAllowed) desired = maxAllowed;
    else {
      reason = 'DesiredWithinRange';
      message = 'the desired count is within the acceptable range';
    }
    return { desired, ableToScale, limited: [desired !== best, reason, message] };
  }

  /** normalizeDesiredReplicasWithBehaviors */
  normalizeWithBehaviors(
    current: number,
    proposed: number,
    min: number,
    max: number,
    upRules: Rules,
    downRules: Rules,
    nowMs: number,
  ): Normalized {
    // stabilizeRecommendationWithBehaviors
    let upRec = proposed;
    let downRec = proposed;
    const upCutoff = nowMs - upRules.stabilizationMs;
    const downCutoff = nowMs - downRules.stabilizationMs;
    let oldIndex = -1;
    for (let i = 0; i < this.recommendations.length; i++) {
      const r = this.recommendations[i];
      if (r.atMs > upCutoff) upRec = Math.min(upRec, r.replicas);
      if (r.atMs > downCutoff) downRec = Math.max(downRec, r.replicas);
      if (r.atMs < upCutoff && r.atMs < downCutoff) oldIndex = i;
    }
    let stabilized = current;
    if (stabilized < upRec) stabilized = upRec;
    if (stabilized > downRec) stabilized = downRec;
    if (oldIndex >= 0) this.recommendations[oldIndex] = { replicas: proposed, atMs: nowMs };
    else this.recommendations.push({ replicas: proposed, atMs: nowMs });
    const ableToScale: [string, string] =
      stabilized === proposed
        ? ['ReadyForNewScale', 'recommended size matches current size']
        : proposed >= current
          ? [
              'ScaleUpStabilized',
              'recent recommendations were lower than current one, applying the lowest recent recommendation',
            ]
          : [
              'ScaleDownStabilized',
              'recent recommendations were higher than current one, applying the highest recent recommendation',
            ];
    // convertDesiredReplicasWithBehaviorRate
    let desired = stabilized;
    let reason = 'DesiredWithinRange';
    let message = 'the desired count is within the acceptable range';
    if (stabilized > current) {
      const limit = Math.max(current, scaleUpLimit(current, this.up, this.down, upRules, nowMs));
      let maxAllowed = max;
      let r = 'TooManyReplicas';
      let m = 'the desired replica count is more than the maximum replica count';
      if (max > limit) {
        maxAllowed = limit;
        r = 'ScaleUpLimit';
        m = 'the desired replica count is increasing faster than the maximum scale rate';
      }
      if (stabilized > maxAllowed) [desired, reason, message] = [maxAllowed, r, m];
    } else if (stabilized < current) {
      const limit = Math.min(current, scaleDownLimit(current, this.up, this.down, downRules, nowMs));
      let minAllowed = min;
      let r = 'TooFewReplicas';
      let m = 'the desired replica count is less than the minimum replica count';
      if (min < limit) {
        minAllowed = limit;
        r = 'ScaleDownLimit';
        m = 'the desired replica count is decreasing faster than the maximum scale rate';
      }
      if (stabilized < minAllowed) [desired, reason, message] = [minAllowed, r, m];
    }
    return { desired, ableToScale, limited: [desired !== stabilized, reason, message] };
  }

  /** storeScaleEvent: only with behavior; events older than the longest policy period are reused */
  storeScaleEvent(prev: number, next: number, upRules: Rules, downRules: Rules, nowMs: number): void {
    const up = next > prev;
    const events = up ? this.up : this.down;
    const rules = up ? upRules : downRules;
    const longest = Math.max(0, ...rules.policies.map((p) => p.periodSeconds));
    for (const e of events) if (e.atMs <= nowMs - longest * 1000) e.outdated = true;
    const change = up ? next - prev : prev - next;
    const i = events.findIndex((e) => e.outdated);
    if (i >= 0) events[i] = { change, atMs: nowMs, outdated: false };
    else events.push({ change, atMs: nowMs, outdated: false });
  }
}

function setCondition(
  conds: Condition[],
  type: string,
  status: boolean,
  reason: string,
  message: string,
  now: string,
): Condition[] {
  const s = status ? 'True' : 'False';
  const old = conds.find((c) => c.type === type);
  const c: Condition = {
    type,
    status: s,
    reason,
    message,
    lastTransitionTime: old?.status === s ? old.lastTransitionTime : now,
  };
  return old ? conds.map((x) => (x.type === type ? c : x)) : [...conds, c];
}

const metricName = (m: MetricSpec) =>
  m.type === 'Resource'
    ? m.resource!.name
    : m.type === 'ContainerResource'
      ? m.containerResource!.name
      : m.type === 'Pods'
        ? m.pods!.metric.name
        : '';

/** the pod's request for a resource, milli-units (calculatePodRequests): undefined when a container has none */
function podRequest(p: Pod, resource: string): number | undefined {
  let sum = 0;
  for (const c of p.spec.containers) {
    const q = c.resources?.requests?.[resource];
    if (q === undefined) return undefined;
    sum += cpuMillis(q);
  }
  return sum;
}

export class HorizontalController {
  readonly queue: WorkQueue<string>;
  private readonly hpas: Informer<HorizontalPodAutoscaler>;
  private readonly pods: Informer<Pod>;
  private readonly targets: Record<string, Informer<KubeObject>>;
  private readonly memory = new Map<string, HpaMemory>();
  private running?: Promise<void>;
  rescales = 0;

  constructor(
    private readonly deps: ControllerDeps,
    private readonly metrics: MetricsSource,
  ) {
    this.queue = new WorkQueue<string>(deps.clock, undefined, 'horizontalpodautoscaler');
    this.hpas = deps.informers.for<HorizontalPodAutoscaler>('horizontalpodautoscalers');
    this.pods = deps.informers.for<Pod>('pods');
    this.targets = Object.fromEntries(
      Object.values(TARGETS).map((r) => [r, deps.informers.for<KubeObject>(r)]),
    );
    this.hpas.addEventHandler({
      onAdd: (h) => this.queue.add(keyOf(h)),
      onUpdate: (o, h) => {
        if (o.metadata.generation !== h.metadata.generation) this.queue.add(keyOf(h));
      },
      onDelete: (h) => this.memory.delete(keyOf(h)),
    });
  }

  run(): void {
    this.running = runWorkers(this.queue, this.deps.workers ?? 5, (k) => this.sync(k));
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await this.running;
  }

  /** reconcileAutoscaler, then requeue after the sync period */
  async sync(key: string): Promise<void> {
    const hpa = this.hpas.getByKey(key);
    if (!hpa) return;
    this.queue.addAfter(key, HPA_SYNC_PERIOD_MS);
    const now = this.deps.clock.now();
    const nowS = rfc3339(now);
    let conds = hpa.status?.conditions ?? [];
    const ns = hpa.metadata.namespace ?? 'default';
    const ref = hpa.spec.scaleTargetRef;
    const resource = TARGETS[ref.kind];
    const target = resource ? this.targets[resource].get(ns, ref.name) : undefined;
    const status = (current: number, desired: number, extra: object = {}) => ({
      ...(hpa.status ?? {}),
      observedGeneration: hpa.metadata.generation,
      currentReplicas: current,
      desiredReplicas: desired,
      ...extra,
      conditions: conds,
    });
    if (!target) {
      conds = setCondition(
        conds,
        'AbleToScale',
        false,
        'FailedGetScale',
        `the HPA controller was unable to get the target's current scale: ${ref.kind.toLowerCase()}s "${ref.name}" not found`,
        nowS,
      );
      this.deps.recorder.event(
        hpa,
        'Warning',
        'FailedGetScale',
        `${ref.kind.toLowerCase()}s "${ref.name}" not found`,
      );
      await this.writeStatus(hpa, status(hpa.status?.currentReplicas ?? 0, hpa.status?.desiredReplicas ?? 0));
      return;
    }
    conds = setCondition(
      conds,
      'AbleToScale',
      true,
      'SucceededGetScale',
      "the HPA controller was able to get the target's current scale",
      nowS,
    );
    const spec = (target as { spec?: { replicas?: number; selector?: LabelSelector } }).spec ?? {};
    const current = spec.replicas ?? 1;
    const min = hpa.spec.minReplicas ?? 1;
    const max = hpa.spec.maxReplicas;
    const mem = this.memory.get(key) ?? new HpaMemory();
    this.memory.set(key, mem);
    let desired: number;
    let reason = '';
    let currentMetrics: unknown[] | undefined = hpa.status?.currentMetrics;
    const behavior = hpa.spec.behavior;
    const upRules = scaleRules(behavior?.scaleUp, true);
    const downRules = scaleRules(behavior?.scaleDown, false);
    if (current === 0 && min !== 0) {
      desired = 0;
      conds = setCondition(
        conds,
        'ScalingActive',
        false,
        'ScalingDisabled',
        'scaling is disabled since the replica count of the target is zero',
        nowS,
      );
    } else if (current > max) {
      desired = max;
      reason = 'Current number of replicas above Spec.MaxReplicas';
    } else if (current < min) {
      desired = min;
      reason = 'Current number of replicas below Spec.MinReplicas';
    } else {
      let proposal: { replicas: number; metric: string; statuses: unknown[] };
      try {
        proposal = this.computeReplicasForMetrics(hpa, target, current, now);
      } catch (e) {
        const msg = (e as Error).message;
        const r = e instanceof MetricsError ? 'FailedGetResourceMetric' : 'FailedComputeMetricsReplicas';
        conds = setCondition(
          conds,
          'ScalingActive',
          false,
          r,
          `the HPA was unable to compute the replica count: ${msg}`,
          nowS,
        );
        this.deps.recorder.event(hpa, 'Warning', r, msg);
        await this.writeStatus(hpa, status(current, hpa.status?.desiredReplicas ?? current));
        return;
      }
      currentMetrics = proposal.statuses;
      conds = setCondition(
        conds,
        'ScalingActive',
        true,
        'ValidMetricFound',
        `the HPA was able to successfully calculate a replica count from ${proposal.metric}`,
        nowS,
      );
      const n = behavior
        ? mem.normalizeWithBehaviors(current, proposal.replicas, min, max, upRules, downRules, now)
        : mem.normalize(current, proposal.replicas, min, max, now);
      conds = setCondition(conds, 'AbleToScale', true, n.ableToScale[0], n.ableToScale[1], nowS);
      conds = setCondition(conds, 'ScalingLimited', n.limited[0], n.limited[1], n.limited[2], nowS);
      desired = n.desired;
      if (desired > current) reason = `${proposal.metric} above target`;
      else if (desired < current) reason = 'All metrics below target';
    }
    let lastScaleTime = hpa.status?.lastScaleTime;
    if (desired !== current) {
      try {
        await this.deps.api.update(resource, { ...target, spec: { ...spec, replicas: desired } });
      } catch (e) {
        if (!isConflict(e) && !isNotFound(e)) throw e;
        conds = setCondition(
          conds,
          'AbleToScale',
          false,
          'FailedUpdateScale',
          `the HPA controller was unable to update the target scale: ${(e as Error).message}`,
          nowS,
        );
        await this.writeStatus(hpa, status(current, hpa.status?.desiredReplicas ?? current));
        return;
      }
      this.rescales++;
      if (behavior) mem.storeScaleEvent(current, desired, upRules, downRules, now);
      conds = setCondition(
        conds,
        'AbleToScale',
        true,
        'SucceededRescale',
        `the HPA controller was able to update the target scale to ${desired}`,
        nowS,
      );
      this.deps.recorder.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${reason}`);
      lastScaleTime = nowS;
    }
    await this.writeStatus(hpa, status(current, desired, { currentMetrics, lastScaleTime }));
  }

  /** computeReplicasForMetrics: each metric's proposal, the largest wins */
  private computeReplicasForMetrics(
    hpa: HorizontalPodAutoscaler,
    target: KubeObject,
    current: number,
    now: number,
  ) {
    const ns = hpa.metadata.namespace ?? 'default';
    const sel = (target as { spec?: { selector?: LabelSelector } }).spec?.selector;
    let selector;
    try {
      selector = labelSelectorAsSelector(sel);
    } catch (e) {
      if (e instanceof SelectorError)
        throw new Error(
          `couldn't convert selector into a corresponding internal selector object: ${e.message}`,
        );
      throw e;
    }
    if (selector.empty) throw new Error('selector is required');
    const pods = this.pods.list(ns).filter((p) => selector.matches(p.metadata.labels));
    const metrics = hpa.spec.metrics?.length
      ? hpa.spec.metrics
      : [
          {
            type: 'Resource',
            resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
          } as MetricSpec,
        ];
    let best = -1;
    let bestName = '';
    const statuses: unknown[] = [];
    const ref = { kind: hpa.spec.scaleTargetRef.kind, name: hpa.spec.scaleTargetRef.name };
    for (const m of metrics) {
      const name = metricName(m);
      if (m.type === 'Resource' || m.type === 'ContainerResource') {
        const t = (m.resource ?? m.containerResource)!.target;
        const samples = this.metrics.podMetrics(ns, ref, name, pods);
        if (t.type === 'Utilization') {
          const requests = new Map<string, number>();
          for (const p of pods) {
            const r = podRequest(p, name);
            if (r === undefined)
              throw new Error(`missing request for ${name} in container of Pod ${p.metadata.name}`);
            requests.set(p.metadata.name!, r);
          }
          const r = resourceReplicas(current, t.averageUtilization ?? 80, name, pods, samples, requests, now);
          statuses.push({
            type: m.type,
            resource: {
              name,
              current: { averageUtilization: r.utilization, averageValue: `${r.averageValue}m` },
            },
          });
          if (r.replicas > best)
            [best, bestName] = [r.replicas, `${name} resource utilization (percentage of request)`];
        } else {
          const r = plainMetricReplicas(current, cpuMillis(t.averageValue ?? 0), pods, samples, now);
          statuses.push({
            type: m.type,
            resource: { name, current: { averageValue: `${r.averageValue}m` } },
          });
          if (r.replicas > best) [best, bestName] = [r.replicas, `${name} resource`];
        }
      } else if (m.type === 'Pods') {
        const t = m.pods!.target;
        const samples = this.metrics.podMetrics(ns, ref, name, pods);
        const r = plainMetricReplicas(current, cpuMillis(t.averageValue ?? 0), pods, samples, now);
        statuses.push({
          type: 'Pods',
          pods: { metric: { name }, current: { averageValue: `${r.averageValue}m` } },
        });
        if (r.replicas > best) [best, bestName] = [r.replicas, `pods metric ${name}`];
      } else throw new Error(`${m.type} metrics are not modelled by kubesim`);
    }
    return { replicas: best, metric: bestName, statuses };
  }

  private async writeStatus(
    hpa: HorizontalPodAutoscaler,
    next: NonNullable<HorizontalPodAutoscaler['status']>,
  ): Promise<void> {
    if (JSON.stringify(hpa.status ?? {}) === JSON.stringify(next)) return;
    try {
      await this.deps.api.updateStatus('horizontalpodautoscalers', { ...hpa, status: next });
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }
}

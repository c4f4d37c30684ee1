/**
 * The HPA's replica calculator (upstream: pkg/controller/podautoscaler/replica_calculator.go,
 * Kubernetes v1.34): from per-pod metric samples, the replica count that brings the metric to its
 * target. Quantities are milli-units (250m CPU = 250; a Pods metric of 20 = 20000).
 *
 * - groupPods: pods being deleted, Failed or Pending are ignored; pods without a sample are
 *   missing; for CPU, a pod is unready when it has no Ready condition or start time, or, within the
 *   5 min CPU initialization period, when it is not Ready or its sample predates its last readiness
 *   change plus the metric window; after that period, when it is not Ready and never was (its
 *   readiness did not change later than 30 s after start).
 * - Utilization: usage and requests of the ready pods with samples; current utilization =
 *   int(100·usage/requests); ratio = current/target. Within the tolerance (0.1) of 1 → no change;
 *   else, with no missing pods and no unready pods to account for, ceil(ratio × ready pods).
 * - Otherwise the missing pods are assumed at 100 % of the target (max(100, target) % of request)
 *   when scaling down and at 0 when scaling up; unready pods at 0 when scaling up; the ratio is
 *   recomputed and a change that would reverse direction or land within tolerance keeps the
 *   current count.
 * - A Pods / AverageValue metric works the same on raw values (GetMetricReplicas), an External
 *   metric with a total value uses the ready pod count (GetExternalMetricReplicas).
 */
import type { Pod } from '../api/types.js';

/** the default --horizontal-pod-autoscaler-tolerance */
export const TOLERANCE = 0.1;
/** --horizontal-pod-autoscaler-cpu-initialization-period */
export const CPU_INITIALIZATION_PERIOD_MS = 5 * 60_000;
/** --horizontal-pod-autoscaler-initial-readiness-delay */
export const INITIAL_READINESS_DELAY_MS = 30_000;
/** the metrics window metrics-server reports with each sample */
export const METRIC_WINDOW_MS = 30_000;

export interface Sample {
  /** milli-units */
  value: number;
  timestampMs: number;
  windowMs: number;
}

export class MetricsError extends Error {}

function groupPods(pods: Pod[], metrics: Map<string, Sample>, cpu: boolean, nowMs: number) {
  let ready = 0;
  const unready = new Set<string>();
  const missing = new Set<string>();
  const ignored = new Set<string>();
  for (const p of pods) {
    const name = p.metadata.name!;
    const phase = p.status?.phase;
    if (p.metadata.deletionTimestamp || phase === 'Failed' || phase === 'Pending' || phase === undefined) {
      ignored.add(name);
      continue;
    }
    const m = metrics.get(name);
    if (!m) {
      missing.add(name);
      continue;
    }
    if (cpu) {
      const c = p.status?.conditions?.find((x) => x.type === 'Ready');
      const start = p.status?.startTime ? Date.parse(p.status.startTime) : NaN;
      let isUnready: boolean;
      if (!c || Number.isNaN(start)) isUnready = true;
      else {
        const changed = Date.parse(c.lastTransitionTime ?? '') || start;
        if (start + CPU_INITIALIZATION_PERIOD_MS > nowMs)
          isUnready = c.status === 'False' || m.timestampMs < changed + m.windowMs;
        else isUnready = c.status === 'False' && start + INITIAL_READINESS_DELAY_MS > changed;
      }
      if (isUnready) {
        unready.add(name);
        continue;
      }
    }
    ready++;
  }
  return { ready, unready, missing, ignored };
}

export interface ResourceReplicasResult {
  replicas: number;
  /** current average utilization (percent of request), as status.currentMetrics reports it */
  utilization: number;
  /** current average value (milli-units per pod) */
  averageValue: number;
}

/**
 * GetResourceReplicas: the replica count for a Resource metric with a target utilization (percent
 * of request), over the target's pods, their samples and their requests (milli-units per pod).
 */
export function resourceReplicas(
  currentReplicas: number,
  targetUtilization: number,
  resource: string,
  pods: Pod[],
  metrics: Map<string, Sample>,
  requests: Map<string, number>,
  nowMs: number,
  tolerance = TOLERANCE,
): ResourceReplicasResult {
  if (metrics.size === 0)
    throw new MetricsError(
      `unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`,
    );
  if (!pods.length) throw new MetricsError('no pods returned by selector while calculating replica count');
  const g = groupPods(pods, metrics, resource === 'cpu', nowMs);
  const m = new Map(metrics);
  for (const n of [...g.ignored, ...g.unready]) m.delete(n);
  if (m.size === 0)
    throw new MetricsError('did not receive metrics for targeted pods (pods might be unready)');
  const ratioOf = (samples: Map<string, number>) => {
    let usage = 0;
    let req = 0;
    for (const [name, v] of samples) {
      const r = requests.get(name);
      if (r === undefined) continue;
      usage += v;
      req += r;
    }
    if (req === 0) throw new MetricsError(`missing request for ${resource}`);
    const utilization = Math.trunc((usage * 100) / req);
    return { ratio: utilization / targetUtilization, utilization, avg: Math.trunc(usage / samples.size) };
  };
  const values = new Map([...m].map(([k, s]) => [k, s.value]));
  const first = ratioOf(values);
  const scaleUpWithUnready = g.unready.size > 0 && first.ratio > 1;
  if (!scaleUpWithUnready && g.missing.size === 0) {
    if (Math.abs(1 - first.ratio) <= tolerance)
      return { replicas: currentReplicas, utilization: first.utilization, averageValue: first.avg };
    return {
      replicas: Math.ceil(first.ratio * g.ready),
      utilization: first.utilization,
      averageValue: first.avg,
    };
  }
  if (g.missing.size > 0) {
    for (const n of g.missing) {
      const r = requests.get(n) ?? 0;
      if (first.ratio < 1) values.set(n, Math.trunc((Math.max(100, targetUtilization) * r) / 100));
      else if (first.ratio > 1) values.set(n, 0);
    }
  }
  if (scaleUpWithUnready) for (const n of g.unready) values.set(n, 0);
  const next = ratioOf(values);
  const keep = { replicas: currentReplicas, utilization: first.utilization, averageValue: first.avg };
  if (
    Math.abs(1 - next.ratio) <= tolerance ||
    (first.ratio < 1 && next.ratio > 1) ||
    (first.ratio > 1 && next.ratio < 1)
  )
    return keep;
  const n = Math.ceil(next.ratio * values.size);
  if ((next.ratio < 1 && n > currentReplicas) || (next.ratio > 1 && n < currentReplicas)) return keep;
  return { replicas: n, utilization: first.utilization, averageValue: first.avg };
}

/**
 * GetMetricReplicas / calcPlainMetricReplicas: a Pods metric with a target average value
 * (milli-units); unready pods are not treated specially beyond upstream's rules (no CPU rules).
 */
export function plainMetricReplicas(
  currentReplicas: number,
  targetValue: number,
  pods: Pod[],
  metrics: Map<string, Sample>,
  nowMs: number,
  tolerance = TOLERANCE,
): { replicas: number; averageValue: number } {
  if (!pods.length) throw new MetricsError('no pods returned by selector while calculating replica count');
  const g = groupPods(pods, metrics, false, nowMs);
  const values = new Map<string, number>();
  for (const [k, s] of metrics) if (!g.ignored.has(k) && !g.unready.has(k)) values.set(k, s.value);
  if (values.size === 0)
    throw new MetricsError('did not receive metrics for targeted pods (pods might be unready)');
  const ratioOf = (vs: Map<string, number>) => {
    let sum = 0;
    for (const v of vs.values()) sum += v;
    return { ratio: sum / (targetValue * vs.size), avg: Math.trunc(sum / vs.size) };
  };
  const first = ratioOf(values);
  const scaleUpWithUnready = g.unready.size > 0 && first.ratio > 1;
  if (!scaleUpWithUnready && g.missing.size === 0) {
    if (Math.abs(1 - first.ratio) <= tolerance) return { replicas: currentReplicas, averageValue: first.avg };
    return { replicas: Math.ceil(first.ratio * g.ready), averageValue: first.avg };
  }
  for (const n of g.missing) {
    if (first.ratio < 1) values.set(n, targetValue);
    else values.set(n, 0);
  }
  if (scaleUpWithUnready) for (const n of g.unready) values.set(n, 0);
  const next = ratioOf(values);
  if (
    Math.abs(1 - next.ratio) <= tolerance ||
    (first.ratio < 1 && next.ratio > 1) ||
    (first.ratio > 1 && next.ratio < 1)
  )
    return { replicas: currentReplicas, averageValue: first.avg };
  const n = Math.ceil(next.ratio * values.size);
  if ((next.ratio < 1 && n > currentReplicas) || (next.ratio > 1 && n < currentReplicas))
    return { replicas: currentReplicas, averageValue: first.avg };
  return { replicas: n, averageValue: first.avg };
}

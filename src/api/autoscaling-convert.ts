/**
 * autoscaling/v1 HorizontalPodAutoscaler ↔ autoscaling/v2, the stored version (upstream:
 * pkg/apis/autoscaling/v1/conversion.go). v1 has one target, `targetCPUUtilizationPercentage`,
 * and one observed figure, `status.currentCPUUtilizationPercentage`; what v2 holds beyond them
 * travels in annotations so that a v1 client's read-modify-write keeps it:
 *
 *   autoscaling.alpha.kubernetes.io/metrics          spec.metrics other than CPU utilization
 *   autoscaling.alpha.kubernetes.io/behavior         spec.behavior
 *   autoscaling.alpha.kubernetes.io/current-metrics  status.currentMetrics
 *   autoscaling.alpha.kubernetes.io/conditions       status.conditions
 *
 * Simplified: the metrics annotations hold v2's MetricSpec/MetricStatus shapes (upstream writes
 * autoscaling/v1's own v2beta1-like MetricSpec); a round trip through either reads back the same.
 */

// biome-ignore lint/suspicious/noExplicitAny: objects of either version are plain JSON
type Obj = Record<string, any>;

const METRICS = 'autoscaling.alpha.kubernetes.io/metrics';
const BEHAVIOR = 'autoscaling.alpha.kubernetes.io/behavior';
const CURRENT = 'autoscaling.alpha.kubernetes.io/current-metrics';
const CONDITIONS = 'autoscaling.alpha.kubernetes.io/conditions';

const isCpuUtilization = (m: Obj): boolean =>
  m?.type === 'Resource' && m.resource?.name === 'cpu' && m.resource?.target?.type === 'Utilization';

/** an annotation's JSON, removed from the object; undefined when absent or not JSON */
function takeJson(annotations: Obj | undefined, key: string): unknown {
  const raw = annotations?.[key];
  if (raw === undefined) return undefined;
  delete annotations![key];
  try {
    return JSON.parse(String(raw));
  } catch {
    return undefined;
  }
}

/** In place: an autoscaling/v1 HorizontalPodAutoscaler in v2's shape. Other objects are left alone. */
export function hpaToV2(obj: Obj): void {
  if (obj.kind !== 'HorizontalPodAutoscaler' || obj.apiVersion !== 'autoscaling/v1') return;
  obj.apiVersion = 'autoscaling/v2';
  const ann: Obj | undefined = obj.metadata?.annotations;
  const spec: Obj = obj.spec ?? {};
  const extra = takeJson(ann, METRICS);
  const metrics: Obj[] = [];
  if (typeof spec.targetCPUUtilizationPercentage === 'number')
    metrics.push({
      type: 'Resource',
      resource: {
        name: 'cpu',
        target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage },
      },
    });
  if (Array.isArray(extra)) metrics.push(...extra);
  delete spec.targetCPUUtilizationPercentage;
  if (metrics.length) spec.metrics = metrics;
  const behavior = takeJson(ann, BEHAVIOR);
  if (behavior !== undefined) spec.behavior = behavior;
  const status: Obj | undefined = obj.status;
  const current = takeJson(ann, CURRENT);
  const conditions = takeJson(ann, CONDITIONS);
  if (status) {
    const cpu = status.currentCPUUtilizationPercentage;
    delete status.currentCPUUtilizationPercentage;
    const currentMetrics: Obj[] = Array.isArray(current) ? current : [];
    if (
      typeof cpu === 'number' &&
      !currentMetrics.some((m) => m?.type === 'Resource' && m.resource?.name === 'cpu')
    )
      currentMetrics.unshift({
        type: 'Resource',
        resource: { name: 'cpu', current: { averageUtilization: cpu } },
      });
    if (currentMetrics.length) status.currentMetrics = currentMetrics;
    if (Array.isArray(conditions)) status.conditions = conditions;
  }
  if (ann && Object.keys(ann).length === 0) delete obj.metadata.annotations;
}

/** An autoscaling/v2 HorizontalPodAutoscaler as autoscaling/v1 shows it (a new object). */
export function hpaToV1(stored: Obj): Obj {
  const obj: Obj = structuredClone(stored);
  obj.apiVersion = 'autoscaling/v1';
  const ann: Obj = { ...(obj.metadata?.annotations ?? {}) };
  const spec: Obj = obj.spec ?? {};
  const metrics: Obj[] = Array.isArray(spec.metrics) ? spec.metrics : [];
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((m) => m !== cpu);
  delete spec.metrics;
  if (cpu) spec.targetCPUUtilizationPercentage = cpu.resource.target.averageUtilization;
  if (others.length) ann[METRICS] = JSON.stringify(others);
  if (spec.behavior !== undefined) {
    ann[BEHAVIOR] = JSON.stringify(spec.behavior);
    delete spec.behavior;
  }
  const status: Obj | undefined = obj.status;
  if (status) {
    const current: Obj[] = Array.isArray(status.currentMetrics) ? status.currentMetrics : [];
    const cpuNow = current.find((m) => m?.type === 'Resource' && m.resource?.name === 'cpu');
    if (typeof cpuNow?.resource?.current?.averageUtilization === 'number')
      status.currentCPUUtilizationPercentage = cpuNow.resource.current.averageUtilization;
    if (current.length) ann[CURRENT] = JSON.stringify(current);
    if (Array.isArray(status.conditions) && status.conditions.length)
      ann[CONDITIONS] = JSON.stringify(status.conditions);
    delete status.currentMetrics;
    delete status.conditions;
  }
  if (Object.keys(ann).length) (obj.metadata ??= {}).annotations = ann;
  return obj;
}

/**
 * The scenario's metric curves: what the HorizontalPodAutoscaler reads in place of metrics-server
 * (metrics.k8s.io) and a custom metrics adapter. Each curve names the workload an HPA scales and a
 * metric, and gives its value over the run as steps (a value holds from its `at` until the next):
 *
 * ```yaml
 * metrics:
 *   - target: Deployment/web            # Kind/name or Kind/namespace/name: the HPA's scaleTargetRef
 *     metric: cpu                       # a resource (cpu, memory) or a Pods metric name
 *     utilization: [[0s, 40], [5m, 180], [12m, 30]]   # percent of each pod's request, per pod
 *   - target: Deployment/api
 *     metric: cpu
 *     total: [[0s, "2"], [5m, "9"]]     # total usage, shared evenly by the pods that report
 *   - target: Deployment/queue
 *     metric: jobs_waiting
 *     perPod: [[0s, 10], [2m, 40]]      # every pod reports this value
 * ```
 *
 * A pod reports once it is Running and until it is deleted (metrics-server scrapes running
 * containers); every sample is stamped now with a 30 s window. `total` is what makes the feedback
 * loop: more pods, less usage each.
 */
import { cpuMillis } from '../api/quantity.js';
import type { Pod } from '../api/types.js';
import type { MetricsSource } from '../controllers/hpa.js';
import { METRIC_WINDOW_MS, type Sample } from '../controllers/replica-calculator.js';
import type { Clock } from '../util/clock.js';
import { checkKnownFields } from '../util/scenario-input.js';

export interface MetricCurve {
  kind: string;
  namespace: string;
  name: string;
  metric: string;
  mode: 'utilization' | 'perPod' | 'total';
  /** [ms since start, value]; utilization in percent, the others in milli-units */
  points: [number, number][];
}

/**
 * Parse `metrics:`. `fail(path, message)` throws the scenario's error; `duration` parses "5m".
 */
export function parseMetricCurves(
  raw: unknown,
  fail: (path: string, message: string) => never,
  duration: (v: unknown, path: string) => number,
): MetricCurve[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) fail('metrics', 'expected a list');
  return (raw as unknown[]).map((c, i) => {
    const w = `metrics[${i}]`;
    if (!c || typeof c !== 'object' || Array.isArray(c))
      fail(w, 'expected {target: Deployment/web, metric: cpu, utilization: [[0s, 50]]}');
    const o = c as Record<string, unknown>;
    checkKnownFields(o, ['target', 'metric', 'utilization', 'perPod', 'total'], w, fail);
    const t = typeof o.target === 'string' ? o.target.split('/') : [];
    if (t.length < 2 || t.length > 3 || t.some((x) => !x))
      fail(`${w}.target`, 'expected Kind/name or Kind/namespace/name, e.g. Deployment/web');
    if (typeof o.metric !== 'string' || !o.metric) fail(`${w}.metric`, 'expected a metric name such as cpu');
    const modes = (['utilization', 'perPod', 'total'] as const).filter((m) => o[m] !== undefined);
    if (modes.length !== 1) fail(w, 'give exactly one of utilization, perPod, total');
    const mode = modes[0];
    const pts = o[mode];
    if (!Array.isArray(pts) || pts.length === 0)
      fail(`${w}.${mode}`, 'expected a list of [time, value] pairs');
    const points = (pts as unknown[]).map((p, j): [number, number] => {
      const pw = `${w}.${mode}[${j}]`;
      if (!Array.isArray(p) || p.length !== 2) fail(pw, 'expected [time, value], e.g. [5m, 80]');
      const [at, v] = p as [unknown, unknown];
      let value: number;
      if (mode === 'utilization') {
        value = Number(v);
        if (!Number.isFinite(value) || value < 0)
          fail(pw, `expected a non-negative percentage, got ${JSON.stringify(v)}`);
      } else {
        try {
          value = cpuMillis(v as string | number);
        } catch {
          fail(pw, `expected a quantity such as 250m or 2, got ${JSON.stringify(v)}`);
        }
      }
      return [duration(at, pw), value!];
    });
    points.sort((a, b) => a[0] - b[0]);
    const [kind, a, b] = t as string[];
    return {
      kind,
      namespace: b === undefined ? 'default' : a,
      name: b === undefined ? a : b,
      metric: o.metric as string,
      mode,
      points,
    };
  });
}

/** the value of a step curve at `ms` since the start (before the first point: the first value) */
function valueAt(points: [number, number][], ms: number): number {
  let v = points[0][1];
  for (const [at, x] of points) if (at <= ms) v = x;
  return v;
}

/** the metrics source the simulation's HPA controller reads */
export class CurveMetrics implements MetricsSource {
  constructor(
    private readonly curves: MetricCurve[],
    private readonly clock: Clock,
    private readonly startMs: number,
  ) {}

  podMetrics(
    namespace: string,
    target: { kind: string; name: string },
    metric: string,
    pods: Pod[],
  ): Map<string, Sample> {
    const out = new Map<string, Sample>();
    const c = this.curves.find(
      (x) =>
        x.kind === target.kind && x.name === target.name && x.namespace === namespace && x.metric === metric,
    );
    if (!c) return out;
    const now = this.clock.now();
    const v = valueAt(c.points, now - this.startMs);
    const reporting = pods.filter((p) => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp);
    for (const p of reporting) {
      let value = v;
      if (c.mode === 'total') value = Math.trunc(v / reporting.length);
      else if (c.mode === 'utilization') {
        let req = 0;
        for (const ct of p.spec.containers) req += cpuMillis(ct.resources?.requests?.[metric] ?? 0);
        value = Math.trunc((v * req) / 100);
      }
      out.set(p.metadata.name!, { value, timestampMs: now, windowMs: METRIC_WINDOW_MS });
    }
    return out;
  }
}

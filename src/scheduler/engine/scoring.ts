/**
 * A profile's node-local scoring configuration, validated once and filled with kube-scheduler's
 * defaults (pkg/scheduler/apis/config/v1/defaults.go, default_plugins.go); compilePod folds it
 * into every query.
 */
import {
  DEFAULT_SCORE_WEIGHTS,
  FIT_STRATEGY_IDS,
  type ResourceSpec,
  SCORE_PLUGINS,
  type ScoringConfig,
  type UtilizationShapePoint,
} from './types.js';
import * as L from './layout.js';

/** upstream config.MaxCustomPriorityScore: RequestedToCapacityRatio shape scores are 0..10 */
export const MAX_CUSTOM_PRIORITY_SCORE = 10;
const DEFAULT_RESOURCES: ResourceSpec[] = [
  { name: 'cpu', weight: 1 },
  { name: 'memory', weight: 1 },
];

/** A validated {@link ScoringConfig} with defaults filled in; build once per profile. */
export interface ResolvedScoring {
  weights: number[];
  /** layout.ts FIT_* */
  fitType: number;
  fitResources: ResourceSpec[];
  shape: UtilizationShapePoint[];
  balancedResources: ResourceSpec[];
  /** a best-effort pod scores 0 for BalancedAllocation (its PreScore Skip); see ScoringConfig */
  balancedSkipsBestEffort: boolean;
}

/** Validates a scoring config (TypeError naming the field) and fills kube-scheduler's defaults. */
export function resolveScoring(config: ScoringConfig = {}): ResolvedScoring {
  const weights = SCORE_PLUGINS.map((p) => {
    const w = config.weights?.[p] ?? DEFAULT_SCORE_WEIGHTS[p];
    if (!Number.isInteger(w) || w < 0)
      throw new TypeError(`scoring.weights.${p}: must be a non-negative integer, got ${w}`);
    return w;
  });
  const fit = config.fit ?? { type: 'LeastAllocated' };
  const fitType = Object.hasOwn(FIT_STRATEGY_IDS, fit.type) ? FIT_STRATEGY_IDS[fit.type] : -1;
  if (fitType < 0)
    throw new TypeError(
      `scoring.fit.type: must be LeastAllocated, MostAllocated or RequestedToCapacityRatio, got ${fit.type}`,
    );
  const checkRes = (list: ResourceSpec[], field: string) => {
    list.forEach((r, i) => {
      if (!r.name) throw new TypeError(`${field}[${i}].name: required`);
      if (!Number.isInteger(r.weight) || r.weight < 1 || r.weight > 100)
        throw new TypeError(`${field}[${i}].weight: must be an integer in 1..100, got ${r.weight}`);
    });
    return list;
  };
  const fitResources = checkRes(fit.resources ?? DEFAULT_RESOURCES, 'scoring.fit.resources');
  const shape = fit.shape ?? [];
  if (fitType === L.FIT_REQUESTED_TO_CAPACITY_RATIO) {
    if (shape.length === 0)
      throw new TypeError('scoring.fit.shape: RequestedToCapacityRatio needs at least one point');
    shape.forEach((p, i) => {
      if (!Number.isInteger(p.utilization) || p.utilization < 0 || p.utilization > 100)
        throw new TypeError(`scoring.fit.shape[${i}].utilization: must be an integer in 0..100`);
      if (!Number.isInteger(p.score) || p.score < 0 || p.score > MAX_CUSTOM_PRIORITY_SCORE)
        throw new TypeError(`scoring.fit.shape[${i}].score: must be an integer in 0..10`);
      if (i > 0 && p.utilization <= shape[i - 1].utilization)
        throw new TypeError(`scoring.fit.shape[${i}].utilization: must be greater than the previous point's`);
    });
  }
  const balancedResources = checkRes(
    config.balancedResources ?? DEFAULT_RESOURCES,
    'scoring.balancedResources',
  );
  return {
    weights,
    fitType,
    fitResources,
    shape,
    balancedResources,
    balancedSkipsBestEffort: config.balancedSkipsBestEffort ?? true,
  };
}

/**
 * Taints and tolerations: the one place that decides whether a toleration tolerates a taint.
 * The scheduler (TaintToleration, PodTopologySpread's nodeTaintsPolicy, the NodeTable's
 * compiled toleration masks), the taint-eviction controller and the stand-in scheduler all
 * import these, as upstream's scheduler, taint manager and DaemonSet controller all call
 * v1helper.TolerationsTolerateTaint.
 *
 * upstream: staging/src/k8s.io/api/core/v1/toleration.go (Toleration.ToleratesTaint) and
 * pkg/apis/core/v1/helper/helpers.go (TolerationsTolerateTaint, FindMatchingUntoleratedTaint),
 * Kubernetes v1.32: the operators are `Equal` (also the empty operator) and `Exists`; any other
 * operator tolerates nothing.
 */
import type { Taint, Toleration } from './types.js';

/**
 * Toleration.ToleratesTaint: a toleration with an empty effect matches every effect, an empty
 * key with `Exists` matches every key; `Equal` (or no operator) compares values.
 *
 *   {key: foo, operator: Exists, effect: NoSchedule}  tolerates  foo=bar:NoSchedule
 *   {key: foo, value: bar, effect: NoSchedule}        does not tolerate  foo=bar:NoExecute
 */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? '') {
    case '':
    case 'Equal':
      return (t.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** TolerationsTolerateTaint: does any of the tolerations tolerate the taint? */
export function tolerationsTolerateTaint(
  tolerations: readonly Toleration[] | undefined,
  taint: Taint,
): boolean {
  if (tolerations) for (const t of tolerations) if (toleratesTaint(t, taint)) return true;
  return false;
}

/**
 * FindMatchingUntoleratedTaint: the first taint accepted by `filter` (every taint when absent)
 * that no toleration tolerates, or undefined.
 */
export function findMatchingUntoleratedTaint(
  taints: readonly Taint[] | undefined,
  tolerations: readonly Toleration[] | undefined,
  filter?: (taint: Taint) => boolean,
): Taint | undefined {
  if (taints)
    for (const taint of taints) {
      if (filter && !filter(taint)) continue;
      if (!tolerationsTolerateTaint(tolerations, taint)) return taint;
    }
  return undefined;
}

/** The taint filter the scheduler applies (DoNotScheduleTaintsFilterFunc): NoSchedule and NoExecute. */
export function doNotScheduleTaint(taint: Taint): boolean {
  return taint.effect === 'NoSchedule' || taint.effect === 'NoExecute';
}

/**
 * The taint NodeUnschedulable checks a cordoned node against (v1.TaintNodeUnschedulable with
 * effect NoSchedule): a pod tolerating it may land on an unschedulable node.
 */
export const UNSCHEDULABLE_TAINT: Readonly<Taint> = Object.freeze({
  key: 'node.kubernetes.io/unschedulable',
  effect: 'NoSchedule',
});

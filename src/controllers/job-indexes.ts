/**
 * Completion indexes of Indexed Jobs (upstream: pkg/controller/job/indexed_job_utils.go): the index
 * a pod carries in its annotation, and `status.completedIndexes`, an ordered interval list such as
 * "1,3-5,7" (indexes 1, 3, 4, 5 and 7 succeeded).
 */
import type { Pod } from '../api/types.js';

/** batch.kubernetes.io/job-completion-index: on the pod as annotation and (PodIndexLabel) label */
export const JOB_COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index';

/** getCompletionIndex: the pod's index, or -1 when absent or not a non-negative integer */
export function completionIndexOf(pod: Pod): number {
  const v = pod.metadata.annotations?.[JOB_COMPLETION_INDEX];
  if (v === undefined || !/^\d+$/.test(v)) return -1;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : -1;
}

/** parseIndexesFromString: "1,3-5" → [1, 3, 4, 5]; indexes ≥ completions dropped */
export function parseIndexes(s: string | undefined, completions: number): number[] {
  const out: number[] = [];
  if (!s) return out;
  for (const part of s.split(',')) {
    const [a, b] = part.split('-');
    const lo = Number(a);
    const hi = b === undefined ? lo : Number(b);
    if (!Number.isInteger(lo) || !Number.isInteger(hi)) continue;
    for (let i = lo; i <= hi && i < completions; i++) out.push(i);
  }
  return out;
}

/**
 * orderedIntervals.String: sorted distinct indexes joined by commas, runs of three or more written
 * "a-b" (a run of two stays "4,5")
 */
export function formatIndexes(indexes: Iterable<number>): string {
  const xs = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < xs.length; ) {
    let j = i;
    while (j + 1 < xs.length && xs[j + 1] === xs[j] + 1) j++;
    if (j === i) parts.push(String(xs[i]));
    else if (j === i + 1) parts.push(String(xs[i]), String(xs[j]));
    else parts.push(`${xs[i]}-${xs[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** firstPendingIndexes: the first `count` indexes below completions that are neither done nor active */
export function firstPendingIndexes(
  done: Set<number>,
  active: Set<number>,
  count: number,
  completions: number,
): number[] {
  const out: number[] = [];
  for (let i = 0; i < completions && out.length < count; i++) if (!done.has(i) && !active.has(i)) out.push(i);
  return out;
}

/**
 * FitError: why a pod fits on no node, rendered exactly as kube-scheduler's FitError.Error()
 * (pkg/scheduler/framework/types.go):
 *
 *   "0/<N> nodes are available: [<PreFilterMsg>.] [<count> <reason>, … (sorted as strings)].[ <PostFilterMsg>]"
 *
 * Each node contributes every reason of the status that rejected it (the first failing filter);
 * the "<count> <reason>" strings are sorted lexicographically, counts included (so "10 …" sorts
 * before "2 …", as upstream's sort.Strings does).
 */
import type { Pod } from '../../api/types.js';
import type { Status } from './status.js';

export const NO_NODE_AVAILABLE_MSG = (n: number) => `0/${n} nodes are available`;
/** upstream ErrNoNodesAvailable */
export const ERR_NO_NODES_AVAILABLE = 'no nodes available to schedule pods';

export interface Diagnosis {
  /** status of each node that was evaluated and rejected */
  nodeToStatus: Map<string, Status>;
  /** status for nodes absent from nodeToStatus (e.g. excluded before filtering), if any */
  absentNodesStatus?: Status;
  /** plugins that rejected the pod somewhere (drives event-based requeueing) */
  unschedulablePlugins: Set<string>;
  preFilterMsg: string;
  postFilterMsg: string;
}

export function newDiagnosis(): Diagnosis {
  return { nodeToStatus: new Map(), unschedulablePlugins: new Set(), preFilterMsg: '', postFilterMsg: '' };
}

export class FitError {
  readonly name = 'FitError';
  constructor(
    readonly pod: Pod,
    readonly numAllNodes: number,
    readonly diagnosis: Diagnosis,
  ) {}

  /** reason → number of nodes, over explicit and absent nodes */
  histogram(): Map<string, number> {
    const reasons = new Map<string, number>();
    for (const s of this.diagnosis.nodeToStatus.values()) {
      for (const r of s.reasons) reasons.set(r, (reasons.get(r) ?? 0) + 1);
    }
    const absent = this.numAllNodes - this.diagnosis.nodeToStatus.size;
    if (absent > 0 && this.diagnosis.absentNodesStatus) {
      for (const r of this.diagnosis.absentNodesStatus.reasons)
        reasons.set(r, (reasons.get(r) ?? 0) + absent);
    }
    return reasons;
  }

  get message(): string {
    return formatFitError(this.numAllNodes, this.diagnosis, this.histogram());
  }

  toString(): string {
    return this.message;
  }
}

/** Go's sort.Strings order: byte-wise (UTF-16 code unit order equals it for the ASCII reasons used) */
function byteCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function formatFitError(numAllNodes: number, d: Diagnosis, reasons: Map<string, number>): string {
  let msg = NO_NODE_AVAILABLE_MSG(numAllNodes) + ':';
  if (d.preFilterMsg !== '') {
    msg += ` ${d.preFilterMsg}.`;
  } else {
    const parts = [...reasons].map(([r, n]) => `${n} ${r}`).sort(byteCompare);
    if (parts.length) msg += ` ${parts.join(', ')}.`;
  }
  if (d.postFilterMsg !== '') msg += ` ${d.postFilterMsg}`;
  return msg;
}

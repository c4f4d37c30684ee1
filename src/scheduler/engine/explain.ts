import {
  doNotScheduleTaint,
  findMatchingUntoleratedTaint,
  tolerationsTolerateTaint,
  UNSCHEDULABLE_TAINT,
} from '../../api/taints.js';
import type { Pod, Taint } from '../../api/types.js';
import type { NodeTable, HostPort } from './table.js';
import { podHostPorts } from './table.js';
import { isScalarResourceName, podRequests } from './resources.js';
import { resourceReason } from './types.js';

/** upstream noderesources.InsufficientResource */
export interface InsufficientResource {
  resourceName: string;
  reason: string;
  requested: number;
  used: number;
  capacity: number;
  /** the request exceeds the node's whole allocatable: no preemption can make it fit (fit.go) */
  unresolvable: boolean;
}

/** Why one node rejects a pod, in the detail upstream's plugins compute (cold path, for explain). */
export interface NodeRejection {
  node: string;
  unschedulable: boolean;
  /** upstream FindMatchingUntoleratedTaint: the first NoSchedule/NoExecute taint (node order) no toleration tolerates */
  untoleratedTaint?: Taint;
  /** the pod's host ports that conflict with ports in use on the node */
  conflictingPorts: HostPort[];
  /** NodeResourcesFit's insufficient resources, "Too many pods" first, then cpu, memory, ephemeral-storage, extended */
  insufficient: InsufficientResource[];
}

/**
 * Detail for one node: the untolerated taint (upstream's reason no longer names it since it is
 * constant, "node(s) had untolerated taint(s)"), conflicting host ports and the requested / used /
 * capacity figures of each insufficient resource. Node affinity is a yes/no question answered by the
 * kernel's reason bit.
 */
export function explainNode(table: NodeTable, pod: Pod, slot: number): NodeRejection {
  const node = table.node(slot);
  const tols = pod.spec?.tolerations;
  const untoleratedTaint = findMatchingUntoleratedTaint(table.nodeTaints(slot), tols, doNotScheduleTaint);
  const unschedulable =
    node.spec?.unschedulable === true && !tolerationsTolerateTaint(tols, UNSCHEDULABLE_TAINT);
  const used = table.usedPorts(slot);
  const conflictingPorts = podHostPorts(pod).filter((w) =>
    used.some(
      (u) =>
        u.protocol === w.protocol &&
        u.port === w.port &&
        (w.ip === '0.0.0.0' || u.ip === '0.0.0.0' || u.ip === w.ip),
    ),
  );
  const insufficient: InsufficientResource[] = [];
  const podsUsed = table.requested(slot, 'pods');
  const podsCap = table.allocatable(slot, 'pods');
  if (podsUsed + 1 > podsCap)
    insufficient.push({
      resourceName: 'pods',
      reason: resourceReason('pods'),
      requested: 1,
      used: podsUsed,
      capacity: podsCap,
      unresolvable: false,
    });
  const req = podRequests(pod);
  const order = [
    'cpu',
    'memory',
    'ephemeral-storage',
    ...[...req.keys()].filter((k) => isScalarResourceName(k)).sort(),
  ];
  for (const r of order) {
    const q = req.get(r) ?? 0;
    if (q <= 0) continue;
    const u = table.requested(slot, r);
    const c = table.allocatable(slot, r);
    if (q > c - u)
      insufficient.push({
        resourceName: r,
        reason: resourceReason(r),
        requested: q,
        used: u,
        capacity: c,
        unresolvable: q > c,
      });
  }
  return { node: table.nodeName(slot), unschedulable, untoleratedTaint, conflictingPorts, insufficient };
}

/**
 * Fragmentation: free resources stranded in pieces too small for a pod shape.
 *
 * For each node, free_r = allocatable_r − Σ requests_r of its pods. The node can host
 * k = min over requested resources r of ⌊free_r / request_r⌋ more pods of the shape (and no more
 * than its free pod slots); whatever is left, free_r − k·request_r, is stranded for that shape.
 * Example: 3.5 CPU free and 16 Gi free, pod 1 CPU / 8 Gi → k = 2, stranded 1.5 CPU and 0 Gi.
 *
 * This is the resource-only bound. Taints, affinity and spread can make the scheduler place fewer;
 * the planner reports both, so the difference shows what the non-resource constraints cost.
 */
import type { Node, Pod } from '../api/types.js';
import { nodeAllocatable, podRequests } from '../scheduler/engine/resources.js';

export interface NodeFragment {
  node: string;
  /** more pods of the shape that fit by resources alone */
  fits: number;
  free: Record<string, number>;
  stranded: Record<string, number>;
  /** the resource that limits k on this node ("pods" = the pod-count limit) */
  limitedBy: string;
}

export interface FragmentationReport {
  shape: Record<string, number>;
  /** Σ fits over nodes */
  fitsByResources: number;
  /** totals per resource: free, usable by the shape (fits × request), stranded */
  totals: Record<string, { free: number; usable: number; stranded: number; strandedPct: number }>;
  /** nodes with some free room that cannot take even one pod of the shape */
  nodesWithStrandedRoom: number;
  nodes: NodeFragment[];
}

function isTerminated(p: Pod): boolean {
  return p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
}

export function fragmentation(nodes: Node[], pods: Pod[], shape: Pod): FragmentationReport {
  const want = podRequests(shape);
  const requested = new Map<string, Map<string, number>>();
  const podCount = new Map<string, number>();
  for (const p of pods) {
    const n = p.spec.nodeName;
    if (!n || isTerminated(p)) continue;
    let acc = requested.get(n);
    if (!acc) requested.set(n, (acc = new Map()));
    for (const [r, v] of podRequests(p)) acc.set(r, (acc.get(r) ?? 0) + v);
    podCount.set(n, (podCount.get(n) ?? 0) + 1);
  }
  const resources = [...want.keys()].filter((r) => (want.get(r) ?? 0) > 0 && r !== 'pods');
  const totals: FragmentationReport['totals'] = {};
  for (const r of resources) totals[r] = { free: 0, usable: 0, stranded: 0, strandedPct: 0 };
  const out: NodeFragment[] = [];
  let fitsTotal = 0;
  let strandedNodes = 0;
  for (const node of nodes) {
    const name = node.metadata.name ?? '';
    const alloc = nodeAllocatable(node);
    const used = requested.get(name) ?? new Map<string, number>();
    let k = Math.max(0, (alloc.get('pods') ?? 0) - (podCount.get(name) ?? 0));
    let limitedBy = 'pods';
    const free: Record<string, number> = {};
    for (const r of resources) {
      const f = Math.max(0, (alloc.get(r) ?? 0) - (used.get(r) ?? 0));
      free[r] = f;
      const kr = Math.floor(f / want.get(r)!);
      if (kr < k) {
        k = kr;
        limitedBy = r;
      }
    }
    if (node.spec?.unschedulable) {
      k = 0;
      limitedBy = 'unschedulable';
    }
    const stranded: Record<string, number> = {};
    let hasRoom = false;
    for (const r of resources) {
      stranded[r] = free[r] - k * want.get(r)!;
      totals[r].free += free[r];
      totals[r].usable += k * want.get(r)!;
      totals[r].stranded += stranded[r];
      if (free[r] > 0) hasRoom = true;
    }
    if (k === 0 && hasRoom) strandedNodes++;
    fitsTotal += k;
    out.push({ node: name, fits: k, free, stranded, limitedBy });
  }
  for (const r of resources)
    totals[r].strandedPct = totals[r].free > 0 ? (100 * totals[r].stranded) / totals[r].free : 0;
  return {
    shape: Object.fromEntries(resources.map((r) => [r, want.get(r)!])),
    fitsByResources: fitsTotal,
    totals,
    nodesWithStrandedRoom: strandedNodes,
    nodes: out,
  };
}

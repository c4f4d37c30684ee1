import type { NodeTable } from './table.js';
import { REASON_PLUGIN, REASON_RESOURCE_BASE, REASON_TEXT, resourceReason } from './types.js';

const PLUGIN_BITS = Object.keys(REASON_TEXT)
  .map(Number)
  .sort((a, b) => a - b);

/**
 * Upstream reason strings for a node's failed-filter bitmask, in plugin order (NodeResourcesFit's
 * resources in table order: pods, cpu, memory, ephemeral-storage, extended). Cold path (explain).
 */
export function reasonStrings(table: NodeTable, bits: number): string[] {
  const out: string[] = [];
  for (const b of PLUGIN_BITS) if ((bits & b) !== 0) out.push(REASON_TEXT[b]);
  const pods = table.resources.get('pods');
  if ((bits >>> (REASON_RESOURCE_BASE + pods)) & 1) out.push(resourceReason('pods'));
  for (let r = 0; r < table.resources.size; r++) {
    if (r === pods) continue;
    if ((bits >>> (REASON_RESOURCE_BASE + r)) & 1) out.push(resourceReason(table.resources.value(r)));
  }
  return out;
}

/** Names of the filter plugins whose reasons are set (NodeResourcesFit for any resource bit). */
export function failedPlugins(bits: number): string[] {
  const out: string[] = [];
  for (const b of PLUGIN_BITS) if ((bits & b) !== 0) out.push(REASON_PLUGIN[b]);
  if (bits >>> REASON_RESOURCE_BASE) out.push('NodeResourcesFit');
  return out;
}

/**
 * kube-scheduler's FitError summary: "0/N nodes are available: 1 Insufficient cpu, 2 node(s) had
 * untolerated taint(s)." — reasons counted over nodes; like upstream's sortReasonsHistogram the
 * "<count> <reason>" strings themselves are sorted (byte order, so "10 …" sorts before "2 …").
 */
export function fitErrorMessage(
  table: NodeTable,
  numAllNodes: number,
  reasonsPerNode: Iterable<number>,
): string {
  const hist = new Map<string, number>();
  for (const bits of reasonsPerNode)
    for (const r of reasonStrings(table, bits)) hist.set(r, (hist.get(r) ?? 0) + 1);
  const parts = [...hist.entries()].map(([r, c]) => `${c} ${r}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return parts.length
    ? `0/${numAllNodes} nodes are available: ${parts.join(', ')}.`
    : `0/${numAllNodes} nodes are available:`;
}

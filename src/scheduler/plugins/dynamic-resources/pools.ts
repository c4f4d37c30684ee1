/**
 * The resource pools a node can use (upstream: k8s.io/dynamic-resource-allocation/structured,
 * pools.go GatherPools, addSlice, poolIsInvalid; nodeMatches).
 *
 * A pool is the slices of one driver and pool name; only the slices of the newest generation count,
 * a pool with fewer slices than `resourceSliceCount` is incomplete, one with a device name twice is
 * invalid. Upstream returns the pools in Go map order (random); kubesim sorts them by driver and pool
 * name so that a seed fixes the result.
 */
import { nodeSelectorTermsMatch } from '../../../api/node-affinity.js';
import type { NodeSelector, Node } from '../../../api/types.js';
import type { ResourceSlice } from '../../../api/resource-types.js';

export interface Pool {
  /** `<driver>/<pool>` */
  id: string;
  driver: string;
  pool: string;
  slices: ResourceSlice[];
  incomplete: boolean;
  invalid: boolean;
  invalidReason: string;
}

/** upstream nodeMatches: a node name, all nodes, or a node selector */
export function nodeMatches(
  node: Node | undefined,
  nodeName: string | undefined,
  allNodes: boolean | undefined,
  selector: NodeSelector | undefined,
): boolean {
  if (nodeName) return node !== undefined && node.metadata.name === nodeName;
  if (allNodes) return true;
  if (selector) return node !== undefined && nodeSelectorTermsMatch(selector.nodeSelectorTerms ?? [], node);
  return false;
}

function addSlice(pools: Map<string, Pool>, s: ResourceSlice): void {
  const id = `${s.spec.driver}/${s.spec.pool.name}`;
  const pool = pools.get(id);
  if (!pool) {
    pools.set(id, {
      id,
      driver: s.spec.driver,
      pool: s.spec.pool.name,
      slices: [s],
      incomplete: false,
      invalid: false,
      invalidReason: '',
    });
    return;
  }
  const gen = s.spec.pool.generation ?? 0;
  const have = pool.slices[0]!.spec.pool.generation ?? 0;
  if (gen < have) return; // out-dated
  if (gen > have) pool.slices = []; // newer: replaces all old slices
  pool.slices.push(s);
}

function poolIsInvalid(pool: Pool): string {
  const seen = new Set<string>();
  for (const s of pool.slices)
    for (const d of s.spec.devices ?? []) {
      if (seen.has(d.name)) return `duplicate device name ${d.name}`;
      seen.add(d.name);
    }
  return '';
}

/** every slice of a driver's pool, whatever node it targets (upstream checkSlicesInPool reads them all) */
export type SlicesOfPool = (driver: string, pool: string) => readonly ResourceSlice[];

/**
 * GatherPools with the partitionable-devices feature off (alpha, off by default in v1.34): slices
 * with per-device node selection are ignored. A pool that looks incomplete from the node (slices of
 * a multi-host pool target other nodes) is checked against all its slices (`allOfPool`, upstream
 * checkSlicesInPool): a newer generation elsewhere makes the node's slices obsolete (the pool is
 * left out); otherwise the pool is complete when all slices of its generation exist, though only
 * the node's slices are used. Without `allOfPool` the node's slices are all there is.
 */
export function gatherPools(
  slices: readonly ResourceSlice[],
  node: Node | undefined,
  allOfPool?: SlicesOfPool,
): Pool[] {
  const pools = new Map<string, Pool>();
  for (const s of slices) {
    const spec = s.spec;
    if (spec.perDeviceNodeSelection != null) continue;
    if (spec.nodeName || spec.allNodes || spec.nodeSelector) {
      if (nodeMatches(node, spec.nodeName, spec.allNodes, spec.nodeSelector)) addSlice(pools, s);
    }
    // nothing known set: some future extension, skipped as upstream does
  }
  const out = [...pools.values()].sort((a, b) =>
    a.driver < b.driver ? -1 : a.driver > b.driver ? 1 : a.pool < b.pool ? -1 : a.pool > b.pool ? 1 : 0,
  );
  const kept: Pool[] = [];
  for (const p of out) {
    const first = p.slices[0]!.spec.pool;
    let complete = p.slices.length === first.resourceSliceCount;
    if (!complete && allOfPool) {
      const gen = first.generation ?? 0;
      let n = 0;
      let obsolete = false;
      for (const s of allOfPool(p.driver, p.pool)) {
        const g = s.spec.pool.generation ?? 0;
        if (g === gen) n++;
        else if (g > gen) {
          obsolete = true;
          break;
        }
      }
      if (obsolete) continue;
      complete = n === first.resourceSliceCount;
    }
    p.incomplete = !complete;
    p.invalidReason = complete ? poolIsInvalid(p) : '';
    p.invalid = p.invalidReason !== '';
    kept.push(p);
  }
  return kept;
}

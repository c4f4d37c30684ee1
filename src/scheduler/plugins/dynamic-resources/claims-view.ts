/**
 * What the DynamicResources plugin reads of the cluster (upstream: the SharedDRAManager — the
 * DeviceClass, ResourceClaim and ResourceSlice listers, the claim assume cache and
 * ListAllAllocatedDevices in dra_manager.go and allocateddevices.go), kept across scheduling
 * cycles: classes and claims by name, the devices allocated to claims, slices by node.
 *
 * It is rebuilt when the handle's lists change (their `revision`, or else their identity); lists
 * that only grew (a planner adding the claims of new replicas) are read from where they were left.
 * Claims the plugin allocated in Reserve are assumed (overlaid on the listed claims, their devices
 * counted as allocated) until the listed claim changes (a newer resourceVersion replaces the
 * assumption, as upstream's assume cache does) or Unreserve restores the listed one.
 */
import { claimKeyOf } from '../../../api/resource-claims.js';
import {
  deviceId,
  type DeviceClass,
  type ResourceClaim,
  type ResourceObjects,
  type ResourceSlice,
} from '../../../api/resource-types.js';
import type { Node } from '../../../api/types.js';
import { gatherPools, type Pool, type SlicesOfPool } from './pools.js';

const keyOf = (c: ResourceClaim) => claimKeyOf(c.metadata.namespace, c.metadata.name ?? '');

/** the devices a claim's allocation holds (admin-access results do not: upstream allocateddevices.go) */
function* allocatedDevices(c: ResourceClaim | undefined): Generator<string> {
  for (const r of c?.status?.allocation?.devices?.results ?? [])
    if (r.adminAccess !== true) yield deviceId(r.driver, r.pool, r.device);
}

/** a pool's count of allocation changes */
export interface Stamp {
  readonly n: number;
}

export function stampSum(stamps: readonly Stamp[]): number {
  let sum = 0;
  for (const st of stamps) sum += st.n;
  return sum;
}

interface Seen {
  lists: readonly (readonly unknown[] | undefined)[];
  lengths: number[];
  revision: number | undefined;
}

export class ClaimsView {
  readonly classes = new Map<string, DeviceClass>();
  /** listed claims by namespace/name, with the assumed ones in their place */
  readonly claims = new Map<string, ResourceClaim>();
  /** device id → number of claims holding it */
  private readonly allocated = new Map<string, number>();
  /** the allocated device ids (a view over {@link allocated} the allocator reads) */
  readonly allocatedIds: ReadonlySet<string>;
  private readonly listed = new Map<string, ResourceClaim>();
  private readonly assumed = new Map<string, { claim: ResourceClaim; from: string | undefined }>();
  private readonly slicesByNode = new Map<string, ResourceSlice[]>();
  private readonly sharedSlices: ResourceSlice[] = [];
  /** slices by `<driver>/<pool>`, for pools spread over several nodes (gatherPools' allOfPool) */
  private readonly slicesByPool = new Map<string, ResourceSlice[]>();
  readonly slicesOfPool: SlicesOfPool = (driver, pool) => this.slicesByPool.get(`${driver}/${pool}`) ?? [];
  /** gatherPools per node name, until a slice is added or the view rebuilt */
  private readonly pools = new Map<string, { pools: readonly Pool[]; stamps: Stamp[] }>();
  /** per pool id (`<driver>/<pool>`): bumped whenever a device of the pool is allocated or freed */
  private readonly poolStamps = new Map<string, { n: number }>();
  private gen = 0;
  private seen: Seen | undefined;

  constructor() {
    const allocated = this.allocated;
    this.allocatedIds = {
      has: (id: string) => (allocated.get(id) ?? 0) > 0,
    } as ReadonlySet<string>;
  }

  /** brings the view up to date with the handle's lists */
  sync(objects: ResourceObjects | undefined): void {
    const o = objects ?? {};
    const lists = [o.deviceClasses, o.resourceClaims, o.resourceSlices];
    const lengths = lists.map((l) => l?.length ?? 0);
    const s = this.seen;
    if (
      s &&
      s.revision === o.revision &&
      lists.every((l, i) => l === s.lists[i] && lengths[i] === s.lengths[i])
    )
      return;
    const grew =
      s !== undefined &&
      o.revision === undefined &&
      s.revision === undefined &&
      lists.every((l, i) => l === s.lists[i] && lengths[i]! >= s.lengths[i]!);
    if (!grew) this.clear();
    const from = grew ? s!.lengths : [0, 0, 0];
    for (const c of (o.deviceClasses ?? []).slice(from[0])) this.classes.set(c.metadata.name ?? '', c);
    for (const c of (o.resourceClaims ?? []).slice(from[1])) this.addListed(c);
    for (const sl of (o.resourceSlices ?? []).slice(from[2])) this.addSlice(sl);
    this.seen = { lists, lengths, revision: o.revision };
  }

  private clear(): void {
    this.gen++;
    this.classes.clear();
    this.claims.clear();
    this.listed.clear();
    this.allocated.clear();
    this.slicesByNode.clear();
    this.sharedSlices.length = 0;
    this.slicesByPool.clear();
    this.pools.clear();
  }

  private addListed(c: ResourceClaim): void {
    const k = keyOf(c);
    this.listed.set(k, c);
    const a = this.assumed.get(k);
    // an assumption holds until the listed claim moves past the version it was made from
    if (a && a.from === c.metadata.resourceVersion) {
      this.put(k, a.claim);
      return;
    }
    if (a) this.assumed.delete(k);
    this.put(k, c);
  }

  private put(k: string, c: ResourceClaim | undefined): void {
    for (const id of allocatedDevices(this.claims.get(k))) this.count(id, -1);
    if (c === undefined) this.claims.delete(k);
    else {
      this.claims.set(k, c);
      for (const id of allocatedDevices(c)) this.count(id, 1);
    }
  }

  private count(id: string, d: number): void {
    const pool = id.slice(0, id.lastIndexOf('/'));
    this.stamp(pool).n++;
    const n = (this.allocated.get(id) ?? 0) + d;
    if (n <= 0) this.allocated.delete(id);
    else this.allocated.set(id, n);
  }

  private addSlice(s: ResourceSlice): void {
    this.gen++;
    this.pools.clear();
    const id = `${s.spec.driver}/${s.spec.pool.name}`;
    let all = this.slicesByPool.get(id);
    if (!all) this.slicesByPool.set(id, (all = []));
    all.push(s);
    const n = s.spec?.nodeName;
    if (n) {
      let l = this.slicesByNode.get(n);
      if (!l) this.slicesByNode.set(n, (l = []));
      l.push(s);
    } else this.sharedSlices.push(s);
  }

  /** the slices that may serve a node: its own and those with a node selector or allNodes */
  slicesFor(node: Node): readonly ResourceSlice[] {
    const own = this.slicesByNode.get(node.metadata.name ?? '');
    if (!own) return this.sharedSlices;
    return this.sharedSlices.length === 0 ? own : [...own, ...this.sharedSlices];
  }

  /** bumped when the view is rebuilt or a slice added (pools and classes may have changed) */
  get generation(): number {
    return this.gen;
  }

  private stamp(pool: string): { n: number } {
    let st = this.poolStamps.get(pool);
    if (!st) this.poolStamps.set(pool, (st = { n: 0 }));
    return st;
  }

  private nodePools(node: Node): { pools: readonly Pool[]; stamps: Stamp[] } {
    const name = node.metadata.name ?? '';
    let p = this.pools.get(name);
    if (!p) {
      const pools = gatherPools(this.slicesFor(node), node, this.slicesOfPool);
      this.pools.set(name, (p = { pools, stamps: pools.map((x) => this.stamp(x.id)) }));
    }
    return p;
  }

  /** the node's pools (gatherPools over {@link slicesFor}), kept until the slices change */
  poolsFor(node: Node): readonly Pool[] {
    return this.nodePools(node).pools;
  }

  /**
   * What an allocation on `node` depends on besides the claims, the node and {@link generation}:
   * its pools' stamps ({@link stampSum}). Both only grow, so equal values mean that no class or
   * slice changed and no device of the node's pools was allocated or freed since. The list holds
   * for the node while the generation stays.
   */
  stampsOf(node: Node): readonly Stamp[] {
    return this.nodePools(node).stamps;
  }

  /** whether any slice exists at all (a pod's claims cannot be allocated without one) */
  hasSlices(): boolean {
    return this.sharedSlices.length > 0 || this.slicesByNode.size > 0;
  }

  /** Reserve: the claim with its allocation counts from now on */
  assume(claim: ResourceClaim): void {
    const k = keyOf(claim);
    const listed = this.listed.get(k);
    this.assumed.set(k, { claim, from: listed?.metadata.resourceVersion });
    this.put(k, claim);
  }

  /** Unreserve: back to the listed claim */
  restore(namespace: string | undefined, name: string): void {
    const k = claimKeyOf(namespace, name);
    if (!this.assumed.delete(k)) return;
    this.put(k, this.listed.get(k));
  }

  /** whether a claim is assumed (allocated by this plugin, not yet seen in the listed claim) */
  isAssumed(namespace: string | undefined, name: string): boolean {
    return this.assumed.has(claimKeyOf(namespace, name));
  }
}

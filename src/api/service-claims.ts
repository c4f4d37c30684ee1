/**
 * A Service's ClusterIP and NodePorts claimed in the store, for servers that share one durable
 * store (several `kubesim serve` over one etcd). Each server's allocators are in memory; without
 * a shared record two servers would hand the same lowest free address to two Services. Upstream
 * keeps allocations in etcd too: since v1.33 a ClusterIP is an IPAddress object named by the
 * address (pkg/registry/core/service/ipallocator/ipallocator.go), created in the same request as
 * the Service, and NodePorts live in a RangeAllocation updated by CAS
 * (pkg/registry/core/service/allocator/storage). kubesim writes one key per value under
 * /registry/kubesim/, in the Service's own create transaction: the create fails as a whole when
 * another server claimed a value first, the allocators learn every claimed value, and the create
 * is tried again. A delete removes the keys in the same transaction as the Service.
 * Simplified: an update that changes a NodePort or the type is not claimed here (the allocators
 * do not take part in updates either; docs/server.md).
 */
import type { Compare, KvStore, RequestOp } from '../store/types.js';
import { prefixEnd } from '../store/keyrange.js';
import type { Obj } from './apiserver-kv.js';
import type { ResourceInfo } from './registry.js';

const IP_PREFIX = '/registry/kubesim/serviceips/';
const PORT_PREFIX = '/registry/kubesim/servicenodeports/';
const owner = new TextEncoder();

/** The keys of the values a Service holds (none for other kinds). */
export function claimKeys(info: ResourceInfo, o: Obj): string[] {
  if (info.kind !== 'Service' || !o.spec || typeof o.spec !== 'object') return [];
  const s = o.spec;
  const keys: string[] = [];
  if (typeof s.clusterIP === 'string' && s.clusterIP !== '' && s.clusterIP !== 'None')
    keys.push(IP_PREFIX + s.clusterIP);
  if (Array.isArray(s.ports))
    for (const p of s.ports)
      if (typeof p?.nodePort === 'number' && p.nodePort) keys.push(PORT_PREFIX + p.nodePort);
  return keys;
}

/** The compares (each key still free) and puts (owned by namespace/name) of a create. */
export function claimOps(keys: string[], o: Obj): { compare: Compare[]; success: RequestOp[] } {
  const value = owner.encode(`${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`);
  return {
    compare: keys.map((key) => ({ key, target: 'CREATE', result: 'EQUAL', createRevision: 0 })),
    success: keys.map((key) => ({ requestPut: { key, value } })),
  };
}

/** The deletes that give a deleted Service's values back. */
export function releaseOps(keys: string[]): RequestOp[] {
  return keys.map((key) => ({ requestDeleteRange: { key } }));
}

/** Whether any of the keys is claimed already (so a failed create lost a value, not its name). */
export async function anyClaimed(store: KvStore, keys: string[]): Promise<boolean> {
  for (const key of keys) if ((await store.range({ key, countOnly: true })).count > 0) return true;
  return false;
}

/** Every value claimed in the store, for the allocators to reserve. */
export async function claimedValues(store: KvStore): Promise<{ ips: string[]; ports: number[] }> {
  const read = async (prefix: string) =>
    (await store.range({ key: prefix, rangeEnd: prefixEnd(prefix), keysOnly: true })).kvs.map((kv) =>
      kv.key.slice(prefix.length),
    );
  return { ips: await read(IP_PREFIX), ports: (await read(PORT_PREFIX)).map(Number) };
}

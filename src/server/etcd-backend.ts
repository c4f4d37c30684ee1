/**
 * `kubesim serve --etcd-servers`: the store of the served cluster on a real etcd, laid out as
 * kube-apiserver lays it out (every object under /registry/<resource>/…, see api/apiserver-kv.ts
 * storageKey), so `etcdctl get --prefix /registry/` lists it. An etcd that already holds /registry
 * keys is a cluster to resume (a restarted serve): its objects and resourceVersions are kept and the
 * scenario's objects are not created over them.
 */
import { EtcdStore } from '../store/etcd/etcd-store.js';

export interface EtcdBackend {
  store: EtcdStore;
  /** the etcd already held /registry keys: the cluster is resumed, not created */
  resumed: boolean;
  /** /registry keys found at start-up */
  keys: number;
  /** the etcd's revision at start-up */
  revision: number;
}

/** how long the start-up probe waits for etcd before calling it unreachable */
const PROBE_TIMEOUT_MS = 5000;

/**
 * Connect to the etcd cluster and look at what it holds. Rejects with a one-line message naming the
 * endpoints when etcd does not answer within {@link PROBE_TIMEOUT_MS}.
 */
export async function openEtcd(endpoints: string[]): Promise<EtcdBackend> {
  for (const e of endpoints)
    if (!/^https?:\/\/[^/\s]+\/?$/.test(e))
      throw new Error(`--etcd-servers: "${e}" is not a URL like http://127.0.0.1:2379`);
  if (endpoints.some((e) => e.startsWith('https:')))
    throw new Error('--etcd-servers: https endpoints (etcd with TLS) are not supported yet');
  const probe = new EtcdStore({ endpoints, callTimeoutMs: PROBE_TIMEOUT_MS });
  let keys: number;
  let revision: number;
  try {
    const r = await probe.range({ key: '/registry/', rangeEnd: '/registry0', countOnly: true });
    keys = r.count;
    revision = r.header.revision;
  } catch (e) {
    // grpc-js's text carries a "Resolution note"; the cause (ECONNREFUSED host:port, deadline) suffices
    const msg = (e as Error).message;
    const cause =
      /connect (\w+ \S+)/.exec(msg)?.[1] ?? msg.split('\n')[0]!.replace(/\s*Resolution note:.*$/, '');
    throw new Error(`--etcd-servers ${endpoints.join(',')}: etcd is unreachable (${cause})`);
  } finally {
    await probe.close();
  }
  return { store: new EtcdStore({ endpoints }), resumed: keys > 0, keys, revision };
}

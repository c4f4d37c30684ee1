/**
 * `kubesim serve --etcd-servers`: the store of the served cluster on a real etcd, laid out as
 * kube-apiserver lays it out (every object under /registry/<resource>/…, see api/apiserver-kv.ts
 * storageKey), so `etcdctl get --prefix /registry/` lists it. An etcd that already holds /registry
 * keys is a cluster to resume (a restarted serve): its objects and resourceVersions are kept and the
 * scenario's objects are not created over them.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { EtcdStore, type EtcdStoreOptions } from '../store/etcd/etcd-store.js';

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

/** kube-apiserver's --etcd-cafile, --etcd-certfile, --etcd-keyfile (file names) */
export interface EtcdTlsFlags {
  cafile?: string;
  certfile?: string;
  keyfile?: string;
}

function readPem(file: string, flag: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new Error(`${flag} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** The EtcdStore TLS option of the flags; refuses a half client key pair and TLS files with http URLs. */
function tlsOption(endpoints: string[], flags: EtcdTlsFlags): EtcdStoreOptions['tls'] {
  const any = flags.cafile || flags.certfile || flags.keyfile;
  const https = endpoints.filter((e) => e.startsWith('https:'));
  if (https.length && https.length !== endpoints.length)
    throw new Error('--etcd-servers: give all URLs with https:// or none');
  if (!https.length) {
    if (any) throw new Error('--etcd-cafile/--etcd-certfile/--etcd-keyfile need https:// --etcd-servers');
    return undefined;
  }
  if (!!flags.certfile !== !!flags.keyfile)
    throw new Error(
      '--etcd-certfile and --etcd-keyfile: give both (a client certificate and its key) or neither',
    );
  return {
    ca: flags.cafile ? readPem(flags.cafile, '--etcd-cafile') : undefined,
    cert: flags.certfile ? readPem(flags.certfile, '--etcd-certfile') : undefined,
    key: flags.keyfile ? readPem(flags.keyfile, '--etcd-keyfile') : undefined,
  };
}

/**
 * Connect to the etcd cluster and look at what it holds. Rejects with a one-line message naming the
 * endpoints when etcd does not answer within {@link PROBE_TIMEOUT_MS}.
 */
export async function openEtcd(endpoints: string[], tlsFlags: EtcdTlsFlags = {}): Promise<EtcdBackend> {
  for (const e of endpoints)
    if (!/^https?:\/\/[^/\s]+\/?$/.test(e))
      throw new Error(`--etcd-servers: "${e}" is not a URL like http://127.0.0.1:2379`);
  const tls = tlsOption(endpoints, tlsFlags);
  const probe = new EtcdStore({ endpoints, callTimeoutMs: PROBE_TIMEOUT_MS, tls });
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
  const store = new EtcdStore({ endpoints, tls });
  let resumed = keys > 0;
  if (!resumed) {
    try {
      resumed = !(await claimBootstrap(store));
    } catch (e) {
      await store.close();
      throw new Error(`--etcd-servers ${endpoints.join(',')}: ${(e as Error).message}`);
    }
  }
  return { store, resumed, keys, revision };
}

/** written when a serve makes a new cluster in an empty etcd (under /registry/, so a wipe takes it too) */
export const BOOTSTRAP_KEY = '/registry/kubesim/bootstrap';

/**
 * Of several serves started together on an empty etcd exactly one makes the cluster: a transaction
 * writes BOOTSTRAP_KEY only while nothing is under /registry/; the others resume what it makes.
 */
async function claimBootstrap(store: EtcdStore): Promise<boolean> {
  const r = await store.txn({
    compare: [
      { key: '/registry/', rangeEnd: '/registry0', target: 'CREATE', result: 'EQUAL', createRevision: 0 },
    ],
    success: [
      { requestPut: { key: BOOTSTRAP_KEY, value: new TextEncoder().encode(`${hostname()} ${process.pid}`) } },
    ],
  });
  return r.succeeded;
}

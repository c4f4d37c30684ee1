/**
 * `kubesim snapshot`: one file holding what capacity planning, the simulation and the proxy read
 * from a live cluster, listed through the Kubernetes client library (kube-client.ts) and written as
 * a `kind: List` that every loader (`plan`, `simulate`, `proxy render`, `serve --cluster`) reads.
 *
 * Each kind is listed cluster-wide in pages (`limit`/`continue`, as kubectl's `--chunk-size`), and
 * each object loses what the server set and the simulation must not reuse (resourceVersion, uid,
 * creationTimestamp, generation, managedFields, selfLink, deletion fields: prepareForCreate in
 * src/api/manifest.ts) plus kubectl's last-applied-configuration annotation, a second copy of the
 * object that nothing reads. Status is kept: pod phases, node allocatable and conditions matter.
 */
import { BUILTIN_KINDS } from '../../api/kinds.js';
import { prepareForCreate } from '../../api/manifest.js';
import type { KubeObject } from '../../api/types.js';
import { type LiveCluster, LiveClusterError } from './kube-client.js';

/** Every kind a snapshot holds, in the order it is written (namespaces and nodes first). */
export const LIVE_SNAPSHOT_KINDS: readonly string[] = [
  'Namespace',
  'Node',
  'PriorityClass',
  'StorageClass',
  'CSINode',
  'CSIDriver',
  'CSIStorageCapacity',
  'VolumeAttachment',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'Deployment',
  'ReplicaSet',
  'StatefulSet',
  'DaemonSet',
  'ReplicationController',
  'Job',
  'CronJob',
  'PodDisruptionBudget',
  'Service',
  'EndpointSlice',
  'DeviceClass',
  'ResourceSlice',
  'ResourceClaimTemplate',
  'ResourceClaim',
  'Pod',
];

/**
 * Kinds of a group version a cluster may not serve (resource.k8s.io/v1 is new in v1.34): a 404 on
 * their collection means "none", named in {@link LiveSnapshot.skipped}, not a failed snapshot.
 */
const OPTIONAL_KINDS: ReadonlySet<string> = new Set([
  'DeviceClass',
  'ResourceSlice',
  'ResourceClaimTemplate',
  'ResourceClaim',
]);

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** The page size of each list request (kubectl's default --chunk-size). */
const PAGE = 500;

/** The API path of a kind's cluster-wide collection, from the built-in kind table. */
export function collectionPath(kind: string): { path: string; apiVersion: string } {
  const row = BUILTIN_KINDS.find((r) => r.kind === kind);
  if (!row) throw new Error(`no built-in kind ${kind}`);
  const apiVersion = row.group ? `${row.group}/${row.versions[0]}` : row.versions[0]!;
  return { path: `${row.group ? '/apis/' : '/api/'}${apiVersion}/${row.resource}`, apiVersion };
}

/** An object as the simulation should create it: server-set fields and last-applied dropped. */
export function stripLive(obj: KubeObject): KubeObject {
  const copy = prepareForCreate(obj);
  const ann = copy.metadata.annotations;
  if (ann && LAST_APPLIED in ann) {
    delete ann[LAST_APPLIED];
    if (Object.keys(ann).length === 0) delete copy.metadata.annotations;
  }
  return copy;
}

interface ListPage {
  items?: KubeObject[];
  metadata?: { continue?: string; resourceVersion?: string };
}

/**
 * Lists every object of one kind, page by page; items get their apiVersion and kind back. The
 * resourceVersion is the first page's: continued pages are served from that same revision.
 */
export async function listAll(
  cluster: LiveCluster,
  kind: string,
): Promise<{ items: KubeObject[]; resourceVersion: string }> {
  const { path, apiVersion } = collectionPath(kind);
  const items: KubeObject[] = [];
  let token = '';
  let resourceVersion = '';
  do {
    const q = new URLSearchParams({ limit: String(PAGE) });
    if (token) q.set('continue', token);
    const page = (await cluster.get(`${path}?${q}`)) as ListPage;
    resourceVersion ||= page.metadata?.resourceVersion ?? '';
    // a list's items carry no apiVersion/kind of their own (upstream: the list's kind says it)
    for (const item of page.items ?? []) items.push({ ...item, apiVersion, kind });
    token = page.metadata?.continue ?? '';
  } while (token);
  return { items, resourceVersion };
}

export interface LiveSnapshot {
  /** a `kind: List` of every object, stripped */
  list: { apiVersion: 'v1'; kind: 'List'; metadata: Record<string, never>; items: KubeObject[] };
  /** objects per kind, in LIVE_SNAPSHOT_KINDS order */
  counts: { kind: string; count: number }[];
  /** optional kinds the cluster does not serve, with the API path that answered 404 */
  skipped: { kind: string; path: string }[];
}

/** Lists every kind of {@link LIVE_SNAPSHOT_KINDS}; `onKind` reports progress. */
export async function takeSnapshot(
  cluster: LiveCluster,
  onKind?: (kind: string, done: number, total: number) => void,
): Promise<LiveSnapshot> {
  const items: KubeObject[] = [];
  const counts: { kind: string; count: number }[] = [];
  const skipped: { kind: string; path: string }[] = [];
  for (const [i, kind] of LIVE_SNAPSHOT_KINDS.entries()) {
    onKind?.(kind, i, LIVE_SNAPSHOT_KINDS.length);
    let objs: KubeObject[];
    try {
      objs = (await listAll(cluster, kind)).items;
    } catch (e) {
      if (!(OPTIONAL_KINDS.has(kind) && e instanceof LiveClusterError && e.status === 404)) throw e;
      skipped.push({ kind, path: collectionPath(kind).path });
      continue;
    }
    counts.push({ kind, count: objs.length });
    items.push(...objs.map(stripLive));
  }
  return { list: { apiVersion: 'v1', kind: 'List', metadata: {}, items }, counts, skipped };
}

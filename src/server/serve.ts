/**
 * `kubesim serve` as a library call: a {@link Simulation} (controllers, scheduler, kubelet model on
 * a virtual clock that starts at the wall clock's now) behind the HTTP server, its clock driven in
 * real time × speed, with the control endpoint at `/kubesim/v1/clock`.
 */
import { prepareForCreate } from '../api/manifest.js';
import type { KubeObject, Node } from '../api/types.js';
import { parseScenario } from '../sim/scenario.js';
import type { Scenario } from '../sim/scenario-types.js';
import { Simulation } from '../sim/simulation.js';
import { type RunningServer, startHttpServer } from './http.js';
import { RealtimeDriver, clockRoute } from './realtime.js';
import { selfSignedCert } from './tls.js';
import { explainRoute } from './explain-route.js';
import { uiRoute } from './ui.js';
import { uiDataRoute } from './ui/data-route.js';
import { authRoute } from './auth-route.js';
import { type EtcdBackend, type EtcdTlsFlags, openEtcd } from './etcd-backend.js';
import { METRICS_KINDS, metricsRoute } from './metrics-route.js';
import { COMPONENT_STATUS_KIND, componentStatusRoute } from './componentstatus-route.js';
import { startCompactor } from './etcd-compactor.js';
import { electServeLeader, type LeaderElectionOptions, type ServeElection } from './leader.js';

export interface ServeOptions {
  scenario: Scenario;
  host?: string;
  port?: number;
  /** virtual seconds per wall second (default 1) */
  speed?: number;
  /** start with the clock stopped (the control endpoint steps it) */
  paused?: boolean;
  /** run no scheduler: pods stay Pending until an outside scheduler binds them */
  noScheduler?: boolean;
  seed?: number;
  /** kubesim's version for /version */
  version: string;
  /** wall-clock interval of watch bookmarks (default 60 s) */
  bookmarkEveryMs?: number;
  /** watches without timeoutSeconds end after this × (1 + random) wall ms (default 1800 s) */
  minRequestTimeoutMs?: number;
  /** serve HTTPS with a self-signed certificate made at start-up (see tls.ts) */
  tls?: boolean;
  /** kube-apiserver's --runtime-config: group versions off by default to serve (resources.ts OPTIONAL_VERSIONS) */
  enableVersions?: readonly string[];
  onRequest?: (method: string, url: string, code: number, ms: number) => void;
  /**
   * kube-apiserver's --etcd-servers: keep the cluster in this etcd (keys under /registry/) in
   * place of memory; an etcd that already holds /registry keys is resumed (etcd-backend.ts)
   */
  etcdServers?: string[];
  /** TLS to https:// etcdServers: --etcd-cafile, --etcd-certfile, --etcd-keyfile */
  etcdTls?: EtcdTlsFlags;
  /** told when the cluster is resumed from etcd, and of leader changes (the CLI writes it on stderr) */
  onNotice?: (message: string) => void;
  /**
   * with etcdServers: several serves over one etcd elect the one that runs the components
   * (leader.ts); false runs them in this process unconditionally (--leader-elect=false)
   */
  leaderElection?: LeaderElectionOptions | false;
  /** with etcdServers: kube-apiserver's --etcd-compaction-interval (default 5 min; 0: never) */
  etcdCompactionIntervalMs?: number;
  /** this serve lost the Lease (leader.ts): its components must stop, the CLI exits */
  onLeadershipLost?: (message: string) => void;
}

export interface ServedCluster extends RunningServer {
  sim: Simulation;
  driver: RealtimeDriver;
  /** the PEM certificate clients trust (with tls) */
  caCert?: string;
  /** with etcdServers: the etcd behind the server, and whether the cluster was resumed from it */
  etcd?: Omit<EtcdBackend, 'store'>;
  /** with etcdServers and leader election: this serve's candidacy */
  election?: ServeElection;
}

/** A scenario of the default cluster: three 4-CPU / 16 GiB nodes in three zones. */
export function defaultScenario(): Scenario {
  return parseScenario(
    'name: serve\ncluster:\n  pools:\n    - { name: node, count: 3, cpu: "4", memory: 16Gi, zones: [zone-a, zone-b, zone-c] }\n',
    '<default cluster>',
    process.cwd(),
  );
}

/**
 * A scenario whose cluster is a snapshot's objects (`kubectl get -o yaml` output or
 * `kubesim snapshot`): nodes as they are, everything else created after them; the fields the
 * server sets (resourceVersion, uid, …) are dropped.
 */
export function snapshotScenario(objects: KubeObject[], source: string): Scenario {
  const sc = parseScenario(
    'name: serve\ncluster:\n  pools: [{ name: none, count: 0 }]\n',
    source,
    process.cwd(),
  );
  sc.pools = [];
  sc.snapshotNodes = objects.filter((o) => o.kind === 'Node').map((o) => prepareForCreate(o) as Node);
  // uids kept until created: the snapshot's pods stay owned by its DaemonSets and ReplicaSets
  sc.snapshotObjects = objects
    .filter((o) => o.kind !== 'Node')
    .map((o) => prepareForCreate(o, { keepUid: true }));
  return sc;
}

/** what ApiServer.bootstrapNamespaces creates */
const BOOTSTRAP_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** Namespaces every object refers to that the objects do not define themselves. */
function missingNamespaces(objects: KubeObject[]): string[] {
  const defined = new Set(objects.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name));
  const used = new Set<string>();
  for (const o of objects)
    if (o.metadata.namespace && !defined.has(o.metadata.namespace)) used.add(o.metadata.namespace);
  return [...used].sort();
}

export async function serveCluster(opts: ServeOptions): Promise<ServedCluster> {
  const sc = opts.scenario;
  // namespaces first, so the snapshot's namespaced objects land in existing ones
  const defined = sc.snapshotObjects.filter(
    (o) => o.kind === 'Namespace' && !BOOTSTRAP_NAMESPACES.includes(o.metadata.name!),
  );
  sc.snapshotObjects = [
    ...defined,
    ...missingNamespaces([...sc.snapshotObjects, ...sc.workloads])
      .filter((n) => !BOOTSTRAP_NAMESPACES.includes(n))
      .map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
    ...sc.snapshotObjects.filter((o) => o.kind !== 'Namespace'),
  ];
  const etcd = opts.etcdServers ? await openEtcd(opts.etcdServers, opts.etcdTls) : undefined;
  if (etcd?.resumed)
    opts.onNotice?.(
      etcd.keys > 0
        ? `etcd ${opts.etcdServers!.join(',')} already holds ${etcd.keys} keys under /registry/ (revision ${etcd.revision}): resuming that cluster, the scenario's objects are not created`
        : `etcd ${opts.etcdServers!.join(',')}: another serve is making the cluster there; joining it, the scenario's objects are not created`,
    );
  const elect = etcd && opts.leaderElection !== false ? (opts.leaderElection ?? {}) : undefined;
  const sim = new Simulation(sc, {
    startMs: Date.now(),
    noScheduler: opts.noScheduler,
    seed: opts.seed,
    store: etcd?.store,
    resume: etcd?.resumed,
    standby: !!elect,
  });
  try {
    if (!etcd?.resumed) await sim.server.bootstrapNamespaces();
    // the Services etcd already holds keep their ClusterIPs and NodePorts (repair.go)
    else await sim.server.restoreServiceAllocations();
    await sim.setup();
  } catch (e) {
    await sim.shutdown().catch(() => {});
    await etcd?.store.close();
    throw e;
  }
  const tooManyRequests = () => Object.values(sim.clients).reduce((n, c) => n + c.stats.tooManyRequests, 0);
  const driver = new RealtimeDriver(sim.loop, { speed: opts.speed, paused: opts.paused });
  const tls = opts.tls ? await selfSignedCert(opts.host ?? '127.0.0.1') : undefined;
  const http = await startHttpServer({
    tls,
    api: sim.server,
    host: opts.host,
    port: opts.port,
    version: opts.version,
    seed: opts.seed,
    watch: { bookmarkEveryMs: opts.bookmarkEveryMs, minRequestTimeoutMs: opts.minRequestTimeoutMs },
    routes: [
      clockRoute(driver),
      explainRoute(sim.server),
      uiRoute,
      authRoute,
      uiDataRoute({ api: sim.server, tooManyRequests }),
      metricsRoute(sim.server),
      componentStatusRoute,
    ],
    extraKinds: [...METRICS_KINDS, COMPONENT_STATUS_KIND],
    enableVersions: opts.enableVersions,
    onRequest: opts.onRequest,
  });
  driver.start();
  const compactor = etcd && startCompactor(etcd.store, opts.etcdCompactionIntervalMs ?? 5 * 60_000);
  const election =
    elect &&
    electServeLeader(sim, elect, {
      onStarted: (id) => opts.onNotice?.(`leader election: ${id} is the leader, its components start`),
      onNewLeader: (id) =>
        opts.onNotice?.(`leader election: the leader is ${id}; this serve answers API requests only`),
      onLost: (id, reason) => opts.onLeadershipLost?.(`leader election: ${id}: ${reason}`),
    });
  return {
    ...http,
    sim,
    driver,
    caCert: tls?.cert,
    etcd: etcd && { resumed: etcd.resumed, keys: etcd.keys, revision: etcd.revision },
    election,
    close: async () => {
      compactor?.stop();
      await election?.release();
      await http.close();
      await driver.stop();
      await sim.shutdown();
      await etcd?.store.close();
    },
  };
}

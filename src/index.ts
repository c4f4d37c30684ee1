/**
 * kubesim as a library. Each area is a namespace (and a subpath export, e.g. `kubesim/capacity`):
 *
 *   store      KvStore contract, MemoryStore (etcd v3 semantics in memory), trace replay
 *   api        quantities, manifests, validation, ApiServer facade
 *   scheduler  framework, plugins, NodeTable + js/wasm kernels, SchedulerCore, Scheduler
 *   proxy      kube-proxy model, iptables/ipvs/nftables renderers, dataplane model
 *   capacity   planCapacity, what-ifs, fragmentation, strategies, PlannerPool
 *   sim        scenarios on a virtual clock: controllers, scheduler, kubelets; reports
 *
 * Finer subpaths: kubesim/scheduler/engine (NodeTable, kernels), kubesim/scheduler/shard,
 * kubesim/proxy/dataplane, kubesim/store/etcd (EtcdStore; needs the optional etcd3).
 *
 * ```ts
 * import { capacity, scheduler } from 'kubesim';
 * const cluster = await scheduler.loadClusterFiles(['snapshot.yaml']);
 * const plan = capacity.planCapacity(cluster, [pod], { kernel: 'wasm' });
 * ```
 */
export * as store from './store/index.js';
export * as api from './api/index.js';
export * as scheduler from './scheduler/index.js';
export * as proxy from './proxy/index.js';
export * as capacity from './capacity/index.js';
export * as sim from './sim/index.js';
export { Rng } from './util/rng.js';
export { WallClock, ManualClock, type Clock } from './util/clock.js';

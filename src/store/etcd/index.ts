/** The etcd-backed KvStore, its launcher and helpers. */
export { EtcdStore, type EtcdStoreOptions } from './etcd-store.js';
export {
  launchEtcd,
  findEtcdBinary,
  etcdVersion,
  EtcdNotFoundError,
  type LaunchEtcdOptions,
  type LaunchedEtcd,
} from './launcher.js';
export { Keyspace } from './keyspace.js';
export { LeaseIdTable } from './lease-ids.js';

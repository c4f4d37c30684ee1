/**
 * The shared KvStore conformance suite against a real etcd (one etcd per file; every test gets a
 * new EtcdStore, and the suite isolates tests by key prefix and relative revisions).
 * Lease time passes for real: advanceLeaseTime waits, and the lease-expiry test runs at 3× its TTLs
 * (6 s and 9 s) so that a late timer on a saturated machine still lands inside its windows.
 */
import { EtcdStore } from '../../src/store/etcd/etcd-store.js';
import { describeEtcd } from '../helpers/etcd.js';
import { runKvStoreConformance } from './conformance.js';

describeEtcd('EtcdStore conformance', (etcd) => {
  runKvStoreConformance('EtcdStore', async () => {
    const store = new EtcdStore({ endpoints: etcd.endpoint });
    return {
      store,
      advanceLeaseTime: (ms) => new Promise((r) => setTimeout(r, ms)),
      leaseScale: 3,
      cleanup: () => store.close(),
    };
  });
});

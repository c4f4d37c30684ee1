/**
 * Vitest helper: one real etcd per test file.
 *
 *   describeEtcd('EtcdStore', (etcd) => { it('…', async () => { const s = etcd.store(); … }) });
 *
 * When no etcd binary exists the suite is SKIPPED, with the reason in its name and on stderr;
 * under KUBESIM_REQUIRE_ETCD=1 (CI) it FAILS instead.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { EtcdStore } from '../../src/store/etcd/etcd-store.js';
import { findEtcdBinary, launchEtcd, type LaunchedEtcd } from '../../src/store/etcd/launcher.js';

export interface EtcdHandle {
  /** the running etcd (valid inside tests and hooks, after beforeAll) */
  readonly server: LaunchedEtcd;
  readonly endpoint: string;
  /** a new EtcdStore on this etcd, closed automatically after the file */
  store(prefix?: string): EtcdStore;
  /** a fresh etcd of its own (revision 1), stopped automatically after the file */
  fresh(): Promise<{ server: LaunchedEtcd; store: EtcdStore }>;
}

/** Whether etcd can run here, and why not. */
export function etcdAvailability(): { available: boolean; reason: string } {
  const found = findEtcdBinary();
  if (found.path) return { available: true, reason: '' };
  return { available: false, reason: `etcd binary not found (tried ${found.tried.join(', ')})` };
}

export const etcdRequired = process.env.KUBESIM_REQUIRE_ETCD === '1';

export interface DescribeEtcdOptions {
  /** launch the file's shared etcd in beforeAll (default true); false when tests launch their own */
  shared?: boolean;
}

export function describeEtcd(
  name: string,
  body: (etcd: EtcdHandle) => void,
  opts: DescribeEtcdOptions = {},
): void {
  const { available, reason } = etcdAvailability();
  if (!available) {
    if (etcdRequired) {
      describe(name, () => {
        it('needs etcd (KUBESIM_REQUIRE_ETCD=1)', () => {
          throw new Error(`${reason}; KUBESIM_REQUIRE_ETCD=1 requires it (install Debian's etcd-server)`);
        });
      });
    } else {
      process.stderr.write(
        `[kubesim] SKIPPING "${name}": ${reason} (set KUBESIM_REQUIRE_ETCD=1 to fail instead)\n`,
      );
      describe.skip(`${name} [skipped: ${reason}]`, () => body(unavailableHandle(reason)));
    }
    return;
  }
  describe(name, () => {
    let server: LaunchedEtcd | undefined;
    const stores: EtcdStore[] = [];
    const extra: LaunchedEtcd[] = [];
    beforeAll(async () => {
      if (opts.shared !== false) server = await launchEtcd();
    });
    afterAll(async () => {
      await Promise.all(stores.map((s) => s.close().catch(() => undefined)));
      await Promise.all([...extra, ...(server ? [server] : [])].map((s) => s.stop()));
    });
    const handle: EtcdHandle = {
      get server() {
        if (!server) throw new Error('etcd not started yet (use the handle inside tests or hooks)');
        return server;
      },
      get endpoint() {
        return handle.server.endpoint;
      },
      store(prefix?: string) {
        const s = new EtcdStore({ endpoints: handle.endpoint, prefix });
        stores.push(s);
        return s;
      },
      async fresh() {
        const srv = await launchEtcd();
        extra.push(srv);
        const s = new EtcdStore({ endpoints: srv.endpoint });
        stores.push(s);
        return { server: srv, store: s };
      },
    };
    body(handle);
  });
}

function unavailableHandle(reason: string): EtcdHandle {
  const fail = (): never => {
    throw new Error(reason);
  };
  return {
    get server() {
      return fail();
    },
    get endpoint() {
      return fail();
    },
    store: fail,
    fresh: fail,
  };
}

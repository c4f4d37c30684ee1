/**
 * What kube-controller-manager's namespace controller does when a namespace is deleted, for the
 * clusters `kubesim serve` runs: every namespaced object in it is deleted, kind by kind (upstream:
 * pkg/controller/namespace/deletion/namespaced_resources_deleter.go). Simplified: kubesim's
 * ApiServer removes the namespace at once (no Terminating phase held by the `kubernetes`
 * finalizer), and the contents follow it here.
 */
import type { ApiServer, WatchHandle } from '../api/apiserver.js';
import { ApiError } from '../api/errors.js';

async function emptyNamespace(api: ApiServer, ns: string): Promise<void> {
  for (const info of api.kinds.list()) {
    if (!info.namespaced) continue;
    const { items } = await api.list(info.resource, { namespace: ns });
    for (const o of items)
      await api
        .delete(info.resource, ns, o.metadata.name!, { propagationPolicy: 'Background' })
        .catch((e) => {
          if (!(e instanceof ApiError && e.code === 404)) throw e;
        });
  }
}

/** Delete the contents of every namespace deleted from now on; returns the stop function. */
export async function startNamespaceCleanup(api: ApiServer): Promise<() => Promise<void>> {
  const list = await api.list('namespaces');
  const handle: WatchHandle = await api.watch(
    'namespaces',
    { resourceVersion: list.metadata.resourceVersion },
    (ev) => {
      if (ev.type === 'DELETED')
        void emptyNamespace(api, ev.object.metadata.name!).catch(() => {
          // a namespace created again under the same name keeps what is created in it from now on
        });
    },
  );
  return () => handle.stop();
}

/**
 * Cascading deletion for deletes that come in over HTTP: once an owner is gone, the objects whose
 * ownerReferences name its uid are deleted too, and theirs in turn (`kubectl delete deployment web`
 * takes its ReplicaSets and their Pods along, as the garbage collector does with the Background
 * policy; upstream: pkg/controller/garbagecollector). Simplified: it runs in the request, right
 * after the owner is deleted, rather than as a controller watching the graph; Foreground is
 * treated as Background (see docs/server.md).
 */
import type { ApiServer } from '../api/apiserver.js';
import { ApiError } from '../api/errors.js';
import { RESOURCES } from '../api/registry.js';
import type { KubeObject } from '../api/types.js';

// biome-ignore lint/suspicious/noExplicitAny: dependents of any kind
type Obj = any;

export async function cascadeDelete(api: ApiServer, owner: KubeObject): Promise<void> {
  const uid = owner.metadata.uid;
  if (!uid) return;
  // an owner only marked for deletion (finalizers, a terminating pod) keeps its dependents for now
  const still = await api
    .get(ownerResource(owner), owner.metadata.namespace, owner.metadata.name!)
    .then((o) => o.metadata.uid === uid)
    .catch(() => false);
  if (still) return;
  for (const info of RESOURCES) {
    if (owner.metadata.namespace && !info.namespaced) continue;
    const items = (await api.list(info.resource, { namespace: owner.metadata.namespace })).items as Obj[];
    for (const dep of items) {
      const refs: Obj[] = dep.metadata.ownerReferences ?? [];
      if (!refs.some((r) => r.uid === uid)) continue;
      // another owner still holds it: only drop the reference
      if (refs.length > 1) continue;
      try {
        const grace = info.kind === 'Pod' ? (dep.spec?.terminationGracePeriodSeconds ?? 30) : undefined;
        const deleted = await api.delete(info.resource, dep.metadata.namespace, dep.metadata.name, {
          gracePeriodSeconds: grace,
        });
        await cascadeDelete(api, deleted);
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      }
    }
  }
}

function ownerResource(o: KubeObject): string {
  const info = RESOURCES.find((r) => r.kind === o.kind && r.apiVersion === o.apiVersion);
  return info?.resource ?? `${o.kind.toLowerCase()}s`;
}

/**
 * CustomResourceDefinitions registering kinds at run time (upstream: apiextensions-apiserver's
 * crdHandler serving a CRD's group/versions once it is established, and its
 * customresourcecleanup finalizer deleting every custom resource when the CRD goes).
 *
 * Simplified: a CRD is served as soon as it is stored (no NamesAccepted/Established conditions),
 * and its instances are deleted at once with it rather than through the finalizer.
 */
import { type Obj, decodeKv } from './apiserver-kv.js';
import { type KindRegistry, lookupResource, storagePrefix } from './registry.js';
import { prefixEnd } from '../store/keyrange.js';
import { customKindOf } from './validation-crd.js';
import type { KvStore } from '../store/types.js';

/** Serve the kind a stored CRD defines (replacing what an earlier version of it defined). */
export function registerCRD(kinds: KindRegistry, crd: Obj): void {
  const custom = customKindOf(crd);
  if (custom) kinds.registerCustom(custom);
}

/** Register every CRD in the store (an ApiServer started over a store that already has some). */
export async function syncCustomKinds(store: KvStore, kinds: KindRegistry): Promise<void> {
  const prefix = storagePrefix(lookupResource('customresourcedefinitions')!);
  const r = await store.range({ key: prefix, rangeEnd: prefixEnd(prefix) });
  for (const kv of r.kvs) registerCRD(kinds, decodeKv<Obj>(kv));
}

/** A deleted CRD: stop serving its kind and delete its custom resources. */
export async function removeCRD(store: KvStore, kinds: KindRegistry, crd: Obj): Promise<void> {
  const name = String(crd.metadata?.name ?? '');
  const info = kinds.list().find((r) => r.crd === name);
  kinds.removeCustom(name);
  if (!info) return;
  const prefix = storagePrefix(info);
  await store.deleteRange({ key: prefix, rangeEnd: prefixEnd(prefix) });
}

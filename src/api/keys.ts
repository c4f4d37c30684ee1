/** Keys that name objects in tables and reports. */
import type { KubeObject, Pod } from './types.js';

/**
 * Where a shared frozen decode (intern.ts freezeShared) keeps its {@link metaKey}: a
 * non-enumerable symbol property, so that every in-process informer and every component map keyed
 * by the object holds one string per object instead of one each (at the scale envelope ~6 strings of
 * ~56 bytes per pod: five pod informers, the observer, the kubelet fleet). Spreads, JSON and msgpack
 * leave it out (it is neither enumerable nor a string key), so a copy computes its own key.
 */
export const OBJECT_KEY: unique symbol = Symbol('kubesim.objectKey');

/** "namespace/name" (or "name" for cluster-scoped objects): client-go's MetaNamespaceKeyFunc */
export function metaKey(obj: KubeObject): string {
  const m = obj.metadata;
  return m.namespace ? `${m.namespace}/${m.name}` : (m.name ?? '');
}

/**
 * `namespace/name` of a pod, the namespace defaulting to "default" as the apiserver defaults it: a
 * pod read from a manifest without a namespace has the key it will have once created. (For an
 * object read back from the API this equals client-go's MetaNamespaceKeyFunc, src/client/api.ts keyOf.)
 */
export function podKey(pod: Pod): string {
  return `${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? ''}`;
}

/**
 * The admission plugins kube-apiserver enables by default that change what kubesim stores, run
 * before the user's hooks as upstream runs its compiled-in plugins before webhooks. Today: Priority
 * (priority.ts). NamespaceLifecycle is an ApiServer option; DefaultTolerationSeconds is part of
 * the pod's initial state (defaults.ts).
 */
import type { AdmissionOperation } from './admission.js';
import { decodeKv, type Obj } from './apiserver-kv.js';
import {
  admitPodPriority,
  keepPodPriority,
  type PriorityClassLike,
  validatePriorityClassDefault,
} from './priority.js';
import { lookupResource, storagePrefix, type ResourceInfo } from './registry.js';
import { prefixEnd } from '../store/keyrange.js';
import type { KvStore } from '../store/types.js';

async function priorityClasses(store: KvStore): Promise<PriorityClassLike[]> {
  const prefix = storagePrefix(lookupResource('priorityclasses')!);
  const r = await store.range({ key: prefix, rangeEnd: prefixEnd(prefix) });
  return r.kvs.map((kv) => decodeKv<PriorityClassLike>(kv));
}

/**
 * Run the built-in plugins on a create or update of `obj` (`old` on update). `restore`: the object
 * was admitted where it was captured (a snapshot): a pod with spec.priority keeps it.
 */
export async function builtinAdmission(
  store: KvStore,
  operation: AdmissionOperation,
  info: ResourceInfo,
  obj: Obj,
  old: Obj | undefined,
  restore = false,
): Promise<void> {
  if (info.crd || (operation !== 'CREATE' && operation !== 'UPDATE')) return;
  if (info.kind === 'Pod') {
    if (operation === 'CREATE' && restore && typeof obj.spec?.priority === 'number') return;
    if (operation === 'CREATE') admitPodPriority(obj, await priorityClasses(store));
    else if (old) keepPodPriority(obj, old);
  } else if (info.kind === 'PriorityClass') {
    validatePriorityClassDefault(obj, await priorityClasses(store), operation);
  }
}

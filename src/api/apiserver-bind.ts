/**
 * pods/binding, what the scheduler POSTs (upstream: pkg/registry/core/pod/storage/storage.go
 * BindingREST.setPodHostAndAnnotations): sets spec.nodeName and the PodScheduled=True condition
 * with a compare-and-swap on the pod, so of two concurrent binds exactly one wins; the other gets
 * 409 `Operation cannot be fulfilled on pods/binding "x": pod x is already assigned to node "y"`.
 */
import type { AdmissionChain } from './admission.js';
import { admit } from './apiserver-admission.js';
import { copyIn, decodeKv, MAX_UPDATE_RETRIES, type Obj } from './apiserver-kv.js';
import { encodeFor } from './codec.js';
import { OPTIMISTIC_LOCK_MSG, conflict, internalError, invalid, notFound } from './errors.js';
import { type FieldError, invalidValue, required } from './field.js';
import { lookupResource, storageKey } from './registry.js';
import { rfc3339 } from './time.js';
import type { Binding, ObjectMeta } from './types.js';
import type { Clock } from '../util/clock.js';
import type { KvStore } from '../store/types.js';

export interface BindDeps {
  store: KvStore;
  clock: Clock;
  admission: AdmissionChain;
}

const bindingKind = { name: 'Binding', group: '' };
const bindingRes = { name: 'pods/binding', group: '' };

/** Validate a Binding as ValidatePodBinding does; returns the target node name. */
function bindingTarget(binding: Binding, name: string): string {
  const errs: FieldError[] = [];
  if (!name) errs.push(required('metadata.name', 'name or generateName is required'));
  const target = binding?.target;
  if (!target?.name) errs.push(required('target.name'));
  if (target?.kind && target.kind !== 'Node')
    errs.push(invalidValue('target.kind', target.kind, "must be empty or 'Node'"));
  if (errs.length) throw invalid(bindingKind, name, errs);
  return target.name;
}

/** Mark a pod scheduled: PodScheduled=True, its transition time moved only when it changes. */
function setScheduled(pod: Obj, now: string): void {
  const status = (pod.status ??= {});
  const conds: any[] = (status.conditions ??= []);
  const existing = conds.find((c) => c.type === 'PodScheduled');
  if (existing) {
    if (existing.status !== 'True') {
      existing.status = 'True';
      existing.lastTransitionTime = now;
    }
    delete existing.reason;
    delete existing.message;
  } else {
    conds.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now });
  }
}

export async function bindPod(deps: BindDeps, binding: Binding): Promise<void> {
  const podsInfo = lookupResource('pods')!;
  const bm: ObjectMeta = binding?.metadata ?? {};
  const name = bm.name ?? '';
  const ns = bm.namespace || 'default';
  const nodeName = bindingTarget(binding, name);
  const key = storageKey(podsInfo, ns, name);

  for (let attempt = 0; attempt < MAX_UPDATE_RETRIES; attempt++) {
    const r = await deps.store.range({ key });
    const kv = r.kvs[0];
    if (!kv) throw notFound(podsInfo.qualifiedResource, name);
    const pod = decodeKv<Obj>(kv);
    if (bm.uid && bm.uid !== pod.metadata.uid) {
      throw conflict(
        bindingRes,
        name,
        `Precondition failed: UID in precondition: ${bm.uid}, UID in object meta: ${pod.metadata.uid ?? ''}`,
      );
    }
    if (bm.resourceVersion && bm.resourceVersion !== pod.metadata.resourceVersion) {
      throw conflict(bindingRes, name, OPTIMISTIC_LOCK_MSG);
    }
    if (pod.metadata.deletionTimestamp)
      throw conflict(bindingRes, name, `pod ${name} is being deleted, cannot be assigned to a host`);
    if (pod.spec?.nodeName)
      throw conflict(bindingRes, name, `pod ${name} is already assigned to node "${pod.spec.nodeName}"`);

    const b = copyIn(binding);
    b.metadata.namespace = ns;
    await admit(deps.admission, 'CREATE', podsInfo, b, pod, false, 'binding', () => {});

    pod.spec.nodeName = nodeName;
    if (bm.annotations) pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), ...bm.annotations };
    setScheduled(pod, rfc3339(deps.clock.now()));
    delete pod.metadata.resourceVersion;
    const resp = await deps.store.txn({
      compare: [{ key, target: 'MOD', result: 'EQUAL', modRevision: kv.modRevision }],
      success: [{ requestPut: { key, value: encodeFor(deps.store, pod) } }],
    });
    if (resp.succeeded) return;
    if (bm.resourceVersion) throw conflict(bindingRes, name, OPTIMISTIC_LOCK_MSG);
    // lost a race: re-read; a concurrent bind now shows as "already assigned"
  }
  throw internalError(`too many conflicts binding pod "${name}"`);
}

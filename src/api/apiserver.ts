/**
 * ApiServer: kube-apiserver's REST semantics over any {@link KvStore} — the one door every
 * component writes and watches through.
 *
 *  - objects live at `/registry/<resource>/<namespace>/<name>` (cluster-scoped: without the
 *    namespace), msgpackr-encoded, without `metadata.resourceVersion`;
 *  - `metadata.resourceVersion` is the key's modRevision; a list's resourceVersion is the store
 *    revision it was read at;
 *  - update is a compare-and-swap on that modRevision (409 Conflict with the registry's message
 *    when stale); an update without a resourceVersion is unconditional (retried on races);
 *  - update ignores `.status` of kinds with a status subresource, updateStatus changes only `.status`;
 *  - `metadata.generation` starts at 1 and is bumped when `.spec` changes;
 *  - watch from a resourceVersion replays the store's history after it; a compacted one yields
 *    an ERROR event carrying a 410 Status (`too old resource version: 5 (12)`) so informers relist;
 *  - admission: mutating hooks → validation → validating hooks; flow control rejects bursts with 429.
 *
 * This file holds create, get and update and the object bookkeeping they share; each other
 * concern has its own file: apiserver-list.ts (paging), apiserver-watch.ts (+ probe-cache.ts),
 * apiserver-delete.ts (graceful deletion, finalizers), apiserver-bind.ts (pods/binding),
 * service-allocation.ts (ClusterIP/NodePort), apiserver-admission.ts, apiserver-kv.ts.
 *
 * Example over time (store revision on the left):
 *   r2 create pod a          → a.resourceVersion "2", generation 1
 *   r3 bind a → node-1       → a.resourceVersion "3", spec.nodeName node-1, PodScheduled=True
 *   r4 updateStatus(a @ "3") → a.resourceVersion "4"
 *      update(a @ "3")       → 409 Conflict (the key's modRevision is 4)
 *   watch(pods, rv "2")      → MODIFIED@3, MODIFIED@4, …
 */
import { AdmissionChain } from './admission.js';
import { admit } from './apiserver-admission.js';
import { bindPod } from './apiserver-bind.js';
import { builtinAdmission } from './builtin-admission.js';
import { deleteObject, type DeleteOptions } from './apiserver-delete.js';
import {
  copyIn,
  copyInStatus,
  copyOut,
  decodeKv,
  MAX_UPDATE_RETRIES,
  type Obj,
  readView,
} from './apiserver-kv.js';
import { isLeaseRenewal, renewTimeMoved } from './apiserver-lease.js';
import { listObjects, type ListOptions, type ListResult } from './apiserver-list.js';
import { watchObjects, type ApiWatchEvent, type WatchHandle, type WatchOptions } from './apiserver-watch.js';
import { decode, encodeFor } from './codec.js';
import { deepEqual } from './deep-equal.js';
import { applyDefaults, initialStatus } from './defaults.js';
import {
  ApiError,
  OPTIMISTIC_LOCK_MSG,
  alreadyExists,
  badRequest,
  conflict,
  forbidden,
  internalError,
  invalid,
  notFound,
} from './errors.js';
import { type FieldError, required } from './field.js';
import { FlowControl, type FlowControlOptions, type FlowControlStats } from './flowcontrol.js';
import { type RequestLatency, serviceTimeMs } from './request-latency.js';
import { ProbeCache } from './probe-cache.js';
import { cachesRevisions, RevisionCache } from './revision-cache.js';
import { registerCRD, removeCRD, syncCustomKinds } from './custom-kinds.js';
import {
  KindRegistry,
  lookupResource,
  noMatchesMessage,
  splitApiVersion,
  storageKey,
  storagePrefix,
  type ResourceInfo,
} from './registry.js';
import { ServiceAllocations } from './service-allocation.js';
import { anyClaimed, claimedValues, claimKeys, claimOps, releaseOps } from './service-claims.js';
import { rfc3339 } from './time.js';
import type { Binding, KubeObject, ObjectMeta } from './types.js';
import { validateObject, validateObjectUpdate, type UnknownFieldPolicy } from './validation.js';
import { type Clock, WallClock } from '../util/clock.js';
import { Rng } from '../util/rng.js';
import type { Compare, KvStore, RequestOp } from '../store/types.js';
import { prefixEnd } from '../store/keyrange.js';

export interface ApiServerOptions {
  /** time source for creationTimestamp, deletionTimestamp, conditions (default: wall clock) */
  clock?: Clock;
  admission?: AdmissionChain;
  flowControl?: FlowControlOptions;
  /**
   * how long each request holds its in-flight seat before it is answered (request-latency.ts);
   * default none: answered as soon as the store is
   */
  latency?: RequestLatency;
  /** uid generator; `seed` is the 1-based count of objects created so far (default: seeded UUIDv4) */
  uid?: (seed: number) => string;
  /** seed for generateName suffixes and default uids (default 1) */
  seed?: number | string;
  /** run validation.ts on create/update (default true) */
  validate?: boolean;
  /**
   * unknown fields: 'Strict' rejects (422), 'Warn' (default, the apiserver's default for clients
   * that do not ask for strict validation) and 'Ignore' accept them
   */
  fieldValidation?: UnknownFieldPolicy;
  /** service CIDR for ClusterIP allocation (default 10.96.0.0/12) */
  serviceCIDR?: string;
  /**
   * NamespaceLifecycle admission: creating a namespaced object in a namespace that does not
   * exist is 404 `namespaces "x" not found`, in a terminating one 403 (default false; call
   * {@link ApiServer.bootstrapNamespaces} to create default, kube-system, kube-public, kube-node-lease)
   */
  namespaceLifecycle?: boolean;
  /**
   * receives the warnings the apiserver would send as `Warning:` headers (unknown fields under
   * fieldValidation 'Warn'), e.g. `unknown field "spec.foo"`; default: dropped
   */
  onWarning?: (warning: string, obj: KubeObject) => void;
  /** called when a watch handler throws (default: console.error) */
  onWatchHandlerError?: (err: unknown) => void;
}

export interface CreateOptions {
  dryRun?: boolean;
  /**
   * the object was admitted by the cluster it was captured from (a snapshot restored, as etcd's
   * restore writes what the apiserver once stored): a Pod that carries spec.priority keeps it,
   * whether or not its PriorityClass is in the snapshot (builtin-admission.ts)
   */
  restore?: boolean;
}

export class ApiServer {
  readonly store: KvStore;
  readonly clock: Clock;
  readonly admission: AdmissionChain;
  readonly flowControl: FlowControl;
  private readonly uidFn: (seed: number) => string;
  private readonly rng: Rng;
  private latency?: { model: RequestLatency; rng: Rng };
  private readonly doValidate: boolean;
  private readonly namespaceLifecycle: boolean;
  private readonly vopts: { unknownFields: UnknownFieldPolicy };
  private readonly services: ServiceAllocations;
  private readonly onHandlerError: (err: unknown) => void;
  private readonly onWarning: ((warning: string, obj: KubeObject) => void) | undefined;
  private created = 0;
  private readonly probes = new ProbeCache();
  /** decodes shared by the watchers that ask for sharedObjects (apiserver-watch.ts) */
  private readonly sharedDecodes = new WeakMap<object, KubeObject>();
  /** the newest revision of each key of a kind revision-cache.ts caches, decoded once */
  private readonly revisions = new RevisionCache();
  /** the kinds served: the built-ins and those of the CRDs created through this server */
  readonly kinds = new KindRegistry();

  constructor(store: KvStore, opts: ApiServerOptions = {}) {
    this.store = store;
    this.clock = opts.clock ?? new WallClock();
    this.admission = opts.admission ?? new AdmissionChain();
    this.flowControl = new FlowControl(opts.flowControl);
    this.rng = new Rng(opts.seed ?? 1);
    if (opts.latency) this.setLatency(opts.latency);
    const uidRng = this.rng.fork('uid');
    this.uidFn = opts.uid ?? (() => randomUUID(uidRng));
    this.doValidate = opts.validate ?? true;
    this.namespaceLifecycle = opts.namespaceLifecycle ?? false;
    this.vopts = { unknownFields: opts.fieldValidation ?? 'Warn' };
    this.services = new ServiceAllocations(opts.serviceCIDR);
    this.onWarning = opts.onWarning;
    this.onHandlerError =
      opts.onWatchHandlerError ?? ((e) => console.error('kubesim ApiServer: watch handler threw:', e));
  }

  /** Flow-control counters (accepted, rejected, in flight, peaks). */
  stats(): FlowControlStats {
    return this.flowControl.stats();
  }

  /**
   * Create an object (POST). The resource comes from apiVersion/kind; a namespaced object
   * without a namespace goes to "default". Sets uid, creationTimestamp, generation 1, the
   * initial status (Pods: Pending + qosClass), defaults, and a name from generateName.
   * @throws ApiError 409 AlreadyExists, 422 Invalid, 400 BadRequest, 403 from admission, 429
   */
  create<T extends KubeObject>(obj: T, opts: CreateOptions = {}): Promise<T> {
    return this.limited(true, async () => {
      const info = await this.kindOf(obj);
      const o = copyIn(obj);
      const m = o.metadata;
      if (m.resourceVersion) throw badRequest('resourceVersion should not be set on objects to be created');
      this.normalizeNamespace(info, m);
      if (!m.name && m.generateName) m.name = m.generateName + this.randomSuffix();
      o.apiVersion = servedApiVersion(info, o.apiVersion);
      this.defaultNew(info, o);
      this.setSystemFields(info, o);
      await this.checkNamespace(info, m.namespace, m.name ?? '');
      await builtinAdmission(this.store, 'CREATE', info, o, undefined, opts.restore);
      let valid = false;
      await admit(this.admission, 'CREATE', info, o, undefined, opts.dryRun ?? false, undefined, () => {
        const errs = this.doValidate ? validateObject(o, info, this.vopts) : [];
        this.check(info, o, errs);
        valid = this.doValidate && errs.length === 0;
      });
      // a store shared with other servers: a value another server claimed first fails the whole
      // create; the allocators then learn every claimed value and allocate again (service-claims.ts)
      const shared = this.store.durable === true && info.kind === 'Service';
      const spec = shared ? structuredClone(o.spec) : undefined;
      for (let attempt = 0; ; attempt++) {
        if (attempt > 0) o.spec = structuredClone(spec);
        const releases = this.services.allocate(info, o);
        try {
          if (opts.dryRun) return o as T;
          const key = storageKey(info, m.namespace, m.name!);
          const claims = shared ? claimKeys(info, o) : [];
          const compare: Compare[] = [{ key, target: 'CREATE', result: 'EQUAL', createRevision: 0 }];
          const success: RequestOp[] = [{ requestPut: { key, value: encodeFor(this.store, o) } }];
          if (claims.length) {
            const claim = claimOps(claims, o);
            compare.push(...claim.compare);
            success.push(...claim.success);
          }
          const resp = await this.store.txn({ compare, success });
          if (!resp.succeeded) {
            if (claims.length === 0 || attempt >= 8 || !(await anyClaimed(this.store, claims)))
              throw alreadyExists(info.qualifiedResource, m.name!);
            for (const r of releases.splice(0)) r();
            this.services.reserveClaimed(await claimedValues(this.store));
            continue;
          }
          m.resourceVersion = String(resp.header.revision);
          releases.length = 0;
          this.remember(info, key, resp.header.revision, valid);
          this.afterWrite(info, o);
          return o as T;
        } finally {
          for (const r of releases) r();
        }
      }
    });
  }

  /** Read one object (GET). @throws ApiError 404 NotFound */
  get<T extends KubeObject = KubeObject>(
    resource: string,
    namespace: string | undefined,
    name: string,
  ): Promise<T> {
    return this.limited(false, async () => {
      const info = await this.resourceInfo(resource);
      const ns = info.namespaced ? namespace || 'default' : undefined;
      const r = await this.store.range({ key: storageKey(info, ns, name) });
      const kv = r.kvs[0];
      if (!kv) throw notFound(info.qualifiedResource, name);
      return decodeKv<T>(kv);
    });
  }

  /**
   * List objects (GET collection) with label/field selectors and limit/continue paging. The
   * result's resourceVersion is the store revision the list was read at; a continue token
   * reads the rest at that same revision (410 Expired once it is compacted).
   */
  list<T extends KubeObject = KubeObject>(resource: string, opts: ListOptions = {}): Promise<ListResult<T>> {
    return this.limited(false, async () =>
      listObjects<T>(this.store, await this.resourceInfo(resource), opts),
    );
  }

  /**
   * Replace an object (PUT). CAS on metadata.resourceVersion: a stale one fails with 409
   * Conflict ("…the object has been modified; please apply your changes to the latest version
   * and try again"); none means unconditional. `.status` is ignored for kinds with a status
   * subresource; generation is bumped when `.spec` changes. An update that changes nothing is
   * not written (same resourceVersion), as upstream.
   */
  update<T extends KubeObject>(obj: T): Promise<T> {
    return this.limited(true, () => this.doUpdate(obj, 'main'));
  }

  /** Update the status subresource (PUT …/status): only `.status` of the request is applied. */
  updateStatus<T extends KubeObject>(obj: T): Promise<T> {
    return this.limited(true, () => this.doUpdate(obj, 'status'));
  }

  private async doUpdate<T extends KubeObject>(obj: T, sub: 'main' | 'status'): Promise<T> {
    const info = await this.kindOf(obj);
    if (sub === 'status' && !info.hasStatus) {
      throw new ApiError(
        404,
        'NotFound',
        `the server could not find the requested resource (put ${info.resource} ${obj.metadata?.name ?? ''}/status)`,
      );
    }
    // a status update reads only the request's metadata (name, namespace, resourceVersion, uid)
    // and status (the status strategy takes everything else from the stored object): only those
    // are copied in
    const req = sub === 'status' ? copyInStatus(obj) : copyIn(obj);
    const m = req.metadata;
    this.normalizeNamespace(info, m);
    if (!m.name)
      throw invalid(info.qualifiedKind, '', [required('metadata.name', 'name or generateName is required')]);
    const key = storageKey(info, m.namespace, m.name);
    const wantRV = m.resourceVersion;

    for (let attempt = 0; attempt < MAX_UPDATE_RETRIES; attempt++) {
      const r = await this.store.range({ key });
      const kv = r.kvs[0];
      if (!kv) {
        if (info.allowCreateOnUpdate && sub === 'main' && !wantRV) {
          const fresh = copyIn(obj);
          delete fresh.metadata.resourceVersion;
          return this.createUnlimited(fresh) as Promise<T>;
        }
        throw notFound(info.qualifiedResource, m.name);
      }
      if (wantRV && wantRV !== String(kv.modRevision))
        throw conflict(info.qualifiedResource, m.name, OPTIMISTIC_LOCK_MSG);
      // this server's own last write of the key (frozen), unless admission hooks want an old object
      const cached = this.admission.size === 0 ? this.revisions.get(kv) : undefined;
      const old = cached ? cached.obj : decodeKv<Obj>(kv);
      if (m.uid && m.uid !== old.metadata.uid) {
        throw conflict(
          info.qualifiedResource,
          m.name,
          `Precondition failed: UID in precondition: ${m.uid}, UID in object meta: ${old.metadata.uid ?? ''}`,
        );
      }

      let next: Obj;
      if (sub === 'main') {
        next = req;
        if (info.hasStatus) {
          if (old.status === undefined) delete next.status;
          else next.status = cached ? copyOut(old.status) : old.status;
        }
      } else {
        next = copyIn(old);
        if (req.status === undefined) delete next.status;
        else next.status = req.status;
      }
      next.apiVersion = servedApiVersion(info, req.apiVersion);
      next.kind = info.kind;
      const nm = next.metadata;
      const om = old.metadata;
      // system fields are the server's (BeforeUpdate / FillObjectMetaSystemFields)
      nm.uid = om.uid;
      nm.creationTimestamp = om.creationTimestamp;
      nm.namespace = om.namespace;
      if (om.namespace === undefined) delete nm.namespace;
      nm.name = om.name;
      if (om.generation !== undefined) nm.generation = om.generation;
      else delete nm.generation;
      if (om.deletionTimestamp !== undefined) nm.deletionTimestamp = om.deletionTimestamp;
      else delete nm.deletionTimestamp;
      if (om.deletionGracePeriodSeconds !== undefined)
        nm.deletionGracePeriodSeconds = om.deletionGracePeriodSeconds;
      else delete nm.deletionGracePeriodSeconds;
      if (om.generateName !== undefined && nm.generateName === undefined) nm.generateName = om.generateName;
      delete nm.resourceVersion;
      // a Lease renewal of a validated Lease: its outcome is known (apiserver-lease.ts)
      const renewal =
        cached !== undefined &&
        (cached.valid || !this.doValidate) &&
        sub === 'main' &&
        info.kind === 'Lease' &&
        !info.crd &&
        isLeaseRenewal(old, next);
      let valid = false;
      if (renewal) {
        if (!renewTimeMoved(old, next)) return copyOut<T>(old); // no-op: nothing written
        valid = cached.valid;
      } else {
        if (sub === 'main') {
          if (!info.crd) applyDefaults(next);
          if (info.kind === 'Service') this.services.carry(old, next);
          await builtinAdmission(this.store, 'UPDATE', info, next, old);
          if (hasGeneration(info) && !deepEqual(old.spec, next.spec))
            nm.generation = (om.generation ?? 0) + 1;
          if (info.kind === 'DaemonSet') bumpTemplateGeneration(old, next);
        }

        await admit(
          this.admission,
          'UPDATE',
          info,
          next,
          old,
          false,
          sub === 'status' ? 'status' : undefined,
          () => {
            if (!this.doValidate) return;
            const errs = [
              ...validateObject(next, info, this.vopts),
              ...validateObjectUpdate(next, old, info, sub),
            ];
            this.check(info, next, errs);
            valid = errs.length === 0;
          },
        );

        const oldCmp = { ...old, metadata: { ...om } };
        delete oldCmp.metadata.resourceVersion;
        if (deepEqual(oldCmp, next)) return cached ? copyOut<T>(old) : (old as unknown as T); // no-op: nothing written
      }

      // the last finalizer removed from a deleting object: the object goes away
      const finishDelete =
        nm.deletionTimestamp !== undefined &&
        (!nm.finalizers || nm.finalizers.length === 0) &&
        !this.isGracefulPod(next);
      const resp = await this.store.txn({
        compare: [{ key, target: 'MOD', result: 'EQUAL', modRevision: kv.modRevision }],
        success: finishDelete
          ? [
              { requestDeleteRange: { key } },
              ...(this.store.durable ? releaseOps(claimKeys(info, next)) : []),
            ]
          : [{ requestPut: { key, value: encodeFor(this.store, next) } }],
      });
      if (!resp.succeeded) {
        if (wantRV) throw conflict(info.qualifiedResource, m.name, OPTIMISTIC_LOCK_MSG);
        continue; // unconditional update lost a race: retry on the new state (GuaranteedUpdate)
      }
      if (finishDelete) this.services.release(info, next);
      nm.resourceVersion = String(resp.header.revision);
      if (finishDelete) {
        this.revisions.delete(key);
        await this.afterDelete(info, next);
      } else {
        this.remember(info, key, resp.header.revision, valid);
        this.afterWrite(info, next);
      }
      return next as unknown as T;
    }
    throw internalError(`too many conflicts updating ${info.resource} "${m.name}"`);
  }

  /**
   * Delete an object (DELETE); returns the object as it was last stored. Preconditions (uid,
   * resourceVersion) fail with 409 Conflict. An object with finalizers is only marked
   * (deletionTimestamp) until an update removes the last one. A bound Pod deleted with
   * gracePeriodSeconds > 0 is marked terminating rather than removed (the kubelet model then
   * deletes it with grace 0).
   */
  delete<T extends KubeObject = KubeObject>(
    resource: string,
    namespace: string | undefined,
    name: string,
    opts: DeleteOptions = {},
  ): Promise<T> {
    const deps = { store: this.store, clock: this.clock, admission: this.admission, services: this.services };
    return this.limited(true, async () => {
      const info = await this.resourceInfo(resource);
      const old = await deleteObject<T>(deps, info, namespace, name, opts);
      if (!opts.dryRun && this.revisions.size > 0)
        this.revisions.delete(storageKey(info, info.namespaced ? namespace || 'default' : undefined, name));
      if (!opts.dryRun && !old.metadata.finalizers?.length) await this.afterDelete(info, old);
      return old;
    });
  }

  /**
   * pods/binding (what the scheduler POSTs): sets spec.nodeName and the PodScheduled=True
   * condition with a CAS on the pod. A pod already bound fails with 409 Conflict
   * `Operation cannot be fulfilled on pods/binding "x": pod x is already assigned to node "y"`,
   * so of two concurrent binds exactly one wins.
   */
  bind(binding: Binding): Promise<void> {
    return this.limited(true, () => bindPod(this, binding));
  }

  /**
   * Watch a resource (GET ?watch=1). Without a resourceVersion (or "0") the current objects
   * arrive first as ADDED events; with one, every change after it is replayed from the store's
   * history. With a label/field selector an object that stops matching arrives as DELETED and one
   * that starts matching as ADDED, as upstream filters. A compacted resourceVersion produces one
   * ERROR event whose object is a 410 Status (`too old resource version: N (M)`), then nothing.
   */
  async watch<T extends KubeObject = KubeObject>(
    resource: string,
    opts: WatchOptions,
    handler: (ev: ApiWatchEvent<T>) => void,
  ): Promise<WatchHandle> {
    const deps = {
      store: this.store,
      probes: this.probes,
      onHandlerError: this.onHandlerError,
      shared: this.sharedDecodes,
      revisions: this.revisions,
    };
    return watchObjects<T>(deps, await this.resourceInfo(resource), opts, handler);
  }

  /**
   * Rebuild the ClusterIP and NodePort allocators from the Services the store holds, as
   * kube-apiserver's repair controllers do at start-up (pkg/registry/core/service/ipallocator/
   * controller/repair.go, portallocator/controller/repair.go): a server started on an etcd that
   * already holds a cluster must not hand out what its Services use. Returns how many were read.
   */
  async restoreServiceAllocations(): Promise<number> {
    const prefix = storagePrefix(lookupResource('services')!);
    const r = await this.store.range({ key: prefix, rangeEnd: prefixEnd(prefix) });
    for (const kv of r.kvs) this.services.restore(decodeKv<Obj>(kv));
    return r.kvs.length;
  }

  /** Create the namespaces kube-apiserver creates at start-up (existing ones are left alone). */
  async bootstrapNamespaces(): Promise<void> {
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      try {
        await this.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      } catch (e) {
        if (!(e instanceof ApiError && e.reason === 'AlreadyExists')) throw e;
      }
    }
  }

  /** NamespaceLifecycle admission (when enabled). */
  private async checkNamespace(
    info: ResourceInfo,
    namespace: string | undefined,
    name: string,
  ): Promise<void> {
    if (!this.namespaceLifecycle || !info.namespaced || !namespace) return;
    const nsInfo = lookupResource('namespaces')!;
    const r = await this.store.range({ key: storageKey(nsInfo, undefined, namespace) });
    const kv = r.kvs[0];
    if (!kv) throw notFound(nsInfo.qualifiedResource, namespace);
    const ns = decode<Obj>(readView(kv.value));
    if (ns.metadata?.deletionTimestamp || ns.status?.phase === 'Terminating') {
      throw forbidden(
        info.qualifiedResource,
        name,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
      );
    }
  }

  /** Create without taking a flow-control slot (used by update's create-on-update). */
  private async createUnlimited(obj: KubeObject): Promise<KubeObject> {
    const info = await this.kindOf(obj);
    const o = obj as Obj;
    const m = o.metadata;
    this.normalizeNamespace(info, m);
    this.defaultNew(info, o);
    this.setSystemFields(info, o);
    await this.checkNamespace(info, m.namespace, m.name ?? '');
    await builtinAdmission(this.store, 'CREATE', info, o, undefined);
    await admit(this.admission, 'CREATE', info, o, undefined, false, undefined, () =>
      this.check(info, o, this.doValidate ? validateObject(o, info, this.vopts) : []),
    );
    const key = storageKey(info, m.namespace, m.name!);
    const resp = await this.store.txn({
      compare: [{ key, target: 'CREATE', result: 'EQUAL', createRevision: 0 }],
      success: [{ requestPut: { key, value: encodeFor(this.store, o) } }],
    });
    if (!resp.succeeded) throw conflict(info.qualifiedResource, m.name!, OPTIMISTIC_LOCK_MSG);
    m.resourceVersion = String(resp.header.revision);
    this.afterWrite(info, o);
    return o;
  }

  private async limited<R>(mutating: boolean, fn: () => Promise<R>): Promise<R> {
    const inflight = this.flowControl.inflightOf(mutating);
    const rejected = this.flowControl.tryAcquire(mutating);
    if (rejected) throw rejected;
    try {
      if (this.latency) {
        const ms = serviceTimeMs(this.latency.model, this.latency.rng, mutating, inflight);
        if (ms > 0) await new Promise<void>((r) => this.clock.setTimer(r, ms));
      }
      return await fn();
    } catch (e) {
      if (e instanceof ApiError) throw e;
      throw internalError(e);
    } finally {
      this.flowControl.release(mutating);
    }
  }

  /**
   * Sets (or, with undefined, clears) the request latency model. A simulation sets it once its
   * objects are created: the creation runs before the virtual clock does.
   */
  setLatency(model: RequestLatency | undefined): void {
    this.latency = model ? { model, rng: this.rng.fork('latency') } : undefined;
  }

  /** The kind behind a resource name; a miss first looks for CRDs stored by another ApiServer. */
  private async resourceInfo(resource: string): Promise<ResourceInfo> {
    let info = this.kinds.lookupResource(resource);
    if (!info) {
      await syncCustomKinds(this.store, this.kinds);
      info = this.kinds.lookupResource(resource);
    }
    if (!info)
      throw new ApiError(404, 'NotFound', `the server could not find the requested resource (${resource})`);
    return info;
  }

  private async kindOf(obj: KubeObject): Promise<ResourceInfo> {
    if (!obj || typeof obj !== 'object') throw badRequest('the request body is not an object');
    let info = this.kinds.lookupKind(obj.apiVersion, obj.kind);
    if (info) return info;
    if (!obj.kind) throw badRequest("Object 'Kind' is missing in the request body");
    if (!obj.apiVersion) throw badRequest("Object 'apiVersion' is missing in the request body");
    await syncCustomKinds(this.store, this.kinds);
    info = this.kinds.lookupKind(obj.apiVersion, obj.kind);
    if (info) return info;
    throw badRequest(noMatchesMessage(this.kinds, obj.apiVersion, obj.kind));
  }

  /** Defaults and initial status of a new object (custom resources get neither). */
  private defaultNew(info: ResourceInfo, o: Obj): void {
    if (info.crd) return;
    applyDefaults(o);
    initialStatus(o);
  }

  /** key@rev was just stored (`valid`: it passed validation cleanly), for revision-cache.ts. */
  private remember(info: ResourceInfo, key: string, rev: number, valid: boolean): void {
    if (cachesRevisions(info)) this.revisions.written(key, rev, valid);
  }

  /** A stored CRD serves its kind from now on. */
  private afterWrite(info: ResourceInfo, o: Obj): void {
    if (info.kind === 'CustomResourceDefinition' && !info.crd) registerCRD(this.kinds, o);
  }

  /** A deleted CRD takes its kind and custom resources with it. */
  private async afterDelete(info: ResourceInfo, o: KubeObject): Promise<void> {
    if (info.kind === 'CustomResourceDefinition' && !info.crd)
      await removeCRD(this.store, this.kinds, o as Obj);
  }

  private normalizeNamespace(info: ResourceInfo, m: ObjectMeta): void {
    if (info.namespaced) m.namespace ||= 'default';
    else delete m.namespace;
  }

  private setSystemFields(info: ResourceInfo, o: Obj): void {
    const m = o.metadata;
    this.created++;
    m.uid = this.uidFn(this.created);
    m.creationTimestamp = rfc3339(this.clock.now());
    if (hasGeneration(info)) m.generation = 1;
    else delete m.generation;
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
  }

  /** utilrand.String(5): consonants and digits that cannot spell words. */
  private randomSuffix(): string {
    const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
    let s = '';
    for (let i = 0; i < 5; i++) s += alphabet[this.rng.int(alphabet.length)];
    return s;
  }

  private check(info: ResourceInfo, obj: KubeObject, errs: FieldError[]): void {
    const hard = errs.filter((e) => !e.warning);
    if (hard.length) throw invalid(info.qualifiedKind, obj.metadata?.name ?? '', hard);
    if (this.onWarning) {
      // worded like the apiserver's field-validation warning header
      for (const e of errs)
        if (e.warning)
          this.onWarning(e.type === 'Warning' ? e.toString() : `unknown field "${e.field}"`, obj);
    }
  }

  private isGracefulPod(obj: Obj): boolean {
    return obj.kind === 'Pod' && (obj.metadata.deletionGracePeriodSeconds ?? 0) > 0;
  }
}

/**
 * daemonset strategy PrepareForUpdate: a changed template bumps spec.templateGeneration, which
 * apps/v1 carries in the deprecated.daemonset.template.generation annotation. Only an object that
 * has the annotation (a DaemonSet from a snapshot) is bumped: kubesim does not set it on create.
 */
function bumpTemplateGeneration(old: Obj, next: Obj): void {
  const key = 'deprecated.daemonset.template.generation';
  const g = old.metadata?.annotations?.[key];
  if (g === undefined || deepEqual(old.spec?.template, next.spec?.template)) return;
  next.metadata.annotations = { ...next.metadata.annotations, [key]: String(Number(g) + 1) };
}

/**
 * The apiVersion an object is stored with: its own when that version is served (no conversion
 * between versions, see docs/api.md), the kind's own for an alias (events.k8s.io/v1 Event → v1).
 */
function servedApiVersion(info: ResourceInfo, apiVersion: string): string {
  const { group, version } = splitApiVersion(apiVersion);
  return group === info.group && info.versions.includes(version) ? apiVersion : info.apiVersion;
}

/** A UUIDv4-formatted string from a seeded Rng (deterministic per seed). */
function randomUUID(rng: Rng): string {
  const hex8 = (n: number) => n.toString(16).padStart(8, '0');
  const a = hex8(rng.nextU32());
  const b = hex8(((rng.nextU32() & 0xffff0fff) | 0x00004000) >>> 0); // version 4
  const c = hex8(((rng.nextU32() & 0x3fffffff) | 0x80000000) >>> 0); // variant 10xx
  const d = hex8(rng.nextU32());
  return `${a}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${d}`;
}

export type { ListOptions, ListResult } from './apiserver-list.js';
export type { ApiWatchEvent, WatchEventType, WatchHandle, WatchOptions } from './apiserver-watch.js';
export type { DeleteOptions } from './apiserver-delete.js';
export { deepEqual };

/**
 * Whether the kind's objects carry metadata.generation. Leases do not: coordination's lease
 * strategy (pkg/registry/coordination/lease/strategy.go) has empty PrepareForCreate and
 * PrepareForUpdate, and rest.BeforeUpdate keeps the old object's generation, so a kubelet's
 * renewal moves spec.renewTime and the resourceVersion only (a real cluster's node Leases show
 * no generation).
 */
function hasGeneration(info: ResourceInfo): boolean {
  return !!info.crd || info.kind !== 'Lease';
}

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
 * Example over time (store revision on the left):
 *   r2 create pod a          → a.resourceVersion "2", generation 1
 *   r3 bind a → node-1       → a.resourceVersion "3", spec.nodeName node-1, PodScheduled=True
 *   r4 updateStatus(a @ "3") → a.resourceVersion "4"
 *      update(a @ "3")       → 409 Conflict (the key's modRevision is 4)
 *   watch(pods, rv "2")      → MODIFIED@3, MODIFIED@4, …
 */
import { AdmissionChain, type AdmissionAttributes, type AdmissionOperation } from './admission.js';
import { ClusterIPAllocator, NodePortAllocator } from './allocators.js';
import { decode, encode } from './codec.js';
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
  resourceExpired,
  timeout,
  type Status,
} from './errors.js';
import { type FieldError, invalidValue, required } from './field.js';
import { FlowControl, type FlowControlOptions, type FlowControlStats } from './flowcontrol.js';
import {
  lookupKind,
  lookupResource,
  knownApiVersionsFor,
  prefixEnd,
  storageKey,
  storagePrefix,
  type ResourceInfo,
} from './registry.js';
import {
  parseFieldSelector,
  parseLabelSelector,
  type ParsedFieldSelector,
  type ParsedLabelSelector,
} from './selectors.js';
import type { Binding, KubeObject, ObjectMeta } from './types.js';
import { validateObject, validateObjectUpdate, type UnknownFieldPolicy } from './validation.js';
import { type Clock, WallClock } from '../util/clock.js';
import { Rng } from '../util/rng.js';
import { StoreError, type KeyValue, type KvStore, type WatchResponse } from '../store/types.js';

export interface ApiServerOptions {
  /** time source for creationTimestamp, deletionTimestamp, conditions (default: wall clock) */
  clock?: Clock;
  admission?: AdmissionChain;
  flowControl?: FlowControlOptions;
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
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** "" = latest; "0" = any (latest); N = not older than N (latest, or 504 if the store is behind) */
  resourceVersion?: string;
  /** 'Exact' reads at exactly resourceVersion (410 if compacted) */
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  limit?: number;
  continue?: string;
}

export interface ListResult<T> {
  items: T[];
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
}

export interface DeleteOptions {
  preconditions?: { resourceVersion?: string; uid?: string };
  /** pods only: > 0 marks a bound pod terminating (deletionTimestamp) instead of deleting it */
  gracePeriodSeconds?: number;
  dryRun?: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface ApiWatchEvent<T> {
  type: WatchEventType;
  /** the object; a metav1.Status for ERROR; `{kind, apiVersion, metadata: {resourceVersion}}` for BOOKMARK */
  object: T;
}

export interface WatchOptions {
  namespace?: string;
  resourceVersion?: string;
  labelSelector?: string;
  fieldSelector?: string;
  allowBookmarks?: boolean;
}

export interface WatchHandle {
  stop(): Promise<void>;
  /** with allowBookmarks: ask the store for a progress notification, delivered as a BOOKMARK */
  requestBookmark(): void;
}

type Obj = KubeObject & Record<string, any>;

const MAX_UPDATE_RETRIES = 64;
/** decoded objects kept for selector evaluation across watchers (see probe()) */
const PROBE_CACHE_SIZE = 1024;

/** RFC 3339 with second precision, as metav1.Time marshals. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

interface ContinueToken {
  rv: number;
  start: string;
}

function encodeContinue(rv: number, startRelative: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: startRelative })).toString('base64');
}

function decodeContinue(token: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
    if (t.v !== 'meta.k8s.io/v1' || !Number.isInteger(t.rv) || typeof t.start !== 'string')
      throw new Error('bad');
    return { rv: t.rv, start: t.start };
  } catch {
    throw badRequest(
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
  }
}

function isCompacted(e: unknown): boolean {
  return e instanceof StoreError && e.message === 'mvcc: required revision has been compacted';
}

/** Parse a resourceVersion query parameter. */
function parseRV(rv: string, what = 'resourceVersion'): number {
  if (!/^[0-9]+$/.test(rv)) throw badRequest(`invalid ${what}: ${JSON.stringify(rv)}`);
  return Number(rv);
}

export class ApiServer {
  readonly store: KvStore;
  readonly clock: Clock;
  readonly admission: AdmissionChain;
  readonly flowControl: FlowControl;
  private readonly uidFn: (seed: number) => string;
  private readonly rng: Rng;
  private readonly doValidate: boolean;
  private readonly namespaceLifecycle: boolean;
  private readonly vopts: { unknownFields: UnknownFieldPolicy };
  private readonly clusterIPs: ClusterIPAllocator;
  private readonly nodePorts = new NodePortAllocator();
  private readonly onHandlerError: (err: unknown) => void;
  private readonly onWarning: ((warning: string, obj: KubeObject) => void) | undefined;
  private created = 0;
  private readonly probeCache = new Map<string, KubeObject>();
  private readonly probeByKv = new WeakMap<KeyValue, KubeObject>();

  constructor(store: KvStore, opts: ApiServerOptions = {}) {
    this.store = store;
    this.clock = opts.clock ?? new WallClock();
    this.admission = opts.admission ?? new AdmissionChain();
    this.flowControl = new FlowControl(opts.flowControl);
    this.rng = new Rng(opts.seed ?? 1);
    const uidRng = this.rng.fork('uid');
    this.uidFn = opts.uid ?? (() => randomUUID(uidRng));
    this.doValidate = opts.validate ?? true;
    this.namespaceLifecycle = opts.namespaceLifecycle ?? false;
    this.vopts = { unknownFields: opts.fieldValidation ?? 'Warn' };
    this.clusterIPs = new ClusterIPAllocator(opts.serviceCIDR);
    this.onWarning = opts.onWarning;
    this.onHandlerError =
      opts.onWatchHandlerError ?? ((e) => console.error('kubesim ApiServer: watch handler threw:', e));
  }

  /** Flow-control counters (accepted, rejected, in flight, peaks). */
  stats(): FlowControlStats {
    return this.flowControl.stats();
  }

  // ------------------------------------------------------------------ create

  /**
   * Create an object (POST). The resource comes from apiVersion/kind; a namespaced object
   * without a namespace goes to "default". Sets uid, creationTimestamp, generation 1, the
   * initial status (Pods: Pending + qosClass), defaults, and a name from generateName.
   * @throws ApiError 409 AlreadyExists, 422 Invalid, 400 BadRequest, 403 from admission, 429
   */
  create<T extends KubeObject>(obj: T, opts: CreateOptions = {}): Promise<T> {
    return this.limited(true, async () => {
      const info = this.kindOf(obj);
      const o = this.copyIn(obj) as Obj;
      const m = o.metadata;
      if (m.resourceVersion) throw badRequest('resourceVersion should not be set on objects to be created');
      this.normalizeNamespace(info, m);
      if (!m.name && m.generateName) m.name = m.generateName + this.randomSuffix();
      o.apiVersion = info.apiVersion;
      applyDefaults(o);
      initialStatus(o);
      this.setSystemFields(o);
      await this.checkNamespace(info, m.namespace, m.name ?? '');
      await this.runAdmit('CREATE', info, o, undefined, opts.dryRun ?? false, undefined);
      this.check(info, o, this.doValidate ? validateObject(o, info, this.vopts) : []);
      await this.admission.validate(this.attrs('CREATE', info, o, undefined, opts.dryRun ?? false));
      const releases = this.allocateServiceFields(info, o);
      try {
        if (opts.dryRun) return o as T;
        const key = storageKey(info, m.namespace, m.name!);
        const resp = await this.store.txn({
          compare: [{ key, target: 'CREATE', result: 'EQUAL', createRevision: 0 }],
          success: [{ requestPut: { key, value: encode(o) } }],
        });
        if (!resp.succeeded) throw alreadyExists(info.qualifiedResource, m.name!);
        m.resourceVersion = String(resp.header.revision);
        releases.length = 0;
        return o as T;
      } finally {
        for (const r of releases) r();
      }
    });
  }

  // ------------------------------------------------------------------ get / list

  /** Read one object (GET). @throws ApiError 404 NotFound */
  get<T extends KubeObject = KubeObject>(
    resource: string,
    namespace: string | undefined,
    name: string,
  ): Promise<T> {
    return this.limited(false, async () => {
      const info = this.resourceInfo(resource);
      const ns = info.namespaced ? namespace || 'default' : undefined;
      const r = await this.store.range({ key: storageKey(info, ns, name) });
      const kv = r.kvs[0];
      if (!kv) throw notFound(info.qualifiedResource, name);
      return this.decodeKv<T>(kv);
    });
  }

  /**
   * List objects (GET collection) with label/field selectors and limit/continue paging. The
   * result's resourceVersion is the store revision the list was read at; a continue token
   * reads the rest at that same revision (410 Expired once it is compacted).
   */
  list<T extends KubeObject = KubeObject>(resource: string, opts: ListOptions = {}): Promise<ListResult<T>> {
    return this.limited(false, async () => {
      const info = this.resourceInfo(resource);
      const prefix = storagePrefix(info, info.namespaced ? opts.namespace : undefined);
      const end = prefixEnd(prefix);
      const labels = parseLabelSelector(opts.labelSelector);
      const fields = parseFieldSelector(opts.fieldSelector, info.resource);
      const limit = opts.limit && opts.limit > 0 ? Math.floor(opts.limit) : 0;

      let start = prefix;
      let revision = 0; // 0 = latest
      if (opts.continue) {
        const t = decodeContinue(opts.continue);
        if (t.start.includes('/') && !info.namespaced)
          throw badRequest('continue key is not valid: invalid start');
        start = prefix + t.start;
        revision = t.rv;
      } else if (opts.resourceVersion && opts.resourceVersion !== '0') {
        const rv = parseRV(opts.resourceVersion);
        const current = await this.store.currentRevision();
        if (rv > current) throw timeout(`Too large resource version: ${rv}, current: ${current}`);
        if (opts.resourceVersionMatch === 'Exact') revision = rv;
      }

      const items: T[] = [];
      let readAt = revision;
      let cont: string | undefined;
      const pageSize = limit > 0 ? Math.max(limit, 1) : 0;
      for (;;) {
        let r;
        try {
          r = await this.store.range({
            key: start,
            rangeEnd: end,
            revision: readAt || undefined,
            limit: pageSize || undefined,
          });
        } catch (e) {
          if (isCompacted(e)) {
            if (opts.continue) {
              throw resourceExpired(
                'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
              );
            }
            throw resourceExpired(
              `too old resource version: ${revision} (${(await this.compactedFloor(revision)) - 1})`,
            );
          }
          throw e;
        }
        if (!readAt) readAt = r.header.revision;
        let lastKey: string | undefined;
        let stoppedEarly = false;
        for (let i = 0; i < r.kvs.length; i++) {
          const kv = r.kvs[i]!;
          lastKey = kv.key;
          const obj = this.decodeKv<T>(kv);
          if (this.matches(obj, labels, fields)) {
            items.push(obj);
            if (limit > 0 && items.length >= limit) {
              stoppedEarly = i < r.kvs.length - 1 || r.more;
              break;
            }
          }
        }
        if (limit > 0 && items.length >= limit) {
          if (stoppedEarly && lastKey !== undefined)
            cont = encodeContinue(readAt, lastKey.slice(prefix.length) + '\u0000');
          break;
        }
        if (!r.more || lastKey === undefined) break;
        start = lastKey + '\u0000';
      }
      const metadata: ListResult<T>['metadata'] = { resourceVersion: String(readAt) };
      if (cont) metadata.continue = cont;
      return { items, metadata };
    });
  }

  // ------------------------------------------------------------------ update

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
    const info = this.kindOf(obj);
    if (sub === 'status' && !info.hasStatus) {
      throw new ApiError(
        404,
        'NotFound',
        `the server could not find the requested resource (put ${info.resource} ${obj.metadata?.name ?? ''}/status)`,
      );
    }
    const req = this.copyIn(obj) as Obj;
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
          const fresh = this.copyIn(obj) as Obj;
          delete fresh.metadata.resourceVersion;
          return this.createUnlimited(fresh) as Promise<T>;
        }
        throw notFound(info.qualifiedResource, m.name);
      }
      if (wantRV && wantRV !== String(kv.modRevision))
        throw conflict(info.qualifiedResource, m.name, OPTIMISTIC_LOCK_MSG);
      const old = this.decodeKv<Obj>(kv);
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
          else next.status = old.status;
        }
      } else {
        next = this.copyIn(old) as Obj;
        if (req.status === undefined) delete next.status;
        else next.status = req.status;
      }
      next.apiVersion = info.apiVersion;
      next.kind = info.kind;
      const nm = next.metadata;
      const om = old.metadata;
      // system fields are the server's (BeforeUpdate / FillObjectMetaSystemFields)
      nm.uid = om.uid;
      nm.creationTimestamp = om.creationTimestamp;
      nm.namespace = om.namespace;
      if (om.namespace === undefined) delete nm.namespace;
      nm.name = om.name;
      nm.generation = om.generation;
      if (om.deletionTimestamp !== undefined) nm.deletionTimestamp = om.deletionTimestamp;
      else delete nm.deletionTimestamp;
      if (om.deletionGracePeriodSeconds !== undefined)
        nm.deletionGracePeriodSeconds = om.deletionGracePeriodSeconds;
      else delete nm.deletionGracePeriodSeconds;
      if (om.generateName !== undefined && nm.generateName === undefined) nm.generateName = om.generateName;
      delete nm.resourceVersion;
      if (sub === 'main') {
        applyDefaults(next);
        if (info.kind === 'Service') this.carryServiceAllocations(old, next);
        if (!deepEqual(old.spec, next.spec)) nm.generation = (om.generation ?? 0) + 1;
      }

      await this.runAdmit('UPDATE', info, next, old, false, sub === 'status' ? 'status' : undefined);
      if (this.doValidate) {
        const errs = [
          ...validateObject(next, info, this.vopts),
          ...validateObjectUpdate(next, old, info, sub),
        ];
        this.check(info, next, errs);
      }
      await this.admission.validate(
        this.attrs('UPDATE', info, next, old, false, sub === 'status' ? 'status' : undefined),
      );

      const oldCmp = { ...old, metadata: { ...om } };
      delete oldCmp.metadata.resourceVersion;
      if (deepEqual(oldCmp, next)) return old as unknown as T; // no-op: nothing written

      // the last finalizer removed from a deleting object: the object goes away
      const finishDelete =
        nm.deletionTimestamp !== undefined &&
        (!nm.finalizers || nm.finalizers.length === 0) &&
        !this.isGracefulPod(next);
      const resp = await this.store.txn({
        compare: [{ key, target: 'MOD', result: 'EQUAL', modRevision: kv.modRevision }],
        success: [
          finishDelete ? { requestDeleteRange: { key } } : { requestPut: { key, value: encode(next) } },
        ],
      });
      if (!resp.succeeded) {
        if (wantRV) throw conflict(info.qualifiedResource, m.name, OPTIMISTIC_LOCK_MSG);
        continue; // unconditional update lost a race: retry on the new state (GuaranteedUpdate)
      }
      if (finishDelete) this.releaseServiceFields(info, next);
      nm.resourceVersion = String(resp.header.revision);
      return next as unknown as T;
    }
    throw internalError(`too many conflicts updating ${info.resource} "${m.name}"`);
  }

  // ------------------------------------------------------------------ delete

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
    return this.limited(true, async () => {
      const info = this.resourceInfo(resource);
      const ns = info.namespaced ? namespace || 'default' : undefined;
      const key = storageKey(info, ns, name);
      for (let attempt = 0; attempt < MAX_UPDATE_RETRIES; attempt++) {
        const r = await this.store.range({ key });
        const kv = r.kvs[0];
        if (!kv) throw notFound(info.qualifiedResource, name);
        const old = this.decodeKv<Obj>(kv);
        const p = opts.preconditions;
        if (p?.uid && p.uid !== old.metadata.uid) {
          throw conflict(
            info.qualifiedResource,
            name,
            `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${old.metadata.uid ?? ''}`,
          );
        }
        if (p?.resourceVersion && p.resourceVersion !== old.metadata.resourceVersion) {
          throw conflict(
            info.qualifiedResource,
            name,
            `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`,
          );
        }
        await this.runAdmit('DELETE', info, undefined, old, opts.dryRun ?? false, undefined);
        await this.admission.validate(this.attrs('DELETE', info, undefined, old, opts.dryRun ?? false));

        // graceful: mark instead of delete
        const grace = this.gracePeriod(info, old, opts.gracePeriodSeconds);
        const hasFinalizers = (old.metadata.finalizers?.length ?? 0) > 0;
        if (grace > 0 || hasFinalizers) {
          const marked = this.copyIn(old) as Obj;
          const mm = marked.metadata;
          const now = this.clock.now();
          if (grace > 0) {
            const prevGrace = mm.deletionGracePeriodSeconds;
            if (mm.deletionTimestamp === undefined || prevGrace === undefined || grace < prevGrace) {
              mm.deletionTimestamp = rfc3339(now + grace * 1000);
              mm.deletionGracePeriodSeconds = grace;
            }
          } else if (mm.deletionTimestamp === undefined) {
            mm.deletionTimestamp = rfc3339(now);
            mm.deletionGracePeriodSeconds = 0;
          }
          delete mm.resourceVersion;
          if (opts.dryRun) return marked as T;
          if (deepEqual({ ...old, metadata: { ...old.metadata, resourceVersion: undefined } }, marked))
            return old as T;
          const resp = await this.store.txn({
            compare: [{ key, target: 'MOD', result: 'EQUAL', modRevision: kv.modRevision }],
            success: [{ requestPut: { key, value: encode(marked) } }],
          });
          if (!resp.succeeded) {
            if (p?.resourceVersion) throw conflict(info.qualifiedResource, name, OPTIMISTIC_LOCK_MSG);
            continue;
          }
          mm.resourceVersion = String(resp.header.revision);
          return marked as T;
        }

        if (opts.dryRun) return old as T;
        const resp = await this.store.txn({
          compare: [{ key, target: 'MOD', result: 'EQUAL', modRevision: kv.modRevision }],
          success: [{ requestDeleteRange: { key } }],
        });
        if (!resp.succeeded) {
          if (p?.resourceVersion) throw conflict(info.qualifiedResource, name, OPTIMISTIC_LOCK_MSG);
          continue;
        }
        this.releaseServiceFields(info, old);
        return old as T;
      }
      throw internalError(`too many conflicts deleting ${info.resource} "${name}"`);
    });
  }

  // ------------------------------------------------------------------ bind

  /**
   * pods/binding (what the scheduler POSTs): sets spec.nodeName and the PodScheduled=True
   * condition with a CAS on the pod. A pod already bound fails with 409 Conflict
   * `Operation cannot be fulfilled on pods/binding "x": pod x is already assigned to node "y"`,
   * so of two concurrent binds exactly one wins.
   */
  bind(binding: Binding): Promise<void> {
    return this.limited(true, async () => {
      const podsInfo = lookupResource('pods')!;
      const bindingKind = { name: 'Binding', group: '' };
      const bindingRes = { name: 'pods/binding', group: '' };
      const bm: ObjectMeta = binding?.metadata ?? {};
      const name = bm.name ?? '';
      const ns = bm.namespace || 'default';
      const errs: FieldError[] = [];
      if (!name) errs.push(required('metadata.name', 'name or generateName is required'));
      const target = binding?.target;
      if (!target?.name) errs.push(required('target.name'));
      if (target?.kind && target.kind !== 'Node')
        errs.push(invalidValue('target.kind', target.kind, "must be empty or 'Node'"));
      if (errs.length) throw invalid(bindingKind, name, errs);
      const nodeName = target.name;
      const key = storageKey(podsInfo, ns, name);

      for (let attempt = 0; attempt < MAX_UPDATE_RETRIES; attempt++) {
        const r = await this.store.range({ key });
        const kv = r.kvs[0];
        if (!kv) throw notFound(podsInfo.qualifiedResource, name);
        const pod = this.decodeKv<Obj>(kv);
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

        const b = this.copyIn(binding) as Obj;
        b.metadata.namespace = ns;
        await this.runAdmit('CREATE', podsInfo, b, pod, false, 'binding');
        await this.admission.validate(this.attrs('CREATE', podsInfo, b, pod, false, 'binding'));

        pod.spec.nodeName = nodeName;
        if (bm.annotations)
          pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), ...bm.annotations };
        const status = (pod.status ??= {});
        const conds: any[] = (status.conditions ??= []);
        const now = rfc3339(this.clock.now());
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
        delete pod.metadata.resourceVersion;
        const resp = await this.store.txn({
          compare: [{ key, target: 'MOD', result: 'EQUAL', modRevision: kv.modRevision }],
          success: [{ requestPut: { key, value: encode(pod) } }],
        });
        if (resp.succeeded) return;
        if (bm.resourceVersion) throw conflict(bindingRes, name, OPTIMISTIC_LOCK_MSG);
        // lost a race: re-read; a concurrent bind now shows as "already assigned"
      }
      throw internalError(`too many conflicts binding pod "${name}"`);
    });
  }

  // ------------------------------------------------------------------ watch

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
    const info = this.resourceInfo(resource);
    const prefix = storagePrefix(info, info.namespaced ? opts.namespace : undefined);
    const end = prefixEnd(prefix);
    const labels = parseLabelSelector(opts.labelSelector);
    const fields = parseFieldSelector(opts.fieldSelector, info.resource);
    const filtering = !labels.isEmpty() || !fields.isEmpty();
    let stopped = false;
    const emit = (type: WatchEventType, object: unknown) => {
      if (stopped) return;
      try {
        handler({ type, object: object as T });
      } catch (e) {
        this.onHandlerError(e);
      }
    };

    let startRevision: number;
    let requested: number;
    const rv = opts.resourceVersion;
    if (!rv || rv === '0') {
      const r = await this.store.range({ key: prefix, rangeEnd: end });
      for (const kv of r.kvs) {
        const obj = this.decodeKv<T>(kv);
        if (!filtering || this.matches(obj, labels, fields)) emit('ADDED', obj);
      }
      requested = r.header.revision;
      startRevision = r.header.revision + 1;
    } else {
      requested = parseRV(rv);
      startRevision = requested + 1;
    }

    const gone = (compactRevision: number) => {
      emit(
        'ERROR',
        resourceExpired(`too old resource version: ${requested} (${compactRevision - 1})`).status(),
      );
      stopped = true;
    };

    const onResponse = (resp: WatchResponse) => {
      if (stopped) return;
      if (resp.canceled) {
        if (resp.compactRevision && resp.compactRevision > 0) gone(resp.compactRevision);
        else {
          emit('ERROR', internalError(resp.cancelReason ?? 'watch canceled by the store').status());
          stopped = true;
        }
        return;
      }
      if (resp.events.length === 0) {
        if (opts.allowBookmarks && resp.progress !== false) {
          emit('BOOKMARK', {
            kind: info.kind,
            apiVersion: info.apiVersion,
            metadata: { resourceVersion: String(resp.header.revision) },
          });
        }
        return;
      }
      for (const ev of resp.events) {
        if (stopped) return;
        if (ev.type === 'PUT') {
          const isNew = ev.kv.createRevision === ev.kv.modRevision || !ev.prevKv;
          if (!filtering) {
            emit(isNew ? 'ADDED' : 'MODIFIED', this.decodeKv<T>(ev.kv));
            continue;
          }
          // match on shared read-only decodes; hand each matching watcher its own copy
          const cur = this.matches(this.probe(ev.kv), labels, fields);
          const prev = isNew ? false : this.matches(this.probe(ev.prevKv!), labels, fields);
          if (cur && prev) emit('MODIFIED', this.decodeKv<T>(ev.kv));
          else if (cur) emit('ADDED', this.decodeKv<T>(ev.kv));
          else if (prev) emit('DELETED', this.decodeKv<T>(ev.kv));
        } else {
          if (!ev.prevKv) continue;
          if (filtering && !this.matches(this.probe(ev.prevKv), labels, fields)) continue;
          const obj = decode<T>(ev.prevKv.value);
          (obj.metadata ??= {}).resourceVersion = String(ev.kv.modRevision);
          emit('DELETED', obj);
        }
      }
    };

    let watcher;
    try {
      watcher = await this.store.watch(
        { key: prefix, rangeEnd: end, startRevision, prevKv: true, progressNotify: opts.allowBookmarks },
        onResponse,
      );
    } catch (e) {
      if (isCompacted(e)) {
        gone(await this.compactedFloor(requested));
        // gone() reports floor-1 as the oldest resumable resourceVersion
        return { stop: async () => {}, requestBookmark: () => {} };
      }
      throw e;
    }
    return {
      stop: async () => {
        stopped = true;
        await watcher.cancel();
      },
      requestBookmark: () => {
        if (opts.allowBookmarks && !stopped) watcher.requestProgress();
      },
    };
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

  // ------------------------------------------------------------------ helpers

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
    const ns = decode<Obj>(kv.value);
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
    const info = this.kindOf(obj);
    const o = obj as Obj;
    const m = o.metadata;
    this.normalizeNamespace(info, m);
    applyDefaults(o);
    initialStatus(o);
    this.setSystemFields(o);
    await this.checkNamespace(info, m.namespace, m.name ?? '');
    await this.runAdmit('CREATE', info, o, undefined, false, undefined);
    this.check(info, o, this.doValidate ? validateObject(o, info, this.vopts) : []);
    await this.admission.validate(this.attrs('CREATE', info, o, undefined, false));
    const key = storageKey(info, m.namespace, m.name!);
    const resp = await this.store.txn({
      compare: [{ key, target: 'CREATE', result: 'EQUAL', createRevision: 0 }],
      success: [{ requestPut: { key, value: encode(o) } }],
    });
    if (!resp.succeeded) throw conflict(info.qualifiedResource, m.name!, OPTIMISTIC_LOCK_MSG);
    m.resourceVersion = String(resp.header.revision);
    return o;
  }

  private async limited<R>(mutating: boolean, fn: () => Promise<R>): Promise<R> {
    const rejected = this.flowControl.tryAcquire(mutating);
    if (rejected) throw rejected;
    try {
      return await fn();
    } catch (e) {
      if (e instanceof ApiError) throw e;
      throw internalError(e);
    } finally {
      this.flowControl.release(mutating);
    }
  }

  private resourceInfo(resource: string): ResourceInfo {
    const info = lookupResource(resource);
    if (!info)
      throw new ApiError(404, 'NotFound', `the server could not find the requested resource (${resource})`);
    return info;
  }

  private kindOf(obj: KubeObject): ResourceInfo {
    if (!obj || typeof obj !== 'object') throw badRequest('the request body is not an object');
    const info = lookupKind(obj.apiVersion, obj.kind);
    if (info) return info;
    if (!obj.kind) throw badRequest("Object 'Kind' is missing in the request body");
    if (!obj.apiVersion) throw badRequest("Object 'apiVersion' is missing in the request body");
    const known = knownApiVersionsFor(obj.kind);
    throw badRequest(
      `no matches for kind "${obj.kind}" in version "${obj.apiVersion}"` +
        (known.length ? ` (known as ${known.join(', ')})` : ''),
    );
  }

  /** A deep copy of the caller's object with a metadata object (callers' objects are never mutated). */
  private copyIn(obj: KubeObject): KubeObject {
    const o = decode<Obj>(encode(obj));
    if (!o.metadata || typeof o.metadata !== 'object') o.metadata = {};
    return o;
  }

  private normalizeNamespace(info: ResourceInfo, m: ObjectMeta): void {
    if (info.namespaced) m.namespace ||= 'default';
    else delete m.namespace;
  }

  private setSystemFields(o: Obj): void {
    const m = o.metadata;
    this.created++;
    m.uid = this.uidFn(this.created);
    m.creationTimestamp = rfc3339(this.clock.now());
    m.generation = 1;
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

  /**
   * A decoded object used only to evaluate selectors, shared by every filtered watcher that sees
   * the same key revision (one decode per event instead of one per watcher; e.g. a kubelet
   * watch per node with spec.nodeName=<node>). Never handed to callers.
   */
  private probe(kv: KeyValue): KubeObject {
    // the store usually hands every watcher the same KeyValue object: try identity first
    let o = this.probeByKv.get(kv);
    if (o) return o;
    const id = `${kv.modRevision}\u0000${kv.key}`;
    o = this.probeCache.get(id);
    if (!o) {
      o = this.decodeKv<KubeObject>(kv);
      this.probeCache.set(id, o);
      if (this.probeCache.size > PROBE_CACHE_SIZE) {
        const oldest = this.probeCache.keys().next().value as string;
        this.probeCache.delete(oldest);
      }
    }
    this.probeByKv.set(kv, o);
    return o;
  }

  private decodeKv<T>(kv: KeyValue): T {
    const obj = decode<Obj>(kv.value);
    (obj.metadata ??= {}).resourceVersion = String(kv.modRevision);
    return obj as unknown as T;
  }

  private matches(obj: KubeObject, labels: ParsedLabelSelector, fields: ParsedFieldSelector): boolean {
    return labels.matches(obj.metadata?.labels) && fields.matches(obj);
  }

  private check(info: ResourceInfo, obj: KubeObject, errs: FieldError[]): void {
    const hard = errs.filter((e) => !e.warning);
    if (hard.length) throw invalid(info.qualifiedKind, obj.metadata?.name ?? '', hard);
    if (this.onWarning) {
      // worded like the apiserver's field-validation warning header
      for (const e of errs) if (e.warning) this.onWarning(`unknown field "${e.field}"`, obj);
    }
  }

  private attrs(
    operation: AdmissionOperation,
    info: ResourceInfo,
    object: KubeObject | undefined,
    oldObject: KubeObject | undefined,
    dryRun: boolean,
    subresource?: string,
  ): AdmissionAttributes {
    const src = object ?? oldObject;
    return {
      operation,
      resource: info.resource,
      subresource,
      namespace: src?.metadata?.namespace,
      name: src?.metadata?.name ?? '',
      kind: subresource === 'binding' ? 'Binding' : info.kind,
      object,
      oldObject,
      dryRun,
    };
  }

  private async runAdmit(
    operation: AdmissionOperation,
    info: ResourceInfo,
    object: Obj | undefined,
    oldObject: KubeObject | undefined,
    dryRun: boolean,
    subresource: string | undefined,
  ): Promise<void> {
    if (this.admission.size === 0) return;
    const a = this.attrs(operation, info, object, oldObject, dryRun, subresource);
    const out = await this.admission.admit(a);
    if (object && out && out !== object) {
      // a hook replaced the object: copy its content over ours
      for (const k of Object.keys(object)) delete (object as any)[k];
      Object.assign(object, out);
    }
  }

  private gracePeriod(info: ResourceInfo, old: Obj, requested: number | undefined): number {
    if (info.kind !== 'Pod' || requested === undefined || requested <= 0) return 0;
    // unscheduled or finished pods are deleted at once (pod strategy CheckGracefulDelete)
    if (!old.spec?.nodeName) return 0;
    const phase = old.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return 0;
    return Math.floor(requested);
  }

  private isGracefulPod(obj: Obj): boolean {
    return obj.kind === 'Pod' && (obj.metadata.deletionGracePeriodSeconds ?? 0) > 0;
  }

  /**
   * The oldest revision still readable (the compaction revision), found by binary search with
   * count-only reads; used only to word a 410 like upstream (`too old resource version: N (M)`).
   */
  private async compactedFloor(requested: number): Promise<number> {
    let lo = requested + 1;
    let hi = await this.store.currentRevision();
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      try {
        await this.store.range({ key: '/registry/', rangeEnd: '/registry0', revision: mid, countOnly: true });
        hi = mid;
      } catch (e) {
        if (!isCompacted(e)) throw e;
        lo = mid + 1;
      }
    }
    return lo;
  }

  /** ClusterIP / NodePort allocation on Service create; returns undo functions. */
  private allocateServiceFields(info: ResourceInfo, o: Obj): (() => void)[] {
    if (info.kind !== 'Service' || !o.spec || typeof o.spec !== 'object') return [];
    const undo: (() => void)[] = [];
    const s = o.spec;
    const errs: FieldError[] = [];
    if (s.type !== 'ExternalName') {
      if (s.clusterIP === undefined || s.clusterIP === '') {
        const ip = this.clusterIPs.allocate();
        s.clusterIP = ip;
        undo.push(() => this.clusterIPs.release(ip));
      } else if (s.clusterIP !== 'None') {
        const err = this.clusterIPs.reserve(s.clusterIP);
        if (err) errs.push(invalidValue('spec.clusterIPs', [s.clusterIP], err));
        else {
          const ip = s.clusterIP;
          undo.push(() => this.clusterIPs.release(ip));
        }
      }
      s.clusterIPs ??= [s.clusterIP];
      if (s.clusterIP !== 'None' || s.ipFamilies === undefined) s.ipFamilies ??= ['IPv4'];
      s.ipFamilyPolicy ??= 'SingleStack';
    }
    if ((s.type === 'NodePort' || s.type === 'LoadBalancer') && Array.isArray(s.ports)) {
      s.ports.forEach((p: any, i: number) => {
        if (!p || typeof p !== 'object') return;
        if (p.nodePort === undefined || p.nodePort === 0) {
          const port = this.nodePorts.allocate();
          p.nodePort = port;
          undo.push(() => this.nodePorts.release(port));
        } else {
          const err = this.nodePorts.reserve(p.nodePort);
          if (err) errs.push(invalidValue(`spec.ports[${i}].nodePort`, p.nodePort, err));
          else {
            const port = p.nodePort;
            undo.push(() => this.nodePorts.release(port));
          }
        }
      });
    }
    if (errs.length) {
      for (const u of undo) u();
      throw invalid(info.qualifiedKind, o.metadata.name ?? '', errs);
    }
    return undo;
  }

  /** On update a Service keeps its allocated clusterIP / nodePorts unless explicitly changed. */
  private carryServiceAllocations(old: Obj, next: Obj): void {
    const os = old.spec ?? {};
    const ns = next.spec;
    if (!ns || typeof ns !== 'object') return;
    if ((ns.clusterIP === undefined || ns.clusterIP === '') && os.clusterIP) ns.clusterIP = os.clusterIP;
    if (ns.clusterIPs === undefined && os.clusterIPs) ns.clusterIPs = os.clusterIPs;
    if (ns.ipFamilies === undefined && os.ipFamilies) ns.ipFamilies = os.ipFamilies;
    if (ns.ipFamilyPolicy === undefined && os.ipFamilyPolicy) ns.ipFamilyPolicy = os.ipFamilyPolicy;
    if (Array.isArray(ns.ports) && Array.isArray(os.ports)) {
      for (const p of ns.ports) {
        if (!p || typeof p !== 'object' || (p.nodePort !== undefined && p.nodePort !== 0)) continue;
        const match = os.ports.find(
          (q: any) => q?.port === p.port && (q?.protocol ?? 'TCP') === (p.protocol ?? 'TCP'),
        );
        if (match?.nodePort && (ns.type === 'NodePort' || ns.type === 'LoadBalancer'))
          p.nodePort = match.nodePort;
      }
    }
  }

  private releaseServiceFields(info: ResourceInfo, o: Obj): void {
    if (info.kind !== 'Service' || !o.spec) return;
    if (o.spec.clusterIP && o.spec.clusterIP !== 'None') this.clusterIPs.release(o.spec.clusterIP);
    for (const p of o.spec.ports ?? []) if (p?.nodePort) this.nodePorts.release(p.nodePort);
  }
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

export type { Status };
export { deepEqual };

/**
 * The REST verbs on one resource path, over the ApiServer (src/api/apiserver.ts):
 *
 *   GET    collection            list (or watch with ?watch=true, see watch.ts)
 *   GET    item[/status|/scale]  get
 *   POST   collection            create
 *   PUT    item[/status|/scale]  update (CAS on metadata.resourceVersion)
 *   PATCH  item[/status|/scale]  JSON patch, merge patch, strategic merge patch, apply (patch.ts)
 *   DELETE item                  delete (DeleteOptions from the body or query)
 *   DELETE collection            deletecollection (same selectors as list)
 *   POST   pods/<name>/binding, namespaces/<ns>/bindings, pods/<name>/eviction
 *
 * Answers follow upstream's handlers (staging/src/k8s.io/apiserver/pkg/endpoints/handlers):
 * 201 for create, 202 for a delete that only marked the object, a metav1.Status otherwise.
 */
import type { ApiServer, ListOptions } from '../api/apiserver.js';
import { ApiError, badRequest, conflict, invalid } from '../api/errors.js';
import { invalidValue } from '../api/field.js';
import type { ResourceInfo } from '../api/registry.js';
import type { Binding, KubeObject } from '../api/types.js';
import { evictPod } from '../api/apiserver-evict.js';
import { negotiate, type Representation } from './negotiate.js';
import { applyPatch, patchTypeOf } from './patch.js';
import type { Request, ResourcePath } from './request-info.js';
import { asServed, findResource } from './resources.js';
import { hasProtobuf } from './protobuf.js';
import { fieldValidationParam, intParam, isTrueParam, resourceVersionMatchParam } from './query.js';
import {
  addWarnings,
  methodNotAllowed,
  pathNotFound,
  sendJson,
  sendObject,
  successStatus,
} from './respond.js';
import { checkCustomResource } from '../api/crd-schema.js';
import { crdPrinter } from './crd-table.js';
import { customVersion, readScale, tablePrinter, writeScale } from './custom-resources.js';
import type { Catalog } from './resources.js';
import { decodeTyped } from './typed-body.js';
import { toTable, type IncludeObject } from './table.js';
import { serveWatch, type WatchSettings } from './watch.js';

// biome-ignore lint/suspicious/noExplicitAny: request bodies are arbitrary JSON
type Obj = any;

export interface RestContext {
  api: ApiServer;
  watch: WatchSettings;
  cat: Catalog;
}

const MAX_PATCH_RETRIES = 16;

function listOptions(q: URLSearchParams, namespace: string, watch = false): ListOptions {
  return {
    namespace: namespace || undefined,
    labelSelector: q.get('labelSelector') ?? undefined,
    fieldSelector: q.get('fieldSelector') ?? undefined,
    resourceVersion: q.get('resourceVersion') ?? undefined,
    resourceVersionMatch: resourceVersionMatchParam(q, watch),
    limit: intParam(q, 'limit'),
    continue: q.get('continue') ?? undefined,
  };
}

function includeObject(q: URLSearchParams): IncludeObject {
  const v = q.get('includeObject');
  if (v === 'None' || v === 'Object') return v;
  return 'Metadata';
}

function represent(
  ctx: RestContext,
  rep: Representation,
  info: ResourceInfo,
  q: URLSearchParams,
  custom: Obj | undefined,
  stored: KubeObject[],
  listMeta: { resourceVersion?: string; continue?: string; remainingItemCount?: number } | undefined,
): [unknown, string] {
  const served = asServed(info);
  if (rep.as === 'Table') {
    const meta = listMeta ?? { resourceVersion: stored[0]?.metadata.resourceVersion };
    return [
      toTable(info.kind, stored, meta, {
        printer: custom ? crdPrinter(custom) : undefined,
        now: ctx.api.clock.now(),
        includeObject: includeObject(q),
        version: rep.version,
        served,
      }),
      `application/json;as=Table;v=${rep.version};g=meta.k8s.io`,
    ];
  }
  // the served version's form: custom resources (conversion None), autoscaling/v1 HPAs
  const objects = stored.map(served) as KubeObject[];
  if (rep.as === 'PartialObjectMetadata') {
    const partial = (o: KubeObject) => ({
      kind: 'PartialObjectMetadata',
      apiVersion: `meta.k8s.io/${rep.version}`,
      metadata: o.metadata,
    });
    if (listMeta)
      return [
        {
          kind: 'PartialObjectMetadataList',
          apiVersion: `meta.k8s.io/${rep.version}`,
          metadata: listMeta,
          items: objects.map(partial),
        },
        `application/json;as=PartialObjectMetadataList;v=${rep.version};g=meta.k8s.io`,
      ];
    return [partial(objects[0]!), `application/json;as=PartialObjectMetadata;v=${rep.version};g=meta.k8s.io`];
  }
  if (listMeta)
    return [
      { kind: `${info.kind}List`, apiVersion: info.apiVersion, metadata: listMeta, items: objects },
      'application/json',
    ];
  return [objects[0], 'application/json'];
}

/** The representation answered, as JSON or protobuf. */
function send(
  ctx: RestContext,
  r: Request,
  code: number,
  rep: Representation,
  info: ResourceInfo,
  objects: KubeObject[],
  listMeta?: { resourceVersion?: string; continue?: string; remainingItemCount?: number },
): void {
  const [body, type] = represent(ctx, rep, info, r.query, r.custom, objects, listMeta);
  sendObject(r.res, code, body, type, rep.as === 'protobuf');
}

/**
 * A create or update body of a built-in kind decoded against its schema (typed-body.ts): wrong
 * types are a 400; unknown fields are dropped with a Warning header, or refused under
 * fieldValidation=Strict (upstream: handlers/create.go and update.go's strict decoding).
 */
function typedBody(r: Request, obj: Obj, info: ResourceInfo, optionsKind: string, old?: Obj): void {
  const policy = fieldValidationParam(r.query, optionsKind);
  let unknown: string[];
  if (r.custom) {
    // custom resources: schema and x-kubernetes-validations rules (old: the stored object, for transition rules)
    const checked = checkCustomResource(obj, r.custom.schema?.openAPIV3Schema, old);
    if (checked.errors.length) throw invalid(info.qualifiedKind, obj.metadata?.name ?? '', checked.errors);
    addWarnings(r.res, checked.warnings);
    unknown = checked.unknown;
  } else unknown = decodeTyped(obj, info.group, info.version, info.kind);
  if (unknown.length === 0 || policy === 'Ignore') return;
  if (policy === 'Strict') throw badRequest(`strict decoding error: ${unknown.join(', ')}`);
  addWarnings(r.res, unknown);
}

function notAcceptable(): ApiError {
  return new ApiError(
    406,
    'NotAcceptable' as never,
    'only the following media types are accepted: application/json',
    {},
  );
}

/** Serve one request on a resource path. */
export async function handleResource(ctx: RestContext, r: Request): Promise<void> {
  const { req, res, path, query } = r;
  const method = req.method ?? 'GET';
  if (path.group === '' && path.resource === 'bindings' && !path.name && method === 'POST') {
    const b = (await r.body()) as Binding;
    b.metadata = { ...(b.metadata ?? {}), namespace: path.namespace || b.metadata?.namespace };
    await ctx.api.bind(b);
    sendJson(res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    return;
  }
  const served = findResource(ctx.cat, path.group, path.version, path.resource);
  if (!served) throw pathNotFound();
  const info = served.info;
  if (info.crd) r.custom = await customVersion(ctx.api, info);
  if (!info.namespaced && path.namespace) throw pathNotFound();
  if (path.subresource && !served.subresources.some((s) => s.name === path.subresource)) throw pathNotFound();
  const rep = negotiate(req.headers.accept, { protobuf: hasProtobuf(info.apiVersion, info.kind) });
  if (!rep) throw notAcceptable();
  const ns = info.namespaced ? path.namespace : '';
  if (path.watch) {
    if (method !== 'GET' || path.subresource) throw methodNotAllowed(method, info.resource);
    const q = new URLSearchParams(query);
    q.set('watch', 'true');
    if (path.name)
      q.set(
        'fieldSelector',
        [`metadata.name=${path.name}`, q.get('fieldSelector')].filter(Boolean).join(','),
      );
    return serveWatch(ctx.api, ctx.watch, { ...r, query: q }, info, ns, rep, tablePrinter(r));
  }

  if (!path.name) {
    switch (method) {
      case 'GET': {
        if (isTrueParam(query, 'watch')) {
          listOptions(query, ns, true);
          return serveWatch(ctx.api, ctx.watch, r, info, ns, rep, tablePrinter(r));
        }
        const result = await ctx.api.list(info.resource, listOptions(query, ns));
        send(ctx, r, 200, rep, info, result.items, result.metadata);
        return;
      }
      case 'POST': {
        const obj = await r.body();
        checkBodyKind(obj, info);
        typedBody(r, obj, info, 'CreateOptions');
        if (info.namespaced) {
          obj.metadata ??= {};
          if (obj.metadata.namespace && ns && obj.metadata.namespace !== ns)
            throw badRequest(
              'the namespace of the provided object does not match the namespace sent on the request',
            );
          if (ns) obj.metadata.namespace = ns;
        }
        const created = await ctx.api.create(obj, { dryRun: dryRun(query) });
        send(ctx, r, 201, rep, info, [created]);
        return;
      }
      case 'DELETE': {
        const opts = listOptions(query, ns);
        delete opts.limit;
        delete opts.continue;
        const result = await ctx.api.list(info.resource, opts);
        const del = await deleteOptions(r, query);
        const deleted: KubeObject[] = [];
        for (const o of result.items) {
          try {
            deleted.push(await deleteOne(ctx, info, o.metadata.namespace, o.metadata.name!, del, o));
          } catch (e) {
            if (!(e instanceof ApiError && e.code === 404)) throw e;
          }
        }
        sendJson(res, 200, {
          kind: `${info.kind}List`,
          apiVersion: info.apiVersion,
          metadata: { resourceVersion: result.metadata.resourceVersion },
          items: deleted,
        });
        return;
      }
      default:
        throw methodNotAllowed(method, info.resource);
    }
  }

  const name = path.name;
  if (path.subresource === 'scale') return handleScale(ctx, r, info, ns, name, method);
  if (path.subresource === 'binding') {
    if (method !== 'POST') throw methodNotAllowed(method, `${info.resource}/binding`);
    const b = (await r.body()) as Binding;
    b.metadata = { ...(b.metadata ?? {}), name, namespace: ns };
    await ctx.api.bind(b);
    sendJson(res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    return;
  }
  if (path.subresource === 'eviction') {
    if (method !== 'POST') throw methodNotAllowed(method, `${info.resource}/eviction`);
    await evictPod(ctx.api, ns, name, await r.body());
    sendJson(res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    return;
  }
  const status = path.subresource === 'status';
  switch (method) {
    case 'GET': {
      const obj = await ctx.api.get(info.resource, ns, name);
      send(ctx, r, 200, rep, info, [obj]);
      return;
    }
    case 'PUT': {
      const obj = await r.body();
      checkBodyKind(obj, info);
      const before = await ctx.api.get(info.resource, ns, name).catch(() => undefined);
      typedBody(r, obj, info, 'UpdateOptions', before);
      obj.metadata ??= {};
      if (obj.metadata.name && obj.metadata.name !== name)
        throw badRequest(
          `the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`,
        );
      obj.metadata.name = name;
      if (info.namespaced) {
        if (obj.metadata.namespace && obj.metadata.namespace !== ns)
          throw badRequest(
            'the namespace of the provided object does not match the namespace sent on the request',
          );
        obj.metadata.namespace = ns;
      }
      const updated = status ? await ctx.api.updateStatus(obj) : await ctx.api.update(obj);
      send(ctx, r, before ? 200 : 201, rep, info, [updated]);
      return;
    }
    case 'PATCH': {
      const patched = await patchObject(ctx, r, info, ns, name, status);
      send(ctx, r, patched.created ? 201 : 200, rep, info, [patched.obj]);
      return;
    }
    case 'DELETE': {
      if (status) throw methodNotAllowed(method, `${info.resource}/status`);
      const del = await deleteOptions(r, query);
      const deleted = await deleteOne(ctx, info, ns, name, del);
      const stillThere = await ctx.api.get(info.resource, ns, name).then(
        () => true,
        () => false,
      );
      if (stillThere) sendJson(res, 202, deleted);
      else
        sendJson(
          res,
          200,
          successStatus({ name, group: info.group, kind: info.resource, uid: deleted.metadata.uid }),
        );
      return;
    }
    default:
      throw methodNotAllowed(method, info.resource);
  }
}

function dryRun(q: URLSearchParams): boolean {
  const v = q.getAll('dryRun');
  if (v.some((x) => x !== 'All')) throw badRequest(`unsupported dryRun value: ${v.join(',')} (only All)`);
  return v.length > 0;
}

function checkBodyKind(obj: Obj, info: ResourceInfo): void {
  if (!obj || typeof obj !== 'object' || Array.isArray(obj))
    throw badRequest('the request body is not a JSON object');
  obj.kind ||= info.kind;
  obj.apiVersion ||= info.apiVersion;
  if (obj.kind !== info.kind || obj.apiVersion !== info.apiVersion)
    throw badRequest(
      `the API version in the data (${obj.apiVersion}) does not match the expected API version (${info.apiVersion}) or kind ${obj.kind} is not ${info.kind}`,
    );
}

interface DeleteRequest {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  dryRun: boolean;
}

async function deleteOptions(r: Request, q: URLSearchParams): Promise<DeleteRequest> {
  const raw = await r.rawBody();
  const body: Obj = raw.length ? await r.body() : {};
  const grace = intParam(q, 'gracePeriodSeconds') ?? body.gracePeriodSeconds;
  const policy =
    q.get('propagationPolicy') ??
    body.propagationPolicy ??
    (isTrueParam(q, 'orphanDependents') ? 'Orphan' : undefined);
  if (policy !== undefined && !['Orphan', 'Background', 'Foreground'].includes(policy))
    throw invalid({ name: 'DeleteOptions', group: '' }, '', [
      invalidValue('propagationPolicy', policy, 'must be one of Orphan, Background, Foreground'),
    ]);
  return {
    gracePeriodSeconds: grace === undefined || grace === null ? undefined : Number(grace),
    preconditions: body.preconditions,
    propagationPolicy: policy,
    dryRun: dryRun(q) || (Array.isArray(body.dryRun) && body.dryRun.includes('All')),
  };
}

/**
 * Delete one object. A pod without an explicit grace period gets its own
 * terminationGracePeriodSeconds (default 30), so it terminates through the kubelet model as on a
 * real node. propagationPolicy goes to the ApiServer: Orphan and Foreground leave the object with the
 * `orphan` / `foregroundDeletion` finalizer, and the simulation's garbage collector
 * (src/controllers/garbagecollector.ts) releases or deletes the dependents.
 */
async function deleteOne(
  ctx: RestContext,
  info: ResourceInfo,
  ns: string | undefined,
  name: string,
  del: DeleteRequest,
  known?: KubeObject,
): Promise<KubeObject> {
  let grace = del.gracePeriodSeconds;
  if (grace === undefined && info.kind === 'Pod') {
    const pod = (known ?? (await ctx.api.get(info.resource, ns, name))) as Obj;
    grace = pod.spec?.terminationGracePeriodSeconds ?? 30;
  }
  const deleted = await ctx.api.delete(info.resource, ns || undefined, name, {
    gracePeriodSeconds: grace,
    preconditions: del.preconditions,
    propagationPolicy: del.propagationPolicy,
    dryRun: del.dryRun,
  });
  return deleted;
}

/** Apply a patch to the current object and write it back, retrying lost races (upstream patcher). */
async function patchObject(
  ctx: RestContext,
  r: Request,
  info: ResourceInfo,
  ns: string,
  name: string,
  status: boolean,
): Promise<{ obj: KubeObject; created: boolean }> {
  const type = patchTypeOf(r.req.headers['content-type']);
  const raw = (await r.rawBody()).toString('utf8');
  const force = isTrueParam(r.query, 'force');
  const manager = r.query.get('fieldManager') ?? undefined;
  if (type === 'apply' && !manager) throw badRequest('fieldManager is required for apply requests');
  for (let attempt = 0; attempt < MAX_PATCH_RETRIES; attempt++) {
    let current: KubeObject | undefined;
    try {
      current = await ctx.api.get(info.resource, ns, name);
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 404) || type !== 'apply' || status) throw e;
    }
    // a copy: the typed decode below edits in place, and the patch may share parts of `current`
    // a built-in kind at a converted version (autoscaling/v1 HPA) is patched in that version's form
    const base = current && !info.crd ? (asServed(info)(current) as KubeObject) : current;
    const next = structuredClone(
      applyPatch(type, raw, base, info, {
        manager,
        force,
        now: ctx.api.clock.now(),
        schema: r.custom ? (r.custom.schema?.openAPIV3Schema ?? {}) : undefined,
      }),
    );
    if (attempt === 0) typedBody(r, next, info, 'PatchOptions', current);
    else decodeTyped(next, info.group, info.version, info.kind);
    next.metadata ??= {};
    next.metadata.name = name;
    if (info.namespaced) next.metadata.namespace = ns;
    if (!current) {
      return { obj: await ctx.api.create(next, { dryRun: dryRun(r.query) }), created: true };
    }
    const pinned =
      next.metadata.resourceVersion !== undefined &&
      next.metadata.resourceVersion !== current.metadata.resourceVersion;
    if (!pinned) next.metadata.resourceVersion = current.metadata.resourceVersion;
    try {
      return { obj: status ? await ctx.api.updateStatus(next) : await ctx.api.update(next), created: false };
    } catch (e) {
      if (pinned || !(e instanceof ApiError && e.code === 409 && e.reason === 'Conflict')) throw e;
    }
  }
  throw conflict(info.qualifiedResource, name, 'too many conflicts applying the patch');
}

/** autoscaling/v1 Scale of a workload (upstream: pkg/registry/apps/deployment/storage ScaleREST). */
function scaleOf(obj: Obj, custom: Obj | undefined): Obj {
  const sel = obj.spec?.selector;
  let selector = '';
  const cr = custom ? readScale(custom, obj) : undefined;
  if (sel?.matchLabels || sel?.matchExpressions) {
    selector = Object.entries(sel.matchLabels ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
  } else if (sel && typeof sel === 'object') {
    selector = Object.entries(sel)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
  }
  const m = obj.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec: { replicas: cr ? cr.spec : (obj.spec?.replicas ?? 1) },
    status: cr
      ? { replicas: cr.status, ...(cr.selector ? { selector: cr.selector } : {}) }
      : { replicas: obj.status?.replicas ?? 0, ...(selector ? { selector } : {}) },
  };
}

async function handleScale(
  ctx: RestContext,
  r: Request,
  info: ResourceInfo,
  ns: string,
  name: string,
  method: string,
): Promise<void> {
  if (method === 'GET') {
    sendJson(r.res, 200, scaleOf(await ctx.api.get(info.resource, ns, name), r.custom));
    return;
  }
  if (method !== 'PUT' && method !== 'PATCH') throw methodNotAllowed(method, `${info.resource}/scale`);
  const raw = (await r.rawBody()).toString('utf8');
  const type = method === 'PATCH' ? patchTypeOf(r.req.headers['content-type']) : undefined;
  for (let attempt = 0; attempt < MAX_PATCH_RETRIES; attempt++) {
    const obj: Obj = await ctx.api.get(info.resource, ns, name);
    const cur = scaleOf(obj, r.custom);
    const wanted: Obj =
      type === undefined
        ? await r.body()
        : applyPatch(type, raw, cur, { ...info, kind: 'Scale' }, { now: ctx.api.clock.now() });
    const replicas = wanted?.spec?.replicas;
    if (!Number.isInteger(replicas) || replicas < 0)
      throw invalid({ name: 'Scale', group: 'autoscaling' }, name, [
        invalidValue('spec.replicas', replicas, 'must be greater than or equal to 0'),
      ]);
    const pinned = wanted.metadata?.resourceVersion;
    if (pinned && pinned !== obj.metadata.resourceVersion)
      throw conflict(
        info.qualifiedResource,
        name,
        'the object has been modified; please apply your changes to the latest version and try again',
      );
    if (r.custom) writeScale(r.custom, obj, replicas);
    else obj.spec.replicas = replicas;
    try {
      const updated = await ctx.api.update(obj);
      sendJson(r.res, 200, scaleOf(updated, r.custom));
      return;
    } catch (e) {
      if (pinned || !(e instanceof ApiError && e.code === 409)) throw e;
    }
  }
  throw conflict(info.qualifiedResource, name, 'too many conflicts scaling');
}

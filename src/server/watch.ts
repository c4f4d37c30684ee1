/**
 * `GET …?watch=true`: a chunked stream of newline-delimited JSON watch events
 * (`{"type":"ADDED","object":{…}}`), as kube-apiserver's WatchServer writes them (upstream:
 * staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go).
 *
 *  - from `resourceVersion` N the store's history after N is replayed; without one (or "0") the
 *    current objects come first as ADDED;
 *  - a compacted N yields one ERROR event with a 410 Expired Status, then the stream ends, so
 *    informers relist;
 *  - `allowWatchBookmarks=true`: BOOKMARK events carry the current resourceVersion at intervals;
 *  - `sendInitialEvents=true` (streaming lists): the current objects as ADDED, then a BOOKMARK
 *    annotated `k8s.io/initial-events-end: "true"`, then changes;
 *  - `timeoutSeconds`: the server ends the stream after that long (clients then re-watch); without
 *    it, after a random time between `--min-request-timeout` and twice that (upstream:
 *    staging/src/k8s.io/apiserver/pkg/endpoints/handlers/get.go ListResource, which spreads the
 *    re-watches of many clients the same way).
 * With `Accept: …;as=Table` each object is a one-row Table, the first carrying the column
 * definitions.
 */
import type { ApiServer, ApiWatchEvent, WatchHandle } from '../api/apiserver.js';
import { badRequest } from '../api/errors.js';
import type { ResourceInfo } from '../api/registry.js';
import type { KubeObject } from '../api/types.js';
import type { Representation } from './negotiate.js';
import { encodeWatchFrame, PROTOBUF } from './protobuf.js';
import { intParam, isTrueParam } from './query.js';
import { sendError } from './respond.js';
import type { Printer } from './printers.js';
import type { Request } from './request-info.js';
import { toTable } from './table.js';

export interface WatchSettings {
  /** wall-clock interval between bookmark requests for watches that allow them (upstream: ~1 min) */
  bookmarkEveryMs: number;
  /** watches without timeoutSeconds end after this × (1 + random()) (upstream default 1800 s; 0: never) */
  minRequestTimeoutMs: number;
  /** uniform in [0, 1): the seeded source of the timeout spread */
  random: () => number;
  /** encode each event once and share the bytes among watchers (default; false: per watcher, for benchmarks) */
  shareEncoded?: boolean;
}

/**
 * The bytes of one store event, per encoding, shared by every watcher that receives it: with
 * `sharedObjects` the ApiServer hands all watchers of a store event the same frozen object, so it
 * is the key (kube-apiserver's watch cache encodes an event once per encoding the same way: its
 * cachingObject in staging/src/k8s.io/apiserver/pkg/storage/cacher/caching_object.go).
 */
const ENCODED = new WeakMap<object, Map<string, string | Buffer>>();

function encoded(
  object: object,
  type: string,
  protobuf: boolean,
  encode: (type: string, object: unknown) => string | Buffer,
): string | Buffer {
  let byKey = ENCODED.get(object);
  if (!byKey) ENCODED.set(object, (byKey = new Map()));
  const key = `${type}${protobuf ? '/pb' : ''}`;
  let bytes = byKey.get(key);
  if (bytes === undefined) byKey.set(key, (bytes = encode(type, object)));
  return bytes;
}

export async function serveWatch(
  api: ApiServer,
  settings: WatchSettings,
  r: Request,
  info: ResourceInfo,
  ns: string,
  rep: Representation,
  printer?: Printer,
): Promise<void> {
  const q = r.query;
  const { res, req } = r;
  const allowBookmarks = isTrueParam(q, 'allowWatchBookmarks');
  const initialEvents = isTrueParam(q, 'sendInitialEvents');
  const timeout = intParam(q, 'timeoutSeconds') ?? 0;
  if (initialEvents && (!allowBookmarks || q.get('resourceVersionMatch') !== 'NotOlderThan'))
    throw badRequest(
      'sendInitialEvents requires allowWatchBookmarks=true and resourceVersionMatch=NotOlderThan',
    );
  const base = {
    namespace: ns || undefined,
    labelSelector: q.get('labelSelector') ?? undefined,
    fieldSelector: q.get('fieldSelector') ?? undefined,
  };

  let contentType = 'application/json';
  let headers = true;
  // a custom resource is served at every version of its CRD, the same object (conversion None)
  let transform = info.crd
    ? (o: unknown): unknown => ({ ...(o as object), apiVersion: info.apiVersion })
    : (o: unknown): unknown => o;
  if (rep.as === 'Table') {
    contentType = `application/json;as=Table;v=${rep.version};g=meta.k8s.io`;
    transform = (o) => {
      const t = toTable(
        info.kind,
        [o as KubeObject],
        { resourceVersion: (o as KubeObject).metadata?.resourceVersion },
        {
          now: api.clock.now(),
          includeObject: (q.get('includeObject') as 'None' | 'Object' | null) ?? 'Metadata',
          version: rep.version,
          noHeaders: !headers,
          printer,
        },
      );
      headers = false;
      return t;
    };
  } else if (rep.as === 'PartialObjectMetadata') {
    transform = (o) => ({
      kind: 'PartialObjectMetadata',
      apiVersion: `meta.k8s.io/${rep.version}`,
      metadata: (o as KubeObject).metadata,
    });
  }

  let ended = false;
  let handle: WatchHandle | undefined;
  const timers: NodeJS.Timeout[] = [];
  const finish = () => {
    if (ended) return;
    ended = true;
    for (const t of timers) clearTimeout(t);
    void handle?.stop();
    res.end();
  };
  const protobuf = rep.as === 'protobuf';
  if (protobuf) contentType = `${PROTOBUF};stream=watch`;
  // plain JSON and protobuf events of built-in kinds are encoded once and shared (see encoded())
  const shareable = settings.shareEncoded !== false && (rep.as === 'json' || protobuf) && !info.crd;
  const encode = (type: string, object: unknown): string | Buffer =>
    protobuf
      ? encodeWatchFrame(type, { apiVersion: info.apiVersion, kind: info.kind, ...(object as object) })
      : `${JSON.stringify({ type, object })}\n`;
  const write = (ev: ApiWatchEvent<unknown>) => {
    if (ended) return;
    if (shareable && (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED'))
      res.write(encoded(ev.object as object, ev.type, protobuf, encode));
    else {
      const object = ev.type === 'ERROR' || ev.type === 'BOOKMARK' ? ev.object : transform(ev.object);
      res.write(encode(ev.type, object));
    }
    if (ev.type === 'ERROR') finish();
  };

  // errors before the first byte (bad selectors, bad resourceVersion) are plain Status answers
  let resourceVersion = q.get('resourceVersion') ?? undefined;
  const pending: ApiWatchEvent<unknown>[] = [];
  let started = false;
  const emit = (ev: ApiWatchEvent<unknown>) => (started ? write(ev) : pending.push(ev));
  try {
    if (initialEvents) {
      const list = await api.list(info.resource, base);
      for (const o of list.items) pending.push({ type: 'ADDED', object: o });
      pending.push({
        type: 'BOOKMARK',
        object: {
          kind: info.kind,
          apiVersion: info.apiVersion,
          metadata: {
            resourceVersion: list.metadata.resourceVersion,
            annotations: { 'k8s.io/initial-events-end': 'true' },
          },
        },
      });
      resourceVersion = list.metadata.resourceVersion;
    }
    handle = await api.watch(
      info.resource,
      { ...base, resourceVersion, allowBookmarks, sharedObjects: shareable },
      emit,
    );
  } catch (e) {
    sendError(res, e);
    return;
  }
  res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  started = true;
  for (const ev of pending) write(ev);

  req.on('close', finish);
  res.on('close', finish);
  if (timeout > 0) timers.push(setTimeout(finish, timeout * 1000));
  else if (settings.minRequestTimeoutMs > 0)
    timers.push(setTimeout(finish, settings.minRequestTimeoutMs * (1 + settings.random())));
  if (allowBookmarks) {
    const tick = () => {
      if (ended) return;
      handle?.requestBookmark();
      timers.push(setTimeout(tick, settings.bookmarkEveryMs));
    };
    timers.push(setTimeout(tick, settings.bookmarkEveryMs));
  }
}

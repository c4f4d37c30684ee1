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
import { asServed } from './resources.js';
import { toTable } from './table.js';
import type { WatchCaches } from './watch-cache.js';
import { Outbox } from './watch-outbox.js';

export interface WatchSettings {
  /** wall-clock interval between bookmark requests for watches that allow them (upstream: ~1 min) */
  bookmarkEveryMs: number;
  /** watches without timeoutSeconds end after this × (1 + random()) (upstream default 1800 s; 0: never) */
  minRequestTimeoutMs: number;
  /** uniform in [0, 1): the seeded source of the timeout spread */
  random: () => number;
  /** encode each event once and share the bytes among watchers (default; false: per watcher, for benchmarks) */
  shareEncoded?: boolean;
  /** batch each watcher's events per event-loop turn into one write (default; false: a write per event) */
  batchWrites?: boolean;
  /** the server's watch caches (one store watch per resource); absent: a store watch per watcher */
  caches?: WatchCaches;
}

/**
 * The bytes of one store event, per encoding, shared by every watcher that receives it: with
 * `sharedObjects` the ApiServer hands all watchers of a store event the same frozen object, so it
 * is the key (kube-apiserver's watch cache encodes an event once per encoding the same way: its
 * cachingObject in staging/src/k8s.io/apiserver/pkg/storage/cacher/caching_object.go). The
 * encoding names everything the bytes depend on: event type, representation (JSON, protobuf, Table
 * rows, metadata), its version, the served apiVersion (custom resources) and includeObject.
 */
const ENCODED = new WeakMap<object, Map<string, Buffer>>();

function encoded(object: object, key: string, encode: () => Buffer): Buffer {
  let byKey = ENCODED.get(object);
  if (!byKey) ENCODED.set(object, (byKey = new Map()));
  let bytes = byKey.get(key);
  if (bytes === undefined) byKey.set(key, (bytes = encode()));
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
  // a custom resource at every version of its CRD (conversion None), an HPA at autoscaling/v1 too
  const served = asServed(info);
  let transform = served;
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
          served,
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
  // batches are framed as HTTP/1.1 chunks by the outbox (HTTP/1.0 clients get unframed writes)
  const batch = settings.batchWrites !== false && req.httpVersion === '1.1';
  const outbox = new Outbox(res, batch);
  const finish = () => {
    if (ended) return;
    ended = true;
    for (const t of timers) clearTimeout(t);
    void handle?.stop();
    outbox.close();
    res.end();
  };
  const protobuf = rep.as === 'protobuf';
  if (protobuf) contentType = `${PROTOBUF};stream=watch`;
  // every change event is encoded once per encoding and its bytes shared (see encoded())
  const shareable = settings.shareEncoded !== false;
  const encoding = `${rep.as}/${'version' in rep ? rep.version : ''}/${info.apiVersion}/${q.get('includeObject') ?? ''}`;
  const keys: Record<string, string> = {
    ADDED: `ADDED/${encoding}`,
    MODIFIED: `MODIFIED/${encoding}`,
    DELETED: `DELETED/${encoding}`,
  };
  const encode = (type: string, object: unknown): Buffer =>
    protobuf
      ? encodeWatchFrame(type, { apiVersion: info.apiVersion, kind: info.kind, ...(object as object) })
      : Buffer.from(`${JSON.stringify({ type, object })}\n`);
  const write = (ev: ApiWatchEvent<unknown>) => {
    if (ended) return;
    const { type, object } = ev;
    if (type === 'ERROR' || type === 'BOOKMARK') outbox.push(encode(type, object));
    // a Table watch's first row carries the column definitions: that one is the watcher's own
    else if (shareable && !(rep.as === 'Table' && headers))
      outbox.push(encoded(object as object, keys[type]!, () => encode(type, transform(object))));
    else outbox.push(encode(type, transform(object)));
    if (type === 'ERROR') finish();
  };

  // errors before the first byte (bad selectors, bad resourceVersion) are plain Status answers
  let resourceVersion = q.get('resourceVersion') ?? undefined;
  const pending: ApiWatchEvent<unknown>[] = [];
  let started = false;
  const emit = (ev: ApiWatchEvent<unknown>) => (started ? write(ev) : pending.push(ev));
  try {
    const caches = settings.caches;
    if (initialEvents) {
      const list = await api.list(info.resource, base);
      for (const o of list.items) pending.push({ type: 'ADDED', object: o });
      if (initialEvents)
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
    handle =
      // a watch from "now" ("" / "0") starts with the store's current objects: a store watch
      (caches && resourceVersion && resourceVersion !== '0'
        ? await caches.watch(info, { ...base, resourceVersion, allowBookmarks }, emit, finish)
        : undefined) ??
      (await api.watch(
        info.resource,
        { ...base, resourceVersion, allowBookmarks, sharedObjects: shareable },
        emit,
      ));
  } catch (e) {
    sendError(res, e);
    return;
  }
  if (ended) return;
  res.writeHead(200, {
    'Content-Type': contentType,
    'Cache-Control': 'no-cache, private',
    ...(batch ? { 'Transfer-Encoding': 'chunked' } : {}),
  });
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

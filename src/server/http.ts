/**
 * The HTTP front of the ApiServer: node:http on a loopback address, routing kube-apiserver's
 * paths (discovery, /version, health, resources, OpenAPI) and kubesim's own control endpoint.
 * node:http is enough: Kubernetes' paths are parsed by request-info.ts, not by a router's patterns,
 * and watch streams need the raw response.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ApiServer } from '../api/apiserver.js';
import type { ResourceInfo } from '../api/registry.js';
import { ApiError } from '../api/errors.js';
import {
  aggregatedDiscovery,
  apiGroupDoc,
  apiGroupList,
  apiResourceList,
  apiVersions,
  versionInfo,
} from './discovery.js';
import { decodeBody } from './body.js';
import { startCrdController } from './crd-controller.js';
import { negotiate } from './negotiate.js';
import { startNamespaceCleanup } from './namespace-cleanup.js';
import type { Catalog } from './resources.js';
import { openapiRoute } from './openapi.js';
import { parsePath, type Request } from './request-info.js';
import { pathNotFound, sendError, sendJson } from './respond.js';
import { handleResource } from './rest.js';
import type { WatchSettings } from './watch.js';
import { WatchCaches } from './watch-cache.js';
import { Rng } from '../util/rng.js';

/** Answers kubesim's own paths (`/kubesim/…`); returns false when the path is not its own. */
export type ExtraRoute = (
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  body: () => Promise<Buffer>,
) => Promise<boolean>;

export interface HttpServerOptions {
  api: ApiServer;
  /** 127.0.0.1 unless told otherwise */
  host?: string;
  /** 0 = any free port */
  port?: number;
  /** seeds the spread of watch timeouts */
  seed?: number;
  /** the kubesim version shown in /version */
  version: string;
  watch?: Partial<Omit<WatchSettings, 'caches'>>;
  /** serve watches through one store watch per resource (watch-cache.ts; default true) */
  watchCache?: boolean;
  /** kinds the extra routes serve, for discovery (metrics.k8s.io) */
  extraKinds?: readonly ResourceInfo[];
  /** group versions off by default to serve too (resources.ts OPTIONAL_VERSIONS; `--runtime-config`) */
  enableVersions?: readonly string[];
  /** extra routes tried before the Kubernetes API (control endpoint, OpenAPI) */
  routes?: ExtraRoute[];
  /** serve HTTPS with this key and certificate (PEM) instead of plain HTTP */
  tls?: { key: string; cert: string };
  /** called for each answered request (logging) */
  onRequest?: (method: string, url: string, code: number, ms: number) => void;
}

export interface RunningServer {
  server: Server;
  /** http://127.0.0.1:PORT (https:// with tls) */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** kube-apiserver's --max-request-body-bytes default (3 MiB; upstream: options.ServerRunOptions). */
export const MAX_BODY = 3 * 1024 * 1024;
/** past this much, a too-large body is not read to its end: the connection is closed after the 413 */
const MAX_DRAIN = 64 * 1024 * 1024;

function tooLarge(): ApiError {
  return new ApiError(
    413,
    'RequestEntityTooLarge' as never,
    `Request entity too large: limit is ${MAX_BODY}`,
    {},
  );
}

/**
 * The request body, read once. Past MAX_BODY the rest is read and dropped so the client, still
 * sending, gets its 413 instead of a reset connection (upstream answers the same status).
 */
function readBody(req: IncomingMessage, res: ServerResponse): () => Promise<Buffer> {
  let p: Promise<Buffer> | undefined;
  return () =>
    (p ??= new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const declared = Number(req.headers['content-length'] ?? 0);
      if (declared > MAX_DRAIN) {
        res.setHeader('Connection', 'close');
        reject(tooLarge());
        return;
      }
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_DRAIN) {
          res.setHeader('Connection', 'close');
          reject(tooLarge());
          return;
        }
        if (size <= MAX_BODY) chunks.push(c);
      });
      req.on('end', () => (size > MAX_BODY ? reject(tooLarge()) : resolve(Buffer.concat(chunks))));
      req.on('error', reject);
    }));
}

export async function startHttpServer(opts: HttpServerOptions): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  const rng = new Rng(opts.seed ?? 1);
  const watch: WatchSettings = {
    bookmarkEveryMs: opts.watch?.bookmarkEveryMs ?? 60_000,
    minRequestTimeoutMs: opts.watch?.minRequestTimeoutMs ?? 1_800_000,
    random: opts.watch?.random ?? (() => rng.next()),
    shareEncoded: opts.watch?.shareEncoded,
    batchWrites: opts.watch?.batchWrites,
    caches: opts.watchCache === false ? undefined : new WatchCaches(opts.api),
  };
  let address = '';
  const cat: Catalog = {
    kinds: opts.api.kinds,
    crds: new Map(),
    extra: opts.extraKinds,
    enabled: new Set(opts.enableVersions ?? []),
  };
  const stopCrds = await startCrdController(opts.api, cat.crds);
  const stopNamespaces = await startNamespaceCleanup(opts.api);
  const openapi = openapiRoute(cat);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const raw = readBody(req, res);
    for (const route of [...(opts.routes ?? []), openapi]) if (await route(req, res, url, raw)) return;
    const p = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    if (method === 'GET') {
      switch (p) {
        case '/version':
          return sendJson(res, 200, versionInfo(opts.version));
        case '/healthz':
        case '/livez':
        case '/readyz':
          res.writeHead(200, { 'Content-Type': 'text/plain' });
          res.end('ok');
          return;
        case '/api':
        case '/apis': {
          const agg = negotiate(req.headers.accept, { discovery: true });
          if (agg?.as === 'APIGroupDiscoveryList')
            return sendJson(
              res,
              200,
              aggregatedDiscovery(cat, p === '/api', agg.version),
              `application/json;g=apidiscovery.k8s.io;v=${agg.version};as=APIGroupDiscoveryList`,
            );
          return sendJson(res, 200, p === '/api' ? apiVersions(address) : apiGroupList(cat));
        }
      }
    }
    const parsed = parsePath(p);
    if (parsed.type === 'none') throw pathNotFound();
    if (parsed.type === 'group' || parsed.type === 'groupVersion') {
      if (method !== 'GET') throw pathNotFound();
      const doc =
        parsed.type === 'group'
          ? apiGroupDoc(cat, parsed.group)
          : apiResourceList(cat, parsed.group, parsed.version);
      if (!doc) throw pathNotFound();
      return sendJson(res, 200, doc);
    }
    const r: Request = {
      req,
      res,
      path: parsed.path,
      query: url.searchParams,
      rawBody: raw,
      body: () => decodeBody(req.headers['content-type'], raw),
    };
    await handleResource({ api: opts.api, watch, cat }, r);
  };

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const t0 = performance.now();
    res.on('finish', () =>
      opts.onRequest?.(req.method ?? '', req.url ?? '', res.statusCode, performance.now() - t0),
    );
    handle(req, res).catch((e) => sendError(res, e));
  };
  const server: Server = opts.tls ? createTlsServer(opts.tls, listener) : createServer(listener);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  address = `${host}:${port}`;
  return {
    server,
    url: `${opts.tls ? 'https' : 'http'}://${address}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        void stopCrds();
        void stopNamespaces();
        void watch.caches?.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

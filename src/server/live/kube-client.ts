/**
 * A live cluster reached through `@kubernetes/client-node`, the Kubernetes client library for
 * JavaScript: it reads the kubeconfig (contexts, certificates, tokens, exec and OIDC plugins) and
 * watches; kubesim asks it only for raw JSON so objects keep every field, including ones newer than
 * the library's generated models.
 *
 * The library is an optional dependency loaded on first use (it brings about 60 packages): the
 * rest of kubesim starts without it, and a user without it gets {@link LiveClusterError} saying so.
 */
import { request as httpRequest } from 'node:http';
import { type RequestOptions, request as httpsRequest } from 'node:https';
import type * as ClientNode from '@kubernetes/client-node';
import { importOptional, MissingDependencyError } from '../../util/optional-dependency.js';

/** A failure talking to the live cluster, worded for the user (no stack trace). */
export class LiveClusterError extends Error {
  /** the HTTP status of a non-2xx answer (undefined for other failures) */
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
    this.name = 'LiveClusterError';
  }
}

type ClientModule = typeof ClientNode;
let loaded: ClientModule | undefined;

export async function clientNode(): Promise<ClientModule> {
  try {
    loaded ??= await importOptional<ClientModule>('@kubernetes/client-node', 'reading a live cluster');
  } catch (e) {
    if (e instanceof MissingDependencyError) throw new LiveClusterError(e.message);
    throw e;
  }
  return loaded;
}

export interface LiveCluster {
  kc: ClientNode.KubeConfig;
  /** the API server's URL */
  server: string;
  /** GET a path, parsed JSON; non-2xx answers throw LiveClusterError with the Status message */
  get(path: string): Promise<unknown>;
  /**
   * A watch through the library's Watch: `onEvent` gets each event's type and raw object
   * (ERROR events carry a Status), `onDone` the end of the stream (an error, or null when the
   * server closed it). `abort` ends it without calling `onDone`.
   */
  watch(
    path: string,
    query: Record<string, string | boolean>,
    onEvent: (type: string, object: unknown) => void,
    onDone: (err: unknown) => void,
  ): Promise<{ abort(): void }>;
}

/** Loads a kubeconfig file and selects a context (its current one unless given). */
export async function connect(file: string, context?: string): Promise<LiveCluster> {
  const k8s = await clientNode();
  const kc = new k8s.KubeConfig();
  try {
    kc.loadFromFile(file);
  } catch (e) {
    throw new LiveClusterError(`${file}: not a kubeconfig: ${(e as Error).message}`);
  }
  if (context !== undefined) {
    if (!kc.getContexts().some((c) => c.name === context))
      throw new LiveClusterError(
        `--context ${context}: ${file} has no such context (it has: ${kc
          .getContexts()
          .map((c) => c.name)
          .join(', ')})`,
      );
    kc.setCurrentContext(context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new LiveClusterError(`${file}: the current context names no cluster`);
  const server = cluster.server.replace(/\/+$/, '');
  const watcher = new k8s.Watch(kc);
  return {
    kc,
    server,
    get: (path) => getJson(kc, server, path),
    watch: async (path, query, onEvent, onDone) => {
      let aborted = false;
      const ctl = await watcher.watch(path, query, onEvent, (err) => {
        if (!aborted) onDone(err ?? null);
      });
      return {
        abort: () => {
          aborted = true;
          ctl.abort();
        },
      };
    },
  };
}

async function getJson(kc: ClientNode.KubeConfig, server: string, path: string): Promise<unknown> {
  const url = new URL(server + path);
  const opts: RequestOptions = { method: 'GET', headers: { Accept: 'application/json' } };
  // certificates, tokens and exec/OIDC credentials of the kubeconfig's user and cluster
  await kc.applyToHTTPSOptions(opts);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, opts, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        const code = res.statusCode ?? 0;
        if (code >= 200 && code < 300 && body !== undefined) return resolve(body);
        const msg = (body as { message?: string } | undefined)?.message ?? text.slice(0, 200);
        reject(new LiveClusterError(`GET ${server}${path}: ${code} ${msg}`.trim(), code));
      });
    });
    req.on('error', (e) => reject(new LiveClusterError(`GET ${server}${path}: ${e.message}`)));
    req.end();
  });
}

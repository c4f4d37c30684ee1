/**
 * What a REST path asks for, parsed the way kube-apiserver's RequestInfoFactory does
 * (upstream: staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go):
 *
 *   /api/v1/namespaces/default/pods/web-0/status
 *     → group "", version v1, namespace default, resource pods, name web-0, subresource status
 *   /apis/apps/v1/deployments              → every namespace
 *   /api/v1/namespaces/kube-system         → the namespace object itself
 *   /api/v1/namespaces/kube-system/status  → its status subresource (status and finalize are the
 *                                            namespace's own subresources, not resources in it)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
export interface ResourcePath {
  group: string;
  version: string;
  /** '' when the path names no namespace (cluster-scoped kinds, or every namespace) */
  namespace: string;
  resource: string;
  name: string;
  subresource: string;
  /** the legacy `/api/v1/watch/…` and `/apis/G/V/watch/…` form: a watch, of one object with a name */
  watch?: boolean;
}

export type ParsedPath =
  | { type: 'resource'; path: ResourcePath }
  /** `/api/v1`, `/apis/apps/v1`: the group version's resource list */
  | { type: 'groupVersion'; group: string; version: string }
  /** `/apis/apps`: the group */
  | { type: 'group'; group: string }
  | { type: 'none' };

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

export function parsePath(pathname: string): ParsedPath {
  const parts = pathname.split('/').filter((p) => p !== '');
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api') {
    if (parts.length < 2) return { type: 'none' };
    group = '';
    version = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis') {
    if (parts.length < 2) return { type: 'none' };
    if (parts.length === 2) return { type: 'group', group: parts[1]! };
    group = parts[1]!;
    version = parts[2]!;
    rest = parts.slice(3);
  } else return { type: 'none' };
  if (rest.length === 0) return { type: 'groupVersion', group, version };
  rest = rest.map(decodeURIComponent);
  // upstream's RequestInfoFactory still reads the `watch` prefix (deprecated since 1.11, served)
  const watch = rest[0] === 'watch' && rest.length > 1;
  if (watch) rest = rest.slice(1);

  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1]!;
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) rest = rest.slice(2);
    else {
      // the namespace object itself (or its status / finalize)
      return {
        type: 'resource',
        path: {
          group,
          version,
          namespace: '',
          resource: 'namespaces',
          name: namespace,
          subresource: rest[2] ?? '',
          ...(watch ? { watch } : {}),
        },
      };
    }
  }
  if (rest.length > 3) return { type: 'none' };
  return {
    type: 'resource',
    path: {
      group,
      version,
      namespace,
      resource: rest[0]!,
      name: rest[1] ?? '',
      subresource: rest[2] ?? '',
      ...(watch ? { watch } : {}),
    },
  };
}

/**
 * One request as the REST handlers see it (rest.ts, watch.ts): the parsed path, the query and the
 * body read on demand. Here, below both, so that neither handler module imports the other's types.
 */
export interface Request {
  req: IncomingMessage;
  res: ServerResponse;
  path: ResourcePath;
  query: URLSearchParams;
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are arbitrary JSON
  body(): Promise<any>;
  rawBody(): Promise<Buffer>;
  /** the CRD version (`spec.versions[]`) a custom resource is served at, once the path is resolved */
  // biome-ignore lint/suspicious/noExplicitAny: CRD objects are arbitrary JSON
  custom?: any;
}

/**
 * OpenAPI documents for the served kinds: `/openapi/v2` (one document), `/openapi/v3` (the index
 * of group versions) and `/openapi/v3/<api|apis/g>/<v>` (paths and schemas), built from the
 * registry like discovery, with the pinned release's real schemas and each CRD's own
 * (openapi-schemas.ts), so `kubectl explain pod.spec.containers` and `kubectl explain widget.spec`
 * find their fields.
 *
 * kubectl ≥ 1.27 reads them before `apply`/`create`/`replace` to learn whether the server validates
 * fields itself: a PATCH operation tagged with the kind's `x-kubernetes-group-version-kind` that
 * takes a `fieldValidation` query parameter means yes, and kubectl then skips client-side schema
 * validation (upstream: staging/src/k8s.io/cli-runtime/pkg/resource/query_param_verifier_v3.go).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { KUBERNETES_VERSION } from '../api/kinds.js';
import { ApiError } from '../api/errors.js';
import { upstreamSwagger } from './k8s-data.js';
import { encodeOpenApiV2, OPENAPI_V2_PROTOBUF } from './openapi-proto.js';
import { closure, schemaOf, swaggerDoc, V3, v3Refs } from './openapi-schemas.js';
import { type Catalog, type GroupVersion, groupVersions } from './resources.js';
import { sendJson } from './respond.js';

function notAcceptable(type: string): ApiError {
  return new ApiError(
    406,
    'NotAcceptable' as never,
    `only the following media types are accepted: ${type}`,
    {},
  );
}

/** what /openapi/v2 is written as: JSON, or gnostic's protobuf message (both of its names) */
const V2_TYPES = [
  'application/json',
  OPENAPI_V2_PROTOBUF,
  'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
  '*/*',
  'application/*',
];

const gvPath = (gv: GroupVersion) => (gv.group ? `apis/${gv.group}/${gv.version}` : `api/${gv.version}`);

/** the schema name upstream uses: io.k8s.api.<group's first label or core>.<version>.<Kind> */
function schemaName(gv: GroupVersion, kind: string): string {
  const g = gv.group === '' ? 'core' : gv.group.replace(/\.k8s\.io$/, '').replace(/\./g, '_');
  return `io.k8s.api.${g}.${gv.version}.${kind}`;
}

function queryParam(name: string, description: string): object {
  return { name, in: 'query', description, schema: { type: 'string' }, uniqueItems: true };
}

const WRITE_PARAMS = [
  queryParam('dryRun', 'When present, indicates that modifications should not be persisted.'),
  queryParam('fieldManager', 'A name associated with the actor or entity that is making these changes.'),
  queryParam('fieldValidation', 'How the server handles unknown fields: Ignore, Warn or Strict.'),
];

function groupVersionDoc(cat: Catalog, gv: GroupVersion): object {
  const paths: Record<string, object> = {};
  const schemas: Record<string, object> = {};
  for (const r of gv.resources) {
    const gvk = { group: gv.group, version: gv.version, kind: r.info.kind };
    const ref = { $ref: `${V3}${schemaName(gv, r.info.kind)}` };
    const body = { content: { 'application/json': { schema: ref } }, required: true };
    const ok = { '200': { description: 'OK', content: { 'application/json': { schema: ref } } } };
    const base = `/${gvPath(gv)}${r.info.namespaced ? '/namespaces/{namespace}' : ''}/${r.info.resource}`;
    const op = (verb: string, extra: object = {}) => ({
      operationId: `${verb}${r.info.kind}`,
      'x-kubernetes-action': verb,
      'x-kubernetes-group-version-kind': gvk,
      responses: ok,
      ...extra,
    });
    paths[base] = {
      get: op('list'),
      post: op('post', { parameters: WRITE_PARAMS, requestBody: body }),
      delete: op('deletecollection'),
    };
    paths[`${base}/{name}`] = {
      get: op('get'),
      put: op('put', { parameters: WRITE_PARAMS, requestBody: body }),
      patch: op('patch', {
        parameters: [...WRITE_PARAMS, queryParam('force', 'Force is going to "force" Apply requests.')],
        requestBody: {
          content: { 'application/merge-patch+json': { schema: { type: 'object' } } },
          required: true,
        },
      }),
      delete: op('delete'),
    };
    const def = schemaOf(cat, r.info, gv.version);
    if (def) {
      ref.$ref = `${V3}${def.name}`;
      schemas[def.name] = def.schema;
    } else
      schemas[schemaName(gv, r.info.kind)] = {
        type: 'object',
        description: `${r.info.kind} (a kind of kubesim's own: no schema)`,
        'x-kubernetes-preserve-unknown-fields': true,
        'x-kubernetes-group-version-kind': [gvk],
      };
  }
  closure(schemas);
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: KUBERNETES_VERSION.gitVersion },
    paths,
    components: { schemas: v3Refs(schemas) },
  };
}

function hashOf(doc: object): string {
  return createHash('sha512').update(JSON.stringify(doc)).digest('hex').slice(0, 128).toUpperCase();
}

/**
 * the protobuf form of the last document asked for, by what varies in it (the served paths and the
 * custom kinds' definitions): encoding all of it takes a second or two
 */
let lastV2: { key: string; bytes: Uint8Array } | undefined;

function protobufV2(doc: ReturnType<typeof swaggerDoc>): Uint8Array {
  const upstream = upstreamSwagger().definitions;
  const key = JSON.stringify([
    Object.keys(doc.paths),
    Object.entries(doc.definitions).filter(([name]) => !(name in upstream)),
  ]);
  if (lastV2?.key !== key) lastV2 = { key, bytes: encodeOpenApiV2(doc) };
  return lastV2.bytes;
}

/** Serves `/openapi/v2`, `/openapi/v3` and `/openapi/v3/<gv>`. */
export const openapiRoute =
  (cat: Catalog) =>
  async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> => {
    if (req.method !== 'GET') return false;
    if (url.pathname.replace(/\/+$/, '') === '/openapi/v2') {
      // the first media type of the Accept header that kubesim can write (client-go's
      // OpenAPISchema() accepts the protobuf form alone)
      const accept = req.headers.accept ?? '';
      const wanted = accept
        .split(',')
        .map((t) => t.split(';')[0]!.trim())
        .find((t) => V2_TYPES.includes(t));
      if (accept && !wanted) throw notAcceptable(V2_TYPES.join(', '));
      if (wanted && wanted !== 'application/json' && !wanted.includes('*')) {
        const bytes = protobufV2(swaggerDoc(cat));
        // answered under the dotted name whichever was asked: Go's mime parser (client-go's
        // response decoding) refuses the `@` of the other (kube-openapi's handler does the same)
        res.writeHead(200, { 'Content-Type': V2_TYPES[2]!, 'Content-Length': bytes.length });
        res.end(bytes);
      } else sendJson(res, 200, swaggerDoc(cat));
      return true;
    }
    if (!url.pathname.startsWith('/openapi/v3')) return false;
    const rest = url.pathname.slice('/openapi/v3'.length).replace(/^\/+|\/+$/g, '');
    const gvs = groupVersions(cat);
    if (rest === '') {
      const paths: Record<string, object> = {};
      for (const gv of gvs)
        paths[gvPath(gv)] = {
          serverRelativeURL: `/openapi/v3/${gvPath(gv)}?hash=${hashOf(groupVersionDoc(cat, gv))}`,
        };
      sendJson(res, 200, { paths });
      return true;
    }
    const gv = gvs.find((x) => gvPath(x) === rest);
    if (!gv) return false;
    sendJson(res, 200, groupVersionDoc(cat, gv));
    return true;
  };

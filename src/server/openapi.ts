/**
 * OpenAPI v3 documents for the served kinds: `/openapi/v3` (the index of group versions) and
 * `/openapi/v3/<api|apis/g>/<v>` (paths and schemas), built from the registry like discovery.
 *
 * kubectl ≥ 1.27 reads them before `apply`/`create`/`replace` to learn whether the server validates
 * fields itself: a PATCH operation tagged with the kind's `x-kubernetes-group-version-kind` that
 * takes a `fieldValidation` query parameter means yes, and kubectl then skips client-side schema
 * validation (upstream: staging/src/k8s.io/cli-runtime/pkg/resource/query_param_verifier_v3.go).
 * The schemas name each kind and keep unknown fields; they carry no field descriptions
 * (docs/server.md).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { KUBERNETES_VERSION } from '../api/kinds.js';
import { type GroupVersion, groupVersions } from './resources.js';
import { sendJson } from './respond.js';

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

function groupVersionDoc(gv: GroupVersion): object {
  const paths: Record<string, object> = {};
  const schemas: Record<string, object> = {};
  for (const r of gv.resources) {
    const gvk = { group: gv.group, version: gv.version, kind: r.info.kind };
    const ref = { $ref: `#/components/schemas/${schemaName(gv, r.info.kind)}` };
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
    schemas[schemaName(gv, r.info.kind)] = {
      type: 'object',
      description: `${r.info.kind} (served by kubesim; field descriptions are not included)`,
      properties: {
        apiVersion: {
          type: 'string',
          description: 'APIVersion defines the versioned schema of this representation of an object.',
        },
        kind: {
          type: 'string',
          description: 'Kind is a string value representing the REST resource this object represents.',
        },
        metadata: {
          type: 'object',
          description: "Standard object's metadata.",
          'x-kubernetes-preserve-unknown-fields': true,
        },
        spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
      'x-kubernetes-preserve-unknown-fields': true,
      'x-kubernetes-group-version-kind': [gvk],
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: KUBERNETES_VERSION.gitVersion },
    paths,
    components: { schemas },
  };
}

function hashOf(doc: object): string {
  return createHash('sha512').update(JSON.stringify(doc)).digest('hex').slice(0, 128).toUpperCase();
}

/** Serves `/openapi/v3` and `/openapi/v3/<gv>`. */
export async function openapiRoute(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  if (req.method !== 'GET' || !url.pathname.startsWith('/openapi/v3')) return false;
  const rest = url.pathname.slice('/openapi/v3'.length).replace(/^\/+|\/+$/g, '');
  const gvs = groupVersions();
  if (rest === '') {
    const paths: Record<string, object> = {};
    for (const gv of gvs)
      paths[gvPath(gv)] = {
        serverRelativeURL: `/openapi/v3/${gvPath(gv)}?hash=${hashOf(groupVersionDoc(gv))}`,
      };
    sendJson(res, 200, { paths });
    return true;
  }
  const gv = gvs.find((x) => gvPath(x) === rest);
  if (!gv) return false;
  sendJson(res, 200, groupVersionDoc(gv));
  return true;
}

/**
 * `/api/v1/componentstatuses` for `kubectl get componentstatuses` (upstream:
 * pkg/registry/core/componentstatus/rest.go, deprecated since v1.19 and still served): the
 * scheduler, the controller manager and the store, each with a `Healthy` condition. The scheduler
 * and the controllers run inside kubesim's simulation and the store answers in-process, so each is
 * reported healthy with the message `ok`, as kube-apiserver does when its probes succeed; the
 * store is named `etcd-0` as upstream names its first storage backend. Every answer carries the
 * deprecation warning kube-apiserver adds.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceInfo } from '../api/registry.js';
import { negotiate } from './negotiate.js';
import { addWarnings, pathNotFound, sendJson } from './respond.js';

const PATH = /^\/api\/v1\/componentstatuses(?:\/([^/]+))?\/?$/;
const COMPONENTS = ['scheduler', 'controller-manager', 'etcd-0'];

/** What discovery lists for the kind (core v1, cluster-scoped, short name `cs`). */
export const COMPONENT_STATUS_KIND: ResourceInfo = {
  kind: 'ComponentStatus',
  resource: 'componentstatuses',
  singular: 'componentstatus',
  group: '',
  version: 'v1',
  apiVersion: 'v1',
  versions: ['v1'],
  namespaced: false,
  hasStatus: false,
  allowCreateOnUpdate: false,
  shortNames: ['cs'],
  categories: [],
  nameRule: 'any',
  storageResource: 'componentstatuses',
  qualifiedResource: { name: 'componentstatuses', group: '' },
  qualifiedKind: { name: 'ComponentStatus', group: '' },
};

const status = (name: string) => ({
  kind: 'ComponentStatus',
  apiVersion: 'v1',
  metadata: { name },
  conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }],
});

/** Answers GET `/api/v1/componentstatuses[/<name>]` (JSON or a Table); false for other requests. */
export async function componentStatusRoute(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<boolean> {
  const m = PATH.exec(url.pathname);
  if (!m || req.method !== 'GET') return false;
  const name = m[1] && decodeURIComponent(m[1]);
  if (name && !COMPONENTS.includes(name)) throw pathNotFound();
  const items = (name ? [name] : COMPONENTS).map(status);
  addWarnings(res, ['v1 ComponentStatus is deprecated in v1.19+']);
  const rep = negotiate(req.headers.accept, { protobuf: false });
  if (rep?.as === 'Table') {
    sendJson(res, 200, {
      kind: 'Table',
      apiVersion: `meta.k8s.io/${rep.version}`,
      metadata: {},
      columnDefinitions: [
        { name: 'Name', type: 'string', format: 'name', description: 'Name of the component', priority: 0 },
        {
          name: 'Status',
          type: 'string',
          format: '',
          description: 'Status of the component conditions',
          priority: 0,
        },
        {
          name: 'Message',
          type: 'string',
          format: '',
          description: 'Message of the component conditions',
          priority: 0,
        },
        {
          name: 'Error',
          type: 'string',
          format: '',
          description: 'Error of the component conditions',
          priority: 0,
        },
      ],
      rows: items.map((o) => ({
        cells: [o.metadata.name, 'Healthy', 'ok', ''],
        object: {
          kind: 'PartialObjectMetadata',
          apiVersion: `meta.k8s.io/${rep.version}`,
          metadata: o.metadata,
        },
      })),
    });
    return true;
  }
  sendJson(
    res,
    200,
    name ? items[0] : { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {}, items },
  );
  return true;
}

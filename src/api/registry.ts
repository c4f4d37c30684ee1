/**
 * The kinds kubesim serves: kind ↔ plural resource, API group/version, scope, subresources,
 * and etcd storage keys.
 *
 * Keys follow the contract in DESIGN.md: `/registry/<resource>/<namespace>/<name>` for namespaced
 * kinds and `/registry/<resource>/<name>` for cluster-scoped ones. (Real kube-apiserver differs
 * for two kinds — nodes live under `/registry/minions/` and services under
 * `/registry/services/specs/` — kubesim keeps the uniform scheme; see docs/api.md.)
 */
import type { Qualified } from './errors.js';

export interface ResourceInfo {
  kind: string;
  /** plural lowercase resource name */
  resource: string;
  /** API group ('' = core) */
  group: string;
  version: string;
  /** `v1`, `apps/v1`, … */
  apiVersion: string;
  namespaced: boolean;
  /** has a /status subresource (update ignores .status, updateStatus only changes .status) */
  hasStatus: boolean;
  /** PUT of a missing object creates it (Lease, Event — AllowCreateOnUpdate) */
  allowCreateOnUpdate: boolean;
  shortNames: string[];
  /** for error messages: `pods`, `deployments.apps` */
  qualifiedResource: Qualified;
  /** for Invalid messages: `Pod`, `Deployment.apps` */
  qualifiedKind: Qualified;
}

function info(
  kind: string,
  resource: string,
  group: string,
  namespaced: boolean,
  hasStatus: boolean,
  shortNames: string[],
  allowCreateOnUpdate = false,
): ResourceInfo {
  return {
    kind,
    resource,
    group,
    version: 'v1',
    apiVersion: group ? `${group}/v1` : 'v1',
    namespaced,
    hasStatus,
    allowCreateOnUpdate,
    shortNames,
    qualifiedResource: { name: resource, group },
    qualifiedKind: { name: kind, group },
  };
}

/** Every kind kubesim serves, in a stable order. */
export const RESOURCES: readonly ResourceInfo[] = [
  info('Namespace', 'namespaces', '', false, true, ['ns']),
  info('Node', 'nodes', '', false, true, ['no']),
  info('Pod', 'pods', '', true, true, ['po']),
  info('Service', 'services', '', true, true, ['svc']),
  info('Event', 'events', '', true, false, ['ev'], true),
  info('Deployment', 'deployments', 'apps', true, true, ['deploy']),
  info('ReplicaSet', 'replicasets', 'apps', true, true, ['rs']),
  info('EndpointSlice', 'endpointslices', 'discovery.k8s.io', true, false, []),
  info('Lease', 'leases', 'coordination.k8s.io', true, false, [], true),
];

const byResource = new Map<string, ResourceInfo>();
const byKind = new Map<string, ResourceInfo>();
for (const r of RESOURCES) {
  byResource.set(r.resource, r);
  byKind.set(r.kind, r);
  for (const s of r.shortNames) byResource.set(s, r);
  byResource.set(r.kind.toLowerCase(), r);
  if (r.group) byResource.set(`${r.resource}.${r.group}`, r);
}

/**
 * Resource info by plural (`pods`), singular (`pod`), short name (`po`) or `resource.group`
 * (`deployments.apps`); undefined when unknown.
 */
export function lookupResource(name: string): ResourceInfo | undefined {
  return byResource.get(name) ?? byResource.get(name.toLowerCase());
}

/**
 * Resource info for an object's apiVersion and kind. `events.k8s.io/v1` Events are accepted as
 * the core Event kind (same storage, as upstream). Returns undefined when unknown or when the
 * apiVersion is not the kind's group/version.
 */
export function lookupKind(
  apiVersion: string | undefined,
  kind: string | undefined,
): ResourceInfo | undefined {
  if (!kind) return undefined;
  const r = byKind.get(kind);
  if (!r) return undefined;
  if (apiVersion === r.apiVersion) return r;
  if (kind === 'Event' && apiVersion === 'events.k8s.io/v1') return r;
  return undefined;
}

/** All API versions a kind is known under (for "no matches for kind" messages). */
export function knownApiVersionsFor(kind: string): string[] {
  const r = byKind.get(kind);
  if (!r) return [];
  return kind === 'Event' ? [r.apiVersion, 'events.k8s.io/v1'] : [r.apiVersion];
}

/** `/registry/<resource>/` or `/registry/<resource>/<namespace>/` — the prefix a list/watch ranges over. */
export function storagePrefix(info: ResourceInfo, namespace?: string): string {
  return info.namespaced && namespace
    ? `/registry/${info.resource}/${namespace}/`
    : `/registry/${info.resource}/`;
}

/** The storage key of one object. */
export function storageKey(info: ResourceInfo, namespace: string | undefined, name: string): string {
  return info.namespaced
    ? `/registry/${info.resource}/${namespace ?? ''}/${name}`
    : `/registry/${info.resource}/${name}`;
}

/** etcd's prefix range end: the prefix with its last byte incremented. */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/**
 * The resources `kubesim serve` exposes, derived from the ApiServer's kind registry each time they
 * are asked for, so kinds added to the registry (built-in kinds, CRDs) are served with no change
 * here. Adds what discovery tells clients beyond the registry: verbs, categories (`kubectl get all`)
 * and subresources (upstream: each kind's REST storage in pkg/registry/<group>/<kind>/storage).
 */
import { hpaToV1 } from '../api/autoscaling-convert.js';
import type { KindRegistry, ResourceInfo } from '../api/registry.js';
import { resourceObjectFromV1 } from '../api/resource-convert.js';
import { RESOURCE_GROUP } from '../api/resource-types.js';

// biome-ignore lint/suspicious/noExplicitAny: CRD objects are arbitrary JSON
type Obj = any;

/**
 * What the HTTP layer serves: the ApiServer's kinds, and the CRD objects behind the custom ones
 * (their subresources, printer columns and schemas; crd-controller.ts keeps the map).
 */
export interface Catalog {
  kinds: KindRegistry;
  crds: Map<string, Obj>;
  /** kinds served by routes of their own (metrics.k8s.io), listed in discovery only */
  extra?: readonly ResourceInfo[];
  /** group versions off by default that the server was told to serve ({@link OPTIONAL_VERSIONS}) */
  enabled?: ReadonlySet<string>;
}

/**
 * Group versions kube-apiserver v1.34 can serve but leaves off unless `--runtime-config` enables
 * them (upstream: pkg/controlplane/instance.go betaAPIGroupVersionsDisabledByDefault; KEP-3136
 * "beta APIs off by default"). Stored as v1, converted on the way in (api/defaults.ts) and out
 * ({@link asServed}).
 */
export const OPTIONAL_VERSIONS: readonly string[] = [
  `${RESOURCE_GROUP}/v1beta2`,
  `${RESOURCE_GROUP}/v1beta1`,
];

export const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** Kinds in the `all` category (upstream: each storage's Categories()). */
const ALL_CATEGORY = new Set([
  'pods',
  'services',
  'replicationcontrollers',
  'deployments',
  'replicasets',
  'statefulsets',
  'daemonsets',
  'jobs',
  'cronjobs',
  'horizontalpodautoscalers',
]);

/** Kinds with a /scale subresource and the group/version/kind it answers with. */
const SCALE_KINDS = new Set(['deployments', 'replicasets', 'statefulsets', 'replicationcontrollers']);

export interface Subresource {
  name: string;
  verbs: string[];
  /** the kind the subresource reads and writes */
  kind: { group: string; version: string; kind: string };
}

export interface ServedResource {
  info: ResourceInfo;
  singular: string;
  categories: string[];
  subresources: Subresource[];
}

export interface GroupVersion {
  group: string;
  version: string;
  /** `v1` or `apps/v1` */
  groupVersion: string;
  resources: ServedResource[];
}

/** The CRD version object (`spec.versions[]`) behind a custom kind at a version. */
export function crdVersion(cat: Catalog, info: ResourceInfo, version: string): Obj | undefined {
  if (!info.crd) return undefined;
  return cat.crds.get(info.crd)?.spec?.versions?.find((v: Obj) => v?.name === version);
}

function served(cat: Catalog, preferred: ResourceInfo, version = preferred.version): ServedResource {
  const info =
    version === preferred.version || preferred.crd
      ? preferred
      : { ...preferred, version, apiVersion: `${preferred.group}/${version}` };
  const subresources: Subresource[] = [];
  if (info.crd) {
    const v = crdVersion(cat, info, version);
    if (v?.subresources?.status !== undefined)
      subresources.push({
        name: 'status',
        verbs: ['get', 'patch', 'update'],
        kind: { group: info.group, version, kind: info.kind },
      });
    if (v?.subresources?.scale)
      subresources.push({
        name: 'scale',
        verbs: ['get', 'patch', 'update'],
        kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      });
    const at = version === info.version ? info : { ...info, version, apiVersion: `${info.group}/${version}` };
    return { info: at, singular: info.singular, categories: [...info.categories], subresources };
  }
  if (info.hasStatus)
    subresources.push({
      name: 'status',
      verbs: ['get', 'patch', 'update'],
      kind: { group: info.group, version: info.version, kind: info.kind },
    });
  if (SCALE_KINDS.has(info.resource))
    subresources.push({
      name: 'scale',
      verbs: ['get', 'patch', 'update'],
      kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    });
  if (info.resource === 'pods' && info.group === '') {
    subresources.push({
      name: 'binding',
      verbs: ['create'],
      kind: { group: '', version: 'v1', kind: 'Binding' },
    });
    subresources.push({
      name: 'eviction',
      verbs: ['create'],
      kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
    });
  }
  return {
    info,
    singular: info.kind.toLowerCase(),
    categories: ALL_CATEGORY.has(info.resource) ? ['all'] : [],
    subresources,
  };
}

/**
 * Built-in kinds also served at an older version, converted on the way in (api/defaults.ts) and
 * out ({@link asServed}): autoscaling/v1 HorizontalPodAutoscaler, which `kubectl autoscale` posts.
 */
const CONVERTED: Record<string, readonly string[]> = { 'autoscaling/horizontalpodautoscalers': ['v1'] };

/** The versions a kind is served at: every served version of a CRD, the preferred (+ converted, + enabled) ones of a built-in. */
function versionsOf(cat: Catalog, info: ResourceInfo): readonly string[] {
  if (info.crd) return info.versions;
  const optional = OPTIONAL_VERSIONS.filter(
    (gv) => gv.startsWith(`${info.group}/`) && cat.enabled?.has(gv),
  ).map((gv) => gv.slice(info.group.length + 1));
  return [info.version, ...(CONVERTED[`${info.group}/${info.resource}`] ?? []), ...optional];
}

/** A stored object as the version `info` names shows it (conversion None for custom resources). */
export function asServed(info: ResourceInfo): (o: unknown) => unknown {
  if (info.crd) return (o) => ({ ...(o as object), apiVersion: info.apiVersion });
  if (info.kind === 'HorizontalPodAutoscaler' && info.apiVersion === 'autoscaling/v1')
    return (o) => hpaToV1(o as Record<string, unknown>);
  if (info.group === RESOURCE_GROUP && info.version !== 'v1')
    return (o) => resourceObjectFromV1(o as Record<string, unknown>, info.version);
  return (o) => o;
}

/** Every served group version, core (`v1`) first, in registry order. */
export function groupVersions(cat: Catalog): GroupVersion[] {
  const byGv = new Map<string, GroupVersion>();
  for (const info of [...cat.kinds.list(), ...(cat.extra ?? [])])
    for (const version of versionsOf(cat, info)) {
      const gv = info.group ? `${info.group}/${version}` : version;
      let entry = byGv.get(gv);
      if (!entry) {
        entry = { group: info.group, version, groupVersion: gv, resources: [] };
        byGv.set(gv, entry);
      }
      entry.resources.push(served(cat, info, version));
    }
  return [...byGv.values()].sort((a, b) => (a.group === '' ? -1 : b.group === '' ? 1 : 0));
}

/** The resource a path names in a group version, or undefined when it is not served. */
export function findResource(
  cat: Catalog,
  group: string,
  version: string,
  resource: string,
): ServedResource | undefined {
  for (const info of cat.kinds.list())
    if (info.group === group && info.resource === resource && versionsOf(cat, info).includes(version))
      return served(cat, info, version);
  return undefined;
}

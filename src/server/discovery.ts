/**
 * Discovery documents: what clients read before anything else to learn which resources exist.
 *
 *  - legacy: `/api` (APIVersions), `/apis` (APIGroupList), `/apis/<g>` (APIGroup), `/api/v1` and
 *    `/apis/<g>/<v>` (APIResourceList, subresources as `pods/status` entries);
 *  - aggregated (apidiscovery.k8s.io v2 / v2beta1): one APIGroupDiscoveryList per `/api` and `/apis`,
 *    sent only when the client's Accept header asks for it, as kubectl ≥ 1.30 does
 *    (upstream: staging/src/k8s.io/apiserver/pkg/endpoints/discovery/aggregated/handler.go);
 *  - `/version`.
 */
import { KUBERNETES_VERSION } from '../api/kinds.js';
import type { GroupVersion, ServedResource } from './resources.js';
import { type Catalog, VERBS, groupVersions } from './resources.js';

export function versionInfo(kubesimVersion: string): Record<string, string> {
  return {
    major: KUBERNETES_VERSION.major,
    minor: KUBERNETES_VERSION.minor,
    gitVersion: `${KUBERNETES_VERSION.gitVersion}+kubesim-${kubesimVersion}`,
    gitCommit: '',
    gitTreeState: 'clean',
    buildDate: '1970-01-01T00:00:00Z',
    goVersion: '',
    compiler: 'kubesim',
    platform: `${process.platform}/${process.arch}`,
  };
}

export function apiVersions(serverAddress: string): object {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupsOf(cat: Catalog): Map<string, GroupVersion[]> {
  const groups = new Map<string, GroupVersion[]>();
  for (const gv of groupVersions(cat)) {
    if (gv.group === '') continue;
    const list = groups.get(gv.group) ?? [];
    list.push(gv);
    groups.set(gv.group, list);
  }
  return groups;
}

function apiGroup(name: string, gvs: GroupVersion[]): object {
  const versions = gvs.map((gv) => ({ groupVersion: gv.groupVersion, version: gv.version }));
  return { name, versions, preferredVersion: versions[0] };
}

export function apiGroupList(cat: Catalog): object {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...groupsOf(cat)].map(([name, gvs]) => apiGroup(name, gvs)),
  };
}

/** `/apis/<group>`; undefined when the group is not served. */
export function apiGroupDoc(cat: Catalog, group: string): object | undefined {
  const gvs = groupsOf(cat).get(group);
  if (!gvs) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group, gvs) };
}

/** `/api/v1`, `/apis/<g>/<v>`; undefined when the group version is not served. */
export function apiResourceList(cat: Catalog, group: string, version: string): object | undefined {
  const gv = groupVersions(cat).find((x) => x.group === group && x.version === version);
  if (!gv) return undefined;
  const resources: object[] = [];
  for (const r of gv.resources) {
    resources.push({
      name: r.info.resource,
      singularName: r.singular,
      namespaced: r.info.namespaced,
      kind: r.info.kind,
      verbs: VERBS,
      ...(r.info.shortNames.length ? { shortNames: r.info.shortNames } : {}),
      ...(r.categories.length ? { categories: r.categories } : {}),
    });
    for (const s of r.subresources) {
      const crossGroup = s.kind.group !== r.info.group || s.kind.version !== r.info.version;
      resources.push({
        name: `${r.info.resource}/${s.name}`,
        singularName: '',
        namespaced: r.info.namespaced,
        ...(crossGroup ? { group: s.kind.group, version: s.kind.version } : {}),
        kind: s.kind.kind,
        verbs: s.verbs,
      });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv.groupVersion, resources };
}

function discoveryResource(r: ServedResource): object {
  return {
    resource: r.info.resource,
    responseKind: { group: r.info.group, version: r.info.version, kind: r.info.kind },
    scope: r.info.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singular,
    verbs: VERBS,
    ...(r.info.shortNames.length ? { shortNames: r.info.shortNames } : {}),
    ...(r.categories.length ? { categories: r.categories } : {}),
    ...(r.subresources.length
      ? {
          subresources: r.subresources.map((s) => ({
            subresource: s.name,
            responseKind: s.kind,
            verbs: s.verbs,
          })),
        }
      : {}),
  };
}

/**
 * The aggregated document for `/api` (legacy: the core group only) or `/apis` (every other group),
 * in the requested apidiscovery version (`v2` or `v2beta1`: same shape).
 */
export function aggregatedDiscovery(cat: Catalog, legacy: boolean, apiVersion: 'v2' | 'v2beta1'): object {
  const items: object[] = [];
  if (legacy) {
    const core = groupVersions(cat).filter((gv) => gv.group === '');
    items.push({
      metadata: { creationTimestamp: null },
      versions: core.map((gv) => ({
        version: gv.version,
        resources: gv.resources.map(discoveryResource),
        freshness: 'Current',
      })),
    });
  } else {
    for (const [name, gvs] of groupsOf(cat)) {
      items.push({
        metadata: { name, creationTimestamp: null },
        versions: gvs.map((gv) => ({
          version: gv.version,
          resources: gv.resources.map(discoveryResource),
          freshness: 'Current',
        })),
      });
    }
  }
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${apiVersion}`,
    metadata: {},
    items,
  };
}

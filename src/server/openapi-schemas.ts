/**
 * The schemas of the OpenAPI documents: the pinned release's definitions, loaded as data
 * (k8s-data.ts), and one per custom kind and version from its CRD's `openAPIV3Schema`, named as
 * apiextensions-apiserver names them (the group's labels reversed, then version and kind:
 * `com.example.v1.Widget`; upstream: apiextensions-apiserver/pkg/controller/openapi/builder).
 */
import type { ResourceInfo } from '../api/registry.js';
import { definitionOf, refName, type Schema, type SwaggerDoc, upstreamSwagger } from './k8s-data.js';
import { crdVersion, type Catalog, groupVersions } from './resources.js';

// biome-ignore lint/suspicious/noExplicitAny: schemas are arbitrary JSON
type Obj = any;

export const V3 = '#/components/schemas/';
const V2 = '#/definitions/';
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

const crdName = (group: string, version: string, kind: string) =>
  `${group.split('.').reverse().join('.')}.${version}.${kind}`;

/** The schema of a served kind at a version: upstream's definition, or its CRD's schema. */
export function schemaOf(
  cat: Catalog,
  info: ResourceInfo,
  version: string,
): { name: string; schema: Obj } | undefined {
  if (!info.crd) {
    const name = definitionOf(info.group, version, info.kind);
    return name ? { name, schema: upstreamSwagger().definitions[name] } : undefined;
  }
  const v = crdVersion(cat, info, version);
  const s: Obj = structuredClone(
    v?.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  );
  s.properties = {
    apiVersion: {
      type: 'string',
      description: 'APIVersion defines the versioned schema of this representation of an object.',
    },
    kind: {
      type: 'string',
      description: 'Kind is a string value representing the REST resource this object represents.',
    },
    ...(s.properties ?? {}),
    metadata: { $ref: `${V2}${OBJECT_META}`, description: "Standard object's metadata." },
  };
  s['x-kubernetes-group-version-kind'] = [{ group: info.group, version, kind: info.kind }];
  return { name: crdName(info.group, version, info.kind), schema: s };
}

/** Add every upstream definition the schemas refer to, transitively. */
export function closure(schemas: Record<string, Obj>): void {
  const defs = upstreamSwagger().definitions;
  const unvisited = Object.values(schemas);
  const visit = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        if (k === '$ref' && typeof x === 'string') {
          const name = refName(x);
          if (!schemas[name] && defs[name]) {
            schemas[name] = defs[name];
            unvisited.push(defs[name]);
          }
        } else visit(x);
      }
  };
  while (unvisited.length) visit(unvisited.pop());
}

/**
 * The same schemas in v3 form, as kube-openapi writes them: references to `#/components/schemas/`,
 * and a reference with a description of its own wrapped in `allOf` (a v3 `$ref` hides its
 * siblings, and `kubectl explain` prints the field's description from the wrapper).
 */
export function v3Refs(schemas: Record<string, Obj>): Record<string, Obj> {
  return JSON.parse(JSON.stringify(schemas).replaceAll(`"${V2}`, `"${V3}`), (_k, v) => {
    if (v && typeof v === 'object' && typeof v.$ref === 'string' && Object.keys(v).length > 1) {
      const { $ref, ...rest } = v;
      return { ...rest, allOf: [{ $ref }] };
    }
    return v;
  });
}

/**
 * the package prefixes of upstream's definitions (`io.k8s.api.resource.v1beta1.`) by the group
 * version their kinds name (`resource.k8s.io/v1beta1`)
 */
let packages: Map<string, string> | undefined;

function packageOf(name: string): string {
  return name.slice(0, name.lastIndexOf('.') + 1);
}

function definitionPackages(): Map<string, string> {
  if (packages) return packages;
  packages = new Map();
  for (const [name, s] of Object.entries(upstreamSwagger().definitions))
    for (const g of s['x-kubernetes-group-version-kind'] ?? [])
      if (!packageOf(name).startsWith('io.k8s.apimachinery.'))
        packages.set(packageOf(name), g.group ? `${g.group}/${g.version}` : g.version);
  return packages;
}

/**
 * `/openapi/v2`: upstream's document with the paths of the group versions kubesim serves, the
 * definitions of their packages (those of an unserved version such as resource.k8s.io/v1beta1 are
 * left out, as kube-apiserver builds the document from the installed APIs: kubectl's validation
 * then finds no schema and the mapping answers `no matches for kind`), and the definitions of
 * every custom kind added.
 */
export function swaggerDoc(cat: Catalog): SwaggerDoc {
  const up = upstreamSwagger();
  const served = groupVersions(cat);
  const prefixes = served.map((gv) =>
    gv.group ? `/apis/${gv.group}/${gv.version}/` : `/api/${gv.version}/`,
  );
  const paths: SwaggerDoc['paths'] = {};
  for (const [p, v] of Object.entries(up.paths)) if (prefixes.some((x) => p.startsWith(x))) paths[p] = v;
  const servedGvs = new Set(served.map((gv) => gv.groupVersion));
  const pkgs = definitionPackages();
  const definitions: Record<string, Schema> = {};
  for (const [name, s] of Object.entries(up.definitions)) {
    const gv = pkgs.get(packageOf(name));
    if (gv === undefined || servedGvs.has(gv)) definitions[name] = s;
  }
  for (const info of cat.kinds.list())
    if (info.crd)
      for (const version of info.versions) {
        const s = schemaOf(cat, info, version);
        if (s) definitions[s.name] = s.schema;
      }
  return { ...up, info: { title: 'Kubernetes', version: 'v1.34.0' }, paths, definitions };
}

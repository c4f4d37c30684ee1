/**
 * The kinds an ApiServer serves: kind ↔ plural resource, API group and versions, scope,
 * subresources, and etcd storage keys. Built-in kinds come from the table in kinds.ts; a
 * {@link KindRegistry} adds the kinds CustomResourceDefinitions define, at run time.
 *
 * Keys follow the contract in DESIGN.md: `/registry/<resource>/<namespace>/<name>` for namespaced
 * kinds and `/registry/<resource>/<name>` for cluster-scoped ones; custom resources live under
 * `/registry/<group>/<resource>/…` as apiextensions-apiserver stores them. (Real kube-apiserver
 * differs for two built-in kinds — nodes live under `/registry/minions/` and services under
 * `/registry/services/specs/` — kubesim keeps the uniform scheme; see docs/api.md.)
 */
import type { Qualified } from './errors.js';
import { BUILTIN_KINDS, KIND_ALIASES, type KindRow, type NameRule } from './kinds.js';

export interface ResourceInfo {
  kind: string;
  /** plural lowercase resource name */
  resource: string;
  /** lowercase singular name */
  singular: string;
  /** API group ('' = core) */
  group: string;
  /** the preferred version */
  version: string;
  /** `v1`, `apps/v1`, … (the preferred version) */
  apiVersion: string;
  /** every version served, preferred first */
  versions: readonly string[];
  namespaced: boolean;
  /** has a /status subresource (update ignores .status, updateStatus only changes .status) */
  hasStatus: boolean;
  /** PUT of a missing object creates it (Lease, Event — AllowCreateOnUpdate) */
  allowCreateOnUpdate: boolean;
  shortNames: readonly string[];
  categories: readonly string[];
  /** how metadata.name is validated */
  nameRule: NameRule;
  /** the path under /registry/ (`pods`; `<group>/<plural>` for custom resources) */
  storageResource: string;
  /** the CustomResourceDefinition that defines this kind (custom resources only) */
  crd?: string;
  /** for error messages: `pods`, `deployments.apps` */
  qualifiedResource: Qualified;
  /** for Invalid messages: `Pod`, `Deployment.apps` */
  qualifiedKind: Qualified;
}

/** What a CustomResourceDefinition declares about its kind (spec.group, spec.names, …). */
export interface CustomKind {
  /** the CRD's metadata.name (`<plural>.<group>`) */
  crd: string;
  group: string;
  kind: string;
  plural: string;
  singular?: string;
  shortNames?: string[];
  categories?: string[];
  namespaced: boolean;
  /** served versions, storage version first */
  versions: string[];
  hasStatus: boolean;
}

function fromRow(r: KindRow): ResourceInfo {
  const version = r.versions[0]!;
  return {
    kind: r.kind,
    resource: r.resource,
    singular: r.kind.toLowerCase(),
    group: r.group,
    version,
    apiVersion: r.group ? `${r.group}/${version}` : version,
    versions: r.versions,
    namespaced: r.namespaced,
    hasStatus: r.status,
    allowCreateOnUpdate: r.createOnUpdate,
    shortNames: r.shortNames,
    categories: r.categories,
    nameRule: r.name,
    storageResource: r.resource,
    qualifiedResource: { name: r.resource, group: r.group },
    qualifiedKind: { name: r.kind, group: r.group },
  };
}

function fromCustom(c: CustomKind): ResourceInfo {
  const version = c.versions[0]!;
  return {
    kind: c.kind,
    resource: c.plural,
    singular: c.singular || c.kind.toLowerCase(),
    group: c.group,
    version,
    apiVersion: `${c.group}/${version}`,
    versions: c.versions,
    namespaced: c.namespaced,
    hasStatus: c.hasStatus,
    allowCreateOnUpdate: false,
    shortNames: c.shortNames ?? [],
    categories: c.categories ?? [],
    nameRule: 'subdomain',
    storageResource: `${c.group}/${c.plural}`,
    crd: c.crd,
    qualifiedResource: { name: c.plural, group: c.group },
    qualifiedKind: { name: c.kind, group: c.group },
  };
}

/** `group/version` of an object's apiVersion (`v1` → group ''). */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/**
 * A set of served kinds: the built-ins plus the custom kinds registered from CRDs. Lookups by
 * resource name accept the plural, singular, short names and `resource.group`, as kubectl does.
 */
export class KindRegistry {
  private readonly all: ResourceInfo[] = [];
  /** `group\u0000kind` → info */
  private readonly byGroupKind = new Map<string, ResourceInfo>();
  /** kind → infos of every group that has it */
  private readonly byKind = new Map<string, ResourceInfo[]>();
  private readonly byName = new Map<string, ResourceInfo>();

  constructor(rows: readonly KindRow[] = BUILTIN_KINDS) {
    for (const r of rows) this.add(fromRow(r));
  }

  /** Every served kind, built-ins first. */
  list(): readonly ResourceInfo[] {
    return this.all;
  }

  /** Register (or replace) the kind a CRD defines. */
  registerCustom(c: CustomKind): ResourceInfo {
    this.removeCustom(c.crd);
    const info = fromCustom(c);
    this.add(info);
    return info;
  }

  /** Forget the kind a CRD defined (when the CRD is deleted). */
  removeCustom(crd: string): void {
    const old = this.all.find((r) => r.crd === crd);
    if (!old) return;
    this.all.splice(this.all.indexOf(old), 1);
    this.byGroupKind.delete(`${old.group}\u0000${old.kind}`);
    const same = (this.byKind.get(old.kind) ?? []).filter((r) => r !== old);
    if (same.length) this.byKind.set(old.kind, same);
    else this.byKind.delete(old.kind);
    for (const [k, v] of this.byName) if (v === old) this.byName.delete(k);
    // another custom kind may share a name the removed one held
    for (const r of this.all) this.indexNames(r);
  }

  /**
   * Resource info by plural (`pods`), singular (`pod`), short name (`po`) or `resource.group`
   * (`deployments.apps`); undefined when unknown.
   */
  lookupResource(name: string): ResourceInfo | undefined {
    return this.byName.get(name) ?? this.byName.get(name.toLowerCase());
  }

  /**
   * Resource info for an object's apiVersion and kind. `events.k8s.io/v1` Events are accepted as
   * the core Event kind (same storage, as upstream). Returns undefined when the kind is unknown in
   * that group or the version is not served.
   */
  lookupKind(apiVersion: string | undefined, kind: string | undefined): ResourceInfo | undefined {
    if (!kind || !apiVersion) return undefined;
    const alias = KIND_ALIASES[`${apiVersion} ${kind}`];
    if (alias) return this.byGroupKind.get(`\u0000${alias}`);
    const { group, version } = splitApiVersion(apiVersion);
    const r = this.byGroupKind.get(`${group}\u0000${kind}`);
    return r?.versions.includes(version) ? r : undefined;
  }

  /** All API versions a kind is served under, in any group (for "no matches for kind" messages). */
  knownApiVersionsFor(kind: string): string[] {
    const out: string[] = [];
    for (const r of this.byKind.get(kind) ?? [])
      for (const v of r.versions) out.push(r.group ? `${r.group}/${v}` : v);
    for (const key of Object.keys(KIND_ALIASES))
      if (KIND_ALIASES[key] === kind) out.push(key.slice(0, key.indexOf(' ')));
    return out;
  }

  /** Is any kind served in this API group? */
  hasGroup(group: string): boolean {
    return this.all.some((r) => r.group === group);
  }

  private add(info: ResourceInfo): void {
    this.all.push(info);
    this.byGroupKind.set(`${info.group}\u0000${info.kind}`, info);
    this.byKind.set(info.kind, [...(this.byKind.get(info.kind) ?? []), info]);
    this.indexNames(info);
  }

  /** Index a kind's names; a name taken already (a built-in's, first) is not shadowed. */
  private indexNames(info: ResourceInfo): void {
    const names = [info.resource, info.singular, ...info.shortNames];
    if (info.group) names.push(`${info.resource}.${info.group}`);
    for (const n of names) if (!this.byName.has(n)) this.byName.set(n, info);
  }
}

/** The built-in kinds alone (what a manifest can use without CRDs). */
export const BUILTIN_REGISTRY = new KindRegistry();

/** Every built-in kind, in table order. */
export const RESOURCES: readonly ResourceInfo[] = BUILTIN_REGISTRY.list();

/** {@link KindRegistry.lookupResource} over the built-in kinds. */
export function lookupResource(name: string): ResourceInfo | undefined {
  return BUILTIN_REGISTRY.lookupResource(name);
}

/** {@link KindRegistry.lookupKind} over the built-in kinds. */
export function lookupKind(
  apiVersion: string | undefined,
  kind: string | undefined,
): ResourceInfo | undefined {
  return BUILTIN_REGISTRY.lookupKind(apiVersion, kind);
}

/** {@link KindRegistry.knownApiVersionsFor} over the built-in kinds. */
export function knownApiVersionsFor(kind: string): string[] {
  return BUILTIN_REGISTRY.knownApiVersionsFor(kind);
}

/** `/registry/<resource>/` or `/registry/<resource>/<namespace>/` — the prefix a list/watch ranges over. */
export function storagePrefix(info: ResourceInfo, namespace?: string): string {
  return info.namespaced && namespace
    ? `/registry/${info.storageResource}/${namespace}/`
    : `/registry/${info.storageResource}/`;
}

/** The storage key of one object. */
export function storageKey(info: ResourceInfo, namespace: string | undefined, name: string): string {
  return info.namespaced
    ? `/registry/${info.storageResource}/${namespace ?? ''}/${name}`
    : `/registry/${info.storageResource}/${name}`;
}

/**
 * The apiserver's `no matches for kind` text, with what helps: the versions the kind is served
 * under, or for a group no built-in kind has, the CustomResourceDefinition that is missing.
 */
export function noMatchesMessage(kinds: KindRegistry, apiVersion: string, kind: string): string {
  const base = `no matches for kind "${kind}" in version "${apiVersion}"`;
  const known = kinds.knownApiVersionsFor(kind);
  if (known.length) return `${base} (${kind} is served as ${known.join(', ')})`;
  const { group } = splitApiVersion(apiVersion);
  if (!group || BUILTIN_REGISTRY.hasGroup(group)) return base;
  return `${base}: no CustomResourceDefinition defines kind ${kind} in group ${group} (the CRD <plural>.${group} is missing; ensure CRDs are installed first)`;
}

/**
 * The list maps of server-side apply: lists the pinned release's OpenAPI marks
 * `x-kubernetes-list-type: map` (src/api/listmap-table.ts) are associative lists keyed by all of
 * their `x-kubernetes-list-map-keys`, as structured-merge-diff types them
 * (typed/helpers.go keyedAssociativeListItemToPathElement, typed/validate.go, typed/merge.go).
 *
 *  - An applied configuration whose list map has two items with the same key is refused before
 *    anything merges (structuredMergeManager.Apply: "Don't allow duplicates in the applied
 *    object"): `failed to create typed patch object (ns/name; apps/v1, Kind=Deployment):
 *    .spec.template.spec.containers[name="app"].env: duplicate entries for key [name="A"]`, a plain
 *    Go error, so kube-apiserver answers 500 with no reason (responsewriters.ErrorToAPIStatus) and
 *    kubectl prints `Error from server: …`. Duplicates already stored are tolerated (the live
 *    object is typed with AllowDuplicates).
 *  - A missing key field takes its schema default (`+default` in k8s.io/api: a port's protocol
 *    "TCP", a LocalObjectReference's name ""), else is left out of the key; an item with no key
 *    field at all, a null or a non-map item is `element N: …`, and the rest of that list is not
 *    looked at (upstream bails on the list there).
 *  - Items merge by the whole key, so ports 53/TCP and 53/UDP stay two ports.
 *  - Sets (`x-kubernetes-list-type: set`: metadata.finalizers, a Node's podCIDRs, …) are
 *    associative lists keyed by the value itself (typed/helpers.go setItemToPathElement): a value
 *    applied twice is `.metadata.finalizers: duplicate entries for key [="example.com/a"]`, and a
 *    map, list or null item is `element N: …`.
 *  - Atomic maps and structs (`x-kubernetes-map-type: atomic`: a label selector, a node
 *    selector, a secretKeyRef, an owner reference, …) are one field: an applier owns the whole
 *    value (FieldsV1 `f:selector: {}`), and applying it replaces the live value whole, so a key
 *    left out is gone, not kept from the live object (typed/merge.go: an atomic map is a leaf).
 *  - Custom resources take theirs from the CRD version's schema ({@link listTypesOfSchema}), as
 *    apiextensions-apiserver builds the type converter from it: lists without
 *    x-kubernetes-list-type are atomic there.
 *
 * Simplified: the key values print as JSON (upstream uses Go's %q, which differs only for
 * non-ASCII and control characters); several errors print in document order (upstream walks Go
 * maps, whose order varies); a CRD schema's `additionalProperties` values are not looked into.
 */
import { ApiError } from '../api/errors.js';
import { ATOMIC_MAPS } from '../api/atomic-map-table.js';
import { LIST_MAPS, LIST_SETS } from '../api/listmap-table.js';

// biome-ignore lint/suspicious/noExplicitAny: applied configurations are arbitrary objects
type Obj = any;

const isMap = (v: unknown): v is Record<string, Obj> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The associative lists of a kind: list path (`a.b[].c`, as the table writes it) → key fields;
 * no key fields (`[]`) for a set. Every other list is atomic. An atomic map or struct's path maps
 * to {@link ATOMIC} (a path holds either a list or a map, so the two never meet).
 */
export type ListTypes = ReadonlyMap<string, readonly string[]>;

const NO_KEYS: readonly string[] = [];

/** the mark of an atomic map or struct in {@link ListTypes}, told apart by identity */
export const ATOMIC: readonly string[] = Object.freeze(['(atomic)']);

/** whether the map at `path` is atomic: applied, owned and replaced whole */
export const isAtomicMap = (types: ListTypes | undefined, path: string): boolean =>
  types?.get(path) === ATOMIC;

/** per apiVersion/kind, built once */
const TABLES = new Map<string, ListTypes | undefined>();

/**
 * The associative lists of a built-in kind, by path; undefined for a kind the table does not
 * know (custom resources: {@link listTypesOfSchema}).
 */
export function listMapsOf(apiVersion: string, kind: string): ListTypes | undefined {
  const id = `${apiVersion}/${kind}`;
  if (TABLES.has(id)) return TABLES.get(id);
  const entries = LIST_MAPS[id];
  const sets = LIST_SETS[id];
  const atomics = ATOMIC_MAPS[id];
  const table =
    entries || sets || atomics
      ? new Map([
          ...(entries ?? []).map((e) => {
            const at = e.indexOf(':');
            return [e.slice(0, at), e.slice(at + 1).split(',')] as const;
          }),
          ...(sets ?? []).map((p) => [p, NO_KEYS] as const),
          ...(atomics ?? []).map((p) => [p, ATOMIC] as const),
        ])
      : undefined;
  TABLES.set(id, table);
  return table;
}

const SCHEMA_TABLES = new WeakMap<object, ListTypes>();

/**
 * The associative lists of a custom resource, from its CRD version's `openAPIV3Schema`:
 * `x-kubernetes-list-type: map` with its `x-kubernetes-list-map-keys`, and `set`, below
 * `properties` and `items`, and objects marked `x-kubernetes-map-type: atomic`; metadata is
 * ObjectMeta's (ownerReferences by uid, each an atomic struct; finalizers a set), whatever the
 * schema says of it (apiextensions-apiserver's builder replaces it with ObjectMeta).
 */
export function listTypesOfSchema(schema: Obj): ListTypes {
  const cached = isMap(schema) ? SCHEMA_TABLES.get(schema) : undefined;
  if (cached) return cached;
  const table = new Map<string, readonly string[]>([
    ['metadata.ownerReferences', ['uid']],
    ['metadata.ownerReferences[]', ATOMIC],
    ['metadata.finalizers', NO_KEYS],
  ]);
  const walk = (s: Obj, path: string, depth: number): void => {
    if (!isMap(s) || depth > 64) return;
    if (path !== '' && s['x-kubernetes-map-type'] === 'atomic') table.set(path, ATOMIC);
    if (s.type === 'array' || s.items !== undefined) {
      const t = s['x-kubernetes-list-type'];
      const keys = s['x-kubernetes-list-map-keys'];
      if (t === 'map' && Array.isArray(keys) && keys.length > 0) table.set(path, keys.map(String));
      else if (t === 'set') table.set(path, NO_KEYS);
      walk(s.items, `${path}[]`, depth + 1);
      return;
    }
    if (!isMap(s.properties)) return;
    for (const [f, c] of Object.entries(s.properties)) {
      if (path === '' && f === 'metadata') continue;
      walk(c, path ? `${path}.${f}` : f, depth + 1);
    }
  };
  walk(schema, '', 0);
  if (isMap(schema)) SCHEMA_TABLES.set(schema, table);
  return table;
}

/** a set item's error, as typed/helpers.go setItemToPathElement words it */
function setItemError(item: unknown): string | undefined {
  if (item === null || item === undefined)
    return "associative list without keys has an element that's an explicit null";
  if (Array.isArray(item)) return 'not supported: associative list with lists as elements';
  if (isMap(item)) return "associative list without keys has an element that's a map type";
  return undefined;
}

/**
 * Key-field defaults of the list maps (`+default=` on the key fields in k8s.io/api's types.go):
 * ContainerPort.Protocol and ServicePort.Protocol "TCP"; LocalObjectReference.Name "" (the items
 * of imagePullSecrets).
 */
function keyDefault(path: string, field: string): unknown {
  if (field === 'protocol' && path.endsWith('ports')) return 'TCP';
  if (field === 'name' && path.endsWith('imagePullSecrets')) return '';
  return undefined;
}

/** An item's key, fields sorted by name (fieldpath's order), or why the item has none. */
export function itemKey(
  item: unknown,
  keys: readonly string[],
  path: string,
): { key: Record<string, unknown> } | { error: string } {
  if (item === null || item === undefined)
    return { error: 'associative list with keys may not have a null element' };
  if (!isMap(item)) return { error: 'associative list with keys may not have non-map elements' };
  const key: Record<string, unknown> = {};
  for (const f of [...keys].sort()) {
    if (f in item) key[f] = item[f];
    else {
      const d = keyDefault(path, f);
      if (d !== undefined) key[f] = d;
    }
  }
  if (Object.keys(key).length === 0)
    return {
      error: `associative list with keys has an element that omits all key fields [${keys
        .map((k) => JSON.stringify(k))
        .join(' ')}] (and doesn't have default values for any key fields)`,
    };
  return { key };
}

/** fieldpath.PathElement's form of a key, fields sorted by name: `[containerPort=80,protocol="TCP"]` */
export function keyString(key: Record<string, unknown>): string {
  return `[${Object.entries(key)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(',')}]`;
}

/**
 * Refuses an applied configuration whose list maps repeat a key or hold an item without one, as
 * structured-merge-diff's typing of the patch object does.
 */
export function checkAppliedListMaps(
  config: Obj,
  maps: ListTypes | undefined,
  gvk: { apiVersion: string; kind: string },
): void {
  if (!maps) return;
  const errs: string[] = [];
  const walk = (v: unknown, path: string, at: string): void => {
    if (Array.isArray(v)) {
      const keys = maps.get(path);
      if (!keys) {
        v.forEach((x, i) => walk(x, `${path}[]`, `${at}[${i}]`));
        return;
      }
      const seen = new Set<string>();
      if (keys.length === 0) {
        for (let i = 0; i < v.length; i++) {
          const bad = setItemError(v[i]);
          if (bad) {
            errs.push(`${at}: element ${i}: ${bad}`);
            return;
          }
          // fieldpath.PathElement's form of a value: [="a"], [=3]
          const s = `[=${JSON.stringify(v[i])}]`;
          if (seen.has(s)) errs.push(`${at}: duplicate entries for key ${s}`);
          seen.add(s);
        }
        return;
      }
      for (let i = 0; i < v.length; i++) {
        const k = itemKey(v[i], keys, path);
        if ('error' in k) {
          errs.push(`${at}: element ${i}: ${k.error}`);
          return;
        }
        const s = keyString(k.key);
        if (seen.has(s)) errs.push(`${at}: duplicate entries for key ${s}`);
        seen.add(s);
        walk(v[i], `${path}[]`, `${at}${s}`);
      }
    } else if (isMap(v)) {
      for (const [f, c] of Object.entries(v)) walk(c, path ? `${path}.${f}` : f, `${at}.${f}`);
    }
  };
  walk(config, '', '');
  if (errs.length === 0) return;
  const m = isMap(config.metadata) ? config.metadata : {};
  const [group, version] = gvk.apiVersion.includes('/') ? gvk.apiVersion.split('/') : ['', gvk.apiVersion];
  const what = `${m.namespace ?? ''}/${m.name ?? ''}; ${group}/${version}, Kind=${gvk.kind}`;
  const detail = errs.length === 1 ? errs[0] : ['errors:', ...errs.map((e) => `  ${e}`)].join('\n');
  // a plain error upstream, which ErrorToAPIStatus answers as 500 with StatusReasonUnknown ("")
  throw new ApiError(500, '' as never, `failed to create typed patch object (${what}): ${detail}`);
}

/**
 * Merges an applied list map into the live one by key, in structured-merge-diff's order
 * (typed/merge.go visitListItems): the applied items in their order, items only the live list has
 * kept in place between them, and an item both lists have merged with `mergeItem`.
 */
export function mergeListMap(
  live: Obj[],
  applied: Obj[],
  keys: readonly string[],
  path: string,
  mergeItem: (live: Obj, applied: Obj) => Obj,
): Obj[] {
  const id = (x: Obj) => {
    if (keys.length === 0) return `[=${JSON.stringify(x)}]`;
    const k = itemKey(x, keys, path);
    return 'key' in k ? keyString(k.key) : `\u0000${JSON.stringify(x)}`;
  };
  const lIds = live.map(id);
  const rIds = applied.map(id);
  // a key the live list holds twice (stored before apply refused duplicates) merges with nothing:
  // the applied item replaces all of them
  const liveBy = new Map<string, Obj>();
  const twice = new Set<string>();
  lIds.forEach((k, i) => {
    if (liveBy.has(k)) twice.add(k);
    else liveBy.set(k, live[i]);
  });
  for (const k of twice) liveBy.set(k, undefined);
  const inApplied = new Set(rIds);
  // the items both lists hold, in the applied order: each is placed where the applied list has it
  const shared = rIds.filter((k) => liveBy.has(k));
  let nextShared = 0;
  const merged = new Set<string>();
  const out: Obj[] = [];
  const takeApplied = (r: number) => {
    const k = rIds[r]!;
    merged.add(k);
    const was = liveBy.get(k);
    out.push(was !== undefined ? mergeItem(was, applied[r]) : structuredClone(applied[r]));
    if (shared[nextShared] === k) nextShared++;
  };
  let l = 0;
  let r = 0;
  while (l < live.length || r < applied.length) {
    if (l < live.length && r < applied.length) {
      if (lIds[l] === rIds[r]) {
        takeApplied(r);
        l++;
        r++;
        continue;
      }
      // a shared live item that is not the next one the applied order places: it comes later
      if (inApplied.has(lIds[l]!) && nextShared < shared.length && shared[nextShared] !== lIds[l]) {
        l++;
        continue;
      }
    }
    if (l < live.length) {
      if (!inApplied.has(lIds[l]!)) {
        out.push(live[l]);
        l++;
        continue;
      }
      if (merged.has(lIds[l]!)) l++;
    }
    if (r < applied.length) {
      takeApplied(r);
      r++;
    }
  }
  return out;
}

/**
 * The live object with an applied configuration merged in: maps merge field by field (`null`
 * removes) except atomic ones, which are replaced whole; list maps by key and sets by value
 * ({@link mergeListMap}); every other list is atomic and replaced (upstream's default for a list
 * without x-kubernetes-list-type).
 */
export function mergeApplied(live: Obj, config: Obj, maps: ListTypes): Obj {
  const mergeObj = (orig: Record<string, Obj>, patch: Record<string, Obj>, path: string) => {
    for (const [k, v] of Object.entries(patch)) {
      const child = path ? `${path}.${k}` : k;
      if (v === null) delete orig[k];
      else orig[k] = mergeValue(orig[k], v, child);
    }
    return orig;
  };
  const mergeValue = (cur: Obj, v: Obj, path: string): Obj => {
    if (isMap(v)) return isAtomicMap(maps, path) ? v : mergeObj(isMap(cur) ? cur : {}, v, path);
    if (!Array.isArray(v)) return v;
    const was: Obj[] = Array.isArray(cur) ? cur : [];
    const keys = maps.get(path);
    if (keys?.length === 0) return mergeListMap(was, v, keys, path, (_, b) => b);
    const item = `${path}[]`;
    if (keys)
      return mergeListMap(was, v, keys, path, (a, b) => (isAtomicMap(maps, item) ? b : mergeObj(a, b, item)));
    return structuredClone(v);
  };
  return mergeObj(structuredClone(live), structuredClone(config), '');
}

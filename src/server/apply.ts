/**
 * Server-side apply (`PATCH` with `application/apply-patch+yaml`, `kubectl apply --server-side`):
 * the applied configuration is merged into the live object, each field manager's fields are kept
 * in `metadata.managedFields` (FieldsV1), a field another applier owns with a different value is a
 * 409 conflict unless `force=true`, and fields a manager applied before but leaves out now are
 * removed (upstream: staging/src/k8s.io/apimachinery/pkg/util/managedfields, structured-merge-diff).
 *
 * Simplified against upstream, as docs/server.md says: field ownership is tracked for appliers only
 * (Update operations by other clients record no fields, so they never conflict). List maps merge
 * and are owned by all their keys, sets by value (apply-listmaps.ts: built-in kinds from the
 * pinned OpenAPI, custom resources from their CRD's schema); kinds known to neither (a custom
 * resource without its schema) merge lists by the merge keys of strategic-merge.ts.
 *
 * Example: manager a applies {spec: {replicas: 3}} → managedFields [{manager: a, fieldsV1:
 * {f:spec: {f:replicas: {}}}}]; manager b applies {spec: {replicas: 5}} → 409 `conflict with "a":
 * .spec.replicas`; with force=true b owns .spec.replicas and a's entry loses it.
 */
import { ApiError, badRequest } from '../api/errors.js';
import type { ResourceInfo } from '../api/registry.js';
import type { KubeObject } from '../api/types.js';
import { rfc3339 } from '../api/time.js';
import {
  type ListTypes,
  checkAppliedListMaps,
  isAtomicMap,
  itemKey,
  keyString,
  listMapsOf,
  listTypesOfSchema,
  mergeApplied,
} from './apply-listmaps.js';
import { strategicMergePatch, strategyFor } from './strategic-merge.js';

// biome-ignore lint/suspicious/noExplicitAny: applied configurations are arbitrary objects
type Obj = any;

/** One field: path segments as FieldsV1 spells them (`f:spec`, `k:{"name":"c"}`, `v:"x"`, `.`). */
type FieldPath = string[];

interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Obj;
  subresource?: string;
}

const ROOT_SKIP = new Set(['apiVersion', 'kind', 'status']);
const META_SKIP = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
]);

const isMap = (v: unknown): v is Record<string, Obj> => !!v && typeof v === 'object' && !Array.isArray(v);

type ListMaps = ListTypes | undefined;

/**
 * How a list at `path` is owned: by item keys (`keys`), as a set of values (`set`), or whole.
 * Kinds with list types (apply-listmaps.ts) follow them: no keys is a set; otherwise the merge
 * keys of strategic-merge.ts.
 */
function listKind(
  maps: ListMaps,
  kind: string,
  path: string,
): { keys: readonly string[] } | 'set' | undefined {
  if (maps) {
    const keys = maps.get(path);
    if (!keys) return undefined;
    return keys.length === 0 ? 'set' : { keys };
  }
  const strat = strategyFor(kind, path);
  if (!strat) return undefined;
  return strat.key === undefined ? 'set' : { keys: [strat.key] };
}

/** The fields an applied configuration sets. */
function fieldSet(config: Obj, kind: string, maps: ListMaps): FieldPath[] {
  const out: FieldPath[] = [];
  const walkMap = (m: Record<string, Obj>, segs: FieldPath, dotted: string) => {
    for (const [k, v] of Object.entries(m)) {
      if (segs.length === 0 && ROOT_SKIP.has(k)) continue;
      if (dotted === 'metadata' && META_SKIP.has(k)) continue;
      if (v === null || v === undefined) continue;
      const s = [...segs, `f:${k}`];
      const d = dotted ? `${dotted}.${k}` : k;
      if (isMap(v)) {
        // an atomic map or struct is one field, owned whole
        if (Object.keys(v).length === 0 || isAtomicMap(maps, d)) out.push(s);
        else walkMap(v, s, d);
      } else if (Array.isArray(v)) {
        const lk = listKind(maps, kind, d);
        if (!lk) out.push(s);
        else if (lk === 'set') for (const x of v) out.push([...s, `v:${JSON.stringify(x)}`]);
        else
          for (const item of v) {
            const k = itemKey(item, lk.keys, d);
            if ('error' in k || (!maps && !(lk.keys[0]! in item)))
              throw badRequest(`${d}: every item needs the merge key "${lk.keys[0]}"`);
            const seg = `k:${JSON.stringify(k.key)}`;
            if (isAtomicMap(maps, `${d}[]`)) out.push([...s, seg]);
            else {
              out.push([...s, seg, '.']);
              walkMap(item, [...s, seg], `${d}[]`);
            }
          }
      } else out.push(s);
    }
  };
  walkMap(config, [], '');
  return out;
}

function toFieldsV1(paths: FieldPath[]): Obj {
  const root: Obj = {};
  for (const p of paths) {
    let node = root;
    for (const seg of p) node = node[seg] ??= {};
  }
  return root;
}

function fromFieldsV1(f: Obj): FieldPath[] {
  const out: FieldPath[] = [];
  const walk = (node: Obj, segs: FieldPath) => {
    const keys = Object.keys(node ?? {});
    if (keys.length === 0 && segs.length) out.push(segs);
    for (const k of keys) walk(node[k], [...segs, k]);
  };
  walk(f, []);
  return out;
}

const pathKey = (p: FieldPath) => p.join('\u0000');

/** Where a field path points in an object: the parent container and how to reach the child. */
function locate(obj: Obj, path: FieldPath): { parent: Obj; key: string | number } | undefined {
  let node: Obj = obj;
  // the dotted path so far (`a.b[].c`), for the key defaults of list maps
  let dotted = '';
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    const last = i === path.length - 1;
    if (seg === '.') return undefined;
    if (seg.startsWith('f:')) {
      if (!isMap(node)) return undefined;
      const k = seg.slice(2);
      if (last || path[i + 1] === '.') return { parent: node, key: k };
      node = node[k];
      dotted = dotted ? `${dotted}.${k}` : k;
    } else if (seg.startsWith('k:')) {
      if (!Array.isArray(node)) return undefined;
      const want = JSON.parse(seg.slice(2));
      const wantKey = keyString(want);
      const fields = Object.keys(want);
      const idx = node.findIndex((x: Obj) => {
        const k = itemKey(x, fields, dotted);
        return 'key' in k && keyString(k.key) === wantKey;
      });
      dotted += '[]';
      if (idx < 0) return undefined;
      if (last || path[i + 1] === '.') return { parent: node, key: idx };
      node = node[idx];
    } else if (seg.startsWith('v:')) {
      if (!Array.isArray(node)) return undefined;
      const j = seg.slice(2);
      const idx = node.findIndex((x: Obj) => JSON.stringify(x) === j);
      return idx < 0 ? undefined : { parent: node, key: idx };
    } else return undefined;
  }
  return undefined;
}

function valueAt(obj: Obj, path: FieldPath): string | undefined {
  const loc = locate(obj, path);
  if (!loc) return undefined;
  return canonical(loc.parent[loc.key]);
}

/** JSON with object keys sorted: equal values (an atomic map applied in another key order) compare equal */
function canonical(v: Obj): string {
  return JSON.stringify(v, (_, x) =>
    isMap(x)
      ? Object.fromEntries(
          Object.keys(x)
            .sort()
            .map((k) => [k, x[k]]),
        )
      : x,
  );
}

function removeAt(obj: Obj, path: FieldPath): void {
  const loc = locate(obj, path);
  if (!loc) return;
  if (Array.isArray(loc.parent)) loc.parent.splice(loc.key as number, 1);
  else delete loc.parent[loc.key];
}

/** `.spec.replicas`, `.spec.containers[name="c"].image` for conflict messages */
function fieldString(path: FieldPath): string {
  let s = '';
  for (const seg of path) {
    if (seg.startsWith('f:')) s += `.${seg.slice(2)}`;
    else if (seg.startsWith('k:')) {
      const k = JSON.parse(seg.slice(2));
      s += `[${Object.entries(k)
        .map(([a, b]) => `${a}=${JSON.stringify(b)}`)
        .join(',')}]`;
    } else if (seg.startsWith('v:')) s += `[=${seg.slice(2)}]`;
  }
  return s;
}

export function serverSideApply(
  current: KubeObject | undefined,
  config: Obj,
  info: ResourceInfo,
  opts: { manager?: string; force?: boolean; now: number; schema?: Obj },
): KubeObject {
  if (!isMap(config)) throw badRequest('apply: the configuration must be a YAML or JSON object');
  if (config.apiVersion !== info.apiVersion || config.kind !== info.kind)
    throw badRequest(
      `apply: the configuration is ${config.apiVersion}/${config.kind}, the request is for ${info.apiVersion}/${info.kind}`,
    );
  const maps =
    listMapsOf(info.apiVersion, info.kind) ??
    (opts.schema !== undefined ? listTypesOfSchema(opts.schema) : undefined);
  checkAppliedListMaps(config, maps, info);
  const manager = opts.manager!;
  const mine = fieldSet(config, info.kind, maps);
  const mineKeys = new Set(mine.map(pathKey));
  const entry = (fields: FieldPath[]): ManagedFieldsEntry => ({
    manager,
    operation: 'Apply',
    apiVersion: info.apiVersion,
    time: rfc3339(opts.now),
    fieldsType: 'FieldsV1',
    fieldsV1: toFieldsV1(fields),
  });
  if (!current) {
    const created: Obj = structuredClone(config);
    created.metadata ??= {};
    created.metadata.managedFields = [entry(mine)];
    return created;
  }

  const managed: ManagedFieldsEntry[] = structuredClone((current.metadata as Obj).managedFields ?? []);
  const others = managed.filter((m) => !(m.manager === manager && m.operation === 'Apply'));
  const previous = managed.find((m) => m.manager === manager && m.operation === 'Apply');
  // 1. conflicts: a field another applier owns, with a different value
  const conflicts: { manager: string; field: FieldPath }[] = [];
  const otherSets = others.map((m) => ({ m, fields: fromFieldsV1(m.fieldsV1) }));
  for (const o of otherSets) {
    if (o.m.operation !== 'Apply') continue;
    for (const f of o.fields) {
      if (!mineKeys.has(pathKey(f)) || f[f.length - 1] === '.') continue;
      if (valueAt(current, f) !== valueAt(config, f)) conflicts.push({ manager: o.m.manager, field: f });
    }
  }
  if (conflicts.length && !opts.force) {
    const lines = conflicts.map((c) => `conflict with "${c.manager}": ${fieldString(c.field)}`);
    const msg =
      conflicts.length === 1
        ? `Apply failed with 1 conflict: ${lines[0]}`
        : `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
    throw new ApiError(409, 'Conflict', msg, {
      causes: conflicts.map((c) => ({
        reason: 'FieldManagerConflict',
        message: `conflict with "${c.manager}"`,
        field: fieldString(c.field),
      })),
    });
  }
  // 2. merge the configuration in
  const next: Obj = maps
    ? mergeApplied(current, config, maps)
    : strategicMergePatch(current, config, info.kind);
  // 3. fields this manager applied before and leaves out now go, unless someone else owns them
  const ownedByOthers = new Set(otherSets.flatMap((o) => o.fields.map(pathKey)));
  if (previous) {
    const gone = fromFieldsV1(previous.fieldsV1).filter(
      (f) => !mineKeys.has(pathKey(f)) && !ownedByOthers.has(pathKey(f)),
    );
    // deepest first, so removing a list item does not shift a later path
    for (const f of gone.sort((a, b) => b.length - a.length))
      removeAt(next, f[f.length - 1] === '.' ? f.slice(0, -1) : f);
  }
  // 4. ownership: forced fields leave their previous owners
  const kept = otherSets
    .map(({ m, fields }) => {
      if (!opts.force || m.operation !== 'Apply') return m;
      // only the conflicting fields change hands; fields applied with the same value stay co-owned
      // (structured-merge-diff Updater.Apply: managers[m] = managers[m].Difference(conflicts))
      const taken = new Set(conflicts.filter((c) => c.manager === m.manager).map((c) => pathKey(c.field)));
      const left = fields.filter((f) => !taken.has(pathKey(f)));
      return left.length ? { ...m, fieldsV1: toFieldsV1(left) } : undefined;
    })
    .filter((m): m is ManagedFieldsEntry => !!m);
  next.metadata.managedFields = [...kept, entry(mine)];
  return next;
}

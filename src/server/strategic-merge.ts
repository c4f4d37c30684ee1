/**
 * Strategic merge patch (`application/strategic-merge-patch+json`), what `kubectl apply`, `scale`,
 * `cordon`, `label`, `rollout restart` send for built-in kinds (upstream:
 * staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/patch.go, StrategicMergePatch).
 *
 * Like a JSON merge patch (maps merge, `null` deletes a key) except for lists whose field carries a
 * patch strategy in the Go types (`patchStrategy:"merge" patchMergeKey:"name"`): those merge item by
 * item on the merge key, and lists of scalars with the merge strategy (finalizers) take the union.
 * Directives: `$patch: replace|delete|merge` in a map or list item, `$retainKeys`,
 * `$setElementOrder/<field>`, `$deleteFromPrimitiveList/<field>`.
 *
 * Example: patch `{spec: {containers: [{name: b, image: v2}]}}` on containers [a, b(v1)] →
 * [a, b(v2)]; a merge patch would have left only b.
 *
 * The strategies come from a table of field paths transcribed from k8s.io/api types (below), not
 * from an OpenAPI document; fields not in it are replaced, as upstream does for atomic lists.
 */

// biome-ignore lint/suspicious/noExplicitAny: patches are arbitrary JSON
type Json = any;

export interface ListStrategy {
  /** merge key of a list of maps; undefined for a list of scalars that merges as a set */
  key?: string;
}

/**
 * Merge strategies by the field's path suffix (`[]` marks a list item). The longest matching suffix
 * wins; `ports` under a container merges on containerPort, a Service's `spec.ports` on port.
 */
const STRATEGIES: [string, ListStrategy][] = [
  ['metadata.finalizers', {}],
  ['metadata.ownerReferences', { key: 'uid' }],
  ['containers', { key: 'name' }],
  ['initContainers', { key: 'name' }],
  ['ephemeralContainers', { key: 'name' }],
  ['containers[].env', { key: 'name' }],
  ['initContainers[].env', { key: 'name' }],
  ['ephemeralContainers[].env', { key: 'name' }],
  ['containers[].ports', { key: 'containerPort' }],
  ['initContainers[].ports', { key: 'containerPort' }],
  ['ephemeralContainers[].ports', { key: 'containerPort' }],
  ['volumeMounts', { key: 'mountPath' }],
  ['volumeDevices', { key: 'devicePath' }],
  ['spec.volumes', { key: 'name' }],
  ['template.spec.volumes', { key: 'name' }],
  ['imagePullSecrets', { key: 'name' }],
  ['hostAliases', { key: 'ip' }],
  ['topologySpreadConstraints', { key: 'topologyKey' }],
  ['schedulingGates', { key: 'name' }],
  ['resourceClaims', { key: 'name' }],
  ['status.conditions', { key: 'type' }],
  ['status.addresses', { key: 'type' }],
  ['status.podIPs', { key: 'ip' }],
  ['status.hostIPs', { key: 'ip' }],
  ['secrets', { key: 'name' }],
];

/** Service's spec.ports merge on port (core/v1 ServiceSpec.Ports). */
const SERVICE_PORTS: ListStrategy = { key: 'port' };

export function strategyFor(kind: string | undefined, path: string): ListStrategy | undefined {
  if (kind === 'Service' && path === 'spec.ports') return SERVICE_PORTS;
  let best: [string, ListStrategy] | undefined;
  for (const s of STRATEGIES) {
    if (path === s[0] || path.endsWith(`.${s[0]}`)) if (!best || s[0].length > best[0].length) best = s;
  }
  return best?.[1];
}

export class PatchError extends Error {}

const isMap = (v: unknown): v is Record<string, Json> => !!v && typeof v === 'object' && !Array.isArray(v);
const clone = <T>(v: T): T => (v === undefined ? v : structuredClone(v));

/** Apply a strategic merge patch to a copy of `original` (an object of `kind`). */
export function strategicMergePatch(original: Json, patch: Json, kind?: string): Json {
  if (!isMap(patch)) throw new PatchError('strategic merge patch: the patch must be a JSON object');
  return mergeMap(clone(original) ?? {}, patch, kind, '');
}

function mergeMap(
  orig: Record<string, Json>,
  patch: Record<string, Json>,
  kind: string | undefined,
  path: string,
): Json {
  const directive = patch.$patch;
  if (directive === 'replace') {
    const out = clone(patch);
    delete out.$patch;
    return out;
  }
  if (directive === 'delete') return undefined;
  if (directive !== undefined && directive !== 'merge')
    throw new PatchError(`Unknown patch type: ${JSON.stringify(directive)} in map patch`);

  // $retainKeys: keep only the listed keys of the original (union fields like strategy)
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set<string>(patch.$retainKeys);
    for (const k of Object.keys(orig)) if (!keep.has(k)) delete orig[k];
  }
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys') continue;
    if (k.startsWith('$setElementOrder/') || k.startsWith('$deleteFromPrimitiveList/')) continue;
    const childPath = path ? `${path}.${k}` : k;
    if (v === null) {
      delete orig[k];
      continue;
    }
    const cur = orig[k];
    if (isMap(v)) {
      const merged = mergeMap(isMap(cur) ? cur : {}, v, kind, childPath);
      if (merged === undefined) delete orig[k];
      else orig[k] = merged;
    } else if (Array.isArray(v)) {
      orig[k] = mergeList(Array.isArray(cur) ? cur : [], v, kind, childPath);
    } else orig[k] = clone(v);
  }
  // directives on lists, after the lists themselves merged
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      if (Array.isArray(orig[field]) && Array.isArray(v)) {
        const drop = new Set(v.map((x) => JSON.stringify(x)));
        orig[field] = orig[field].filter((x: Json) => !drop.has(JSON.stringify(x)));
      }
    } else if (k.startsWith('$setElementOrder/')) {
      const field = k.slice('$setElementOrder/'.length);
      if (Array.isArray(orig[field]) && Array.isArray(v)) {
        const s = strategyFor(kind, path ? `${path}.${field}` : field);
        orig[field] = reorder(orig[field], v, s?.key);
      }
    }
  }
  return orig;
}

function mergeList(orig: Json[], patch: Json[], kind: string | undefined, path: string): Json[] {
  const s = strategyFor(kind, path);
  if (!s) {
    // atomic: the patch's list replaces (minus directive items, which make no sense here)
    return clone(patch.filter((x) => !(isMap(x) && x.$patch !== undefined)));
  }
  if (patch.some((x) => isMap(x) && x.$patch === 'replace')) {
    return clone(patch.filter((x) => !(isMap(x) && x.$patch === 'replace')));
  }
  if (s.key === undefined) {
    // a set of scalars: union, in original order then new ones
    const out = [...orig];
    const seen = new Set(orig.map((x) => JSON.stringify(x)));
    for (const x of patch) {
      if (isMap(x)) continue;
      const j = JSON.stringify(x);
      if (!seen.has(j)) {
        seen.add(j);
        out.push(clone(x));
      }
    }
    return out;
  }
  const key = s.key;
  const out = [...orig];
  for (const item of patch) {
    if (!isMap(item)) throw new PatchError(`${path}: expected a list of maps merged on "${key}"`);
    if (!(key in item))
      throw new PatchError(`map: ${JSON.stringify(item)} does not contain declared merge key: ${key}`);
    const idx = out.findIndex((x) => isMap(x) && JSON.stringify(x[key]) === JSON.stringify(item[key]));
    if (item.$patch === 'delete') {
      if (idx >= 0) out.splice(idx, 1);
      continue;
    }
    if (idx >= 0) out[idx] = mergeMap(out[idx], item, kind, `${path}[]`);
    else {
      const fresh = mergeMap({}, item, kind, `${path}[]`);
      if (fresh !== undefined) out.push(fresh);
    }
  }
  return out;
}

/** $setElementOrder: the listed items first, in that order; the rest keep their relative order after. */
function reorder(list: Json[], order: Json[], key: string | undefined): Json[] {
  const id = (x: Json) => JSON.stringify(key !== undefined && isMap(x) ? x[key] : x);
  const want = order.map((o) => JSON.stringify(key !== undefined && isMap(o) ? o[key] : o));
  const rank = new Map(want.map((w, i) => [w, i]));
  const listed = list.filter((x) => rank.has(id(x))).sort((a, b) => rank.get(id(a))! - rank.get(id(b))!);
  const rest = list.filter((x) => !rank.has(id(x)));
  return [...listed, ...rest];
}

/** RFC 7386 JSON merge patch (`application/merge-patch+json`). */
export function jsonMergePatch(target: Json, patch: Json): Json {
  if (!isMap(patch)) return clone(patch);
  const out: Record<string, Json> = isMap(target) ? clone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = jsonMergePatch(out[k], v);
  }
  return out;
}

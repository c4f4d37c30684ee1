/**
 * Duplicate keys of list-map fields. The pinned release's OpenAPI schemas mark these lists
 * `x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys` (the `+listType=map` /
 * `+listMapKey=` tags of staging/src/k8s.io/api/<group>/<version>/types.go, v1.34): two items with
 * the same key values are one entry to the apiserver, which answers
 *
 *   spec.containers[0].ports[1]: Duplicate value: {"containerPort":80,"protocol":"TCP"}
 *
 * Key fields with a default are compared after it (a port's protocol defaults to TCP). The lists
 * whose duplicates a kind's own rules already report (Service spec.ports, topologySpreadConstraints,
 * container names) are not repeated here; status lists (conditions) are written by controllers and
 * not checked. The table covers the kinds kubesim reads; docs/api.md lists it.
 */
import { duplicate, type FieldError } from './field.js';
import { isObj, type Obj } from './validation-common.js';

interface ListMap {
  /** path below the object holding the list; `[]` steps into every item of a list */
  path: string[];
  keys: string[];
  /** defaults of key fields the apiserver fills in before comparing */
  defaults?: Record<string, unknown>;
}

const CONTAINER_MAPS = (c: string): ListMap[] => [
  { path: [c, '[]', 'ports'], keys: ['containerPort', 'protocol'], defaults: { protocol: 'TCP' } },
  { path: [c, '[]', 'resources', 'claims'], keys: ['name'] },
];

/** The list-map fields of a PodSpec (core/v1 PodSpec, Container). */
const POD_SPEC_MAPS: ListMap[] = [
  ...CONTAINER_MAPS('containers'),
  ...CONTAINER_MAPS('initContainers'),
  { path: ['hostAliases'], keys: ['ip'] },
  { path: ['imagePullSecrets'], keys: ['name'] },
  { path: ['schedulingGates'], keys: ['name'] },
  { path: ['resourceClaims'], keys: ['name'] },
];

/** Where each kind holds a PodSpec. */
const POD_SPEC_AT: Record<string, string[]> = {
  Pod: ['spec'],
  PodTemplate: ['template', 'spec'],
  ReplicationController: ['spec', 'template', 'spec'],
  ReplicaSet: ['spec', 'template', 'spec'],
  Deployment: ['spec', 'template', 'spec'],
  StatefulSet: ['spec', 'template', 'spec'],
  DaemonSet: ['spec', 'template', 'spec'],
  Job: ['spec', 'template', 'spec'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
};

/** List maps of ObjectMeta, on every kind. */
const META_MAPS: ListMap[] = [{ path: ['metadata', 'ownerReferences'], keys: ['uid'] }];

/** The list maps of each kind, built once: validation runs on every write. */
const MAPS_OF = new Map<string, ListMap[]>();

function mapsOf(kind: string): ListMap[] {
  let maps = MAPS_OF.get(kind);
  if (!maps) {
    maps = [...META_MAPS];
    const at = POD_SPEC_AT[kind];
    if (at) for (const m of POD_SPEC_MAPS) maps.push({ ...m, path: [...at, ...m.path] });
    MAPS_OF.set(kind, maps);
  }
  return maps;
}

/** The `Duplicate value` errors of every list-map field of `o` (a built-in `kind`). */
export function validateListMaps(o: Obj, kind: string, out: FieldError[]): void {
  for (const m of mapsOf(kind)) walk(o, m, 0, [], out);
}

/**
 * Follows `m.path` from `v` (step `i` on); `at` holds the steps taken (names and item indexes),
 * joined into a field path only when a duplicate is reported.
 */
function walk(v: unknown, m: ListMap, i: number, at: (string | number)[], out: FieldError[]): void {
  if (i === m.path.length) {
    if (Array.isArray(v) && v.length > 1) checkList(v, at, m, out);
    return;
  }
  const step = m.path[i]!;
  if (step === '[]') {
    if (!Array.isArray(v)) return;
    for (let j = 0; j < v.length; j++) {
      at.push(j);
      walk(v[j], m, i + 1, at, out);
      at.pop();
    }
    return;
  }
  if (!isObj(v)) return;
  at.push(step);
  walk(v[step], m, i + 1, at, out);
  at.pop();
}

function pathOf(at: (string | number)[]): string {
  let p = '';
  for (const s of at) p = typeof s === 'number' ? `${p}[${s}]` : p ? `${p}.${s}` : s;
  return p;
}

function checkList(list: unknown[], at: (string | number)[], m: ListMap, out: FieldError[]): void {
  const seen = new Set<string>();
  list.forEach((item, i) => {
    if (!isObj(item)) return;
    const key: Obj = {};
    for (const k of m.keys) key[k] = item[k] ?? m.defaults?.[k];
    // items missing a key are the kind's own Required value errors, not duplicates
    if (m.keys.some((k) => key[k] === undefined || key[k] === '')) return;
    const id = JSON.stringify(m.keys.map((k) => key[k]));
    if (seen.has(id)) out.push(duplicate(`${pathOf(at)}[${i}]`, m.keys.length === 1 ? key[m.keys[0]!] : key));
    seen.add(id);
  });
}

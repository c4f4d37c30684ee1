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

/** The `Duplicate value` errors of every list-map field of `o` (a built-in `kind`). */
export function validateListMaps(o: Obj, kind: string, out: FieldError[]): void {
  const maps = [...META_MAPS];
  const at = POD_SPEC_AT[kind];
  if (at) for (const m of POD_SPEC_MAPS) maps.push({ ...m, path: [...at, ...m.path] });
  for (const m of maps) walk(o, m.path, '', (list, p) => checkList(list, p, m, out));
}

function walk(v: unknown, path: string[], at: string, visit: (list: unknown[], path: string) => void): void {
  if (path.length === 0) {
    if (Array.isArray(v)) visit(v, at);
    return;
  }
  const [step, ...rest] = path;
  if (step === '[]') {
    if (Array.isArray(v)) v.forEach((item, i) => walk(item, rest, `${at}[${i}]`, visit));
    return;
  }
  if (isObj(v)) walk(v[step!], rest, at ? `${at}.${step}` : step!, visit);
}

function checkList(list: unknown[], path: string, m: ListMap, out: FieldError[]): void {
  const seen = new Set<string>();
  list.forEach((item, i) => {
    if (!isObj(item)) return;
    const key: Obj = {};
    for (const k of m.keys) key[k] = item[k] ?? m.defaults?.[k];
    // items missing a key are the kind's own Required value errors, not duplicates
    if (m.keys.some((k) => key[k] === undefined || key[k] === '')) return;
    const id = JSON.stringify(m.keys.map((k) => key[k]));
    if (seen.has(id)) out.push(duplicate(`${path}[${i}]`, m.keys.length === 1 ? key[m.keys[0]!] : key));
    seen.add(id);
  });
}

/**
 * List-map fields: the lists the pinned release's OpenAPI schemas mark `x-kubernetes-list-type:
 * map` with `x-kubernetes-list-map-keys`, every kind's from listmap-table.ts (generated from
 * data/k8s/openapi by scripts/gen-listmaps.mjs; test/api/listmap-table.test.ts keeps it in step).
 *
 * On create and update kube-apiserver does not refuse duplicate keys of a list map as such: the
 * keys matter to server-side apply (structured-merge-diff merges by them and refuses duplicates),
 * while plain writes go through each kind's Go validation. That validation answers
 * `Duplicate value` for a few of these lists, reported here:
 *
 *   spec.schedulingGates[1]: Duplicate value: "gate"              (validateSchedulingGates)
 *   spec.resourceClaims[1]: Duplicate value: "gpu"                (validatePodResourceClaims)
 *   spec.containers[0].resources.claims[1]: Duplicate value: "gpu" (validateResourceClaimNames)
 *
 * Duplicate container ports and env names are accepted with a warning (pod-warnings.ts, upstream
 * pkg/api/pod/warnings.go); duplicates in the other list maps (hostAliases, imagePullSecrets,
 * ownerReferences, …) are accepted silently, as upstream does. The lists whose duplicates a kind's
 * own rules report (container names, topologySpreadConstraints, Service ports) are checked there.
 */
import { duplicate, type FieldError } from './field.js';
import { LIST_MAPS } from './listmap-table.js';
import { isObj, type Obj } from './validation-common.js';

interface ListMap {
  /** path below the object holding the list; `[]` steps into every item of a list */
  path: string[];
  keys: string[];
}

/** The list maps whose duplicates Go validation refuses, by the end of their path. */
const REFUSED = [/(^|\.)spec\.schedulingGates$/, /(^|\.)spec\.resourceClaims$/, /\]\.resources\.claims$/];

/** "a.b[].c:k1,k2" → path ["a", "b", "[]", "c"], keys ["k1", "k2"] */
function parse(entry: string): ListMap {
  const [path, keys] = entry.split(':') as [string, string];
  const steps: string[] = [];
  for (const part of path.split('.')) {
    if (part.endsWith('[]')) steps.push(part.slice(0, -2), '[]');
    else steps.push(part);
  }
  return { path: steps, keys: keys.split(',') };
}

/** The refused list maps of each apiVersion/kind, built once: validation runs on every write. */
const MAPS_OF = new Map<string, ListMap[]>();

function mapsOf(apiVersion: string, kind: string): ListMap[] {
  const id = `${apiVersion}/${kind}`;
  let maps = MAPS_OF.get(id);
  if (!maps) {
    maps = (LIST_MAPS[id] ?? [])
      .filter((e) => REFUSED.some((r) => r.test(e.slice(0, e.indexOf(':')))))
      .map(parse);
    MAPS_OF.set(id, maps);
  }
  return maps;
}

/** The `Duplicate value` errors of the list-map fields of `o` that its kind's validation refuses. */
export function validateListMaps(o: Obj, kind: string, out: FieldError[]): void {
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  for (const m of mapsOf(apiVersion, kind)) walk(o, m, 0, [], out);
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

function pathOf(at: readonly (string | number)[]): string {
  let p = '';
  for (const s of at) p = typeof s === 'number' ? `${p}[${s}]` : p ? `${p}.${s}` : s;
  return p;
}

function checkList(list: unknown[], at: (string | number)[], m: ListMap, out: FieldError[]): void {
  const seen = new Set<string>();
  list.forEach((item, i) => {
    if (!isObj(item)) return;
    const key: Obj = {};
    for (const k of m.keys) key[k] = item[k];
    // items missing a key are the kind's own Required value errors, not duplicates
    if (m.keys.some((k) => key[k] === undefined || key[k] === '')) return;
    const id = JSON.stringify(m.keys.map((k) => key[k]));
    if (seen.has(id)) out.push(duplicate(`${pathOf(at)}[${i}]`, m.keys.length === 1 ? key[m.keys[0]!] : key));
    seen.add(id);
  });
}

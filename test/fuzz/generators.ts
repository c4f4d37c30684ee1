/**
 * Seeded generators of bad input for the loader fuzz suite: each case is a file (manifests, a
 * scenario, or a what-if string) made from a valid base by one mutation of a class — wrong types,
 * invalid quantities, prototype keys, huge counts, truncation, deep nesting, invalid UTF-8, alias
 * bombs, scenario mutations and what-if strings. A case says whether the mutation makes the input
 * invalid for sure (`mustReject`): then `kubesim validate` and every command must reject it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { Rng } from '../../src/util/rng.js';

type Json = Record<string, unknown>;

export interface FuzzCase {
  i: number;
  class: string;
  mutation: string;
  /** manifests (or a scenario, for class "scenario") as bytes */
  bytes?: Buffer;
  /** what-if strings (class "what-if") */
  whatIf?: string;
  /** the mutation makes the input invalid: every reader must reject it */
  mustReject: boolean;
}

const root = join(import.meta.dirname, '..', '..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

/** Valid objects to mutate: the example snapshot's items, its pods, and a Deployment and Service. */
export const BASE_OBJECTS: Json[] = [
  ...((parse(read('examples/snapshot/cluster.yaml')) as { items: Json[] }).items ?? []),
  parse(read('examples/snapshot/pod-api.yaml')) as Json,
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            { name: 'web', image: 'nginx', resources: { requests: { cpu: '100m', memory: '64Mi' } } },
          ],
          tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
        },
      },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'default' },
    spec: { clusterIP: '10.96.0.10', selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] },
  },
  {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'web-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4',
    ports: [{ name: 'http', port: 8080 }],
    endpoints: [{ addresses: ['10.244.1.5'], conditions: { ready: true } }],
  },
];

export const BASE_SCENARIO = read('examples/scenarios/node-failure-eviction.yaml');

const BAD_QUANTITIES = ['-1', '1.5x', 'abc', '', ' 1', '0x10', '--1', '1..5', 'Infinity', 'NaN', '1Qi'];
const HUGE = [1e9, 1e12, 2 ** 53, 1e300, -1, 0.5, '1e999'];
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString'];

/**
 * The fields whose type kubesim's validation checks: what the scheduler, the capacity planner,
 * kube-proxy and the controllers read. (Upstream's strict decoding rejects a wrong type anywhere;
 * kubesim reads status, timestamps, uids and owner references as given, so there a wrong type must
 * only be treated alike by every command — the cross-check with validate.)
 */
const TYPE_CHECKED = new Set([
  'metadata',
  'name',
  'namespace',
  'labels',
  'annotations',
  'spec',
  'template',
  'selector',
  'matchLabels',
  'replicas',
  'containers',
  'image',
  'resources',
  'requests',
  'limits',
  'ports',
  'port',
  'containerPort',
  'tolerations',
  'key',
  'operator',
  'effect',
  'nodeSelector',
  'nodeName',
  'taints',
  'addressType',
  'endpoints',
  'addresses',
]);
function mustTypeCheck(path: (string | number)[]): boolean {
  if (path[0] === 'status' || path.includes('ownerReferences') || path.includes('managedFields'))
    return false;
  const last = [...path].reverse().find((p) => typeof p === 'string');
  return last !== undefined && TYPE_CHECKED.has(last);
}

/** Paths to fields of known type in an object, each with a value of another type. */
function typedFields(o: Json): { path: (string | number)[]; wrong: unknown[] }[] {
  const out: { path: (string | number)[]; wrong: unknown[] }[] = [];
  const walk = (v: unknown, path: (string | number)[], depth: number) => {
    if (depth > 8) return;
    if (Array.isArray(v)) {
      out.push({ path, wrong: ['all', 5, { a: 1 }, true] });
      v.forEach((x, i) => walk(x, [...path, i], depth + 1));
    } else if (v && typeof v === 'object') {
      if (path.length) out.push({ path, wrong: ['x', 7, ['a'], true] });
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k], depth + 1);
    } else if (typeof v === 'string' && path.length > 1) out.push({ path, wrong: [{ s: 1 }, ['s']] });
    else if (typeof v === 'number') out.push({ path, wrong: ['many', { n: 1 }, [1]] });
    else if (typeof v === 'boolean') out.push({ path, wrong: [{ b: 1 }, [true]] });
  };
  walk(o, [], 0);
  return out;
}

function setPath(o: Json, path: (string | number)[], value: unknown): void {
  let cur = o as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  cur[path[path.length - 1]!] = value;
}

/** Where quantities live in the base objects. */
function quantityPaths(o: Json): (string | number)[][] {
  const out: (string | number)[][] = [];
  const walk = (v: unknown, path: (string | number)[]) => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        const p = [...path, k];
        if (['requests', 'limits', 'capacity', 'allocatable'].includes(k) && x && typeof x === 'object')
          for (const r of Object.keys(x)) out.push([...p, r]);
        else walk(x, p);
      }
  };
  walk(o, []);
  return out;
}

const yamlOrJson = (rng: Rng, objs: Json[]): string =>
  rng.next() < 0.5
    ? JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objs }, null, 1)
    : objs.map((o) => stringify(o)).join('---\n');

/** One case of a class. */
export function generate(rng: Rng, i: number, klass: string): FuzzCase {
  const objs = structuredClone(BASE_OBJECTS);
  const k = rng.int(objs.length);
  const obj = objs[k]!;
  const name = `${obj.kind} "${(obj.metadata as Json).name}"`;
  const text = (s: string) => Buffer.from(s, 'utf8');
  switch (klass) {
    case 'wrong-type': {
      const fields = typedFields(obj).filter((f) => f.path[0] !== 'apiVersion' && f.path[0] !== 'kind');
      const f = rng.pick(fields);
      const v = rng.pick(f.wrong);
      setPath(obj, f.path, v);
      // status and annotations/labels values are free-form only in part: every wrong type of a field
      // the schema knows is an error
      // kubesim checks the types of what its components read (metadata, specs); status and
      // timestamps are read as given, so a wrong type there must only be treated alike everywhere
      const free = !mustTypeCheck(f.path);
      return {
        i,
        class: klass,
        mutation: `${name}: ${f.path.join('.')} = ${JSON.stringify(v)}`,
        bytes: text(yamlOrJson(rng, objs)),
        mustReject: !free,
      };
    }
    case 'invalid-quantity': {
      const paths = quantityPaths(obj);
      if (!paths.length) return generate(rng, i, klass);
      const p = rng.pick(paths);
      const q = rng.pick(BAD_QUANTITIES);
      setPath(obj, p, q);
      return {
        i,
        class: klass,
        mutation: `${name}: ${p.join('.')} = ${JSON.stringify(q)}`,
        bytes: text(yamlOrJson(rng, objs)),
        mustReject: true,
      };
    }
    case 'prototype-key': {
      const maps = typedFields(obj).filter((f) => {
        let cur: unknown = obj;
        for (const s of f.path) cur = (cur as Json)[s as string];
        return cur && typeof cur === 'object' && !Array.isArray(cur);
      });
      const at = maps.length && rng.next() < 0.8 ? rng.pick(maps).path : [];
      const key = rng.pick(PROTO_KEYS);
      let target: Json = obj;
      for (const s of at) target = target[s as string] as Json;
      Object.defineProperty(target, key, {
        value: rng.pick([{ polluted: true }, 'x', 1]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      // JSON keeps an own "__proto__" key; kinds with free-form maps (labels) may accept it as a key
      const free =
        at[0] === 'status' ||
        at.some(
          (s) =>
            s === 'labels' ||
            s === 'annotations' ||
            s === 'selector' ||
            s === 'matchLabels' ||
            s === 'nodeSelector',
        );
      return {
        i,
        class: klass,
        mutation: `${name}: ${[...at, key].join('.')}`,
        bytes: text(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objs })),
        mustReject: !free,
      };
    }
    case 'huge-count': {
      const nums = typedFields(obj).filter((f) => {
        let cur: unknown = obj;
        for (const s of f.path) cur = (cur as Json)[s as string];
        return typeof cur === 'number';
      });
      const n = rng.pick(HUGE);
      if (nums.length && rng.next() < 0.6) {
        const f = rng.pick(nums);
        setPath(obj, f.path, n);
        return {
          i,
          class: klass,
          mutation: `${name}: ${f.path.join('.')} = ${n}`,
          bytes: text(yamlOrJson(rng, objs)),
          mustReject: false,
        };
      }
      // a pods capacity or a replica count from outer space
      const node = objs.find((o) => o.kind === 'Node')!;
      ((node.status as Json).allocatable as Json).pods = String(n);
      return {
        i,
        class: klass,
        mutation: `Node allocatable pods ${n}`,
        bytes: text(yamlOrJson(rng, objs)),
        mustReject: typeof n === 'number' && (n < 0 || !Number.isInteger(n)),
      };
    }
    case 'truncated': {
      const s = yamlOrJson(rng, objs);
      const cut = rng.int(s.length - 1);
      return {
        i,
        class: klass,
        mutation: `cut at ${cut} of ${s.length}`,
        bytes: text(s.slice(0, cut)),
        mustReject: false,
      };
    }
    case 'deep-nesting': {
      const depth = rng.pick([150, 1000, 10_000, 50_000]);
      const flow = rng.next() < 0.5;
      const json = rng.next() < 0.5;
      const deep = json
        ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
        : flow
          ? `${'['.repeat(depth)}${']'.repeat(depth)}`
          : `${'- '.repeat(depth)}x`;
      const s = json
        ? JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objs }).replace(
            '"metadata":{',
            `"metadata":{"annotations2":${deep},`,
          )
        : `${stringify(objs[0])}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata:\n  x:\n${deep.replace(/^/, '    ')}\n`;
      return {
        i,
        class: klass,
        mutation: `${depth} levels (${json ? 'JSON' : flow ? 'flow' : 'block'})`,
        bytes: text(s),
        mustReject: true,
      };
    }
    case 'invalid-utf8': {
      const b = text(yamlOrJson(rng, objs));
      const off = rng.int(b.length);
      const bad = rng.pick([
        [0xff],
        [0xc3, 0x28],
        [0xe2, 0x82],
        [0xed, 0xa0, 0x80],
        [0xf8, 0x88, 0x80, 0x80, 0x80],
        [0xc0, 0xaf],
      ]);
      return {
        i,
        class: klass,
        mutation: `bytes ${bad.map((x) => x.toString(16)).join(' ')} at ${off}`,
        bytes: Buffer.concat([b.subarray(0, off), Buffer.from(bad), b.subarray(off)]),
        mustReject: true,
      };
    }
    case 'alias-bomb': {
      const levels = rng.int(6) + 5;
      let s =
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n  a0: &a0 [x,x,x,x,x,x,x,x,x,x]\n';
      for (let l = 1; l < levels; l++)
        s += `  a${l}: &a${l} [${Array(10)
          .fill(`*a${l - 1}`)
          .join(',')}]\n`;
      return {
        i,
        class: klass,
        mutation: `${levels} levels of 10 aliases`,
        bytes: text(`${stringify(objs[0])}---\n${s}`),
        mustReject: true,
      };
    }
    case 'scenario':
      return scenarioCase(rng, i);
    case 'what-if':
      return whatIfCase(rng, i);
  }
  throw new Error(`unknown class ${klass}`);
}

/** A mutation of the example scenario (types, ranges, references, timing). */
function scenarioCase(rng: Rng, i: number): FuzzCase {
  const sc = parse(BASE_SCENARIO) as Json;
  const cluster = sc.cluster as Json;
  const pool = (cluster.pools as Json[])[0]!;
  const timeline = (sc.timeline as Json[] | undefined) ?? [];
  sc.timeline = timeline;
  const muts: [string, () => void, boolean][] = [
    ['pool count 1e9', () => (pool.count = 1e9), true],
    ['pool count "x"', () => (pool.count = 'x'), true],
    ['pool cpu "-1"', () => (pool.cpu = '-1'), true],
    ['pool zones 5', () => (pool.zones = 5), true],
    ['duration -5s', () => (sc.duration = '-5s'), true],
    ['duration 1e12', () => (sc.duration = 1e12), true],
    ['sampleEvery 0s', () => (sc.settings = { sampleEvery: '0s' }), true],
    ['evictionRate "fast"', () => (sc.settings = { evictionRate: 'fast' }), true],
    ['burst 1e9', () => timeline.push({ at: '10s', action: 'burst', count: 1e9 }), true],
    [
      'zone outage on a missing zone',
      () => timeline.push({ at: '10s', action: 'zoneOutage', zone: 'zone-q' }),
      true,
    ],
    ['action after duration', () => timeline.push({ at: '99h', action: 'nodeUp' }), true],
    ['unknown action', () => timeline.push({ at: '10s', action: 'explode' }), true],
    [
      'nodeDown on a missing node',
      () => timeline.push({ at: '10s', action: 'nodeDown', node: 'ghost' }),
      true,
    ],
    [
      'scale of a missing deployment',
      () => timeline.push({ at: '10s', action: 'scale', deployment: 'ghost', replicas: 2 }),
      true,
    ],
    [
      'scale replicas -3',
      () => timeline.push({ at: '10s', action: 'scale', deployment: 'web', replicas: -3 }),
      true,
    ],
    [
      'workload with tolerations "all"',
      () => {
        const w = (sc.workloads as Json[])[0]!.manifest as Json;
        (((w.spec as Json).template as Json).spec as Json).tolerations = 'all';
      },
      true,
    ],
    [
      'workload cpu "-1"',
      () => {
        const w = (sc.workloads as Json[])[0]!.manifest as Json;
        const c = ((((w.spec as Json).template as Json).spec as Json).containers as Json[])[0]!;
        c.resources = { requests: { cpu: '-1' } };
      },
      true,
    ],
    ['unknown top-level field', () => (sc.clsuter = {}), true],
    ['timeline not a list', () => (sc.timeline = { at: '1s' }), true],
    [
      'prototype key in settings',
      () =>
        Object.defineProperty(sc, 'settings', {
          value: JSON.parse('{"__proto__": {"x": 1}}'),
          enumerable: true,
        }),
      true,
    ],
    [
      'a valid scale',
      () => timeline.push({ at: '10s', action: 'scale', deployment: 'web', replicas: 2 }),
      false,
    ],
  ];
  sc.duration = '2m'; // keep the valid runs short
  if (rng.next() < 0.25) {
    // the scenario file's text itself: truncated, not UTF-8, nested too deep, an alias bomb
    const t = stringify(sc);
    const which = rng.int(4);
    const cut = rng.int(t.length - 1);
    const bytes = [
      Buffer.from(t.slice(0, cut)),
      Buffer.concat([Buffer.from(t.slice(0, cut)), Buffer.of(0xff), Buffer.from(t.slice(cut))]),
      Buffer.from(
        `${t}description: ${'['.repeat(5000)}${']'.repeat(5000)}\n`.replace(/^description:.*\n/m, ''),
      ),
      Buffer.from(
        `${t.replace(/^description:.*\n(\s+.*\n)*/m, '')}description: &a0 [x,x,x,x,x,x,x,x,x,x]\nx1: &a1 [${Array(10).fill('*a0').join(',')}]\nx2: &a2 [${Array(10).fill('*a1').join(',')}]\nx3: [${Array(10).fill('*a2').join(',')}]\n`,
      ),
    ][which]!;
    const names = [`truncated at ${cut}`, `byte 0xff at ${cut}`, '5000 levels of nesting', 'alias bomb'];
    return { i, class: 'scenario', mutation: names[which]!, bytes, mustReject: which > 0 };
  }
  const [mutation, apply, mustReject] = rng.pick(muts);
  apply();
  return {
    i,
    class: 'scenario',
    mutation,
    bytes: Buffer.from(rng.next() < 0.7 ? stringify(sc) : JSON.stringify(sc), 'utf8'),
    mustReject,
  };
}

/** A --what-if string for plan on the example snapshot. */
function whatIfCase(rng: Rng, i: number): FuzzCase {
  const specs: [string, boolean][] = [
    [
      `add-nodes=${rng.pick(['1000000000', '99999999999999999999', '0', '-1', '1e9', '3'])}:${rng.pick(['a-1', 'ghost', ''])}`,
      false,
    ],
    [`lose-zone=${rng.pick(['eu-west-1a', 'nowhere', '', '__proto__'])}`, false],
    [`remove-nodes=${rng.pick(['a-1', 'a-1,b-1', ',,,', 'constructor'])}`, false],
    [`cordon=${rng.pick(['a-1', 'ghost', ''])}`, false],
    [rng.pick(['explode=1', '=', 'add-nodes', 'add-nodes=x:y', '\u0000', 'lose-zone=a=b']), false],
  ];
  const [whatIf] = rng.pick(specs);
  return { i, class: 'what-if', mutation: whatIf, whatIf, mustReject: false };
}

export const CLASSES = [
  'wrong-type',
  'invalid-quantity',
  'prototype-key',
  'huge-count',
  'truncated',
  'deep-nesting',
  'invalid-utf8',
  'alias-bomb',
  'scenario',
  'what-if',
] as const;

export { Rng };

/**
 * The scenario format (documented in docs/sim.md): a YAML (or JSON) file describing a cluster,
 * workloads, a timeline of actions and run settings. Parsing validates eagerly and reports errors
 * as `<file>: <path>: <problem>`, never with a stack trace.
 *
 * ```yaml
 * name: node-failure
 * seed: 1
 * duration: 10m
 * cluster:
 *   pools:                       # or `snapshot: nodes.yaml` (kubectl get nodes -o yaml)
 *     - { name: general, count: 50, cpu: "8", memory: 32Gi, zones: [a, b, c] }
 * workloads:
 *   - file: web.yaml             # manifests (multi-document YAML, JSON, kubectl List)
 *   - manifest: { apiVersion: apps/v1, kind: Deployment, … }
 * timeline:
 *   - { at: 60s, action: nodeDown, node: general-0003 }
 * settings: { watchLatency: 0ms, maxMutatingInflight: 200, scheduler: standin }
 * ```
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject, Node, Taint } from '../api/types.js';
import { generateCluster } from './cluster-gen.js';
import type { RunRule } from './kubelet.js';
import { type MetricCurve, parseMetricCurves } from './metric-curves.js';

export class ScenarioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScenarioError';
  }
}

export interface NodePool {
  name: string;
  count: number;
  cpu: string;
  memory: string;
  pods: number;
  zones: string[];
  region?: string;
  labels: Record<string, string>;
  taints: Taint[];
  /** images already present on these nodes (skip the pull) */
  images: string[];
}

export type Action =
  | { kind: 'scale'; deployment: string; replicas: number }
  | { kind: 'rollout'; deployment: string; image: string; container?: string }
  | { kind: 'rollback'; deployment: string; toRevision?: number }
  | { kind: 'nodeDown'; nodes: string[]; count?: number; pool?: string }
  | { kind: 'nodeUp'; nodes: string[] }
  | { kind: 'deleteNode'; nodes: string[] }
  | { kind: 'zoneOutage'; zone: string }
  | { kind: 'zoneRecover'; zone: string }
  | { kind: 'burst'; count: number; namespace: string; namePrefix: string; template: KubeObject }
  | { kind: 'apply'; objects: KubeObject[] }
  | { kind: 'delete'; resource: string; namespace?: string; name: string }
  | { kind: 'killLeader'; component: 'controller-manager' | 'scheduler' }
  | { kind: 'drain'; node: string; timeoutMs: number };

export interface TimelineEntry {
  atMs: number;
  action: Action;
  /** the entry as written, for reports */
  label: string;
}

export interface Settings {
  scheduler: 'standin' | 'real';
  watchLatencyMs: number;
  watchJitterMs: number;
  maxRequestsInflight: number;
  maxMutatingInflight: number;
  /** run two controller-manager and two scheduler instances with leader election */
  leaderElection: boolean;
  sampleEveryMs: number;
  schedulerCycleMs: number;
  nodeMonitorGracePeriodMs: number;
  evictionRate: number;
  latencies: Record<string, { medianMs: number; sigma: number }>;
}

export interface Scenario {
  name: string;
  description: string;
  seed: number;
  durationMs: number;
  pools: NodePool[];
  /** nodes from a snapshot file (used as-is) */
  snapshotNodes: Node[];
  /** other objects from the snapshot (pods bound to nodes, …) */
  snapshotObjects: KubeObject[];
  workloads: KubeObject[];
  timeline: TimelineEntry[];
  settings: Settings;
  source: string;
  /** run-to-completion pods (Jobs): how long they run and how likely they fail, first match wins */
  runs?: RunRule[];
  /** metric curves the HorizontalPodAutoscaler reads (docs/controllers-batch.md) */
  metrics?: MetricCurve[];
}

/** "90s", "5m", "1h30m", "250ms", or a number of seconds */
export function parseDuration(v: unknown, where: string): number {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v * 1000;
  if (typeof v !== 'string')
    throw new ScenarioError(`${where}: expected a duration like "30s", "5m", got ${JSON.stringify(v)}`);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0,
    m: RegExpExecArray | null,
    pos = 0;
  const s = v.trim();
  if (!s) throw new ScenarioError(`${where}: empty duration`);
  while ((m = re.exec(s))) {
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
    pos = re.lastIndex;
  }
  if (pos !== s.length)
    throw new ScenarioError(
      `${where}: invalid duration ${JSON.stringify(v)} (use e.g. 250ms, 30s, 5m, 1h30m)`,
    );
  return total;
}

/**
 * The objects of a manifest text a scenario names: multi-document YAML/JSON, kubectl `List`s flattened,
 * errors worded against the scenario file. (Files loaded for the API go through src/api/manifest.ts.)
 */
function scenarioObjects(text: string, where: string): KubeObject[] {
  const out: KubeObject[] = [];
  const docs = parseAllDocuments(text);
  docs.forEach((d, i) => {
    if (d.errors.length) throw new ScenarioError(`${where}: document ${i + 1}: ${d.errors[0].message}`);
    const v = d.toJS();
    if (v === null || v === undefined) return;
    const push = (o: unknown, path: string) => {
      if (!o || typeof o !== 'object' || Array.isArray(o))
        throw new ScenarioError(`${where}: ${path}: expected an object`);
      const k = o as KubeObject & { items?: unknown[] };
      if (typeof k.kind === 'string' && k.kind.endsWith('List') && Array.isArray(k.items)) {
        k.items.forEach((x, j) => push(x, `${path}.items[${j}]`));
        return;
      }
      if (typeof k.kind !== 'string' || !k.kind) throw new ScenarioError(`${where}: ${path}: missing "kind"`);
      if (typeof k.apiVersion !== 'string')
        throw new ScenarioError(`${where}: ${path} (${k.kind}): missing "apiVersion"`);
      if (!k.metadata || typeof k.metadata !== 'object' || !(k.metadata.name || k.metadata.generateName))
        throw new ScenarioError(`${where}: ${path} (${k.kind}): missing "metadata.name"`);
      out.push(k);
    };
    push(v, `document ${i + 1}`);
  });
  return out;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** Parse a scenario file. Relative `file:` references resolve against the scenario's directory. */
export function loadScenario(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ScenarioError(
      `${path}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  return parseScenario(text, path, dirname(resolve(path)));
}

export function parseScenario(text: string, source: string, baseDir: string): Scenario {
  const docs = parseAllDocuments(text);
  if (docs.length !== 1)
    throw new ScenarioError(`${source}: expected one YAML document, found ${docs.length}`);
  if (docs[0].errors.length) throw new ScenarioError(`${source}: ${docs[0].errors[0].message}`);
  const root = docs[0].toJS() as unknown;
  if (!isObj(root)) throw new ScenarioError(`${source}: expected a mapping at the top level`);
  const known = new Set([
    'name',
    'description',
    'seed',
    'duration',
    'cluster',
    'workloads',
    'timeline',
    'settings',
    'runs',
    'metrics',
  ]);
  for (const k of Object.keys(root))
    if (!known.has(k))
      throw new ScenarioError(`${source}: unknown field "${k}" (expected one of ${[...known].join(', ')})`);
  const at = (p: string) => `${source}: ${p}`;
  const readRel = (f: unknown, where: string): string => {
    if (typeof f !== 'string' || !f) throw new ScenarioError(`${at(where)}: expected a file path`);
    const p = resolve(baseDir, f);
    try {
      return readFileSync(p, 'utf8');
    } catch (e) {
      throw new ScenarioError(
        `${at(where)}: cannot read ${p}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
  };

  const seed = root.seed === undefined ? 1 : Number(root.seed);
  if (!Number.isInteger(seed)) throw new ScenarioError(`${at('seed')}: expected an integer`);
  const durationMs = root.duration === undefined ? 600_000 : parseDuration(root.duration, at('duration'));

  // cluster
  const pools: NodePool[] = [];
  let snapshotNodes: Node[] = [];
  let snapshotObjects: KubeObject[] = [];
  const cluster = root.cluster ?? {};
  if (!isObj(cluster)) throw new ScenarioError(`${at('cluster')}: expected a mapping`);
  if (cluster.snapshot !== undefined) {
    const objs = scenarioObjects(
      readRel(cluster.snapshot, 'cluster.snapshot'),
      `${source}: cluster.snapshot`,
    );
    snapshotNodes = objs.filter((o) => o.kind === 'Node') as Node[];
    snapshotObjects = objs.filter((o) => o.kind !== 'Node');
  }
  if (cluster.generator !== undefined) {
    // the seeded generator (src/sim/cluster-gen.ts): node pools, zones, sizes, taints, image caches,
    // and the pods already running on the nodes
    const g = cluster.generator;
    if (!isObj(g))
      throw new ScenarioError(
        `${at('cluster.generator')}: expected a mapping like {nodes: 1000, zones: 3, utilization: 0.5}`,
      );
    const known = new Set([
      'nodes',
      'seed',
      'zones',
      'region',
      'utilization',
      'imageCatalog',
      'imagesPerNode',
      'unschedulableFraction',
      'preferNoScheduleFraction',
      'notReadyFraction',
      'runningPods',
    ]);
    for (const k of Object.keys(g))
      if (!known.has(k))
        throw new ScenarioError(
          `${at('cluster.generator')}: unknown field "${k}" (expected one of ${[...known].join(', ')})`,
        );
    const n = Number(g.nodes);
    if (!Number.isInteger(n) || n < 1)
      throw new ScenarioError(`${at('cluster.generator.nodes')}: expected a positive integer`);
    const num = (k: string) => (g[k] === undefined ? undefined : Number(g[k]));
    let gen;
    try {
      gen = generateCluster({
        nodes: n,
        seed: g.seed === undefined ? seed : (g.seed as number),
        zones: num('zones'),
        region: g.region === undefined ? undefined : String(g.region),
        utilization: num('utilization'),
        imageCatalog: num('imageCatalog'),
        imagesPerNode: num('imagesPerNode'),
        unschedulableFraction: num('unschedulableFraction'),
        preferNoScheduleFraction: num('preferNoScheduleFraction'),
        notReadyFraction: num('notReadyFraction'),
      });
    } catch (e) {
      throw new ScenarioError(`${at('cluster.generator')}: ${(e as Error).message}`);
    }
    snapshotNodes = snapshotNodes.concat(gen.nodes);
    if (g.runningPods !== false) snapshotObjects = snapshotObjects.concat(gen.pods);
  }
  const rawPools = cluster.pools ?? [];
  if (!Array.isArray(rawPools)) throw new ScenarioError(`${at('cluster.pools')}: expected a list`);
  rawPools.forEach((p, i) => {
    const w = `cluster.pools[${i}]`;
    if (!isObj(p)) throw new ScenarioError(`${at(w)}: expected a mapping`);
    const name = String(p.name ?? `pool${i}`);
    const count = Number(p.count);
    if (!Number.isInteger(count) || count < 0)
      throw new ScenarioError(
        `${at(w + '.count')}: expected a non-negative integer, got ${JSON.stringify(p.count)}`,
      );
    const zones = p.zones === undefined ? ['zone-a'] : p.zones;
    if (!Array.isArray(zones) || zones.length === 0)
      throw new ScenarioError(`${at(w + '.zones')}: expected a non-empty list`);
    const taints = (p.taints ?? []) as Taint[];
    if (!Array.isArray(taints)) throw new ScenarioError(`${at(w + '.taints')}: expected a list`);
    taints.forEach((t, j) => {
      if (
        !isObj(t) ||
        typeof t.key !== 'string' ||
        !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(String(t.effect))
      ) {
        throw new ScenarioError(
          `${at(`${w}.taints[${j}]`)}: expected {key, value?, effect: NoSchedule|PreferNoSchedule|NoExecute}`,
        );
      }
    });
    pools.push({
      name,
      count,
      cpu: String(p.cpu ?? '8'),
      memory: String(p.memory ?? '32Gi'),
      pods: Number(p.pods ?? 110),
      zones: zones.map(String),
      region: p.region === undefined ? undefined : String(p.region),
      labels: isObj(p.labels)
        ? Object.fromEntries(Object.entries(p.labels).map(([k, v]) => [k, String(v)]))
        : {},
      taints,
      images: Array.isArray(p.images) ? p.images.map(String) : [],
    });
  });

  // workloads
  const workloads: KubeObject[] = [];
  const rawW = root.workloads ?? [];
  if (!Array.isArray(rawW)) throw new ScenarioError(`${at('workloads')}: expected a list`);
  rawW.forEach((w, i) => {
    const where = `workloads[${i}]`;
    if (!isObj(w)) throw new ScenarioError(`${at(where)}: expected {file: …} or {manifest: …}`);
    if (w.file !== undefined)
      workloads.push(...scenarioObjects(readRel(w.file, where + '.file'), `${source}: ${where}.file`));
    else if (w.manifest !== undefined)
      workloads.push(...scenarioObjects(JSON.stringify(w.manifest), `${source}: ${where}.manifest`));
    else throw new ScenarioError(`${at(where)}: expected {file: …} or {manifest: …}`);
  });

  // timeline
  const timeline: TimelineEntry[] = [];
  const rawT = root.timeline ?? [];
  if (!Array.isArray(rawT)) throw new ScenarioError(`${at('timeline')}: expected a list`);
  rawT.forEach((e, i) => {
    const where = `timeline[${i}]`;
    if (!isObj(e)) throw new ScenarioError(`${at(where)}: expected a mapping with "at" and "action"`);
    const atMs = parseDuration(e.at, at(where + '.at'));
    const action = parseAction(e, at(where), (f, w) =>
      scenarioObjects(readRel(f, `${where}.${w}`), `${source}: ${where}.${w}`),
    );
    timeline.push({ atMs, action, label: describeAction(action) });
  });
  timeline.sort((a, b) => a.atMs - b.atMs);

  // settings
  const s = root.settings ?? {};
  if (!isObj(s)) throw new ScenarioError(`${at('settings')}: expected a mapping`);
  const knownS = new Set([
    'scheduler',
    'watchLatency',
    'watchJitter',
    'maxRequestsInflight',
    'maxMutatingInflight',
    'leaderElection',
    'sampleEvery',
    'schedulerCycle',
    'nodeMonitorGracePeriod',
    'evictionRate',
    'latencies',
  ]);
  for (const k of Object.keys(s))
    if (!knownS.has(k))
      throw new ScenarioError(
        `${at('settings')}: unknown setting "${k}" (expected one of ${[...knownS].join(', ')})`,
      );
  const scheduler = String(s.scheduler ?? 'real');
  if (scheduler !== 'standin' && scheduler !== 'real')
    throw new ScenarioError(`${at('settings.scheduler')}: expected "real" or "standin"`);
  const int = (v: unknown, d: number, w: string) => {
    if (v === undefined) return d;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0)
      throw new ScenarioError(`${at('settings.' + w)}: expected a non-negative integer`);
    return n;
  };
  const latencies: Settings['latencies'] = {};
  if (s.latencies !== undefined) {
    if (!isObj(s.latencies)) throw new ScenarioError(`${at('settings.latencies')}: expected a mapping`);
    for (const [k, v] of Object.entries(s.latencies)) {
      if (!['sandbox', 'cni', 'imagePull', 'containerStart', 'containerStop'].includes(k))
        throw new ScenarioError(
          `${at('settings.latencies.' + k)}: unknown phase (sandbox, cni, imagePull, containerStart, containerStop)`,
        );
      if (!isObj(v))
        throw new ScenarioError(`${at('settings.latencies.' + k)}: expected {median: 2s, sigma: 0.5}`);
      latencies[k] = {
        medianMs: parseDuration(v.median, at(`settings.latencies.${k}.median`)),
        sigma: Number(v.sigma ?? 0.5),
      };
    }
  }
  const settings: Settings = {
    scheduler,
    watchLatencyMs:
      s.watchLatency === undefined ? 0 : parseDuration(s.watchLatency, at('settings.watchLatency')),
    watchJitterMs: s.watchJitter === undefined ? 0 : parseDuration(s.watchJitter, at('settings.watchJitter')),
    maxRequestsInflight: int(s.maxRequestsInflight, 400, 'maxRequestsInflight'),
    maxMutatingInflight: int(s.maxMutatingInflight, 200, 'maxMutatingInflight'),
    leaderElection: !!s.leaderElection,
    sampleEveryMs:
      s.sampleEvery === undefined ? 5000 : parseDuration(s.sampleEvery, at('settings.sampleEvery')),
    schedulerCycleMs:
      s.schedulerCycle === undefined ? 2 : parseDuration(s.schedulerCycle, at('settings.schedulerCycle')),
    nodeMonitorGracePeriodMs:
      s.nodeMonitorGracePeriod === undefined
        ? 40_000
        : parseDuration(s.nodeMonitorGracePeriod, at('settings.nodeMonitorGracePeriod')),
    evictionRate: s.evictionRate === undefined ? 0.1 : Number(s.evictionRate),
    latencies,
  };
  const runs = parseRuns(root.runs, at);
  const metrics = parseMetricCurves(
    root.metrics,
    (p, m) => {
      throw new ScenarioError(`${at(p)}: ${m}`);
    },
    (v, p) => parseDuration(v, at(p)),
  );
  if (pools.length === 0 && snapshotNodes.length === 0)
    throw new ScenarioError(
      `${at('cluster')}: no nodes: give cluster.pools, cluster.generator or cluster.snapshot`,
    );
  return {
    name: String(root.name ?? 'scenario'),
    description: String(root.description ?? ''),
    seed,
    durationMs,
    pools,
    snapshotNodes,
    snapshotObjects,
    workloads,
    timeline,
    settings,
    source,
    runs,
    metrics,
  };
}

/**
 * `runs:` — for pods with restartPolicy Never/OnFailure, a run time distribution and a failure
 * probability per workload, chosen by pod labels:
 * `[{match: {app: report}, duration: {median: 2m, sigma: 0.3}, failureProbability: 0.1}]`.
 */
function parseRuns(raw: unknown, at: (p: string) => string): RunRule[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new ScenarioError(`${at('runs')}: expected a list`);
  return raw.map((r, i) => {
    const w = `runs[${i}]`;
    if (!isObj(r))
      throw new ScenarioError(
        `${at(w)}: expected {match: {label: value}, duration: {median: 30s, sigma: 0.5}, failureProbability: 0}`,
      );
    for (const k of Object.keys(r))
      if (!['match', 'duration', 'failureProbability'].includes(k))
        throw new ScenarioError(
          `${at(w)}: unknown field "${k}" (expected match, duration, failureProbability)`,
        );
    if (r.match !== undefined && !isObj(r.match))
      throw new ScenarioError(`${at(w + '.match')}: expected a mapping of pod labels`);
    const d = r.duration;
    if (d !== undefined && !isObj(d))
      throw new ScenarioError(`${at(w + '.duration')}: expected {median: 30s, sigma: 0.5}`);
    const sigma = d?.sigma === undefined ? 0.5 : Number(d.sigma);
    if (!Number.isFinite(sigma) || sigma < 0)
      throw new ScenarioError(`${at(w + '.duration.sigma')}: expected a non-negative number`);
    const p = r.failureProbability === undefined ? 0 : Number(r.failureProbability);
    if (!Number.isFinite(p) || p < 0 || p > 1)
      throw new ScenarioError(`${at(w + '.failureProbability')}: expected a number between 0 and 1`);
    return {
      matchLabels: Object.fromEntries(Object.entries(r.match ?? {}).map(([k, v]) => [k, String(v)])),
      duration: {
        medianMs: d?.median === undefined ? 30_000 : parseDuration(d.median, at(w + '.duration.median')),
        sigma,
      },
      failureProbability: p,
    };
  });
}

function parseAction(e: Obj, where: string, loadFile: (f: unknown, w: string) => KubeObject[]): Action {
  const a = e.action;
  const str = (k: string): string => {
    if (typeof e[k] !== 'string' || !e[k]) throw new ScenarioError(`${where}.${k}: required for action ${a}`);
    return e[k] as string;
  };
  const nodes = (): string[] => {
    if (typeof e.node === 'string') return [e.node];
    if (Array.isArray(e.nodes)) return e.nodes.map(String);
    return [];
  };
  switch (a) {
    case 'scale': {
      const r = Number(e.replicas);
      if (!Number.isInteger(r) || r < 0)
        throw new ScenarioError(`${where}.replicas: expected a non-negative integer`);
      return { kind: 'scale', deployment: str('deployment'), replicas: r };
    }
    case 'rollout':
      return {
        kind: 'rollout',
        deployment: str('deployment'),
        image: str('image'),
        container: typeof e.container === 'string' ? e.container : undefined,
      };
    case 'rollback':
      return {
        kind: 'rollback',
        deployment: str('deployment'),
        toRevision: e.toRevision === undefined ? undefined : Number(e.toRevision),
      };
    case 'nodeDown': {
      const ns = nodes();
      const count = e.count === undefined ? undefined : Number(e.count);
      if (ns.length === 0 && (!count || count < 1))
        throw new ScenarioError(`${where}: nodeDown needs "node", "nodes" or "count"`);
      return { kind: 'nodeDown', nodes: ns, count, pool: typeof e.pool === 'string' ? e.pool : undefined };
    }
    case 'nodeUp':
    case 'deleteNode': {
      const ns = nodes();
      if (ns.length === 0 && a === 'deleteNode')
        throw new ScenarioError(`${where}: ${a} needs "node" or "nodes"`);
      return { kind: a, nodes: ns };
    }
    case 'zoneOutage':
    case 'zoneRecover':
      return { kind: a, zone: str('zone') };
    case 'burst': {
      const count = Number(e.count);
      if (!Number.isInteger(count) || count < 1)
        throw new ScenarioError(`${where}.count: expected a positive integer`);
      let template: KubeObject | undefined;
      if (isObj(e.template)) template = e.template as unknown as KubeObject;
      else if (e.file !== undefined) template = loadFile(e.file, 'file')[0];
      if (!template) {
        template = {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'burst' },
          spec: {
            containers: [
              {
                name: 'c',
                image: 'registry.k8s.io/pause:3.9',
                resources: { requests: { cpu: '100m', memory: '64Mi' } },
              },
            ],
          },
        } as KubeObject;
      }
      if (template.kind !== 'Pod')
        throw new ScenarioError(`${where}.template: a burst creates Pods; got kind ${template.kind}`);
      return {
        kind: 'burst',
        count,
        namespace: String(e.namespace ?? 'default'),
        namePrefix: String(e.namePrefix ?? 'burst'),
        template,
      };
    }
    case 'apply': {
      if (e.file !== undefined) return { kind: 'apply', objects: loadFile(e.file, 'file') };
      if (e.manifest !== undefined)
        return { kind: 'apply', objects: scenarioObjects(JSON.stringify(e.manifest), `${where}.manifest`) };
      throw new ScenarioError(`${where}: apply needs "file" or "manifest"`);
    }
    case 'delete':
      return {
        kind: 'delete',
        resource: str('resource'),
        namespace: typeof e.namespace === 'string' ? e.namespace : undefined,
        name: str('name'),
      };
    case 'drain':
      return {
        kind: 'drain',
        node: str('node'),
        timeoutMs: e.timeout === undefined ? 0 : parseDuration(e.timeout, `${where}.timeout`),
      };
    case 'killLeader': {
      const c = str('component');
      if (c !== 'controller-manager' && c !== 'scheduler')
        throw new ScenarioError(`${where}.component: expected controller-manager or scheduler`);
      return { kind: 'killLeader', component: c };
    }
    default:
      throw new ScenarioError(
        `${where}.action: unknown action ${JSON.stringify(a)} (expected scale, rollout, rollback, nodeDown, nodeUp, deleteNode, zoneOutage, zoneRecover, burst, apply, delete, killLeader, drain)`,
      );
  }
}

export function describeAction(a: Action): string {
  switch (a.kind) {
    case 'scale':
      return `scale ${a.deployment} to ${a.replicas}`;
    case 'rollout':
      return `rollout ${a.deployment} image=${a.image}`;
    case 'rollback':
      return `rollback ${a.deployment}${a.toRevision ? ` to revision ${a.toRevision}` : ''}`;
    case 'nodeDown':
      return a.nodes.length
        ? `node down ${a.nodes.join(', ')}`
        : `${a.count} node(s) down${a.pool ? ` in pool ${a.pool}` : ''}`;
    case 'nodeUp':
      return a.nodes.length ? `node up ${a.nodes.join(', ')}` : 'all failed nodes up';
    case 'deleteNode':
      return `delete node ${a.nodes.join(', ')}`;
    case 'zoneOutage':
      return `zone outage ${a.zone}`;
    case 'zoneRecover':
      return `zone recovers ${a.zone}`;
    case 'burst':
      return `burst of ${a.count} pods`;
    case 'apply':
      return `apply ${a.objects.length} object(s)`;
    case 'delete':
      return `delete ${a.resource} ${a.namespace ? a.namespace + '/' : ''}${a.name}`;
    case 'killLeader':
      return `kill the ${a.component} leader`;
    case 'drain':
      return `drain ${a.node}`;
  }
}

/** Nodes of a pool spec, named <pool>-<index, 4 digits>, spread round-robin over the zones. */
export function nodesFromPools(pools: NodePool[]): Node[] {
  const out: Node[] = [];
  for (const p of pools) {
    for (let i = 0; i < p.count; i++) {
      const name = `${p.name}-${String(i).padStart(4, '0')}`;
      const zone = p.zones[i % p.zones.length];
      const labels: Record<string, string> = {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'topology.kubernetes.io/zone': zone,
        'node.kubernetes.io/pool': p.name,
        ...p.labels,
      };
      if (p.region) labels['topology.kubernetes.io/region'] = p.region;
      const res = { cpu: p.cpu, memory: p.memory, pods: String(p.pods) };
      out.push({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name, labels },
        spec: { taints: p.taints.length ? structuredClone(p.taints) : undefined },
        status: {
          capacity: res,
          allocatable: res,
          images: p.images.length ? p.images.map((n) => ({ names: [n], sizeBytes: 100_000_000 })) : undefined,
          conditions: [],
        },
      });
    }
  }
  return out;
}

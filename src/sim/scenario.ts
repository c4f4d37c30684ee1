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
import { NODE_MONITOR_GRACE_PERIOD_MS } from '../controllers/nodelifecycle.js';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { prepareForCreate } from '../api/manifest.js';
import { ManifestError, readInputTextSync } from '../api/manifest-read.js';
import { bytes, parseQuantity } from '../api/quantity.js';
import { parseNodeDevices } from '../api/resource-slices.js';
import { registeredNodeInfo } from '../api/kinds.js';
import { wellKnownNodeLabels } from '../api/topology.js';
import type { KubeObject, Node, Taint } from '../api/types.js';
import { ConfigError, parseSchedulerConfig, type SchedulerConfig } from '../scheduler/config.js';
import { checkDurationMs, LIMITS } from '../util/limits.js';
import { checkKnownFields, failAt, parseDuration, ScenarioError } from '../util/scenario-input.js';
import { generateCluster } from './cluster-gen.js';
import { parseMetricCurves } from './metric-curves.js';
import { parseKnobs } from './scenario-knobs.js';
import { parseKubeletSettings, parseRuns, parseUsage } from '../kubelet/settings.js';
import { evictionThresholds } from '../kubelet/eviction-manager.js';
import { parseAutoscaler } from '../autoscaler/config.js';
import { bounded, count, isObj, scenarioObjects, yamlValues } from './scenario-read.js';
import { checkReferences, describeAction, parseAction } from './scenario-timeline.js';
import type { NodePool, Scenario, Settings, TimelineEntry } from './scenario-types.js';

/** kube-apiserver's --etcd-compaction-interval default (storagebackend DefaultCompactInterval) */
export const DEFAULT_COMPACTION_INTERVAL_MS = 300_000;

function compactionInterval(v: unknown, where: string): number {
  if (v === undefined) return DEFAULT_COMPACTION_INTERVAL_MS;
  const ms = parseDuration(v, where);
  if (ms !== 0 && ms < 1000)
    throw new ScenarioError(`${where}: expected 0 (never) or at least 1s, got ${JSON.stringify(v)}`);
  return ms;
}

/** Parse a scenario file. Relative `file:` references resolve against the scenario's directory. */
export function loadScenario(path: string): Scenario {
  const text = bounded(() => readInputTextSync(path));
  return parseScenario(text, path, dirname(resolve(path)));
}

export function parseScenario(text: string, source: string, baseDir: string): Scenario {
  const values = yamlValues(text, source);
  if (values.length !== 1)
    throw new ScenarioError(`${source}: expected one YAML document, found ${values.length}`);
  const root = values[0];
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
    'usage',
    'autoscaler',
  ]);
  const at = (p: string) => `${source}: ${p}`;
  const fail = failAt(at);
  checkKnownFields(root, known, '', fail);
  const readRel = (f: unknown, where: string): string => {
    if (typeof f !== 'string' || !f) throw new ScenarioError(`${at(where)}: expected a file path`);
    const p = resolve(baseDir, f);
    try {
      return readInputTextSync(p);
    } catch (e) {
      if (e instanceof ManifestError) throw new ScenarioError(`${at(where)}: ${e.message}`);
      throw e;
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
    // a snapshot is state that exists: what the server set (resourceVersion, …) is dropped; the
    // uid stays until the object is created, so that its dependents' ownerReferences follow it
    const objs = scenarioObjects(
      readRel(cluster.snapshot, 'cluster.snapshot'),
      resolve(baseDir, String(cluster.snapshot)),
      false,
    ).map((o) => prepareForCreate(o, { keepUid: true }));
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
    checkKnownFields(g, known, 'cluster.generator', fail);
    const n = count(at('cluster.generator.nodes'), g.nodes, LIMITS.nodes, 1);
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
    const n = count(at(w + '.count'), p.count, LIMITS.nodes);
    const zones = p.zones === undefined ? ['zone-a'] : p.zones;
    if (!Array.isArray(zones) || zones.length === 0 || zones.some((z) => typeof z !== 'string' || !z))
      throw new ScenarioError(`${at(w + '.zones')}: expected a non-empty list of zone names`);
    for (const k of ['cpu', 'memory'] as const) {
      if (p[k] === undefined) continue;
      if (typeof p[k] !== 'string' && typeof p[k] !== 'number')
        throw new ScenarioError(`${at(`${w}.${k}`)}: expected a quantity like "8" or "32Gi"`);
      let q;
      try {
        q = parseQuantity(String(p[k]));
      } catch (e) {
        throw new ScenarioError(`${at(`${w}.${k}`)}: ${(e as Error).message}`);
      }
      if (q.sign() <= 0) throw new ScenarioError(`${at(`${w}.${k}`)}: must be greater than zero`);
    }
    const podsPerNode = p.pods === undefined ? 110 : count(at(w + '.pods'), p.pods, LIMITS.pods, 1);
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
      count: n,
      cpu: String(p.cpu ?? '8'),
      memory: String(p.memory ?? '32Gi'),
      pods: podsPerNode,
      zones: zones.map(String),
      region: p.region === undefined ? undefined : String(p.region),
      labels: isObj(p.labels)
        ? Object.fromEntries(Object.entries(p.labels).map(([k, v]) => [k, String(v)]))
        : {},
      taints,
      images: Array.isArray(p.images) ? p.images.map(String) : [],
      devices: parseNodeDevices(p.devices, `${w}.devices`, fail),
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
      workloads.push(...scenarioObjects(readRel(w.file, where + '.file'), resolve(baseDir, String(w.file))));
    else if (w.manifest !== undefined)
      workloads.push(...scenarioObjects(JSON.stringify(w.manifest), `${source}: ${where}.manifest`));
    else throw new ScenarioError(`${at(where)}: expected {file: …} or {manifest: …}`);
  });

  // timeline
  const timeline: TimelineEntry[] = [];
  const fileIndex = new Map<TimelineEntry, number>();
  const rawT = root.timeline ?? [];
  if (!Array.isArray(rawT)) throw new ScenarioError(`${at('timeline')}: expected a list`);
  rawT.forEach((e, i) => {
    const where = `timeline[${i}]`;
    if (!isObj(e)) throw new ScenarioError(`${at(where)}: expected a mapping with "at" and "action"`);
    const atMs = parseDuration(e.at, at(where + '.at'));
    if (atMs > durationMs)
      throw new ScenarioError(
        `${at(where + '.at')}: ${JSON.stringify(e.at)} is after the end of the run (duration ${JSON.stringify(root.duration ?? '10m')})`,
      );
    const action = parseAction(e, at(where), (f, w) =>
      scenarioObjects(readRel(f, `${where}.${w}`), resolve(baseDir, String(f))),
    );
    const entry = { atMs, action, label: describeAction(action) };
    fileIndex.set(entry, i);
    timeline.push(entry);
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
    'schedulerConfig',
    'plugins',
    'clientRateLimits',
    'compactionInterval',
    'controllers',
    'apiLatency',
    'kubelet',
    'draPrepare',
  ]);
  checkKnownFields(s, knownS, 'settings', fail);
  const scheduler = String(s.scheduler ?? 'real');
  if (scheduler !== 'standin' && scheduler !== 'real')
    throw new ScenarioError(`${at('settings.scheduler')}: expected "real" or "standin"`);
  const int = (v: unknown, d: number, w: string) =>
    v === undefined ? d : count(at('settings.' + w), v, LIMITS.inflight, 1);
  const real = (v: unknown, d: number, w: string, max: number) => {
    if (v === undefined) return d;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > max)
      throw new ScenarioError(`${at(w)}: expected a number from 0 to ${max}, got ${JSON.stringify(v)}`);
    return v;
  };
  const latencyOf = (v: unknown, w: string) => {
    if (!isObj(v)) throw new ScenarioError(`${at(w)}: expected {median: 2s, sigma: 0.5}`);
    checkKnownFields(v, ['median', 'sigma'], w, fail);
    return {
      medianMs: parseDuration(v.median, at(`${w}.median`)),
      sigma: real(v.sigma, 0.5, `${w}.sigma`, LIMITS.latencySigma),
    };
  };
  const latencies: Settings['latencies'] = {};
  if (s.latencies !== undefined) {
    if (!isObj(s.latencies)) throw new ScenarioError(`${at('settings.latencies')}: expected a mapping`);
    const phases = ['sandbox', 'cni', 'imagePull', 'containerStart', 'containerStop'];
    checkKnownFields(s.latencies, phases, 'settings.latencies', fail);
    for (const [k, v] of Object.entries(s.latencies)) latencies[k] = latencyOf(v, `settings.latencies.${k}`);
  }
  let draPrepare: Settings['draPrepare'];
  if (s.draPrepare !== undefined) {
    if (!isObj(s.draPrepare))
      throw new ScenarioError(
        `${at('settings.draPrepare')}: expected a mapping of driver name (or default) to {median, sigma}`,
      );
    draPrepare = Object.fromEntries(
      Object.entries(s.draPrepare).map(([k, v]) => [k, latencyOf(v, `settings.draPrepare.${k}`)]),
    );
  }
  const settings: Settings = {
    draPrepare,
    scheduler,
    watchLatencyMs:
      s.watchLatency === undefined ? 0 : parseDuration(s.watchLatency, at('settings.watchLatency')),
    watchJitterMs: s.watchJitter === undefined ? 0 : parseDuration(s.watchJitter, at('settings.watchJitter')),
    maxRequestsInflight: int(s.maxRequestsInflight, 400, 'maxRequestsInflight'),
    maxMutatingInflight: int(s.maxMutatingInflight, 200, 'maxMutatingInflight'),
    leaderElection: bool(s.leaderElection, at('settings.leaderElection')),
    sampleEveryMs: sampleEvery(s.sampleEvery, durationMs, at('settings.sampleEvery')),
    schedulerCycleMs:
      s.schedulerCycle === undefined
        ? 2
        : positive(
            parseDuration(s.schedulerCycle, at('settings.schedulerCycle')),
            at('settings.schedulerCycle'),
          ),
    nodeMonitorGracePeriodMs:
      s.nodeMonitorGracePeriod === undefined
        ? NODE_MONITOR_GRACE_PERIOD_MS
        : positive(
            parseDuration(s.nodeMonitorGracePeriod, at('settings.nodeMonitorGracePeriod')),
            at('settings.nodeMonitorGracePeriod'),
          ),
    evictionRate: real(s.evictionRate, 0.1, 'settings.evictionRate', LIMITS.evictionRate),
    latencies,
    schedulerConfig:
      s.schedulerConfig === undefined
        ? undefined
        : schedulerConfigSetting(s.schedulerConfig, at('settings.schedulerConfig'), (w) =>
            readRel(s.schedulerConfig, w),
          ),
    plugins: pluginSettings(s.plugins, baseDir, at),
    clientRateLimits:
      s.clientRateLimits === undefined ? true : bool(s.clientRateLimits, at('settings.clientRateLimits')),
    compactionIntervalMs: compactionInterval(s.compactionInterval, at('settings.compactionInterval')),
    ...parseKnobs(s, fail, (v, p) => parseDuration(v, at(p)), LIMITS.controllerWorkers),
  };
  const knobQuantity = (v: unknown, p: string): number => {
    try {
      const q = bytes(String(v));
      if (q < 0) throw new Error('must not be negative');
      return q;
    } catch (e) {
      throw new ScenarioError(`${at(p)}: ${(e as Error).message}`);
    }
  };
  const usage = parseUsage(root.usage, fail, knobQuantity);
  if (s.kubelet !== undefined || usage.length)
    settings.kubelet = parseKubeletSettings(
      s.kubelet ?? {},
      fail,
      (v, p) => parseDuration(v, at(p)),
      knobQuantity,
    );
  if (settings.kubelet)
    evictionThresholds(settings.kubelet, (v, p) => parseDuration(v, at(`settings.kubelet ${p}`)), fail);
  if (scheduler === 'standin' && (settings.schedulerConfig || settings.plugins.length))
    throw new ScenarioError(
      `${at(settings.schedulerConfig ? 'settings.schedulerConfig' : 'settings.plugins')}: needs settings.scheduler: real (the stand-in has fixed plugins)`,
    );
  const runs = parseRuns(root.runs, at);
  const metrics = parseMetricCurves(root.metrics, fail, (v, p) => parseDuration(v, at(p)));
  if (pools.length === 0 && snapshotNodes.length === 0 && root.autoscaler === undefined)
    throw new ScenarioError(
      `${at('cluster')}: no nodes: give cluster.pools, cluster.generator, cluster.snapshot or autoscaler.nodeGroups`,
    );
  const totalNodes = snapshotNodes.length + pools.reduce((n, p) => n + p.count, 0);
  count(`${at('cluster')}: nodes (pools, generator and snapshot together)`, totalNodes, LIMITS.nodes);
  count(
    `${at('cluster')}: pods already running (generator and snapshot)`,
    snapshotObjects.length,
    LIMITS.pods,
  );
  const scenario: Scenario = {
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
    usage,
    autoscaler: parseAutoscaler(root.autoscaler, at),
  };
  checkReferences(scenario, fileIndex, at);
  return scenario;
}

/**
 * settings.schedulerConfig: a KubeSchedulerConfiguration inline (a mapping) or a file relative to
 * the scenario, checked as kube-scheduler checks its --config.
 */
function schedulerConfigSetting(v: unknown, where: string, read: (where: string) => string): SchedulerConfig {
  let doc: unknown = v;
  let src = where;
  if (typeof v === 'string') {
    const docs = yamlValues(read('settings.schedulerConfig'), where);
    if (docs.length !== 1) throw new ScenarioError(`${where}: ${v}: expected one YAML document`);
    doc = docs[0];
    src = `${where}: ${v}`;
  } else if (!isObj(v))
    throw new ScenarioError(`${where}: expected a file name or a KubeSchedulerConfiguration mapping`);
  try {
    return parseSchedulerConfig(doc, src);
  } catch (e) {
    if (e instanceof ConfigError) throw new ScenarioError(e.message);
    throw e;
  }
}

/** settings.plugins: `path[:weight]` strings; the file must exist, the weight be in 1..100. */
function pluginSettings(v: unknown, baseDir: string, at: (p: string) => string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v))
    throw new ScenarioError(`${at('settings.plugins')}: expected a list like [plugins/binpack.mjs:5]`);
  // each plugin runs in a worker thread of its own
  count(at('settings.plugins'), v.length, LIMITS.threads);
  return v.map((p, i) => {
    const where = at(`settings.plugins[${i}]`);
    if (typeof p !== 'string' || !p)
      throw new ScenarioError(
        `${where}: expected a plugin module as path[:weight], got ${JSON.stringify(p)}`,
      );
    const m = /^(.*?)(?::(\d+))?$/.exec(p)!;
    if (m[2] !== undefined && (Number(m[2]) < 1 || Number(m[2]) > 100))
      throw new ScenarioError(`${where}: weight must be in 1..100, got ${m[2]}`);
    const file = resolve(baseDir, m[1]!);
    if (!existsSync(file)) throw new ScenarioError(`${where}: ${file}: no such file`);
    return m[2] === undefined ? file : `${file}:${m[2]}`;
  });
}

function bool(v: unknown, where: string): boolean {
  if (v === undefined) return false;
  if (typeof v !== 'boolean')
    throw new ScenarioError(`${where}: expected true or false, got ${JSON.stringify(v)}`);
  return v;
}

function positive(ms: number, where: string): number {
  if (ms <= 0) throw new ScenarioError(`${where}: must be longer than 0`);
  return ms;
}

/** settings.sampleEvery: at least LIMITS.minSampleEveryMs, and at most LIMITS.samples over the run. */
function sampleEvery(v: unknown, durationMs: number, where: string): number {
  const ms = v === undefined ? 5000 : parseDuration(v, where);
  bounded(() => checkDurationMs(where, ms, LIMITS.durationMs, LIMITS.minSampleEveryMs));
  const samples = Math.ceil(durationMs / ms);
  if (samples > LIMITS.samples)
    throw new ScenarioError(
      `${where}: ${samples} samples over the run is above the limit of ${LIMITS.samples} (see "Limits" in the README); sample less often`,
    );
  return ms;
}

/** Nodes of a pool spec, named <pool>-<index, 4 digits>, spread round-robin over the zones. */
export function nodesFromPools(pools: NodePool[]): Node[] {
  const out: Node[] = [];
  for (const p of pools) {
    for (let i = 0; i < p.count; i++) {
      const name = `${p.name}-${String(i).padStart(4, '0')}`;
      const zone = p.zones[i % p.zones.length];
      const labels = { ...wellKnownNodeLabels({ name, zone, pool: p.name }), ...p.labels };
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
          nodeInfo: registeredNodeInfo(labels),
        },
      });
    }
  }
  return out;
}

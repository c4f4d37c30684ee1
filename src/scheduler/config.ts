/**
 * KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) loading: strict field checking with
 * errors that name the file and the field path (like the API machinery's strict decoding), the v1
 * defaults (the default profile's multiPoint plugins and weights), and the per-extension-point
 * expansion of multiPoint with explicit enable/disable/override, as kube-scheduler does
 * (apis/config/v1/default_plugins.go mergePlugins + runtime/framework.go expandMultiPointPlugins).
 */
import { ManifestError, parseYamlValue, readInputTextSync } from '../api/manifest-read.js';
import type { FieldError } from '../api/field.js';
import { validatePluginArgs } from './config-args.js';

export const CONFIG_API_VERSION = 'kubescheduler.config.k8s.io/v1';
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

/** Extension points, with their config field names. */
export const EXTENSION_POINTS = [
  'preEnqueue',
  'queueSort',
  'preFilter',
  'filter',
  'postFilter',
  'preScore',
  'score',
  'reserve',
  'permit',
  'preBind',
  'bind',
  'postBind',
] as const;
export type ExtensionPoint = (typeof EXTENSION_POINTS)[number];

export interface PluginRef {
  name: string;
  weight?: number;
}

export interface PluginSet {
  enabled?: PluginRef[];
  disabled?: PluginRef[];
}

export type Plugins = Partial<Record<ExtensionPoint | 'multiPoint', PluginSet>>;

export interface ProfileConfig {
  schedulerName: string;
  percentageOfNodesToScore?: number;
  plugins: Plugins;
  /** plugin name → args (kind/apiVersion stripped) */
  pluginConfig: Map<string, Record<string, unknown>>;
}

export interface SchedulerConfig {
  percentageOfNodesToScore: number;
  podInitialBackoffSeconds: number;
  podMaxBackoffSeconds: number;
  profiles: ProfileConfig[];
}

/** A configuration error naming the source and the field path. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * The v1 default profile's multiPoint plugins, in upstream order, with score weights
 * (pkg/scheduler/apis/config/v1/default_plugins.go).
 */
export const DEFAULT_MULTIPOINT: readonly PluginRef[] = [
  { name: 'SchedulingGates' },
  { name: 'PrioritySort' },
  { name: 'NodeUnschedulable' },
  { name: 'NodeName' },
  { name: 'TaintToleration', weight: 3 },
  { name: 'NodeAffinity', weight: 2 },
  { name: 'NodePorts' },
  { name: 'NodeResourcesFit', weight: 1 },
  { name: 'VolumeRestrictions' },
  { name: 'NodeVolumeLimits' },
  { name: 'VolumeBinding' },
  { name: 'VolumeZone' },
  { name: 'PodTopologySpread', weight: 2 },
  { name: 'InterPodAffinity', weight: 2 },
  // DRA is GA in v1.34: applyFeatureGates puts it before DefaultPreemption ("better to first
  // deallocate an idle ResourceClaim than … evict some Pod")
  { name: 'DynamicResources' },
  { name: 'DefaultPreemption' },
  { name: 'NodeResourcesBalancedAllocation', weight: 1 },
  { name: 'ImageLocality', weight: 1 },
  { name: 'DefaultBinder' },
];

const TOP_FIELDS = new Set([
  'apiVersion',
  'kind',
  'parallelism',
  'leaderElection',
  'clientConnection',
  'healthzBindAddress',
  'metricsBindAddress',
  'enableProfiling',
  'enableContentionProfiling',
  'percentageOfNodesToScore',
  'podInitialBackoffSeconds',
  'podMaxBackoffSeconds',
  'profiles',
  'extenders',
  'delayCacheUntilActive',
]);
const PROFILE_FIELDS = new Set(['schedulerName', 'percentageOfNodesToScore', 'plugins', 'pluginConfig']);
const PLUGINS_FIELDS = new Set<string>(['multiPoint', ...EXTENSION_POINTS]);

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkFields(obj: Record<string, unknown>, allowed: Set<string>, path: string, src: string): void {
  for (const k of Object.keys(obj)) {
    if (!allowed.has(k)) throw new ConfigError(`${src}: strict decoding error: unknown field "${path}${k}"`);
  }
}

function intField(v: unknown, path: string, src: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v))
    throw new ConfigError(`${src}: ${path}: Invalid value: ${JSON.stringify(v)}: must be an integer`);
  if (v < min || v > max)
    throw new ConfigError(`${src}: ${path}: Invalid value: ${v}: not in valid range [${min}-${max}]`);
  return v;
}

function parsePluginSet(v: unknown, path: string, src: string): PluginSet {
  if (v === null || v === undefined) return {};
  if (!isObj(v)) throw new ConfigError(`${src}: ${path}: expected an object with enabled/disabled`);
  checkFields(v, new Set(['enabled', 'disabled']), path + '.', src);
  const list = (x: unknown, p: string): PluginRef[] => {
    if (x === undefined || x === null) return [];
    if (!Array.isArray(x)) throw new ConfigError(`${src}: ${p}: expected a list`);
    return x.map((e, i) => {
      if (!isObj(e)) throw new ConfigError(`${src}: ${p}[${i}]: expected {name, weight}`);
      checkFields(e, new Set(['name', 'weight']), `${p}[${i}].`, src);
      if (typeof e.name !== 'string' || !e.name)
        throw new ConfigError(`${src}: ${p}[${i}].name: Required value`);
      const ref: PluginRef = { name: e.name };
      if (e.weight !== undefined) ref.weight = intField(e.weight, `${p}[${i}].weight`, src, 0, 100);
      return ref;
    });
  };
  return { enabled: list(v.enabled, path + '.enabled'), disabled: list(v.disabled, path + '.disabled') };
}

/** Known plugin args kinds and their fields (strictly checked). */
export const PLUGIN_ARGS_FIELDS: Readonly<Record<string, readonly string[]>> = {
  NodeResourcesFit: ['ignoredResources', 'ignoredResourceGroups', 'scoringStrategy'],
  NodeResourcesBalancedAllocation: ['resources'],
  PodTopologySpread: ['defaultConstraints', 'defaultingType'],
  InterPodAffinity: ['hardPodAffinityWeight', 'ignorePreferredTermsOfExistingPods'],
  NodeAffinity: ['addedAffinity'],
  DefaultPreemption: ['minCandidateNodesPercentage', 'minCandidateNodesAbsolute'],
  VolumeBinding: ['bindTimeoutSeconds', 'shape'],
};

/** utilerrors.Aggregate's text: one error as it is, several as `[e1, e2]` */
function aggregate(errs: readonly FieldError[]): string {
  return errs.length === 1 ? errs[0]!.toString() : `[${errs.join(', ')}]`;
}

/**
 * Parses a KubeSchedulerConfiguration object; `src` names the file in errors. Plugin args are
 * validated here, as ValidateKubeSchedulerConfiguration does, so a bad weight is reported with its
 * full path before any scheduler is built (config-args.ts).
 */
export function parseSchedulerConfig(doc: unknown, src = 'config'): SchedulerConfig {
  if (!isObj(doc)) throw new ConfigError(`${src}: expected a KubeSchedulerConfiguration object`);
  checkFields(doc, TOP_FIELDS, '', src);
  if (doc.apiVersion !== CONFIG_API_VERSION) {
    throw new ConfigError(
      `${src}: apiVersion: Unsupported value: ${JSON.stringify(doc.apiVersion)}: supported values: "${CONFIG_API_VERSION}"`,
    );
  }
  if (doc.kind !== 'KubeSchedulerConfiguration')
    throw new ConfigError(
      `${src}: kind: Unsupported value: ${JSON.stringify(doc.kind)}: supported values: "KubeSchedulerConfiguration"`,
    );
  if (doc.extenders !== undefined && (!Array.isArray(doc.extenders) || doc.extenders.length > 0)) {
    throw new ConfigError(
      `${src}: extenders: scheduler extenders (HTTP webhooks) are not supported by kubesim; use a TS or WASM plugin`,
    );
  }
  const cfg: SchedulerConfig = {
    percentageOfNodesToScore:
      doc.percentageOfNodesToScore === undefined
        ? 0
        : intField(doc.percentageOfNodesToScore, 'percentageOfNodesToScore', src, 0, 100),
    podInitialBackoffSeconds:
      doc.podInitialBackoffSeconds === undefined
        ? 1
        : intField(doc.podInitialBackoffSeconds, 'podInitialBackoffSeconds', src, 1, 3600),
    podMaxBackoffSeconds:
      doc.podMaxBackoffSeconds === undefined
        ? 10
        : intField(doc.podMaxBackoffSeconds, 'podMaxBackoffSeconds', src, 1, 3600),
    profiles: [],
  };
  if (cfg.podMaxBackoffSeconds < cfg.podInitialBackoffSeconds) {
    throw new ConfigError(
      `${src}: podMaxBackoffSeconds: Invalid value: ${cfg.podMaxBackoffSeconds}: must be greater than or equal to PodInitialBackoffSeconds`,
    );
  }
  const profiles = doc.profiles ?? [{}];
  if (!Array.isArray(profiles) || profiles.length === 0)
    throw new ConfigError(`${src}: profiles: Required value`);
  const names = new Set<string>();
  profiles.forEach((p: unknown, i: number) => {
    const path = `profiles[${i}]`;
    if (!isObj(p)) throw new ConfigError(`${src}: ${path}: expected an object`);
    checkFields(p, PROFILE_FIELDS, path + '.', src);
    const schedulerName = p.schedulerName === undefined ? DEFAULT_SCHEDULER_NAME : p.schedulerName;
    if (typeof schedulerName !== 'string' || !schedulerName)
      throw new ConfigError(`${src}: ${path}.schedulerName: Required value`);
    if (names.has(schedulerName))
      throw new ConfigError(`${src}: ${path}.schedulerName: Duplicate value: "${schedulerName}"`);
    names.add(schedulerName);
    const plugins: Plugins = {};
    if (p.plugins !== undefined && p.plugins !== null) {
      if (!isObj(p.plugins)) throw new ConfigError(`${src}: ${path}.plugins: expected an object`);
      checkFields(p.plugins, PLUGINS_FIELDS, `${path}.plugins.`, src);
      for (const [k, v] of Object.entries(p.plugins))
        plugins[k as ExtensionPoint] = parsePluginSet(v, `${path}.plugins.${k}`, src);
    }
    const pluginConfig = new Map<string, Record<string, unknown>>();
    const pcs = p.pluginConfig ?? [];
    if (!Array.isArray(pcs)) throw new ConfigError(`${src}: ${path}.pluginConfig: expected a list`);
    pcs.forEach((pc: unknown, j: number) => {
      const pp = `${path}.pluginConfig[${j}]`;
      if (!isObj(pc)) throw new ConfigError(`${src}: ${pp}: expected {name, args}`);
      checkFields(pc, new Set(['name', 'args']), pp + '.', src);
      if (typeof pc.name !== 'string' || !pc.name)
        throw new ConfigError(`${src}: ${pp}.name: Required value`);
      if (pluginConfig.has(pc.name)) throw new ConfigError(`${src}: ${pp}: Duplicate value: "${pc.name}"`);
      const args = pc.args ?? {};
      if (!isObj(args)) throw new ConfigError(`${src}: ${pp}.args: expected an object`);
      const { kind, apiVersion, ...rest } = args;
      const known = PLUGIN_ARGS_FIELDS[pc.name];
      if (known) {
        const expectKind = `${pc.name}Args`;
        if (kind !== undefined && kind !== expectKind)
          throw new ConfigError(
            `${src}: ${pp}.args.kind: Invalid value: ${JSON.stringify(kind)}: expected "${expectKind}"`,
          );
        checkFields(rest, new Set(known), `${pp}.args.`, src);
        const errs = validatePluginArgs(pc.name, rest, `${pp}.args`);
        if (errs.length > 0) throw new ConfigError(`${src}: ${aggregate(errs)}`);
      }
      void apiVersion;
      pluginConfig.set(pc.name, rest);
    });
    const prof: ProfileConfig = { schedulerName, plugins, pluginConfig };
    if (p.percentageOfNodesToScore !== undefined && p.percentageOfNodesToScore !== null) {
      prof.percentageOfNodesToScore = intField(
        p.percentageOfNodesToScore,
        `${path}.percentageOfNodesToScore`,
        src,
        0,
        100,
      );
    }
    cfg.profiles.push(prof);
  });
  return cfg;
}

/** Reads and parses a YAML or JSON KubeSchedulerConfiguration file. */
export function loadSchedulerConfig(file: string): SchedulerConfig {
  // through the one input reader (size, UTF-8, nesting depth and string length checked before the
  // YAML composer recurses): a 20,000-deep file is an error, not `Maximum call stack size exceeded`
  let doc: unknown;
  try {
    doc = parseYamlValue(readInputTextSync(file), file);
  } catch (e) {
    if (e instanceof ManifestError)
      throw new ConfigError(`cannot read scheduler configuration: ${e.message}`);
    throw e;
  }
  return parseSchedulerConfig(doc, file);
}

/** The configuration kube-scheduler runs with when given none: one default profile. */
export function defaultSchedulerConfig(): SchedulerConfig {
  return parseSchedulerConfig({ apiVersion: CONFIG_API_VERSION, kind: 'KubeSchedulerConfiguration' });
}

// ---------------------------------------------------------------- expansion

/** upstream mergePluginSet: custom disables/overrides defaults in place, then appends its own. */
function mergePluginSet(def: PluginSet, custom: PluginSet): PluginSet {
  const disabled = new Set([...(custom.disabled ?? []), ...(def.disabled ?? [])].map((p) => p.name));
  const customEnabled = new Map((custom.enabled ?? []).map((p, i) => [p.name, { i, p }]));
  const replaced = new Set<number>();
  const enabled: PluginRef[] = [];
  if (!disabled.has('*')) {
    for (const d of def.enabled ?? []) {
      if (disabled.has(d.name)) continue;
      const c = customEnabled.get(d.name);
      if (c) {
        enabled.push(c.p);
        replaced.add(c.i);
      } else enabled.push(d);
    }
  }
  (custom.enabled ?? []).forEach((p, i) => {
    if (!replaced.has(i)) enabled.push(p);
  });
  return { enabled, disabled: [...(custom.disabled ?? []), ...(def.disabled ?? [])] };
}

/** A plugin's resolved place at one extension point. */
export interface ResolvedPlugin {
  name: string;
  weight: number;
}

/**
 * The ordered plugin list of every extension point for a profile, given which points each plugin
 * implements (`implementsPoint`). Unknown plugin names are errors worded like upstream's.
 */
export function expandProfilePlugins(
  prof: ProfileConfig,
  implementsPoint: (name: string, point: ExtensionPoint) => boolean | undefined,
): Record<ExtensionPoint, ResolvedPlugin[]> {
  const multi = mergePluginSet({ enabled: [...DEFAULT_MULTIPOINT] }, prof.plugins.multiPoint ?? {});
  const out = {} as Record<ExtensionPoint, ResolvedPlugin[]>;
  const multiWeights = new Map((multi.enabled ?? []).map((p) => [p.name, p.weight ?? 0]));
  for (const point of EXTENSION_POINTS) {
    const set = prof.plugins[point] ?? {};
    const enabled = set.enabled ?? [];
    for (const p of enabled) {
      const impl = implementsPoint(p.name, point);
      if (impl === undefined)
        throw new ConfigError(`profile "${prof.schedulerName}": ${point} plugin "${p.name}" does not exist`);
      if (!impl)
        throw new ConfigError(
          `profile "${prof.schedulerName}": plugin "${p.name}" does not extend ${point} plugin`,
        );
    }
    const disabledNames = new Set((set.disabled ?? []).map((p) => p.name));
    const enabledNames = enabled.map((p) => p.name);
    const weights = new Map(enabled.map((p) => [p.name, p.weight ?? 0]));
    let order: string[];
    if (disabledNames.has('*')) {
      order = enabledNames;
    } else {
      const override: string[] = [];
      const fromMulti: string[] = [];
      for (const m of multi.enabled ?? []) {
        const impl = implementsPoint(m.name, point);
        if (impl === undefined)
          throw new ConfigError(
            `profile "${prof.schedulerName}": multiPoint plugin "${m.name}" does not exist`,
          );
        if (!impl || disabledNames.has(m.name)) continue;
        if (enabledNames.includes(m.name)) {
          override.push(m.name);
          continue;
        }
        if (fromMulti.includes(m.name))
          throw new ConfigError(
            `profile "${prof.schedulerName}": plugin "${m.name}" already registered as "${point}"`,
          );
        fromMulti.push(m.name);
      }
      order = [
        ...enabledNames.filter((n) => override.includes(n)),
        ...fromMulti,
        ...enabledNames.filter((n) => !override.includes(n)),
      ];
    }
    out[point] = order.map((name) => {
      let w = weights.get(name) ?? multiWeights.get(name) ?? 0;
      if (point === 'score' && w === 0) w = 1;
      return { name, weight: w };
    });
  }
  if (out.queueSort.length > 1)
    throw new ConfigError(`profile "${prof.schedulerName}": only one queueSort plugin can be enabled`);
  if (out.bind.length === 0)
    throw new ConfigError(`profile "${prof.schedulerName}": at least one bind plugin is needed`);
  return out;
}

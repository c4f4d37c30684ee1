/**
 * The cluster-autoscaler's settings as a scenario gives them (docs/sim.md "Cluster autoscaler"):
 * the `autoscaler:` section read into an AutoscalerConfig (upstream's flag defaults,
 * config/autoscaling_options.go), its node groups, and the nodes a group's template makes. The
 * scenario parser (src/sim/scenario.ts) calls {@link parseAutoscaler}; the model
 * (cluster-autoscaler.ts) runs the config.
 */
import type { Node, Taint } from '../api/types.js';
import { parseQuantity } from '../api/quantity.js';
import { registeredNodeInfo } from '../api/kinds.js';
import { wellKnownNodeLabels } from '../api/topology.js';
import { LIMITS } from '../util/limits.js';
import { checkKnownFields, failAt, parseDuration, ScenarioError } from '../util/scenario-input.js';
import { type NodeDevices, parseNodeDevices, resourceSliceFor } from '../api/resource-slices.js';
import type { ResourceSlice } from '../api/resource-types.js';
import { EXPANDERS, type ExpanderName } from './autoscaler-rules.js';

/** One node group: a template in one zone. */
export interface NodeGroupSpec {
  name: string;
  /** the template's name: groups of one template in several zones are "similar" */
  template: string;
  zone: string;
  min: number;
  max: number;
  initial: number;
  costPerHour: number;
  provisioningMs: number;
  cpu: string;
  memory: string;
  pods: number;
  labels: Record<string, string>;
  taints: Taint[];
  /**
   * DRA devices each node's drivers publish as ResourceSlices (api/resource-slices.ts); the
   * template node carries them too, as upstream's TemplateNodeInfo carries its node-local slices
   */
  devices: NodeDevices[];
}

export interface AutoscalerConfig {
  expander: ExpanderName;
  scanIntervalMs: number;
  scaleDownEnabled: boolean;
  scaleDownUtilizationThreshold: number;
  scaleDownUnneededTimeMs: number;
  scaleDownDelayAfterAddMs: number;
  maxNodeProvisionTimeMs: number;
  balanceSimilarNodeGroups: boolean;
  ignoreDaemonSetsUtilization: boolean;
  groups: NodeGroupSpec[];
}

/** upstream's label naming a node's group is provider-specific; kubesim writes this one */
const NODE_GROUP_LABEL = 'autoscaling.kubesim.io/node-group';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The scenario's `autoscaler:` section (docs/sim.md "Cluster autoscaler"): settings with upstream's
 * defaults and `nodeGroups`, each a template (cpu, memory, pods, labels, taints, cost per node-hour,
 * provisioning latency, min/max/initial per zone) over one or more zones — one node group per zone.
 */
export function parseAutoscaler(raw: unknown, at: (p: string) => string): AutoscalerConfig | undefined {
  if (raw === undefined) return undefined;
  const w = 'autoscaler';
  if (!isObj(raw)) throw new ScenarioError(`${at(w)}: expected a mapping with nodeGroups`);
  const known = [
    'expander',
    'scanInterval',
    'scaleDown',
    'scaleDownUtilizationThreshold',
    'scaleDownUnneededTime',
    'scaleDownDelayAfterAdd',
    'maxNodeProvisionTime',
    'balanceSimilarNodeGroups',
    'ignoreDaemonSetsUtilization',
    'nodeGroups',
  ];
  checkKnownFields(raw, known, w, failAt(at));
  const expander = (raw.expander ?? 'random') as ExpanderName;
  if (!EXPANDERS.includes(expander))
    throw new ScenarioError(
      `${at(`${w}.expander`)}: unknown expander ${JSON.stringify(raw.expander)} (expected ${EXPANDERS.join(', ')})`,
    );
  const dur = (k: string, def: number, min = 0) => {
    if (raw[k] === undefined) return def;
    const ms = parseDuration(raw[k], at(`${w}.${k}`));
    if (ms < min) throw new ScenarioError(`${at(`${w}.${k}`)}: at least ${min / 1000}s`);
    return ms;
  };
  const bool = (k: string, def: boolean) => {
    if (raw[k] === undefined) return def;
    if (typeof raw[k] !== 'boolean') throw new ScenarioError(`${at(`${w}.${k}`)}: expected true or false`);
    return raw[k] as boolean;
  };
  const threshold =
    raw.scaleDownUtilizationThreshold === undefined ? 0.5 : Number(raw.scaleDownUtilizationThreshold);
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1)
    throw new ScenarioError(`${at(`${w}.scaleDownUtilizationThreshold`)}: expected a number between 0 and 1`);
  if (!Array.isArray(raw.nodeGroups) || raw.nodeGroups.length === 0)
    throw new ScenarioError(`${at(`${w}.nodeGroups`)}: expected a non-empty list of node groups`);
  const groups: NodeGroupSpec[] = [];
  raw.nodeGroups.forEach((g: unknown, i: number) =>
    groups.push(...parseGroup(g, at, `${w}.nodeGroups[${i}]`)),
  );
  const names = new Set<string>();
  for (const g of groups) {
    if (names.has(g.name))
      throw new ScenarioError(`${at(`${w}.nodeGroups`)}: two node groups named ${g.name}`);
    names.add(g.name);
  }
  return {
    expander,
    scanIntervalMs: dur('scanInterval', 10_000, 1000),
    scaleDownEnabled: bool('scaleDown', true),
    scaleDownUtilizationThreshold: threshold,
    scaleDownUnneededTimeMs: dur('scaleDownUnneededTime', 600_000),
    scaleDownDelayAfterAddMs: dur('scaleDownDelayAfterAdd', 600_000),
    maxNodeProvisionTimeMs: dur('maxNodeProvisionTime', 900_000, 1000),
    balanceSimilarNodeGroups: bool('balanceSimilarNodeGroups', false),
    ignoreDaemonSetsUtilization: bool('ignoreDaemonSetsUtilization', false),
    groups,
  };
}

function parseGroup(g: unknown, at: (p: string) => string, w: string): NodeGroupSpec[] {
  if (!isObj(g))
    throw new ScenarioError(
      `${at(w)}: expected {name, cpu, memory, zones, min, max, cost, provisioningLatency}`,
    );
  const known = [
    'name',
    'cpu',
    'memory',
    'pods',
    'zones',
    'min',
    'max',
    'initial',
    'cost',
    'provisioningLatency',
    'labels',
    'taints',
    'devices',
  ];
  checkKnownFields(g, known, w, failAt(at));
  const name = g.name;
  if (typeof name !== 'string' || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name))
    throw new ScenarioError(`${at(`${w}.name`)}: expected a DNS label`);
  const qty = (k: 'cpu' | 'memory') => {
    const v = g[k];
    if (typeof v !== 'string' && typeof v !== 'number')
      throw new ScenarioError(`${at(`${w}.${k}`)}: required, e.g. "4" or 16Gi`);
    try {
      parseQuantity(v);
    } catch (e) {
      throw new ScenarioError(`${at(`${w}.${k}`)}: ${(e as Error).message}`);
    }
    return String(v);
  };
  const int = (k: string, def: number | undefined, max: number) => {
    const v = g[k] === undefined ? def : Number(g[k]);
    if (v === undefined || !Number.isInteger(v) || v < 0 || v > max)
      throw new ScenarioError(`${at(`${w}.${k}`)}: expected an integer between 0 and ${max}`);
    return v;
  };
  const min = int('min', 0, LIMITS.nodes);
  const max = int('max', undefined, LIMITS.nodes);
  const initial = int('initial', min, LIMITS.nodes);
  if (max < min || initial < min || initial > max)
    throw new ScenarioError(
      `${at(w)}: expected min <= initial <= max (min ${min}, initial ${initial}, max ${max})`,
    );
  const cost = g.cost === undefined ? 0 : Number(g.cost);
  if (!Number.isFinite(cost) || cost < 0)
    throw new ScenarioError(`${at(`${w}.cost`)}: expected a price per node-hour >= 0`);
  const zones = g.zones === undefined ? ['zone-a'] : g.zones;
  if (!Array.isArray(zones) || !zones.length || zones.some((z) => typeof z !== 'string' || !z))
    throw new ScenarioError(`${at(`${w}.zones`)}: expected a non-empty list of zone names`);
  if (
    g.labels !== undefined &&
    (!isObj(g.labels) || Object.values(g.labels).some((v) => typeof v !== 'string'))
  )
    throw new ScenarioError(`${at(`${w}.labels`)}: expected a mapping of strings`);
  if (
    g.taints !== undefined &&
    (!Array.isArray(g.taints) ||
      g.taints.some((t) => !isObj(t) || typeof t.key !== 'string' || typeof t.effect !== 'string'))
  )
    throw new ScenarioError(`${at(`${w}.taints`)}: expected a list of {key, value, effect}`);
  const base = {
    template: name,
    min,
    max,
    initial,
    costPerHour: cost,
    provisioningMs:
      g.provisioningLatency === undefined
        ? 60_000
        : parseDuration(g.provisioningLatency, at(`${w}.provisioningLatency`)),
    cpu: qty('cpu'),
    memory: qty('memory'),
    pods: int('pods', 110, LIMITS.pods),
    labels: (g.labels ?? {}) as Record<string, string>,
    taints: (g.taints ?? []) as Taint[],
    devices: parseNodeDevices(g.devices, `${w}.devices`, failAt(at)),
  };
  return (zones as string[]).map((zone) => ({
    ...base,
    name: zones.length > 1 ? `${name}-${zone}` : name,
    zone,
  }));
}

/** A node of the group, as its kubelet would register it (labels, capacity, taints). */
export function groupNode(g: NodeGroupSpec, name: string): Node {
  const res = { cpu: g.cpu, memory: g.memory, pods: String(g.pods) };
  const labels = {
    ...wellKnownNodeLabels({ name, zone: g.zone, pool: g.template }),
    [NODE_GROUP_LABEL]: g.name,
    ...g.labels,
  };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels },
    spec: { taints: g.taints.length ? structuredClone(g.taints) : undefined },
    status: { capacity: res, allocatable: res, conditions: [], nodeInfo: registeredNodeInfo(labels) },
  };
}

/**
 * The ResourceSlices a group node's drivers publish (one per driver, pool named after the node) —
 * for a template node, upstream's SanitizedNodeResourceSlices gives each copy its own node and
 * pool the same way.
 */
export function groupSlices(g: NodeGroupSpec, node: Node): ResourceSlice[] {
  return g.devices.map((d) => resourceSliceFor(node, d));
}

/** The devices of a node by its node-group label (none for nodes of other origins). */
export function groupDevices(
  c: AutoscalerConfig | undefined,
): ((node: Node) => readonly NodeDevices[]) | undefined {
  const byGroup = new Map((c?.groups ?? []).filter((g) => g.devices.length).map((g) => [g.name, g.devices]));
  if (byGroup.size === 0) return undefined;
  return (node) => byGroup.get(node.metadata.labels?.[NODE_GROUP_LABEL] ?? '') ?? [];
}

/** The nodes every group starts with (`initial`, default `min`), named <group>-<4 digits>. */
export function initialGroupNodes(c: AutoscalerConfig): Node[] {
  return c.groups.flatMap((g) => Array.from({ length: g.initial }, (_, i) => groupNode(g, nodeName(g, i))));
}

/** A group's i-th node: <group>-<4 digits>. */
export const nodeName = (g: NodeGroupSpec, i: number) => `${g.name}-${String(i).padStart(4, '0')}`;

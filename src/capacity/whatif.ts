/**
 * What-if transformations of a cluster snapshot: remove nodes, lose a zone (its nodes deleted), a
 * zone outage (its nodes stay, unreachable), cordon, drain, add N nodes cloned from a template.
 * Pure functions over objects: the input snapshot is never modified.
 *
 * Pods bound to a removed node become *displaced*: unbound copies that the planner places first
 * (in priority order) before counting new replicas, because in a real outage their controllers
 * recreate them and they compete for the same room.
 *
 * Removal and outage differ for topology spread. A deleted node is no domain at all, so a zone
 * spread with `whenUnsatisfiable: DoNotSchedule` simply ignores the lost zone. An unreachable node
 * stays (NotReady, taints `node.kubernetes.io/unreachable:NoSchedule` and `:NoExecute`, as the node
 * lifecycle controller sets them): nothing new lands there, but its zone is still a domain
 * (nodeTaintsPolicy defaults to Ignore) and its pods count for the skew until the taint eviction
 * controller evicts them; evicted pods stay Terminating (the dead kubelet never confirms), which the
 * spread no longer counts, and their replacements are displaced. Worked example, maxSkew 1 over
 * zones a, b, c with 2 replicas each: `lose-zone=c` lets a and b grow without bound (only two
 * domains left); `zone-outage=c@2m` still counts c's 2 pods, so a and b take 1 more each;
 * `zone-outage=c` (past the 300 s toleration) counts c as 0: the 2 replacements and any new
 * replica stay Pending until the zone returns.
 */
import type { Node, NodeCondition, Pod, Taint } from '../api/types.js';
import { minTolerationMs } from '../controllers/taint-eviction.js';
import {
  NODE_MONITOR_GRACE_PERIOD_MS,
  TAINT_NOT_READY,
  TAINT_UNREACHABLE,
} from '../controllers/nodelifecycle.js';
import { parseDuration, ScenarioError } from '../util/scenario-input.js';
import { type Disruption, drainPods } from './drain.js';
import { LIMITS } from '../util/limits.js';
import { LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_HOSTNAME, LABEL_TOPOLOGY_ZONE } from '../api/topology.js';

export interface ClusterState {
  nodes: Node[];
  /** every pod of the snapshot; bound ones (spec.nodeName) count against their node */
  pods: Pod[];
  /** the budgets a drain respects (drain.ts disruptionOf); none: every pod is evicted */
  disruption?: Disruption;
}

export type WhatIf =
  | { kind: 'remove-nodes'; names: string[] }
  | { kind: 'lose-zone'; zone: string }
  /** the zone's nodes unreachable for `afterMs` (default: long past every finite toleration) */
  | { kind: 'zone-outage'; zone: string; afterMs?: number }
  | { kind: 'cordon'; names: string[] }
  | { kind: 'drain'; names: string[] }
  | { kind: 'add-nodes'; count: number; template: string; zone?: string };

/**
 * The cluster after the what-ifs. `nodes` and `pods` share the input's objects where a what-if did
 * not change them (treat them as read-only, as the input); changed nodes and displaced pods are
 * copies.
 */
export interface WhatIfResult extends ClusterState {
  /** unbound copies of the pods that ran on removed nodes, to be placed again */
  displaced: Pod[];
  /** human-readable summary of what changed, one line per what-if */
  applied: string[];
  /** nodes added by add-nodes → the template node each was cloned from (its ResourceSlices go with it) */
  clones: Map<string, string>;
}

export class WhatIfError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WhatIfError';
  }
}

/**
 * The zone a what-if names (`lose-zone=us-east-1a`): the node's zone label, the GA label first, then
 * the beta one, or ''. Not the zone key upstream groups nodes by (api/topology.ts zoneKey), which
 * also holds the region.
 */
export function zoneName(node: Node): string {
  const l = node.metadata.labels ?? {};
  return l[LABEL_TOPOLOGY_ZONE] ?? l[LABEL_FAILURE_DOMAIN_BETA_ZONE] ?? '';
}

/**
 * kube-controller-manager's --node-monitor-grace-period (50 s since v1.32, the node lifecycle
 * controller's default): how long after its last heartbeat an unreachable node is marked Unknown
 * and tainted.
 */
export const NODE_MONITOR_GRACE_MS = NODE_MONITOR_GRACE_PERIOD_MS;

const UNREACHABLE_TAINTS: Taint[] = [
  { key: TAINT_UNREACHABLE, effect: 'NoSchedule' },
  { key: TAINT_UNREACHABLE, effect: 'NoExecute' },
];

/**
 * Parses a `--what-if` value:
 *   remove-nodes=n1,n2 | lose-zone=us-east-1a | zone-outage=us-east-1a[@10m] | cordon=n1,n2 |
 *   drain=n1,n2 | add-nodes=5:<template-node>[@zone]
 */
export function parseWhatIf(spec: string): WhatIf {
  const m = /^([a-z-]+)=(.+)$/.exec(spec.trim());
  if (!m)
    throw new WhatIfError(
      `--what-if "${spec}": expected KIND=VALUE (remove-nodes=…, lose-zone=…, zone-outage=ZONE[@DURATION], cordon=…, drain=…, add-nodes=N:TEMPLATE[@ZONE])`,
    );
  const [, kind, value] = m;
  const list = () =>
    value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  switch (kind) {
    case 'remove-nodes':
    case 'remove-node':
      return { kind: 'remove-nodes', names: list() };
    case 'lose-zone':
    case 'remove-zone':
      return { kind: 'lose-zone', zone: value.trim() };
    case 'zone-outage': {
      const [zone, after] = value.trim().split('@');
      if (!zone?.trim())
        throw new WhatIfError(
          `--what-if "${spec}": zone-outage wants ZONE[@DURATION], e.g. zone-outage=us-east-1a@10m`,
        );
      if (after === undefined) return { kind: 'zone-outage', zone: zone.trim() };
      try {
        return { kind: 'zone-outage', zone: zone.trim(), afterMs: parseDuration(after.trim(), 'duration') };
      } catch (e) {
        if (e instanceof ScenarioError)
          throw new WhatIfError(
            `--what-if "${spec}": ${e.message} (zone-outage=ZONE@DURATION, e.g. @90s, @10m)`,
          );
        throw e;
      }
    }
    case 'cordon':
      return { kind: 'cordon', names: list() };
    case 'drain':
      return { kind: 'drain', names: list() };
    case 'add-nodes': {
      const a = /^(\d+):([^@]+)(?:@(.+))?$/.exec(value.trim());
      if (a && Number(a[1]) > LIMITS.nodes)
        throw new WhatIfError(
          `--what-if "${spec}": ${a[1]} nodes is above the limit of ${LIMITS.nodes} (see "Limits" in the README)`,
        );
      if (!a || Number(a[1]) < 1)
        throw new WhatIfError(
          `--what-if "${spec}": add-nodes wants COUNT:TEMPLATE[@ZONE] with COUNT >= 1, e.g. add-nodes=3:worker-1@us-east-1b`,
        );
      return { kind: 'add-nodes', count: Number(a[1]), template: a[2].trim(), zone: a[3]?.trim() };
    }
    default:
      throw new WhatIfError(
        `--what-if "${spec}": unknown kind "${kind}" (remove-nodes, lose-zone, zone-outage, cordon, drain, add-nodes)`,
      );
  }
}

/** deletionTimestamp of pods evicted by a zone outage: any value marks them Terminating */
const OUTAGE_DELETION_TIME = '1970-01-01T00:00:00Z';

/** A deep copy that shares nothing with the input (snapshots are plain JSON objects). */
function clone<T>(x: T): T {
  return structuredClone(x);
}

/**
 * A copy of `template` named `name`, with its hostname label set and, when given, its zone;
 * status.images kept (image locality), no pods.
 */
export function cloneNode(template: Node, name: string, zone?: string): Node {
  const n = clone(template);
  n.metadata = { ...n.metadata, name, labels: { ...(n.metadata.labels ?? {}), [LABEL_HOSTNAME]: name } };
  delete n.metadata.uid;
  delete n.metadata.resourceVersion;
  delete n.metadata.creationTimestamp;
  if (zone !== undefined) {
    n.metadata.labels![LABEL_TOPOLOGY_ZONE] = zone;
    if (n.metadata.labels![LABEL_FAILURE_DOMAIN_BETA_ZONE] !== undefined)
      n.metadata.labels![LABEL_FAILURE_DOMAIN_BETA_ZONE] = zone;
  }
  if (n.spec) {
    n.spec = { ...n.spec, unschedulable: false };
    delete n.spec.providerID;
    delete n.spec.podCIDR;
    delete n.spec.podCIDRs;
  }
  return n;
}

/**
 * The node as the node lifecycle controller leaves an unreachable one (controllers/nodelifecycle.ts):
 * Ready Unknown ("Kubelet stopped posting node status."), unreachable NoSchedule and NoExecute taints.
 */
function unreachable(n: Node): Node {
  const taints = (n.spec?.taints ?? []).filter(
    (t) => t.key !== TAINT_UNREACHABLE && t.key !== TAINT_NOT_READY,
  );
  taints.push(...UNREACHABLE_TAINTS.map((t) => ({ ...t })));
  const ready: NodeCondition = {
    type: 'Ready',
    status: 'Unknown',
    reason: 'NodeStatusUnknown',
    message: 'Kubelet stopped posting node status.',
  };
  const conditions = [...(n.status?.conditions ?? []).filter((c) => c.type !== 'Ready'), ready];
  return { ...n, spec: { ...(n.spec ?? {}), taints }, status: { ...(n.status ?? {}), conditions } };
}

const isDaemon = (p: Pod) => p.metadata.ownerReferences?.some((o) => o.kind === 'DaemonSet') ?? false;
const isFinished = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/** An unbound copy of a pod, as its controller would recreate it. */
function unbind(pod: Pod): Pod {
  const p = clone(pod);
  delete p.spec.nodeName;
  p.status = { phase: 'Pending' };
  delete p.metadata.resourceVersion;
  return p;
}

/** Applies what-ifs in order. Unknown node or zone names are errors, not silent no-ops. */
export function applyWhatIfs(state: ClusterState, whatIfs: WhatIf[]): WhatIfResult {
  // copy on write: the lists are new, the node and pod objects are the input's until a what-if
  // changes one (cordon replaces the node, a displaced pod is an unbound copy). Deep-copying a
  // whole cluster per plan was ~15% of a what-if sweep.
  let nodes = state.nodes.slice();
  let pods = state.pods.slice();
  const displaced: Pod[] = [];
  const applied: string[] = [];
  const clones = new Map<string, string>();
  const byName = () => new Map(nodes.map((n) => [n.metadata.name ?? '', n]));

  const removeNodes = (names: Set<string>) => {
    nodes = nodes.filter((n) => !names.has(n.metadata.name ?? ''));
    const keep: Pod[] = [];
    for (const p of pods) {
      if (p.spec.nodeName && names.has(p.spec.nodeName)) {
        // DaemonSet pods die with their node; everything else comes back
        if (!isDaemon(p) && !isFinished(p)) displaced.push(unbind(p));
      } else keep.push(p);
    }
    pods = keep;
  };

  for (const w of whatIfs) {
    switch (w.kind) {
      case 'remove-nodes': {
        const known = byName();
        const missing = w.names.filter((n) => !known.has(n));
        if (missing.length)
          throw new WhatIfError(
            `remove-nodes: no node named ${missing.map((m) => `"${m}"`).join(', ')} in the cluster`,
          );
        const before = displaced.length;
        removeNodes(new Set(w.names));
        applied.push(`removed ${w.names.length} node(s); ${displaced.length - before} pod(s) displaced`);
        break;
      }
      case 'lose-zone': {
        const inZone = nodes.filter((n) => zoneName(n) === w.zone).map((n) => n.metadata.name ?? '');
        if (!inZone.length) {
          const zones = [...new Set(nodes.map(zoneName).filter(Boolean))].sort();
          throw new WhatIfError(
            `lose-zone: no node in zone "${w.zone}" (zones: ${zones.join(', ') || 'none labelled'})`,
          );
        }
        const before = displaced.length;
        removeNodes(new Set(inZone));
        applied.push(
          `lost zone ${w.zone}: ${inZone.length} node(s) removed, ${displaced.length - before} pod(s) displaced`,
        );
        break;
      }
      case 'zone-outage': {
        const inZone = new Set(nodes.filter((n) => zoneName(n) === w.zone).map((n) => n.metadata.name ?? ''));
        if (!inZone.size) {
          const zones = [...new Set(nodes.map(zoneName).filter(Boolean))].sort();
          throw new WhatIfError(
            `zone-outage: no node in zone "${w.zone}" (zones: ${zones.join(', ') || 'none labelled'})`,
          );
        }
        nodes = nodes.map((n) => (inZone.has(n.metadata.name ?? '') ? unreachable(n) : n));
        // taint eviction (controllers/taint-eviction.ts): a pod goes when its shortest matching
        // NoExecute toleration runs out after the taint; -1 = tolerates forever (DaemonSet pods)
        const after = w.afterMs ?? Infinity;
        let evicted = 0,
          counted = 0;
        const before = displaced.length;
        pods = pods.map((p) => {
          if (
            !p.spec.nodeName ||
            !inZone.has(p.spec.nodeName) ||
            isFinished(p) ||
            p.metadata.deletionTimestamp
          )
            return p;
          const tol = minTolerationMs(UNREACHABLE_TAINTS, p.spec.tolerations);
          if (tol < 0 || NODE_MONITOR_GRACE_MS + tol > after) {
            counted++;
            return p;
          }
          evicted++;
          if (!isDaemon(p)) displaced.push(unbind(p));
          // Terminating on its node: no kubelet confirms the deletion, topology spread skips it
          return { ...p, metadata: { ...p.metadata, deletionTimestamp: OUTAGE_DELETION_TIME } };
        });
        const when = w.afterMs === undefined ? '' : ` for ${w.afterMs / 1000}s`;
        applied.push(
          `zone ${w.zone} unreachable${when}: ${inZone.size} node(s) NotReady with unreachable taints; ` +
            `${evicted} pod(s) evicted (Terminating; ${displaced.length - before} displaced), ${counted} still running and counted`,
        );
        break;
      }
      case 'cordon': {
        const known = byName();
        for (const name of w.names)
          if (!known.has(name)) throw new WhatIfError(`cordon: no node named "${name}" in the cluster`);
        const cordoned = new Set(w.names);
        nodes = nodes.map((n) =>
          cordoned.has(n.metadata.name ?? '')
            ? { ...n, spec: { ...(n.spec ?? {}), unschedulable: true } }
            : n,
        );
        applied.push(`cordoned ${w.names.length} node(s)`);
        break;
      }
      case 'drain': {
        // cordon, then evict what the budgets allow (drain.ts); blocked pods stay on the node
        const known = byName();
        for (const name of w.names)
          if (!known.has(name)) throw new WhatIfError(`drain: no node named "${name}" in the cluster`);
        const drained = new Set(w.names);
        nodes = nodes.map((n) =>
          drained.has(n.metadata.name ?? '') ? { ...n, spec: { ...(n.spec ?? {}), unschedulable: true } } : n,
        );
        const onNodes = pods.filter((p) => p.spec.nodeName && drained.has(p.spec.nodeName));
        const r = drainPods(onNodes, state.pods, state.disruption ?? { pdbs: [], scaleOf: () => undefined });
        const gone = new Set(r.evicted);
        pods = pods.filter((p) => !gone.has(p));
        for (const p of r.evicted) displaced.push(unbind(p));
        const by = [...r.blockedBy].map(([k, n]) => `${n} by ${k}`).join(', ');
        applied.push(
          `drained ${w.names.length} node(s): ${r.evicted.length} pod(s) evicted and displaced, ${r.blocked.length} blocked${by ? ` (${by})` : ''}`,
        );
        break;
      }
      case 'add-nodes': {
        const known = byName();
        // a template may be a node an earlier what-if removed ("lose zone b, then add nodes like b-2")
        const t = known.get(w.template) ?? state.nodes.find((n) => n.metadata.name === w.template);
        if (!t) throw new WhatIfError(`add-nodes: template node "${w.template}" is not in the cluster`);
        if (nodes.length + w.count > LIMITS.nodes)
          throw new WhatIfError(
            `add-nodes: ${nodes.length} + ${w.count} nodes is above the limit of ${LIMITS.nodes} (see "Limits" in the README)`,
          );
        for (let i = 1; i <= w.count; i++) {
          let name = `${w.template}-whatif-${i}`;
          for (let k = 2; known.has(name); k++) name = `${w.template}-whatif-${i}-${k}`;
          const n = cloneNode(t, name, w.zone);
          nodes.push(n);
          known.set(name, n);
          clones.set(name, clones.get(w.template) ?? w.template);
        }
        applied.push(`added ${w.count} node(s) like ${w.template}${w.zone ? ` in zone ${w.zone}` : ''}`);
        break;
      }
    }
  }
  // controllers recreate higher-priority pods first: the planner places displaced pods in this order
  displaced.sort((a, b) => (b.spec.priority ?? 0) - (a.spec.priority ?? 0));
  return { nodes, pods, displaced, applied, clones };
}

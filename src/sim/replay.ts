/**
 * Traces of a live cluster (`kubesim record`) and their replay (`kubesim simulate --replay`), as
 * SimKube users do: what users and their tools did to the cluster — creates, deletes, scales,
 * image changes — replayed at the same offsets against a simulated cluster, with the scenario's own
 * cluster, settings and timeline (a lost zone, nodes down) applying on top.
 *
 * The trace format (YAML or JSON; docs/server.md):
 *
 * ```yaml
 * apiVersion: kubesim/v1
 * kind: Trace
 * server: https://127.0.0.1:6443     # where it was recorded
 * start: "2026-12-04T21:50:00.000Z"  # wall clock at offset 0
 * durationSeconds: 60
 * kinds: [Namespace, Deployment, …]   # what was watched
 * initial: [ …objects at the start… ]
 * events:
 *   - { at: 12.5, type: ADDED, object: {…} }        # seconds after start
 *   - { at: 30.1, type: MODIFIED, object: {…} }
 *   - { at: 41.0, type: DELETED, object: {…} }
 * ```
 *
 * Objects are stripped as in a snapshot (no resourceVersion, uid, managedFields, …). Objects a
 * controller owns (an ownerReference with `controller: true`) are not in a trace: the simulation's
 * own controllers make them again from what owns them.
 */
import { parseAllDocuments } from 'yaml';
import { BUILTIN_KINDS } from '../api/kinds.js';
import type { Deployment, KubeObject, Pod } from '../api/types.js';
import type { Action, Scenario, TimelineEntry } from './scenario-types.js';

export const TRACE_API_VERSION = 'kubesim/v1';

export type TraceEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface TraceEvent {
  /** seconds after the trace's start */
  at: number;
  type: TraceEventType;
  object: KubeObject;
}

export interface Trace {
  apiVersion: typeof TRACE_API_VERSION;
  kind: 'Trace';
  server: string;
  start: string;
  durationSeconds: number;
  kinds: string[];
  initial: KubeObject[];
  events: TraceEvent[];
}

/** The kinds `kubesim record` watches: what users create, scale and delete. */
export const TRACE_KINDS: readonly string[] = [
  'Namespace',
  'PriorityClass',
  'PodDisruptionBudget',
  'Service',
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'ReplicaSet',
  'Job',
  'CronJob',
  'Pod',
];

export class TraceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TraceError';
  }
}

/** True when a controller owns the object (the simulation's controllers make it again). */
export function controllerOwned(o: KubeObject): boolean {
  return (o.metadata.ownerReferences ?? []).some((r) => r.controller === true);
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function checkObject(v: unknown, where: string): KubeObject {
  if (!isObj(v)) throw new TraceError(`${where}: expected an object`);
  const meta = v.metadata;
  if (typeof v.kind !== 'string' || typeof v.apiVersion !== 'string')
    throw new TraceError(`${where}: apiVersion and kind: Required value`);
  if (!isObj(meta) || typeof meta.name !== 'string' || !meta.name)
    throw new TraceError(`${where} (${v.kind}): metadata.name: Required value`);
  if (!BUILTIN_KINDS.some((r) => r.kind === v.kind))
    throw new TraceError(`${where}: kind ${v.kind} is not a built-in kind`);
  return v as unknown as KubeObject;
}

/** Parses and checks a trace file's text; errors name the file and the event. */
export function parseTrace(text: string, file: string): Trace {
  const docs = parseAllDocuments(text);
  if (docs.length !== 1)
    throw new TraceError(`${file}: expected one YAML or JSON document, found ${docs.length}`);
  if (docs[0]!.errors.length) throw new TraceError(`${file}: ${docs[0]!.errors[0]!.message}`);
  const root = docs[0]!.toJS() as unknown;
  if (!isObj(root) || root.kind !== 'Trace' || root.apiVersion !== TRACE_API_VERSION)
    throw new TraceError(`${file}: not a trace (expected apiVersion: ${TRACE_API_VERSION}, kind: Trace)`);
  const duration = root.durationSeconds;
  if (typeof duration !== 'number' || !(duration >= 0))
    throw new TraceError(`${file}: durationSeconds: expected a number >= 0`);
  if (!Array.isArray(root.initial ?? [])) throw new TraceError(`${file}: initial: expected a list`);
  if (!Array.isArray(root.events)) throw new TraceError(`${file}: events: expected a list`);
  const initial = ((root.initial ?? []) as unknown[]).map((o, i) => checkObject(o, `${file}: initial[${i}]`));
  const events = (root.events as unknown[]).map((e, i): TraceEvent => {
    const where = `${file}: events[${i}]`;
    if (!isObj(e)) throw new TraceError(`${where}: expected an object`);
    if (typeof e.at !== 'number' || !(e.at >= 0)) throw new TraceError(`${where}: at: expected seconds >= 0`);
    if (e.type !== 'ADDED' && e.type !== 'MODIFIED' && e.type !== 'DELETED')
      throw new TraceError(
        `${where}: type: expected ADDED, MODIFIED or DELETED, got ${JSON.stringify(e.type)}`,
      );
    return { at: e.at, type: e.type, object: checkObject(e.object, `${where}.object`) };
  });
  return {
    apiVersion: TRACE_API_VERSION,
    kind: 'Trace',
    server: String(root.server ?? ''),
    start: String(root.start ?? ''),
    durationSeconds: duration,
    kinds: Array.isArray(root.kinds) ? root.kinds.map(String) : [],
    initial,
    events,
  };
}

/** The cluster's own namespaces: a simulated cluster has them, and what runs there is not the workload. */
const SYSTEM_NAMESPACES = new Set(['default', 'kube-system', 'kube-public', 'kube-node-lease']);

function systemObject(o: KubeObject): boolean {
  if (o.kind === 'Namespace') return SYSTEM_NAMESPACES.has(o.metadata.name!);
  return (
    o.metadata.namespace !== undefined &&
    o.metadata.namespace !== 'default' &&
    SYSTEM_NAMESPACES.has(o.metadata.namespace)
  );
}

const key = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const ref = (o: KubeObject) => `${o.metadata.namespace ?? 'default'}/${o.metadata.name}`;

/** A pod is placed by the simulated scheduler, not where the live one put it. */
function unbound(o: KubeObject): KubeObject {
  const c = structuredClone(o);
  if (c.kind === 'Pod') {
    delete (c as Pod).spec.nodeName;
    delete (c as Partial<Pod>).status;
  }
  return c;
}

/** What one MODIFIED event changed that the simulation can act on. */
function modifications(before: KubeObject | undefined, after: KubeObject): Action[] {
  if (after.kind !== 'Deployment' || !before) return [];
  const b = before as Deployment;
  const a = after as Deployment;
  const out: Action[] = [];
  const d = ref(a);
  if ((a.spec.replicas ?? 1) !== (b.spec.replicas ?? 1))
    out.push({ kind: 'scale', deployment: d, replicas: a.spec.replicas ?? 1 });
  for (const c of a.spec.template.spec.containers) {
    const old = b.spec.template.spec.containers.find((x) => x.name === c.name);
    if (old && old.image !== c.image)
      out.push({ kind: 'rollout', deployment: d, image: c.image!, container: c.name });
  }
  return out;
}

export interface ReplayPlan {
  /** objects that existed at the trace's start and are not already in the scenario */
  workloads: KubeObject[];
  timeline: TimelineEntry[];
  /** events not replayed, per reason ("MODIFIED StatefulSet": 3) */
  skipped: Map<string, number>;
}

/**
 * Turns a trace into scenario workloads and timeline entries:
 *  1. initial objects become workloads, unless the scenario already has one of that kind and name;
 *  2. ADDED → create (pods without their node and status, so the simulated scheduler places them);
 *  3. DELETED → delete;
 *  4. MODIFIED Deployment → scale when spec.replicas changed, rollout when a container's image
 *     changed; other modifications are counted in `skipped`.
 * Controller-owned objects are skipped (a trace recorded elsewhere may hold them), and so are the
 * system namespaces and what runs in kube-system, kube-public and kube-node-lease.
 */
export function planReplay(
  trace: Trace,
  scenario: Pick<Scenario, 'workloads' | 'snapshotObjects'>,
): ReplayPlan {
  const skipped = new Map<string, number>();
  const skip = (why: string) => skipped.set(why, (skipped.get(why) ?? 0) + 1);
  const present = new Set([...scenario.workloads, ...scenario.snapshotObjects].map(key));
  const last = new Map<string, KubeObject>();
  const workloads: KubeObject[] = [];
  for (const o of trace.initial) {
    last.set(key(o), o);
    if (controllerOwned(o)) skip(`initial ${o.kind} owned by a controller`);
    else if (systemObject(o)) skip(`initial ${o.kind} of the system`);
    else if (present.has(key(o))) skip(`initial ${o.kind} already in the scenario`);
    else workloads.push(unbound(o));
  }
  const timeline: TimelineEntry[] = [];
  const push = (at: number, action: Action, label: string) =>
    timeline.push({ atMs: Math.round(at * 1000), action, label: `replay: ${label}` });
  for (const e of trace.events) {
    const o = e.object;
    const before = last.get(key(o));
    if (e.type === 'DELETED') last.delete(key(o));
    else last.set(key(o), o);
    if (controllerOwned(o) || systemObject(o)) {
      skip(`${e.type} ${o.kind} ${controllerOwned(o) ? 'owned by a controller' : 'of the system'}`);
      continue;
    }
    if (e.type === 'ADDED')
      push(e.at, { kind: 'apply', objects: [unbound(o)] }, `create ${o.kind} ${ref(o)}`);
    else if (e.type === 'DELETED') {
      const resource = BUILTIN_KINDS.find((r) => r.kind === o.kind)!.resource;
      push(
        e.at,
        { kind: 'delete', resource, namespace: o.metadata.namespace, name: o.metadata.name! },
        `delete ${o.kind} ${ref(o)}`,
      );
    } else {
      const actions = modifications(before, o);
      if (actions.length === 0) skip(`MODIFIED ${o.kind}`);
      for (const a of actions)
        push(
          e.at,
          a,
          a.kind === 'scale'
            ? `scale ${a.deployment} to ${a.replicas}`
            : `rollout ${ref(o)} image=${(a as { image: string }).image}`,
        );
    }
  }
  return { workloads, timeline, skipped };
}

/** The scenario with the trace replayed on top: its workloads added, its timeline merged in order. */
export function withReplay(scenario: Scenario, plan: ReplayPlan, trace: Trace): Scenario {
  return {
    ...scenario,
    workloads: [...scenario.workloads, ...plan.workloads],
    timeline: [...scenario.timeline, ...plan.timeline].sort((a, b) => a.atMs - b.atMs),
    durationMs: Math.max(scenario.durationMs, Math.ceil(trace.durationSeconds * 1000)),
  };
}

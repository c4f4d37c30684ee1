/**
 * The scenario's timeline (docs/sim.md "Timeline"): each entry's action read and checked
 * (parseAction), named for reports (describeAction), and every node, zone, pool and Deployment the
 * timeline names checked against the cluster and workloads (checkReferences).
 */
import type { KubeObject } from '../api/types.js';
import { initialGroupNodes } from '../autoscaler/config.js';
import { LIMITS } from '../util/limits.js';
import { parseDuration, ScenarioError } from '../util/scenario-input.js';
import { count, isObj, type Obj, scenarioObjects } from './scenario-read.js';
import type { Action, Scenario, TimelineEntry } from './scenario-types.js';

export function parseAction(
  e: Obj,
  where: string,
  loadFile: (f: unknown, w: string) => KubeObject[],
): Action {
  const a = e.action;
  const str = (k: string): string => {
    if (typeof e[k] !== 'string' || !e[k]) throw new ScenarioError(`${where}.${k}: required for action ${a}`);
    return e[k] as string;
  };
  const nodes = (): string[] => {
    if (e.node !== undefined) {
      if (typeof e.node !== 'string' || !e.node)
        throw new ScenarioError(`${where}.node: expected a node name`);
      return [e.node];
    }
    if (e.nodes !== undefined) {
      if (!Array.isArray(e.nodes) || e.nodes.some((n) => typeof n !== 'string' || !n))
        throw new ScenarioError(`${where}.nodes: expected a list of node names`);
      count(`${where}.nodes`, e.nodes.length, LIMITS.nodes);
      return e.nodes as string[];
    }
    return [];
  };
  switch (a) {
    case 'scale': {
      const r = count(`${where}.replicas`, e.replicas, LIMITS.pods);
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
        toRevision:
          e.toRevision === undefined
            ? undefined
            : count(`${where}.toRevision`, e.toRevision, Number.MAX_SAFE_INTEGER),
      };
    case 'nodeDown': {
      const ns = nodes();
      const n = e.count === undefined ? undefined : count(`${where}.count`, e.count, LIMITS.nodes, 1);
      if (ns.length === 0 && n === undefined)
        throw new ScenarioError(`${where}: nodeDown needs "node", "nodes" or "count"`);
      if (e.pool !== undefined && typeof e.pool !== 'string')
        throw new ScenarioError(`${where}.pool: expected a pool name`);
      return { kind: 'nodeDown', nodes: ns, count: n, pool: e.pool as string | undefined };
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
      const n = count(`${where}.count`, e.count, LIMITS.pods, 1);
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
      // validated as the pods the burst creates (their names come from namePrefix)
      const meta = isObj(template.metadata) ? template.metadata : {};
      scenarioObjects(
        JSON.stringify({ ...template, metadata: { ...meta, name: meta.name ?? 'burst' } }),
        `${where}.template`,
      );
      return {
        kind: 'burst',
        count: n,
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

/**
 * Every node, zone, pool and Deployment the timeline names exists (in the cluster, the workloads or
 * an earlier `apply`), and killLeader has leaders to kill: an action on nothing is an input error,
 * not a step that fails at run time while the run exits 0.
 */
export function checkReferences(
  sc: Scenario,
  fileIndex: Map<TimelineEntry, number>,
  at: (p: string) => string,
): void {
  const nodes = new Set<string>();
  const zones = new Set<string>();
  const poolNames = new Set<string>();
  const addNode = (n: KubeObject) => {
    nodes.add(n.metadata?.name ?? '');
    const l = (n.metadata?.labels ?? {}) as Record<string, string>;
    const z = l['topology.kubernetes.io/zone'] ?? l['failure-domain.beta.kubernetes.io/zone'];
    if (z !== undefined) zones.add(z);
    const pool = l['node.kubernetes.io/pool'];
    if (pool !== undefined) poolNames.add(pool);
  };
  for (const n of sc.snapshotNodes) addNode(n);
  for (const n of sc.autoscaler ? initialGroupNodes(sc.autoscaler) : []) addNode(n);
  for (const g of sc.autoscaler?.groups ?? []) zones.add(g.zone);
  for (const p of sc.pools) {
    poolNames.add(p.name);
    for (let i = 0; i < p.count; i++) nodes.add(`${p.name}-${String(i).padStart(4, '0')}`);
    for (let i = 0; i < Math.min(p.count, p.zones.length); i++) zones.add(p.zones[i]!);
    if (p.labels['topology.kubernetes.io/zone'] !== undefined && p.count > 0)
      zones.add(p.labels['topology.kubernetes.io/zone']);
  }
  const deployments = new Set<string>();
  const addObject = (o: KubeObject) => {
    if (o.kind === 'Node') addNode(o);
    if (o.kind === 'Deployment') deployments.add(`${o.metadata?.namespace ?? 'default'}/${o.metadata?.name}`);
  };
  for (const o of sc.workloads) addObject(o);
  const ref = (d: string) => (d.includes('/') ? d : `default/${d}`);
  // in time order (an apply defines what later entries name), each with its index in the file
  const entries = sc.timeline.map((e) => ({ e, i: fileIndex.get(e) ?? 0 }));
  for (const { e, i } of entries) {
    const where = at(`timeline[${i}]`);
    const a = e.action;
    switch (a.kind) {
      case 'scale':
      case 'rollout':
      case 'rollback':
        if (!deployments.has(ref(a.deployment)))
          throw new ScenarioError(
            `${where}.deployment: no Deployment ${ref(a.deployment)} in the workloads or an earlier apply (have: ${[...deployments].join(', ') || 'none'})`,
          );
        break;
      case 'nodeDown':
      case 'nodeUp':
      case 'deleteNode':
        for (const n of a.nodes)
          if (!nodes.has(n))
            throw new ScenarioError(`${where}: no node named ${JSON.stringify(n)} in the cluster`);
        if (a.kind === 'nodeDown' && a.pool !== undefined && !poolNames.has(a.pool))
          throw new ScenarioError(
            `${where}.pool: no pool named ${JSON.stringify(a.pool)} (have: ${[...poolNames].join(', ') || 'none'})`,
          );
        break;
      case 'zoneOutage':
      case 'zoneRecover':
        if (!zones.has(a.zone))
          throw new ScenarioError(
            `${where}.zone: no nodes in zone ${JSON.stringify(a.zone)} (zones: ${[...zones].join(', ') || 'none'})`,
          );
        break;
      case 'apply':
        for (const o of a.objects) addObject(o);
        break;
      case 'killLeader':
        if (!sc.settings.leaderElection)
          throw new ScenarioError(`${where}: killLeader needs settings.leaderElection: true`);
        break;
      default:
        break;
    }
  }
}

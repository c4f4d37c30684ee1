/**
 * The one builders module for test objects: pods, nodes, services and label selectors.
 *
 * Fluent builders mirror upstream's scheduler testing wrappers (pkg/scheduler/testing:
 * st.MakePod().Name("p").Label("foo", "")…) so that upstream's test tables translate line by line:
 *
 *   makePod('p').label('app', 'web').req({ cpu: '1' }).node('n1').obj()
 *   makeNode('n1').label('zone', 'a').capacity({ cpu: '4', memory: '8Gi', pods: '110' }).obj()
 *   makeService('web').namespace('ns1').spec({ clusterIP: '10.0.0.1', ports: [{ port: 80 }] }).obj()
 *
 * The options forms (podOf, nodeOf, resNode) build the same kinds of object from one literal, for
 * the engine tests' transcribed tables where each case is a single options object.
 */
import type {
  Container,
  LabelSelector,
  Node,
  Pod,
  PodAffinityTerm,
  Service,
  Taint,
  Toleration,
  TopologySpreadConstraint,
} from '../../src/api/types.js';

export class LabelSelectorBuilder {
  private sel: LabelSelector = {};
  exists(key: string): this {
    (this.sel.matchExpressions ??= []).push({ key, operator: 'Exists' });
    return this;
  }
  notExist(key: string): this {
    (this.sel.matchExpressions ??= []).push({ key, operator: 'DoesNotExist' });
    return this;
  }
  in(key: string, values: string[]): this {
    (this.sel.matchExpressions ??= []).push({ key, operator: 'In', values });
    return this;
  }
  notIn(key: string, values: string[]): this {
    (this.sel.matchExpressions ??= []).push({ key, operator: 'NotIn', values });
    return this;
  }
  label(key: string, value: string): this {
    (this.sel.matchLabels ??= {})[key] = value;
    return this;
  }
  obj(): LabelSelector {
    return this.sel;
  }
}
export const sel = () => new LabelSelectorBuilder();

export class PodBuilder {
  private p: Pod;
  constructor(name: string) {
    this.p = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default', uid: name },
      spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.9' }] },
    };
  }
  name(n: string): this {
    this.p.metadata.name = n;
    this.p.metadata.uid = n;
    return this;
  }
  namespace(ns: string): this {
    this.p.metadata.namespace = ns;
    return this;
  }
  /** metadata.uid (the name unless set; undefined leaves it to the ApiServer) */
  uid(u: string | undefined): this {
    if (u === undefined) delete this.p.metadata.uid;
    else this.p.metadata.uid = u;
    return this;
  }
  label(k: string, v: string): this {
    (this.p.metadata.labels ??= {})[k] = v;
    return this;
  }
  labels(m: Record<string, string> | undefined): this {
    if (m === undefined) delete this.p.metadata.labels;
    else this.p.metadata.labels = { ...m };
    return this;
  }
  /** merged into metadata */
  meta(m: Partial<Pod['metadata']>): this {
    this.p.metadata = { ...this.p.metadata, ...m };
    return this;
  }
  /** replaces the containers (the builder starts with one pause container) */
  containers(...cs: Container[]): this {
    this.p.spec.containers = cs;
    return this;
  }
  /** merged into spec */
  spec(spec: Partial<Pod['spec']>): this {
    this.p.spec = { ...this.p.spec, ...spec };
    return this;
  }
  status(status: Pod['status']): this {
    this.p.status = status;
    return this;
  }
  node(n: string): this {
    this.p.spec.nodeName = n;
    return this;
  }
  priority(p: number): this {
    this.p.spec.priority = p;
    return this;
  }
  terminating(): this {
    this.p.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    return this;
  }
  nodeSelector(m: Record<string, string>): this {
    this.p.spec.nodeSelector = m;
    return this;
  }
  req(r: Record<string, string>): this {
    this.p.spec.containers.push({
      name: `c${this.p.spec.containers.length}`,
      image: 'app:1',
      resources: { requests: r },
    });
    return this;
  }
  toleration(t: Toleration): this {
    (this.p.spec.tolerations ??= []).push(t);
    return this;
  }
  spreadConstraint(
    maxSkew: number,
    key: string,
    when: 'DoNotSchedule' | 'ScheduleAnyway',
    selector: LabelSelector | undefined,
    minDomains?: number,
    nodeAffinityPolicy?: 'Honor' | 'Ignore',
    nodeTaintsPolicy?: 'Honor' | 'Ignore',
    matchLabelKeys?: string[],
  ): this {
    const c: TopologySpreadConstraint = {
      maxSkew,
      topologyKey: key,
      whenUnsatisfiable: when,
      labelSelector: selector,
    };
    if (minDomains !== undefined) c.minDomains = minDomains;
    if (nodeAffinityPolicy) c.nodeAffinityPolicy = nodeAffinityPolicy;
    if (nodeTaintsPolicy) c.nodeTaintsPolicy = nodeTaintsPolicy;
    if (matchLabelKeys) c.matchLabelKeys = matchLabelKeys;
    (this.p.spec.topologySpreadConstraints ??= []).push(c);
    return this;
  }
  nodeAffinityIn(key: string, values: string[]): this {
    const na = ((this.p.spec.affinity ??= {}).nodeAffinity ??= {});
    const ns = (na.requiredDuringSchedulingIgnoredDuringExecution ??= {
      nodeSelectorTerms: [{ matchExpressions: [] }],
    });
    ns.nodeSelectorTerms[0].matchExpressions!.push({ key, operator: 'In', values });
    return this;
  }
  nodeAffinityNotIn(key: string, values: string[]): this {
    const na = ((this.p.spec.affinity ??= {}).nodeAffinity ??= {});
    const ns = (na.requiredDuringSchedulingIgnoredDuringExecution ??= {
      nodeSelectorTerms: [{ matchExpressions: [] }],
    });
    ns.nodeSelectorTerms[0].matchExpressions!.push({ key, operator: 'NotIn', values });
    return this;
  }
  podAffinity(term: PodAffinityTerm): this {
    (((this.p.spec.affinity ??= {}).podAffinity ??= {}).requiredDuringSchedulingIgnoredDuringExecution ??=
      []).push(term);
    return this;
  }
  podAntiAffinity(term: PodAffinityTerm): this {
    (((this.p.spec.affinity ??= {}).podAntiAffinity ??= {}).requiredDuringSchedulingIgnoredDuringExecution ??=
      []).push(term);
    return this;
  }
  preferredPodAffinity(weight: number, term: PodAffinityTerm): this {
    (((this.p.spec.affinity ??= {}).podAffinity ??= {}).preferredDuringSchedulingIgnoredDuringExecution ??=
      []).push({ weight, podAffinityTerm: term });
    return this;
  }
  preferredPodAntiAffinity(weight: number, term: PodAffinityTerm): this {
    (((this.p.spec.affinity ??= {}).podAntiAffinity ??=
      {}).preferredDuringSchedulingIgnoredDuringExecution ??= []).push({ weight, podAffinityTerm: term });
    return this;
  }
  ownerReference(name: string, kind = 'ReplicaSet'): this {
    (this.p.metadata.ownerReferences ??= []).push({
      apiVersion: 'apps/v1',
      kind,
      name,
      uid: name,
      controller: true,
    });
    return this;
  }
  obj(): Pod {
    return structuredClone(this.p);
  }
}
export const makePod = (name = 'p') => new PodBuilder(name);

export class NodeBuilder {
  private n: Node;
  constructor(name: string) {
    this.n = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: {} },
      spec: {},
      status: { allocatable: { cpu: '1000', memory: '1000Gi', pods: '110' } },
    };
  }
  label(k: string, v: string): this {
    this.n.metadata.labels![k] = v;
    return this;
  }
  labels(m: Record<string, string>): this {
    Object.assign(this.n.metadata.labels!, m);
    return this;
  }
  taint(t: Taint): this {
    (this.n.spec!.taints ??= []).push(t);
    return this;
  }
  /** status.capacity and status.allocatable */
  capacity(r: Record<string, string>): this {
    this.n.status!.allocatable = { ...r };
    this.n.status!.capacity = { ...r };
    return this;
  }
  /** status.allocatable only */
  allocatable(r: Record<string, string>): this {
    this.n.status!.allocatable = { ...r };
    return this;
  }
  unschedulable(): this {
    this.n.spec!.unschedulable = true;
    return this;
  }
  obj(): Node {
    return structuredClone(this.n);
  }
}
export const makeNode = (name: string) => new NodeBuilder(name);

export class ServiceBuilder {
  private s: Service;
  constructor(name: string) {
    this.s = { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: {} };
  }
  namespace(ns: string): this {
    this.s.metadata.namespace = ns;
    return this;
  }
  label(k: string, v: string): this {
    (this.s.metadata.labels ??= {})[k] = v;
    return this;
  }
  /** merged into spec */
  spec(spec: Partial<Service['spec']>): this {
    this.s.spec = { ...this.s.spec, ...spec };
    return this;
  }
  selector(m: Record<string, string>): this {
    this.s.spec.selector = m;
    return this;
  }
  status(status: Service['status'] | undefined): this {
    if (status === undefined) delete this.s.status;
    else this.s.status = status;
    return this;
  }
  obj(): Service {
    return structuredClone(this.s);
  }
}
export const makeService = (name: string) => new ServiceBuilder(name);

// ---------------------------------------------------------------- options forms

let podSeq = 0;

/**
 * A node from an options object, for upstream tables transcribed case by case (upstream's
 * st.MakeNode().Capacity(…).Label(…) collapsed into one literal).
 */
export function nodeOf(
  name: string,
  opts: {
    capacity?: Record<string, string | number>;
    labels?: Record<string, string>;
    taints?: Taint[];
    unschedulable?: boolean;
    images?: { names: string[]; sizeBytes: number }[];
  } = {},
): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: opts.labels },
    spec: { taints: opts.taints, unschedulable: opts.unschedulable },
    status: { capacity: opts.capacity, allocatable: opts.capacity, images: opts.images },
  };
}

/** upstream noderesources makeNode(name, milliCPU, memory, extended) */
export function resNode(
  name: string,
  milliCPU: number,
  memory: number,
  extended: Record<string, number> = {},
): Node {
  const cap: Record<string, string> = { cpu: `${milliCPU}m`, memory: `${memory}` };
  for (const [k, v] of Object.entries(extended)) cap[k] = `${v}`;
  return nodeOf(name, { capacity: cap });
}

/**
 * A pod from an options object (st.MakePod() collapsed into one literal): each entry of `reqs` is one
 * container's requests; no containers unless asked; names p0, p1, … unless given.
 */
export function podOf(
  opts: {
    name?: string;
    node?: string;
    reqs?: Record<string, string | number>[];
    initReqs?: { req: Record<string, string | number>; sidecar?: boolean }[];
    tolerations?: Toleration[];
    nodeSelector?: Record<string, string>;
    affinity?: Pod['spec']['affinity'];
    images?: string[];
    hostPorts?: { port: number; protocol?: 'TCP' | 'UDP' | 'SCTP'; ip?: string }[];
    overhead?: Record<string, string>;
  } = {},
): Pod {
  const containers: Container[] = (opts.reqs ?? []).map((r, i) => ({
    name: `c${i}`,
    resources: { requests: r },
  }));
  (opts.images ?? []).forEach((img, i) => {
    if (containers[i]) containers[i].image = img;
    else containers.push({ name: `c${i}`, image: img });
  });
  if (opts.hostPorts?.length) {
    if (containers.length === 0) containers.push({ name: 'c0' });
    containers[0].ports = opts.hostPorts.map((p) => ({
      containerPort: p.port,
      hostPort: p.port,
      protocol: p.protocol,
      hostIP: p.ip,
    }));
  }
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: opts.name ?? `p${podSeq++}`, namespace: 'default' },
    spec: {
      nodeName: opts.node,
      containers,
      initContainers: opts.initReqs?.map((r, i) => ({
        name: `i${i}`,
        resources: { requests: r.req },
        restartPolicy: r.sidecar ? ('Always' as const) : undefined,
      })),
      tolerations: opts.tolerations,
      nodeSelector: opts.nodeSelector,
      affinity: opts.affinity,
      overhead: opts.overhead,
    },
  };
}

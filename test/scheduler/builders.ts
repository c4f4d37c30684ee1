/**
 * Fluent builders for test pods and nodes, mirroring upstream's scheduler testing wrappers
 * (pkg/scheduler/testing: st.MakePod().Name("p").Label("foo", "")…) so that upstream's test
 * tables translate line by line.
 */
import type {
  LabelSelector,
  Node,
  Pod,
  PodAffinityTerm,
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
  label(k: string, v: string): this {
    (this.p.metadata.labels ??= {})[k] = v;
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
  taint(t: Taint): this {
    (this.n.spec!.taints ??= []).push(t);
    return this;
  }
  capacity(r: Record<string, string>): this {
    this.n.status!.allocatable = { ...r };
    this.n.status!.capacity = { ...r };
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

/**
 * Defaulting the apiserver applies on create/update (pkg/apis/{core,apps,…}/v1/defaults.go) and the status
 * a new object starts with (each registry strategy's PrepareForCreate), for the fields kubesim's
 * components read. What is defaulted is listed in docs/api.md; everything else is left as given.
 */
import { parseQuantity } from './quantity.js';
import { hpaToV2 } from './autoscaling-convert.js';
import { resourceObjectToV1 } from './resource-convert.js';
import type { Container, KubeObject, PodSpec, ResourceList } from './types.js';

type Obj = Record<string, any>;

/** Defaulting never fails: a field of the wrong type is left alone for validation to report. */
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** SetDefaults_PodSpec / SetDefaults_Container subset + requests default to limits. */
export function defaultPodSpec(spec: PodSpec | undefined): void {
  if (!isObj(spec)) return;
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  (spec as Obj).dnsPolicy ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  (spec as Obj).securityContext ??= {};
  (spec as Obj).enableServiceLinks ??= true;
  for (const list of [spec.containers, spec.initContainers]) {
    if (!Array.isArray(list)) continue;
    for (const c of list) if (isObj(c)) defaultContainer(c as Container);
  }
}

/** DefaultTolerationSeconds admission (pods, on create): tolerate not-ready/unreachable for 300 s. */
export function defaultTolerationSeconds(spec: PodSpec | undefined): void {
  if (!isObj(spec)) return;
  if (spec.tolerations !== undefined && spec.tolerations !== null && !Array.isArray(spec.tolerations)) return;
  const tol = (spec.tolerations ??= []);
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    const has = tol.some(
      (t) =>
        isObj(t) &&
        (t.key === key || (t.operator === 'Exists' && !t.key)) &&
        (!t.effect || t.effect === 'NoExecute'),
    );
    if (!has) tol.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
  }
}

function defaultContainer(c: Container): void {
  if (c.imagePullPolicy === undefined && typeof c.image === 'string') {
    // SetDefaults_Container: Always for :latest or untagged images, else IfNotPresent
    const afterSlash = c.image.slice(c.image.lastIndexOf('/') + 1);
    const tagged = afterSlash.includes(':') || c.image.includes('@');
    c.imagePullPolicy = !tagged || c.image.endsWith(':latest') ? 'Always' : 'IfNotPresent';
  }
  (c as Obj).terminationMessagePath ??= '/dev/termination-log';
  (c as Obj).terminationMessagePolicy ??= 'File';
  if (Array.isArray(c.ports)) for (const p of c.ports) if (isObj(p)) p.protocol ??= 'TCP';
  const r = c.resources;
  if (isObj(r) && isObj(r.limits) && (r.requests === undefined || r.requests === null || isObj(r.requests))) {
    // SetDefaults_ResourceRequirements: a limit without a request sets the request
    const req: ResourceList = (r.requests ??= {});
    for (const [k, v] of Object.entries(r.limits)) if (req[k] === undefined) req[k] = v as string | number;
  }
  c.resources ??= {};
}

/** The pod's QoS class (qos.GetPodQOS) from cpu/memory requests and limits of all containers. */
export function podQOSClass(spec: PodSpec | undefined): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  const containers = isObj(spec) ? [...list(spec.containers), ...list(spec.initContainers)] : [];
  let anyRequestOrLimit = false;
  let guaranteed = true;
  for (const c of containers) {
    const res = isObj(c) && isObj(c.resources) ? c.resources : {};
    const req: Obj = isObj(res.requests) ? res.requests : {};
    const lim: Obj = isObj(res.limits) ? res.limits : {};
    for (const name of ['cpu', 'memory']) {
      const rq = req[name];
      const lm = lim[name];
      if (isNonZero(rq) || isNonZero(lm)) anyRequestOrLimit = true;
      if (lm === undefined || !isNonZero(lm)) guaranteed = false;
      else if (rq !== undefined && !sameQuantity(rq, lm)) guaranteed = false;
    }
  }
  if (!anyRequestOrLimit) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function isNonZero(v: string | number | undefined): boolean {
  if (v === undefined) return false;
  try {
    return !parseQuantity(v).isZero();
  } catch {
    return false;
  }
}

function sameQuantity(a: string | number, b: string | number): boolean {
  try {
    return parseQuantity(a).cmp(parseQuantity(b)) === 0;
  } catch {
    return false;
  }
}

/** Defaults applied to every object of a kind, on create and update. */
export function applyDefaults(obj: KubeObject): void {
  const o = obj as Obj;
  resourceObjectToV1(o);
  hpaToV2(o);
  switch (obj.kind) {
    case 'Pod':
      defaultPodSpec(o.spec);
      break;
    case 'Deployment': {
      const s = o.spec;
      if (!isObj(s)) break;
      s.replicas ??= 1;
      s.revisionHistoryLimit ??= 10;
      s.progressDeadlineSeconds ??= 600;
      s.strategy ??= {};
      if (isObj(s.strategy)) {
        s.strategy.type ??= 'RollingUpdate';
        if (s.strategy.type === 'RollingUpdate') {
          s.strategy.rollingUpdate ??= {};
          if (isObj(s.strategy.rollingUpdate)) {
            s.strategy.rollingUpdate.maxUnavailable ??= '25%';
            s.strategy.rollingUpdate.maxSurge ??= '25%';
          }
        }
      }
      if (isObj(s.template)) defaultPodSpec(s.template.spec);
      break;
    }
    case 'HorizontalPodAutoscaler': {
      // autoscaling/v2 SetDefaults_HorizontalPodAutoscaler: 1 replica at least, 80 % CPU when no metric
      const s = o.spec;
      if (!isObj(s)) break;
      s.minReplicas ??= 1;
      if (!Array.isArray(s.metrics) || s.metrics.length === 0)
        s.metrics = [
          {
            type: 'Resource',
            resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
          },
        ];
      break;
    }
    case 'ReplicaSet': {
      const s = o.spec;
      if (!isObj(s)) break;
      s.replicas ??= 1;
      if (isObj(s.template)) defaultPodSpec(s.template.spec);
      break;
    }
    case 'DaemonSet': {
      // apps/v1 SetDefaults_DaemonSet
      const s = o.spec;
      if (!isObj(s)) break;
      s.revisionHistoryLimit ??= 10;
      s.updateStrategy ??= {};
      if (isObj(s.updateStrategy)) {
        s.updateStrategy.type ??= 'RollingUpdate';
        if (s.updateStrategy.type === 'RollingUpdate') {
          s.updateStrategy.rollingUpdate ??= {};
          if (isObj(s.updateStrategy.rollingUpdate)) {
            s.updateStrategy.rollingUpdate.maxUnavailable ??= 1;
            s.updateStrategy.rollingUpdate.maxSurge ??= 0;
          }
        }
      }
      if (isObj(s.template)) defaultPodSpec(s.template.spec);
      break;
    }
    case 'StatefulSet': {
      // apps/v1 SetDefaults_StatefulSet
      const s = o.spec;
      if (!isObj(s)) break;
      s.replicas ??= 1;
      s.revisionHistoryLimit ??= 10;
      s.podManagementPolicy ??= 'OrderedReady';
      s.updateStrategy ??= {};
      if (isObj(s.updateStrategy)) {
        s.updateStrategy.type ??= 'RollingUpdate';
        if (s.updateStrategy.type === 'RollingUpdate') {
          s.updateStrategy.rollingUpdate ??= {};
          if (isObj(s.updateStrategy.rollingUpdate)) s.updateStrategy.rollingUpdate.partition ??= 0;
        }
      }
      s.persistentVolumeClaimRetentionPolicy ??= {};
      if (isObj(s.persistentVolumeClaimRetentionPolicy)) {
        s.persistentVolumeClaimRetentionPolicy.whenDeleted ??= 'Retain';
        s.persistentVolumeClaimRetentionPolicy.whenScaled ??= 'Retain';
      }
      if (isObj(s.template)) defaultPodSpec(s.template.spec);
      break;
    }
    case 'Service': {
      const s = o.spec;
      if (!isObj(s)) break;
      s.type ??= 'ClusterIP';
      if (s.type !== 'ExternalName') {
        s.sessionAffinity ??= 'None';
        s.internalTrafficPolicy ??= 'Cluster';
        if (s.type === 'NodePort' || s.type === 'LoadBalancer') s.externalTrafficPolicy ??= 'Cluster';
      }
      if (Array.isArray(s.ports)) {
        for (const p of s.ports) {
          if (!isObj(p)) continue;
          p.protocol ??= 'TCP';
          if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
        }
      }
      break;
    }
    case 'EndpointSlice':
      if (Array.isArray(o.ports)) for (const p of o.ports) if (isObj(p)) p.protocol ??= 'TCP';
      break;
    case 'PriorityClass':
      // SetDefaults_PriorityClass
      o.preemptionPolicy ??= 'PreemptLowerPriority';
      break;
    case 'StorageClass':
      // SetDefaults_StorageClass
      o.reclaimPolicy ??= 'Delete';
      o.volumeBindingMode ??= 'Immediate';
      break;
    case 'PersistentVolume':
      // SetDefaults_PersistentVolume
      if (isObj(o.spec)) {
        o.spec.persistentVolumeReclaimPolicy ??= 'Retain';
        o.spec.volumeMode ??= 'Filesystem';
      }
      if (!isObj(o.status)) o.status = {};
      o.status.phase ??= 'Pending';
      break;
    case 'PersistentVolumeClaim':
      // SetDefaults_PersistentVolumeClaim
      if (isObj(o.spec)) o.spec.volumeMode ??= 'Filesystem';
      if (!isObj(o.status)) o.status = {};
      o.status.phase ??= 'Pending';
      break;
    case 'CustomResourceDefinition': {
      // SetDefaults_CustomResourceDefinitionSpec: singular and listKind from kind
      const names = o.spec?.names;
      if (!isObj(names) || typeof names.kind !== 'string') break;
      names.singular ||= names.kind.toLowerCase();
      names.listKind ||= `${names.kind}List`;
      break;
    }
  }
}

/** The status an object starts with (registry PrepareForCreate); Node keeps its status. */
export function initialStatus(obj: KubeObject): void {
  const o = obj as Obj;
  switch (obj.kind) {
    case 'Pod':
      defaultTolerationSeconds(o.spec);
      o.status = { phase: 'Pending', qosClass: podQOSClass(o.spec) };
      break;
    case 'Deployment':
      o.status = {};
      break;
    case 'ReplicaSet':
      o.status = { replicas: 0 };
      break;
    case 'DaemonSet':
      o.status = {
        currentNumberScheduled: 0,
        numberMisscheduled: 0,
        desiredNumberScheduled: 0,
        numberReady: 0,
      };
      break;
    case 'StatefulSet':
      o.status = { replicas: 0, availableReplicas: 0 };
      break;
    case 'Service':
      o.status = { loadBalancer: {} };
      break;
    case 'Namespace':
      o.status = { phase: 'Active' };
      break;
  }
}

/**
 * The pod a workload creates: a Deployment, ReplicaSet, StatefulSet, DaemonSet, Job,
 * ReplicationController or PodTemplate through its `spec.template`, a CronJob through
 * `spec.jobTemplate.spec.template`. Capacity planning and scheduling answer for pods; this turns a
 * workload manifest into the pod its controller would create, so a Deployment is never mistaken
 * for a pod.
 *
 * upstream: pkg/controller/controller_utils.go GetPodFromTemplate — the template's labels,
 * annotations and finalizers, the parent's namespace, generateName `<parent name>-`, the spec
 * copied; pkg/controller/daemon/util/daemonset_util.go AddOrUpdateDaemonPodTolerations for
 * DaemonSet pods.
 *
 * Simplified: the pod is also *named* after the workload (a shape needs a name to be reported by;
 * upstream the API server generates `<name>-xxxxx`); owner references, the Deployment's
 * pod-template-hash label, a StatefulSet's per-ordinal hostname and volume claims, and a
 * DaemonSet's per-node affinity are not added (the last because a shape is placed on any node).
 */
import { deepCopy } from './codec.js';
import type { KubeObject, Pod, PodSpec, PodTemplateSpec, Toleration } from './types.js';

/** Kinds whose pods come from `spec.template`. */
const TEMPLATE_KINDS = new Set([
  'Deployment',
  'ReplicaSet',
  'StatefulSet',
  'DaemonSet',
  'Job',
  'ReplicationController',
]);

/** Kinds {@link podFromWorkload} accepts (a Pod is returned as a copy). */
export const WORKLOAD_KINDS: readonly string[] = ['Pod', ...TEMPLATE_KINDS, 'CronJob', 'PodTemplate'];

/** An object that is not a pod and has no pod template; the message names the kind, object and field. */
export class WorkloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkloadError';
  }
}

interface WorkloadLike extends Partial<KubeObject> {
  spec?: {
    template?: PodTemplateSpec;
    jobTemplate?: { spec?: { template?: PodTemplateSpec } };
  };
  template?: PodTemplateSpec;
}

/** Whether {@link podFromWorkload} accepts this object's kind. */
export function isWorkload(obj: { kind?: string }): boolean {
  return obj.kind !== undefined && WORKLOAD_KINDS.includes(obj.kind);
}

/**
 * The pod `obj` creates (a copy; `obj` is not modified). A Pod is returned as a deep copy.
 * Throws a {@link WorkloadError} for any other kind and for a workload without a pod template.
 */
export function podFromWorkload(obj: KubeObject | WorkloadLike): Pod {
  const w = obj as WorkloadLike;
  const kind = w.kind;
  const name = w.metadata?.name;
  const what = `${kind ?? 'object without kind'}${name ? ` "${name}"` : ''}`;
  if (kind === 'Pod') return deepCopy(obj as Pod);
  let template: PodTemplateSpec | undefined;
  let field: string;
  if (kind === 'CronJob') {
    template = w.spec?.jobTemplate?.spec?.template;
    field = 'spec.jobTemplate.spec.template.spec';
  } else if (kind === 'PodTemplate') {
    template = w.template;
    field = 'template.spec';
  } else if (kind !== undefined && TEMPLATE_KINDS.has(kind)) {
    template = w.spec?.template;
    field = 'spec.template.spec';
  } else {
    throw new WorkloadError(
      `${what} is not a pod or a workload with a pod template (${WORKLOAD_KINDS.join(', ')})`,
    );
  }
  if (!template?.spec || typeof template.spec !== 'object')
    throw new WorkloadError(`${what}: ${field}: Required value`);
  const tm = template.metadata ?? {};
  const spec = deepCopy(template.spec);
  if (kind === 'DaemonSet') addDaemonPodTolerations(spec);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      ...(name ? { generateName: `${name}-` } : {}),
      namespace: w.metadata?.namespace ?? 'default',
      ...(tm.labels ? { labels: { ...tm.labels } } : {}),
      ...(tm.annotations ? { annotations: { ...tm.annotations } } : {}),
      ...(tm.finalizers ? { finalizers: [...tm.finalizers] } : {}),
    },
    spec,
  };
}

/**
 * Throws a {@link WorkloadError} unless `obj` is a pod (kind Pod, or no kind at all as in a pod
 * built in code): for functions that take pods, so that a workload is never taken for one.
 */
export function assertPod(obj: { kind?: string; metadata?: { name?: string } }, where: string): void {
  if (obj.kind === undefined || obj.kind === 'Pod') return;
  const name = obj.metadata?.name ? ` "${obj.metadata.name}"` : '';
  throw new WorkloadError(
    isWorkload(obj)
      ? `${where}: ${obj.kind}${name} is not a Pod; podFromWorkload() turns it into the pod it creates`
      : `${where}: ${obj.kind}${name} is not a Pod`,
  );
}

/** The tolerations every DaemonSet pod gets (AddOrUpdateDaemonPodTolerations, in its order). */
function daemonPodTolerations(spec: PodSpec): Toleration[] {
  const exists = (key: string, effect: Toleration['effect']): Toleration => ({
    key,
    operator: 'Exists',
    effect,
  });
  return [
    exists('node.kubernetes.io/not-ready', 'NoExecute'),
    exists('node.kubernetes.io/unreachable', 'NoExecute'),
    exists('node.kubernetes.io/disk-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/memory-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/pid-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/unschedulable', 'NoSchedule'),
    ...(spec.hostNetwork ? [exists('node.kubernetes.io/network-unavailable', 'NoSchedule')] : []),
  ];
}

/**
 * v1helper.AddOrUpdateTolerationInPodSpec for each daemon toleration: one with the same key,
 * operator, value and effect is replaced (dropping e.g. its tolerationSeconds), otherwise it is added.
 */
function addDaemonPodTolerations(spec: PodSpec): void {
  const tolerations = spec.tolerations ?? [];
  for (const t of daemonPodTolerations(spec)) {
    const at = tolerations.findIndex(
      (e) =>
        (e.key ?? '') === t.key &&
        (e.operator ?? '') === t.operator &&
        (e.value ?? '') === '' &&
        (e.effect ?? '') === t.effect,
    );
    if (at >= 0) tolerations[at] = t;
    else tolerations.push(t);
  }
  spec.tolerations = tolerations;
}

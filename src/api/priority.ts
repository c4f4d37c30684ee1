/**
 * The Priority admission plugin (upstream: plugin/pkg/admission/priority/admission.go, enabled by
 * default in kube-apiserver) and the system priority classes (pkg/apis/scheduling/types.go).
 *
 * On Pod create it resolves spec.priorityClassName to spec.priority and spec.preemptionPolicy:
 * an empty name takes the global default class (the lowest-valued one if several claim it), or
 * priority 0 / PreemptLowerPriority when there is none; an unknown name is forbidden
 * (`no PriorityClass with name x was found`); a priority or preemptionPolicy given in the pod that
 * differs from the class's is forbidden. On update a pod keeps the values it was admitted with.
 * On PriorityClass create/update only one class may be the global default.
 *
 * Example: classes {high: 1000, globalDefault low: 10}
 *   pod with priorityClassName high → priority 1000
 *   pod without a class             → priorityClassName low, priority 10
 *   pod with class system-node-critical → priority 2000001000 (built in, stored or not)
 */
import { forbidden } from './errors.js';
import type { Qualified } from './errors.js';

type Obj = Record<string, any>;

/** Above this only system classes may go (HighestUserDefinablePriority). */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
/** The value given to system-cluster-critical (SystemCriticalPriority). */
export const SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY;
export const SYSTEM_PRIORITY_CLASS_PREFIX = 'system-';

export interface PriorityClassLike {
  metadata: { name?: string };
  value: number;
  globalDefault?: boolean;
  preemptionPolicy?: string;
}

/** The classes kube-apiserver creates at start-up (scheduling's systemPriorityClasses). */
export const SYSTEM_PRIORITY_CLASSES: readonly PriorityClassLike[] = [
  {
    metadata: { name: 'system-node-critical' },
    value: SYSTEM_CRITICAL_PRIORITY + 1000,
    preemptionPolicy: 'PreemptLowerPriority',
  },
  {
    metadata: { name: 'system-cluster-critical' },
    value: SYSTEM_CRITICAL_PRIORITY,
    preemptionPolicy: 'PreemptLowerPriority',
  },
];

/** IsKnownSystemPriorityClass: '' when `name` is a system class with this value and globalDefault. */
export function knownSystemClassError(name: string, value: unknown, globalDefault: unknown): string {
  const spc = SYSTEM_PRIORITY_CLASSES.find((c) => c.metadata.name === name);
  if (!spc) return `${name} is not a known system priority class`;
  if (spc.value !== value) return `value of ${name} PriorityClass must be ${spc.value}`;
  if ((globalDefault ?? false) !== false) return `globalDefault of ${name} PriorityClass must be false`;
  return '';
}

/** getDefaultPriorityClass: the lowest-valued class marked globalDefault, if any. */
export function defaultPriorityClass(classes: Iterable<PriorityClassLike>): PriorityClassLike | undefined {
  let best: PriorityClassLike | undefined;
  for (const pc of classes) if (pc.globalDefault === true && (!best || pc.value < best.value)) best = pc;
  return best;
}

const podsResource: Qualified = { name: 'pods', group: '' };
const pcResource: Qualified = { name: 'priorityclasses', group: 'scheduling.k8s.io' };

/**
 * admitPod (Create): set priority and preemptionPolicy on a pod from its class. `classes` are the
 * stored PriorityClasses; the system classes resolve even when not stored.
 * @throws ApiError 403 as upstream's admission.NewForbidden
 */
export function admitPodPriority(pod: Obj, classes: readonly PriorityClassLike[]): void {
  const spec = pod.spec;
  if (!spec || typeof spec !== 'object') return;
  const name = pod.metadata?.name ?? '';
  let className = '';
  let priority = 0;
  let policy: string | undefined = 'PreemptLowerPriority';
  if (!spec.priorityClassName) {
    const dpc = defaultPriorityClass(classes);
    if (dpc) {
      className = dpc.metadata.name ?? '';
      priority = dpc.value;
      policy = dpc.preemptionPolicy;
    }
  } else {
    className = spec.priorityClassName;
    const pc =
      classes.find((c) => c.metadata.name === className) ??
      SYSTEM_PRIORITY_CLASSES.find((c) => c.metadata.name === className);
    if (!pc) throw forbidden(podsResource, name, `no PriorityClass with name ${className} was found`);
    priority = pc.value;
    policy = pc.preemptionPolicy;
  }
  spec.priorityClassName = className || undefined;
  if (spec.priorityClassName === undefined) delete spec.priorityClassName;
  if (spec.priority !== undefined && spec.priority !== null && spec.priority !== priority) {
    throw forbidden(
      podsResource,
      name,
      `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
    );
  }
  spec.priority = priority;
  if (policy !== undefined) {
    if (
      spec.preemptionPolicy !== undefined &&
      spec.preemptionPolicy !== null &&
      spec.preemptionPolicy !== policy
    ) {
      throw forbidden(
        podsResource,
        name,
        `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`,
      );
    }
    spec.preemptionPolicy = policy;
  }
}

/** admitPod (Update): the pod keeps the priority and preemptionPolicy it was admitted with. */
export function keepPodPriority(pod: Obj, old: Obj): void {
  if (!pod.spec || typeof pod.spec !== 'object') return;
  if (pod.spec.priority === undefined && old.spec?.priority !== undefined)
    pod.spec.priority = old.spec.priority;
  if (pod.spec.preemptionPolicy === undefined && old.spec?.preemptionPolicy !== undefined)
    pod.spec.preemptionPolicy = old.spec.preemptionPolicy;
}

/** validatePriorityClass: a second global default is forbidden. */
export function validatePriorityClassDefault(
  pc: Obj,
  classes: readonly PriorityClassLike[],
  operation: 'CREATE' | 'UPDATE',
): void {
  if (pc.globalDefault !== true) return;
  const dpc = defaultPriorityClass(classes);
  if (!dpc) return;
  if (operation === 'CREATE' || dpc.metadata.name !== pc.metadata?.name) {
    throw forbidden(
      pcResource,
      pc.metadata?.name ?? '',
      `PriorityClass ${dpc.metadata.name} is already marked as default. Only one default can exist`,
    );
  }
}

/**
 * Pods of a snapshot were admitted when they were created: their stored priority stands even when
 * their PriorityClass is not in the snapshot (`kubectl get` of pods without priorityclasses). One
 * line per missing class, for every command that reads snapshots to print as a warning:
 * `PriorityClass "high-priority" is not in the snapshot: 2 pod(s) keep their stored priority (1000)`.
 */
export function missingPriorityClassWarnings(
  pods: readonly { spec?: unknown }[],
  classes: readonly { metadata?: { name?: string } }[],
): string[] {
  const known = new Set([
    ...SYSTEM_PRIORITY_CLASSES.map((c) => c.metadata.name),
    ...classes.map((c) => c.metadata?.name),
  ]);
  const missing = new Map<string, { pods: number; priorities: Set<string> }>();
  for (const o of pods) {
    const spec = o.spec as { priorityClassName?: string; priority?: number } | undefined;
    const name = spec?.priorityClassName;
    if (!name || known.has(name)) continue;
    const m = missing.get(name) ?? { pods: 0, priorities: new Set() };
    m.pods++;
    m.priorities.add(typeof spec.priority === 'number' ? String(spec.priority) : 'none');
    missing.set(name, m);
  }
  return [...missing].map(
    ([name, m]) =>
      `PriorityClass "${name}" is not in the snapshot: ${m.pods} pod(s) keep their stored priority (${[...m.priorities].join(', ')}); capture priorityclasses too`,
  );
}

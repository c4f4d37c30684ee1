/**
 * A pod's effective resource requests, the one home of the rule (upstream:
 * k8s.io/component-helpers/resource/helpers.go `PodRequests`, `AggregateContainerRequests`,
 * `IsSupportedPodLevelResource`, release-1.34), used by the scheduler's engine
 * (scheduler/engine/resources.ts), the simulation's stand-in scheduler and anything else that
 * counts what a pod takes from a node:
 *
 *   1. containers: Σ regular containers + Σ restartable init containers (native sidecars, which
 *      keep running), and at least, per resource, max over init containers i of
 *      (request_i + Σ sidecars declared before i) — a plain init container runs alone with the
 *      sidecars started before it;
 *   2. pod-level `spec.resources.requests` (PodLevelResources, beta and on by default in v1.34)
 *      replace the aggregate for the resources a pod may set there (cpu, memory, hugepages-*);
 *   3. `spec.overhead` is added (RuntimeClass overhead).
 *
 * Example: containers 1 cpu; init containers [init 5, sidecar 1, sidecar 2, init 5, sidecar 3]
 *   → sidecars 1+2+3 run beside the container: 1+6 = 7; the second init needs 5+1+2 = 8 → 8 cpu.
 *   With spec.resources.requests.cpu = 18 → 18 cpu; with overhead cpu 1 on top → 19.
 *
 * Amounts are in the scheduler's integer units (cpu in millicores, everything else in units),
 * rounded up per container as the NodeTable accounts them. `amount` turns one quantity into that
 * unit and may name the field in its error (the engine's does, with a cache).
 */
import { bytes, cpuMillis } from './quantity.js';
import type { Container, Pod, ResourceList } from './types.js';

/** where a quantity came from, for error messages */
export type RequestField = 'containers' | 'initContainers' | 'overhead' | 'resources';

/** one quantity in integer units: cpu in millicores, anything else in units (Value()) */
export type AmountFn = (
  name: string,
  q: string | number,
  pod: Pod,
  field: RequestField,
  index: number,
) => number;

export interface PodRequestsOptions {
  /** ExcludeOverhead: leave spec.overhead out */
  excludeOverhead?: boolean;
  /** SkipPodLevelResources: aggregate the containers only */
  skipPodLevelResources?: boolean;
  /**
   * NonMissingContainerRequests: the amount a container that requests nothing of a resource counts
   * for it (the scheduler's non-zero requests: cpu 100m, memory 200Mi); an explicit 0 stays 0
   */
  nonMissing?: ReadonlyMap<string, number>;
}

/** Amounts per resource name, in first-seen order. */
export type Requests = Map<string, number>;

const defaultAmount: AmountFn = (name, q) => (name === 'cpu' ? cpuMillis(q) : bytes(q));

/** IsSupportedPodLevelResource: cpu, memory and hugepages-* may be requested at pod level */
export function isSupportedPodLevelResource(name: string): boolean {
  return name === 'cpu' || name === 'memory' || name.startsWith('hugepages-');
}

/** IsPodLevelRequestsSet: spec.resources.requests names a supported resource */
export function podLevelRequests(pod: Pod): ResourceList | undefined {
  const r = (pod.spec?.resources as { requests?: ResourceList } | undefined)?.requests;
  if (!r || typeof r !== 'object') return undefined;
  for (const k of Object.keys(r)) if (isSupportedPodLevelResource(k)) return r;
  return undefined;
}

function add(into: Requests, list: Requests): void {
  for (const [k, v] of list) into.set(k, (into.get(k) ?? 0) + v);
}

function max(into: Requests, list: Requests): void {
  for (const [k, v] of list) {
    const cur = into.get(k);
    if (cur === undefined || v > cur) into.set(k, v);
  }
}

function containerRequests(
  c: Container,
  pod: Pod,
  field: RequestField,
  index: number,
  amount: AmountFn,
  nonMissing: ReadonlyMap<string, number> | undefined,
): Requests {
  const out: Requests = new Map();
  const req = c.resources?.requests;
  if (req) for (const k of Object.keys(req)) out.set(k, amount(k, req[k], pod, field, index));
  if (nonMissing) for (const [k, v] of nonMissing) if (!out.has(k)) out.set(k, v);
  return out;
}

/** PodRequests: the steps in the module comment */
export function podRequests(
  pod: Pod,
  opts: PodRequestsOptions = {},
  amount: AmountFn = defaultAmount,
): Requests {
  const reqs: Requests = new Map();
  const nm = opts.nonMissing;
  const containers = pod.spec?.containers ?? [];
  for (let i = 0; i < containers.length; i++)
    add(reqs, containerRequests(containers[i], pod, 'containers', i, amount, nm));
  const sidecars: Requests = new Map();
  const initMax: Requests = new Map();
  const inits = pod.spec?.initContainers ?? [];
  for (let i = 0; i < inits.length; i++) {
    const c = inits[i];
    const cr = containerRequests(c, pod, 'initContainers', i, amount, nm);
    let use: Requests;
    if (c.restartPolicy === 'Always') {
      add(reqs, cr); // a sidecar keeps running beside the regular containers
      add(sidecars, cr);
      use = sidecars;
    } else {
      use = new Map(cr);
      add(use, sidecars);
    }
    max(initMax, use);
  }
  max(reqs, initMax);
  const podLevel = opts.skipPodLevelResources ? undefined : podLevelRequests(pod);
  if (podLevel) {
    for (const k of Object.keys(podLevel))
      if (isSupportedPodLevelResource(k)) reqs.set(k, amount(k, podLevel[k], pod, 'resources', 0));
  }
  const overhead = pod.spec?.overhead;
  if (overhead && !opts.excludeOverhead) {
    for (const k of Object.keys(overhead))
      reqs.set(k, (reqs.get(k) ?? 0) + amount(k, overhead[k], pod, 'overhead', 0));
  }
  return reqs;
}

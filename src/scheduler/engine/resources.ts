import type { Container, Node, Pod, ResourceList } from '../../api/types.js';
import { bytes, cpuMillis } from '../../api/quantity.js';
import {
  podLevelRequests,
  podRequests as apiPodRequests,
  type RequestField,
} from '../../api/pod-requests.js';

/** upstream schedutil.DefaultMilliCPURequest / DefaultMemoryRequest: used for scoring when a container requests none */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

/** Resource amounts in the scheduler's integer units: cpu in millicores, everything else in units (Value()). */
export type ResourceAmounts = Map<string, number>;

/** A bad quantity in a pod or node, named by object and field (no stack trace at the CLI). */
export class ResourceParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResourceParseError';
  }
}

/** Parsed quantities by spelling: the same few strings ("100m", "128Mi") recur across thousands of pods. */
const cpuCache = new Map<string | number, number>();
const valueCache = new Map<string | number, number>();
const CACHE_LIMIT = 1 << 16;

/** `pod ns/name` for error messages (built only when an error is thrown: the hot path allocates no strings) */
function podName(pod: Pod): string {
  return `pod ${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? '?'}`;
}

/** the pod fields a quantity can come from */
type PodField = RequestField;

/**
 * A quantity in the scheduler's units (`where`: a fixed location for nodes, or the pod with the
 * field and index — turned into text only when the quantity fails to parse).
 */
function amount(name: string, q: string | number, where: string | Pod, field?: PodField, index = 0): number {
  const cache = name === 'cpu' ? cpuCache : valueCache;
  const hit = cache.get(q);
  if (hit !== undefined) return hit;
  try {
    const v = name === 'cpu' ? cpuMillis(q) : bytes(q);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(q, v);
    return v;
  } catch (e) {
    const at =
      typeof where === 'string'
        ? where
        : field === 'overhead'
          ? `${podName(where)}: spec.overhead`
          : field === 'resources'
            ? `${podName(where)}: spec.resources.requests`
            : `${podName(where)}: spec.${field}[${index}].resources.requests`;
    throw new ResourceParseError(
      `${at}: invalid quantity ${JSON.stringify(q)} for ${name}: ${(e as Error).message}`,
    );
  }
}

/** the scoring defaults a container without a cpu/memory request counts for (NonMissingContainerRequests) */
const NON_MISSING: ReadonlyMap<string, number> = new Map([
  ['cpu', DEFAULT_MILLI_CPU_REQUEST],
  ['memory', DEFAULT_MEMORY_REQUEST],
]);

/**
 * The pod's effective requests (api/pod-requests.ts, upstream resource.PodRequests: containers,
 * native sidecars, init containers, pod-level spec.resources, overhead) in the engine's units, with
 * quantities parsed through the cache above and errors naming the pod and field. With `nonMissing`,
 * missing cpu/memory container requests count as 100m / 200Mi (the scoring "non-zero" requests of
 * NodeInfo.NonZeroRequested and the LeastAllocated family). Quantities are rounded up to integers
 * per container (upstream sums exact quantities first; the two differ only for sub-millicore CPU).
 */
export function podRequests(pod: Pod, nonMissing = false): ResourceAmounts {
  return apiPodRequests(pod, nonMissing ? { nonMissing: NON_MISSING } : {}, amount);
}

function cpuMem(
  c: Container,
  pod: Pod,
  list: PodField,
  index: number,
  out: [number, number],
): [number, number] {
  const req = c.resources?.requests;
  const cpu = req?.cpu;
  const mem = req?.memory;
  out[0] = cpu === undefined ? DEFAULT_MILLI_CPU_REQUEST : amount('cpu', cpu, pod, list, index);
  out[1] = mem === undefined ? DEFAULT_MEMORY_REQUEST : amount('memory', mem, pod, list, index);
  return out;
}

/**
 * The non-zero cpu (millicores) and memory (bytes) requests of a pod — the same aggregation as
 * `podRequests(pod, true)` restricted to those two resources, without building maps.
 */
export function nonZeroCpuMem(pod: Pod): { cpu: number; memory: number } {
  const cm: [number, number] = [0, 0];
  let cpu = 0,
    mem = 0;
  const containers = pod.spec?.containers ?? [];
  for (let i = 0; i < containers.length; i++) {
    cpuMem(containers[i], pod, 'containers', i, cm);
    cpu += cm[0];
    mem += cm[1];
  }
  let sideCpu = 0,
    sideMem = 0,
    initCpu = -1,
    initMem = -1;
  const inits = pod.spec?.initContainers ?? [];
  for (let i = 0; i < inits.length; i++) {
    cpuMem(inits[i], pod, 'initContainers', i, cm);
    let useCpu: number, useMem: number;
    if (inits[i].restartPolicy === 'Always') {
      cpu += cm[0];
      mem += cm[1];
      sideCpu += cm[0];
      sideMem += cm[1];
      useCpu = sideCpu;
      useMem = sideMem;
    } else {
      useCpu = cm[0] + sideCpu;
      useMem = cm[1] + sideMem;
    }
    if (useCpu > initCpu) initCpu = useCpu;
    if (useMem > initMem) initMem = useMem;
  }
  if (initCpu > cpu) cpu = initCpu;
  if (initMem > mem) mem = initMem;
  // pod-level requests replace the containers' aggregate (PodLevelResources)
  const podLevel = podLevelRequests(pod);
  if (podLevel?.cpu !== undefined) cpu = amount('cpu', podLevel.cpu, pod, 'resources', 0);
  if (podLevel?.memory !== undefined) mem = amount('memory', podLevel.memory, pod, 'resources', 0);
  const overhead = pod.spec?.overhead;
  if (overhead?.cpu !== undefined) cpu += amount('cpu', overhead.cpu, pod, 'overhead');
  if (overhead?.memory !== undefined) mem += amount('memory', overhead.memory, pod, 'overhead');
  return { cpu, memory: mem };
}

/**
 * A pod's effective requests ({@link podRequests}: names in first-seen order, zero amounts kept)
 * and its non-zero cpu/memory ({@link nonZeroCpuMem}) in parallel arrays — what the NodeTable
 * accounts on assume and what compilePod reads. Hot path (every compile and every assume): a pod
 * with only regular containers and no overhead, nearly every pod, is summed in one pass without
 * maps; init containers, overhead and pod-level resources take the general functions above. `into` is overwritten
 * (a caller that sums many pods passes one scratch object).
 */
export interface PodResourceSums {
  names: string[];
  amounts: number[];
  nzCpu: number;
  nzMem: number;
}

export function podResourceSums(
  pod: Pod,
  into: PodResourceSums = { names: [], amounts: [], nzCpu: 0, nzMem: 0 },
): PodResourceSums {
  const spec = pod.spec;
  const names = into.names;
  const amounts = into.amounts;
  names.length = 0;
  amounts.length = 0;
  if ((spec?.initContainers?.length ?? 0) > 0 || spec?.overhead || spec?.resources) {
    for (const [k, v] of podRequests(pod)) {
      names.push(k);
      amounts.push(v);
    }
    const nz = nonZeroCpuMem(pod);
    into.nzCpu = nz.cpu;
    into.nzMem = nz.memory;
    return into;
  }
  let nzCpu = 0,
    nzMem = 0;
  const containers = spec?.containers ?? [];
  for (let i = 0; i < containers.length; i++) {
    const req = containers[i].resources?.requests;
    let cpu = DEFAULT_MILLI_CPU_REQUEST,
      mem = DEFAULT_MEMORY_REQUEST;
    if (req) {
      for (const k in req) {
        if (!Object.hasOwn(req, k)) continue;
        const v = amount(k, req[k], pod, 'containers', i);
        if (k === 'cpu') cpu = v;
        else if (k === 'memory') mem = v;
        let j = 0;
        while (j < names.length && names[j] !== k) j++;
        if (j === names.length) {
          names.push(k);
          amounts.push(v);
        } else amounts[j] += v;
      }
    }
    nzCpu += cpu;
    nzMem += mem;
  }
  into.nzCpu = nzCpu;
  into.nzMem = nzMem;
  return into;
}

/** Node allocatable (status.allocatable, falling back to status.capacity as the kubelet would report it). */
export function nodeAllocatable(node: Node): ResourceAmounts {
  const list: ResourceList | undefined = node.status?.allocatable ?? node.status?.capacity;
  const out: ResourceAmounts = new Map();
  if (!list) return out;
  const where = `node ${node.metadata?.name ?? '?'}: status.allocatable`; // once per node, not a hot path
  for (const k of Object.keys(list)) out.set(k, amount(k, list[k], where));
  return out;
}

/** Upstream IsScalarResourceName: extended (domain-prefixed, not kubernetes.io/), hugepages-*, attachable-volumes-*, or requests.* native prefixed names. */
export function isScalarResourceName(name: string): boolean {
  if (name.startsWith('hugepages-') || name.startsWith('attachable-volumes-')) return true;
  return isExtendedResourceName(name) || isPrefixedNativeResource(name);
}

function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

function isPrefixedNativeResource(name: string): boolean {
  return name.includes('kubernetes.io/');
}

/** Upstream IsExtendedResourceName: fully-qualified, outside kubernetes.io/, and not "requests." prefixed. */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false;
  return true;
}

/**
 * Seeded generator of Services + EndpointSlices at scale (N services × M endpoints) for the
 * kube-proxy renderers, the dataplane model and `kubesim bench proxy`.
 *
 * The mix is meant to look like a real cluster, not a best case: mostly ClusterIP services, some
 * NodePort and LoadBalancer ones (a few with loadBalancerSourceRanges), a few externalIPs,
 * externalTrafficPolicy=Local on some external services, internalTrafficPolicy=Local on a few,
 * ClientIP session affinity on some, UDP next to TCP, a second port on some services, and a few
 * endpoints that are not ready or are terminating. EndpointSlices are cut at 100 endpoints per
 * slice, as the EndpointSlice controller does by default (--max-endpoints-per-slice=100).
 *
 * Every random choice comes from one seeded Rng, so `(options, seed)` fixes the whole cluster.
 */
import type { EndpointSlice, Endpoint, Service, ServicePort } from '../api/types.js';
import { Rng } from '../util/rng.js';
import { formatIPv4 } from './model/ip.js';

export interface ServiceGenOptions {
  /** number of Services */
  services: number;
  /** endpoints (pods) per Service */
  endpoints: number;
  /** seed for every random choice (default 1) */
  seed?: number | string;
  /** number of nodes the endpoints are spread over (default 100); node-0 is "this node" */
  nodes?: number;
  /** share of each kind, each in [0,1]; defaults describe a typical cluster */
  mix?: Partial<GenMix>;
}

export interface GenMix {
  nodePort: number;
  loadBalancer: number;
  externalIPs: number;
  /** of NodePort/LoadBalancer services: externalTrafficPolicy=Local */
  externalLocal: number;
  internalLocal: number;
  clientIPAffinity: number;
  udp: number;
  secondPort: number;
  /** of LoadBalancer services: with loadBalancerSourceRanges */
  sourceRanges: number;
  notReady: number;
  terminating: number;
}

export const DEFAULT_MIX: GenMix = {
  nodePort: 0.1,
  loadBalancer: 0.05,
  externalIPs: 0.03,
  externalLocal: 0.3,
  internalLocal: 0.03,
  clientIPAffinity: 0.08,
  udp: 0.1,
  secondPort: 0.15,
  sourceRanges: 0.3,
  notReady: 0.03,
  terminating: 0.01,
};

export interface GeneratedServices {
  services: Service[];
  endpointSlices: EndpointSlice[];
  /** node names, node-0 … node-(n-1) */
  nodes: string[];
  /** the node kube-proxy runs on in the renderers' point of view */
  nodeName: string;
  /** ClusterIP range the generator allocated from */
  serviceCIDR: string;
  /** pod range (kube-proxy's --cluster-cidr) */
  clusterCIDR: string;
}

export const GEN_SERVICE_CIDR = '10.96.0.0/12';
export const GEN_CLUSTER_CIDR = '100.64.0.0/10';
const MAX_ENDPOINTS_PER_SLICE = 100;

/** dotted quad of a 32-bit unsigned integer */
export const ipv4 = formatIPv4;

/**
 * Generates a cluster of `services` Services with `endpoints` endpoints each.
 * Addresses never collide: ClusterIPs count up from 10.96.0.10, pod IPs from 100.64.0.2,
 * LoadBalancer ingress IPs from 198.18.0.0, external IPs from 192.0.2.0, NodePorts from 30000
 * (when 30000-32767 is used up, further NodePort/LoadBalancer draws become ClusterIP).
 */
export function generateServices(opts: ServiceGenOptions): GeneratedServices {
  const services: Service[] = [];
  const endpointSlices: EndpointSlice[] = [];
  for (const g of generateServiceStream(opts)) {
    services.push(g.service);
    endpointSlices.push(...g.slices);
  }
  const nodes = generatedNodeNames(opts);
  return {
    services,
    endpointSlices,
    nodes,
    nodeName: nodes[0],
    serviceCIDR: GEN_SERVICE_CIDR,
    clusterCIDR: GEN_CLUSTER_CIDR,
  };
}

/** The node names of a generated cluster: node-0 … node-(n-1). */
export function generatedNodeNames(opts: ServiceGenOptions): string[] {
  return Array.from({ length: opts.nodes ?? 100 }, (_, i) => `node-${i}`);
}

/**
 * The cluster of {@link generateServices}, one Service and its EndpointSlices at a time (the same
 * objects, the same order), so that a caller feeding a proxier need not hold them all: a 100k ×
 * 10 cluster is ~2 GB of API objects.
 */
export function* generateServiceStream(
  opts: ServiceGenOptions,
): Generator<{ service: Service; slices: EndpointSlice[] }> {
  validate(opts);
  const rng = new Rng(opts.seed ?? 1);
  const mix: GenMix = { ...DEFAULT_MIX, ...(opts.mix ?? {}) };
  const nodeCount = opts.nodes ?? 100;
  const nodes = generatedNodeNames(opts);

  let nextClusterIP = (10 << 24) + (96 << 16) + 10; // 10.96.0.10
  let nextPodIP = ((100 << 24) >>> 0) + (64 << 16) + 2; // 100.64.0.2
  let nextLbIP = (198 << 24) + (18 << 16); // 198.18.0.0/15 (benchmarking range)
  let nextExtIP = (192 << 24) + (0 << 16) + (2 << 8); // 192.0.2.0
  let nextNodePort = 30000;

  const namespaces = Math.max(1, Math.ceil(opts.services / 50));
  for (let s = 0; s < opts.services; s++) {
    const ns = `ns-${s % namespaces}`;
    const name = `svc-${s}`;
    const r = rng.next();
    let type: 'ClusterIP' | 'NodePort' | 'LoadBalancer' =
      r < mix.loadBalancer ? 'LoadBalancer' : r < mix.loadBalancer + mix.nodePort ? 'NodePort' : 'ClusterIP';
    // the NodePort range (30000-32767) is finite: once it is nearly used up, further external
    // services are generated as ClusterIP instead (documented in docs/proxy-ipvs-nftables.md)
    if (type !== 'ClusterIP' && nextNodePort > 32767 - 3) type = 'ClusterIP';
    const udp = rng.next() < mix.udp;
    const protocol = udp ? 'UDP' : 'TCP';
    const ports: ServicePort[] = [
      { name: udp ? 'dns' : 'http', protocol, port: udp ? 53 : 80, targetPort: udp ? 5353 : 8080 },
    ];
    if (rng.next() < mix.secondPort)
      ports.push({ name: 'metrics', protocol: 'TCP', port: 9090, targetPort: 9090 });
    if (type !== 'ClusterIP') {
      for (const p of ports) p.nodePort = nextNodePort++;
    }
    const clusterIP = ipv4(nextClusterIP++);
    const svc: Service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: ns, uid: `svc-uid-${s}` },
      spec: {
        type,
        clusterIP,
        clusterIPs: [clusterIP],
        ipFamilies: ['IPv4'],
        ports,
        selector: { app: name },
      },
    };
    if (type !== 'ClusterIP' && rng.next() < mix.externalLocal) {
      svc.spec.externalTrafficPolicy = 'Local';
      // the API server allocates a health-check NodePort for eTP=Local LoadBalancers
      if (type === 'LoadBalancer') svc.spec.healthCheckNodePort = nextNodePort++;
    } else if (type !== 'ClusterIP') {
      svc.spec.externalTrafficPolicy = 'Cluster';
    }
    if (rng.next() < mix.internalLocal) svc.spec.internalTrafficPolicy = 'Local';
    if (rng.next() < mix.clientIPAffinity) {
      svc.spec.sessionAffinity = 'ClientIP';
      svc.spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
    }
    if (rng.next() < mix.externalIPs) svc.spec.externalIPs = [ipv4(nextExtIP++)];
    if (type === 'LoadBalancer') {
      svc.status = { loadBalancer: { ingress: [{ ip: ipv4(nextLbIP++) }] } };
      if (rng.next() < mix.sourceRanges) svc.spec.loadBalancerSourceRanges = ['203.0.113.0/24', '10.0.0.0/8'];
    }
    // endpoints, cut into slices of at most 100
    const eps: Endpoint[] = [];
    for (let e = 0; e < opts.endpoints; e++) {
      const terminating = rng.next() < mix.terminating;
      const ready = !terminating && rng.next() >= mix.notReady;
      const nodeIndex = rng.int(nodeCount);
      eps.push({
        addresses: [ipv4(nextPodIP++)],
        conditions: { ready, serving: ready || terminating, terminating },
        nodeName: nodes[nodeIndex],
        zone: `zone-${nodeIndex % 3}`,
        targetRef: { kind: 'Pod', namespace: ns, name: `${name}-${e}` },
      });
    }
    const epPorts = ports.map((p) => ({ name: p.name, protocol: p.protocol, port: Number(p.targetPort) }));
    // a Service without endpoints still gets one (empty) slice, like the controller's placeholder
    const sliceCount = Math.max(1, Math.ceil(eps.length / MAX_ENDPOINTS_PER_SLICE));
    const slices: EndpointSlice[] = [];
    for (let k = 0; k < sliceCount; k++) {
      const off = k * MAX_ENDPOINTS_PER_SLICE;
      slices.push({
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: `${name}-${k}`,
          namespace: ns,
          labels: { 'kubernetes.io/service-name': name },
          generation: 1,
        },
        addressType: 'IPv4',
        endpoints: eps.slice(off, off + MAX_ENDPOINTS_PER_SLICE),
        ports: epPorts,
      });
    }
    yield { service: svc, slices };
  }
}

/** What {@link changeOneEndpoint} did, for reports. */
export interface EndpointChange {
  slice: EndpointSlice;
  /** index of the slice in cluster.endpointSlices */
  sliceIndex: number;
  /** the address that left and the one that replaced it (a pod was rescheduled) */
  removed: string;
  added: string;
}

/**
 * The typical steady-state event: one pod of one service is replaced (old IP gone, new IP ready).
 * Returns a NEW EndpointSlice object (the old one is left untouched, as an informer would hand the
 * proxier old and new objects) with metadata.generation bumped, and stores it in the cluster.
 */
export function changeOneEndpoint(cluster: GeneratedServices, rng: Rng, newIP?: string): EndpointChange {
  const candidates = cluster.endpointSlices
    .map((s, i) => [s, i] as const)
    .filter(([s]) => s.endpoints.length > 0);
  if (candidates.length === 0) throw new Error('changeOneEndpoint: the cluster has no endpoints to change');
  const [old, sliceIndex] = candidates[rng.int(candidates.length)];
  const e = rng.int(old.endpoints.length);
  return replaceEndpoint(cluster, sliceIndex, e, newIP ?? freshPodIP(cluster, rng));
}

/** Endpoint `e` of slice `sliceIndex` replaced by a new ready pod with IP `added`. */
function replaceEndpoint(
  cluster: GeneratedServices,
  sliceIndex: number,
  e: number,
  added: string,
): EndpointChange {
  const old = cluster.endpointSlices[sliceIndex];
  const removed = old.endpoints[e].addresses[0];
  const endpoints = old.endpoints.map((ep, i) =>
    i === e
      ? { ...ep, addresses: [added], conditions: { ready: true, serving: true, terminating: false } }
      : ep,
  );
  const slice: EndpointSlice = {
    ...old,
    metadata: { ...old.metadata, generation: (old.metadata.generation ?? 1) + 1 },
    endpoints,
  };
  cluster.endpointSlices[sliceIndex] = slice;
  return { slice, sliceIndex, removed, added };
}

/**
 * {@link changeOneEndpoint} over and over at a cost that does not grow with the cluster: the
 * slices with endpoints and the pod IPs in use are found once and kept up to date, so a churn
 * benchmark times the proxier, not the generator. Gives the same changes as repeated
 * changeOneEndpoint calls with the same rng, as long as nothing else edits the cluster.
 */
export class EndpointChurn {
  private readonly candidates: number[];
  private readonly used: Set<string>;

  constructor(private readonly cluster: GeneratedServices) {
    this.candidates = [];
    cluster.endpointSlices.forEach((s, i) => {
      if (s.endpoints.length > 0) this.candidates.push(i);
    });
    this.used = usedPodIPs(cluster);
  }

  /** One pod of one Service replaced; returns the slice before and the change. */
  next(rng: Rng): EndpointChange & { old: EndpointSlice } {
    if (this.candidates.length === 0)
      throw new Error('EndpointChurn: the cluster has no endpoints to change');
    const i = this.candidates[rng.int(this.candidates.length)];
    const old = this.cluster.endpointSlices[i];
    const e = rng.int(old.endpoints.length);
    const ch = replaceEndpoint(this.cluster, i, e, freshIP(this.used, rng));
    this.used.delete(ch.removed);
    this.used.add(ch.added);
    return { ...ch, old };
  }
}

function usedPodIPs(cluster: GeneratedServices): Set<string> {
  const used = new Set<string>();
  for (const s of cluster.endpointSlices) for (const ep of s.endpoints) used.add(ep.addresses[0]);
  return used;
}

function freshPodIP(cluster: GeneratedServices, rng: Rng): string {
  return freshIP(usedPodIPs(cluster), rng);
}

function freshIP(used: ReadonlySet<string>, rng: Rng): string {
  // 100.127.x.y is the last /16 of the pod range, which the sequential allocation never reaches
  for (;;) {
    const ip = ipv4(((100 << 24) >>> 0) + (127 << 16) + rng.int(65536));
    if (!used.has(ip)) return ip;
  }
}

function validate(opts: ServiceGenOptions): void {
  const intField = (name: string, v: unknown, min: number) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min)
      throw new TypeError(`generateServices: options.${name} must be an integer >= ${min}, got ${String(v)}`);
  };
  intField('services', opts.services, 0);
  intField('endpoints', opts.endpoints, 0);
  if (opts.nodes !== undefined) intField('nodes', opts.nodes, 1);
  if (opts.services > 1_000_000)
    throw new RangeError('generateServices: options.services must be <= 1,000,000 (ClusterIP range)');
  if (opts.services * opts.endpoints > 4_000_000)
    throw new RangeError(
      'generateServices: services × endpoints must be <= 4,000,000 (pod range 100.64.0.0/10)',
    );
  for (const [k, v] of Object.entries(opts.mix ?? {})) {
    if (!(k in DEFAULT_MIX))
      throw new TypeError(
        `generateServices: options.mix.${k} is not a known share (${Object.keys(DEFAULT_MIX).join(', ')})`,
      );
    if (typeof v !== 'number' || !(v >= 0 && v <= 1))
      throw new TypeError(`generateServices: options.mix.${k} must be a number in [0,1], got ${String(v)}`);
  }
}

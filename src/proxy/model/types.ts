/**
 * kube-proxy's view of Services and endpoints, per node and per IP family — the model every
 * kubesim proxy renderer (iptables, ipvs, nftables) and the dataplane model consume.
 *
 * It mirrors kubernetes/kubernetes pkg/proxy (serviceport.go `BaseServicePortInfo`,
 * endpoint.go `BaseEndpointInfo`, servicechangetracker.go, endpointslicecache.go):
 *
 *   Service ──(servicePortsFromService, one entry per spec.ports[i] of this IP family)──►
 *       ServicePortMap: key "ns/name:port/PROTO" → ServicePortInfo
 *   EndpointSlice* ──(EndpointSliceCache: merge slices, dedup by "ip:port", sort)──►
 *       EndpointsMap: key "ns/name:port/PROTO" → EndpointInfo[] (sorted by "ip:port")
 *   (ServicePortInfo, EndpointInfo[], node) ──(categorizeEndpoints)──►
 *       cluster endpoints, local endpoints, all locally reachable endpoints, hasAnyEndpoints
 *
 * Everything here is plain, immutable data (readonly fields, no methods) so that renderers
 * can walk it without allocation and tests can compare it with `toEqual`. The fields are
 * stable: later changes are additive only.
 */
import type { Cidr, IPFamily } from './ip.js';

export type { IPFamily, Cidr } from './ip.js';

export type Protocol = 'TCP' | 'UDP' | 'SCTP';

/**
 * Identifies one port of one Service (Go `proxy.ServicePortName`). `port` is the
 * ServicePort's name ("" for a single unnamed port).
 */
export interface ServicePortName {
  readonly namespace: string;
  readonly name: string;
  readonly port: string;
  readonly protocol: Protocol;
}

/** Go `ServicePortName.String()`: "ns/name:port", or "ns/name" when the port is unnamed (no protocol). */
export function servicePortNameString(n: { namespace: string; name: string; port: string }): string {
  return n.port === '' ? `${n.namespace}/${n.name}` : `${n.namespace}/${n.name}:${n.port}`;
}

/** The map key of a service port: "ns/name:port/PROTO" (Go keys its maps by the whole struct). */
export function servicePortKey(n: ServicePortName): string {
  return `${servicePortNameString(n)}/${n.protocol}`;
}

/** "ns/name" — the unit of change tracking (Go `types.NamespacedName.String()`). */
export function namespacedName(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/**
 * One port of one Service, for one IP family (Go `BaseServicePortInfo`). IPs are canonical
 * (Go `net.IP.String()`) and already filtered to the proxier's family.
 */
export interface ServicePortInfo {
  readonly name: ServicePortName;
  /** servicePortNameString(name), precomputed because every rule comment uses it */
  readonly nameString: string;
  /** servicePortKey(name) */
  readonly key: string;
  /** "ns/name" */
  readonly serviceName: string;
  readonly clusterIP: string;
  readonly port: number;
  readonly protocol: Protocol;
  /** 0 when absent */
  readonly nodePort: number;
  /** status.loadBalancer.ingress[].ip in VIP mode (ipMode unset or "VIP"), this family only */
  readonly loadBalancerVIPs: readonly string[];
  readonly sessionAffinity: 'None' | 'ClientIP';
  /** sessionAffinityConfig.clientIP.timeoutSeconds (defaults to 10800) when ClientIP, else 0 */
  readonly stickyMaxAgeSeconds: number;
  /** spec.externalIPs of this family, canonical */
  readonly externalIPs: readonly string[];
  /** spec.loadBalancerSourceRanges of this family (whitespace trimmed, masked) */
  readonly loadBalancerSourceRanges: readonly Cidr[];
  /** spec.healthCheckNodePort when the Service needs one (LoadBalancer + externalTrafficPolicy Local), else 0 */
  readonly healthCheckNodePort: number;
  /** externalTrafficPolicy Local on an externally accessible Service */
  readonly externalPolicyLocal: boolean;
  /** internalTrafficPolicy Local */
  readonly internalPolicyLocal: boolean;
  /** nodePort ≠ 0, or any loadBalancerVIP or externalIP (Go ExternallyAccessible) */
  readonly externallyAccessible: boolean;
  /** !internalPolicyLocal || externallyAccessible (Go UsesClusterEndpoints) */
  readonly usesClusterEndpoints: boolean;
  /** internalPolicyLocal || (externalPolicyLocal && externallyAccessible) (Go UsesLocalEndpoints) */
  readonly usesLocalEndpoints: boolean;
  /** spec.ports[i].targetPort as written (informational; kube-proxy uses the EndpointSlice port) */
  readonly targetPort?: number | string;
  /** spec.type */
  readonly type: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
}

/** One backend of one service port (Go `BaseEndpointInfo`). */
export interface EndpointInfo {
  /** canonical IP (first address of the EndpointSlice endpoint) */
  readonly ip: string;
  readonly port: number;
  /** Go `Endpoint.String()`: "ip:port", IPv6 bracketed */
  readonly endpoint: string;
  /** nodeName equals the proxier's node */
  readonly isLocal: boolean;
  /** conditions.ready (nil means true) */
  readonly ready: boolean;
  /** conditions.serving (nil means true) */
  readonly serving: boolean;
  /** conditions.terminating (nil means false) */
  readonly terminating: boolean;
  /** hints.forZones[].name; empty when absent */
  readonly zoneHints: ReadonlySet<string>;
  /** hints.forNodes[].name; empty when absent */
  readonly nodeHints: ReadonlySet<string>;
  readonly nodeName?: string;
  readonly zone?: string;
}

/** The node a proxier runs on: what Local traffic policies and topology hints depend on. */
export interface ProxyNode {
  /** the node's name (kube-proxy --hostname-override) */
  readonly name: string;
  /** node IPs by family (status.addresses InternalIP first, then ExternalIP) */
  readonly ips?: Partial<Record<IPFamily, string>>;
  /** the node's labels relevant to topology (topology.kubernetes.io/zone) */
  readonly topologyLabels?: Readonly<Record<string, string>>;
  /**
   * every address on the node's interfaces, any family (what kube-proxy finds when it matches
   * --nodeport-addresses CIDRs); defaults to the `ips` values. Loopback (127.0.0.1, ::1) is
   * always assumed present.
   */
  readonly localAddresses?: readonly string[];
  /** spec.podCIDRs: the pod ranges of this node (--detect-local-mode=NodeCIDR) */
  readonly podCIDRs?: readonly string[];
}

/** Per-service-port map (Go `proxy.ServicePortMap`), keyed by servicePortKey. */
export type ServicePortMap = Map<string, ServicePortInfo>;
/**
 * Per-service-port endpoints (Go `proxy.EndpointsMap`), keyed by servicePortKey, sorted by endpoint.
 * What renderers read: a ProxyState's is an EndpointListMap (columns, EndpointInfo[] built per get);
 * tests and callers may pass a plain Map.
 */
export type EndpointsMap = ReadonlyMap<string, readonly EndpointInfo[]>;

/**
 * CategorizeEndpoints (kubernetes pkg/proxy/topology.go): which endpoints a node uses for the
 * "Cluster" and "Local" traffic policies.
 *
 *   - "Usable" means Ready; if no endpoint is Ready, fall back (independently for Cluster and
 *     Local) to endpoints that are Serving and Terminating.
 *   - Cluster endpoints honour topology hints: PreferSameNode when every ready endpoint has a
 *     node hint and one names this node (feature PreferSameTrafficDistribution, on by default),
 *     else PreferSameZone when every ready endpoint has a zone hint and one names this node's
 *     zone (label topology.kubernetes.io/zone); otherwise all ready endpoints.
 *   - Local endpoints are the node's own (EndpointInfo.isLocal).
 *   - hasAnyEndpoints: some usable endpoint exists anywhere in the cluster.
 *
 * One deliberate difference: where upstream merges cluster and local lists through a Go map
 * (random order), allReachable here keeps the endpoints' sorted order, so output is stable.
 */
import { LABEL_TOPOLOGY_ZONE } from '../../api/topology.js';
import type { EndpointInfo, ServicePortInfo } from './types.js';

export interface CategorizedEndpoints {
  /** usable endpoints for Cluster policy; null when the service never uses Cluster policy */
  clusterEndpoints: readonly EndpointInfo[] | null;
  /** usable endpoints for Local policy; null when the service never uses Local policy */
  localEndpoints: readonly EndpointInfo[] | null;
  /** union of the two: every endpoint this node may send the service's traffic to */
  allReachableEndpoints: readonly EndpointInfo[];
  /** true when any usable endpoint exists on any node */
  hasAnyEndpoints: boolean;
}

export interface CategorizeOptions {
  /** feature gate PreferSameTrafficDistribution (default true, as in current releases) */
  preferSameTrafficDistribution?: boolean;
}

type TopologyMode = '' | 'PreferSameNode' | 'PreferSameZone';

const EMPTY: readonly EndpointInfo[] = [];

/** Go proxy.CategorizeEndpoints. */
export function categorizeEndpoints(
  endpoints: readonly EndpointInfo[] | undefined,
  svc: ServicePortInfo,
  nodeName: string,
  topologyLabels: Readonly<Record<string, string>> | undefined,
  opts: CategorizeOptions = {},
): CategorizedEndpoints {
  const res: CategorizedEndpoints = {
    clusterEndpoints: null,
    localEndpoints: null,
    allReachableEndpoints: EMPTY,
    hasAnyEndpoints: false,
  };
  if (!endpoints || endpoints.length === 0) return res;
  let topologyMode: TopologyMode = '';
  let useServingTerminating = false;

  if (svc.usesClusterEndpoints) {
    const zone = topologyLabels?.[LABEL_TOPOLOGY_ZONE] ?? '';
    topologyMode = topologyModeFromHints(
      endpoints,
      nodeName,
      zone,
      opts.preferSameTrafficDistribution ?? true,
    );
    // common case first: no topology filtering and every endpoint ready → the list itself
    let allReady = topologyMode === '';
    for (let i = 0; allReady && i < endpoints.length; i++) if (!endpoints[i].ready) allReady = false;
    let cluster = allReady
      ? endpoints
      : endpoints.filter((ep) => ep.ready && availableForTopology(ep, topologyMode, nodeName, zone));
    if (cluster.length === 0) cluster = endpoints.filter((ep) => ep.serving && ep.terminating);
    res.clusterEndpoints = cluster;
    if (cluster.length > 0) res.hasAnyEndpoints = true;
  }

  if (!svc.usesLocalEndpoints) {
    res.allReachableEndpoints = res.clusterEndpoints ?? EMPTY;
    return res;
  }

  let hasLocalReady = false,
    hasLocalServingTerminating = false;
  for (const ep of endpoints) {
    if (ep.ready) {
      res.hasAnyEndpoints = true;
      if (ep.isLocal) hasLocalReady = true;
    } else if (ep.serving && ep.terminating) {
      res.hasAnyEndpoints = true;
      if (ep.isLocal) hasLocalServingTerminating = true;
    }
  }
  let local: readonly EndpointInfo[] | null = null;
  if (hasLocalReady) {
    local = endpoints.filter((ep) => ep.isLocal && ep.ready);
  } else if (hasLocalServingTerminating) {
    useServingTerminating = true;
    local = endpoints.filter((ep) => ep.isLocal && ep.serving && ep.terminating);
  }
  res.localEndpoints = local;

  if (!svc.usesClusterEndpoints) {
    res.allReachableEndpoints = local ?? EMPTY;
    return res;
  }
  if (topologyMode === '' && !useServingTerminating) {
    res.allReachableEndpoints = res.clusterEndpoints ?? EMPTY;
    return res;
  }
  const inUnion = new Set<EndpointInfo>();
  for (const ep of res.clusterEndpoints ?? EMPTY) inUnion.add(ep);
  for (const ep of local ?? EMPTY) inUnion.add(ep);
  res.allReachableEndpoints = endpoints.filter((ep) => inUnion.has(ep));
  return res;
}

function topologyModeFromHints(
  endpoints: readonly EndpointInfo[],
  nodeName: string,
  zone: string,
  preferSameNode: boolean,
): TopologyMode {
  let hasReady = false,
    hasForNode = false,
    allNodeHints = true,
    hasForZone = false,
    allZoneHints = true;
  for (const ep of endpoints) {
    if (!ep.ready) continue;
    hasReady = true;
    if (ep.nodeHints.size === 0) allNodeHints = false;
    else if (ep.nodeHints.has(nodeName)) hasForNode = true;
    if (ep.zoneHints.size === 0) allZoneHints = false;
    else if (ep.zoneHints.has(zone)) hasForZone = true;
  }
  if (!hasReady) return '';
  if (preferSameNode && allNodeHints && hasForNode) return 'PreferSameNode';
  if (allZoneHints && hasForZone) return 'PreferSameZone';
  return '';
}

function availableForTopology(ep: EndpointInfo, mode: TopologyMode, nodeName: string, zone: string): boolean {
  switch (mode) {
    case '':
      return true;
    case 'PreferSameNode':
      return ep.nodeHints.has(nodeName);
    case 'PreferSameZone':
      return ep.zoneHints.has(zone);
  }
}

/**
 * Where each kind of a service port's traffic goes, given its categorized endpoints: the locals
 * at the top of the per-service loop of kube-proxy's iptables and nftables syncProxyRules.
 * Internal traffic (to the ClusterIP) follows internalTrafficPolicy, external traffic (NodePort,
 * external IPs, load-balancer IPs) externalTrafficPolicy; "Local" uses the local endpoints only.
 */
export interface TrafficPolicy {
  /** the Cluster-policy chain exists: cluster endpoints and a use for them */
  readonly usesClusterPolicy: boolean;
  /** the Local-policy chain exists: local endpoints and a use for them */
  readonly usesLocalPolicy: boolean;
  /** internal traffic has somewhere to go (false: REJECT without endpoints, DROP without local ones) */
  readonly hasInternalEndpoints: boolean;
  /** external traffic has somewhere to go */
  readonly hasExternalEndpoints: boolean;
  /** the external-traffic chain exists (it also short-circuits pod and node traffic) */
  readonly usesExternalTrafficChain: boolean;
}

export function trafficPolicy(svc: ServicePortInfo, cat: CategorizedEndpoints): TrafficPolicy {
  const cluster = cat.clusterEndpoints?.length ?? 0;
  const local = cat.localEndpoints?.length ?? 0;
  const has = cat.hasAnyEndpoints;
  return {
    usesClusterPolicy: cluster > 0 && svc.usesClusterEndpoints,
    usesLocalPolicy: local > 0 && svc.usesLocalEndpoints,
    hasInternalEndpoints: has && !(svc.internalPolicyLocal && local === 0),
    hasExternalEndpoints: has && !(svc.externalPolicyLocal && local === 0),
    usesExternalTrafficChain: has && svc.externallyAccessible,
  };
}

/**
 * The nft commands kube-proxy's nftables mode writes (pkg/proxy/nftables/proxier.go
 * setupNFTables, syncProxyRules, writeServiceToEndpointRules): the table's fixed skeleton, and
 * per service port its map elements and chains. proxier.ts decides what a sync writes.
 *
 * Family: an IPv4 proxier writes `table ip kube-proxy` with `ip daddr`, `ipv4_addr`; an IPv6
 * proxier `table ip6 kube-proxy` with `ip6 daddr`, `ipv6_addr` and `ip6 daddr != ::1` where IPv4
 * excludes 127.0.0.0/8 (setupNFTables' ipX / ipvX_addr / noLocalhost).
 */
import type { EndpointInfo, IPFamily, LocalTrafficDetector, ServicePortInfo } from '../../model/index.js';
import { categorizeEndpoints, cidrContains, type ProxyNode, trafficPolicy } from '../../model/index.js';
import type { ElementStorage } from './elements.js';
import {
  AFFINITY_SET_PREFIX,
  ENDPOINT_CHAIN_PREFIX,
  EXTERNAL_CHAIN_PREFIX,
  FIREWALL_CHAIN_PREFIX,
  LOCAL_CHAIN_PREFIX,
  SERVICE_CHAIN_PREFIX,
  endpointNameText,
  servicePortChainNameBase,
  servicePortEndpointChainNameBase,
  servicePortNameText,
  withHash,
} from './names.js';
import { chainHasher } from '../iptables/names-wasm.js';
import type { NftTransaction } from './transaction.js';

export const KUBE_PROXY_TABLE = 'kube-proxy';

// chains, sets and maps of kube-proxy's table (names as in proxier.go)
const FILTER_PREROUTING_PRE_DNAT = 'filter-prerouting-pre-dnat';
const FILTER_OUTPUT_PRE_DNAT = 'filter-output-pre-dnat';
const FILTER_INPUT = 'filter-input';
const FILTER_FORWARD = 'filter-forward';
const FILTER_OUTPUT = 'filter-output';
const NAT_PREROUTING = 'nat-prerouting';
const NAT_OUTPUT = 'nat-output';
const NAT_POSTROUTING = 'nat-postrouting';
export const SERVICES_CHAIN = 'services';
export const SERVICE_IPS_MAP = 'service-ips';
export const SERVICE_NODEPORTS_MAP = 'service-nodeports';
export const NODEPORT_IPS_SET = 'nodeport-ips';
export const CLUSTER_IPS_SET = 'cluster-ips';
const SERVICE_ENDPOINTS_CHECK = 'service-endpoints-check';
const NODEPORT_ENDPOINTS_CHECK = 'nodeport-endpoints-check';
export const NO_ENDPOINT_SERVICES_MAP = 'no-endpoint-services';
export const NO_ENDPOINT_NODEPORTS_MAP = 'no-endpoint-nodeports';
export const REJECT_CHAIN = 'reject-chain';
const CLUSTER_IPS_CHECK = 'cluster-ips-check';
export const FIREWALL_IPS_MAP = 'firewall-ips';
const FIREWALL_CHECK = 'firewall-check';
export const MARK_MASQ_CHAIN = 'mark-for-masquerade';
const MASQUERADING_CHAIN = 'masquerading';

/** knftables: DNATPriority = -100, SNATPriority = 100, FilterPriority = 0 */
export const BASE_CHAINS: { name: string; type: 'filter' | 'nat'; hook: string; priority: number }[] = [
  { name: FILTER_PREROUTING_PRE_DNAT, type: 'filter', hook: 'prerouting', priority: -110 },
  { name: FILTER_OUTPUT_PRE_DNAT, type: 'filter', hook: 'output', priority: -110 },
  { name: FILTER_INPUT, type: 'filter', hook: 'input', priority: 0 },
  { name: FILTER_FORWARD, type: 'filter', hook: 'forward', priority: 0 },
  { name: FILTER_OUTPUT, type: 'filter', hook: 'output', priority: 0 },
  { name: NAT_PREROUTING, type: 'nat', hook: 'prerouting', priority: -100 },
  { name: NAT_OUTPUT, type: 'nat', hook: 'output', priority: -100 },
  { name: NAT_POSTROUTING, type: 'nat', hook: 'postrouting', priority: 100 },
];

const JUMP_CHAINS: { dst: string; src: string; extra: string }[] = [
  { dst: NODEPORT_ENDPOINTS_CHECK, src: FILTER_INPUT, extra: 'ct state new' },
  { dst: SERVICE_ENDPOINTS_CHECK, src: FILTER_INPUT, extra: 'ct state new' },
  { dst: SERVICE_ENDPOINTS_CHECK, src: FILTER_FORWARD, extra: 'ct state new' },
  { dst: SERVICE_ENDPOINTS_CHECK, src: FILTER_OUTPUT, extra: 'ct state new' },
  { dst: FIREWALL_CHECK, src: FILTER_PREROUTING_PRE_DNAT, extra: 'ct state new' },
  { dst: FIREWALL_CHECK, src: FILTER_OUTPUT_PRE_DNAT, extra: 'ct state new' },
  { dst: SERVICES_CHAIN, src: NAT_OUTPUT, extra: '' },
  { dst: SERVICES_CHAIN, src: NAT_PREROUTING, extra: '' },
  { dst: MASQUERADING_CHAIN, src: NAT_POSTROUTING, extra: '' },
  { dst: CLUSTER_IPS_CHECK, src: FILTER_FORWARD, extra: 'ct state new' },
  { dst: CLUSTER_IPS_CHECK, src: FILTER_OUTPUT, extra: 'ct state new' },
];

/** What the rules of one proxier depend on besides the model. */
export interface NftRulesConfig {
  readonly family: IPFamily;
  /** "ip" or "ip6": the address match keyword and the table family */
  readonly ipX: 'ip' | 'ip6';
  /** "ipv4_addr" or "ipv6_addr" */
  readonly addrType: string;
  /** the mark as written ("0x00004000") */
  readonly mark: string;
  readonly masqueradeAll: boolean;
  readonly detector: LocalTrafficDetector | null;
  /** ServiceCIDRs of this family, as given */
  readonly serviceCIDRs: readonly string[];
  /** where chain names are hashed: 'wasm' (default, a port's names per call) or 'js' (the reference) */
  readonly hashKernel?: 'wasm' | 'js';
}

/** Where a service port's set/map elements go: an ElementStorage, or a recorder (incremental.ts). */
export interface ElementSink {
  ensure(tx: NftTransaction, key: string, value?: string, comment?: string): void;
}

/** The sets and maps whose elements are diffed against the kernel (nftElementStorage). */
export interface ServiceMaps<T extends ElementSink = ElementStorage> {
  readonly clusterIPs: T;
  readonly serviceIPs: T;
  readonly firewallIPs: T;
  readonly noEndpointServices: T;
  readonly noEndpointNodePorts: T;
  readonly serviceNodePorts: T;
}

/** The maps in the order a sync cleans them up. */
export const SERVICE_MAP_NAMES = [
  'clusterIPs',
  'serviceIPs',
  'firewallIPs',
  'noEndpointServices',
  'noEndpointNodePorts',
  'serviceNodePorts',
] as const satisfies readonly (keyof ServiceMaps)[];

/**
 * setupNFTables: the table, base chains (flushed; added and deleted once first so that changed
 * properties apply), jump rules, helper chains, sets and maps. `nodePortIPs` null means every
 * local address accepts NodePorts (`fib daddr type local`). Returns the chains it created.
 */
export function writeSetup(
  tx: NftTransaction,
  cfg: NftRulesConfig,
  nodePortIPs: readonly string[] | null,
  recreateBaseChains: boolean,
): string[] {
  const { ipX, addrType, mark } = cfg;
  const noLocalhost = cfg.family === 'IPv6' ? 'ip6 daddr != ::1' : 'ip daddr != 127.0.0.0/8';
  tx.addTable('rules for kube-proxy');
  if (recreateBaseChains) {
    for (const bc of BASE_CHAINS) {
      tx.addChain(bc.name);
      tx.deleteChain(bc.name);
    }
  }
  for (const bc of BASE_CHAINS) {
    tx.addChain(bc.name, { type: bc.type, hook: bc.hook, priority: bc.priority });
    tx.flushChain(bc.name);
  }
  const created: string[] = [];
  const ensure = (c: string) => {
    if (created.includes(c)) return;
    created.push(c);
    tx.addChain(c);
    tx.flushChain(c);
  };
  for (const jc of JUMP_CHAINS) {
    ensure(jc.dst);
    tx.addRule(jc.src, jc.extra ? `${jc.extra} jump ${jc.dst}` : `jump ${jc.dst}`);
  }
  for (const c of [SERVICES_CHAIN, CLUSTER_IPS_CHECK, MASQUERADING_CHAIN, MARK_MASQ_CHAIN]) ensure(c);

  tx.addRule(MARK_MASQ_CHAIN, `mark set mark or ${mark}`);
  tx.addRule(MASQUERADING_CHAIN, `mark and ${mark} == 0 return`);
  tx.addRule(MASQUERADING_CHAIN, `mark set mark xor ${mark}`);
  tx.addRule(MASQUERADING_CHAIN, 'masquerade fully-random');

  tx.addSet('set', CLUSTER_IPS_SET, { type: addrType, comment: 'Active ClusterIPs' });
  tx.addRule(
    CLUSTER_IPS_CHECK,
    `${ipX} daddr @${CLUSTER_IPS_SET} reject`,
    'Reject traffic to invalid ports of ClusterIPs',
  );
  if (cfg.serviceCIDRs.length > 0)
    tx.addRule(
      CLUSTER_IPS_CHECK,
      `${ipX} daddr { ${cfg.serviceCIDRs.join(',')} } drop`,
      'Drop traffic to unallocated ClusterIPs',
    );

  // add+delete: the set must not exist, and deleting alone fails when it does not
  tx.addSet('set', NODEPORT_IPS_SET, { type: addrType, comment: 'IPs that accept NodePort traffic' });
  if (nodePortIPs === null) {
    tx.deleteSet('set', NODEPORT_IPS_SET);
  } else {
    tx.flushSet('set', NODEPORT_IPS_SET);
    for (const ip of nodePortIPs) tx.addElement(NODEPORT_IPS_SET, ip);
  }

  tx.addSet('map', NO_ENDPOINT_SERVICES_MAP, {
    type: `${addrType} . inet_proto . inet_service : verdict`,
    comment: 'vmap to drop or reject packets to services with no endpoints',
  });
  tx.addSet('map', NO_ENDPOINT_NODEPORTS_MAP, {
    type: 'inet_proto . inet_service : verdict',
    comment: 'vmap to drop or reject packets to service nodeports with no endpoints',
  });
  tx.addChain(REJECT_CHAIN, undefined, 'helper for @no-endpoint-services / @no-endpoint-nodeports');
  tx.flushChain(REJECT_CHAIN);
  tx.addRule(REJECT_CHAIN, 'reject');
  tx.addRule(
    SERVICE_ENDPOINTS_CHECK,
    `${ipX} daddr . meta l4proto . th dport vmap @${NO_ENDPOINT_SERVICES_MAP}`,
  );
  tx.addRule(
    NODEPORT_ENDPOINTS_CHECK,
    nodePortIPs === null
      ? `${noLocalhost} meta l4proto . th dport vmap @${NO_ENDPOINT_NODEPORTS_MAP}`
      : `${ipX} daddr @${NODEPORT_IPS_SET} meta l4proto . th dport vmap @${NO_ENDPOINT_NODEPORTS_MAP}`,
  );

  tx.addSet('map', FIREWALL_IPS_MAP, {
    type: `${addrType} . inet_proto . inet_service : verdict`,
    comment: 'destinations that are subject to LoadBalancerSourceRanges',
  });
  ensure(FIREWALL_CHECK);
  tx.addRule(FIREWALL_CHECK, `${ipX} daddr . meta l4proto . th dport vmap @${FIREWALL_IPS_MAP}`);

  tx.addSet('map', SERVICE_IPS_MAP, {
    type: `${addrType} . inet_proto . inet_service : verdict`,
    comment: 'ClusterIP, ExternalIP and LoadBalancer IP traffic',
  });
  tx.addSet('map', SERVICE_NODEPORTS_MAP, {
    type: 'inet_proto . inet_service : verdict',
    comment: 'NodePort traffic',
  });
  tx.addRule(SERVICES_CHAIN, `${ipX} daddr . meta l4proto . th dport vmap @${SERVICE_IPS_MAP}`);
  tx.addRule(
    SERVICES_CHAIN,
    nodePortIPs === null
      ? `fib daddr type local ${noLocalhost} meta l4proto . th dport vmap @${SERVICE_NODEPORTS_MAP}`
      : `${ipX} daddr @${NODEPORT_IPS_SET} meta l4proto . th dport vmap @${SERVICE_NODEPORTS_MAP}`,
  );
  return [...created, ...BASE_CHAINS.map((b) => b.name), REJECT_CHAIN];
}

/** Chain names of one service port (computed once, as kube-proxy's newServiceInfo does). */
export interface ServiceChainNames {
  cluster: string;
  local: string;
  external: string;
  firewall: string;
}

// Chain names are computed once per model object (kube-proxy stores them in its servicePortInfo /
// endpointInfo for the same reason: sha256 per chain dominates a full sync otherwise). The model's
// EndpointInfo objects belong to one service port each, so the endpoint object is a sufficient key.
const svcNameCache = new WeakMap<ServicePortInfo, ServiceChainNames>();
const epNameCache = new WeakMap<EndpointInfo, string>();

function chainNames(base: string): ServiceChainNames {
  return {
    cluster: SERVICE_CHAIN_PREFIX + base,
    local: LOCAL_CHAIN_PREFIX + base,
    external: EXTERNAL_CHAIN_PREFIX + base,
    firewall: FIREWALL_CHAIN_PREFIX + base,
  };
}

export function serviceChainNames(svc: ServicePortInfo): ServiceChainNames {
  let n = svcNameCache.get(svc);
  if (!n) {
    const base = servicePortChainNameBase(
      svc.name.namespace,
      svc.name.name,
      svc.protocol.toLowerCase(),
      svc.name.port,
    );
    n = chainNames(base);
    svcNameCache.set(svc, n);
  }
  return n;
}

/** The endpoint's name base ("HASH-ns/name/proto/port__ip/port"), shared by its chain and affinity set. */
export function endpointNameBase(svc: ServicePortInfo, ep: EndpointInfo): string {
  let n = epNameCache.get(ep);
  if (!n) {
    n = servicePortEndpointChainNameBase(
      svc.name.namespace,
      svc.name.name,
      svc.protocol.toLowerCase(),
      svc.name.port,
      ep.ip,
      ep.port,
    );
    epNameCache.set(ep, n);
  }
  return n;
}

/**
 * Names a service port and its endpoints not named yet in one WASM call (the iptables kernel's
 * SHA-256 + base32, assembly/proxy_names.ts: its first 8 characters are hashAndTruncate's hash);
 * without it serviceChainNames / endpointNameBase hash one name at a time with node:crypto.
 */
function nameServicePort(svc: ServicePortInfo, endpoints: readonly EndpointInfo[] | undefined): void {
  const base = servicePortNameText(
    svc.name.namespace,
    svc.name.name,
    svc.protocol.toLowerCase(),
    svc.name.port,
  );
  const texts: string[] = [];
  const named = svcNameCache.has(svc);
  if (!named) texts.push(base);
  const eps: EndpointInfo[] = [];
  for (const ep of endpoints ?? [])
    if (!epNameCache.has(ep)) {
      eps.push(ep);
      texts.push(endpointNameText(base, ep.ip, ep.port));
    }
  if (texts.length === 0) return;
  const hashes = chainHasher().hash16Many(texts);
  let i = 0;
  if (!named) svcNameCache.set(svc, chainNames(withHash(base, hashes[i++].slice(0, 8))));
  for (const ep of eps) {
    epNameCache.set(ep, withHash(texts[i], hashes[i].slice(0, 8)));
    i++;
  }
}

/** Where one sync's service-port writes go: the transaction, the maps, and the chains in use. */
export interface ServiceWriter {
  readonly tx: NftTransaction;
  readonly cfg: NftRulesConfig;
  readonly maps: ServiceMaps<ElementSink>;
  readonly node: ProxyNode;
  /** marks a chain in use; creates (add + flush) it unless this service is skipped */
  ensureChain(chain: string, skip: boolean): void;
  /** marks an affinity set in use */
  useAffinitySet(name: string): void;
  /** an affinity set this sync creates */
  addAffinitySet(name: string, timeoutSeconds: number): void;
}

/**
 * One service port, in syncProxyRules' order: 1. the chains it uses; 2. its map and set
 * elements (always, so partial syncs diff them); 3. unless `skip` (partial sync, unchanged
 * Service): masquerading, external-chain short-circuits, firewall, affinity sets, the
 * load-balancing rules and the endpoint chains. Returns whether step 3 ran.
 */
export function writeServicePort(
  w: ServiceWriter,
  svc: ServicePortInfo,
  endpoints: readonly EndpointInfo[] | undefined,
  skip: boolean,
): boolean {
  const { tx, cfg, maps } = w;
  const ipX = cfg.ipX;
  if (cfg.hashKernel !== 'js') nameServicePort(svc, endpoints);
  const names = serviceChainNames(svc);
  const protocol = svc.protocol.toLowerCase();
  const cat = categorizeEndpoints(endpoints, svc, w.node.name, w.node.topologyLabels);
  const clusterEndpoints = cat.clusterEndpoints ?? [];
  const localEndpoints = cat.localEndpoints ?? [];
  const hasEndpoints = cat.hasAnyEndpoints;
  const affinity = svc.sessionAffinity === 'ClientIP';
  const { hasInternalEndpoints, hasExternalEndpoints, ...uses } = trafficPolicy(svc, cat);
  const internalTrafficChain = svc.internalPolicyLocal ? names.local : names.cluster;
  const externalPolicyChain = svc.externalPolicyLocal ? names.local : names.cluster;
  const externalTrafficChain = names.external;

  // 1. chains in use
  for (const ep of cat.allReachableEndpoints) {
    const base = endpointNameBase(svc, ep);
    w.ensureChain(ENDPOINT_CHAIN_PREFIX + base, skip);
    if (affinity) w.useAffinitySet(AFFINITY_SET_PREFIX + base);
  }
  if (uses.usesClusterPolicy) w.ensureChain(names.cluster, skip);
  if (uses.usesLocalPolicy) w.ensureChain(names.local, skip);
  if (uses.usesExternalTrafficChain) w.ensureChain(externalTrafficChain, skip);

  let internalVerdict = '';
  let externalVerdict = '';
  if (!hasEndpoints) {
    internalVerdict = `goto ${REJECT_CHAIN}`;
    externalVerdict = `goto ${REJECT_CHAIN}`;
  } else {
    if (!hasInternalEndpoints) internalVerdict = 'drop';
    if (!hasExternalEndpoints) externalVerdict = 'drop';
  }

  // 2. elements
  const ipKey = (ip: string) => `${ip} . ${protocol} . ${svc.port}`;
  maps.clusterIPs.ensure(tx, svc.clusterIP);
  if (hasInternalEndpoints) {
    maps.serviceIPs.ensure(tx, ipKey(svc.clusterIP), `goto ${internalTrafficChain}`);
  } else {
    maps.noEndpointServices.ensure(tx, ipKey(svc.clusterIP), internalVerdict, svc.nameString);
  }
  for (const extIP of svc.externalIPs) {
    if (hasEndpoints) maps.serviceIPs.ensure(tx, ipKey(extIP), `goto ${externalTrafficChain}`);
    if (!hasExternalEndpoints)
      maps.noEndpointServices.ensure(tx, ipKey(extIP), externalVerdict, svc.nameString);
  }
  const usesFWChain = svc.loadBalancerVIPs.length > 0 && svc.loadBalancerSourceRanges.length > 0;
  if (usesFWChain) w.ensureChain(names.firewall, skip);
  for (const lbip of svc.loadBalancerVIPs) {
    if (hasEndpoints) maps.serviceIPs.ensure(tx, ipKey(lbip), `goto ${externalTrafficChain}`);
    if (usesFWChain) maps.firewallIPs.ensure(tx, ipKey(lbip), `goto ${names.firewall}`);
  }
  if (!hasExternalEndpoints) {
    for (const lbip of svc.loadBalancerVIPs)
      maps.noEndpointServices.ensure(tx, ipKey(lbip), externalVerdict, svc.nameString);
  }
  if (svc.nodePort !== 0) {
    const npKey = `${protocol} . ${svc.nodePort}`;
    if (hasEndpoints) maps.serviceNodePorts.ensure(tx, npKey, `goto ${externalTrafficChain}`);
    if (!hasExternalEndpoints) maps.noEndpointNodePorts.ensure(tx, npKey, externalVerdict, svc.nameString);
  }

  if (skip) return false;

  // 3. the service's chains
  const masq = MARK_MASQ_CHAIN;
  if (hasInternalEndpoints) {
    if (cfg.masqueradeAll) {
      tx.addRule(internalTrafficChain, `${ipX} daddr ${svc.clusterIP} jump ${masq}`);
    } else if (cfg.detector) {
      tx.addRule(
        internalTrafficChain,
        `${ipX} daddr ${svc.clusterIP} ${cfg.detector.ifNotLocalNFT} jump ${masq}`,
      );
    }
  }
  if (uses.usesExternalTrafficChain) {
    if (!svc.externalPolicyLocal) {
      tx.addRule(externalTrafficChain, `jump ${masq}`);
    } else {
      if (cfg.detector)
        tx.addRule(
          externalTrafficChain,
          `${cfg.detector.ifLocalNFT} goto ${names.cluster}`,
          'short-circuit pod traffic',
        );
      tx.addRule(externalTrafficChain, `fib saddr type local jump ${masq}`, 'masquerade local traffic');
      tx.addRule(
        externalTrafficChain,
        `fib saddr type local goto ${names.cluster}`,
        'short-circuit local traffic',
      );
    }
    if (hasExternalEndpoints) tx.addRule(externalTrafficChain, `goto ${externalPolicyChain}`);
  }
  if (usesFWChain) {
    const sources = svc.loadBalancerSourceRanges.map((c) => c.text);
    const nodeIP = w.node.ips?.[cfg.family];
    if (nodeIP && svc.loadBalancerSourceRanges.some((c) => cidrContains(c, nodeIP)))
      sources.push(...svc.loadBalancerVIPs);
    tx.addRule(names.firewall, `${ipX} saddr != { ${sources.join(' , ')} } drop`);
  }
  if (affinity) {
    for (const ep of cat.allReachableEndpoints)
      w.addAffinitySet(AFFINITY_SET_PREFIX + endpointNameBase(svc, ep), svc.stickyMaxAgeSeconds);
  }
  if (uses.usesClusterPolicy) writeServiceToEndpointRules(tx, ipX, svc, names.cluster, clusterEndpoints);
  if (uses.usesLocalPolicy) writeServiceToEndpointRules(tx, ipX, svc, names.local, localEndpoints);
  for (const ep of cat.allReachableEndpoints) {
    const base = endpointNameBase(svc, ep);
    const chain = ENDPOINT_CHAIN_PREFIX + base;
    tx.addRule(chain, `${ipX} saddr ${ep.ip} jump ${masq}`);
    if (affinity) tx.addRule(chain, `update @${AFFINITY_SET_PREFIX}${base} { ${ipX} saddr }`);
    tx.addRule(chain, `meta l4proto ${protocol} dnat to ${ep.endpoint}`);
  }
  return true;
}

/** Go writeServiceToEndpointRules: affinity lookups, then `numgen random mod N vmap { … }`. */
function writeServiceToEndpointRules(
  tx: NftTransaction,
  ipX: string,
  svc: ServicePortInfo,
  chain: string,
  endpoints: readonly EndpointInfo[],
): void {
  if (svc.sessionAffinity === 'ClientIP') {
    for (const ep of endpoints) {
      const base = endpointNameBase(svc, ep);
      tx.addRule(chain, `${ipX} saddr @${AFFINITY_SET_PREFIX}${base} goto ${ENDPOINT_CHAIN_PREFIX}${base}`);
    }
  }
  const elements = endpoints
    .map((ep, i) => `${i} : goto ${ENDPOINT_CHAIN_PREFIX}${endpointNameBase(svc, ep)}`)
    .join(' , ');
  tx.addRule(chain, `numgen random mod ${endpoints.length} vmap { ${elements} }`);
}

/**
 * kube-proxy's nftables mode (kubernetes/kubernetes pkg/proxy/nftables/proxier.go) as a renderer:
 * each `sync()` produces the `nft -f` transaction kube-proxy would run, and keeps the state
 * kube-proxy keeps between syncs, so that partial syncs write only what changed:
 *
 *   full sync (first sync, or after `requestFullSync()`):
 *     table, base chains (flushed), jump rules, helper chains/sets/maps, every container flushed,
 *     then every service's chains, rules and map elements.
 *   partial sync (`changes.updatedServices` given):
 *     only chains of the changed Services are re-created (add + flush + rules); map elements are
 *     diffed against what the kernel already holds (nftElementStorage: add the new, delete+add
 *     the changed, delete the leftovers); chains that are no longer used are flushed now and
 *     deleted by a later sync at least 1 s after (kernels before 6.2 notice a chain is no longer
 *     referenced by a map element only after a short delay); stale affinity sets are deleted at once.
 *
 * The simulated kernel state (which chains and sets exist) stands in for kube-proxy's
 * `nft list chains` / `nft list sets` calls. Service ports are visited in sorted key order
 * (kube-proxy walks a Go map, i.e. in random order) so output is deterministic.
 *
 * Rules follow current kube-proxy (proxier.go / proxier_test.go at kubernetes master): base
 * chains filter-prerouting-pre-dnat, filter-output-pre-dnat, filter-input, filter-forward,
 * filter-output, nat-prerouting, nat-output, nat-postrouting.
 */
import type {
  AppliedChanges,
  Cidr,
  EndpointInfo,
  EndpointsMap,
  ProxyNode,
  ServicePortInfo,
  ServicePortMap,
} from '../../model/index.js';
import { categorizeEndpoints, cidrContains, parseCidr } from '../../model/index.js';
import {
  AFFINITY_SET_PREFIX,
  ENDPOINT_CHAIN_PREFIX,
  EXTERNAL_CHAIN_PREFIX,
  FIREWALL_CHAIN_PREFIX,
  LOCAL_CHAIN_PREFIX,
  SERVICE_CHAIN_PREFIX,
  isAffinitySetName,
  isServiceChainName,
  servicePortChainNameBase,
  servicePortEndpointChainNameBase,
} from './names.js';
import { NftTransaction, type TxStats } from './transaction.js';

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
const NODEPORT_IPS_SET = 'nodeport-ips';
const CLUSTER_IPS_SET = 'cluster-ips';
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

/** knftables: DNATPriority = -100, SNATPriority = 100, FilterPriority = 0 (ip family) */
const BASE_CHAINS: { name: string; type: 'filter' | 'nat'; hook: string; priority: number }[] = [
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

export interface NftablesOptions {
  /** --masquerade-all */
  masqueradeAll?: boolean;
  /** --iptables-masquerade-bit (default 14 → mark 0x00004000) */
  masqueradeBit?: number;
  /** the mark as written; default Go's `%#08x` of 1<<masqueradeBit ("0x00004000"); upstream unit tests use "0x4000" */
  masqueradeMark?: string;
  /**
   * Pod CIDR for the local-traffic detector (--cluster-cidr, detect-local-mode ClusterCIDR).
   * Without it kube-proxy cannot tell pod traffic apart and writes no "ip saddr != CIDR" rules.
   */
  clusterCIDR?: string;
  /** ServiceCIDRs: traffic to unallocated ClusterIPs inside them is dropped */
  serviceCIDRs?: readonly string[];
  /**
   * --nodeport-addresses: "primary" (the nftables default in current releases: the node's IP
   * from ProxyNode.ips), "all" (any local address, matched with `fib daddr type local`), or
   * kube-proxy's list form: CIDRs (a CIDR holding the node IP selects it; 0.0.0.0/0 means all)
   * and "primary".
   */
  nodePortAddresses?: 'primary' | 'all' | readonly string[];
}

/** What one sync wrote. */
export interface NftSyncResult {
  /** true when this was a full sync (setupNFTables ran) */
  full: boolean;
  /** the main transaction, as `nft -f` input */
  script: string;
  /** the transaction that deleted chains stale for >= 1 s, run before the main one ("" if none) */
  staleScript: string;
  stats: TxStats;
  staleStats: TxStats;
  /** service ports visited, and those whose chains were (re)written */
  servicePorts: number;
  servicePortsWritten: number;
}

/** Input of one sync: the model's maps plus, for a partial sync, which Services changed. */
export interface NftSyncInput {
  servicePorts: ServicePortMap;
  endpoints: EndpointsMap;
  node: ProxyNode;
  /** from ProxyState.applyChanges(); omit to rewrite every Service */
  changes?: AppliedChanges;
  /** milliseconds; drives the 1-second delay before stale chains are deleted (default Date.now()) */
  now?: number;
}

/** kube-proxy's nftElementStorage: what a set/map holds in the kernel, diffed on every sync. */
class ElementStorage {
  readonly elements = new Map<string, string>();
  private leftover = new Set<string>();

  constructor(
    readonly kind: 'set' | 'map',
    readonly name: string,
  ) {}

  reset(tx: NftTransaction): void {
    this.elements.clear();
    tx.flushSet(this.kind, this.name);
    this.leftover = new Set();
  }

  ensure(tx: NftTransaction, key: string, value?: string, comment?: string): void {
    const v = value ?? '';
    const existing = this.elements.get(key);
    if (existing !== undefined) {
      if (existing !== v) {
        tx.deleteElement(this.name, key);
        tx.addElement(this.name, key, value, comment);
        this.elements.set(key, v);
      }
      this.leftover.delete(key);
    } else {
      tx.addElement(this.name, key, value, comment);
      this.elements.set(key, v);
    }
  }

  cleanupLeftovers(tx: NftTransaction): void {
    for (const key of this.leftover) {
      tx.deleteElement(this.name, key);
      this.elements.delete(key);
    }
    this.leftover = new Set(this.elements.keys());
  }
}

/** Chain names of one service port (computed once, as kube-proxy's newServiceInfo does). */
interface SvcNames {
  cluster: string;
  local: string;
  external: string;
  firewall: string;
}

// Chain names are computed once per model object (kube-proxy stores them in its servicePortInfo /
// endpointInfo for the same reason: sha256 per chain dominates a full sync otherwise). The model's
// EndpointInfo objects belong to one service port each, so the endpoint object is a sufficient key.
const svcNameCache = new WeakMap<ServicePortInfo, SvcNames>();
const epNameCache = new WeakMap<EndpointInfo, string>();

/**
 * A kube-proxy nftables proxier for one node and IPv4. Call `sync()` with the model after each
 * batch of changes; it returns the transaction to run.
 */
export class NftablesProxier {
  private readonly masqMark: string;
  private readonly localCIDR: Cidr | null;
  private needFullSync = true;
  private flushed = false;
  /** chains that exist in the (simulated) kernel table */
  private readonly kernelChains = new Set<string>();
  /** affinity sets that exist in the (simulated) kernel table */
  private readonly kernelSets = new Set<string>();
  /** chain → time (ms) it became stale */
  private readonly staleChains = new Map<string, number>();
  private readonly clusterIPs = new ElementStorage('set', CLUSTER_IPS_SET);
  private readonly serviceIPs = new ElementStorage('map', SERVICE_IPS_MAP);
  private readonly firewallIPs = new ElementStorage('map', FIREWALL_IPS_MAP);
  private readonly noEndpointServices = new ElementStorage('map', NO_ENDPOINT_SERVICES_MAP);
  private readonly noEndpointNodePorts = new ElementStorage('map', NO_ENDPOINT_NODEPORTS_MAP);
  private readonly serviceNodePorts = new ElementStorage('map', SERVICE_NODEPORTS_MAP);

  constructor(readonly options: NftablesOptions = {}) {
    const bit = options.masqueradeBit ?? 14;
    if (!Number.isInteger(bit) || bit < 0 || bit > 31)
      throw new TypeError(
        `NftablesProxier: options.masqueradeBit must be an integer in [0,31], got ${String(bit)}`,
      );
    this.masqMark = options.masqueradeMark ?? '0x' + (2 ** bit).toString(16).padStart(8, '0');
    if (options.clusterCIDR !== undefined) {
      const c = parseCidr(options.clusterCIDR);
      if (!c || c.family !== 'IPv4')
        throw new TypeError(
          `NftablesProxier: options.clusterCIDR "${options.clusterCIDR}" is not an IPv4 CIDR`,
        );
      this.localCIDR = c;
    } else {
      this.localCIDR = null;
    }
    for (const [i, s] of (options.serviceCIDRs ?? []).entries()) {
      if (!parseCidr(s))
        throw new TypeError(`NftablesProxier: options.serviceCIDRs[${i}] "${s}" is not a CIDR`);
    }
  }

  /** Forces the next sync to be a full one (kube-proxy does this after a failed sync). */
  requestFullSync(): void {
    this.needFullSync = true;
  }

  /** Chains that currently exist in the simulated table (sorted). */
  existingChains(): string[] {
    return [...this.kernelChains].sort();
  }

  private svcNames(svc: ServicePortInfo): SvcNames {
    let n = svcNameCache.get(svc);
    if (!n) {
      const base = servicePortChainNameBase(
        svc.name.namespace,
        svc.name.name,
        svc.protocol.toLowerCase(),
        svc.name.port,
      );
      n = {
        cluster: SERVICE_CHAIN_PREFIX + base,
        local: LOCAL_CHAIN_PREFIX + base,
        external: EXTERNAL_CHAIN_PREFIX + base,
        firewall: FIREWALL_CHAIN_PREFIX + base,
      };
      svcNameCache.set(svc, n);
    }
    return n;
  }

  /** endpoint chain base name ("HASH-ns/name/proto/port__ip/port"), shared by endpoint chain and affinity set */
  private epBase(svc: ServicePortInfo, ep: EndpointInfo): string {
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

  /** node IPs in @nodeport-ips, or null for "all local addresses" (fib daddr type local) */
  private nodePortIPs(node: ProxyNode): string[] | null {
    const npa = this.options.nodePortAddresses ?? 'primary';
    const nodeIP = node.ips?.IPv4;
    if (npa === 'all') return null;
    if (npa === 'primary') return nodeIP ? [nodeIP] : null;
    // a list as kube-proxy's --nodeport-addresses: CIDRs (the node IP is used when inside one) or "primary"
    const out: string[] = [];
    for (const a of npa) {
      if (a === 'primary') {
        if (nodeIP && !out.includes(nodeIP)) out.push(nodeIP);
        continue;
      }
      const c = parseCidr(a);
      if (!c)
        throw new TypeError(`NftablesProxier: nodePortAddresses entry "${a}" is not a CIDR or "primary"`);
      if (c.family !== 'IPv4') continue;
      if (c.prefix === 0) return null;
      if (nodeIP && cidrContains(c, nodeIP) && !out.includes(nodeIP)) out.push(nodeIP);
    }
    return out;
  }

  private setup(tx: NftTransaction, node: ProxyNode): void {
    tx.addTable('rules for kube-proxy');
    if (!this.flushed) {
      // add+delete once so that base chains are re-created with the current properties
      for (const bc of BASE_CHAINS) {
        tx.addChain(bc.name);
        tx.deleteChain(bc.name);
      }
      this.flushed = true;
    }
    for (const bc of BASE_CHAINS) {
      tx.addChain(bc.name, { type: bc.type, hook: bc.hook, priority: bc.priority });
      tx.flushChain(bc.name);
    }
    const created = new Set<string>();
    const ensure = (c: string) => {
      if (created.has(c)) return;
      created.add(c);
      tx.addChain(c);
      tx.flushChain(c);
    };
    for (const jc of JUMP_CHAINS) {
      ensure(jc.dst);
      tx.addRule(jc.src, jc.extra ? `${jc.extra} jump ${jc.dst}` : `jump ${jc.dst}`);
    }
    for (const c of [SERVICES_CHAIN, CLUSTER_IPS_CHECK, MASQUERADING_CHAIN, MARK_MASQ_CHAIN]) ensure(c);

    tx.addRule(MARK_MASQ_CHAIN, `mark set mark or ${this.masqMark}`);
    tx.addRule(MASQUERADING_CHAIN, `mark and ${this.masqMark} == 0 return`);
    tx.addRule(MASQUERADING_CHAIN, `mark set mark xor ${this.masqMark}`);
    tx.addRule(MASQUERADING_CHAIN, 'masquerade fully-random');

    tx.addSet('set', CLUSTER_IPS_SET, { type: 'ipv4_addr', comment: 'Active ClusterIPs' });
    tx.addRule(
      CLUSTER_IPS_CHECK,
      `ip daddr @${CLUSTER_IPS_SET} reject`,
      'Reject traffic to invalid ports of ClusterIPs',
    );
    const cidrs = this.options.serviceCIDRs ?? [];
    if (cidrs.length > 0)
      tx.addRule(
        CLUSTER_IPS_CHECK,
        `ip daddr { ${cidrs.join(',')} } drop`,
        'Drop traffic to unallocated ClusterIPs',
      );

    tx.addSet('set', NODEPORT_IPS_SET, { type: 'ipv4_addr', comment: 'IPs that accept NodePort traffic' });
    const npIPs = this.nodePortIPs(node);
    if (npIPs === null) {
      tx.deleteSet('set', NODEPORT_IPS_SET);
    } else {
      tx.flushSet('set', NODEPORT_IPS_SET);
      for (const ip of npIPs) if (!ip.startsWith('127.')) tx.addElement(NODEPORT_IPS_SET, ip);
    }

    tx.addSet('map', NO_ENDPOINT_SERVICES_MAP, {
      type: 'ipv4_addr . inet_proto . inet_service : verdict',
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
      `ip daddr . meta l4proto . th dport vmap @${NO_ENDPOINT_SERVICES_MAP}`,
    );
    if (npIPs === null) {
      tx.addRule(
        NODEPORT_ENDPOINTS_CHECK,
        `ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @${NO_ENDPOINT_NODEPORTS_MAP}`,
      );
    } else {
      tx.addRule(
        NODEPORT_ENDPOINTS_CHECK,
        `ip daddr @${NODEPORT_IPS_SET} meta l4proto . th dport vmap @${NO_ENDPOINT_NODEPORTS_MAP}`,
      );
    }

    tx.addSet('map', FIREWALL_IPS_MAP, {
      type: 'ipv4_addr . inet_proto . inet_service : verdict',
      comment: 'destinations that are subject to LoadBalancerSourceRanges',
    });
    ensure(FIREWALL_CHECK);
    tx.addRule(FIREWALL_CHECK, `ip daddr . meta l4proto . th dport vmap @${FIREWALL_IPS_MAP}`);

    tx.addSet('map', SERVICE_IPS_MAP, {
      type: 'ipv4_addr . inet_proto . inet_service : verdict',
      comment: 'ClusterIP, ExternalIP and LoadBalancer IP traffic',
    });
    tx.addSet('map', SERVICE_NODEPORTS_MAP, {
      type: 'inet_proto . inet_service : verdict',
      comment: 'NodePort traffic',
    });
    tx.addRule(SERVICES_CHAIN, `ip daddr . meta l4proto . th dport vmap @${SERVICE_IPS_MAP}`);
    if (npIPs === null) {
      tx.addRule(
        SERVICES_CHAIN,
        `fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @${SERVICE_NODEPORTS_MAP}`,
      );
    } else {
      tx.addRule(
        SERVICES_CHAIN,
        `ip daddr @${NODEPORT_IPS_SET} meta l4proto . th dport vmap @${SERVICE_NODEPORTS_MAP}`,
      );
    }

    this.clusterIPs.reset(tx);
    this.serviceIPs.reset(tx);
    this.firewallIPs.reset(tx);
    this.noEndpointServices.reset(tx);
    this.noEndpointNodePorts.reset(tx);
    this.serviceNodePorts.reset(tx);
    for (const c of [...created, ...BASE_CHAINS.map((b) => b.name), REJECT_CHAIN]) this.kernelChains.add(c);
  }

  /** One syncProxyRules(). */
  sync(input: NftSyncInput): NftSyncResult {
    const now = input.now ?? Date.now();
    const tryPartial = !this.needFullSync && input.changes !== undefined;
    const updated = input.changes?.updatedServices;

    // chains stale for more than one second are deleted in a transaction of their own
    const staleTx = new NftTransaction('ip', KUBE_PROXY_TABLE);
    for (const [chain, since] of [...this.staleChains].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      if (since < now - 1000) {
        staleTx.deleteChain(chain);
        this.staleChains.delete(chain);
        this.kernelChains.delete(chain);
      }
    }

    const tx = new NftTransaction('ip', KUBE_PROXY_TABLE);
    if (!tryPartial) this.setup(tx, input.node);

    const activeChains = new Set<string>();
    const activeAffinitySets = new Set<string>();
    const ensureChain = (chain: string, skip: boolean) => {
      if (activeChains.has(chain)) return;
      activeChains.add(chain);
      if (skip) return;
      tx.addChain(chain);
      tx.flushChain(chain);
      this.kernelChains.add(chain);
    };
    const masq = MARK_MASQ_CHAIN;
    const local = this.localCIDR;
    let written = 0;

    const keys = [...input.servicePorts.keys()].sort();
    for (const key of keys) {
      const svc = input.servicePorts.get(key)!;
      const names = this.svcNames(svc);
      const protocol = svc.protocol.toLowerCase();
      const cat = categorizeEndpoints(
        input.endpoints.get(key),
        svc,
        input.node.name,
        input.node.topologyLabels,
      );
      const clusterEndpoints = cat.clusterEndpoints ?? [];
      const localEndpoints = cat.localEndpoints ?? [];
      const hasEndpoints = cat.hasAnyEndpoints;
      const skip = tryPartial && !updated!.has(svc.serviceName);
      const affinity = svc.sessionAffinity === 'ClientIP';

      for (const ep of cat.allReachableEndpoints) {
        const base = this.epBase(svc, ep);
        ensureChain(ENDPOINT_CHAIN_PREFIX + base, skip);
        if (affinity) activeAffinitySets.add(AFFINITY_SET_PREFIX + base);
      }

      const usesClusterPolicyChain = clusterEndpoints.length > 0 && svc.usesClusterEndpoints;
      if (usesClusterPolicyChain) ensureChain(names.cluster, skip);
      const usesLocalPolicyChain = localEndpoints.length > 0 && svc.usesLocalEndpoints;
      if (usesLocalPolicyChain) ensureChain(names.local, skip);

      let internalTrafficChain = names.cluster;
      let hasInternalEndpoints = hasEndpoints;
      if (svc.internalPolicyLocal) {
        internalTrafficChain = names.local;
        if (localEndpoints.length === 0) hasInternalEndpoints = false;
      }
      let externalPolicyChain = names.cluster;
      let hasExternalEndpoints = hasEndpoints;
      if (svc.externalPolicyLocal) {
        externalPolicyChain = names.local;
        if (localEndpoints.length === 0) hasExternalEndpoints = false;
      }
      const externalTrafficChain = names.external;
      const usesExternalTrafficChain = hasEndpoints && svc.externallyAccessible;
      if (usesExternalTrafficChain) ensureChain(externalTrafficChain, skip);

      let internalVerdict = '';
      let externalVerdict = '';
      if (!hasEndpoints) {
        internalVerdict = `goto ${REJECT_CHAIN}`;
        externalVerdict = `goto ${REJECT_CHAIN}`;
      } else {
        if (!hasInternalEndpoints) internalVerdict = 'drop';
        if (!hasExternalEndpoints) externalVerdict = 'drop';
      }

      const ipKey = (ip: string) => `${ip} . ${protocol} . ${svc.port}`;
      this.clusterIPs.ensure(tx, svc.clusterIP);
      if (hasInternalEndpoints) {
        this.serviceIPs.ensure(tx, ipKey(svc.clusterIP), `goto ${internalTrafficChain}`);
      } else {
        this.noEndpointServices.ensure(tx, ipKey(svc.clusterIP), internalVerdict, svc.nameString);
      }
      for (const extIP of svc.externalIPs) {
        if (hasEndpoints) this.serviceIPs.ensure(tx, ipKey(extIP), `goto ${externalTrafficChain}`);
        if (!hasExternalEndpoints)
          this.noEndpointServices.ensure(tx, ipKey(extIP), externalVerdict, svc.nameString);
      }
      const usesFWChain = svc.loadBalancerVIPs.length > 0 && svc.loadBalancerSourceRanges.length > 0;
      if (usesFWChain) ensureChain(names.firewall, skip);
      for (const lbip of svc.loadBalancerVIPs) {
        if (hasEndpoints) this.serviceIPs.ensure(tx, ipKey(lbip), `goto ${externalTrafficChain}`);
        if (usesFWChain) this.firewallIPs.ensure(tx, ipKey(lbip), `goto ${names.firewall}`);
      }
      if (!hasExternalEndpoints) {
        for (const lbip of svc.loadBalancerVIPs)
          this.noEndpointServices.ensure(tx, ipKey(lbip), externalVerdict, svc.nameString);
      }
      if (svc.nodePort !== 0) {
        const npKey = `${protocol} . ${svc.nodePort}`;
        if (hasEndpoints) this.serviceNodePorts.ensure(tx, npKey, `goto ${externalTrafficChain}`);
        if (!hasExternalEndpoints)
          this.noEndpointNodePorts.ensure(tx, npKey, externalVerdict, svc.nameString);
      }

      if (skip) continue;
      written++;

      if (hasInternalEndpoints) {
        if (this.options.masqueradeAll) {
          tx.addRule(internalTrafficChain, `ip daddr ${svc.clusterIP} jump ${masq}`);
        } else if (local) {
          tx.addRule(
            internalTrafficChain,
            `ip daddr ${svc.clusterIP} ip saddr != ${local.text} jump ${masq}`,
          );
        }
      }
      if (usesExternalTrafficChain) {
        if (!svc.externalPolicyLocal) {
          tx.addRule(externalTrafficChain, `jump ${masq}`);
        } else {
          if (local)
            tx.addRule(
              externalTrafficChain,
              `ip saddr ${local.text} goto ${names.cluster}`,
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
        const nodeIP = input.node.ips?.IPv4;
        if (nodeIP && svc.loadBalancerSourceRanges.some((c) => cidrContains(c, nodeIP)))
          sources.push(...svc.loadBalancerVIPs);
        tx.addRule(names.firewall, `ip saddr != { ${sources.join(' , ')} } drop`);
      }
      if (affinity) {
        for (const ep of cat.allReachableEndpoints) {
          tx.addSet('set', AFFINITY_SET_PREFIX + this.epBase(svc, ep), {
            type: 'ipv4_addr',
            flags: ['dynamic', 'timeout'],
            timeoutSeconds: svc.stickyMaxAgeSeconds,
          });
          this.kernelSets.add(AFFINITY_SET_PREFIX + this.epBase(svc, ep));
        }
      }
      if (usesClusterPolicyChain) this.writeServiceToEndpointRules(tx, svc, names.cluster, clusterEndpoints);
      if (usesLocalPolicyChain) this.writeServiceToEndpointRules(tx, svc, names.local, localEndpoints);
      for (const ep of cat.allReachableEndpoints) {
        const chain = ENDPOINT_CHAIN_PREFIX + this.epBase(svc, ep);
        tx.addRule(chain, `ip saddr ${ep.ip} jump ${masq}`);
        if (affinity) tx.addRule(chain, `update @${AFFINITY_SET_PREFIX}${this.epBase(svc, ep)} { ip saddr }`);
        tx.addRule(chain, `meta l4proto ${protocol} dnat to ${ep.endpoint}`);
      }
    }

    // stale service/endpoint chains: flush now, delete after a second
    for (const chain of this.kernelChains) {
      if (!isServiceChainName(chain)) continue;
      if (!activeChains.has(chain)) {
        // as kube-proxy: flushed again and re-stamped on every sync until a sync >= 1 s later deletes it
        tx.flushChain(chain);
        this.staleChains.set(chain, now);
      } else {
        this.staleChains.delete(chain);
      }
    }
    for (const set of this.kernelSets) {
      if (isAffinitySetName(set) && !activeAffinitySets.has(set)) {
        tx.deleteSet('set', set);
        this.kernelSets.delete(set);
      }
    }
    this.clusterIPs.cleanupLeftovers(tx);
    this.serviceIPs.cleanupLeftovers(tx);
    this.firewallIPs.cleanupLeftovers(tx);
    this.noEndpointServices.cleanupLeftovers(tx);
    this.noEndpointNodePorts.cleanupLeftovers(tx);
    this.serviceNodePorts.cleanupLeftovers(tx);

    this.needFullSync = false;
    return {
      full: !tryPartial,
      script: tx.toString(),
      staleScript: staleTx.toString(),
      stats: tx.stats,
      staleStats: staleTx.stats,
      servicePorts: keys.length,
      servicePortsWritten: written,
    };
  }

  private writeServiceToEndpointRules(
    tx: NftTransaction,
    svc: ServicePortInfo,
    chain: string,
    endpoints: readonly EndpointInfo[],
  ): void {
    if (svc.sessionAffinity === 'ClientIP') {
      for (const ep of endpoints) {
        const base = this.epBase(svc, ep);
        tx.addRule(chain, `ip saddr @${AFFINITY_SET_PREFIX}${base} goto ${ENDPOINT_CHAIN_PREFIX}${base}`);
      }
    }
    const elements = endpoints
      .map((ep, i) => `${i} : goto ${ENDPOINT_CHAIN_PREFIX}${this.epBase(svc, ep)}`)
      .join(' , ');
    tx.addRule(chain, `numgen random mod ${endpoints.length} vmap { ${elements} }`);
  }
}

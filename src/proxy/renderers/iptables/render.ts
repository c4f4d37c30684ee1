/**
 * The iptables-restore input kube-proxy's iptables proxier writes on a sync
 * (kubernetes pkg/proxy/iptables/proxier.go syncProxyRules + writeServiceToEndpointRules),
 * rebuilt from the model: same tables, chains, rule order, comments, match order and
 * number formats.
 *
 *   *filter  KUBE-SERVICES, KUBE-EXTERNAL-SERVICES, KUBE-FORWARD, KUBE-NODEPORTS,
 *            KUBE-PROXY-FIREWALL (+ KUBE-FIREWALL with localhost NodePorts on IPv4):
 *            REJECT for services without endpoints, DROP for Local policies without local
 *            endpoints, health-check node ports, LB source-range drops, forwarding rules.
 *   *nat     KUBE-SERVICES, KUBE-NODEPORTS, KUBE-POSTROUTING, KUBE-MARK-MASQ, then per
 *            service port KUBE-SVC-/SVL-/EXT-/FW-/SEP- chains.
 *
 * A partial sync (`updatedServices` given) writes every top-level chain but only the
 * per-service chains of updated Services; the others are counted (for the rule metrics)
 * and dropped, exactly like kube-proxy. Stale chains found in `existingNatChains` are
 * flushed and deleted (`-X`).
 *
 * Differences from kube-proxy, all in ordering only: Services are visited in sorted key
 * order (Go map order is random) and stale chains are deleted in sorted order. Upstream's
 * tests normalise both away (sortIPTablesRules); see test/proxy/normalize.ts.
 */
import {
  servicePortEndpointChain,
  servicePortPolicyClusterChain,
  servicePortPolicyLocalChain,
  serviceExternalChain,
  serviceFirewallChain,
  isServiceChainName,
} from '../../hash.js';
import {
  categorizeEndpoints,
  canonicalIP,
  cidrContains,
  parseCidr,
  type EndpointInfo,
  type EndpointsMap,
  type IPFamily,
  type ProxyNode,
  type ServicePortInfo,
  type ServicePortMap,
} from '../../model/index.js';
import { LineBuffer, chainLine } from './lines.js';
import { probability } from './probability.js';

export const KUBE_SERVICES = 'KUBE-SERVICES';
export const KUBE_EXTERNAL_SERVICES = 'KUBE-EXTERNAL-SERVICES';
export const KUBE_NODEPORTS = 'KUBE-NODEPORTS';
export const KUBE_POSTROUTING = 'KUBE-POSTROUTING';
export const KUBE_MARK_MASQ = 'KUBE-MARK-MASQ';
export const KUBE_FORWARD = 'KUBE-FORWARD';
export const KUBE_PROXY_FIREWALL = 'KUBE-PROXY-FIREWALL';
export const KUBE_FIREWALL = 'KUBE-FIREWALL';

/** kube-proxy's largeClusterEndpointsThreshold */
export const LARGE_CLUSTER_ENDPOINTS_THRESHOLD = 1000;

/** How kube-proxy tells pod traffic from other traffic (Go proxyutil.LocalTrafficDetector). */
export interface LocalTrafficDetector {
  /** match arguments for "from a local pod", e.g. ["-s", "10.0.0.0/8"] */
  readonly ifLocal: readonly string[];
  /** match arguments for "not from a local pod", e.g. ["!", "-s", "10.0.0.0/8"] */
  readonly ifNotLocal: readonly string[];
}

/** --detect-local-mode=ClusterCIDR: source address inside the cluster CIDR of this family. */
export function detectLocalByCIDR(cidr: string): LocalTrafficDetector {
  const c = parseCidr(cidr);
  if (!c) throw new TypeError(`cluster CIDR "${cidr}" is not a CIDR`);
  return { ifLocal: ['-s', c.text], ifNotLocal: ['!', '-s', c.text] };
}

/** --detect-local-mode=InterfaceNamePrefix: packets arriving on interfaces "prefix+". */
export function detectLocalByInterfacePrefix(prefix: string): LocalTrafficDetector {
  return { ifLocal: ['-i', `${prefix}+`], ifNotLocal: ['!', '-i', `${prefix}+`] };
}

/** Proxier settings that change the rules (kube-proxy flags / config fields). */
export interface IptablesOptions {
  /** IP family of this proxier (default IPv4) */
  family?: IPFamily;
  /** --masquerade-all: SNAT all traffic to cluster IPs */
  masqueradeAll?: boolean;
  /** iptables.masqueradeBit (default 14) */
  masqueradeBit?: number;
  /**
   * the mark text as written into the rules; default is Go's `%#08x` of 1<<masqueradeBit
   * ("0x00004000"). Upstream unit tests hard-code "0x4000".
   */
  masqueradeMark?: string;
  /** --cluster-cidr (detect-local-mode ClusterCIDR); comma-separated for dual-stack */
  clusterCIDR?: string;
  /** explicit local-traffic detector (overrides clusterCIDR) */
  localDetector?: LocalTrafficDetector | null;
  /** iptables.localhostNodePorts (default true; always false for IPv6) */
  localhostNodePorts?: boolean;
  /** iptables supports MASQUERADE --random-fully (iptables ≥ 1.6.2; default true) */
  randomFully?: boolean;
  /** the kernel has nfacct, so kube-proxy's counters exist (default true) */
  nfacct?: boolean;
  /** net.netfilter.nf_conntrack_tcp_be_liberal is set (no INVALID drop rule; default false) */
  conntrackTCPLiberal?: boolean;
  /** --nodeport-addresses CIDRs (or "primary"); empty means all local addresses */
  nodePortAddresses?: readonly string[];
  /** endpoints above which comments are dropped (default 1000) */
  largeClusterEndpointsThreshold?: number;
  /** feature gate PreferSameTrafficDistribution (default true) */
  preferSameTrafficDistribution?: boolean;
}

/** What one sync renders from. */
export interface IptablesRenderInput {
  readonly servicePorts: ServicePortMap;
  readonly endpoints: EndpointsMap;
  readonly node: ProxyNode;
  /** "ns/name" of changed Services for a partial sync; null/undefined for a full sync */
  readonly updatedServices?: ReadonlySet<string> | null;
  /**
   * nat chains present before this restore (kube-proxy reads them with iptables-save);
   * chains kube-proxy owns that are no longer used get `-X`. null skips the cleanup.
   */
  readonly existingNatChains?: ReadonlySet<string> | null;
}

/** The restore text plus the counts kube-proxy logs and exports as metrics. */
export interface IptablesRenderResult {
  /** the iptables-restore input: "*filter … COMMIT\n*nat … COMMIT\n" (decoded from `bytes` on first use) */
  readonly text: string;
  /** the same input as bytes (what is piped to iptables-restore) */
  readonly bytes: Buffer;
  readonly fullSync: boolean;
  readonly largeClusterMode: boolean;
  /** lines written per buffer (numFilterChains, numFilterRules, numNATChains, numNATRules) */
  readonly filterChains: number;
  readonly filterRules: number;
  readonly natChains: number;
  readonly natRules: number;
  /** chains/rules of unchanged services left out of a partial sync */
  readonly skippedNatChains: number;
  readonly skippedNatRules: number;
  /** stale chains deleted with -X */
  readonly deletedChains: number;
  /** their names, sorted */
  readonly deletedChainNames: readonly string[];
  /** kube-proxy's sync_proxy_rules_iptables_total{table=filter|nat}: rules present after the sync */
  readonly rulesTotal: { readonly filter: number; readonly nat: number };
  /** sync_proxy_rules_iptables_last{table}: rules written by this sync */
  readonly rulesLastSync: { readonly filter: number; readonly nat: number };
  /** nat chains in use after this sync */
  readonly activeNatChains: Set<string>;
  readonly totalEndpoints: number;
  readonly serviceNoLocalEndpointsInternal: number;
  readonly serviceNoLocalEndpointsExternal: number;
}

/** Precomputed chain names of one service port (kube-proxy's servicePortInfo fields). */
interface ServiceChains {
  cluster: string;
  local: string;
  firewall: string;
  external: string;
  protocol: string;
}

const svcChainCache = new WeakMap<ServicePortInfo, ServiceChains>();
const sepChainCache = new WeakMap<EndpointInfo, string>();

function chainsOf(svc: ServicePortInfo): ServiceChains {
  let c = svcChainCache.get(svc);
  if (!c) {
    const protocol = svc.protocol.toLowerCase();
    c = {
      protocol,
      cluster: servicePortPolicyClusterChain(svc.nameString, protocol),
      local: servicePortPolicyLocalChain(svc.nameString, protocol),
      firewall: serviceFirewallChain(svc.nameString, protocol),
      external: serviceExternalChain(svc.nameString, protocol),
    };
    svcChainCache.set(svc, c);
  }
  return c;
}

function sepChainOf(svc: ServicePortInfo, protocol: string, ep: EndpointInfo): string {
  let c = sepChainCache.get(ep);
  if (!c) {
    c = servicePortEndpointChain(svc.nameString, protocol, ep.endpoint);
    sepChainCache.set(ep, c);
  }
  return c;
}

/** Go `fmt.Sprintf("%#08x", 1<<bit)`: zero-padded to 8 digits after "0x". */
export function masqueradeMarkFor(bit: number): string {
  if (!Number.isInteger(bit) || bit < 0 || bit > 31)
    throw new TypeError(`masqueradeBit must be an integer 0-31, got ${bit}`);
  return '0x' + (2 ** bit).toString(16).padStart(8, '0');
}

function resolveDetector(opts: IptablesOptions, family: IPFamily): LocalTrafficDetector | null {
  if (opts.localDetector !== undefined) return opts.localDetector;
  if (!opts.clusterCIDR) return null;
  for (const part of opts.clusterCIDR.split(',')) {
    const c = parseCidr(part);
    if (!c) throw new TypeError(`cluster CIDR "${part.trim()}" is not a CIDR`);
    if (c.family === family) return detectLocalByCIDR(c.text);
  }
  return null;
}

interface NodePortAddresses {
  /** no CIDR of this family given, or one of them is 0.0.0.0/0 / ::/0 */
  matchAll: boolean;
  /** an IPv4 CIDR contains 127.0.0.1 (or matchAll): localhost NodePorts stay possible */
  containsIPv4Loopback: boolean;
  /** the node addresses inside the CIDRs (when not matchAll) */
  ips: string[];
}

/** Go proxyutil.NewNodePortAddresses + GetNodeIPs, over the node's known addresses. */
function nodePortAddresses(opts: IptablesOptions, node: ProxyNode, family: IPFamily): NodePortAddresses {
  const cidrs = [];
  let primary = false;
  for (const a of opts.nodePortAddresses ?? []) {
    if (a === 'primary') {
      primary = true;
      continue;
    }
    const c = parseCidr(a);
    if (!c) throw new TypeError(`nodePortAddresses entry "${a}" is not a CIDR or "primary"`);
    if (c.family === family) cidrs.push(c);
  }
  const nodeIP = node.ips?.[family];
  if (primary && nodeIP) cidrs.push(parseCidr(family === 'IPv4' ? `${nodeIP}/32` : `${nodeIP}/128`)!);
  if (cidrs.length === 0) return { matchAll: true, containsIPv4Loopback: family === 'IPv4', ips: [] };
  const matchAll = cidrs.some((c) => c.prefix === 0);
  const containsIPv4Loopback = cidrs.some((c) => cidrContains(c, '127.0.0.1'));
  const local = [
    ...(node.localAddresses ?? Object.values(node.ips ?? {})),
    family === 'IPv4' ? '127.0.0.1' : '::1',
  ];
  const ips: string[] = [];
  for (const raw of local) {
    const ip = canonicalIP(raw ?? '');
    if (!ip || ips.includes(ip)) continue;
    if (cidrs.some((c) => cidrContains(c, ip))) ips.push(ip);
  }
  return { matchAll, containsIPv4Loopback, ips };
}

/**
 * Renders one sync's iptables-restore input. Pure: the caller (src/proxy/sync.ts) keeps the
 * kernel-side state (existing chains, full/partial decision).
 */
export function renderIptables(input: IptablesRenderInput, opts: IptablesOptions = {}): IptablesRenderResult {
  const family = opts.family ?? 'IPv4';
  const isIPv6 = family === 'IPv6';
  const mark = opts.masqueradeMark ?? masqueradeMarkFor(opts.masqueradeBit ?? 14);
  const detector = resolveDetector(opts, family);
  const npa = nodePortAddresses(opts, input.node, family);
  // kube-proxy turns localhost NodePorts off for IPv6 and when --nodeport-addresses excludes 127.0.0.1
  const localhostNodePorts = !isIPv6 && (opts.localhostNodePorts ?? true) && npa.containsIPv4Loopback;
  const nfacct = opts.nfacct ?? true;
  const fullSync = input.updatedServices == null;
  const updated = input.updatedServices;
  const nodeName = input.node.name;
  const nodeIP = input.node.ips?.[family];
  const topologyLabels = input.node.topologyLabels;
  const catOpts = { preferSameTrafficDistribution: opts.preferSameTrafficDistribution };

  const filterChains = new LineBuffer();
  const filterRules = new LineBuffer();
  const natChains = new LineBuffer();
  const natRules = new LineBuffer();
  const skippedNatChains = new LineBuffer(false);
  const skippedNatRules = new LineBuffer(false);

  for (const c of [
    KUBE_SERVICES,
    KUBE_EXTERNAL_SERVICES,
    KUBE_FORWARD,
    KUBE_NODEPORTS,
    KUBE_PROXY_FIREWALL,
  ]) {
    filterChains.write(chainLine(c));
  }
  for (const c of [KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ])
    natChains.write(chainLine(c));

  natRules.write(`-A ${KUBE_POSTROUTING} -m mark ! --mark ${mark}/${mark} -j RETURN`);
  natRules.write(`-A ${KUBE_POSTROUTING} -j MARK --xor-mark ${mark}`);
  natRules.write(
    `-A ${KUBE_POSTROUTING} -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE` +
      ((opts.randomFully ?? true) ? ' --random-fully' : ''),
  );
  natRules.write(`-A ${KUBE_MARK_MASQ} -j MARK --or-mark ${mark}`);

  if (!isIPv6 && localhostNodePorts) {
    filterChains.write(chainLine(KUBE_FIREWALL));
    filterRules.write(
      `-A ${KUBE_FIREWALL} -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP`,
    );
  }

  const activeNatChains = new Set<string>();
  const keys = [...input.servicePorts.keys()].sort();
  let totalEndpoints = 0;
  for (const k of keys) totalEndpoints += input.endpoints.get(k)?.length ?? 0;
  const largeClusterMode =
    totalEndpoints > (opts.largeClusterEndpointsThreshold ?? LARGE_CLUSTER_ENDPOINTS_THRESHOLD);
  let noLocalInternal = 0,
    noLocalExternal = 0;
  const ifLocal = detector ? detector.ifLocal.join(' ') : '';
  const ifNotLocal = detector ? detector.ifNotLocal.join(' ') : '';

  for (const key of keys) {
    const svc = input.servicePorts.get(key)!;
    const names = chainsOf(svc);
    const protocol = names.protocol;
    const spn = svc.nameString;
    const port = svc.port;
    const cat = categorizeEndpoints(input.endpoints.get(key), svc, nodeName, topologyLabels, catOpts);
    const clusterEndpoints = cat.clusterEndpoints ?? [];
    const localEndpoints = cat.localEndpoints ?? [];
    const hasEndpoints = cat.hasAnyEndpoints;

    const clusterPolicyChain = names.cluster;
    const usesClusterPolicyChain = clusterEndpoints.length > 0 && svc.usesClusterEndpoints;
    const localPolicyChain = names.local;
    const usesLocalPolicyChain = localEndpoints.length > 0 && svc.usesLocalEndpoints;

    let internalPolicyChain = clusterPolicyChain;
    let hasInternalEndpoints = hasEndpoints;
    if (svc.internalPolicyLocal) {
      internalPolicyChain = localPolicyChain;
      if (localEndpoints.length === 0) hasInternalEndpoints = false;
    }
    const internalTrafficChain = internalPolicyChain;

    let externalPolicyChain = clusterPolicyChain;
    let hasExternalEndpoints = hasEndpoints;
    if (svc.externalPolicyLocal) {
      externalPolicyChain = localPolicyChain;
      if (localEndpoints.length === 0) hasExternalEndpoints = false;
    }
    const externalTrafficChain = names.external;
    const usesExternalTrafficChain = hasEndpoints && svc.externallyAccessible;

    let loadBalancerTrafficChain = externalTrafficChain;
    const fwChain = names.firewall;
    const usesFWChain =
      hasEndpoints && svc.loadBalancerVIPs.length > 0 && svc.loadBalancerSourceRanges.length > 0;
    if (usesFWChain) loadBalancerTrafficChain = fwChain;

    let internalFilterTarget = '',
      internalFilterComment = '';
    let externalFilterTarget = '',
      externalFilterComment = '';
    if (!hasEndpoints) {
      internalFilterTarget = 'REJECT';
      internalFilterComment = `"${spn} has no endpoints"`;
      externalFilterTarget = 'REJECT';
      externalFilterComment = internalFilterComment;
    } else {
      if (!hasInternalEndpoints) {
        internalFilterTarget = 'DROP';
        internalFilterComment = `"${spn} has no local endpoints"`;
        noLocalInternal++;
      }
      if (!hasExternalEndpoints) {
        externalFilterTarget = 'DROP';
        externalFilterComment = `"${spn} has no local endpoints"`;
        noLocalExternal++;
      }
    }

    const protoMatch = `-m ${protocol} -p ${protocol}`;
    const clusterIPMatch = `${protoMatch} -d ${svc.clusterIP} --dport ${port}`;

    // Capture the clusterIP.
    if (hasInternalEndpoints) {
      natRules.write(
        `-A ${KUBE_SERVICES} -m comment --comment "${spn} cluster IP" ${clusterIPMatch} -j ${internalTrafficChain}`,
      );
    } else {
      filterRules.write(
        `-A ${KUBE_SERVICES} -m comment --comment ${internalFilterComment} ${clusterIPMatch} -j ${internalFilterTarget}`,
      );
    }

    // Capture externalIPs.
    for (const eip of svc.externalIPs) {
      if (hasEndpoints) {
        natRules.write(
          `-A ${KUBE_SERVICES} -m comment --comment "${spn} external IP" ${protoMatch} -d ${eip} --dport ${port} -j ${externalTrafficChain}`,
        );
      }
      if (!hasExternalEndpoints) {
        filterRules.write(
          `-A ${KUBE_EXTERNAL_SERVICES} -m comment --comment ${externalFilterComment} ${protoMatch} -d ${eip} --dport ${port} -j ${externalFilterTarget}`,
        );
      }
    }

    // Capture load-balancer ingress.
    for (const lbip of svc.loadBalancerVIPs) {
      if (hasEndpoints) {
        natRules.write(
          `-A ${KUBE_SERVICES} -m comment --comment "${spn} loadbalancer IP" ${protoMatch} -d ${lbip} --dport ${port} -j ${loadBalancerTrafficChain}`,
        );
      }
      if (usesFWChain) {
        filterRules.write(
          `-A ${KUBE_PROXY_FIREWALL} -m comment --comment "${spn} traffic not accepted by ${fwChain}" ${protoMatch} -d ${lbip} --dport ${port} -j DROP`,
        );
      }
    }
    if (!hasExternalEndpoints) {
      for (const lbip of svc.loadBalancerVIPs) {
        filterRules.write(
          `-A ${KUBE_EXTERNAL_SERVICES} -m comment --comment ${externalFilterComment} ${protoMatch} -d ${lbip} --dport ${port} -j ${externalFilterTarget}`,
        );
      }
    }

    // Capture nodeports.
    if (svc.nodePort !== 0) {
      if (hasEndpoints) {
        if (localhostNodePorts && nfacct) {
          natRules.write(
            `-A ${KUBE_NODEPORTS} -m comment --comment ${spn} ${protoMatch} -d 127.0.0.0/8 --dport ${svc.nodePort} -m nfacct --nfacct-name localhost_nps_accepted_pkts -j ${externalTrafficChain}`,
          );
        }
        natRules.write(
          `-A ${KUBE_NODEPORTS} -m comment --comment ${spn} ${protoMatch} --dport ${svc.nodePort} -j ${externalTrafficChain}`,
        );
      }
      if (!hasExternalEndpoints) {
        filterRules.write(
          `-A ${KUBE_EXTERNAL_SERVICES} -m comment --comment ${externalFilterComment} -m addrtype --dst-type LOCAL ${protoMatch} --dport ${svc.nodePort} -j ${externalFilterTarget}`,
        );
      }
    }

    // Capture healthCheckNodePorts.
    if (svc.healthCheckNodePort !== 0) {
      filterRules.write(
        `-A ${KUBE_NODEPORTS} -m comment --comment "${spn} health check node port" -m tcp -p tcp --dport ${svc.healthCheckNodePort} -j ACCEPT`,
      );
    }

    // Unchanged services in a partial sync: compute their chains for the counts, then drop them.
    let nc = natChains,
      nr = natRules;
    if (!fullSync && !updated!.has(svc.serviceName)) {
      nc = skippedNatChains;
      nr = skippedNatRules;
    }

    // Internal traffic handling.
    if (hasInternalEndpoints) {
      const args = `-m comment --comment "${spn} cluster IP" ${clusterIPMatch}`;
      if (opts.masqueradeAll) {
        nr.write(`-A ${internalTrafficChain} ${args} -j ${KUBE_MARK_MASQ}`);
      } else if (detector) {
        nr.write(`-A ${internalTrafficChain} ${args} ${ifNotLocal} -j ${KUBE_MARK_MASQ}`);
      }
    }

    // External traffic handling.
    if (usesExternalTrafficChain) {
      nc.write(chainLine(externalTrafficChain));
      activeNatChains.add(externalTrafficChain);
      if (!svc.externalPolicyLocal) {
        nr.write(
          `-A ${externalTrafficChain} -m comment --comment "masquerade traffic for ${spn} external destinations" -j ${KUBE_MARK_MASQ}`,
        );
      } else {
        if (detector) {
          nr.write(
            `-A ${externalTrafficChain} -m comment --comment "pod traffic for ${spn} external destinations" ${ifLocal} -j ${clusterPolicyChain}`,
          );
        }
        nr.write(
          `-A ${externalTrafficChain} -m comment --comment "masquerade LOCAL traffic for ${spn} external destinations" -m addrtype --src-type LOCAL -j ${KUBE_MARK_MASQ}`,
        );
        nr.write(
          `-A ${externalTrafficChain} -m comment --comment "route LOCAL traffic for ${spn} external destinations" -m addrtype --src-type LOCAL -j ${clusterPolicyChain}`,
        );
      }
      if (hasExternalEndpoints) {
        nr.write(`-A ${externalTrafficChain} -j ${externalPolicyChain}`);
      }
    }

    // Firewall chain for loadBalancerSourceRanges.
    if (usesFWChain) {
      nc.write(chainLine(fwChain));
      activeNatChains.add(fwChain);
      const args = `-A ${fwChain} -m comment --comment "${spn} loadbalancer IP"`;
      let allowFromNode = false;
      for (const cidr of svc.loadBalancerSourceRanges) {
        nr.write(`${args} -s ${cidr.text} -j ${externalTrafficChain}`);
        if (nodeIP && cidrContains(cidr, nodeIP)) allowFromNode = true;
      }
      if (allowFromNode) {
        for (const lbip of svc.loadBalancerVIPs) nr.write(`${args} -s ${lbip} -j ${externalTrafficChain}`);
      }
      nr.write(
        `-A ${fwChain} -m comment --comment "other traffic to ${spn} will be dropped by KUBE-PROXY-FIREWALL"`,
      );
    }

    if (usesClusterPolicyChain) {
      nc.write(chainLine(clusterPolicyChain));
      activeNatChains.add(clusterPolicyChain);
      writeServiceToEndpointRules(
        nr,
        spn,
        svc,
        protocol,
        clusterPolicyChain,
        clusterEndpoints,
        largeClusterMode,
      );
    }
    if (usesLocalPolicyChain) {
      nc.write(chainLine(localPolicyChain));
      activeNatChains.add(localPolicyChain);
      writeServiceToEndpointRules(nr, spn, svc, protocol, localPolicyChain, localEndpoints, largeClusterMode);
    }

    // Per-endpoint chains.
    const comment = largeClusterMode ? '' : ` -m comment --comment ${spn}`;
    const affinity = svc.sessionAffinity === 'ClientIP';
    for (const ep of cat.allReachableEndpoints) {
      const sep = sepChainOf(svc, protocol, ep);
      nc.write(chainLine(sep));
      activeNatChains.add(sep);
      nr.write(`-A ${sep}${comment} -s ${ep.ip} -j ${KUBE_MARK_MASQ}`);
      nr.write(
        `-A ${sep}${comment}${affinity ? ` -m recent --name ${sep} --set` : ''} ${protoMatch} -j DNAT --to-destination ${ep.endpoint}`,
      );
    }
  }

  // Delete chains no longer in use.
  let deletedChains = 0;
  let stale: string[] = [];
  if (input.existingNatChains) {
    stale = [...input.existingNatChains]
      .filter((c) => !activeNatChains.has(c) && isServiceChainName(c))
      .sort();
    for (const c of stale) {
      natChains.write(chainLine(c));
      natRules.write(`-X ${c}`);
      deletedChains++;
    }
  }

  // Tail-call to the nodePorts chain; must be the last rule of KUBE-SERVICES.
  const lastRuleComment =
    '-m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain"';
  if (npa.matchAll) {
    let dest = '-m addrtype --dst-type LOCAL';
    if (isIPv6) dest += ' ! -d ::1/128';
    else if (!localhostNodePorts) dest += ' ! -d 127.0.0.0/8';
    natRules.write(`-A ${KUBE_SERVICES} ${lastRuleComment} ${dest} -j ${KUBE_NODEPORTS}`);
  } else {
    for (const ip of npa.ips) {
      // localhost only where localhost NodePorts are on (never for IPv6)
      if ((ip === '127.0.0.1' || ip.startsWith('127.') || ip === '::1') && (isIPv6 || !localhostNodePorts))
        continue;
      natRules.write(`-A ${KUBE_SERVICES} ${lastRuleComment} -d ${ip} -j ${KUBE_NODEPORTS}`);
    }
  }

  if (!opts.conntrackTCPLiberal) {
    filterRules.write(
      `-A ${KUBE_FORWARD} -m conntrack --ctstate INVALID${nfacct ? ' -m nfacct --nfacct-name ct_state_invalid_dropped_pkts' : ''} -j DROP`,
    );
  }
  filterRules.write(
    `-A ${KUBE_FORWARD} -m comment --comment "kubernetes forwarding rules" -m mark --mark ${mark}/${mark} -j ACCEPT`,
  );
  filterRules.write(
    `-A ${KUBE_FORWARD} -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`,
  );

  const bytes = Buffer.concat([
    Buffer.from('*filter\n'),
    ...filterChains.bytesChunks(),
    ...filterRules.bytesChunks(),
    Buffer.from('COMMIT\n*nat\n'),
    ...natChains.bytesChunks(),
    ...natRules.bytesChunks(),
    Buffer.from('COMMIT\n'),
  ]);
  let text: string | undefined;
  return {
    get text() {
      return (text ??= bytes.toString('latin1'));
    },
    bytes,
    fullSync,
    largeClusterMode,
    filterChains: filterChains.lines,
    filterRules: filterRules.lines,
    natChains: natChains.lines,
    natRules: natRules.lines,
    skippedNatChains: skippedNatChains.lines,
    skippedNatRules: skippedNatRules.lines,
    deletedChains,
    deletedChainNames: stale,
    rulesTotal: { filter: filterRules.lines, nat: natRules.lines + skippedNatRules.lines - deletedChains },
    rulesLastSync: { filter: filterRules.lines, nat: natRules.lines - deletedChains },
    activeNatChains,
    totalEndpoints,
    serviceNoLocalEndpointsInternal: noLocalInternal,
    serviceNoLocalEndpointsExternal: noLocalExternal,
  };
}

/** Go writeServiceToEndpointRules: affinity checks first, then the random-probability ladder. */
function writeServiceToEndpointRules(
  nr: LineBuffer,
  spn: string,
  svc: ServicePortInfo,
  protocol: string,
  svcChain: string,
  endpoints: readonly EndpointInfo[],
  largeClusterMode: boolean,
): void {
  if (svc.sessionAffinity === 'ClientIP') {
    for (const ep of endpoints) {
      const sep = sepChainOf(svc, protocol, ep);
      const comment = largeClusterMode ? '' : ` -m comment --comment "${spn} -> ${ep.endpoint}"`;
      nr.write(
        `-A ${svcChain}${comment} -m recent --name ${sep} --rcheck --seconds ${svc.stickyMaxAgeSeconds} --reap -j ${sep}`,
      );
    }
  }
  const n = endpoints.length;
  for (let i = 0; i < n; i++) {
    const ep = endpoints[i];
    const sep = sepChainOf(svc, protocol, ep);
    const comment = largeClusterMode ? '' : ` -m comment --comment "${spn} -> ${ep.endpoint}"`;
    const stat = i < n - 1 ? ` -m statistic --mode random --probability ${probability(n - i)}` : '';
    nr.write(`-A ${svcChain}${comment}${stat} -j ${sep}`);
  }
}

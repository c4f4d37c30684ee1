/**
 * What kube-proxy's ipvs mode programs for one sync (pkg/proxy/ipvs/proxier.go syncProxyRules,
 * writeIptablesRules, createAndLinkKubeChain), as data and in the text forms the real tools read:
 *
 *   desiredState   virtual servers with their real servers, ipset entries, kube-ipvs0 addresses
 *   ipvsadmText    `ipvsadm -R` input — the lines `ipvsadm -S -n` prints:
 *                    -A -t 10.96.0.10:80 -s rr [-p 10800]
 *                    -a -t 10.96.0.10:80 -r 100.64.0.2:8080 -m -w 1
 *   ipsetText      `ipset restore` input for kube-proxy's sets (KUBE-CLUSTER-IP hash:ip,port, …)
 *   iptablesText   the small `iptables-restore --noflush` input ipvs mode still writes
 *   addressesText  the addresses bound to the dummy interface kube-ipvs0
 *
 * IPv6 as upstream's IPv6 proxier: sets named KUBE-6-… of family inet6, `[addr]:port` in ipvsadm,
 * /128 addresses on kube-ipvs0, `-s ::1/128` for localhost in KUBE-SERVICES (ip6tables input).
 * Service ports are visited in sorted order (kube-proxy walks a Go map).
 */
import {
  type EndpointInfo,
  type EndpointsMap,
  type IPFamily,
  type LocalTrafficDetector,
  type ProxyNode,
  type ServicePortInfo,
  type ServicePortMap,
  categorizeEndpoints,
  cidrContains,
  isIPv6LinkLocal,
  isLoopback,
  joinHostPort,
  newNodePortAddresses,
  nodeAddresses,
  nodeIPsIn,
} from '../../model/index.js';
import {
  IPSET_INFO,
  IPSET_WITH_IPTABLES_CHAIN,
  type IPSetName,
  ipsetCreateLine,
  ipsetName,
} from './ipsets.js';

export const DUMMY_DEVICE = 'kube-ipvs0';

/** One IPVS virtual server and its real servers. */
export interface VirtualServer {
  protocol: 'TCP' | 'UDP' | 'SCTP';
  address: string;
  port: number;
  scheduler: string;
  /** persistence timeout in seconds (ClientIP affinity), 0 = none */
  persistent: number;
  /** "ip:port" ("[ip]:port" for IPv6) of each real server, in endpoint order; weight is always 1 */
  reals: string[];
  /** which service port it belongs to (ServicePortInfo.key) */
  servicePort: string;
}

/** The desired state after one sync. */
export interface IpvsState {
  readonly family: IPFamily;
  /** keyed "TCP/10.96.0.10:80" */
  virtualServers: Map<string, VirtualServer>;
  /** set → entries, in insertion order; keyed by kube-proxy's IPv4 set names (see ipsetName) */
  ipsets: Map<IPSetName, Set<string>>;
  /** addresses bound to kube-ipvs0 */
  boundAddresses: Set<string>;
}

/** What a sync reads besides the model. */
export interface IpvsRulesConfig {
  readonly family: IPFamily;
  readonly scheduler: string;
  readonly masqueradeAll: boolean;
  /** the mark as written ("0x00004000") */
  readonly mark: string;
  readonly detector: LocalTrafficDetector | null;
  readonly nodePortAddresses?: readonly string[];
}

export interface IpvsRulesInput {
  servicePorts: ServicePortMap;
  endpoints: EndpointsMap;
  node: ProxyNode;
}

const protoFlag = (p: VirtualServer['protocol']) =>
  p === 'TCP' ? '-t' : p === 'UDP' ? '-u' : '--sctp-service';

/** "TCP/10.96.0.10:80" */
export function virtualServerKey(protocol: string, address: string, port: number): string {
  return `${protocol}/${joinHostPort(address, port)}`;
}

/** `-A -t 10.96.0.10:80 -s rr [-p 10800]` */
export function virtualServerLine(vs: VirtualServer, verb: '-A' | '-E' = '-A'): string {
  let s = `${verb} ${protoFlag(vs.protocol)} ${joinHostPort(vs.address, vs.port)} -s ${vs.scheduler}`;
  if (vs.scheduler === 'mh') s += ' -b mh-port'; // kube-proxy sets FlagSourceHash (IP_VS_SVC_F_SCHED2) for mh
  if (vs.persistent > 0) s += ` -p ${vs.persistent}`;
  return s;
}

/** `-a -t 10.96.0.10:80 -r 100.64.0.2:8080 -m -w 1` (masquerading, weight 1, as kube-proxy) */
export function realServerLine(vs: VirtualServer, real: string): string {
  return `-a ${protoFlag(vs.protocol)} ${joinHostPort(vs.address, vs.port)} -r ${real} -m -w 1`;
}

/** `-d -t 10.96.0.10:80 -r 100.64.0.2:8080` */
export function realServerDeleteLine(vs: VirtualServer, real: string): string {
  return `-d ${protoFlag(vs.protocol)} ${joinHostPort(vs.address, vs.port)} -r ${real}`;
}

/** `-D -t 10.96.0.10:80` */
export function virtualServerDeleteLine(vs: VirtualServer): string {
  return `-D ${protoFlag(vs.protocol)} ${joinHostPort(vs.address, vs.port)}`;
}

/** `ip addr add 10.96.0.10/32 dev kube-ipvs0` (/128 for IPv6) */
export function addressLine(verb: 'add' | 'del', address: string): string {
  return `ip addr ${verb} ${address}/${address.includes(':') ? 128 : 32} dev ${DUMMY_DEVICE}`;
}

/**
 * The node IPs NodePort virtual servers are created on (syncProxyRules' nodeIPs): every node
 * address of the family except loopback (and IPv6 link-local) when --nodeport-addresses matches
 * all, else the node addresses inside its CIDRs except loopback.
 */
export function nodePortIPs(cfg: IpvsRulesConfig, node: ProxyNode): string[] {
  const npa = newNodePortAddresses(cfg.nodePortAddresses, cfg.family, node);
  if (npa.matchAll) return nodeAddressSet(node, cfg.family);
  return nodeIPsIn(npa, node).filter((ip) => !isLoopback(ip));
}

/** Go GetAllLocalAddressesExcept(kube-ipvs0) with isValidForSet: no loopback, no IPv6 link-local. */
function nodeAddressSet(node: ProxyNode, family: IPFamily): string[] {
  return nodeAddresses(node, family).filter(
    (ip) => !isLoopback(ip) && !(family === 'IPv6' && isIPv6LinkLocal(ip)),
  );
}

/** The endpoints a virtual server gets (kube-proxy syncEndpoint). */
function realServers(
  svc: ServicePortInfo,
  eps: readonly EndpointInfo[] | undefined,
  node: ProxyNode,
  onlyNodeLocal: boolean,
): string[] {
  const cat = categorizeEndpoints(eps, svc, node.name, node.topologyLabels);
  const cluster = cat.clusterEndpoints ?? [];
  const local = cat.localEndpoints ?? [];
  const chosen = onlyNodeLocal ? (local.length > 0 ? local : cluster) : cluster;
  return chosen.map((e) => e.endpoint);
}

/** What one service port adds to the state (kube-proxy's loop body over svcPortMap). */
export interface PortState {
  readonly serviceName: string;
  /** virtual servers with their keys, in the order created */
  readonly virtualServers: readonly (readonly [string, VirtualServer])[];
  /** ipset entries, in the order added (the addresses of KUBE-IPVS-IPS are in `bound`) */
  readonly entries: readonly (readonly [IPSetName, string])[];
  /** addresses bound to kube-ipvs0 */
  readonly bound: readonly string[];
  /** LB VIP:port entries the node may not reach (KUBE-IPVS-OUT-FILTER) */
  readonly noNodeAccess: readonly NoNodeAccess[];
}

export interface NoNodeAccess {
  readonly ip: string;
  readonly proto: string;
  readonly port: number;
}

/** What every port's state depends on besides its Service and endpoints. */
export interface PortContext {
  readonly cfg: IpvsRulesConfig;
  readonly node: ProxyNode;
  readonly nodeIPs: readonly string[];
  readonly localAddrs: ReadonlySet<string>;
  readonly nodeIP: string | undefined;
}

export function portContext(cfg: IpvsRulesConfig, node: ProxyNode): PortContext {
  return {
    cfg,
    node,
    nodeIPs: nodePortIPs(cfg, node),
    localAddrs: new Set(nodeAddressSet(node, cfg.family)),
    nodeIP: node.ips?.[cfg.family],
  };
}

/**
 * Where one service port's virtual servers listen, in the order portState creates them: the
 * cluster IP, each external IP, each LB VIP, each node IP for a NodePort; `local`: its real
 * servers are the node's own endpoints when it has some.
 */
function virtualServerAddresses(
  pc: PortContext,
  svc: ServicePortInfo,
): { address: string; port: number; local: boolean }[] {
  const out = [{ address: svc.clusterIP, port: svc.port, local: svc.internalPolicyLocal }];
  for (const ext of svc.externalIPs)
    out.push({ address: ext, port: svc.port, local: svc.externalPolicyLocal });
  for (const lb of svc.loadBalancerVIPs)
    out.push({ address: lb, port: svc.port, local: svc.externalPolicyLocal });
  if (svc.nodePort !== 0)
    for (const ip of pc.nodeIPs)
      out.push({ address: ip, port: svc.nodePort, local: svc.externalPolicyLocal });
  return out;
}

/** The keys of one service port's virtual servers (without computing their real servers). */
export function virtualServerKeys(pc: PortContext, svc: ServicePortInfo): string[] {
  return virtualServerAddresses(pc, svc).map((a) => virtualServerKey(svc.protocol, a.address, a.port));
}

/** One service port's virtual servers, ipset entries, bound addresses and output filters. */
export function portState(
  pc: PortContext,
  key: string,
  svc: ServicePortInfo,
  eps: readonly EndpointInfo[] | undefined,
): PortState {
  const { cfg, node, nodeIPs, localAddrs, nodeIP } = pc;
  const entries: [IPSetName, string][] = [];
  const add = (name: IPSetName, entry: string) => entries.push([name, entry]);
  const vss: [string, VirtualServer][] = [];
  const bound: string[] = [];
  const proto = svc.protocol.toLowerCase();
  const persistent = svc.sessionAffinity === 'ClientIP' ? svc.stickyMaxAgeSeconds : 0;

  for (const ep of eps ?? []) if (ep.isLocal) add('KUBE-LOOP-BACK', `${ep.ip},${proto}:${ep.port},${ep.ip}`);

  add('KUBE-CLUSTER-IP', `${svc.clusterIP},${proto}:${svc.port}`);
  bound.push(svc.clusterIP);

  for (const ext of svc.externalIPs) {
    add(
      svc.externalPolicyLocal ? 'KUBE-EXTERNAL-IP-LOCAL' : 'KUBE-EXTERNAL-IP',
      `${ext},${proto}:${svc.port}`,
    );
    // never bind an address another interface already has
    if (!localAddrs.has(ext)) bound.push(ext);
  }
  for (const lb of svc.loadBalancerVIPs) {
    const entry = `${lb},${proto}:${svc.port}`;
    add('KUBE-LOAD-BALANCER', entry);
    if (svc.externalPolicyLocal) add('KUBE-LOAD-BALANCER-LOCAL', entry);
    if (svc.loadBalancerSourceRanges.length > 0) {
      add('KUBE-LOAD-BALANCER-FW', entry);
      let allowFromNode = false;
      for (const c of svc.loadBalancerSourceRanges) {
        add('KUBE-LOAD-BALANCER-SOURCE-CIDR', `${lb},${proto}:${svc.port},${c.text}`);
        if (nodeIP && cidrContains(c, nodeIP)) allowFromNode = true;
      }
      if (allowFromNode) add('KUBE-LOAD-BALANCER-SOURCE-IP', `${lb},${proto}:${svc.port},${lb}`);
    }
    if (!localAddrs.has(lb)) bound.push(lb);
  }
  if (svc.nodePort !== 0 && nodeIPs.length > 0) {
    const local = svc.externalPolicyLocal;
    if (svc.protocol === 'SCTP') {
      for (const ip of nodeIPs) {
        add('KUBE-NODE-PORT-SCTP-HASH', `${ip},sctp:${svc.nodePort}`);
        if (local) add('KUBE-NODE-PORT-LOCAL-SCTP-HASH', `${ip},sctp:${svc.nodePort}`);
      }
    } else {
      add(svc.protocol === 'TCP' ? 'KUBE-NODE-PORT-TCP' : 'KUBE-NODE-PORT-UDP', String(svc.nodePort));
      if (local)
        add(
          svc.protocol === 'TCP' ? 'KUBE-NODE-PORT-LOCAL-TCP' : 'KUBE-NODE-PORT-LOCAL-UDP',
          String(svc.nodePort),
        );
    }
  }
  if (svc.healthCheckNodePort !== 0) add('KUBE-HEALTH-CHECK-NODE-PORT', String(svc.healthCheckNodePort));
  // real servers depend only on the policy: computed once per port and policy
  const reals: Partial<Record<'true' | 'false', string[]>> = {};
  for (const { address, port, local } of virtualServerAddresses(pc, svc))
    vss.push([
      virtualServerKey(svc.protocol, address, port),
      {
        protocol: svc.protocol,
        address,
        port,
        scheduler: cfg.scheduler,
        persistent,
        reals: (reals[`${local}`] ??= realServers(svc, eps, node, local)),
        servicePort: key,
      },
    ]);

  const noNodeAccess: NoNodeAccess[] = [];
  if (svc.loadBalancerSourceRanges.length > 0) {
    const allow = !!nodeIP && svc.loadBalancerSourceRanges.some((c) => cidrContains(c, nodeIP));
    if (!allow) for (const lb of svc.loadBalancerVIPs) noNodeAccess.push({ ip: lb, proto, port: svc.port });
  }
  return { serviceName: svc.serviceName, virtualServers: vss, entries, bound, noNodeAccess };
}

/** The state of ports visited in order (later virtual servers of one key replace earlier ones, as a map does). */
export function foldPorts(family: IPFamily, ports: Iterable<PortState>): IpvsState {
  const sets = new Map<IPSetName, Set<string>>(IPSET_INFO.map((i) => [i.name, new Set<string>()]));
  const vss = new Map<string, VirtualServer>();
  const bound = new Set<string>();
  for (const p of ports) {
    for (const [k, vs] of p.virtualServers) vss.set(k, vs);
    for (const [name, entry] of p.entries) sets.get(name)!.add(entry);
    for (const a of p.bound) bound.add(a);
  }
  const ipvsIPs = sets.get('KUBE-IPVS-IPS')!;
  for (const a of bound) ipvsIPs.add(a);
  return { family, virtualServers: vss, ipsets: sets, boundAddresses: bound };
}

/** Virtual servers, ipset entries and bound addresses of one sync. */
export function desiredState(cfg: IpvsRulesConfig, input: IpvsRulesInput): IpvsState {
  const pc = portContext(cfg, input.node);
  const keys = [...input.servicePorts.keys()].sort();
  return foldPorts(
    cfg.family,
    keys.map((k) => portState(pc, k, input.servicePorts.get(k)!, input.endpoints.get(k))),
  );
}

const join = (l: string[]) => (l.length ? `${l.join('\n')}\n` : '');

/** `ipvsadm -R` input of the whole state. */
export function ipvsadmText(state: IpvsState): { text: string; realServers: number } {
  const lines: string[] = [];
  let reals = 0;
  for (const vs of state.virtualServers.values()) {
    lines.push(virtualServerLine(vs));
    for (const r of vs.reals) {
      lines.push(realServerLine(vs, r));
      reals++;
    }
  }
  return { text: join(lines), realServers: reals };
}

/** `ipset restore` input of the whole state: each set's comment, create line and entries. */
export function ipsetText(state: IpvsState): { text: string; entries: number } {
  const lines: string[] = [];
  let entries = 0;
  for (const info of IPSET_INFO) {
    const name = ipsetName(info.name, state.family);
    lines.push(`# ${info.comment}`);
    lines.push(ipsetCreateLine({ name, type: info.type }, state.family));
    for (const e of state.ipsets.get(info.name)!) {
      lines.push(`add ${name} ${e}`);
      entries++;
    }
  }
  return { text: join(lines), entries };
}

/** `ip link add kube-ipvs0 type dummy` + one `ip addr add` per bound address. */
export function addressesText(state: IpvsState): string {
  return join([
    `ip link add ${DUMMY_DEVICE} type dummy`,
    ...[...state.boundAddresses].map((a) => addressLine('add', a)),
  ]);
}

/** LB VIP:port entries whose source ranges do not include the node (KUBE-IPVS-OUT-FILTER drops). */
export function lbNoNodeAccess(cfg: IpvsRulesConfig, input: IpvsRulesInput): NoNodeAccess[] {
  const out: NoNodeAccess[] = [];
  const nodeIP = input.node.ips?.[cfg.family];
  for (const key of [...input.servicePorts.keys()].sort()) {
    const svc = input.servicePorts.get(key)!;
    if (svc.loadBalancerSourceRanges.length === 0) continue;
    const allow = !!nodeIP && svc.loadBalancerSourceRanges.some((c) => cidrContains(c, nodeIP));
    if (!allow)
      for (const lb of svc.loadBalancerVIPs)
        out.push({ ip: lb, proto: svc.protocol.toLowerCase(), port: svc.port });
  }
  return out;
}

/** kube-proxy's writeIptablesRules + createAndLinkKubeChain, as (ip6)tables-restore input. */
export function iptablesText(
  cfg: IpvsRulesConfig,
  state: { readonly ipsets: ReadonlyMap<IPSetName, { readonly size: number }> },
  noNodeAccess: readonly NoNodeAccess[],
): string {
  const set = (n: IPSetName) => ipsetName(n, cfg.family);
  const nonEmpty = (n: IPSetName) => state.ipsets.get(n)!.size > 0;
  const comment = (n: IPSetName) => `"${IPSET_INFO.find((i) => i.name === n)!.comment}"`;
  const natChains = [
    '*nat',
    ...['KUBE-SERVICES', 'KUBE-POSTROUTING', 'KUBE-NODE-PORT', 'KUBE-LOAD-BALANCER', 'KUBE-MARK-MASQ'].map(
      (c) => `:${c} - [0:0]`,
    ),
  ];
  const filterChains = [
    '*filter',
    ...[
      'KUBE-FORWARD',
      'KUBE-NODE-PORT',
      'KUBE-PROXY-FIREWALL',
      'KUBE-SOURCE-RANGES-FIREWALL',
      'KUBE-IPVS-FILTER',
      'KUBE-IPVS-OUT-FILTER',
    ].map((c) => `:${c} - [0:0]`),
  ];
  const nat: string[] = [];
  const filter: string[] = [];
  const mark = `${cfg.mark}/${cfg.mark}`;

  // connections to localhost leave KUBE-SERVICES at once
  nat.push(`-A KUBE-SERVICES -s ${cfg.family === 'IPv6' ? '::1/128' : '127.0.0.0/8'} -j RETURN`);
  for (const s of IPSET_WITH_IPTABLES_CHAIN) {
    if (!nonEmpty(s.name)) continue;
    const line = `-A ${s.from}${s.protocol ? ` -p ${s.protocol}` : ''} -m comment --comment ${comment(s.name)} -m set --match-set ${set(s.name)} ${s.matchType} -j ${s.to}`;
    (s.table === 'filter' ? filter : nat).push(line);
  }
  if (nonEmpty('KUBE-CLUSTER-IP')) {
    const args = `-A KUBE-SERVICES -m comment --comment ${comment('KUBE-CLUSTER-IP')} -m set --match-set ${set('KUBE-CLUSTER-IP')}`;
    if (cfg.masqueradeAll) nat.push(`${args} dst,dst -j KUBE-MARK-MASQ`);
    else if (cfg.detector) nat.push(`${args} dst,dst ${cfg.detector.ifNotLocal.join(' ')} -j KUBE-MARK-MASQ`);
    else nat.push(`${args} src,dst -j KUBE-MARK-MASQ`);
  }
  const externalIPRules = (args: string) => {
    nat.push(`${args} -m physdev ! --physdev-is-in -m addrtype ! --src-type LOCAL -j ACCEPT`);
    nat.push(`${args} -m addrtype --dst-type LOCAL -j ACCEPT`);
  };
  if (nonEmpty('KUBE-EXTERNAL-IP')) {
    const args = `-A KUBE-SERVICES -m comment --comment ${comment('KUBE-EXTERNAL-IP')} -m set --match-set ${set('KUBE-EXTERNAL-IP')} dst,dst`;
    nat.push(`${args} -j KUBE-MARK-MASQ`);
    externalIPRules(args);
  }
  if (nonEmpty('KUBE-EXTERNAL-IP-LOCAL')) {
    externalIPRules(
      `-A KUBE-SERVICES -m comment --comment ${comment('KUBE-EXTERNAL-IP-LOCAL')} -m set --match-set ${set('KUBE-EXTERNAL-IP-LOCAL')} dst,dst`,
    );
  }
  nat.push('-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT');
  nat.push('-A KUBE-LOAD-BALANCER -j KUBE-MARK-MASQ');
  filter.push('-A KUBE-SOURCE-RANGES-FIREWALL -j DROP');
  for (const e of noNodeAccess) {
    filter.push(
      `-A KUBE-IPVS-OUT-FILTER -s ${e.ip} -m ipvs --vaddr ${e.ip} --vproto ${e.proto} --vport ${e.port} -j DROP`,
    );
  }
  for (const n of ['KUBE-CLUSTER-IP', 'KUBE-LOAD-BALANCER'] as const) {
    if (nonEmpty(n)) nat.push(`-A KUBE-SERVICES -m set --match-set ${set(n)} dst,dst -j ACCEPT`);
  }
  filter.push(
    `-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark ${mark} -j ACCEPT`,
  );
  filter.push(
    '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
  );
  filter.push(
    `-A KUBE-NODE-PORT -m comment --comment ${comment('KUBE-HEALTH-CHECK-NODE-PORT')} -m set --match-set ${set('KUBE-HEALTH-CHECK-NODE-PORT')} dst -j ACCEPT`,
  );
  for (const n of [
    'KUBE-LOAD-BALANCER',
    'KUBE-CLUSTER-IP',
    'KUBE-EXTERNAL-IP',
    'KUBE-EXTERNAL-IP-LOCAL',
  ] as const) {
    filter.push(`-A KUBE-IPVS-FILTER -m set --match-set ${set(n)} dst,dst -j RETURN`);
  }
  filter.push(`-A KUBE-IPVS-FILTER -m set --match-set ${set('KUBE-HEALTH-CHECK-NODE-PORT')} dst -j RETURN`);
  filter.push(
    `-A KUBE-IPVS-FILTER -m conntrack --ctstate NEW -m set --match-set ${set('KUBE-IPVS-IPS')} dst -j REJECT`,
  );
  nat.push(`-A KUBE-POSTROUTING -m mark ! --mark ${mark} -j RETURN`);
  nat.push(`-A KUBE-POSTROUTING -j MARK --xor-mark ${cfg.mark}`);
  nat.push(
    '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully',
  );
  nat.push(`-A KUBE-MARK-MASQ -j MARK --or-mark ${cfg.mark}`);
  return `${[...natChains, ...nat, 'COMMIT', ...filterChains, ...filter, 'COMMIT'].join('\n')}\n`;
}

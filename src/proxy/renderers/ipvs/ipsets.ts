/**
 * The ipsets kube-proxy's ipvs mode maintains (pkg/proxy/ipvs/ipset.go, proxier.go ipsetInfo and
 * ipsetWithIptablesChain), with their types, comments and the iptables rules that match them.
 * Sets are created as kube-proxy's ipset util does (pkg/proxy/ipvs/ipset/ipset.go createSet):
 * hash types get `family inet|inet6 hashsize 1024 maxelem 65536`, bitmap:port gets
 * `range 0-65535`. An IPv6 proxier's sets are named KUBE-6-… (ipset.go NewIPSet), cut to ipset's
 * 31 characters, so both families' sets can exist on one node.
 */
import type { IPFamily } from '../../model/index.js';

export type IPSetType = 'hash:ip' | 'hash:ip,port' | 'hash:ip,port,ip' | 'hash:ip,port,net' | 'bitmap:port';

export const IPSET_INFO = [
  {
    name: 'KUBE-LOOP-BACK',
    type: 'hash:ip,port,ip',
    comment: 'Kubernetes endpoints dst ip:port, source ip for solving hairpin purpose',
  },
  {
    name: 'KUBE-CLUSTER-IP',
    type: 'hash:ip,port',
    comment: 'Kubernetes service cluster ip + port for masquerade purpose',
  },
  {
    name: 'KUBE-EXTERNAL-IP',
    type: 'hash:ip,port',
    comment: 'Kubernetes service external ip + port for masquerade and filter purpose',
  },
  {
    name: 'KUBE-EXTERNAL-IP-LOCAL',
    type: 'hash:ip,port',
    comment: 'Kubernetes service external ip + port with externalTrafficPolicy=local',
  },
  { name: 'KUBE-LOAD-BALANCER', type: 'hash:ip,port', comment: 'Kubernetes service lb portal' },
  {
    name: 'KUBE-LOAD-BALANCER-FW',
    type: 'hash:ip,port',
    comment: 'Kubernetes service load balancer ip + port for load balancer with sourceRange',
  },
  {
    name: 'KUBE-LOAD-BALANCER-LOCAL',
    type: 'hash:ip,port',
    comment: 'Kubernetes service load balancer ip + port with externalTrafficPolicy=local',
  },
  {
    name: 'KUBE-LOAD-BALANCER-SOURCE-IP',
    type: 'hash:ip,port,ip',
    comment: 'Kubernetes service load balancer ip + port + source IP for packet filter purpose',
  },
  {
    name: 'KUBE-LOAD-BALANCER-SOURCE-CIDR',
    type: 'hash:ip,port,net',
    comment: 'Kubernetes service load balancer ip + port + source cidr for packet filter purpose',
  },
  {
    name: 'KUBE-NODE-PORT-TCP',
    type: 'bitmap:port',
    comment: 'Kubernetes nodeport TCP port for masquerade purpose',
  },
  {
    name: 'KUBE-NODE-PORT-LOCAL-TCP',
    type: 'bitmap:port',
    comment: 'Kubernetes nodeport TCP port with externalTrafficPolicy=local',
  },
  {
    name: 'KUBE-NODE-PORT-UDP',
    type: 'bitmap:port',
    comment: 'Kubernetes nodeport UDP port for masquerade purpose',
  },
  {
    name: 'KUBE-NODE-PORT-LOCAL-UDP',
    type: 'bitmap:port',
    comment: 'Kubernetes nodeport UDP port with externalTrafficPolicy=local',
  },
  {
    name: 'KUBE-NODE-PORT-SCTP-HASH',
    type: 'hash:ip,port',
    comment: "Kubernetes nodeport SCTP port for masquerade purpose with type 'hash ip:port'",
  },
  {
    name: 'KUBE-NODE-PORT-LOCAL-SCTP-HASH',
    type: 'hash:ip,port',
    comment: "Kubernetes nodeport SCTP port with externalTrafficPolicy=local with type 'hash ip:port'",
  },
  { name: 'KUBE-HEALTH-CHECK-NODE-PORT', type: 'bitmap:port', comment: 'Kubernetes health check node port' },
  { name: 'KUBE-IPVS-IPS', type: 'hash:ip', comment: 'Addresses on the ipvs interface' },
] as const satisfies readonly { name: string; type: IPSetType; comment: string }[];

export type IPSetName = (typeof IPSET_INFO)[number]['name'];

/** ipset's limit on set names */
const IPSET_NAME_MAX = 31;

/** The set's name on a proxier of `family`: "KUBE-…" for IPv4, "KUBE-6-…" (≤ 31 characters) for IPv6. */
export function ipsetName(name: IPSetName, family: IPFamily): string {
  if (family === 'IPv4') return name;
  return name.replace(/^KUBE-/, 'KUBE-6-').slice(0, IPSET_NAME_MAX);
}

/** `create NAME TYPE …` as kube-proxy's ipset util creates it. */
export function ipsetCreateLine(info: { name: string; type: IPSetType }, family: IPFamily = 'IPv4'): string {
  if (info.type === 'bitmap:port') return `create ${info.name} bitmap:port range 0-65535`;
  return `create ${info.name} ${info.type} family ${family === 'IPv6' ? 'inet6' : 'inet'} hashsize 1024 maxelem 65536`;
}

/**
 * `iptables -t <table> -A <from> [-p proto] -m set --match-set <name> <matchType> -j <to>`,
 * written only for non-empty sets. Order matters: the LOCAL node-port sets come before the
 * plain ones (their RETURN must win).
 */
export const IPSET_WITH_IPTABLES_CHAIN: readonly {
  name: IPSetName;
  table: 'nat' | 'filter';
  from: string;
  to: string;
  matchType: string;
  protocol?: string;
}[] = [
  {
    name: 'KUBE-LOOP-BACK',
    table: 'nat',
    from: 'KUBE-POSTROUTING',
    to: 'MASQUERADE',
    matchType: 'dst,dst,src',
  },
  {
    name: 'KUBE-LOAD-BALANCER',
    table: 'nat',
    from: 'KUBE-SERVICES',
    to: 'KUBE-LOAD-BALANCER',
    matchType: 'dst,dst',
  },
  {
    name: 'KUBE-LOAD-BALANCER-LOCAL',
    table: 'nat',
    from: 'KUBE-LOAD-BALANCER',
    to: 'RETURN',
    matchType: 'dst,dst',
  },
  {
    name: 'KUBE-NODE-PORT-LOCAL-TCP',
    table: 'nat',
    from: 'KUBE-NODE-PORT',
    to: 'RETURN',
    matchType: 'dst',
    protocol: 'tcp',
  },
  {
    name: 'KUBE-NODE-PORT-TCP',
    table: 'nat',
    from: 'KUBE-NODE-PORT',
    to: 'KUBE-MARK-MASQ',
    matchType: 'dst',
    protocol: 'tcp',
  },
  {
    name: 'KUBE-NODE-PORT-LOCAL-UDP',
    table: 'nat',
    from: 'KUBE-NODE-PORT',
    to: 'RETURN',
    matchType: 'dst',
    protocol: 'udp',
  },
  {
    name: 'KUBE-NODE-PORT-UDP',
    table: 'nat',
    from: 'KUBE-NODE-PORT',
    to: 'KUBE-MARK-MASQ',
    matchType: 'dst',
    protocol: 'udp',
  },
  {
    name: 'KUBE-NODE-PORT-LOCAL-SCTP-HASH',
    table: 'nat',
    from: 'KUBE-NODE-PORT',
    to: 'RETURN',
    matchType: 'dst,dst',
    protocol: 'sctp',
  },
  {
    name: 'KUBE-NODE-PORT-SCTP-HASH',
    table: 'nat',
    from: 'KUBE-NODE-PORT',
    to: 'KUBE-MARK-MASQ',
    matchType: 'dst,dst',
    protocol: 'sctp',
  },
  {
    name: 'KUBE-LOAD-BALANCER-FW',
    table: 'filter',
    from: 'KUBE-PROXY-FIREWALL',
    to: 'KUBE-SOURCE-RANGES-FIREWALL',
    matchType: 'dst,dst',
  },
  {
    name: 'KUBE-LOAD-BALANCER-SOURCE-CIDR',
    table: 'filter',
    from: 'KUBE-SOURCE-RANGES-FIREWALL',
    to: 'RETURN',
    matchType: 'dst,dst,src',
  },
  {
    name: 'KUBE-LOAD-BALANCER-SOURCE-IP',
    table: 'filter',
    from: 'KUBE-SOURCE-RANGES-FIREWALL',
    to: 'RETURN',
    matchType: 'dst,dst,src',
  },
];

/**
 * --nodeport-addresses: which of the node's addresses accept NodePort traffic, for one IP family
 * (pkg/proxy/util/nodeport_addresses.go `NewNodePortAddresses`, `GetNodeIPs`; the "primary"
 * value as cmd/kube-proxy/app/server.go expands it). Every mode uses it:
 *
 *   values                      IPv4 proxier                       IPv6 proxier
 *   (none)                      matchAll                           matchAll
 *   primary                     nodeIP/32                          nodeIP/128
 *   192.168.0.0/24, 2001:db8::/64   192.168.0.0/24                 2001:db8::/64
 *   10.0.0.0/8, 0.0.0.0/0       matchAll (a zero CIDR wins)        matchAll (no IPv6 CIDR given)
 *
 * Without matchAll, the NodePort addresses are the node's interface addresses inside one of the
 * CIDRs (`nodeIPsIn`). kubesim has no interfaces to list: the node's addresses are
 * `ProxyNode.localAddresses` (default: its node IPs) plus loopback, which every host has.
 */
import { canonicalIP, cidrContains, ipFamilyOf, parseCidr, type Cidr, type IPFamily } from './ip.js';
import type { ProxyNode } from './types.js';

/** The special --nodeport-addresses value for the node's primary IPs. */
export const NODEPORT_ADDRESSES_PRIMARY = 'primary';

export interface NodePortAddresses {
  readonly family: IPFamily;
  /** no CIDR of this family was given, or one of them is 0.0.0.0/0 / ::/0 */
  readonly matchAll: boolean;
  /** an IPv4 CIDR holds a loopback address (localhost NodePorts stay possible) */
  readonly containsIPv4Loopback: boolean;
  /** the CIDRs of this family (the zero CIDR alone when matchAll) */
  readonly cidrs: readonly Cidr[];
}

/** Go NewNodePortAddresses, with "primary" expanded to the node IP of the family. */
export function newNodePortAddresses(
  values: readonly string[] | undefined,
  family: IPFamily,
  node: ProxyNode,
): NodePortAddresses {
  const cidrs: Cidr[] = [];
  for (const v of values ?? []) {
    let text = v.trim();
    if (text === NODEPORT_ADDRESSES_PRIMARY) {
      const ip = node.ips?.[family];
      if (!ip || isLoopback(ip)) continue;
      text = family === 'IPv4' ? `${ip}/32` : `${ip}/128`;
    }
    const c = parseCidr(text);
    if (!c) throw new TypeError(`nodePortAddresses entry "${v}" is not a CIDR or "primary"`);
    if (c.family === family) cidrs.push(c);
  }
  if (cidrs.length === 0) cidrs.push(parseCidr(family === 'IPv4' ? '0.0.0.0/0' : '::/0')!);
  let containsIPv4Loopback = false;
  for (const c of cidrs) {
    if (c.family === 'IPv4' && (c.network[12] === 127 || cidrContains(c, '127.0.0.0')))
      containsIPv4Loopback = true;
    if (c.prefix === 0) return { family, matchAll: true, containsIPv4Loopback, cidrs: [c] };
  }
  return { family, matchAll: false, containsIPv4Loopback, cidrs };
}

/**
 * The node's addresses of the family, as kube-proxy lists its interfaces: localAddresses (or the
 * node IPs), then loopback. Canonical, without duplicates, in that order.
 */
export function nodeAddresses(node: ProxyNode, family: IPFamily): string[] {
  const out: string[] = [];
  const raw = [
    ...(node.localAddresses ?? Object.values(node.ips ?? {})),
    family === 'IPv4' ? '127.0.0.1' : '::1',
  ];
  for (const a of raw) {
    const ip = canonicalIP(a ?? '');
    if (ip && ipFamilyOf(ip) === family && !out.includes(ip)) out.push(ip);
  }
  return out;
}

/** Go GetNodeIPs: the node's addresses inside one of the CIDRs (loopback included when matched). */
export function nodeIPsIn(npa: NodePortAddresses, node: ProxyNode): string[] {
  return nodeAddresses(node, npa.family).filter((ip) => npa.cidrs.some((c) => cidrContains(c, ip)));
}

/** Go net.IP.IsLoopback: 127.0.0.0/8 or ::1. */
export function isLoopback(ip: string): boolean {
  const c = canonicalIP(ip);
  return c !== null && (c === '::1' || /^127\./.test(c));
}

/** IPv6 link-local unicast (fe80::/10), which ipvs never uses for NodePorts. */
export function isIPv6LinkLocal(ip: string): boolean {
  return cidrContains(parseCidr('fe80::/10')!, ip);
}

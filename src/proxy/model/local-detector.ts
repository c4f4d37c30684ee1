/**
 * How kube-proxy tells traffic from this node's pods apart from other traffic
 * (pkg/proxy/util/localdetector.go `LocalTrafficDetector`), in the match syntax of every mode:
 * iptables arguments (iptables mode and the iptables part of ipvs mode) and nft expressions.
 *
 *   --detect-local-mode=ClusterCIDR / NodeCIDR   source inside the CIDR of the proxier's family
 *        iptables: -s 10.0.0.0/8 · ! -s 10.0.0.0/8      nft: ip saddr 10.0.0.0/8 · ip saddr != 10.0.0.0/8
 *   --detect-local-mode=BridgeInterface          packets arriving on one interface
 *        iptables: -i cbr0 · ! -i cbr0                   nft: iifname cbr0 · iifname != cbr0
 *   --detect-local-mode=InterfaceNamePrefix      packets arriving on interfaces "prefix…"
 *        iptables: -i veth+ · ! -i veth+                 nft: iifname veth* · iifname != veth*
 *
 * `resolveLocalDetector` picks the detector of one family the way kube-proxy's server does
 * (cmd/kube-proxy/app/server_linux.go getLocalDetectors): a CIDR mode with no CIDR of the
 * proxier's family gives no detector (upstream's no-op detector), and then no rule uses one.
 */
import { parseCidr, type IPFamily } from './ip.js';

/** kube-proxy's --detect-local-mode values. */
export type DetectLocalMode = 'ClusterCIDR' | 'NodeCIDR' | 'BridgeInterface' | 'InterfaceNamePrefix';
export const DETECT_LOCAL_MODES: readonly DetectLocalMode[] = [
  'ClusterCIDR',
  'NodeCIDR',
  'BridgeInterface',
  'InterfaceNamePrefix',
];

export interface LocalTrafficDetector {
  /** iptables match arguments for "from a local pod", e.g. ["-s", "10.0.0.0/8"] */
  readonly ifLocal: readonly string[];
  /** iptables match arguments for "not from a local pod", e.g. ["!", "-s", "10.0.0.0/8"] */
  readonly ifNotLocal: readonly string[];
  /** nft expression for "from a local pod", e.g. "ip saddr 10.0.0.0/8" */
  readonly ifLocalNFT: string;
  /** nft expression for "not from a local pod", e.g. "ip saddr != 10.0.0.0/8" */
  readonly ifNotLocalNFT: string;
}

/** Go NewDetectLocalByCIDR (the CIDR is printed masked, as Go's IPNet.String()). */
export function detectLocalByCIDR(cidr: string): LocalTrafficDetector {
  const c = parseCidr(cidr);
  if (!c) throw new TypeError(`local-traffic CIDR "${cidr}" is not a CIDR`);
  const ipX = c.family === 'IPv6' ? 'ip6' : 'ip';
  return {
    ifLocal: ['-s', c.text],
    ifNotLocal: ['!', '-s', c.text],
    ifLocalNFT: `${ipX} saddr ${c.text}`,
    ifNotLocalNFT: `${ipX} saddr != ${c.text}`,
  };
}

/** Go NewDetectLocalByBridgeInterface. */
export function detectLocalByBridgeInterface(iface: string): LocalTrafficDetector {
  checkInterfaceName(iface, 'bridge interface');
  return {
    ifLocal: ['-i', iface],
    ifNotLocal: ['!', '-i', iface],
    ifLocalNFT: `iifname ${iface}`,
    ifNotLocalNFT: `iifname != ${iface}`,
  };
}

/** Go NewDetectLocalByInterfaceNamePrefix. */
export function detectLocalByInterfacePrefix(prefix: string): LocalTrafficDetector {
  checkInterfaceName(prefix, 'interface name prefix');
  return {
    ifLocal: ['-i', `${prefix}+`],
    ifNotLocal: ['!', '-i', `${prefix}+`],
    ifLocalNFT: `iifname ${prefix}*`,
    ifNotLocalNFT: `iifname != ${prefix}*`,
  };
}

// Linux interface names: 1-15 characters, no '/', whitespace or quotes (they end up unquoted in rules)
function checkInterfaceName(name: string, what: string): void {
  if (!/^[A-Za-z0-9_.:@-]{1,15}$/.test(name))
    throw new TypeError(`${what} "${name}" is not an interface name (1-15 of A-Z a-z 0-9 _ . : @ -)`);
}

/** What selects the detector: kube-proxy's detectLocalMode and the values each mode reads. */
export interface LocalDetectorConfig {
  /** --detect-local-mode (default ClusterCIDR, as kube-proxy) */
  detectLocalMode?: DetectLocalMode;
  /** --cluster-cidr: comma-separated, one CIDR per family (ClusterCIDR mode) */
  clusterCIDR?: string;
  /** the node's spec.podCIDRs (NodeCIDR mode) */
  nodePodCIDRs?: readonly string[];
  /** --pod-bridge-interface (BridgeInterface mode) */
  podBridgeInterface?: string;
  /** --pod-interface-name-prefix (InterfaceNamePrefix mode) */
  podInterfaceNamePrefix?: string;
  /** a detector given directly; overrides the rest (null: none) */
  localDetector?: LocalTrafficDetector | null;
}

/** The detector of one family, or null when kube-proxy would use its no-op detector. */
export function resolveLocalDetector(
  cfg: LocalDetectorConfig,
  family: IPFamily,
): LocalTrafficDetector | null {
  if (cfg.localDetector !== undefined) return cfg.localDetector;
  const mode = cfg.detectLocalMode ?? 'ClusterCIDR';
  switch (mode) {
    case 'ClusterCIDR':
      return cidrOfFamily(cfg.clusterCIDR?.split(',') ?? [], family, 'cluster CIDR');
    case 'NodeCIDR':
      return cidrOfFamily(cfg.nodePodCIDRs ?? [], family, 'node pod CIDR');
    case 'BridgeInterface':
      if (!cfg.podBridgeInterface)
        throw new TypeError('detect-local-mode BridgeInterface needs a bridge interface');
      return detectLocalByBridgeInterface(cfg.podBridgeInterface);
    case 'InterfaceNamePrefix':
      if (!cfg.podInterfaceNamePrefix)
        throw new TypeError('detect-local-mode InterfaceNamePrefix needs an interface name prefix');
      return detectLocalByInterfacePrefix(cfg.podInterfaceNamePrefix);
    default:
      throw new TypeError(
        `detect-local-mode "${String(mode)}" is not one of ${DETECT_LOCAL_MODES.join(', ')}`,
      );
  }
}

function cidrOfFamily(cidrs: readonly string[], family: IPFamily, what: string): LocalTrafficDetector | null {
  for (const part of cidrs) {
    if (part.trim() === '') continue;
    const c = parseCidr(part);
    if (!c) throw new TypeError(`${what} "${part.trim()}" is not a CIDR`);
    if (c.family === family) return detectLocalByCIDR(c.text);
  }
  return null;
}

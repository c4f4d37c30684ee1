/**
 * kube-proxy's iptables chain names (pkg/proxy/iptables/proxier.go portProtoHash,
 * servicePortEndpointChainName): SHA-256 of the text, standard base32 (RFC 4648, A–Z2–7,
 * upper case), first 16 characters, behind a prefix — because iptables chain names must be
 * ≤ 28 characters. Only the first 10 digest bytes feed those 16 characters, so we encode
 * just those.
 *
 *   KUBE-SVC-/SVL-/EXT-/FW- + hash("ns/name:port" + "tcp")          e.g. ns1/svc1:p80 tcp → XPGD46QRK7WJZT7O
 *   KUBE-SEP-               + hash("ns/name:port" + "tcp" + "ip:port")
 *
 * The protocol is lower-case, the endpoint is Go's Endpoint.String() ("10.180.0.1:80",
 * "[fd00::1]:80").
 */
import * as crypto from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

// crypto.hash (Node ≥ 20.12) with hex output is several times faster than createHash().digest()
// for short inputs; 100k endpoint chains make that matter.
const oneShot = (crypto as unknown as { hash?: (alg: string, data: string, enc: string) => string }).hash;
const d = new Uint8Array(10);

function digest10(text: string): Uint8Array {
  if (oneShot) {
    const hex = oneShot('sha256', text, 'hex');
    for (let i = 0; i < 10; i++)
      d[i] = (hexVal(hex.charCodeAt(2 * i)) << 4) | hexVal(hex.charCodeAt(2 * i + 1));
  } else {
    const full = crypto.createHash('sha256').update(text).digest();
    for (let i = 0; i < 10; i++) d[i] = full[i];
  }
  return d;
}

function hexVal(c: number): number {
  return c <= 57 ? c - 48 : c - 87; // '0'-'9', 'a'-'f'
}

/** First 16 base32 characters of SHA-256(text). */
export function hash16(text: string): string {
  const d = digest10(text);
  let out = '';
  // 10 bytes = 80 bits = 16 groups of 5 bits, two 40-bit blocks
  for (let block = 0; block < 2; block++) {
    const o = block * 5;
    // 40 bits do not fit in 32-bit ops; split into hi (8 bits) and lo (32 bits)
    const hi = d[o];
    const lo = ((d[o + 1] << 24) | (d[o + 2] << 16) | (d[o + 3] << 8) | d[o + 4]) >>> 0;
    out += ALPHABET[hi >>> 3];
    out += ALPHABET[((hi & 0x07) << 2) | (lo >>> 30)];
    out += ALPHABET[(lo >>> 25) & 31];
    out += ALPHABET[(lo >>> 20) & 31];
    out += ALPHABET[(lo >>> 15) & 31];
    out += ALPHABET[(lo >>> 10) & 31];
    out += ALPHABET[(lo >>> 5) & 31];
    out += ALPHABET[lo & 31];
  }
  return out;
}

/** Go portProtoHash(servicePortName, protocol): protocol lower-case ("tcp"). */
export function portProtoHash(servicePortName: string, protocol: string): string {
  return hash16(servicePortName + protocol);
}

export const SVC_PREFIX = 'KUBE-SVC-';
export const SVL_PREFIX = 'KUBE-SVL-';
export const FW_PREFIX = 'KUBE-FW-';
export const EXT_PREFIX = 'KUBE-EXT-';
export const SEP_PREFIX = 'KUBE-SEP-';

/** KUBE-SVC-…: the service's Cluster-policy chain. */
export function servicePortPolicyClusterChain(servicePortName: string, protocol: string): string {
  return SVC_PREFIX + portProtoHash(servicePortName, protocol);
}
/** KUBE-SVL-…: the service's Local-policy chain. */
export function servicePortPolicyLocalChain(servicePortName: string, protocol: string): string {
  return SVL_PREFIX + portProtoHash(servicePortName, protocol);
}
/** KUBE-FW-…: loadBalancerSourceRanges filtering. */
export function serviceFirewallChain(servicePortName: string, protocol: string): string {
  return FW_PREFIX + portProtoHash(servicePortName, protocol);
}
/** KUBE-EXT-…: external (NodePort / LB / externalIP) traffic. */
export function serviceExternalChain(servicePortName: string, protocol: string): string {
  return EXT_PREFIX + portProtoHash(servicePortName, protocol);
}
/** KUBE-SEP-…: one endpoint of one service port. */
export function servicePortEndpointChain(
  servicePortName: string,
  protocol: string,
  endpoint: string,
): string {
  return SEP_PREFIX + hash16(servicePortName + protocol + endpoint);
}

/** Go isServiceChainName: chains kube-proxy owns and may delete. */
export function isServiceChainName(chain: string): boolean {
  return (
    chain.startsWith(SVC_PREFIX) ||
    chain.startsWith(SVL_PREFIX) ||
    chain.startsWith(SEP_PREFIX) ||
    chain.startsWith(FW_PREFIX) ||
    chain.startsWith(EXT_PREFIX)
  );
}

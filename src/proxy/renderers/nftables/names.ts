/**
 * Chain and set names exactly as kube-proxy's nftables mode builds them
 * (pkg/proxy/nftables/proxier.go: hashAndTruncate, servicePortChainNameBase,
 * servicePortEndpointChainNameBase):
 *
 *   "ns1/svc1/tcp/p80"             → "ULMVA6XW-ns1/svc1/tcp/p80"
 *   "ns1/svc1/tcp/p80__10.180.0.1/80" → "5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80"
 *
 * The prefix is the first 8 characters of base32(sha256(name)) (RFC 4648 alphabet, as Go's
 * base32.StdEncoding); the chain prefix ("service-", "endpoint-", …) goes in front of that.
 */
import { createHash } from 'node:crypto';

/** knftables.NameLengthMax */
export const NFT_NAME_LENGTH_MAX = 256;
/** longest chain prefix kube-proxy uses, including its hyphen */
const CHAIN_NAME_PREFIX_LENGTH_MAX = 16;
const CHAIN_NAME_BASE_LENGTH_MAX = NFT_NAME_LENGTH_MAX - CHAIN_NAME_PREFIX_LENGTH_MAX;

export const SERVICE_CHAIN_PREFIX = 'service-';
export const LOCAL_CHAIN_PREFIX = 'local-';
export const EXTERNAL_CHAIN_PREFIX = 'external-';
export const ENDPOINT_CHAIN_PREFIX = 'endpoint-';
export const AFFINITY_SET_PREFIX = 'affinity-';
export const FIREWALL_CHAIN_PREFIX = 'firewall-';

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Go base32.StdEncoding of the first 5 bytes is all we need for 8 characters. */
function base32Prefix8(bytes: Uint8Array): string {
  // 5 bytes = 40 bits = exactly 8 base32 characters
  let bits = 0;
  let acc = 0;
  let out = '';
  for (let i = 0; i < 5; i++) {
    acc = (acc << 8) | bytes[i];
    bits += 8;
    while (bits >= 5) {
      out += B32[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

/** kube-proxy's hashAndTruncate: "HASH8-name", cut to 240 chars with "..." when longer. */
export function hashAndTruncate(name: string): string {
  return withHash(name, base32Prefix8(createHash('sha256').update(name, 'utf8').digest()));
}

/**
 * hashAndTruncate with the hash computed elsewhere: `hash8` is the first 8 base32 characters of
 * SHA-256(name) (the first 8 of the iptables hash16 — the same 40 bits), e.g. from the WASM kernel.
 */
export function withHash(name: string, hash8: string): string {
  let out = `${hash8}-${name}`;
  if (out.length > CHAIN_NAME_BASE_LENGTH_MAX) out = out.slice(0, CHAIN_NAME_BASE_LENGTH_MAX - 3) + '...';
  return out;
}

/** "HASH-namespace/name/protocol/portName" */
export function servicePortChainNameBase(
  namespace: string,
  name: string,
  protocol: string,
  portName: string,
): string {
  return hashAndTruncate(servicePortNameText(namespace, name, protocol, portName));
}

/** The text servicePortChainNameBase hashes: "namespace/name/protocol/portName". */
export function servicePortNameText(
  namespace: string,
  name: string,
  protocol: string,
  portName: string,
): string {
  return `${namespace}/${name}/${protocol}/${portName}`;
}

/** The text servicePortEndpointChainNameBase hashes (IPv6 colons become dots). */
export function endpointNameText(serviceText: string, endpointIP: string, endpointPort: number): string {
  const ip = endpointIP.includes(':') ? endpointIP.replaceAll(':', '.') : endpointIP;
  return `${serviceText}__${ip}/${endpointPort}`;
}

/** "HASH-namespace/name/protocol/portName__endpointIP/endpointPort" (IPv6 colons become dots) */
export function servicePortEndpointChainNameBase(
  namespace: string,
  name: string,
  protocol: string,
  portName: string,
  endpointIP: string,
  endpointPort: number,
): string {
  return hashAndTruncate(
    endpointNameText(servicePortNameText(namespace, name, protocol, portName), endpointIP, endpointPort),
  );
}

/** Service and endpoint chains always contain a "/", kube-proxy's own chains never do. */
export function isServiceChainName(chain: string): boolean {
  return chain.includes('/');
}

export function isAffinitySetName(set: string): boolean {
  return set.startsWith(AFFINITY_SET_PREFIX);
}

/**
 * The chain names of service ports and endpoints, computed once per ServicePortInfo /
 * EndpointInfo object (kube-proxy keeps them on its servicePortInfo and endpointInfo the same
 * way). A service port's four chains (KUBE-SVC/SVL/FW/EXT) share one hash of "ns/name:port"+proto;
 * each endpoint's KUBE-SEP chain hashes that text + "ip:port".
 *
 * `nameServicePort` hashes every name of a port not yet cached in one WebAssembly call
 * (names-wasm.ts); without it `chainsOf` / `sepChainOf` hash one name at a time with node:crypto
 * (names.ts), the reference the WASM kernel is tested against.
 */
import type { EndpointInfo, ServicePortInfo } from '../../model/index.js';
import {
  EXT_PREFIX,
  FW_PREFIX,
  portProtoHash,
  SEP_PREFIX,
  servicePortEndpointChain,
  SVC_PREFIX,
  SVL_PREFIX,
} from './names.js';
import { chainHasher } from './names-wasm.js';

/** Precomputed chain names of one service port (kube-proxy's servicePortInfo fields). */
export interface ServiceChains {
  cluster: string;
  local: string;
  firewall: string;
  external: string;
  protocol: string;
}

const svcChainCache = new WeakMap<ServicePortInfo, ServiceChains>();
const sepChainCache = new WeakMap<EndpointInfo, string>();

function serviceChains(protocol: string, hash: string): ServiceChains {
  return {
    protocol,
    cluster: SVC_PREFIX + hash,
    local: SVL_PREFIX + hash,
    firewall: FW_PREFIX + hash,
    external: EXT_PREFIX + hash,
  };
}

export function chainsOf(svc: ServicePortInfo): ServiceChains {
  let c = svcChainCache.get(svc);
  if (!c) {
    const protocol = svc.protocol.toLowerCase();
    c = serviceChains(protocol, portProtoHash(svc.nameString, protocol));
    svcChainCache.set(svc, c);
  }
  return c;
}

export function sepChainOf(svc: ServicePortInfo, protocol: string, ep: EndpointInfo): string {
  let c = sepChainCache.get(ep);
  if (!c) {
    c = servicePortEndpointChain(svc.nameString, protocol, ep.endpoint);
    sepChainCache.set(ep, c);
  }
  return c;
}

/** Names a service port and its endpoints not named yet, in one WASM call. */
export function nameServicePort(svc: ServicePortInfo, endpoints: readonly EndpointInfo[] | undefined): void {
  const protocol = svc.protocol.toLowerCase();
  const base = svc.nameString + protocol;
  const texts: string[] = [];
  const named = svcChainCache.has(svc);
  if (!named) texts.push(base);
  const eps: EndpointInfo[] = [];
  for (const ep of endpoints ?? [])
    if (!sepChainCache.has(ep)) {
      eps.push(ep);
      texts.push(base + ep.endpoint);
    }
  if (texts.length === 0) return;
  const hashes = chainHasher().hash16Many(texts);
  let i = 0;
  if (!named) svcChainCache.set(svc, serviceChains(protocol, hashes[i++]));
  for (const ep of eps) sepChainCache.set(ep, SEP_PREFIX + hashes[i++]);
}

/**
 * Renders a ProxyState with each mode's proxier and compiles the rendered text (not the model)
 * into a dataplane Program, so the classification exercises exactly what the proxier wrote.
 */
import type { ProxyNode, ProxyState } from '../model/index.js';
import { nodeAddresses } from '../model/index.js';
import { IptablesProxier } from '../renderers/iptables/proxier.js';
import { IpvsProxier, type IpvsScheduler } from '../renderers/ipvs/proxier.js';
import { NftablesProxier } from '../renderers/nftables/proxier.js';
import type { ProxierOptions, ProxyMode, ProxySyncResult } from '../renderers/types.js';
import { compileIptables } from './compile-iptables.js';
import { compileIpvs, parseIpsetRestore } from './compile-ipvs.js';
import { compileNftables, NftTable } from './compile-nftables.js';
import type { Program } from './program.js';

export type { ProxyMode };
export const PROXY_MODES: readonly ProxyMode[] = ['iptables', 'nftables', 'ipvs'];

export interface ModeCompileOptions extends ProxierOptions {
  serviceCIDRs?: readonly string[];
  scheduler?: IpvsScheduler;
}

/** A full sync of `mode` over the state (a new proxier), compiled. IPv4 only, as the dataplane. */
export function compileMode(
  mode: ProxyMode,
  state: ProxyState,
  opts: ModeCompileOptions = {},
): Program & { warnings: string[] } {
  if (mode === 'iptables') return compileSync(mode, new IptablesProxier(state, opts).sync(), state.node);
  if (mode === 'nftables') return compileSync(mode, new NftablesProxier(state, opts).sync(), state.node);
  if (mode === 'ipvs') return compileSync(mode, new IpvsProxier(state, opts).sync(), state.node);
  throw new Error(`unknown proxy mode "${String(mode)}" (expected ${PROXY_MODES.join(', ')})`);
}

/**
 * Compiles the texts of one full sync — the primary text and, for ipvs, its ipset and iptables
 * artifacts and the kube-ipvs0 addresses — for a proxier on `node`.
 */
export function compileSync(
  mode: ProxyMode,
  result: ProxySyncResult,
  node: ProxyNode,
): Program & { warnings: string[] } {
  // every address of the node is LOCAL (addrtype / fib daddr type local), loopback aside
  const localIPs = nodeAddresses(node, 'IPv4').filter((ip) => !ip.startsWith('127.'));
  if (result.kind !== 'full')
    throw new Error('the dataplane compiles a full sync (partial syncs need the kernel state)');
  if (mode === 'iptables') return compileIptables(result.text, { localIPs });
  if (mode === 'nftables') {
    const t = new NftTable();
    t.apply(result.text, 'nftables full sync');
    return compileNftables(t, { localIPs });
  }
  const artifact = (name: string) => {
    const a = result.artifacts.find((x) => x.name === name);
    if (!a) throw new Error(`ipvs sync result has no ${name} artifact`);
    return a.text;
  };
  const bound = [...artifact('kube-ipvs0.sh').matchAll(/^ip addr add (\S+)\/\d+ /gm)].map((m) => m[1]);
  return compileIpvs({
    ipvsadm: result.text,
    iptables: artifact('iptables.restore'),
    ipsets: parseIpsetRestore(artifact('ipset.restore')),
    localIPs: [...localIPs, ...bound],
  });
}

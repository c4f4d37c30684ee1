/**
 * Renders a ProxyState with each mode's renderer and compiles the rendered text (not the model)
 * into a dataplane Program, so the classification exercises exactly what the renderer wrote.
 */
import type { EndpointsMap, ProxyNode, ServicePortMap } from '../model/index.js';
import { renderIptables } from '../renderers/iptables/render.js';
import { NftablesProxier } from '../renderers/nftables/proxier.js';
import { IpvsProxier, type IpvsScheduler } from '../renderers/ipvs/proxier.js';
import { IPSET_INFO } from '../renderers/ipvs/ipsets.js';
import { compileIptables } from './compile-iptables.js';
import { NftTable, compileNftables } from './compile-nftables.js';
import { compileIpvs } from './compile-ipvs.js';
import type { Program } from './program.js';

export type ProxyMode = 'iptables' | 'nftables' | 'ipvs';
export const PROXY_MODES: readonly ProxyMode[] = ['iptables', 'nftables', 'ipvs'];

export interface ModeCompileOptions {
  clusterCIDR?: string;
  serviceCIDRs?: readonly string[];
  scheduler?: IpvsScheduler;
}

export interface ModelInput {
  servicePorts: ServicePortMap;
  endpoints: EndpointsMap;
  node: ProxyNode;
}

export function compileMode(
  mode: ProxyMode,
  m: ModelInput,
  opts: ModeCompileOptions = {},
): Program & { warnings: string[] } {
  const nodeIPs = m.node.ips?.IPv4 ? [m.node.ips.IPv4] : [];
  if (mode === 'iptables') {
    const r = renderIptables(
      { servicePorts: m.servicePorts, endpoints: m.endpoints, node: m.node },
      { clusterCIDR: opts.clusterCIDR },
    );
    return compileIptables(r.text, { localIPs: nodeIPs });
  }
  if (mode === 'nftables') {
    const r = new NftablesProxier({ clusterCIDR: opts.clusterCIDR, serviceCIDRs: opts.serviceCIDRs }).sync({
      ...m,
      now: 0,
    });
    const t = new NftTable();
    t.apply(r.script, 'nftables full sync');
    return compileNftables(t, { localIPs: nodeIPs });
  }
  if (mode === 'ipvs') {
    const r = new IpvsProxier({ clusterCIDR: opts.clusterCIDR, scheduler: opts.scheduler }).sync(m);
    const ipsets = new Map(
      [...r.state.ipsets].map(([name, entries]) => {
        return [name, { type: ipsetType(name), entries }] as const;
      }),
    );
    return compileIpvs({
      ipvsadm: r.ipvsadm,
      iptables: r.iptables,
      ipsets,
      localIPs: [...nodeIPs, ...r.state.boundAddresses],
    });
  }
  throw new Error(`unknown proxy mode "${String(mode)}" (expected ${PROXY_MODES.join(', ')})`);
}

function ipsetType(name: string): string {
  const i = IPSET_INFO.find((x) => x.name === name);
  if (!i) throw new Error(`unknown ipset ${name}`);
  return i.type;
}

/**
 * The ipvs mode for the renderer registry (`kubesim proxy render --mode ipvs`). The primary text
 * is the `ipvsadm -R` input; artifacts carry the `ipset restore` input, the iptables-restore
 * input and the kube-ipvs0 address commands. After the first sync, `delta` artifacts hold what
 * kube-proxy changes through netlink. Options (besides the common ones): scheduler (rr, wlc, sh,
 * …), nodeIPs (string[]), masqueradeBit, masqueradeMark.
 */
import type { ProxyState } from '../../model/tracker.js';
import type { ProxyRenderer, ProxyRenderOptions, ProxySyncer } from '../index.js';
import { IpvsProxier, type IpvsOptions } from './proxier.js';

export * from './proxier.js';
export * from './ipsets.js';

export const renderer: ProxyRenderer = {
  mode: 'ipvs',
  description:
    'kube-proxy --proxy-mode=ipvs: ipvsadm -R input, plus ipset restore, iptables-restore and kube-ipvs0 addresses',
  createSyncer(state: ProxyState, opts: ProxyRenderOptions): ProxySyncer {
    if ((opts.family ?? 'IPv4') !== 'IPv4')
      throw new Error('ipvs renderer: only the IPv4 family is implemented');
    const proxier = new IpvsProxier(opts as IpvsOptions);
    let first = true;
    return {
      sync() {
        state.applyChanges();
        const r = proxier.sync({
          servicePorts: state.servicePorts,
          endpoints: state.endpoints,
          node: state.node,
        });
        const kind = first ? 'full' : 'partial';
        first = false;
        const join = (l: string[]) => (l.length ? l.join('\n') + '\n' : '');
        return {
          kind,
          text: r.ipvsadm,
          artifacts: [
            { name: 'ipset.restore', text: r.ipset },
            { name: 'iptables.restore', text: r.iptables },
            { name: 'kube-ipvs0.sh', text: r.addresses },
            { name: 'delta.ipvsadm', text: join(r.delta.ipvsadm) },
            { name: 'delta.ipset', text: join(r.delta.ipset) },
            { name: 'delta.addresses', text: join(r.delta.addresses) },
          ],
          stats: {
            chains: r.stats.virtualServers,
            rules: r.stats.realServers,
            bytes:
              r.stats.bytes.ipvsadm + r.stats.bytes.ipset + r.stats.bytes.iptables + r.stats.bytes.addresses,
            ipsetEntries: r.stats.ipsetEntries,
            iptablesRules: r.stats.iptablesRules,
            boundAddresses: r.stats.boundAddresses,
            deltaVirtualServers: r.stats.deltaOps.virtualServers,
            deltaRealServers: r.stats.deltaOps.realServers,
            deltaIpsetEntries: r.stats.deltaOps.ipsetEntries,
            deltaAddresses: r.stats.deltaOps.addresses,
            deltaBytes: r.stats.deltaBytes,
          },
        };
      },
    };
  },
};

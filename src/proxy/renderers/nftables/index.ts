/**
 * The nftables mode for the renderer registry (`kubesim proxy render --mode nftables`).
 * Options (besides the common ones): serviceCIDRs (string[]), nodePortAddresses
 * ("primary" | "all" | string[]), masqueradeBit, masqueradeMark, now (() => ms, for the stale-chain delay).
 */
import type { ProxyState } from '../../model/tracker.js';
import type { ProxyRenderer, ProxyRenderOptions, ProxySyncer } from '../index.js';
import { NftablesProxier, type NftablesOptions } from './proxier.js';

export * from './proxier.js';
export * from './names.js';
export { NftTransaction, type TxStats } from './transaction.js';

export const renderer: ProxyRenderer = {
  mode: 'nftables',
  description:
    'kube-proxy --proxy-mode=nftables: the nft -f transaction for table ip kube-proxy (full, then partial syncs)',
  createSyncer(state: ProxyState, opts: ProxyRenderOptions): ProxySyncer {
    if ((opts.family ?? 'IPv4') !== 'IPv4')
      throw new Error('nftables renderer: only the IPv4 family is implemented');
    const proxier = new NftablesProxier(opts as NftablesOptions);
    const now = typeof opts.now === 'function' ? (opts.now as () => number) : Date.now;
    return {
      sync() {
        const changes = state.applyChanges();
        const r = proxier.sync({
          servicePorts: state.servicePorts,
          endpoints: state.endpoints,
          node: state.node,
          changes,
          now: now(),
        });
        const artifacts = r.staleScript ? [{ name: 'stale-chains.nft', text: r.staleScript }] : [];
        return {
          kind: r.full ? 'full' : 'partial',
          text: r.script,
          artifacts,
          stats: {
            chains: r.stats.chainsAdded,
            rules: r.stats.rules,
            bytes: r.stats.bytes,
            elements: r.stats.elements,
            lines: r.stats.lines,
            chainsFlushed: r.stats.chainsFlushed,
            chainsDeleted: r.stats.chainsDeleted + r.staleStats.chainsDeleted,
            servicePorts: r.servicePorts,
            servicePortsWritten: r.servicePortsWritten,
          },
        };
      },
    };
  },
};

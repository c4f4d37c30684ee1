/**
 * The nftables mode: the primary text is the `nft -f` transaction for `table ip kube-proxy`
 * (`ip6` for an IPv6 proxier); a `stale-chains.nft` artifact carries the deletions of chains that
 * went stale at least a second earlier, which kube-proxy runs first.
 */
import type { ProxyRenderer } from '../types.js';
import { type NftablesOptions, NftablesProxier } from './proxier.js';

export * from './names.js';
export * from './proxier.js';
export * from './rules.js';
export { NftTransaction, type TxStats } from './transaction.js';

export const renderer: ProxyRenderer = {
  mode: 'nftables',
  description:
    'kube-proxy --proxy-mode=nftables: the nft -f transaction for table ip|ip6 kube-proxy (full, then partial syncs)',
  options: ['serviceCIDRs'],
  createProxier: (state, opts) => new NftablesProxier(state, opts as NftablesOptions),
};

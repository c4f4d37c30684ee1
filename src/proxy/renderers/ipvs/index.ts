/**
 * The ipvs mode: the primary text is the `ipvsadm -R` input; artifacts carry the `ipset restore`
 * input, the iptables-restore input and the kube-ipvs0 address commands, and the `delta.*`
 * artifacts what kube-proxy changes through netlink since the previous sync.
 */
import type { ProxyRenderer } from '../types.js';
import { type IpvsOptions, IpvsProxier } from './proxier.js';

export * from './ipsets.js';
export * from './delta.js';
export * from './proxier.js';
export * from './rules.js';

export const renderer: ProxyRenderer = {
  mode: 'ipvs',
  description:
    'kube-proxy --proxy-mode=ipvs: ipvsadm -R input, plus ipset restore, iptables-restore and kube-ipvs0 addresses',
  options: ['scheduler'],
  createProxier: (state, opts) => new IpvsProxier(state, opts as IpvsOptions),
};

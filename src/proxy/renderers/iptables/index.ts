/**
 * The iptables mode: kube-proxy's iptables-restore input (rules.ts), its sync loop (proxier.ts),
 * chain names (names.ts) and the normaliser upstream's tests use (normalize.ts).
 */
import type { ProxyRenderer } from '../types.js';
import { IptablesProxier, type IptablesProxierOptions } from './proxier.js';

export * from './names.js';
export * from './normalize.js';
export { computeProbability } from './probability.js';
export * from './proxier.js';
export * from './rules.js';

export const renderer: ProxyRenderer = {
  mode: 'iptables',
  description: 'kube-proxy --proxy-mode=iptables: iptables-restore input (filter + nat tables)',
  options: [
    'localhostNodePorts',
    'randomFully',
    'nfacct',
    'conntrackTCPLiberal',
    'largeClusterEndpointsThreshold',
    'preferSameTrafficDistribution',
    'syncPeriodMs',
    'apply',
  ],
  createProxier: (state, opts) => new IptablesProxier(state, opts as IptablesProxierOptions),
};

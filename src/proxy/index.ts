/**
 * kube-proxy in kubesim: the service/endpoint model with change tracking (model/), the three
 * modes behind one Proxier interface (renderers/iptables, renderers/ipvs, renderers/nftables,
 * listed in renderers/index.ts) and the dataplane model that classifies packets through what a
 * mode rendered (dataplane/).
 */
export * from './model/index.js';
export * from './renderers/index.js';
export {
  IptablesProxier,
  renderIptables,
  sortIptablesRules,
  parseIptablesDump,
  formatIptablesDump,
  ruleComment,
  computeProbability,
  type IptablesOptions,
  type IptablesProxierOptions,
  type IptablesRenderInput,
  type IptablesRenderResult,
  type IptablesSyncResult,
} from './renderers/iptables/index.js';
export { IpvsProxier, type IpvsOptions, type IpvsSyncResult } from './renderers/ipvs/index.js';
export { NftablesProxier, type NftablesOptions, type NftSyncResult } from './renderers/nftables/index.js';
export {
  renderAllNodes,
  renderNode,
  type AllNodesCluster,
  type AllNodesOptions,
  type NodeRuleset,
  type NodeFamilyRuleset,
} from './all-nodes.js';

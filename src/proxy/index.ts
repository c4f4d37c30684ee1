/**
 * kube-proxy in kubesim: the service/endpoint model with change tracking (model/), the
 * iptables renderer and its sync loop (renderers/iptables, sync.ts), chain-name hashing
 * (hash.ts) and the registry through which ipvs and nftables plug in (renderers/index.ts).
 */
export * from './model/index.js';
export * from './hash.js';
export * from './sync.js';
export {
  renderIptables,
  detectLocalByCIDR,
  detectLocalByInterfacePrefix,
  masqueradeMarkFor,
  sortIptablesRules,
  parseIptablesDump,
  formatIptablesDump,
  ruleComment,
  computeProbability,
  type IptablesOptions,
  type IptablesRenderInput,
  type IptablesRenderResult,
  type LocalTrafficDetector,
} from './renderers/iptables/index.js';
export {
  loadRenderer,
  registerRenderer,
  availableModes,
  type ProxyRenderer,
  type ProxyRenderOptions,
  type ProxyRenderOutput,
  type ProxyRenderStats,
  type ProxySyncer,
} from './renderers/index.js';

/**
 * The iptables mode: kube-proxy's iptables-restore input (render.ts), its sync loop
 * (../../sync.ts) and the normaliser upstream's tests use (normalize.ts).
 */
import type { ProxyState } from '../../model/tracker.js';
import { IptablesSyncer, type IptablesSyncerOptions } from '../../sync.js';
import type { ProxyRenderer, ProxyRenderOptions, ProxySyncer } from '../index.js';

export * from './render.js';
export * from './normalize.js';
export { computeProbability } from './probability.js';

/** Options of the iptables mode as the registry passes them (IptablesOptions + common ones). */
export type IptablesModeOptions = ProxyRenderOptions & IptablesSyncerOptions;

export const renderer: ProxyRenderer = {
  mode: 'iptables',
  description: 'kube-proxy --proxy-mode=iptables: iptables-restore input (filter + nat tables)',
  createSyncer(state: ProxyState, opts: ProxyRenderOptions): ProxySyncer {
    const syncer = new IptablesSyncer(state.node, opts as IptablesSyncerOptions, state);
    return {
      sync() {
        const r = syncer.sync();
        return {
          kind: r.kind,
          text: r.text,
          stats: {
            chains: r.chainsWritten,
            rules: r.rulesWritten,
            bytes: r.bytes,
            lines: r.lines,
            filterRules: r.render.filterRules,
            natRules: r.render.natRules - r.render.deletedChains,
            natChains: r.render.natChains,
            deletedChains: r.deletedChains,
            updatedServices: r.updatedServices,
            rulesTotalFilter: r.rulesTotal.filter,
            rulesTotalNat: r.rulesTotal.nat,
            largeClusterMode: r.largeClusterMode ? 1 : 0,
            renderMs: Math.round(r.renderMs * 100) / 100,
            renderCpuMs: Math.round(r.renderCpuMs * 100) / 100,
          },
        };
      },
    };
  },
};

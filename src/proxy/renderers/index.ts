/**
 * The kube-proxy modes kubesim renders, listed explicitly (`kubesim proxy render --mode …`). Each
 * entry loads its mode on first use, so a command that renders iptables never loads nftables.
 *
 * ```ts
 * const r = await loadRenderer('nftables');
 * const p = r.createProxier(state, { clusterCIDR: '10.0.0.0/8' });
 * const out = p.sync();  // full first, partial after state changes
 * ```
 */
import type { ProxyMode, ProxyRenderer } from './types.js';

export * from './types.js';

const MODES: Record<ProxyMode, () => Promise<{ renderer: ProxyRenderer }>> = {
  iptables: () => import('./iptables/index.js'),
  ipvs: () => import('./ipvs/index.js'),
  nftables: () => import('./nftables/index.js'),
};

/** The modes, sorted. */
export function availableModes(): ProxyMode[] {
  return (Object.keys(MODES) as ProxyMode[]).sort();
}

export function isProxyMode(mode: string): mode is ProxyMode {
  return Object.hasOwn(MODES, mode);
}

/** The renderer of `mode`. */
export async function loadRenderer(mode: string): Promise<ProxyRenderer> {
  if (!isProxyMode(mode))
    throw new Error(`unknown proxy mode "${mode}" (available: ${availableModes().join(', ')})`);
  return (await MODES[mode]()).renderer;
}
export * from './meta.js';

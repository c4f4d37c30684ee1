/**
 * Registry of kube-proxy mode renderers (iptables, ipvs, nftables) behind `kubesim proxy render`.
 *
 * A renderer turns one node's ProxyState (src/proxy/model) into the text the real tool loads,
 * sync after sync. Modes are discovered by convention so that adding one never edits this
 * file: `src/proxy/renderers/<mode>/index.ts` exports `renderer: ProxyRenderer`
 * (or calls `registerRenderer`). `loadRenderer(mode)` imports it on first use.
 *
 * ```ts
 * const r = await loadRenderer('iptables');
 * const syncer = r.createSyncer(state, { clusterCIDR: '10.0.0.0/8' });
 * const out = syncer.sync();  // full first, partial after state changes
 * ```
 */
import { readdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { IPFamily } from '../model/index.js';
import type { ProxyState } from '../model/tracker.js';

/** Options every mode understands; modes may read more (documented by each mode). */
export interface ProxyRenderOptions {
  family?: IPFamily;
  /** --cluster-cidr: pod traffic detection for masquerading */
  clusterCIDR?: string;
  /** --masquerade-all */
  masqueradeAll?: boolean;
  /** mode-specific settings */
  [option: string]: unknown;
}

/** Size of what one sync wrote. */
export interface ProxyRenderStats {
  /** chains (iptables/nftables) or virtual servers (ipvs) written */
  chains: number;
  /** rules / elements / real servers written */
  rules: number;
  /** bytes of the primary text */
  bytes: number;
  /** further counts, mode-specific */
  [metric: string]: number;
}

/** One sync's output. */
export interface ProxyRenderOutput {
  kind: 'full' | 'partial';
  /** the primary text (iptables-restore input, nft -f script, ipvsadm -R input) */
  text: string;
  /** further texts the mode needs (e.g. ipvs: ipset restore, iptables rules) */
  artifacts?: { name: string; text: string }[];
  stats: ProxyRenderStats;
}

/** A mode's syncer over one ProxyState: call sync() after feeding events into the state. */
export interface ProxySyncer {
  sync(): ProxyRenderOutput;
}

export interface ProxyRenderer {
  /** "iptables" | "ipvs" | "nftables" */
  readonly mode: string;
  /** one line for --help */
  readonly description: string;
  createSyncer(state: ProxyState, opts: ProxyRenderOptions): ProxySyncer;
}

const registry = new Map<string, ProxyRenderer>();
const here = dirname(fileURLToPath(import.meta.url));
const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/** Adds (or replaces) a renderer. */
export function registerRenderer(r: ProxyRenderer): void {
  registry.set(r.mode, r);
}

/** Modes present on disk (directories with an index module), sorted. */
export function availableModes(): string[] {
  const out = new Set(registry.keys());
  for (const d of readdirSync(here, { withFileTypes: true })) {
    if (d.isDirectory() && existsSync(join(here, d.name, `index${ext}`))) out.add(d.name);
  }
  return [...out].sort();
}

/** The renderer of `mode`, importing src/proxy/renderers/<mode>/index on first use. */
export async function loadRenderer(mode: string): Promise<ProxyRenderer> {
  const have = registry.get(mode);
  if (have) return have;
  if (!/^[a-z0-9-]+$/.test(mode)) throw new Error(`unknown proxy mode "${mode}"`);
  const file = join(here, mode, `index${ext}`);
  if (!existsSync(file)) {
    throw new Error(`unknown proxy mode "${mode}" (available: ${availableModes().join(', ') || 'none'})`);
  }
  const mod = (await import(pathToFileURL(file).href)) as { renderer?: ProxyRenderer };
  if (mod.renderer) registerRenderer(mod.renderer);
  const r = registry.get(mode);
  if (!r) throw new Error(`proxy mode "${mode}": ${mode}/index${ext} exports no \`renderer\``);
  return r;
}

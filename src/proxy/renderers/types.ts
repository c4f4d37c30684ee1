/**
 * The contract every kube-proxy mode implements (iptables, ipvs, nftables): one `Proxier` per
 * node and IP family, driven the same way kube-proxy drives its proxiers.
 *
 *   const state = new ProxyState(node, 'IPv4');        // watch events go into the state
 *   const p = new NftablesProxier(state, { clusterCIDR: '10.0.0.0/8' });
 *   state.onServiceAdd(svc); state.onEndpointSliceAdd(slice);
 *   p.sync();                                          // syncProxyRules: full the first time
 *   state.onEndpointSliceUpdate(old, slice);
 *   p.sync();                                          // partial (or a netlink delta for ipvs)
 *
 * `sync()` merges the state's pending changes (as syncProxyRules starts with
 * svcPortMap.Update / endpointsMap.Update), renders, and keeps what the simulated kernel holds
 * for the next sync. The IP family is the state's. Each mode lives in `renderers/<mode>/` with
 * the same files: `index.ts` (its registry entry), `proxier.ts` (the sync loop and kernel
 * state), `rules.ts` (the text of one sync); `test/proxy/conformance.ts` is the suite all pass.
 */
import type { Clock } from '../../util/clock.js';
import type { IPFamily, LocalDetectorConfig, ProxyState } from '../model/index.js';

export type ProxyMode = 'iptables' | 'ipvs' | 'nftables';

/** Settings every mode reads (kube-proxy flags / KubeProxyConfiguration fields). */
export interface ProxierOptions extends LocalDetectorConfig {
  /** --masquerade-all: SNAT all traffic sent to cluster IPs */
  masqueradeAll?: boolean;
  /** --iptables-masquerade-bit (default 14) */
  masqueradeBit?: number;
  /**
   * the mark as written into the rules; default Go's `%#08x` of 1<<masqueradeBit
   * ("0x00004000"). Upstream unit tests use "0x4000".
   */
  masqueradeMark?: string;
  /**
   * --nodeport-addresses: CIDRs of either family and/or "primary" (model/nodeport-addresses.ts);
   * default: every node address for iptables and ipvs, "primary" for nftables, as kube-proxy.
   */
  nodePortAddresses?: readonly string[];
  /** time source for full-sync periods and delayed deletions (default the wall clock) */
  clock?: Clock;
  /**
   * Write each sync's primary text here as it is rendered instead of keeping it (a full render of
   * a large cluster, `proxy render`): the result's `text` and `chunks()` are then unavailable.
   * iptables and nftables; needs `incremental: false` (the incremental renderers keep per-port
   * fragments, the very memory streaming saves).
   */
  stream?: (chunk: Uint8Array) => void;
  /**
   * This proxier syncs once and never again (`proxy render`, each node of `--all-nodes`): it keeps
   * none of the state a later sync would diff against. nftables honors it (no record of every
   * chain and map element: ~100 MB at 100k Services × 10 endpoints), iptables too (no set of
   * every nat chain written: the names of the chains its port kernel writes are never built as
   * strings), and both then refuse a second sync; ipvs ignores it. Needs `incremental: false`.
   */
  oneSync?: boolean;
}

/** Refuses `stream` or `oneSync` with an incremental proxier (see {@link ProxierOptions.stream}). */
export function checkStream(
  mode: string,
  opts: { stream?: unknown; oneSync?: boolean; incremental?: boolean },
): void {
  if (opts.stream && opts.incremental !== false)
    throw new TypeError(`${mode}: options.stream needs options.incremental: false`);
  if (opts.oneSync && opts.incremental !== false)
    throw new TypeError(`${mode}: options.oneSync needs options.incremental: false`);
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

/** A further text a sync produces (ipvs: ipset restore input; nftables: stale-chain deletions). */
export interface ProxyArtifact {
  readonly name: string;
  /** the text (unavailable when the artifact is only readable as chunks) */
  readonly text: string;
  /**
   * the text as bytes, in order, where it is too large to hold (ipvs' delta.ipvsadm of a streamed
   * sync, replayed from a temporary file): read it this way when present, once
   */
  chunks?(): Iterable<Uint8Array>;
}

/** What every mode's sync returns; modes add their own detail fields. */
export interface ProxySyncResult {
  readonly kind: 'full' | 'partial';
  /** the primary text: iptables-restore input, nft -f script, ipvsadm -R input */
  readonly text: string;
  /**
   * the primary text as bytes, in order, where the mode keeps it so: write these for a large
   * ruleset (100,000 services of nftables are longer than V8's longest string)
   */
  chunks?(): readonly Uint8Array[];
  readonly artifacts: readonly ProxyArtifact[];
  readonly stats: ProxyRenderStats;
}

/** One node's proxier of one mode and family. */
export interface Proxier<R extends ProxySyncResult = ProxySyncResult> {
  readonly mode: ProxyMode;
  readonly state: ProxyState;
  readonly family: IPFamily;
  /** One syncProxyRules: merge the state's pending changes, render, update the kernel view. */
  sync(): R;
  /** The next sync is a full one (kube-proxy after a failed sync or an iptables flush). */
  forceFullSync(): void;
  /** The node's labels changed (OnNodeUpdate): new topology labels, and the next sync is full. */
  onTopologyChange(labels: Readonly<Record<string, string>>): void;
}

/** A mode as the registry lists it. */
export interface ProxyRenderer {
  readonly mode: ProxyMode;
  /** one line for --help */
  readonly description: string;
  /** options this mode reads besides ProxierOptions, for the CLI's warnings */
  readonly options: readonly string[];
  createProxier(state: ProxyState, opts?: ProxierOptions & Record<string, unknown>): Proxier;
}

/** Go `fmt.Sprintf("%#08x", 1<<bit)`: zero-padded to 8 digits after "0x". */
export function masqueradeMarkFor(bit: number): string {
  if (!Number.isInteger(bit) || bit < 0 || bit > 31)
    throw new TypeError(`masqueradeBit must be an integer 0-31, got ${String(bit)}`);
  return `0x${(2 ** bit).toString(16).padStart(8, '0')}`;
}

/** The mark a proxier writes: masqueradeMark as given, else the one of masqueradeBit (default 14). */
export function masqueradeMarkOf(opts: ProxierOptions): string {
  if (opts.masqueradeMark !== undefined) {
    if (!/^0x[0-9a-fA-F]{1,8}$/.test(opts.masqueradeMark))
      throw new TypeError(`masqueradeMark must be a hex number like 0x4000, got "${opts.masqueradeMark}"`);
    return opts.masqueradeMark;
  }
  return masqueradeMarkFor(opts.masqueradeBit ?? 14);
}

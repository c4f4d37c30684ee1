/**
 * kube-proxy's ipvs mode (kubernetes/kubernetes pkg/proxy/ipvs/proxier.go) as a Proxier. Each
 * `sync()` recomputes the desired state (ipvs mode has no partial sync; rules.ts) and returns it
 * in the forms the real tools read — `ipvsadm -R` input as the primary text; `ipset restore`,
 * `iptables-restore --noflush` input and the kube-ipvs0 address commands as artifacts — and,
 * against the previous sync, the delta kube-proxy applies through netlink: virtual servers
 * added/edited/deleted, real servers added/deleted, ipset entries added/deleted, addresses
 * bound/unbound. An endpoint change touches O(1) real servers per virtual server of its service
 * (ClusterIP, each external IP, each LB IP, each node IP for NodePorts); the iptables part is
 * rewritten whole on every sync but does not grow with the number of services.
 *
 * Simplifications (docs/proxy-ipvs-nftables.md): real servers are deleted at once (kube-proxy
 * first sets weight 0 and deletes them after connections drain, graceful_termination.go).
 */
import type { IPFamily, ProxyState } from '../../model/index.js';
import { resolveLocalDetector } from '../../model/index.js';
import {
  checkStream,
  masqueradeMarkOf,
  type Proxier,
  type ProxierOptions,
  type ProxyArtifact,
  type ProxyRenderStats,
} from '../types.js';
import { diffStates, type IpvsDelta } from './delta.js';
import { IpvsIndex } from './incremental.js';
import { type StreamedSync, streamedResult, streamedText, streamFullSync } from './stream.js';
import {
  addressesText,
  desiredState,
  type IpvsRulesConfig,
  type IpvsState,
  ipsetText,
  iptablesText,
  ipvsadmText,
  lbNoNodeAccess,
  portContext,
  portState,
} from './rules.js';

export type IpvsScheduler = 'rr' | 'wrr' | 'lc' | 'wlc' | 'sh' | 'dh' | 'sed' | 'nq' | 'mh';
const SCHEDULERS: readonly string[] = ['rr', 'wrr', 'lc', 'wlc', 'sh', 'dh', 'sed', 'nq', 'mh'];

export interface IpvsOptions extends Omit<ProxierOptions, 'clock'> {
  /** --ipvs-scheduler (default rr) */
  scheduler?: IpvsScheduler;
  /**
   * false: every sync computes the whole state and diffs it (the reference the incremental sync is
   * tested against); default true: only the changed Services' ports (incremental.ts)
   */
  incremental?: boolean;
}

import type { IpvsCounts, IpvsSyncResult } from './result.js';

export type { IpvsCounts, IpvsSyncResult };

export class IpvsProxier implements Proxier<IpvsSyncResult> {
  readonly mode = 'ipvs' as const;
  private readonly cfg: IpvsRulesConfig;
  /** the previous sync's state (reference mode) */
  private prev: IpvsState | null = null;
  /** per-port state of the incremental sync (incremental.ts); null: every sync computes the whole state */
  private readonly index: IpvsIndex | null;
  /** the next sync forgets the kernel (first sync, forceFullSync) */
  private full = true;
  private version = 0;
  /** the last iptables input and what it was rendered from (incremental mode) */
  private iptablesCache: { key: string; text: string } | undefined;
  /** a streamed sync ran and kept no state: the next sync must start from nothing (forceFullSync) */
  private streamed: StreamedSync | null = null;

  constructor(
    readonly state: ProxyState,
    readonly options: IpvsOptions = {},
  ) {
    const scheduler = options.scheduler ?? 'rr';
    if (!SCHEDULERS.includes(scheduler))
      throw new TypeError(
        `IpvsProxier: options.scheduler "${scheduler}" is not an IPVS scheduler (${SCHEDULERS.join(', ')})`,
      );
    this.cfg = {
      family: state.family,
      scheduler,
      masqueradeAll: !!options.masqueradeAll,
      mark: masqueradeMarkOf(options),
      detector: resolveLocalDetector({ nodePodCIDRs: state.node.podCIDRs, ...options }, state.family),
      nodePortAddresses: options.nodePortAddresses,
    };
    checkStream('IpvsProxier', options);
    this.index = options.incremental === false ? null : new IpvsIndex(state.family);
  }

  get family(): IPFamily {
    return this.state.family;
  }

  /** The state of the previous sync (null before the first). */
  get lastState(): IpvsState | null {
    if (!this.index) return this.prev;
    return this.version === 0 || this.full ? null : this.index.materialize();
  }

  /** ipvs mode rewrites everything each sync; forgetting the kernel makes the next delta complete. */
  forceFullSync(): void {
    this.prev = null;
    this.full = true;
    this.dropStreamed();
  }

  private dropStreamed(): void {
    this.streamed?.spill.close();
    this.streamed = null;
  }

  onTopologyChange(labels: Readonly<Record<string, string>>): void {
    this.state.setTopologyLabels(labels);
  }

  sync(): IpvsSyncResult {
    const changes = this.state.applyChanges();
    const full = this.index ? this.full : this.prev === null;
    const kind = full ? 'full' : 'partial';
    const stream = this.options.stream;
    if (stream) {
      if (this.streamed)
        throw new Error(
          'IpvsProxier: a streamed sync keeps no state to diff against; call forceFullSync() before the next sync',
        );
      const input = {
        servicePorts: this.state.servicePorts,
        endpoints: this.state.endpoints,
        node: this.state.node,
      };
      const s = streamFullSync(portContext(this.cfg, this.state.node), input, stream);
      if (s) {
        this.streamed = s;
        return streamedResult(this.cfg, s);
      }
      // two ports share a virtual server: rendered held, then written
    }
    if (!this.index) {
      const input = {
        servicePorts: this.state.servicePorts,
        endpoints: this.state.endpoints,
        node: this.state.node,
      };
      const desired = desiredState(this.cfg, input);
      const delta = diffStates(this.prev, desired);
      this.prev = desired;
      const iptables = iptablesText(this.cfg, desired, lbNoNodeAccess(this.cfg, input));
      return this.result(kind, delta, () => desired, iptables, null, stream);
    }

    const index = this.index;
    const pc = portContext(this.cfg, this.state.node);
    const stateOf = (key: string) => {
      const svc = this.state.servicePorts.get(key);
      return svc && portState(pc, key, svc, this.state.endpoints.get(key));
    };
    let delta: IpvsDelta;
    if (this.full) {
      index.clear();
      for (const key of [...this.state.servicePorts.keys()]) index.replace(key, stateOf(key));
      delta = diffStates(null, index.materialize());
      this.full = false;
    } else {
      const keys = index.ports.portsOf(changes.updatedServices, (s) => this.state.servicePortKeys(s));
      const next = keys.map(stateOf);
      if (index.wouldShare(keys, next)) {
        // two ports create one virtual server: which one wins depends on the whole walk
        const before = index.materialize();
        keys.forEach((k, i) => index.replace(k, next[i]));
        delta = diffStates(before, index.materialize());
      } else delta = index.replaceAll(keys, next);
    }
    // the full state and texts are folded from the ports when read; a later sync changes the ports
    const version = ++this.version;
    let desired: IpvsState | undefined;
    const materialize = () => {
      if (this.version !== version)
        throw new Error(
          `IpvsProxier: the full state of sync ${version} is computed when first read and must be read before the next sync (sync ${this.version} has run)`,
        );
      desired ??= index.materialize();
      return desired!;
    };
    // the iptables input depends on which sets are empty and on the output filters only: it is
    // rewritten every sync (as kube-proxy does) but rendered again only when one of those changed
    const nonEmpty = [...index.ipsets.values()].map((m) => (m.size > 0 ? 1 : 0)).join('');
    const cacheKey = `${index.filterVersion}/${nonEmpty}`;
    if (this.iptablesCache?.key !== cacheKey)
      this.iptablesCache = { key: cacheKey, text: iptablesText(this.cfg, index, index.noNodeAccess()) };
    return this.result(kind, delta, materialize, this.iptablesCache.text, index);
  }

  /** The sync's result: the delta and iptables text now, the full texts and counts when read. */
  private result(
    kind: 'full' | 'partial',
    delta: IpvsDelta,
    desired: () => IpvsState,
    iptables: string,
    index: IpvsIndex | null,
    stream?: (chunk: Uint8Array) => void,
  ): IpvsSyncResult {
    const deltaBytes =
      [...delta.ipvsadm, ...delta.ipset, ...delta.addresses].reduce((n, l) => n + l.length + 1, 0) +
      iptables.length;
    const countOps = (lines: string[], re: RegExp) => lines.filter((l) => re.test(l)).length;
    let ipvs: { text: string; realServers: number } | undefined;
    let ipset: { text: string; entries: number } | undefined;
    let addresses: string | undefined;
    const ipvsText = () => (ipvs ??= ipvsadmText(desired()));
    const ipsetFull = () => (ipset ??= ipsetText(desired()));
    const addressText = () => (addresses ??= addressesText(desired()));
    const d = index?.counts();
    const shared = index ? index.sharedVirtualServers > 0 : true;
    const counts: IpvsCounts = {
      virtualServers: d?.virtualServers ?? desired().virtualServers.size,
      get realServers() {
        return d && !shared ? d.realServers : ipvsText().realServers;
      },
      ipsetEntries: d?.ipsetEntries ?? ipsetFull().entries,
      iptablesRules: iptablesRuleCount(iptables),
      boundAddresses: d?.boundAddresses ?? desired().boundAddresses.size,
      get bytes() {
        return {
          ipvsadm: ipvsText().text.length,
          ipset: ipsetFull().text.length,
          iptables: iptables.length,
          addresses: addressText().length,
        };
      },
      deltaOps: {
        virtualServers: countOps(delta.ipvsadm, /^-[AED] /),
        realServers: countOps(delta.ipvsadm, /^-[aed] /),
        ipsetEntries: delta.ipset.length,
        addresses: delta.addresses.length,
      },
      deltaBytes,
    };
    const lines = (l: string[]) => (l.length ? `${l.join('\n')}\n` : '');
    if (stream) stream(Buffer.from(ipvsText().text, 'latin1'));
    const artifacts: ProxyArtifact[] = [
      {
        name: 'ipset.restore',
        get text() {
          return ipsetFull().text;
        },
      },
      { name: this.family === 'IPv6' ? 'ip6tables.restore' : 'iptables.restore', text: iptables },
      {
        name: 'kube-ipvs0.sh',
        get text() {
          return addressText();
        },
      },
      { name: 'delta.ipvsadm', text: lines(delta.ipvsadm) },
      { name: 'delta.ipset', text: lines(delta.ipset) },
      { name: 'delta.addresses', text: lines(delta.addresses) },
    ];
    return {
      kind,
      get text() {
        if (stream) throw streamedText();
        return ipvsText().text;
      },
      // streamed: written out, none kept
      ...(stream ? { chunks: () => [] } : {}),
      artifacts,
      get stats(): ProxyRenderStats {
        const b = counts.bytes;
        return {
          chains: counts.virtualServers,
          rules: counts.realServers,
          bytes: b.ipvsadm + b.ipset + b.iptables + b.addresses,
          ipsetEntries: counts.ipsetEntries,
          iptablesRules: counts.iptablesRules,
          boundAddresses: counts.boundAddresses,
          deltaVirtualServers: counts.deltaOps.virtualServers,
          deltaRealServers: counts.deltaOps.realServers,
          deltaIpsetEntries: counts.deltaOps.ipsetEntries,
          deltaAddresses: counts.deltaOps.addresses,
          deltaBytes,
        };
      },
      get ipvsadm() {
        if (stream) throw streamedText();
        return ipvsText().text;
      },
      get ipset() {
        return ipsetFull().text;
      },
      iptables,
      get addresses() {
        return addressText();
      },
      delta,
      counts,
      get desired() {
        return desired();
      },
    };
  }
}

let lastCount: { text: string; n: number } | undefined;
/** `-A` lines of an iptables input; counted once for the cached text handed out sync after sync */
function iptablesRuleCount(text: string): number {
  if (lastCount?.text !== text)
    lastCount = { text, n: text.split('\n').filter((l) => l.startsWith('-A ')).length };
  return lastCount.n;
}

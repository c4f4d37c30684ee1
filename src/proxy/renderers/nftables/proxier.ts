/**
 * kube-proxy's nftables mode (kubernetes/kubernetes pkg/proxy/nftables/proxier.go) as a Proxier:
 * each `sync()` produces the `nft -f` transaction kube-proxy would run, and keeps the state
 * kube-proxy keeps between syncs, so that partial syncs write only what changed:
 *
 *   full sync (first sync, or after `forceFullSync()` / a topology change):
 *     table, base chains (flushed), jump rules, helper chains/sets/maps, every container flushed,
 *     then every service's chains, rules and map elements.
 *   partial sync:
 *     only chains of the changed Services are re-created (add + flush + rules); map elements are
 *     diffed against what the kernel already holds (elements.ts); chains that are no longer used
 *     are flushed now and deleted by a later sync at least 1 s after (kernels before 6.2 notice a
 *     chain is no longer referenced by a map element only after a short delay); stale affinity
 *     sets are deleted at once.
 *
 * The simulated kernel state (which chains and sets exist) stands in for kube-proxy's
 * `nft list chains` / `nft list sets` calls. Service ports are visited in sorted key order
 * (kube-proxy walks a Go map, i.e. in random order) so output is deterministic.
 */
import { type Clock, WallClock } from '../../../util/clock.js';
import type { IPFamily, ProxyState } from '../../model/index.js';
import {
  isLoopback,
  newNodePortAddresses,
  nodeIPsIn,
  NODEPORT_ADDRESSES_PRIMARY,
  parseCidr,
  resolveLocalDetector,
} from '../../model/index.js';
import {
  checkStream,
  masqueradeMarkOf,
  type Proxier,
  type ProxierOptions,
  type ProxyArtifact,
  type ProxyRenderStats,
  type ProxySyncResult,
} from '../types.js';
import { ElementStorage } from './elements.js';
import { isAffinitySetName, isServiceChainName } from './names.js';
import { newReleased, PortIndex, type PortWants, portWants, type Released } from './incremental.js';
import {
  CLUSTER_IPS_SET,
  FIREWALL_IPS_MAP,
  KUBE_PROXY_TABLE,
  NO_ENDPOINT_NODEPORTS_MAP,
  NO_ENDPOINT_SERVICES_MAP,
  type NftRulesConfig,
  SERVICE_IPS_MAP,
  SERVICE_MAP_NAMES,
  SERVICE_NODEPORTS_MAP,
  type ServiceMaps,
  writeServicePort,
  writeSetup,
} from './rules.js';
import { NftTransaction, type TxStats } from './transaction.js';

export interface NftablesOptions extends ProxierOptions {
  /** ServiceCIDRs (either family; each proxier uses its own): traffic to unallocated ClusterIPs inside them is dropped */
  serviceCIDRs?: readonly string[];
  /**
   * false: every sync visits every service port (the reference the incremental sync is tested
   * against); default true: only the changed Services' ports (incremental.ts)
   */
  incremental?: boolean;
  /** where chain names are hashed: 'wasm' (default) or 'js' (node:crypto, the reference); same names */
  hashKernel?: 'wasm' | 'js';
}

/** Delay before a stale chain is deleted (kube-proxy: one second, for kernels before 6.2). */
const STALE_CHAIN_DELAY_MS = 1000;

/** What one sync wrote. */
export interface NftSyncResult extends ProxySyncResult {
  /** the transaction that deleted chains stale for >= 1 s, run before the main one ("" if none) */
  readonly staleText: string;
  /** counts of the main transaction and of the stale-chain one */
  readonly tx: TxStats;
  readonly staleTx: TxStats;
  /** service ports visited, and those whose chains were (re)written */
  readonly servicePorts: number;
  readonly servicePortsWritten: number;
}

/** A kube-proxy nftables proxier for one node and family. */
export class NftablesProxier implements Proxier<NftSyncResult> {
  readonly mode = 'nftables' as const;
  private readonly cfg: NftRulesConfig;
  private readonly clock: Clock;
  private needFullSync = true;
  private flushed = false;
  /** `options.oneSync`: service chains are not recorded, a second sync is refused */
  private readonly oneSync: boolean;
  private synced = false;
  /** chains that exist in the (simulated) kernel table → when they were added (their order) */
  private readonly kernelChains = new Map<string, number>();
  /** affinity sets that exist in the (simulated) kernel table → when they were added */
  private readonly kernelSets = new Map<string, number>();
  private kernelSeq = 0;
  /** kube-proxy's chains in the kernel that no service port uses (flushed each sync until deleted) */
  private readonly inactiveChains = new Set<string>();
  /** per-port bookkeeping of the incremental sync (incremental.ts); null: every sync walks every port */
  private readonly index: PortIndex | null;
  /** chain → time (ms) it became stale */
  private readonly staleChains = new Map<string, number>();
  private readonly maps: ServiceMaps<ElementStorage> = {
    clusterIPs: new ElementStorage('set', CLUSTER_IPS_SET),
    serviceIPs: new ElementStorage('map', SERVICE_IPS_MAP),
    firewallIPs: new ElementStorage('map', FIREWALL_IPS_MAP),
    noEndpointServices: new ElementStorage('map', NO_ENDPOINT_SERVICES_MAP),
    noEndpointNodePorts: new ElementStorage('map', NO_ENDPOINT_NODEPORTS_MAP),
    serviceNodePorts: new ElementStorage('map', SERVICE_NODEPORTS_MAP),
  };

  constructor(
    readonly state: ProxyState,
    readonly options: NftablesOptions = {},
  ) {
    const family = state.family;
    const serviceCIDRs: string[] = [];
    for (const [i, s] of (options.serviceCIDRs ?? []).entries()) {
      const c = parseCidr(s);
      if (!c) throw new TypeError(`NftablesProxier: options.serviceCIDRs[${i}] "${s}" is not a CIDR`);
      // OnServiceCIDRsChanged: each proxier keeps the CIDRs of its own family
      if (c.family === family) serviceCIDRs.push(s.trim());
    }
    this.cfg = {
      family,
      ipX: family === 'IPv6' ? 'ip6' : 'ip',
      addrType: family === 'IPv6' ? 'ipv6_addr' : 'ipv4_addr',
      mark: masqueradeMarkOf(options),
      masqueradeAll: !!options.masqueradeAll,
      detector: resolveLocalDetector({ nodePodCIDRs: state.node.podCIDRs, ...options }, family),
      serviceCIDRs,
      hashKernel: options.hashKernel,
    };
    // checked now, so that a bad value fails here and not at the first sync
    newNodePortAddresses(options.nodePortAddresses, family, state.node);
    this.clock = options.clock ?? new WallClock();
    checkStream('NftablesProxier', options);
    this.index = options.incremental === false ? null : new PortIndex(this.maps);
    this.oneSync = !!options.oneSync;
    if (this.oneSync) for (const m of Object.values(this.maps)) m.recordOrder = false;
  }

  get family(): IPFamily {
    return this.state.family;
  }

  forceFullSync(): void {
    this.needFullSync = true;
  }

  onTopologyChange(labels: Readonly<Record<string, string>>): void {
    this.state.setTopologyLabels(labels);
    this.needFullSync = true;
  }

  /** Chains that currently exist in the simulated table (sorted). */
  existingChains(): string[] {
    return [...this.kernelChains.keys()].sort();
  }

  /**
   * The @nodeport-ips elements, or null for "every local address" (`fib daddr type local`): the
   * node addresses inside --nodeport-addresses (default "primary", as kube-proxy's nftables mode),
   * without loopback, which nftables mode does not support for NodePorts.
   */
  private nodePortIPs(): string[] | null {
    const npa = newNodePortAddresses(
      this.options.nodePortAddresses ?? [NODEPORT_ADDRESSES_PRIMARY],
      this.family,
      this.state.node,
    );
    if (npa.matchAll) return null;
    return nodeIPsIn(npa, this.state.node).filter((ip) => !isLoopback(ip));
  }

  /** One syncProxyRules(). */
  sync(): NftSyncResult {
    // even a forced full sync needs the chains the last one wrote (to flush those now unused)
    if (this.oneSync && this.synced)
      throw new Error('NftablesProxier: options.oneSync: this proxier renders one sync; create a new one');
    this.synced = true;
    const now = this.clock.now();
    const tryPartial = !this.needFullSync;
    const updated = this.state.applyChanges().updatedServices;
    const tableFamily = this.cfg.ipX;

    // chains stale for more than one second are deleted in a transaction of their own
    const staleTx = new NftTransaction(tableFamily, KUBE_PROXY_TABLE);
    for (const [chain, since] of [...this.staleChains].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      if (since < now - STALE_CHAIN_DELAY_MS) {
        staleTx.deleteChain(chain);
        this.staleChains.delete(chain);
        this.kernelChains.delete(chain);
        this.inactiveChains.delete(chain);
      }
    }

    const tx = new NftTransaction(tableFamily, KUBE_PROXY_TABLE, this.options.stream);
    if (!tryPartial) {
      for (const c of writeSetup(tx, this.cfg, this.nodePortIPs(), !this.flushed)) this.addKernelChain(c);
      this.flushed = true;
      for (const m of Object.values(this.maps)) m.reset(tx);
    }

    let written: number;
    const index = this.index;
    if (!index) written = this.walk(tx, tryPartial ? updated : null, now);
    else if (!tryPartial) {
      index.clear(this.state.servicePorts.keys());
      for (const key of index.ports.keys.all()) index.replace(key, this.wantsOf(key), newReleased());
      written = this.walk(tx, null, now);
    } else {
      // what the changed ports want now; the walk decides when two ports want one map key
      const keys = index.ports.portsOf(updated, (s) => this.state.servicePortKeys(s));
      const sharedBefore = index.sharedMapKeys() > 0;
      const released = newReleased();
      for (const key of keys) index.replace(key, this.wantsOf(key), released);
      if (sharedBefore || index.sharedMapKeys() > 0) written = this.walk(tx, updated, now);
      else written = this.writeChanged(tx, keys, released, now);
    }

    tx.end();
    this.needFullSync = false;
    const staleText = staleTx.toString();
    const artifacts: ProxyArtifact[] = staleText ? [{ name: 'stale-chains.nft', text: staleText }] : [];
    const stats: ProxyRenderStats = {
      chains: tx.stats.chainsAdded,
      rules: tx.stats.rules,
      bytes: tx.stats.bytes,
      elements: tx.stats.elements,
      lines: tx.stats.lines,
      chainsFlushed: tx.stats.chainsFlushed,
      chainsDeleted: tx.stats.chainsDeleted + staleTx.stats.chainsDeleted,
      servicePorts: this.state.servicePorts.size,
      servicePortsWritten: written,
    };
    let text: string | undefined;
    return {
      kind: tryPartial ? 'partial' : 'full',
      get text() {
        text ??= tx.toString();
        return text;
      },
      chunks: () => tx.chunks(),
      artifacts,
      stats,
      staleText,
      tx: tx.stats,
      staleTx: staleTx.stats,
      servicePorts: this.state.servicePorts.size,
      servicePortsWritten: written,
    };
  }
  /** The chains, affinity sets and elements a service port wants (undefined once it is gone). */
  private wantsOf(key: string): PortWants | undefined {
    const svc = this.state.servicePorts.get(key);
    return svc && portWants(this.cfg, this.state.node, svc, this.state.endpoints.get(key));
  }

  private addKernelChain(chain: string): void {
    if (!this.kernelChains.has(chain)) this.kernelChains.set(chain, this.kernelSeq++);
  }

  /** A writer whose chains and sets are this proxier's (simulated) kernel's. */
  private writer(tx: NftTransaction, activeChains: Set<string>, activeAffinitySets: Set<string>) {
    return {
      tx,
      cfg: this.cfg,
      maps: this.maps,
      node: this.state.node,
      ensureChain: (chain: string, skip: boolean) => {
        if (activeChains.has(chain)) return;
        activeChains.add(chain);
        if (skip) return;
        tx.addChain(chain);
        tx.flushChain(chain);
        // one sync: no later sync looks for this chain in the kernel
        if (!this.oneSync) this.addKernelChain(chain);
      },
      useAffinitySet: (name: string) => activeAffinitySets.add(name),
      addAffinitySet: (name: string, timeoutSeconds: number) => {
        tx.addSet('set', name, { type: this.cfg.addrType, flags: ['dynamic', 'timeout'], timeoutSeconds });
        if (!this.kernelSets.has(name)) this.kernelSets.set(name, this.kernelSeq++);
      },
    };
  }

  /**
   * kube-proxy's loop: every service port in sorted order — the changed ones (all when `updated` is
   * null) written, the others only marking their chains and ensuring their elements — then stale
   * chains flushed, unused affinity sets deleted and leftover elements removed. Returns the ports
   * written.
   */
  private walk(tx: NftTransaction, updated: ReadonlySet<string> | null, now: number): number {
    if (updated) for (const m of Object.values(this.maps)) m.beginWalk();
    const activeChains = new Set<string>();
    const activeAffinitySets = new Set<string>();
    const writer = this.writer(tx, activeChains, activeAffinitySets);
    let written = 0;
    const keys = this.index ? this.index.ports.keys.all() : [...this.state.servicePorts.keys()].sort();
    for (const key of keys) {
      const svc = this.state.servicePorts.get(key)!;
      const skip = updated !== null && !updated.has(svc.serviceName);
      // one sync: a chain name belongs to one service port (its name is in it), so a port's
      // chains are told apart within the port, and no sync after this one asks which are active
      if (this.oneSync) activeChains.clear();
      if (writeServicePort(writer, svc, this.state.endpoints.get(key), skip)) written++;
    }

    // stale service/endpoint chains: flushed again and re-stamped on every sync until a sync
    // at least one second later deletes them
    this.inactiveChains.clear();
    for (const chain of this.kernelChains.keys()) {
      if (!isServiceChainName(chain)) continue;
      if (!activeChains.has(chain)) {
        tx.flushChain(chain);
        this.staleChains.set(chain, now);
        this.inactiveChains.add(chain);
      } else {
        this.staleChains.delete(chain);
      }
    }
    for (const set of this.kernelSets.keys()) {
      if (isAffinitySetName(set) && !activeAffinitySets.has(set)) {
        tx.deleteSet('set', set);
        this.kernelSets.delete(set);
      }
    }
    for (const m of Object.values(this.maps)) m.cleanupLeftovers(tx);
    return written;
  }

  /**
   * The partial sync of the index: only the changed ports are visited (sorted), then what they
   * released is cleaned up in the order the walk would have written it (kernel order for chains
   * and sets, insertion order for elements).
   */
  private writeChanged(tx: NftTransaction, keys: readonly string[], released: Released, now: number): number {
    const index = this.index!;
    const activeChains = new Set<string>();
    const writer = this.writer(tx, activeChains, new Set());
    let written = 0;
    for (const key of keys) {
      const svc = this.state.servicePorts.get(key);
      if (svc && writeServicePort(writer, svc, this.state.endpoints.get(key), false)) written++;
    }
    for (const chain of activeChains) {
      this.inactiveChains.delete(chain);
      this.staleChains.delete(chain);
    }
    for (const chain of released.chains)
      if (!index.chainRefs.has(chain) && this.kernelChains.has(chain)) this.inactiveChains.add(chain);
    const bySeq = (m: Map<string, number>) => (a: string, b: string) => m.get(a)! - m.get(b)!;
    for (const chain of [...this.inactiveChains].sort(bySeq(this.kernelChains))) {
      tx.flushChain(chain);
      this.staleChains.set(chain, now);
    }
    const goneSets = released.affinitySets.filter((s) => !index.setRefs.has(s) && this.kernelSets.has(s));
    for (const set of [...new Set(goneSets)].sort(bySeq(this.kernelSets))) {
      tx.deleteSet('set', set);
      this.kernelSets.delete(set);
    }
    for (const m of SERVICE_MAP_NAMES) this.maps[m].cleanup(tx, released.elements[m]);
    return written;
  }
}

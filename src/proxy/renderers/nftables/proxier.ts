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
  masqueradeMarkOf,
  type Proxier,
  type ProxierOptions,
  type ProxyArtifact,
  type ProxyRenderStats,
  type ProxySyncResult,
} from '../types.js';
import { ElementStorage } from './elements.js';
import { isAffinitySetName, isServiceChainName } from './names.js';
import {
  CLUSTER_IPS_SET,
  FIREWALL_IPS_MAP,
  KUBE_PROXY_TABLE,
  NO_ENDPOINT_NODEPORTS_MAP,
  NO_ENDPOINT_SERVICES_MAP,
  type NftRulesConfig,
  SERVICE_IPS_MAP,
  SERVICE_NODEPORTS_MAP,
  type ServiceMaps,
  writeServicePort,
  writeSetup,
} from './rules.js';
import { NftTransaction, type TxStats } from './transaction.js';

export interface NftablesOptions extends ProxierOptions {
  /** ServiceCIDRs (either family; each proxier uses its own): traffic to unallocated ClusterIPs inside them is dropped */
  serviceCIDRs?: readonly string[];
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
  /** chains that exist in the (simulated) kernel table */
  private readonly kernelChains = new Set<string>();
  /** affinity sets that exist in the (simulated) kernel table */
  private readonly kernelSets = new Set<string>();
  /** chain → time (ms) it became stale */
  private readonly staleChains = new Map<string, number>();
  private readonly maps: ServiceMaps = {
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
    };
    // checked now, so that a bad value fails here and not at the first sync
    newNodePortAddresses(options.nodePortAddresses, family, state.node);
    this.clock = options.clock ?? new WallClock();
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
    return [...this.kernelChains].sort();
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
      }
    }

    const tx = new NftTransaction(tableFamily, KUBE_PROXY_TABLE);
    if (!tryPartial) {
      for (const c of writeSetup(tx, this.cfg, this.nodePortIPs(), !this.flushed)) this.kernelChains.add(c);
      this.flushed = true;
      for (const m of Object.values(this.maps)) m.reset(tx);
    }

    const activeChains = new Set<string>();
    const activeAffinitySets = new Set<string>();
    const writer = {
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
        this.kernelChains.add(chain);
      },
      useAffinitySet: (name: string) => activeAffinitySets.add(name),
      addAffinitySet: (name: string, timeoutSeconds: number) => {
        tx.addSet('set', name, { type: this.cfg.addrType, flags: ['dynamic', 'timeout'], timeoutSeconds });
        this.kernelSets.add(name);
      },
    };
    let written = 0;
    const keys = [...this.state.servicePorts.keys()].sort();
    for (const key of keys) {
      const svc = this.state.servicePorts.get(key)!;
      const skip = tryPartial && !updated.has(svc.serviceName);
      if (writeServicePort(writer, svc, this.state.endpoints.get(key), skip)) written++;
    }

    // stale service/endpoint chains: flushed again and re-stamped on every sync until a sync
    // at least one second later deletes them
    for (const chain of this.kernelChains) {
      if (!isServiceChainName(chain)) continue;
      if (!activeChains.has(chain)) {
        tx.flushChain(chain);
        this.staleChains.set(chain, now);
      } else {
        this.staleChains.delete(chain);
      }
    }
    for (const set of this.kernelSets) {
      if (isAffinitySetName(set) && !activeAffinitySets.has(set)) {
        tx.deleteSet('set', set);
        this.kernelSets.delete(set);
      }
    }
    for (const m of Object.values(this.maps)) m.cleanupLeftovers(tx);

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
      servicePorts: keys.length,
      servicePortsWritten: written,
    };
    return {
      kind: tryPartial ? 'partial' : 'full',
      text: tx.toString(),
      artifacts,
      stats,
      staleText,
      tx: tx.stats,
      staleTx: staleTx.stats,
      servicePorts: keys.length,
      servicePortsWritten: written,
    };
  }
}

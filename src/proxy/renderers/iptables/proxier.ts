/**
 * kube-proxy's iptables sync loop as a deterministic object: full vs partial syncs, stale-chain
 * cleanup and the counts kube-proxy reports, with the kernel side simulated (which nat chains
 * exist) or delegated to a real `iptables-restore` through `apply`.
 *
 * Decisions, as in pkg/proxy/iptables/proxier.go syncProxyRules:
 *   - full sync on the first sync, after any failed restore, after forceFullSync() (topology
 *     label change, iptables flush detected), and when FULL_SYNC_PERIOD (1 h) has passed since
 *     the last full sync; otherwise partial (only changed Services' chains are written);
 *   - stale chains are deleted on every sync, except in large-cluster mode (> 1000 endpoints)
 *     where that happens at most once per syncPeriod (iptables-save is expensive there);
 *   - a failed restore loses the pending changes (they were already merged), so the next
 *     sync is full.
 *
 * Example: sync() → full (all chains); a Service's slice changes; sync() → partial writing
 * KUBE-SERVICES etc. plus that Service's KUBE-SVC/KUBE-SEP chains, and `-X` for its old
 * endpoint chain.
 */
import { type Clock, WallClock } from '../../../util/clock.js';
import { endpointCount, type IPFamily, type ProxyState } from '../../model/index.js';
import {
  checkStream,
  type Proxier,
  type ProxyArtifact,
  type ProxyRenderStats,
  type ProxySyncResult,
} from '../types.js';
import { IncrementalIptablesRenderer } from './incremental.js';
import {
  type IptablesOptions,
  type IptablesRenderResult,
  KUBE_MARK_MASQ,
  KUBE_NODEPORTS,
  KUBE_POSTROUTING,
  KUBE_SERVICES,
  LARGE_CLUSTER_ENDPOINTS_THRESHOLD,
  renderIptables,
} from './rules.js';

/** proxyutil.FullSyncPeriod: a full resync at least this often */
export const FULL_SYNC_PERIOD_MS = 60 * 60 * 1000;
/** kube-proxy's default iptables.syncPeriod */
export const DEFAULT_SYNC_PERIOD_MS = 30 * 1000;

/** What one sync wrote. */
export interface IptablesSyncResult extends ProxySyncResult {
  /** 1-based sync number */
  readonly seq: number;
  /** whether the restore was applied (false when `apply` threw) */
  readonly applied: boolean;
  readonly error?: string;
  /** bytes of iptables-restore input */
  readonly bytes: number;
  /** lines of input, COMMIT and table headers included */
  readonly lines: number;
  /** chains declared (filter + nat) and rules written (filter + nat, -X lines excluded) */
  readonly chainsWritten: number;
  readonly rulesWritten: number;
  /** Services ("ns/name") whose chains were rewritten in a partial sync; all in a full sync */
  readonly updatedServices: number;
  readonly deletedChains: number;
  /** sync_proxy_rules_iptables_total: rules present after this sync, per table */
  readonly rulesTotal: { readonly filter: number; readonly nat: number };
  readonly largeClusterMode: boolean;
  /** wall time spent rendering, ms */
  readonly renderMs: number;
  /** process CPU time (user + system, all threads incl. GC) spent rendering, ms */
  readonly renderCpuMs: number;
  /** the renderer's detailed counts */
  readonly render: IptablesRenderResult;
}

export interface IptablesProxierOptions extends IptablesOptions {
  /** time source for the full-sync and cleanup periods (default wall clock) */
  clock?: Clock;
  /** iptables.syncPeriod in ms (default 30 s) */
  syncPeriodMs?: number;
  /**
   * false renders every sync with renderIptables from scratch (the reference the incremental
   * renderer is tested against); default true: cached per-service-port fragments (incremental.ts)
   */
  incremental?: boolean;
  /**
   * Hands each restore input to a real backend (e.g. `iptables-restore --noflush`); throwing
   * marks the sync failed. Without it the kernel is simulated.
   */
  apply?: (input: Buffer, report: { kind: 'full' | 'partial' }) => void;
}

const NO_ARTIFACTS: readonly ProxyArtifact[] = [];

/** One node's iptables proxier: ProxyState + sync decisions + simulated kernel chains. */
export class IptablesProxier implements Proxier<IptablesSyncResult> {
  readonly mode = 'iptables' as const;
  private readonly clock: Clock;
  private needFullSync = true;
  private lastFullSync = Number.NEGATIVE_INFINITY;
  private lastCleanup = Number.NEGATIVE_INFINITY;
  private seq = 0;
  /** nat chains the (simulated) kernel holds */
  readonly kernelNatChains = new Set<string>();
  /** every report, in order */
  readonly history: IptablesSyncResult[] = [];
  private readonly incremental: IncrementalIptablesRenderer | null;

  constructor(
    readonly state: ProxyState,
    private readonly opts: IptablesProxierOptions = {},
  ) {
    this.clock = opts.clock ?? new WallClock();
    checkStream('IptablesProxier', opts);
    this.incremental = opts.incremental === false ? null : new IncrementalIptablesRenderer(opts);
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

  /** Runs one syncProxyRules: merges pending changes, renders, applies, updates the kernel view. */
  sync(): IptablesSyncResult {
    if (this.opts.oneSync && this.seq > 0)
      throw new Error('IptablesProxier: options.oneSync: this proxier renders one sync; create a new one');
    const now = this.clock.now();
    const full = this.needFullSync || now - this.lastFullSync > FULL_SYNC_PERIOD_MS;
    const changes = this.state.applyChanges();

    const updated = full ? null : changes.updatedServices;
    let totalEndpoints = 0;
    if (this.incremental) totalEndpoints = this.incremental.totalEndpointsAfter(this.state, updated);
    else
      for (const k of this.state.servicePorts.keys())
        totalEndpoints += endpointCount(this.state.endpoints, k);
    const largeClusterMode =
      totalEndpoints > (this.opts.largeClusterEndpointsThreshold ?? LARGE_CLUSTER_ENDPOINTS_THRESHOLD);
    const cleanup =
      !largeClusterMode || now - this.lastCleanup > (this.opts.syncPeriodMs ?? DEFAULT_SYNC_PERIOD_MS);

    const t0 = performance.now();
    const c0 = process.cpuUsage();
    let render: IptablesRenderResult;
    let written: Iterable<string>;
    if (this.incremental) {
      const r = this.incremental.render(this.state, updated, this.kernelNatChains, cleanup);
      render = r.render;
      written = r.writtenChains;
    } else {
      render = renderIptables(
        {
          family: this.state.family,
          servicePorts: this.state.servicePorts,
          endpoints: this.state.endpoints,
          node: this.state.node,
          updatedServices: updated,
          existingNatChains: cleanup ? this.kernelNatChains : null,
        },
        this.opts,
      );
      // one sync: no later sync diffs against the chains written (ProxierOptions.oneSync)
      written = this.opts.oneSync ? [] : render.activeNatChains;
    }
    const renderMs = performance.now() - t0;
    const cpu = process.cpuUsage(c0);
    const renderCpuMs = (cpu.user + cpu.system) / 1000;
    if (cleanup) this.lastCleanup = now;

    const kind = full ? 'full' : 'partial';
    let applied = true;
    let error: string | undefined;
    if (this.opts.apply) {
      try {
        this.opts.apply(render.bytes, { kind });
      } catch (e) {
        applied = false;
        error = e instanceof Error ? e.message : String(e);
      }
    }
    if (applied) {
      this.updateKernel(render, written);
      this.needFullSync = false;
      if (full) this.lastFullSync = now;
    } else {
      this.needFullSync = true;
    }

    const chainsWritten = render.filterChains + render.natChains;
    const rulesWritten = render.filterRules + render.natRules - render.deletedChains;
    const updatedServices = full ? this.state.serviceCount : changes.updatedServices.size;
    const report: IptablesSyncResult = {
      seq: ++this.seq,
      kind,
      applied,
      error,
      bytes: render.byteLength,
      lines: render.filterChains + render.filterRules + render.natChains + render.natRules + 4,
      chainsWritten,
      rulesWritten,
      updatedServices,
      deletedChains: render.deletedChains,
      rulesTotal: render.rulesTotal,
      largeClusterMode: render.largeClusterMode,
      renderMs,
      renderCpuMs,
      get text() {
        return render.text;
      },
      chunks: () => render.chunks,
      artifacts: NO_ARTIFACTS,
      get stats(): ProxyRenderStats {
        return {
          chains: chainsWritten,
          rules: rulesWritten,
          bytes: render.byteLength,
          lines: this.lines,
          filterRules: render.filterRules,
          natRules: render.natRules - render.deletedChains,
          natChains: render.natChains,
          deletedChains: render.deletedChains,
          updatedServices,
          rulesTotalFilter: render.rulesTotal.filter,
          rulesTotalNat: render.rulesTotal.nat,
          largeClusterMode: render.largeClusterMode ? 1 : 0,
          renderMs: Math.round(renderMs * 100) / 100,
          renderCpuMs: Math.round(renderCpuMs * 100) / 100,
        };
      },
      render,
    };
    this.history.push(report);
    return report;
  }

  /** The restore succeeded: the kernel lost the deleted chains and holds the ones written. */
  private updateKernel(r: IptablesRenderResult, written: Iterable<string>): void {
    const k = this.kernelNatChains;
    for (const c of r.deletedChainNames) k.delete(c);
    for (const c of [KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ]) k.add(c);
    for (const c of written) k.add(c);
  }
}

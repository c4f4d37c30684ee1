/**
 * The iptables proxier's render between syncs: what renderIptables (rules.ts) writes, at the cost
 * of what changed. kube-proxy's partial sync (pkg/proxy/iptables/proxier.go syncProxyRules with
 * tryPartialSync) rewrites the chains of the changed Services and the top-level chains in full;
 * it still walks every service port to rebuild KUBE-SERVICES. This renderer does the same walk,
 * but over cached text: per service port it keeps the lines that port adds to the top-level
 * chains (nat KUBE-SERVICES / KUBE-NODEPORTS, filter KUBE-SERVICES / KUBE-EXTERNAL-SERVICES /
 * KUBE-NODEPORTS / KUBE-PROXY-FIREWALL), the counts of its own chains and rules (for the rule
 * metrics kube-proxy reports), and the nat chains it uses (for the stale-chain cleanup).
 *
 *   full sync     every port rendered, its fragment cached             O(services × endpoints)
 *   partial sync  changed Services' ports rendered and re-cached;      O(changed) + one string
 *                 the rest contribute their cached captures             append per service port
 *
 * The output is byte-identical to renderIptables on the same input (test/proxy/iptables/
 * incremental.test.ts runs both side by side through random churn).
 */
import { endpointCount, type ProxyState } from '../../model/index.js';
import type { IptablesRenderResult } from './rules.js';
import { chainLine, type LineBuffer, StringSink } from './lines.js';
import { isServiceChainName } from './names.js';
import {
  collectResult,
  type IptablesOptions,
  newRenderContext,
  planPort,
  type RenderContext,
  writeBaseChains,
  writeForwardRules,
  writeNodePortsJump,
  writeServiceCaptures,
  writeServiceChains,
} from './rules.js';
import { PortTable } from '../port-table.js';

/** What one service port contributes to a sync, cached until its Service changes. */
interface PortFragment {
  readonly serviceName: string;
  /** lines of nat KUBE-SERVICES / KUBE-NODEPORTS, each ending in "\n", as bytes */
  readonly natCaptures: Buffer;
  readonly natCaptureLines: number;
  /** lines of the filter top-level chains */
  readonly filterCaptures: Buffer;
  readonly filterCaptureLines: number;
  /** nat chain declarations and nat rules of the port's own chains */
  readonly chainLines: number;
  readonly ruleLines: number;
  /** the nat chains the port uses */
  readonly chains: readonly string[];
  readonly noLocalInternal: number;
  readonly noLocalExternal: number;
  readonly endpoints: number;
}

const EMPTY = Buffer.alloc(0);
// rule text is ASCII (rules.ts): one byte per character
const latin1 = (s: string): Buffer => (s === '' ? EMPTY : Buffer.from(s, 'latin1'));

/** A sync's render plus what the proxier applies to its kernel view when the restore succeeds. */
export interface IncrementalRender {
  readonly render: IptablesRenderResult;
  /** nat chains this sync wrote (all of them on a full sync) */
  readonly writtenChains: readonly string[];
}

/** Running totals over every cached fragment. */
interface Totals {
  endpoints: number;
  chainLines: number;
  ruleLines: number;
  noLocalInternal: number;
  noLocalExternal: number;
}

const zeroTotals = (): Totals => ({
  endpoints: 0,
  chainLines: 0,
  ruleLines: 0,
  noLocalInternal: 0,
  noLocalExternal: 0,
});

export class IncrementalIptablesRenderer {
  private readonly fragments = new PortTable<PortFragment>();
  private totals = zeroTotals();
  /** nat chain → service ports using it */
  private readonly activeRefs = new Map<string, number>();
  /** kube-proxy's chains the kernel holds that no port uses any more (deleted at the next cleanup) */
  private readonly stale = new Set<string>();
  private readonly natSink = new StringSink();
  private readonly filterSink = new StringSink();

  constructor(private readonly opts: IptablesOptions) {}

  /** Endpoints of every service port once `changed` Services are applied (kube-proxy's large-cluster test). */
  totalEndpointsAfter(state: ProxyState, changed: ReadonlySet<string> | null): number {
    let n = 0;
    if (changed === null) {
      for (const k of state.servicePorts.keys()) n += endpointCount(state.endpoints, k);
      return n;
    }
    n = this.totals.endpoints;
    for (const key of this.portsOf(state, changed)) {
      n -= this.fragments.get(key)?.endpoints ?? 0;
      if (state.servicePorts.has(key)) n += endpointCount(state.endpoints, key);
    }
    return n;
  }

  /**
   * One sync: `changed` null renders everything (full sync), else the changed Services.
   * `kernelChains` is the kernel's nat chains before the restore; `cleanup` whether stale chains
   * are deleted this sync.
   */
  render(
    state: ProxyState,
    changed: ReadonlySet<string> | null,
    kernelChains: ReadonlySet<string>,
    cleanup: boolean,
  ): IncrementalRender {
    const full = changed === null;
    const input = {
      family: state.family,
      servicePorts: state.servicePorts,
      endpoints: state.endpoints,
      node: state.node,
      updatedServices: changed,
    };
    const ctx = newRenderContext(input, this.opts, this.totalEndpointsAfter(state, changed));
    const natRules = ctx.natOut;
    const filterRules = ctx.filterOut;
    writeBaseChains(ctx);

    let renderSet: Set<string> | null = null;
    if (full) this.reset(state);
    else {
      renderSet = new Set(this.portsOf(state, changed));
      for (const key of renderSet) this.forget(key, state);
    }

    const written: string[] = [];
    const writtenLines = { chains: 0, rules: 0 };
    for (const key of this.fragments.keys.all()) {
      const cached = renderSet === null || renderSet.has(key) ? undefined : this.fragments.get(key);
      if (cached) {
        natRules.writeBytes(cached.natCaptures, cached.natCaptureLines);
        filterRules.writeBytes(cached.filterCaptures, cached.filterCaptureLines);
        continue;
      }
      const f = this.renderPort(ctx, key, state, natRules, filterRules);
      this.remember(key, f);
      for (const c of f.chains) written.push(c);
      writtenLines.chains += f.chainLines;
      writtenLines.rules += f.ruleLines;
    }
    ctx.natRules = natRules;
    ctx.filterRules = filterRules;

    // stale chains: those no port uses that the kernel still holds
    if (full) {
      this.stale.clear();
      for (const c of kernelChains) if (isServiceChainName(c) && !this.activeRefs.has(c)) this.stale.add(c);
    } else {
      for (const c of written) this.stale.delete(c);
    }
    const deleted = cleanup ? [...this.stale].sort() : [];
    for (const c of deleted) {
      ctx.natChains.write(chainLine(c));
      natRules.write(`-X ${c}`);
    }
    if (cleanup) this.stale.clear();
    writeNodePortsJump(ctx);
    writeForwardRules(ctx);
    // what a partial sync leaves out, counted for the rule metrics
    ctx.skippedNatChains.writeLines('', this.totals.chainLines - writtenLines.chains);
    ctx.skippedNatRules.writeLines('', this.totals.ruleLines - writtenLines.rules);
    ctx.noLocalInternal = this.totals.noLocalInternal;
    ctx.noLocalExternal = this.totals.noLocalExternal;
    const render = collectResult(ctx, deleted, () => new Set(this.activeRefs.keys()));
    return { render, writtenChains: written };
  }

  /**
   * Renders one port: its captures into its fragment (and the output), its own chains straight
   * into the output, as renderIptables' loop body does.
   */
  private renderPort(
    ctx: RenderContext,
    key: string,
    state: ProxyState,
    natRules: LineBuffer,
    filterRules: LineBuffer,
  ): PortFragment {
    const svc = state.servicePorts.get(key)!;
    const nl0 = ctx.noLocalInternal;
    const ne0 = ctx.noLocalExternal;
    ctx.natRules = this.natSink;
    ctx.filterRules = this.filterSink;
    const plan = planPort(ctx, key, svc);
    writeServiceCaptures(ctx, plan);
    const natCaptureLines = this.natSink.lines;
    const filterCaptureLines = this.filterSink.lines;
    const natCaptures = latin1(this.natSink.take());
    const filterCaptures = latin1(this.filterSink.take());
    natRules.writeBytes(natCaptures, natCaptureLines);
    filterRules.writeBytes(filterCaptures, filterCaptureLines);

    const chains = new Set<string>();
    ctx.activeNatChains = chains;
    ctx.natRules = natRules;
    ctx.filterRules = filterRules;
    const c0 = ctx.natChains.lines;
    const r0 = natRules.lines;
    writeServiceChains(ctx, plan, ctx.natChains, natRules);
    return {
      serviceName: svc.serviceName,
      natCaptures,
      natCaptureLines,
      filterCaptures,
      filterCaptureLines,
      chainLines: ctx.natChains.lines - c0,
      ruleLines: natRules.lines - r0,
      chains: [...chains],
      noLocalInternal: ctx.noLocalInternal - nl0,
      noLocalExternal: ctx.noLocalExternal - ne0,
      endpoints: endpointCount(state.endpoints, key),
    };
  }

  /** The ports of `changed` Services, before and after this sync. */
  private portsOf(state: ProxyState, changed: ReadonlySet<string>): string[] {
    return this.fragments.portsOf(changed, (s) => state.servicePortKeys(s));
  }

  private reset(state: ProxyState): void {
    this.fragments.clear(state.servicePorts.keys());
    this.activeRefs.clear();
    this.totals = zeroTotals();
  }

  /** Drops a port's fragment before it is rendered again (or gone). */
  private forget(key: string, state: ProxyState): void {
    const f = this.fragments.get(key);
    if (f) {
      this.addTotals(f, -1);
      for (const c of f.chains) {
        const n = (this.activeRefs.get(c) ?? 0) - 1;
        if (n > 0) this.activeRefs.set(c, n);
        else {
          this.activeRefs.delete(c);
          this.stale.add(c);
        }
      }
    }
    // the key keeps its place until the port is rendered again (or is gone for good)
    if (state.servicePorts.has(key)) this.fragments.keys.add(key);
    else this.fragments.set(key, undefined);
  }

  private remember(key: string, f: PortFragment): void {
    this.fragments.set(key, f);
    this.addTotals(f, 1);
    for (const c of f.chains) this.activeRefs.set(c, (this.activeRefs.get(c) ?? 0) + 1);
  }

  private addTotals(f: PortFragment, sign: 1 | -1): void {
    const t = this.totals;
    t.endpoints += sign * f.endpoints;
    t.chainLines += sign * f.chainLines;
    t.ruleLines += sign * f.ruleLines;
    t.noLocalInternal += sign * f.noLocalInternal;
    t.noLocalExternal += sign * f.noLocalExternal;
  }
}

/**
 * A dual-stack kube-proxy: one proxier per IP family behind one set of event handlers
 * (pkg/proxy/metaproxier/meta_proxier.go); with one family it is that family's proxier. Services go to both proxiers — each keeps the ports
 * of its own family — and an EndpointSlice goes to the proxier of its addressType (FQDN slices to
 * neither, as upstream). Each family's rules are independent: iptables and ip6tables, `table ip`
 * and `table ip6 kube-proxy`, KUBE- and KUBE-6- ipsets.
 *
 *   const dual = new MetaProxier(node, ['IPv4', 'IPv6'], (state) => new NftablesProxier(state, opts));
 *   dual.onServiceAdd(svc); dual.onEndpointSliceAdd(slice);
 *   const [v4, v6] = dual.sync();   // { family, result } per family
 */
import type { EndpointSlice, Service } from '../../api/types.js';
import { type IPFamily, type ProxyModelError, type ProxyNode, ProxyState } from '../model/index.js';
import type { Proxier, ProxySyncResult } from './types.js';

export const IP_FAMILIES: readonly IPFamily[] = ['IPv4', 'IPv6'];

/** One family's sync. */
export interface FamilySync<R extends ProxySyncResult = ProxySyncResult> {
  readonly family: IPFamily;
  readonly result: R;
}

export class MetaProxier<R extends ProxySyncResult = ProxySyncResult> {
  /** the proxiers, in the order of the families given */
  readonly proxiers: readonly Proxier<R>[];

  constructor(node: ProxyNode, families: readonly IPFamily[], create: (state: ProxyState) => Proxier<R>) {
    if (families.length === 0 || new Set(families).size !== families.length)
      throw new TypeError(
        `MetaProxier: families must be distinct IP families, got ${JSON.stringify(families)}`,
      );
    this.proxiers = families.map((f) => create(new ProxyState(node, f)));
  }

  get families(): IPFamily[] {
    return this.proxiers.map((p) => p.family);
  }

  onServiceAdd(svc: Service): void {
    for (const p of this.proxiers) p.state.onServiceAdd(svc);
  }
  onServiceUpdate(old: Service, svc: Service): void {
    for (const p of this.proxiers) p.state.onServiceUpdate(old, svc);
  }
  onServiceDelete(svc: Service): void {
    for (const p of this.proxiers) p.state.onServiceDelete(svc);
  }
  onEndpointSliceAdd(slice: EndpointSlice): void {
    this.stateOf(slice)?.onEndpointSliceAdd(slice);
  }
  onEndpointSliceUpdate(old: EndpointSlice, slice: EndpointSlice): void {
    this.stateOf(slice)?.onEndpointSliceUpdate(old, slice);
  }
  onEndpointSliceDelete(slice: EndpointSlice): void {
    this.stateOf(slice)?.onEndpointSliceDelete(slice);
  }

  private stateOf(slice: EndpointSlice): ProxyState | undefined {
    return this.proxiers.find((p) => p.family === slice.addressType)?.state;
  }

  /** One sync of each family's proxier. */
  sync(): FamilySync<R>[] {
    return this.proxiers.map((p) => ({ family: p.family, result: p.sync() }));
  }

  forceFullSync(): void {
    for (const p of this.proxiers) p.forceFullSync();
  }

  onTopologyChange(labels: Readonly<Record<string, string>>): void {
    for (const p of this.proxiers) p.onTopologyChange(labels);
  }

  /** Invalid objects any family skipped (a Service is checked by each: listed once). */
  invalidObjects(): ProxyModelError[] {
    const seen = new Map<string, ProxyModelError>();
    for (const p of this.proxiers) for (const e of p.state.invalidObjects()) seen.set(e.message, e);
    return [...seen.values()];
  }
}

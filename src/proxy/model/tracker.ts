/**
 * Change tracking driven by watch events, as kube-proxy does it (pkg/proxy/servicechangetracker.go,
 * endpointschangetracker.go, servicemap Update, endpointsmap Update):
 *
 *   watch event ──► tracker.update(...)   (pending changes merged per Service until the next sync;
 *                                          a change that ends where it started is dropped)
 *   sync        ──► state.applyChanges()  (pending merged into ServicePortMap / EndpointsMap;
 *                                          returns which Services changed — the set a partial
 *                                          iptables sync rewrites)
 *
 * Example (one Service "ns/a"):   add a → update a (port 80→81) → [sync]  ⇒ updatedServices {ns/a},
 * ServicePortMap holds only port 81.   update a (81→82) → update a (82→81) → [sync]  ⇒ {} (no-op).
 */
import type { EndpointSlice, Service } from '../../api/types.js';
import { EndpointSliceCache, endpointListsEqual } from './endpoints.js';
import type { IPFamily } from './ip.js';
import { servicePortMapsEqual, servicePortsFromService } from './service.js';
import { namespacedName, type EndpointsMap, type ProxyNode, type ServicePortMap } from './types.js';

interface ServiceChange {
  previous: ServicePortMap;
  current: ServicePortMap;
}

/** Go proxy.ServiceChangeTracker: accumulates Service changes per "ns/name" until applied. */
export class ServiceChangeTracker {
  private items = new Map<string, ServiceChange>();

  constructor(readonly family: IPFamily = 'IPv4') {}

  /**
   * Records an add (previous=null), update, or delete (current=null). Returns true when
   * changes are pending (Go: `len(sct.items) > 0`).
   */
  update(previous: Service | null | undefined, current: Service | null | undefined): boolean {
    const svc = current ?? previous;
    if (!svc) return false;
    const key = namespacedName(svc.metadata?.namespace ?? 'default', svc.metadata?.name ?? '');
    let change = this.items.get(key);
    if (!change) {
      change = { previous: servicePortsFromService(previous as Service, this.family), current: new Map() };
      this.items.set(key, change);
    }
    change.current = servicePortsFromService(current as Service, this.family);
    if (servicePortMapsEqual(change.previous, change.current)) this.items.delete(key);
    return this.items.size > 0;
  }

  /** Services ("ns/name") with pending changes. */
  pendingServices(): string[] {
    return [...this.items.keys()];
  }

  /** Applies pending changes to `map` (Go ServicePortMap.Update); returns the changed Services. */
  applyTo(map: ServicePortMap): Set<string> {
    const updated = new Set<string>();
    for (const [name, change] of this.items) {
      updated.add(name);
      for (const [k, v] of change.current) map.set(k, v);
      for (const k of change.previous.keys()) if (!change.current.has(k)) map.delete(k);
    }
    this.items = new Map();
    return updated;
  }
}

/** Go proxy.EndpointsChangeTracker: EndpointSlice events into pending per-Service changes. */
export class EndpointsChangeTracker {
  readonly cache: EndpointSliceCache;

  constructor(
    readonly nodeName: string,
    readonly family: IPFamily = 'IPv4',
  ) {
    this.cache = new EndpointSliceCache(nodeName, family);
  }

  /**
   * Records a slice add/update (remove=false) or delete (remove=true). Slices whose
   * addressType is not this family are ignored. Returns true when the slice changed anything.
   */
  endpointSliceUpdate(slice: EndpointSlice, remove: boolean): boolean {
    if (slice.addressType !== this.family) return false;
    return this.cache.updatePending(slice, remove);
  }

  /** Services ("ns/name") with pending changes. */
  pendingServices(): string[] {
    return this.cache.pendingServices();
  }

  /** Applies pending changes to `map` (Go EndpointsMap.Update); returns the changed Services. */
  applyTo(map: EndpointsMap): { updatedServices: Set<string>; endpointsChanged: Set<string> } {
    const updatedServices = new Set<string>();
    const endpointsChanged = new Set<string>();
    for (const [service, change] of this.cache.checkoutChanges()) {
      updatedServices.add(service);
      for (const k of change.previous.keys()) map.delete(k);
      for (const [k, v] of change.current) map.set(k, v);
      // which service ports' endpoint lists really differ (informational; kube-proxy rewrites the whole Service)
      for (const k of new Set([...change.previous.keys(), ...change.current.keys()])) {
        const a = change.previous.get(k),
          b = change.current.get(k);
        if (!a || !b || !endpointListsEqual(a, b)) endpointsChanged.add(k);
      }
    }
    return { updatedServices, endpointsChanged };
  }
}

/** What one sync sees: the Services whose chains must be rewritten. */
export interface AppliedChanges {
  /** "ns/name" of Services whose Service object changed since the last sync */
  readonly servicesChanged: ReadonlySet<string>;
  /** "ns/name" of Services whose EndpointSlices changed since the last sync */
  readonly endpointsChanged: ReadonlySet<string>;
  /** union of the two: kube-proxy's partial sync rewrites exactly these Services' chains */
  readonly updatedServices: ReadonlySet<string>;
}

/**
 * One proxier's state for one node and one IP family: the two change trackers and the maps
 * they feed. Drive it with watch events (`onService*`, `onEndpointSlice*`), then call
 * `applyChanges()` at sync time and hand `servicePorts` / `endpoints` to a renderer.
 */
export class ProxyState {
  readonly servicePorts: ServicePortMap = new Map();
  readonly endpoints: EndpointsMap = new Map();
  readonly serviceChanges: ServiceChangeTracker;
  readonly endpointsChanges: EndpointsChangeTracker;

  private currentNode: ProxyNode;

  constructor(
    node: ProxyNode,
    readonly family: IPFamily = 'IPv4',
  ) {
    this.currentNode = node;
    this.serviceChanges = new ServiceChangeTracker(family);
    this.endpointsChanges = new EndpointsChangeTracker(node.name, family);
  }

  /** The node this proxier runs on. */
  get node(): ProxyNode {
    return this.currentNode;
  }

  /**
   * The node's topology labels changed (kube-proxy's OnTopologyChange). Every Service may route
   * differently now, so the caller must force a full sync (IptablesSyncer.onTopologyChange does).
   */
  setTopologyLabels(labels: Readonly<Record<string, string>>): void {
    this.currentNode = { ...this.currentNode, topologyLabels: { ...labels } };
  }

  onServiceAdd(svc: Service): boolean {
    return this.serviceChanges.update(null, svc);
  }
  onServiceUpdate(oldSvc: Service, svc: Service): boolean {
    return this.serviceChanges.update(oldSvc, svc);
  }
  onServiceDelete(svc: Service): boolean {
    return this.serviceChanges.update(svc, null);
  }
  onEndpointSliceAdd(slice: EndpointSlice): boolean {
    return this.endpointsChanges.endpointSliceUpdate(slice, false);
  }
  onEndpointSliceUpdate(_old: EndpointSlice, slice: EndpointSlice): boolean {
    return this.endpointsChanges.endpointSliceUpdate(slice, false);
  }
  onEndpointSliceDelete(slice: EndpointSlice): boolean {
    return this.endpointsChanges.endpointSliceUpdate(slice, true);
  }

  /** True when a sync would find pending changes. */
  hasPendingChanges(): boolean {
    return (
      this.serviceChanges.pendingServices().length > 0 || this.endpointsChanges.pendingServices().length > 0
    );
  }

  /** Merges pending changes into the maps (start of kube-proxy's syncProxyRules). */
  applyChanges(): AppliedChanges {
    const servicesChanged = this.serviceChanges.applyTo(this.servicePorts);
    const endpointsChanged = this.endpointsChanges.applyTo(this.endpoints).updatedServices;
    const updatedServices = new Set([...servicesChanged, ...endpointsChanged]);
    return { servicesChanged, endpointsChanged, updatedServices };
  }
}

/**
 * Builds a ProxyState from a snapshot (all Services and EndpointSlices at once) and applies it:
 * the state kube-proxy reaches after its informers have synced.
 */
export function buildProxyState(
  services: readonly Service[],
  slices: readonly EndpointSlice[],
  node: ProxyNode,
  family: IPFamily = 'IPv4',
): ProxyState {
  const state = new ProxyState(node, family);
  for (const s of services) state.onServiceAdd(s);
  for (const s of slices) state.onEndpointSliceAdd(s);
  state.applyChanges();
  return state;
}

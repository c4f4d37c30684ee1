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
import { EndpointListMap } from './endpoint-columns.js';
import { checkEndpointSlice, EndpointSliceCache } from './endpoints.js';
import type { IPFamily } from './ip.js';
import { ProxyModelError, servicePortMapsEqual, servicePortsFromService } from './service.js';
import { namespacedName, type ProxyNode, type ServicePortMap } from './types.js';

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
    // the new state first: when it is invalid (throws), nothing pending changes
    const currentPorts = servicePortsFromService(current as Service, this.family);
    let change = this.items.get(key);
    if (!change) {
      change = { previous: servicePortsFromService(previous as Service, this.family), current: new Map() };
      this.items.set(key, change);
    }
    change.current = currentPorts;
    if (servicePortMapsEqual(change.previous, change.current)) this.items.delete(key);
    return this.items.size > 0;
  }

  /** Services ("ns/name") with pending changes. */
  pendingServices(): string[] {
    return [...this.items.keys()];
  }

  /**
   * Applies pending changes to `map` (Go ServicePortMap.Update); returns the changed Services.
   * `byService` ("ns/name" → its port keys), when given, is kept in step.
   */
  applyTo(map: ServicePortMap, byService?: Map<string, readonly string[]>): Set<string> {
    const updated = new Set<string>();
    for (const [name, change] of this.items) {
      updated.add(name);
      for (const [k, v] of change.current) map.set(k, v);
      for (const k of change.previous.keys()) if (!change.current.has(k)) map.delete(k);
      if (byService) {
        if (change.current.size > 0) byService.set(name, [...change.current.keys()]);
        else byService.delete(name);
      }
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
  applyTo(map: EndpointListMap): { updatedServices: Set<string>; endpointsChanged: Set<string> } {
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
        if (!a || !b || !a.sameEndpoints(b)) endpointsChanged.add(k);
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
 *
 * An object with a value the API server would reject (checkService, checkEndpointSlice) is not
 * applied: kube-proxy never sees such an object, and one bad Service must not abort a sync or
 * put an invalid value into the rules. The event is skipped — an invalid update leaves the last
 * valid version in place — and the object is listed in `invalidObjects()` until a valid version
 * or its deletion arrives.
 *
 *   onServiceAdd(a)  onServiceUpdate(a, a')  [a' has clusterIP 999.1.1.1]  sync → a still served,
 *   invalidObjects() = [Service ns/a: spec.clusterIP: "999.1.1.1" is not an IP address]
 */
export class ProxyState {
  readonly servicePorts: ServicePortMap = new Map();
  /** per service port its endpoints, held as columns (endpoint-columns.ts); `get` builds EndpointInfo[] */
  readonly endpoints = new EndpointListMap();
  readonly serviceChanges: ServiceChangeTracker;
  readonly endpointsChanges: EndpointsChangeTracker;
  /** "ns/name" → the keys of its ports in `servicePorts`, so a sync can find a Service's ports */
  private readonly portsByService = new Map<string, readonly string[]>();

  private currentNode: ProxyNode;
  /** the last valid version of each Service, by "ns/name" (what kube-proxy's informer holds) */
  private readonly acceptedServices = new Map<string, Service>();
  /** objects whose latest version was invalid, by "Kind ns/name" */
  private readonly invalid = new Map<string, ProxyModelError>();

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
   * differently now, so the caller must force a full sync (Proxier.onTopologyChange does).
   */
  setTopologyLabels(labels: Readonly<Record<string, string>>): void {
    this.currentNode = { ...this.currentNode, topologyLabels: { ...labels } };
  }

  /** Objects whose latest version was invalid and is not applied, sorted by object. */
  invalidObjects(): ProxyModelError[] {
    return [...this.invalid.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([, e]) => e);
  }

  onServiceAdd(svc: Service): boolean {
    return this.serviceEvent(svc, false);
  }
  onServiceUpdate(_old: Service, svc: Service): boolean {
    return this.serviceEvent(svc, false);
  }
  onServiceDelete(svc: Service): boolean {
    return this.serviceEvent(svc, true);
  }
  onEndpointSliceAdd(slice: EndpointSlice): boolean {
    return this.sliceEvent(slice, false);
  }
  onEndpointSliceUpdate(_old: EndpointSlice, slice: EndpointSlice): boolean {
    return this.sliceEvent(slice, false);
  }
  onEndpointSliceDelete(slice: EndpointSlice): boolean {
    return this.sliceEvent(slice, true);
  }

  // Changes are computed from the last accepted version, not the event's old object, so that a
  // skipped invalid version in between does not confuse them.
  private serviceEvent(svc: Service, remove: boolean): boolean {
    const key = namespacedName(svc.metadata?.namespace ?? 'default', svc.metadata?.name ?? '');
    const id = `Service ${key}`;
    const previous = this.acceptedServices.get(key) ?? null;
    this.invalid.delete(id);
    if (remove) {
      this.acceptedServices.delete(key);
      return this.serviceChanges.update(previous, null);
    }
    try {
      const pending = this.serviceChanges.update(previous, svc);
      this.acceptedServices.set(key, svc);
      return pending;
    } catch (e) {
      if (!(e instanceof ProxyModelError)) throw e;
      this.invalid.set(id, e);
      return this.hasPendingChanges();
    }
  }

  private sliceEvent(slice: EndpointSlice, remove: boolean): boolean {
    const id = `EndpointSlice ${slice.metadata?.namespace ?? 'default'}/${slice.metadata?.name}`;
    this.invalid.delete(id);
    if (!remove) {
      try {
        checkEndpointSlice(slice);
      } catch (e) {
        if (!(e instanceof ProxyModelError)) throw e;
        this.invalid.set(id, e);
        return false;
      }
    }
    return this.endpointsChanges.endpointSliceUpdate(slice, remove);
  }

  /** True when a sync would find pending changes. */
  hasPendingChanges(): boolean {
    return (
      this.serviceChanges.pendingServices().length > 0 || this.endpointsChanges.pendingServices().length > 0
    );
  }

  /** The keys of a Service's ports in `servicePorts` ("ns/name" → "ns/name:port/PROTO"; none if unknown). */
  servicePortKeys(service: string): readonly string[] {
    return this.portsByService.get(service) ?? [];
  }

  /** The number of Services with a port in `servicePorts` (without walking them). */
  get serviceCount(): number {
    return this.portsByService.size;
  }

  /** Merges pending changes into the maps (start of kube-proxy's syncProxyRules). */
  applyChanges(): AppliedChanges {
    const servicesChanged = this.serviceChanges.applyTo(this.servicePorts, this.portsByService);
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

/**
 * EndpointSlices → per-service-port endpoint lists, as kube-proxy's EndpointSliceCache does it
 * (pkg/proxy/endpointslicecache.go):
 *
 *   - a slice belongs to the Service named by its `kubernetes.io/service-name` label; slices
 *     without it, or whose addressType is not the proxier's family, are ignored;
 *   - each slice is reduced to an "info" (ports sorted, endpoints with their first address,
 *     conditions with Kubernetes' nil defaults: ready=true, serving=true, terminating=false,
 *     sorted by address) so that a no-op update can be recognised and dropped;
 *   - for every slice port (name "" if unset, protocol TCP if unset; port 0/unset ignored)
 *     endpoints of all slices of the Service are merged and deduplicated by "ip:port"
 *     (a local copy wins over a remote one), endpoints of the other family dropped, and the
 *     list sorted by "ip:port" text (Go `byEndpoint`).
 */
import type { EndpointSlice } from '../../api/types.js';
import { canonicalIP, ipFamilyOf, joinHostPort, type IPFamily } from './ip.js';
import { ProxyModelError } from './service.js';
import {
  namespacedName,
  servicePortKey,
  type EndpointInfo,
  type EndpointsMap,
  type Protocol,
} from './types.js';

/** The label that ties an EndpointSlice to its Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

interface SliceEndpoint {
  readonly addresses: readonly string[];
  readonly nodeName?: string;
  readonly zone?: string;
  readonly ready: boolean;
  readonly serving: boolean;
  readonly terminating: boolean;
  readonly zoneHints: readonly string[];
  readonly nodeHints: readonly string[];
}

interface SlicePort {
  readonly name: string;
  readonly port: number;
  readonly protocol: Protocol;
}

/** The parts of one EndpointSlice kube-proxy looks at (Go `endpointSliceInfo`). */
export interface EndpointSliceInfo {
  readonly ports: readonly SlicePort[];
  readonly endpoints: readonly SliceEndpoint[];
  readonly remove: boolean;
  /** canonical text of ports+endpoints+remove, for change detection */
  readonly signature: string;
}

/** Keys of a slice: its Service ("ns/name") and the slice itself ("name"); null when unlabeled. */
export function endpointSliceKeys(slice: EndpointSlice): { service: string; slice: string } | null {
  const svc = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
  const ns = slice.metadata?.namespace ?? 'default';
  if (!svc || !slice.metadata?.name) return null;
  return { service: namespacedName(ns, svc), slice: slice.metadata.name };
}

const PORT_NAME = /^(?=.{1,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Checks the EndpointSlice fields kube-proxy reads and throws a ProxyModelError naming the first
 * value the API server would reject (pkg/apis/discovery/validation): port numbers, protocols and
 * names, and the endpoints' addresses, which must be IPs of the slice's addressType. Such a slice
 * never reaches kube-proxy, so the model skips it whole — a port "x" would otherwise end up in a
 * DNAT target. A slice without a port number is valid (kube-proxy ignores that port).
 */
export function checkEndpointSlice(slice: EndpointSlice): void {
  const where = `EndpointSlice ${slice.metadata?.namespace ?? 'default'}/${slice.metadata?.name}`;
  (slice.ports ?? []).forEach((p, i) => {
    const name = p.name ?? '';
    if (name !== '' && (typeof name !== 'string' || !PORT_NAME.test(name)))
      throw new ProxyModelError(
        where,
        `ports[${i}].name`,
        `${JSON.stringify(name)} is not a valid port name`,
      );
    if (
      p.port !== undefined &&
      p.port !== null &&
      !(Number.isInteger(p.port) && p.port >= 1 && p.port <= 65535)
    )
      throw new ProxyModelError(
        where,
        `ports[${i}].port`,
        `${JSON.stringify(p.port)} is not a port number (1-65535)`,
      );
    const protocol = p.protocol ?? 'TCP';
    if (protocol !== 'TCP' && protocol !== 'UDP' && protocol !== 'SCTP')
      throw new ProxyModelError(
        where,
        `ports[${i}].protocol`,
        `"${String(protocol)}" is not TCP, UDP or SCTP`,
      );
  });
  const family = slice.addressType === 'IPv4' || slice.addressType === 'IPv6' ? slice.addressType : null;
  if (!family) return;
  (slice.endpoints ?? []).forEach((ep, i) => {
    (ep.addresses ?? []).forEach((a, j) => {
      if (typeof a !== 'string' || ipFamilyOf(a) !== family)
        throw new ProxyModelError(
          where,
          `endpoints[${i}].addresses[${j}]`,
          `${JSON.stringify(a)} is not an ${family} address`,
        );
    });
  });
}

/** Reduces a slice to what kube-proxy compares and uses (Go newEndpointSliceInfo). */
export function endpointSliceInfo(slice: EndpointSlice, remove: boolean): EndpointSliceInfo {
  const ports: SlicePort[] = (slice.ports ?? []).map((p) => ({
    name: p.name ?? '',
    port: p.port ?? 0,
    protocol: (p.protocol ?? 'TCP') as Protocol,
  }));
  // Go byPort sorts by port number
  ports.sort((a, b) => a.port - b.port);
  const endpoints: SliceEndpoint[] = [];
  if (!remove) {
    for (const ep of slice.endpoints ?? []) {
      const c = ep.conditions ?? {};
      const hints = ep.hints as { forZones?: { name: string }[]; forNodes?: { name: string }[] } | undefined;
      endpoints.push({
        addresses: ep.addresses ?? [],
        nodeName: ep.nodeName,
        zone: ep.zone,
        ready: c.ready === undefined || c.ready === null ? true : c.ready,
        serving: c.serving === undefined || c.serving === null ? true : c.serving,
        terminating: c.terminating === true,
        zoneHints: (hints?.forZones ?? []).map((z) => z.name),
        nodeHints: (hints?.forNodes ?? []).map((n) => n.name),
      });
    }
    // Go byAddress: by first address text
    endpoints.sort((a, b) => cmp(a.addresses[0] ?? '', b.addresses[0] ?? ''));
  }
  const signature = JSON.stringify([ports, endpoints, remove]);
  return { ports, endpoints, remove, signature };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

interface ServiceSlices {
  applied: Map<string, EndpointSliceInfo>;
  pending: Map<string, EndpointSliceInfo>;
}

/**
 * Holds every EndpointSlice seen, per Service, split into applied (what the last sync used)
 * and pending (changed since). `updatePending` returns whether the slice changes anything;
 * `checkoutChanges` moves pending into applied and returns, per changed Service, its
 * endpoints before and after.
 */
export class EndpointSliceCache {
  private readonly byService = new Map<string, ServiceSlices>();
  /** Services with pending slices, so that a sync visits only what changed (not every Service) */
  private readonly dirty = new Set<string>();
  private readonly emptyHints: ReadonlySet<string> = new Set();

  constructor(
    readonly nodeName: string,
    readonly family: IPFamily = 'IPv4',
  ) {}

  /** Records a slice add/update (remove=false) or delete (remove=true); true if it changes state. */
  updatePending(slice: EndpointSlice, remove: boolean): boolean {
    const keys = endpointSliceKeys(slice);
    if (!keys) return false;
    const info = endpointSliceInfo(slice, remove);
    if (!this.infoChanged(keys.service, keys.slice, info)) return false;
    let t = this.byService.get(keys.service);
    if (!t) {
      t = { applied: new Map(), pending: new Map() };
      this.byService.set(keys.service, t);
    }
    t.pending.set(keys.slice, info);
    this.dirty.add(keys.service);
    return true;
  }

  private infoChanged(service: string, slice: string, info: EndpointSliceInfo): boolean {
    const t = this.byService.get(service);
    if (t) {
      const pending = t.pending.get(slice);
      if (pending) return pending.signature !== info.signature;
      const applied = t.applied.get(slice);
      if (applied) return applied.signature !== info.signature;
    }
    return !info.remove;
  }

  /** Services ("ns/name") with pending slice changes. */
  pendingServices(): string[] {
    const out: string[] = [];
    for (const k of this.dirty) if (this.byService.get(k)?.pending.size) out.push(k);
    return out;
  }

  /** Applies pending changes; returns per Service its endpoints map before and after. */
  checkoutChanges(): Map<string, { previous: EndpointsMap; current: EndpointsMap }> {
    const changes = new Map<string, { previous: EndpointsMap; current: EndpointsMap }>();
    // in the order their first pending slice arrived (the renderers sort by Service themselves)
    const services = [...this.dirty].filter((s) => this.byService.get(s)?.pending.size);
    this.dirty.clear();
    for (const service of services) {
      const t = this.byService.get(service)!;
      const previous = this.endpointsMapFor(service, t.applied);
      for (const [name, info] of t.pending) {
        if (info.remove) t.applied.delete(name);
        else t.applied.set(name, info);
      }
      t.pending.clear();
      const current = this.endpointsMapFor(service, t.applied);
      changes.set(service, { previous, current });
      if (t.applied.size === 0) this.byService.delete(service);
    }
    return changes;
  }

  /** The endpoints of one Service from the given slices (Go getEndpointsMap). */
  endpointsMapFor(service: string, slices: Map<string, EndpointSliceInfo>): EndpointsMap {
    const slash = service.indexOf('/');
    const namespace = service.slice(0, slash);
    const name = service.slice(slash + 1);
    const byPort = new Map<string, Map<string, EndpointInfo>>();
    // iterate slices by name so the (rare) dedup choice is deterministic
    const sliceNames = [...slices.keys()].sort(cmp);
    for (const sliceName of sliceNames) {
      const info = slices.get(sliceName)!;
      for (const p of info.ports) {
        if (!p.port) continue;
        const key = servicePortKey({ namespace, name, port: p.name, protocol: p.protocol });
        let set = byPort.get(key);
        if (!set) {
          set = new Map();
          byPort.set(key, set);
        }
        this.addEndpoints(set, p.port, info.endpoints);
      }
    }
    const out: EndpointsMap = new Map();
    for (const [key, set] of byPort) {
      if (set.size === 0) continue;
      const list = [...set.values()].sort((a, b) => cmp(a.endpoint, b.endpoint));
      out.set(key, list);
    }
    return out;
  }

  private addEndpoints(
    set: Map<string, EndpointInfo>,
    port: number,
    endpoints: readonly SliceEndpoint[],
  ): void {
    for (const ep of endpoints) {
      if (ep.addresses.length === 0) continue;
      const ip = canonicalIP(ep.addresses[0]);
      if (!ip || ipFamilyOf(ip) !== this.family) continue;
      const isLocal = ep.nodeName !== undefined && ep.nodeName === this.nodeName;
      const endpoint = joinHostPort(ip, port);
      if (set.has(endpoint) && !isLocal) continue;
      set.set(endpoint, {
        ip,
        port,
        endpoint,
        isLocal,
        ready: ep.ready,
        serving: ep.serving,
        terminating: ep.terminating,
        zoneHints: ep.zoneHints.length ? new Set(ep.zoneHints) : this.emptyHints,
        nodeHints: ep.nodeHints.length ? new Set(ep.nodeHints) : this.emptyHints,
        nodeName: ep.nodeName,
        zone: ep.zone,
      });
    }
  }
}

/** Equality of two endpoint lists (sorted) as kube-proxy's change detection sees them. */
export function endpointListsEqual(a: readonly EndpointInfo[], b: readonly EndpointInfo[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i],
      y = b[i];
    if (
      x.endpoint !== y.endpoint ||
      x.isLocal !== y.isLocal ||
      x.ready !== y.ready ||
      x.serving !== y.serving ||
      x.terminating !== y.terminating ||
      !setEq(x.zoneHints, y.zoneHints) ||
      !setEq(x.nodeHints, y.nodeHints)
    )
      return false;
  }
  return true;
}

function setEq(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const v of a) if (!b.has(v)) return false;
  return true;
}

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
import {
  type Entry,
  type EndpointList,
  endpointList,
  entryOf,
  NO_ADDRESS,
  READY,
  type RareEndpointFields,
  SERVING,
  SliceEndpoints,
  StringTable,
  TERMINATING,
  TEXT,
} from './endpoint-columns.js';
import {
  canonicalIP,
  canonicalIPv4Value,
  formatIPv4,
  ipFamilyOf,
  joinHostPort,
  type IPFamily,
} from './ip.js';
import { ProxyModelError } from './service.js';
import { namespacedName, servicePortKey, type Protocol } from './types.js';

/** One Service's endpoints: service port key → its list. */
export type ServiceEndpoints = Map<string, EndpointList>;

/** The label that ties an EndpointSlice to its Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

interface SlicePort {
  readonly name: string;
  readonly port: number;
  readonly protocol: Protocol;
}

/** The parts of one EndpointSlice kube-proxy looks at (Go `endpointSliceInfo`), endpoints as columns. */
export interface EndpointSliceInfo {
  readonly ports: readonly SlicePort[];
  readonly endpoints: SliceEndpoints;
  readonly remove: boolean;
}

/** Go reflect.DeepEqual of two slice infos: what drops a no-op slice update. */
export function sliceInfoEqual(a: EndpointSliceInfo, b: EndpointSliceInfo): boolean {
  if (a.remove !== b.remove || a.ports.length !== b.ports.length) return false;
  for (let i = 0; i < a.ports.length; i++) {
    const p = a.ports[i],
      q = b.ports[i];
    if (p.name !== q.name || p.port !== q.port || p.protocol !== q.protocol) return false;
  }
  return a.endpoints.equals(b.endpoints);
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

const NO_ENDPOINTS = new SliceEndpoints(new Uint32Array(0), null, null);

/**
 * Reduces a slice to what kube-proxy compares and uses (Go newEndpointSliceInfo): ports sorted by
 * number, endpoints by first address, node names and zones interned in `table`.
 */
export function endpointSliceInfo(
  slice: EndpointSlice,
  remove: boolean,
  table: StringTable,
): EndpointSliceInfo {
  const ports: SlicePort[] = (slice.ports ?? []).map((p) => ({
    name: p.name ?? '',
    port: p.port ?? 0,
    protocol: (p.protocol ?? 'TCP') as Protocol,
  }));
  // Go byPort sorts by port number
  ports.sort((a, b) => a.port - b.port);
  if (remove) return { ports, endpoints: NO_ENDPOINTS, remove };
  const eps = slice.endpoints ?? [];
  // Go byAddress: by first address text (a stable sort of the indexes)
  const first = eps.map((ep) => ep.addresses?.[0] ?? '');
  const order = eps.map((_, i) => i).sort((a, b) => cmp(first[a], first[b]));
  const cols = new Uint32Array(3 * eps.length);
  let texts: string[] | null = null;
  let rare: Map<number, RareEndpointFields> | null = null;
  order.forEach((from, i) => {
    const ep = eps[from];
    const c = ep.conditions ?? {};
    const ready = c.ready === undefined || c.ready === null ? true : c.ready;
    const serving = c.serving === undefined || c.serving === null ? true : c.serving;
    const v4 = canonicalIPv4Value(first[from]);
    const flags =
      (ready ? READY : 0) |
      (serving ? SERVING : 0) |
      (c.terminating === true ? TERMINATING : 0) |
      ((ep.addresses ?? []).length === 0 ? NO_ADDRESS : 0) |
      (v4 < 0 ? TEXT : 0);
    cols[3 * i] = (flags | (table.id(ep.zone) << 5)) >>> 0;
    cols[3 * i + 1] = table.id(ep.nodeName);
    if (v4 >= 0) cols[3 * i + 2] = v4;
    else {
      texts ??= new Array<string>(eps.length).fill('');
      texts[i] = first[from];
    }
    const hints = ep.hints as { forZones?: { name: string }[]; forNodes?: { name: string }[] } | undefined;
    const zoneHints = (hints?.forZones ?? []).map((z) => z.name);
    const nodeHints = (hints?.forNodes ?? []).map((n) => n.name);
    if ((ep.addresses?.length ?? 0) > 1 || zoneHints.length || nodeHints.length) {
      rare ??= new Map();
      rare.set(i, { addresses: [...(ep.addresses ?? [])], zoneHints, nodeHints });
    }
  });
  return { ports, endpoints: new SliceEndpoints(cols, texts, rare), remove };
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
  /** node names and zones of every endpoint, interned */
  readonly table = new StringTable();

  constructor(
    readonly nodeName: string,
    readonly family: IPFamily = 'IPv4',
  ) {}

  /** Records a slice add/update (remove=false) or delete (remove=true); true if it changes state. */
  updatePending(slice: EndpointSlice, remove: boolean): boolean {
    const keys = endpointSliceKeys(slice);
    if (!keys) return false;
    const info = endpointSliceInfo(slice, remove, this.table);
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
      if (pending) return !sliceInfoEqual(pending, info);
      const applied = t.applied.get(slice);
      if (applied) return !sliceInfoEqual(applied, info);
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
  checkoutChanges(): Map<string, { previous: ServiceEndpoints; current: ServiceEndpoints }> {
    const changes = new Map<string, { previous: ServiceEndpoints; current: ServiceEndpoints }>();
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

  /** The endpoints of one Service from the given slices (Go getEndpointsMap), per service port key. */
  endpointsMapFor(service: string, slices: Map<string, EndpointSliceInfo>): ServiceEndpoints {
    const slash = service.indexOf('/');
    const namespace = service.slice(0, slash);
    const name = service.slice(slash + 1);
    const byPort = new Map<string, Map<string, Entry>>();
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
    const out: ServiceEndpoints = new Map();
    for (const [key, set] of byPort) if (set.size > 0) out.set(key, endpointList(set, this.table));
    return out;
  }

  private addEndpoints(set: Map<string, Entry>, port: number, endpoints: SliceEndpoints): void {
    const self = this.table.id(this.nodeName);
    for (let i = 0; i < endpoints.length; i++) {
      const flags = endpoints.flags(i);
      if (flags & NO_ADDRESS) continue;
      let v4 = -1;
      let text = '';
      if (!(flags & TEXT)) {
        if (this.family !== 'IPv4') continue;
        v4 = endpoints.v4(i);
        text = formatIPv4(v4);
      } else {
        const canonical = canonicalIP(endpoints.texts![i]);
        if (!canonical || ipFamilyOf(canonical) !== this.family) continue;
        v4 = canonicalIPv4Value(canonical);
        text = canonical;
      }
      const isLocal = endpoints.node(i) !== 0 && endpoints.node(i) === self;
      const endpoint = joinHostPort(text, port);
      if (set.has(endpoint) && !isLocal) continue;
      set.set(endpoint, entryOf(endpoints, i, v4, text, port, isLocal));
    }
  }
}

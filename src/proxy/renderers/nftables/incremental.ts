/**
 * What the nftables proxier remembers per service port between syncs, so that a partial sync
 * costs what changed. kube-proxy's partial sync (pkg/proxy/nftables/proxier.go syncProxyRules)
 * rewrites only the changed Services' chains, but still visits every service port: to mark its
 * chains active (so they are not flushed as stale) and to ensure its map elements (so they are not
 * deleted as leftovers). Both only ever find "nothing to do" for an unchanged port. This index
 * keeps, per port, the chains, affinity sets and elements it wants, with reference counts, so that
 * a sync visits the changed ports only:
 *
 *   chain / affinity set stale   ⇔ its last port let go of it       (instead of: not marked by the walk)
 *   element leftover             ⇔ its last port let go of it       (instead of: not ensured by the walk)
 *
 * The walk and the index agree as long as no key of a map is wanted by two ports (two Services
 * with the same external IP and port): then the walk's result depends on the order ports overwrite
 * each other's value, so the proxier falls back to the walk for as long as such a key exists
 * (`sharedMapKeys`).
 */
import type { EndpointInfo, ServicePortInfo } from '../../model/index.js';
import type { ElementStorage } from './elements.js';
import {
  type ElementSink,
  type NftRulesConfig,
  SERVICE_MAP_NAMES,
  type ServiceMaps,
  writeServicePort,
} from './rules.js';
import { NftTransaction } from './transaction.js';
import type { ProxyNode } from '../../model/index.js';
import { PortTable } from '../port-table.js';

type MapName = (typeof SERVICE_MAP_NAMES)[number];

/** What one service port wants. */
export interface PortWants {
  readonly serviceName: string;
  readonly chains: readonly string[];
  readonly affinitySets: readonly string[];
  /** element keys per map */
  readonly elements: Readonly<Record<MapName, readonly string[]>>;
}

class Recorder implements ElementSink {
  keys: string[] = [];
  ensure(_tx: NftTransaction, key: string): void {
    this.keys.push(key);
  }
}

/** Counts references; `onLast` hears when the last one goes. */
class RefCounts {
  private readonly n = new Map<string, number>();
  add(k: string): void {
    this.n.set(k, (this.n.get(k) ?? 0) + 1);
  }
  /** true when this was the last reference */
  remove(k: string): boolean {
    const n = this.n.get(k) ?? 0;
    if (n <= 1) {
      this.n.delete(k);
      return true;
    }
    this.n.set(k, n - 1);
    return false;
  }
  has(k: string): boolean {
    return this.n.has(k);
  }
  clear(): void {
    this.n.clear();
  }
}

/** What replacing some ports' wants released: chains, sets and element keys nobody wants now. */
export interface Released {
  readonly chains: string[];
  readonly affinitySets: string[];
  readonly elements: Record<MapName, string[]>;
}

export class PortIndex {
  readonly ports = new PortTable<PortWants>();
  readonly chainRefs = new RefCounts();
  readonly setRefs = new RefCounts();

  constructor(private readonly maps: ServiceMaps<ElementStorage>) {}

  /** Keys of map elements more than one port wants (the walk must then decide who wins). */
  sharedMapKeys(): number {
    let n = 0;
    for (const m of SERVICE_MAP_NAMES) if (this.maps[m].kind === 'map') n += this.maps[m].shared;
    return n;
  }

  /** Forgets every port (a full sync records them again). */
  clear(keys: Iterable<string>): void {
    this.ports.clear(keys);
    this.chainRefs.clear();
    this.setRefs.clear();
    for (const m of SERVICE_MAP_NAMES) this.maps[m].resetOwners();
  }

  /** Records what `key` wants now (undefined: the port is gone); returns what nobody wants any more. */
  replace(key: string, next: PortWants | undefined, released: Released): void {
    const prev = this.ports.get(key);
    if (next) this.own(next);
    if (prev) {
      for (const c of prev.chains) if (this.chainRefs.remove(c)) released.chains.push(c);
      for (const s of prev.affinitySets) if (this.setRefs.remove(s)) released.affinitySets.push(s);
      for (const m of SERVICE_MAP_NAMES)
        for (const k of prev.elements[m]) {
          this.maps[m].disown(k);
          released.elements[m].push(k);
        }
    }
    this.ports.set(key, next);
  }

  private own(w: PortWants): void {
    for (const c of w.chains) this.chainRefs.add(c);
    for (const s of w.affinitySets) this.setRefs.add(s);
    for (const m of SERVICE_MAP_NAMES) for (const k of w.elements[m]) this.maps[m].own(k);
  }
}

export const newReleased = (): Released => ({
  chains: [],
  affinitySets: [],
  elements: {
    clusterIPs: [],
    serviceIPs: [],
    firewallIPs: [],
    noEndpointServices: [],
    noEndpointNodePorts: [],
    serviceNodePorts: [],
  },
});

/**
 * What a port wants, found by running writeServicePort into a throwaway transaction with
 * recorders for its maps (the same code that writes it, so the two cannot disagree).
 */
export function portWants(
  cfg: NftRulesConfig,
  node: ProxyNode,
  svc: ServicePortInfo,
  endpoints: readonly EndpointInfo[] | undefined,
): PortWants {
  const rec = {
    clusterIPs: new Recorder(),
    serviceIPs: new Recorder(),
    firewallIPs: new Recorder(),
    noEndpointServices: new Recorder(),
    noEndpointNodePorts: new Recorder(),
    serviceNodePorts: new Recorder(),
  };
  const chains: string[] = [];
  const sets: string[] = [];
  writeServicePort(
    {
      tx: new NftTransaction(cfg.ipX, 'scratch'),
      cfg,
      maps: rec,
      node,
      ensureChain: (c) => {
        if (!chains.includes(c)) chains.push(c);
      },
      useAffinitySet: (s) => {
        if (!sets.includes(s)) sets.push(s);
      },
      addAffinitySet: () => {},
    },
    svc,
    endpoints,
    true,
  );
  return {
    serviceName: svc.serviceName,
    chains,
    affinitySets: sets,
    elements: {
      clusterIPs: rec.clusterIPs.keys,
      serviceIPs: rec.serviceIPs.keys,
      firewallIPs: rec.firewallIPs.keys,
      noEndpointServices: rec.noEndpointServices.keys,
      noEndpointNodePorts: rec.noEndpointNodePorts.keys,
      serviceNodePorts: rec.serviceNodePorts.keys,
    },
  };
}

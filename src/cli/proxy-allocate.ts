/**
 * `proxy render --cluster` reads manifests as written, before any apiserver saw them. A Service
 * without `spec.clusterIP` would have been given one by kube-apiserver's Service registry when
 * created (kube-proxy only ever sees it with one), so the input path allocates it as `kubesim
 * serve` / `create` do (src/api/allocators.ts: the lowest free IP of the service CIDR,
 * kube-apiserver's default --service-cluster-ip-range 10.96.0.0/12 unless --service-cidrs names an
 * IPv4 one), after reserving every address the manifests give, and names each such Service in one
 * warning — never rendering nothing and saying nothing. Node ports are left as written: a
 * NodePort port without one renders no node-port rule, as in kube-proxy's own unit tests.
 */
import { ClusterIPAllocator } from '../api/allocators.js';
import type { Service } from '../api/types.js';

const needsClusterIP = (s: Service) =>
  s.spec?.type !== 'ExternalName' && (s.spec?.clusterIP === undefined || s.spec.clusterIP === '');

export class ServiceAddressAllocator {
  private readonly ips: ClusterIPAllocator;
  readonly cidr: string;
  /** what was allocated, by "ns/name", so an --update of the same Service keeps its address */
  private readonly given = new Map<string, string>();

  constructor(serviceCIDRs: readonly string[] = []) {
    this.cidr = serviceCIDRs.find((c) => !c.includes(':')) ?? '10.96.0.0/12';
    this.ips = new ClusterIPAllocator(this.cidr);
  }

  /**
   * Fills in the clusterIP the apiserver would have allocated (in place); returns one line per
   * Service that got one, e.g. `shop/web: clusterIP 10.96.0.2`.
   */
  allocate(services: readonly Service[]): string[] {
    const notes: string[] = [];
    // explicit addresses first, so that an allocation never takes one a manifest names; an address
    // outside the range (a snapshot of a cluster with another range) is simply kept as given
    for (const s of services) if (!needsClusterIP(s) && s.spec?.clusterIP) this.ips.reserve(s.spec.clusterIP);
    for (const s of services) {
      if (!needsClusterIP(s)) continue;
      const id = `${s.metadata.namespace ?? 'default'}/${s.metadata.name}`;
      const ip = this.given.get(id) ?? this.ips.allocate();
      this.given.set(id, ip);
      s.spec.clusterIP = ip;
      s.spec.clusterIPs = [ip];
      s.spec.ipFamilies ??= ['IPv4'];
      notes.push(`${id}: clusterIP ${ip}`);
    }
    return notes;
  }
}

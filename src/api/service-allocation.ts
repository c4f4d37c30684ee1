/**
 * The Service registry's allocation step (upstream: pkg/registry/core/service/storage/alloc.go):
 * a ClusterIP and NodePorts are allocated on create, kept across updates that do not change them,
 * and released when the Service is deleted. Explicit values are reserved or rejected (422).
 */
import { ClusterIPAllocator, NodePortAllocator } from './allocators.js';
import type { Obj } from './apiserver-kv.js';
import { invalid } from './errors.js';
import { type FieldError, invalidValue } from './field.js';
import type { ResourceInfo } from './registry.js';

export class ServiceAllocations {
  private readonly clusterIPs: ClusterIPAllocator;
  private readonly nodePorts = new NodePortAllocator();

  /** @param serviceCIDR for ClusterIP allocation (default 10.96.0.0/12) */
  constructor(serviceCIDR?: string) {
    this.clusterIPs = new ClusterIPAllocator(serviceCIDR);
  }

  /** ClusterIP / NodePort allocation on Service create; returns undo functions. */
  allocate(info: ResourceInfo, o: Obj): (() => void)[] {
    if (info.kind !== 'Service' || !o.spec || typeof o.spec !== 'object') return [];
    const undo: (() => void)[] = [];
    const s = o.spec;
    const errs: FieldError[] = [];
    if (s.type !== 'ExternalName') {
      if (s.clusterIP === undefined || s.clusterIP === '') {
        const ip = this.clusterIPs.allocate();
        s.clusterIP = ip;
        undo.push(() => this.clusterIPs.release(ip));
      } else if (s.clusterIP !== 'None') {
        const err = this.clusterIPs.reserve(s.clusterIP);
        if (err) errs.push(invalidValue('spec.clusterIPs', [s.clusterIP], err));
        else {
          const ip = s.clusterIP;
          undo.push(() => this.clusterIPs.release(ip));
        }
      }
      s.clusterIPs ??= [s.clusterIP];
      if (s.clusterIP !== 'None' || s.ipFamilies === undefined) s.ipFamilies ??= ['IPv4'];
      s.ipFamilyPolicy ??= 'SingleStack';
    }
    if ((s.type === 'NodePort' || s.type === 'LoadBalancer') && Array.isArray(s.ports)) {
      s.ports.forEach((p: any, i: number) => {
        if (!p || typeof p !== 'object') return;
        if (p.nodePort === undefined || p.nodePort === 0) {
          const port = this.nodePorts.allocate();
          p.nodePort = port;
          undo.push(() => this.nodePorts.release(port));
        } else {
          const err = this.nodePorts.reserve(p.nodePort);
          if (err) errs.push(invalidValue(`spec.ports[${i}].nodePort`, p.nodePort, err));
          else {
            const port = p.nodePort;
            undo.push(() => this.nodePorts.release(port));
          }
        }
      });
    }
    if (errs.length) {
      for (const u of undo) u();
      throw invalid(info.qualifiedKind, o.metadata.name ?? '', errs);
    }
    return undo;
  }

  /** On update a Service keeps its allocated clusterIP / nodePorts unless explicitly changed. */
  carry(old: Obj, next: Obj): void {
    const os = old.spec ?? {};
    const ns = next.spec;
    if (!ns || typeof ns !== 'object') return;
    if ((ns.clusterIP === undefined || ns.clusterIP === '') && os.clusterIP) ns.clusterIP = os.clusterIP;
    if (ns.clusterIPs === undefined && os.clusterIPs) ns.clusterIPs = os.clusterIPs;
    if (ns.ipFamilies === undefined && os.ipFamilies) ns.ipFamilies = os.ipFamilies;
    if (ns.ipFamilyPolicy === undefined && os.ipFamilyPolicy) ns.ipFamilyPolicy = os.ipFamilyPolicy;
    if (Array.isArray(ns.ports) && Array.isArray(os.ports)) {
      for (const p of ns.ports) {
        if (!p || typeof p !== 'object' || (p.nodePort !== undefined && p.nodePort !== 0)) continue;
        const match = os.ports.find(
          (q: any) => q?.port === p.port && (q?.protocol ?? 'TCP') === (p.protocol ?? 'TCP'),
        );
        if (match?.nodePort && (ns.type === 'NodePort' || ns.type === 'LoadBalancer'))
          p.nodePort = match.nodePort;
      }
    }
  }

  /**
   * Reserve what a stored Service holds (a server started on a store that already has Services):
   * values out of range or held twice are skipped, as the repair loops report and leave them.
   */
  restore(o: Obj): void {
    const s = o.spec;
    if (!s || typeof s !== 'object') return;
    if (typeof s.clusterIP === 'string' && s.clusterIP !== '' && s.clusterIP !== 'None')
      this.clusterIPs.reserve(s.clusterIP);
    if (Array.isArray(s.ports))
      for (const p of s.ports)
        if (typeof p?.nodePort === 'number' && p.nodePort) this.nodePorts.reserve(p.nodePort);
  }

  /** Reserve values another server claimed in a shared store (service-claims.ts). */
  reserveClaimed(claimed: { ips: string[]; ports: number[] }): void {
    for (const ip of claimed.ips) this.clusterIPs.reserve(ip);
    for (const port of claimed.ports) this.nodePorts.reserve(port);
  }

  /** A deleted Service gives its ClusterIP and NodePorts back. */
  release(info: ResourceInfo, o: Obj): void {
    if (info.kind !== 'Service' || !o.spec) return;
    if (o.spec.clusterIP && o.spec.clusterIP !== 'None') this.clusterIPs.release(o.spec.clusterIP);
    for (const p of o.spec.ports ?? []) if (p?.nodePort) this.nodePorts.release(p.nodePort);
  }
}

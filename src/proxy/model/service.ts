/**
 * Service → ServicePortInfo, as kube-proxy's ServiceChangeTracker.serviceToServiceMap and
 * newBaseServiceInfo do it (pkg/proxy/servicechangetracker.go, serviceport.go):
 *
 *   - Services of type ExternalName, or with clusterIP "" / "None", are not proxied;
 *   - the cluster IP is the one of the proxier's family (spec.clusterIPs, else spec.clusterIP);
 *     a Service without one of this family yields nothing;
 *   - externalIPs, loadBalancerSourceRanges (whitespace trimmed) and load-balancer ingress IPs
 *     are filtered to the family; ingress entries with ipMode "Proxy" are skipped;
 *   - healthCheckNodePort counts only for LoadBalancer Services with externalTrafficPolicy Local.
 *
 * Values the API server would default (protocol TCP, sessionAffinity None, ClientIP timeout
 * 10800 s, type ClusterIP) are defaulted here too, since manifests usually omit them.
 */
import type { Service } from '../../api/types.js';
import { canonicalIP, ipFamilyOf, parseCidr, type Cidr, type IPFamily } from './ip.js';
import {
  namespacedName,
  servicePortKey,
  servicePortNameString,
  type Protocol,
  type ServicePortInfo,
  type ServicePortMap,
  type ServicePortName,
} from './types.js';

/** RFC 1123 label, as Kubernetes validates namespaces and Service names (≤ 63 characters) */
const DNS_LABEL = /^(?=.{1,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** Service port names: DNS-label characters (kube-apiserver requires a DNS label) */
const PORT_NAME = /^(?=.{1,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** kube-apiserver's default for sessionAffinityConfig.clientIP.timeoutSeconds */
export const DEFAULT_CLIENT_IP_TIMEOUT_SECONDS = 10800;

/** Bad input found while reading a Service or EndpointSlice: names object and field. */
export class ProxyModelError extends Error {
  constructor(
    readonly object: string,
    readonly field: string,
    detail: string,
  ) {
    super(`${object}: ${field}: ${detail}`);
    this.name = 'ProxyModelError';
  }
}

/** Go proxyutil.ShouldSkipService: headless, IP-less and ExternalName Services are not proxied. */
export function shouldSkipService(svc: Service): boolean {
  const spec = svc.spec ?? {};
  if (spec.type === 'ExternalName') return true;
  if (!spec.clusterIP || spec.clusterIP === 'None') return true;
  return false;
}

/** Go apiservice.ExternallyAccessible. */
function externallyAccessibleService(svc: Service): boolean {
  const t = svc.spec.type ?? 'ClusterIP';
  return (
    t === 'LoadBalancer' || t === 'NodePort' || (t === 'ClusterIP' && (svc.spec.externalIPs?.length ?? 0) > 0)
  );
}

/** Go proxyutil.GetClusterIPByFamily. */
export function clusterIPByFamily(svc: Service, family: IPFamily): string {
  const spec = svc.spec;
  const ips = spec.clusterIPs ?? [];
  if (ips.length === 0) {
    return spec.clusterIP && ipFamilyOf(spec.clusterIP) === family ? spec.clusterIP : '';
  }
  for (const ip of ips) if (ipFamilyOf(ip) === family) return ip;
  return '';
}

function objName(svc: Service): string {
  return `Service ${svc.metadata?.namespace ?? 'default'}/${svc.metadata?.name ?? '<unnamed>'}`;
}

/**
 * The service ports kube-proxy tracks for one Service on a proxier of `family`
 * (Go serviceToServiceMap). Returns an empty map for Services kube-proxy skips.
 * Throws ProxyModelError on malformed fields (naming the object and field).
 */
export function servicePortsFromService(svc: Service, family: IPFamily = 'IPv4'): ServicePortMap {
  const out: ServicePortMap = new Map();
  if (!svc || typeof svc !== 'object' || !svc.spec) return out;
  if (shouldSkipService(svc)) return out;
  const clusterIPText = clusterIPByFamily(svc, family);
  if (clusterIPText === '') return out;
  const where = objName(svc);
  const clusterIP = canonicalIP(clusterIPText);
  if (!clusterIP)
    throw new ProxyModelError(where, 'spec.clusterIP', `"${clusterIPText}" is not an IP address`);
  const namespace = svc.metadata?.namespace ?? 'default';
  const name = svc.metadata?.name;
  if (!name) throw new ProxyModelError(where, 'metadata.name', 'is required');
  // names end up in chain-name hashes and quoted rule comments: hold them to Kubernetes' own
  // validation (DNS labels), which also keeps the rules ASCII
  if (!DNS_LABEL.test(name))
    throw new ProxyModelError(where, 'metadata.name', `"${name}" is not a valid DNS label`);
  if (!DNS_LABEL.test(namespace))
    throw new ProxyModelError(where, 'metadata.namespace', `"${namespace}" is not a valid DNS label`);
  const spec = svc.spec;
  const type = (spec.type ?? 'ClusterIP') as ServicePortInfo['type'];

  const accessible = externallyAccessibleService(svc);
  const externalPolicyLocal = accessible && spec.externalTrafficPolicy === 'Local';
  const internalPolicyLocal = spec.internalTrafficPolicy === 'Local';
  const sessionAffinity = spec.sessionAffinity === 'ClientIP' ? 'ClientIP' : 'None';
  const stickyMaxAgeSeconds =
    sessionAffinity === 'ClientIP'
      ? (spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_CLIENT_IP_TIMEOUT_SECONDS)
      : 0;

  const externalIPs: string[] = [];
  (spec.externalIPs ?? []).forEach((ip, i) => {
    const c = canonicalIP(ip);
    if (!c) throw new ProxyModelError(where, `spec.externalIPs[${i}]`, `"${ip}" is not an IP address`);
    if (ipFamilyOf(c) === family) externalIPs.push(c);
  });
  const sourceRanges: Cidr[] = [];
  (spec.loadBalancerSourceRanges ?? []).forEach((r, i) => {
    const c = parseCidr(r);
    if (!c) throw new ProxyModelError(where, `spec.loadBalancerSourceRanges[${i}]`, `"${r}" is not a CIDR`);
    if (c.family === family) sourceRanges.push(c);
  });
  const lbVIPs: string[] = [];
  (svc.status?.loadBalancer?.ingress ?? []).forEach((ing, i) => {
    if (!ing.ip) return;
    if (ing.ipMode !== undefined && ing.ipMode !== 'VIP') return; // Go proxyutil.IsVIPMode
    const c = canonicalIP(ing.ip);
    if (!c)
      throw new ProxyModelError(
        where,
        `status.loadBalancer.ingress[${i}].ip`,
        `"${ing.ip}" is not an IP address`,
      );
    if (ipFamilyOf(c) === family) lbVIPs.push(c);
  });
  const healthCheckNodePort =
    type === 'LoadBalancer' && externalPolicyLocal ? (spec.healthCheckNodePort ?? 0) : 0;

  const ports = spec.ports ?? [];
  ports.forEach((p, i) => {
    const protocol = (p.protocol ?? 'TCP') as Protocol;
    if (protocol !== 'TCP' && protocol !== 'UDP' && protocol !== 'SCTP') {
      throw new ProxyModelError(
        where,
        `spec.ports[${i}].protocol`,
        `"${String(protocol)}" is not TCP, UDP or SCTP`,
      );
    }
    if (!Number.isInteger(p.port) || p.port < 1 || p.port > 65535) {
      throw new ProxyModelError(
        where,
        `spec.ports[${i}].port`,
        `${JSON.stringify(p.port)} is not a port number (1-65535)`,
      );
    }
    const nodePort = p.nodePort ?? 0;
    if (!Number.isInteger(nodePort) || nodePort < 0 || nodePort > 65535) {
      throw new ProxyModelError(
        where,
        `spec.ports[${i}].nodePort`,
        `${JSON.stringify(p.nodePort)} is not a port number`,
      );
    }
    if (p.name !== undefined && p.name !== '' && !PORT_NAME.test(p.name)) {
      throw new ProxyModelError(
        where,
        `spec.ports[${i}].name`,
        `"${p.name}" is not a valid port name (lower-case letters, digits, '-', at most 63)`,
      );
    }
    const spn: ServicePortName = { namespace, name, port: p.name ?? '', protocol };
    const externallyAccessible = nodePort !== 0 || lbVIPs.length > 0 || externalIPs.length > 0;
    const info: ServicePortInfo = {
      name: spn,
      nameString: servicePortNameString(spn),
      key: servicePortKey(spn),
      serviceName: namespacedName(namespace, name),
      clusterIP,
      port: p.port,
      protocol,
      nodePort,
      loadBalancerVIPs: lbVIPs,
      sessionAffinity,
      stickyMaxAgeSeconds,
      externalIPs,
      loadBalancerSourceRanges: sourceRanges,
      healthCheckNodePort,
      externalPolicyLocal,
      internalPolicyLocal,
      externallyAccessible,
      usesClusterEndpoints: !internalPolicyLocal || externallyAccessible,
      usesLocalEndpoints: internalPolicyLocal || (externalPolicyLocal && externallyAccessible),
      targetPort: p.targetPort,
      type,
    };
    out.set(info.key, info);
  });
  return out;
}

/** Structural equality of two service port infos (Go reflect.DeepEqual on BaseServicePortInfo). */
export function servicePortInfoEqual(a: ServicePortInfo, b: ServicePortInfo): boolean {
  return (
    a.key === b.key &&
    a.clusterIP === b.clusterIP &&
    a.port === b.port &&
    a.protocol === b.protocol &&
    a.nodePort === b.nodePort &&
    a.sessionAffinity === b.sessionAffinity &&
    a.stickyMaxAgeSeconds === b.stickyMaxAgeSeconds &&
    a.healthCheckNodePort === b.healthCheckNodePort &&
    a.externalPolicyLocal === b.externalPolicyLocal &&
    a.internalPolicyLocal === b.internalPolicyLocal &&
    strArrEq(a.loadBalancerVIPs, b.loadBalancerVIPs) &&
    strArrEq(a.externalIPs, b.externalIPs) &&
    strArrEq(
      a.loadBalancerSourceRanges.map((c) => c.text),
      b.loadBalancerSourceRanges.map((c) => c.text),
    )
  );
}

function strArrEq(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Equality of two ServicePortMaps (used to drop no-op service changes). */
export function servicePortMapsEqual(a: ServicePortMap, b: ServicePortMap): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const w = b.get(k);
    if (!w || !servicePortInfoEqual(v, w)) return false;
  }
  return true;
}

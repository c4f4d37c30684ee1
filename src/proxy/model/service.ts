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

/** The Service fields kube-proxy reads, checked for values the API server would reject. */
const SERVICE_TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];
/** kube-apiserver: sessionAffinityConfig.clientIP.timeoutSeconds must be in (0, 86400] */
const MAX_CLIENT_IP_TIMEOUT_SECONDS = 86400;

const isPort = (v: unknown, zeroOK: boolean) =>
  Number.isInteger(v) && (v as number) >= (zeroOK ? 0 : 1) && (v as number) <= 65535;

/**
 * Checks every Service field kube-proxy reads, whatever the proxier's family, and throws a
 * ProxyModelError naming the first bad one. Such a Service never reaches kube-proxy (the API
 * server rejects it), so the model skips it whole instead of rendering a part of it.
 */
export function checkService(svc: Service): void {
  const where = objName(svc);
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
  if (spec.type !== undefined && !SERVICE_TYPES.includes(spec.type))
    throw new ProxyModelError(
      where,
      'spec.type',
      `"${String(spec.type)}" is not ${SERVICE_TYPES.join(', ')}`,
    );
  const ips: [string, unknown][] = [['spec.clusterIP', spec.clusterIP]];
  (spec.clusterIPs ?? []).forEach((ip, i) => ips.push([`spec.clusterIPs[${i}]`, ip]));
  for (const [field, ip] of ips) {
    if (ip === undefined || ip === '' || ip === 'None') continue;
    if (typeof ip !== 'string' || canonicalIP(ip) === null)
      throw new ProxyModelError(where, field, `${JSON.stringify(ip)} is not an IP address`);
  }
  (spec.externalIPs ?? []).forEach((ip, i) => {
    if (typeof ip !== 'string' || canonicalIP(ip) === null)
      throw new ProxyModelError(
        where,
        `spec.externalIPs[${i}]`,
        `${JSON.stringify(ip)} is not an IP address`,
      );
  });
  (spec.loadBalancerSourceRanges ?? []).forEach((r, i) => {
    if (typeof r !== 'string' || parseCidr(r) === null)
      throw new ProxyModelError(
        where,
        `spec.loadBalancerSourceRanges[${i}]`,
        `${JSON.stringify(r)} is not a CIDR`,
      );
  });
  (svc.status?.loadBalancer?.ingress ?? []).forEach((ing, i) => {
    if (ing.ip !== undefined && (typeof ing.ip !== 'string' || canonicalIP(ing.ip) === null))
      throw new ProxyModelError(
        where,
        `status.loadBalancer.ingress[${i}].ip`,
        `${JSON.stringify(ing.ip)} is not an IP address`,
      );
  });
  if (spec.healthCheckNodePort !== undefined && !isPort(spec.healthCheckNodePort, true))
    throw new ProxyModelError(
      where,
      'spec.healthCheckNodePort',
      `${JSON.stringify(spec.healthCheckNodePort)} is not a port number`,
    );
  const timeout = spec.sessionAffinityConfig?.clientIP?.timeoutSeconds;
  if (
    timeout !== undefined &&
    (!Number.isInteger(timeout) || timeout < 1 || timeout > MAX_CLIENT_IP_TIMEOUT_SECONDS)
  )
    throw new ProxyModelError(
      where,
      'spec.sessionAffinityConfig.clientIP.timeoutSeconds',
      `${JSON.stringify(timeout)} is not a whole number of seconds in 1-${MAX_CLIENT_IP_TIMEOUT_SECONDS}`,
    );
  const seen = new Set<string>();
  (spec.ports ?? []).forEach((p, i) => {
    const protocol = p.protocol ?? 'TCP';
    if (protocol !== 'TCP' && protocol !== 'UDP' && protocol !== 'SCTP')
      throw new ProxyModelError(
        where,
        `spec.ports[${i}].protocol`,
        `"${String(protocol)}" is not TCP, UDP or SCTP`,
      );
    if (!isPort(p.port, false))
      throw new ProxyModelError(
        where,
        `spec.ports[${i}].port`,
        `${JSON.stringify(p.port)} is not a port number (1-65535)`,
      );
    if (p.nodePort !== undefined && !isPort(p.nodePort, true))
      throw new ProxyModelError(
        where,
        `spec.ports[${i}].nodePort`,
        `${JSON.stringify(p.nodePort)} is not a port number`,
      );
    if (p.name !== undefined && p.name !== '' && !PORT_NAME.test(p.name))
      throw new ProxyModelError(
        where,
        `spec.ports[${i}].name`,
        `"${p.name}" is not a valid port name (lower-case letters, digits, '-', at most 63)`,
      );
    // the port name is the key of the service port (ServicePortName): two with one name collide
    const key = `${p.name ?? ''}/${protocol}`;
    if (seen.has(key))
      throw new ProxyModelError(
        where,
        `spec.ports[${i}].name`,
        `"${p.name ?? ''}" is used by another ${protocol} port`,
      );
    seen.add(key);
  });
}

/**
 * The service ports kube-proxy tracks for one Service on a proxier of `family`
 * (Go serviceToServiceMap). Returns an empty map for Services kube-proxy skips.
 * Throws ProxyModelError on malformed fields (naming the object and field), see checkService.
 */
export function servicePortsFromService(svc: Service, family: IPFamily = 'IPv4'): ServicePortMap {
  const out: ServicePortMap = new Map();
  if (!svc || typeof svc !== 'object' || !svc.spec) return out;
  if (shouldSkipService(svc)) return out;
  checkService(svc);
  const clusterIPText = clusterIPByFamily(svc, family);
  if (clusterIPText === '') return out;
  const clusterIP = canonicalIP(clusterIPText)!;
  const namespace = svc.metadata?.namespace ?? 'default';
  const name = svc.metadata.name!;
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

  const ofFamily = (ips: readonly string[]) =>
    ips.map((ip) => canonicalIP(ip)!).filter((ip) => ipFamilyOf(ip) === family);
  const externalIPs = ofFamily(spec.externalIPs ?? []);
  const sourceRanges = (spec.loadBalancerSourceRanges ?? [])
    .map((r) => parseCidr(r)!)
    .filter((c) => c.family === family);
  const lbVIPs = ofFamily(
    (svc.status?.loadBalancer?.ingress ?? [])
      // Go proxyutil.IsVIPMode: ingress with ipMode "Proxy" is not a VIP
      .filter((ing) => ing.ip && (ing.ipMode === undefined || ing.ipMode === 'VIP'))
      .map((ing) => ing.ip!),
  );
  const healthCheckNodePort =
    type === 'LoadBalancer' && externalPolicyLocal ? (spec.healthCheckNodePort ?? 0) : 0;

  for (const p of spec.ports ?? []) {
    const protocol = (p.protocol ?? 'TCP') as Protocol;
    const nodePort = p.nodePort ?? 0;
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
  }
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

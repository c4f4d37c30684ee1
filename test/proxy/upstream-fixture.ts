/** kube-proxy's TestOverallNFTablesRules fixture (pkg/proxy/nftables/proxier_test.go), shared by the renderer tests. */
import type { EndpointSlice, Service } from '../../src/api/types.js';
import { makeService } from '../helpers/builders.js';

// Fixture: kube-proxy's TestOverallNFTablesRules (pkg/proxy/nftables/proxier_test.go).
export const NODE = { name: 'test-node', ips: { IPv4: '192.168.0.2' as string } };

function svc(ns: string, name: string, spec: Partial<Service['spec']>, status?: Service['status']): Service {
  return makeService(name)
    .namespace(ns)
    .spec({ type: 'ClusterIP', ...spec })
    .status(status)
    .obj();
}
export function slice(ns: string, name: string, eps: { ip: string; node?: string }[]): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    addressType: 'IPv4',
    metadata: { namespace: ns, name: `${name}-1`, labels: { 'kubernetes.io/service-name': name } },
    endpoints: eps.map((e) => ({ addresses: [e.ip], nodeName: e.node })),
    ports: [{ name: 'p80', port: 80, protocol: 'TCP' }],
  };
}
const p80 = (nodePort?: number) => [{ name: 'p80', port: 80, protocol: 'TCP' as const, nodePort }];

export const upstreamServices: Service[] = [
  svc('ns1', 'svc1', { clusterIP: '172.30.0.41', ports: p80() }),
  svc(
    'ns2',
    'svc2',
    {
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      clusterIP: '172.30.0.42',
      ports: p80(3001),
      externalIPs: ['192.168.99.22'],
      healthCheckNodePort: 30000,
    },
    { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
  ),
  svc('ns3', 'svc3', { type: 'NodePort', clusterIP: '172.30.0.43', ports: p80(3003) }),
  svc('ns4', 'svc4', {
    type: 'NodePort',
    clusterIP: '172.30.0.44',
    externalIPs: ['192.168.99.33'],
    ports: [{ name: 'p80', port: 80, protocol: 'TCP', targetPort: 80 }],
  }),
  svc(
    'ns5',
    'svc5',
    {
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Cluster',
      clusterIP: '172.30.0.45',
      ports: p80(3002),
      healthCheckNodePort: 30000,
      loadBalancerSourceRanges: [' 203.0.113.0/25'],
      sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
    },
    { loadBalancer: { ingress: [{ ip: '5.6.7.8' }] } },
  ),
  svc('ns6', 'svc6', {
    clusterIP: '172.30.0.46',
    ports: [{ name: 'p80', port: 80, protocol: 'TCP', targetPort: 80 }],
  }),
];
export const upstreamSlices: EndpointSlice[] = [
  slice('ns1', 'svc1', [{ ip: '10.180.0.1' }]),
  slice('ns2', 'svc2', [{ ip: '10.180.0.2' }]),
  slice('ns3', 'svc3', [{ ip: '10.180.0.3' }]),
  slice('ns4', 'svc4', [{ ip: '10.180.0.4' }, { ip: '10.180.0.5', node: 'test-node' }]),
  slice('ns5', 'svc5', [{ ip: '10.180.0.3' }]),
];

/**
 * The same Services and EndpointSlices with IPv6 addresses (the address plan of upstream's IPv6
 * tests: ClusterIPs in fd00:172:30::/112, pods in fd00:10::/64, node 2001:db8::1), for checking
 * that an IPv6 proxier renders them.
 */
export const NODE_V6 = { name: 'test-node', ips: { IPv6: '2001:db8::1' as string } };
const V6: Record<string, string> = {
  '172.30.0.': 'fd00:172:30::',
  '10.180.0.': 'fd00:10:180::',
  '192.168.99.': '2001:db8:99::',
  '1.2.3.4': '2001:db8:1::1234',
  '5.6.7.8': '2001:db8:1::5678',
  '203.0.113.0/25': '2001:db8:203::/64',
};
function toV6(text: string): string {
  let out = text;
  for (const [v4, v6] of Object.entries(V6)) out = out.replaceAll(v4, v6);
  return out.replaceAll('"IPv4"', '"IPv6"');
}
export const upstreamServicesV6: Service[] = upstreamServices.map((s) => JSON.parse(toV6(JSON.stringify(s))));
export const upstreamSlicesV6: EndpointSlice[] = upstreamSlices.map((s) =>
  JSON.parse(toV6(JSON.stringify(s))),
);

/** Dual-stack versions: each Service with both families' IPs, one EndpointSlice per family. */
export const upstreamServicesDual: Service[] = upstreamServices.map((s, i) => {
  const v6 = upstreamServicesV6[i];
  const both = <T>(a: T[] | undefined, b: T[] | undefined) =>
    a || b ? [...(a ?? []), ...(b ?? [])] : undefined;
  return {
    ...s,
    spec: {
      ...s.spec,
      clusterIPs: [s.spec.clusterIP!, v6.spec.clusterIP!],
      ipFamilies: ['IPv4', 'IPv6'],
      ipFamilyPolicy: 'RequireDualStack',
      externalIPs: both(s.spec.externalIPs, v6.spec.externalIPs),
      loadBalancerSourceRanges: both(s.spec.loadBalancerSourceRanges, v6.spec.loadBalancerSourceRanges),
    },
    status: s.status && {
      loadBalancer: { ingress: both(s.status.loadBalancer?.ingress, v6.status?.loadBalancer?.ingress) },
    },
  } as Service;
});
export const upstreamSlicesDual: EndpointSlice[] = [
  ...upstreamSlices,
  ...upstreamSlicesV6.map((s) => ({ ...s, metadata: { ...s.metadata, name: `${s.metadata.name}-v6` } })),
];

/** kube-proxy's TestOverallNFTablesRules fixture (pkg/proxy/nftables/proxier_test.go), shared by the renderer tests. */
import type { EndpointSlice, Service } from '../../src/api/types.js';

// Fixture: kube-proxy's TestOverallNFTablesRules (pkg/proxy/nftables/proxier_test.go).
export const NODE = { name: 'test-node', ips: { IPv4: '192.168.0.2' as string } };

function svc(ns: string, name: string, spec: Partial<Service['spec']>, status?: Service['status']): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: ns, name },
    spec: { type: 'ClusterIP', ...spec },
    status,
  };
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

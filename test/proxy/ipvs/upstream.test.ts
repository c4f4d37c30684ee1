// Tables from kube-proxy's pkg/proxy/ipvs/proxier_test.go (TestNodePortIPv6, TestIPv6Proxier,
// TestOnlyLocalNodePorts), transcribed as data: Services, EndpointSlices, the addresses on the
// node's interfaces (NewFakeProxier's nodeIPs), --nodeport-addresses, and the IPVS virtual servers
// with their real servers kube-proxy creates. The proxier is driven through its public path.
import { describe, expect, it } from 'vitest';
import type { EndpointSlice, Service } from '../../../src/api/types.js';
import { type IPFamily, ProxyState } from '../../../src/proxy/model/index.js';
import { IpvsProxier } from '../../../src/proxy/renderers/ipvs/proxier.js';

const svc = (name: string, spec: Service['spec']): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: 'ns1', name },
  spec,
});
const slice = (
  name: string,
  n: number,
  addressType: 'IPv4' | 'IPv6',
  addresses: { ip: string; node?: string }[],
  protocol: 'TCP' | 'UDP' | 'SCTP' = 'TCP',
  port = 80,
  portName = 'p80',
): EndpointSlice => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { namespace: 'ns1', name: `${name}-${n}`, labels: { 'kubernetes.io/service-name': name } },
  addressType,
  endpoints: addresses.map((a) => ({ addresses: [a.ip], ...(a.node ? { nodeName: a.node } : {}) })),
  ports: [{ name: portName, port, protocol }],
});

interface Case {
  test: string;
  name: string;
  family: IPFamily;
  services: Service[];
  slices: EndpointSlice[];
  /** the addresses on the node's interfaces */
  nodeIPs: string[];
  nodePortAddresses?: string[];
  /** virtual server "PROTO/[ip]:port" → its real servers */
  expected: Record<string, string[]>;
  /** ipset entries expected (by kube-proxy's IPv4 set name) */
  ipsets?: Record<string, string[]>;
}

const CASES: Case[] = [
  {
    test: 'TestNodePortIPv6',
    name: '1 service with node port, has 2 endpoints',
    family: 'IPv6',
    services: [
      svc('svc1', {
        type: 'NodePort',
        clusterIP: '2020::1',
        ports: [{ name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001 }],
      }),
    ],
    slices: [
      slice('svc1', 1, 'IPv4', [{ ip: '10.180.0.1' }]),
      slice('svc1', 2, 'IPv6', [{ ip: '1002:ab8::2:10' }]),
    ],
    nodeIPs: ['100.101.102.103', '2001:db8::1:1'],
    nodePortAddresses: [],
    expected: {
      'TCP/[2001:db8::1:1]:3001': ['[1002:ab8::2:10]:80'],
      'TCP/[2020::1]:80': ['[1002:ab8::2:10]:80'],
    },
  },
  {
    test: 'TestNodePortIPv6',
    name: '1 UDP service with node port, has endpoints (no action on IPv6 Proxier)',
    family: 'IPv6',
    services: [
      svc('svc1', {
        type: 'NodePort',
        clusterIP: '10.20.30.41',
        ports: [{ name: 'p80', port: 80, protocol: 'UDP', nodePort: 3001 }],
      }),
    ],
    // upstream's slice claims IPv6 but holds an IPv4 address; the API server rejects it, kube-proxy ignores it
    slices: [],
    nodeIPs: ['100.101.102.103'],
    nodePortAddresses: ['0.0.0.0/0'],
    expected: {},
  },
  {
    test: 'TestNodePortIPv6',
    name: 'service has node port but no endpoints',
    family: 'IPv6',
    services: [
      svc('svc1', {
        type: 'NodePort',
        clusterIP: '2020::1',
        ports: [{ name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001 }],
      }),
    ],
    slices: [],
    nodeIPs: ['100.101.102.103', '2001:db8::1:1'],
    nodePortAddresses: [],
    expected: { 'TCP/[2001:db8::1:1]:3001': [], 'TCP/[2020::1]:80': [] },
  },
  {
    test: 'TestNodePortIPv6',
    name: 'node port service with protocol sctp on a node with multiple nodeIPs',
    family: 'IPv6',
    services: [
      svc('svc1', {
        type: 'NodePort',
        clusterIP: '2020::1',
        ports: [{ name: 'p80', port: 80, protocol: 'SCTP', nodePort: 3001 }],
      }),
    ],
    slices: [slice('svc1', 1, 'IPv6', [{ ip: '2001::1' }], 'SCTP')],
    nodeIPs: ['2001:db8::1:1', '2001:db8::1:2'],
    nodePortAddresses: [],
    expected: {
      'SCTP/[2001:db8::1:1]:3001': ['[2001::1]:80'],
      'SCTP/[2001:db8::1:2]:3001': ['[2001::1]:80'],
      'SCTP/[2020::1]:80': ['[2001::1]:80'],
    },
    ipsets: { 'KUBE-NODE-PORT-SCTP-HASH': ['2001:db8::1:1,sctp:3001', '2001:db8::1:2,sctp:3001'] },
  },
  {
    test: 'TestIPv6Proxier',
    name: '2 services with Cluster IP, each with endpoints',
    family: 'IPv6',
    services: [
      svc('svc1', { clusterIP: '10.20.30.41', ports: [{ name: 'p80', port: 80, protocol: 'TCP' }] }),
      svc('svc2', { clusterIP: '1002:ab8::2:1', ports: [{ name: 'p8080', port: 8080, protocol: 'TCP' }] }),
    ],
    slices: [
      slice('svc1', 1, 'IPv4', [{ ip: '10.180.0.1' }]),
      slice('svc2', 1, 'IPv6', [{ ip: '1009:ab8::5:6' }], 'TCP', 8080, 'p8080'),
    ],
    nodeIPs: [],
    expected: { 'TCP/[1002:ab8::2:1]:8080': ['[1009:ab8::5:6]:8080'] },
  },
  {
    test: 'TestIPv6Proxier',
    name: 'cluster IP service with no endpoints',
    family: 'IPv6',
    services: [svc('svc1', { clusterIP: '2001::1', ports: [{ name: 'p80', port: 80, protocol: 'TCP' }] })],
    slices: [],
    nodeIPs: [],
    expected: { 'TCP/[2001::1]:80': [] },
  },
  {
    test: 'TestOnlyLocalNodePorts',
    name: 'Local NodePort on the interface address inside --nodeport-addresses',
    family: 'IPv4',
    services: [
      svc('svc1', {
        type: 'NodePort',
        clusterIP: '10.20.30.41',
        externalTrafficPolicy: 'Local',
        ports: [{ name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001 }],
      }),
    ],
    slices: [
      slice('svc1', 1, 'IPv4', [
        { ip: '10.180.0.1', node: 'test-node' },
        { ip: '10.180.1.1', node: 'other-node' },
      ]),
    ],
    nodeIPs: ['100.101.102.103', '2001:db8::'],
    nodePortAddresses: ['100.101.102.0/24'],
    expected: {
      'TCP/10.20.30.41:80': ['10.180.0.1:80', '10.180.1.1:80'],
      'TCP/100.101.102.103:3001': ['10.180.0.1:80'],
    },
    ipsets: { 'KUBE-NODE-PORT-TCP': ['3001'], 'KUBE-NODE-PORT-LOCAL-TCP': ['3001'] },
  },
];

describe("ipvs virtual servers (kube-proxy's own tables)", () => {
  it.each(CASES)('$test: $name', (tc) => {
    const state = new ProxyState({ name: 'test-node', localAddresses: tc.nodeIPs }, tc.family);
    for (const s of tc.services) state.onServiceAdd(s);
    for (const s of tc.slices) state.onEndpointSliceAdd(s);
    const r = new IpvsProxier(state, { nodePortAddresses: tc.nodePortAddresses }).sync();
    const got = Object.fromEntries([...r.desired.virtualServers].map(([k, vs]) => [k, [...vs.reals].sort()]));
    expect(got).toEqual(tc.expected);
    for (const [set, entries] of Object.entries(tc.ipsets ?? {}))
      expect([...r.desired.ipsets.get(set as 'KUBE-LOOP-BACK')!].sort()).toEqual(entries);
    // and every virtual server in the ipvsadm text, IPv6 addresses bracketed
    for (const k of Object.keys(tc.expected)) {
      const [proto, hostPort] = k.split('/');
      const flag = proto === 'TCP' ? '-t' : proto === 'UDP' ? '-u' : '--sctp-service';
      expect(r.text).toContain(`-A ${flag} ${hostPort} -s rr\n`);
    }
  });
});

// Packet-flow tests from kubernetes/kubernetes pkg/proxy/iptables/proxier_test.go, run on
// kubesim's rules with a tracer that follows upstream's (tracer.ts): same services, same
// packets, same expected endpoints / ACCEPT / DROP / REJECT and masquerade flags.
import { describe, expect, it } from 'vitest';
import type { EndpointSlice, Service } from '../../../src/api/types.js';
import { ManualClock } from '../../../src/util/clock.js';
import type { IptablesProxierOptions } from '../../../src/proxy/renderers/iptables/proxier.js';
import type { IPFamily } from '../../../src/proxy/model/index.js';
import { joinHostPort } from '../../../src/proxy/model/index.js';
import {
  fakeProxierOptions,
  makeTestEndpointSlice,
  makeTestService,
  newIptablesProxier,
  testNodeIP,
  testNodeName,
} from './fixtures.js';
import { tracePacket } from './tracer.js';

const testNodeIPAlt = '192.168.1.2';
const testExternalIP = '192.168.99.11';
const testNodeIPv6 = '2001:db8::1';
const testNodeIPv6Alt = '2001:db8:1::2';
const testExternalClient = '203.0.113.2';
const testExternalClientBlocked = '203.0.113.130';
const testNodeIPs = [testNodeIP, testNodeIPAlt, testExternalIP, testNodeIPv6, testNodeIPv6Alt];

interface Flow {
  name: string;
  sourceIP: string;
  protocol?: string;
  destIP: string;
  destPort: number;
  output: string;
  masq?: boolean;
}

function proxier(
  services: Service[],
  slices: EndpointSlice[],
  extra: IptablesProxierOptions = {},
  family: IPFamily = 'IPv4',
) {
  const node = {
    name: testNodeName,
    ips: family === 'IPv4' ? { IPv4: testNodeIP } : { IPv6: testNodeIPv6 },
    localAddresses: testNodeIPs,
  };
  const s = newIptablesProxier(
    node,
    {
      ...fakeProxierOptions,
      clusterCIDR: family === 'IPv4' ? '10.0.0.0/8' : 'fd00:10::/64',
      clock: new ManualClock(),
      ...extra,
    },
    family,
  );
  for (const x of services) s.state.onServiceAdd(x);
  for (const x of slices) s.state.onEndpointSliceAdd(x);
  return s;
}

function runFlows(rules: string, flows: Flow[]) {
  for (const f of flows) {
    const r = tracePacket(
      rules,
      f.sourceIP,
      (f.protocol ?? 'tcp').toLowerCase(),
      f.destIP,
      f.destPort,
      testNodeIPs,
    );
    expect({ name: f.name, output: r.output, masq: r.masq }, r.matched.join('\n')).toEqual({
      name: f.name,
      output: f.output,
      masq: !!f.masq,
    });
  }
}

const slice = (
  ns: string,
  name: string,
  eps: EndpointSlice['endpoints'],
  ports: NonNullable<EndpointSlice['ports']>,
  addressType: 'IPv4' | 'IPv6' = 'IPv4',
) =>
  makeTestEndpointSlice(ns, name, 1, (e) => {
    e.addressType = addressType;
    e.endpoints = eps;
    e.ports = ports;
  });

describe('upstream packet-flow tests', () => {
  it('TestNoEndpointsReject', () => {
    const s = proxier(
      [
        makeTestService('ns1', 'svc1', (svc) => {
          svc.spec.type = 'LoadBalancer';
          svc.spec.clusterIP = '172.30.0.41';
          svc.spec.externalIPs = ['192.168.99.11'];
          svc.spec.ports = [{ name: 'p80', protocol: 'TCP', port: 80, nodePort: 3001 }];
          svc.status = { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } };
        }),
      ],
      [],
    );
    runFlows(s.sync().text, [
      {
        name: 'pod to cluster IP with no endpoints',
        sourceIP: '10.0.0.2',
        destIP: '172.30.0.41',
        destPort: 80,
        output: 'REJECT',
      },
      {
        name: 'external to external IP with no endpoints',
        sourceIP: testExternalClient,
        destIP: '192.168.99.11',
        destPort: 80,
        output: 'REJECT',
      },
      {
        name: 'pod to NodePort with no endpoints',
        sourceIP: '10.0.0.2',
        destIP: testNodeIP,
        destPort: 3001,
        output: 'REJECT',
      },
      {
        name: 'external to NodePort with no endpoints',
        sourceIP: testExternalClient,
        destIP: testNodeIP,
        destPort: 3001,
        output: 'REJECT',
      },
      {
        name: 'pod to LoadBalancer IP with no endpoints',
        sourceIP: '10.0.0.2',
        destIP: '1.2.3.4',
        destPort: 80,
        output: 'REJECT',
      },
      {
        name: 'external to LoadBalancer IP with no endpoints',
        sourceIP: testExternalClient,
        destIP: '1.2.3.4',
        destPort: 80,
        output: 'REJECT',
      },
    ]);
  });

  it('TestClusterIPGeneral', () => {
    const s = proxier(
      [
        makeTestService('ns1', 'svc1', (svc) => {
          svc.spec.clusterIP = '172.30.0.41';
          svc.spec.ports = [{ name: 'http', port: 80, protocol: 'TCP' }];
        }),
        makeTestService('ns2', 'svc2', (svc) => {
          svc.spec.clusterIP = '172.30.0.42';
          svc.spec.ports = [
            { name: 'http', port: 80, protocol: 'TCP' },
            { name: 'https', port: 443, protocol: 'TCP', targetPort: 8443 },
            { name: 'dns-udp', port: 53, protocol: 'UDP' },
            { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 5353 },
            { name: 'dns-sctp', port: 53, protocol: 'SCTP' },
          ];
        }),
      ],
      [
        slice(
          'ns1',
          'svc1',
          [{ addresses: ['10.180.0.1'], nodeName: testNodeName }],
          [{ name: 'http', port: 80, protocol: 'TCP' }],
        ),
        slice(
          'ns2',
          'svc2',
          [
            { addresses: ['10.180.0.1'], nodeName: testNodeName },
            { addresses: ['10.180.2.1'], nodeName: 'node2' },
          ],
          [
            { name: 'http', port: 80, protocol: 'TCP' },
            { name: 'https', port: 8443, protocol: 'TCP' },
            { name: 'dns-udp', port: 53, protocol: 'UDP' },
            { name: 'dns-tcp', port: 5353, protocol: 'TCP' },
            { name: 'dns-sctp', port: 53, protocol: 'SCTP' },
          ],
        ),
      ],
    );
    runFlows(s.sync().text, [
      {
        name: 'simple clusterIP',
        sourceIP: '10.180.0.2',
        destIP: '172.30.0.41',
        destPort: 80,
        output: '10.180.0.1:80',
      },
      {
        name: 'hairpin to cluster IP',
        sourceIP: '10.180.0.1',
        destIP: '172.30.0.41',
        destPort: 80,
        output: '10.180.0.1:80',
        masq: true,
      },
      {
        name: 'clusterIP with multiple endpoints',
        sourceIP: '10.180.0.2',
        destIP: '172.30.0.42',
        destPort: 80,
        output: '10.180.0.1:80, 10.180.2.1:80',
      },
      {
        name: 'clusterIP with TargetPort',
        sourceIP: '10.180.0.2',
        destIP: '172.30.0.42',
        destPort: 443,
        output: '10.180.0.1:8443, 10.180.2.1:8443',
      },
      {
        name: 'clusterIP with TCP, UDP, and SCTP on same port (TCP)',
        sourceIP: '10.180.0.2',
        protocol: 'TCP',
        destIP: '172.30.0.42',
        destPort: 53,
        output: '10.180.0.1:5353, 10.180.2.1:5353',
      },
      {
        name: 'clusterIP with TCP, UDP, and SCTP on same port (UDP)',
        sourceIP: '10.180.0.2',
        protocol: 'UDP',
        destIP: '172.30.0.42',
        destPort: 53,
        output: '10.180.0.1:53, 10.180.2.1:53',
      },
      {
        name: 'clusterIP with TCP, UDP, and SCTP on same port (SCTP)',
        sourceIP: '10.180.0.2',
        protocol: 'SCTP',
        destIP: '172.30.0.42',
        destPort: 53,
        output: '10.180.0.1:53, 10.180.2.1:53',
      },
      {
        name: 'TCP-only port does not match UDP traffic',
        sourceIP: '10.180.0.2',
        protocol: 'UDP',
        destIP: '172.30.0.42',
        destPort: 80,
        output: '',
      },
      {
        name: "svc1 does not accept svc2's ports",
        sourceIP: '10.180.0.2',
        destIP: '172.30.0.41',
        destPort: 443,
        output: '',
      },
    ]);
  });

  it('TestLoadBalancer', () => {
    const s = proxier(
      [
        makeTestService('ns1', 'svc1', (svc) => {
          svc.spec.type = 'LoadBalancer';
          svc.spec.clusterIP = '172.30.0.41';
          svc.spec.ports = [{ name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001 }];
          svc.status = { loadBalancer: { ingress: [{ ip: '1.2.3.4' }, { ip: '5.6.7.8' }] } };
          svc.spec.loadBalancerSourceRanges = ['192.168.0.0/24', ' 203.0.113.0/25'];
        }),
      ],
      [slice('ns1', 'svc1', [{ addresses: ['10.180.0.1'] }], [{ name: 'p80', port: 80, protocol: 'TCP' }])],
    );
    const ep = '10.180.0.1:80';
    runFlows(s.sync().text, [
      { name: 'pod to cluster IP', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: ep },
      {
        name: 'external to nodePort',
        sourceIP: testExternalClient,
        destIP: testNodeIP,
        destPort: 3001,
        output: ep,
        masq: true,
      },
      {
        name: 'nodePort bypasses LoadBalancerSourceRanges',
        sourceIP: testExternalClientBlocked,
        destIP: testNodeIP,
        destPort: 3001,
        output: ep,
        masq: true,
      },
      {
        name: 'accepted external to LB1',
        sourceIP: testExternalClient,
        destIP: '1.2.3.4',
        destPort: 80,
        output: ep,
        masq: true,
      },
      {
        name: 'accepted external to LB2',
        sourceIP: testExternalClient,
        destIP: '5.6.7.8',
        destPort: 80,
        output: ep,
        masq: true,
      },
      {
        name: 'blocked external to LB1',
        sourceIP: testExternalClientBlocked,
        destIP: '1.2.3.4',
        destPort: 80,
        output: 'DROP',
      },
      {
        name: 'blocked external to LB2',
        sourceIP: testExternalClientBlocked,
        destIP: '5.6.7.8',
        destPort: 80,
        output: 'DROP',
      },
      {
        name: 'pod to LB1 (blocked by LoadBalancerSourceRanges)',
        sourceIP: '10.0.0.2',
        destIP: '1.2.3.4',
        destPort: 80,
        output: 'DROP',
      },
      {
        name: 'pod to LB2 (blocked by LoadBalancerSourceRanges)',
        sourceIP: '10.0.0.2',
        destIP: '5.6.7.8',
        destPort: 80,
        output: 'DROP',
      },
      {
        name: 'node to LB1 (allowed by LoadBalancerSourceRanges)',
        sourceIP: testNodeIP,
        destIP: '1.2.3.4',
        destPort: 80,
        output: ep,
        masq: true,
      },
      {
        name: 'node to LB2 (allowed by LoadBalancerSourceRanges)',
        sourceIP: testNodeIP,
        destIP: '5.6.7.8',
        destPort: 80,
        output: ep,
        masq: true,
      },
      {
        name: 'same node to LB1, SNATted to LB1 (implicitly allowed)',
        sourceIP: '1.2.3.4',
        destIP: '1.2.3.4',
        destPort: 80,
        output: ep,
        masq: true,
      },
      {
        name: 'same node to LB2, SNATted to LB2 (implicitly allowed)',
        sourceIP: '5.6.7.8',
        destIP: '5.6.7.8',
        destPort: 80,
        output: ep,
        masq: true,
      },
    ]);
  });

  describe('TestNodePorts', () => {
    const cases: {
      name: string;
      family: IPFamily;
      localhostNodePorts: boolean;
      nodePortAddresses?: string[];
      allowAltNodeIP: boolean;
      expectFirewall: boolean;
    }[] = [
      {
        name: 'ipv4, localhost-nodeports enabled',
        family: 'IPv4',
        localhostNodePorts: true,
        allowAltNodeIP: true,
        expectFirewall: true,
      },
      {
        name: 'ipv4, localhost-nodeports disabled',
        family: 'IPv4',
        localhostNodePorts: false,
        allowAltNodeIP: true,
        expectFirewall: false,
      },
      {
        name: 'ipv4, localhost-nodeports disabled, localhost in nodeport-addresses',
        family: 'IPv4',
        localhostNodePorts: false,
        nodePortAddresses: ['192.168.0.0/24', '127.0.0.1/32'],
        allowAltNodeIP: false,
        expectFirewall: false,
      },
      {
        name: 'ipv4, localhost-nodeports enabled, multiple nodeport-addresses',
        family: 'IPv4',
        localhostNodePorts: false,
        nodePortAddresses: ['192.168.0.0/24', '192.168.1.0/24', '2001:db8::/64'],
        allowAltNodeIP: true,
        expectFirewall: false,
      },
      {
        name: 'ipv6, localhost-nodeports enabled',
        family: 'IPv6',
        localhostNodePorts: true,
        allowAltNodeIP: true,
        expectFirewall: false,
      },
      {
        name: 'ipv6, localhost-nodeports disabled',
        family: 'IPv6',
        localhostNodePorts: false,
        allowAltNodeIP: true,
        expectFirewall: false,
      },
      {
        name: 'ipv6, localhost-nodeports disabled, multiple nodeport-addresses',
        family: 'IPv6',
        localhostNodePorts: false,
        nodePortAddresses: ['192.168.0.0/24', '192.168.1.0/24', '2001:db8::/64'],
        allowAltNodeIP: false,
        expectFirewall: false,
      },
    ];
    it.each(cases.map((c) => [c.name, c] as const))('%s', (_n, tc) => {
      const v4 = tc.family === 'IPv4';
      const svcIP = v4 ? '172.30.0.41' : 'fd00:172:30::41';
      const epIP1 = v4 ? '10.180.0.1' : 'fd00:10:180::1';
      const epIP2 = v4 ? '10.180.2.1' : 'fd00:10:180::2:1';
      const s = proxier(
        [
          makeTestService('ns1', 'svc1', (svc) => {
            svc.spec.type = 'NodePort';
            svc.spec.clusterIP = svcIP;
            svc.spec.ports = [{ name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001 }];
          }),
        ],
        [
          slice(
            'ns1',
            'svc1',
            [{ addresses: [epIP1] }, { addresses: [epIP2], nodeName: testNodeName }],
            [{ name: 'p80', port: 80, protocol: 'TCP' }],
            tc.family,
          ),
        ],
        { localhostNodePorts: tc.localhostNodePorts, nodePortAddresses: tc.nodePortAddresses },
        tc.family,
      );
      const rules = s.sync().text;
      const podIP = v4 ? '10.0.0.2' : 'fd00:10::2';
      const externalClientIP = v4 ? testExternalClient : '2600:5200::1';
      const nodeIP = v4 ? testNodeIP : testNodeIPv6;
      const altNodeIP = v4 ? testNodeIPAlt : testNodeIPv6Alt;
      const localhostIP = v4 ? '127.0.0.1' : '::1';
      const output = `${joinHostPort(epIP1, 80)}, ${joinHostPort(epIP2, 80)}`;
      runFlows(rules, [
        { name: 'pod to cluster IP', sourceIP: podIP, destIP: svcIP, destPort: 80, output },
        {
          name: 'external to nodePort',
          sourceIP: externalClientIP,
          destIP: nodeIP,
          destPort: 3001,
          output,
          masq: true,
        },
        { name: 'node to nodePort', sourceIP: nodeIP, destIP: nodeIP, destPort: 3001, output, masq: true },
      ]);
      if (v4 && tc.localhostNodePorts) {
        runFlows(rules, [
          {
            name: 'localhost to nodePort gets masqueraded',
            sourceIP: localhostIP,
            destIP: localhostIP,
            destPort: 3001,
            output,
            masq: true,
          },
        ]);
      } else {
        runFlows(rules, [
          {
            name: 'localhost to nodePort is ignored',
            sourceIP: localhostIP,
            destIP: localhostIP,
            destPort: 3001,
            output: '',
          },
        ]);
      }
      if (tc.allowAltNodeIP) {
        runFlows(rules, [
          {
            name: 'external to nodePort on secondary IP',
            sourceIP: externalClientIP,
            destIP: altNodeIP,
            destPort: 3001,
            output,
            masq: true,
          },
        ]);
      } else {
        runFlows(rules, [
          {
            name: 'secondary nodeIP ignores NodePorts',
            sourceIP: externalClientIP,
            destIP: altNodeIP,
            destPort: 3001,
            output: '',
          },
        ]);
      }
      const fw = rules.split('\n').filter((l) => l.startsWith('-A KUBE-FIREWALL '));
      expect(fw).toEqual(
        tc.expectFirewall
          ? [
              '-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP',
            ]
          : [],
      );
    });
  });

  it('TestHealthCheckNodePort', () => {
    const svc = makeTestService('ns1', 'svc1', (x) => {
      x.spec.type = 'LoadBalancer';
      x.spec.clusterIP = '172.30.0.42';
      x.spec.ports = [{ name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001 }];
      x.spec.healthCheckNodePort = 30000;
      x.spec.externalTrafficPolicy = 'Local';
    });
    const s = proxier([svc], [], { nodePortAddresses: ['127.0.0.0/8'] });
    runFlows(s.sync().text, [
      {
        name: 'firewall accepts HealthCheckNodePort',
        sourceIP: '1.2.3.4',
        destIP: testNodeIP,
        destPort: 30000,
        output: 'ACCEPT',
      },
    ]);
    s.state.onServiceDelete(svc);
    runFlows(s.sync().text, [
      {
        name: 'HealthCheckNodePort no longer has any rule',
        sourceIP: '1.2.3.4',
        destIP: testNodeIP,
        destPort: 30000,
        output: '',
      },
    ]);
  });

  it.each([
    [false, false, '-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP'],
    [
      true,
      false,
      '-A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP',
    ],
    [false, true, ''],
  ])('TestDropInvalidRule nfacct=%s tcpLiberal=%s', (nfacct, conntrackTCPLiberal, dropRule) => {
    const rules = proxier([], [], { nfacct, conntrackTCPLiberal }).sync().text;
    const chain =
      rules
        .split('\n')
        .filter((l) => l.startsWith('-A KUBE-FORWARD '))
        .join('\n') + '\n';
    expect(chain).toBe(
      (dropRule ? dropRule + '\n' : '') +
        '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT\n' +
        '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n',
    );
  });

  it.each([false, true])('TestMasqueradeRule randomFully=%s', (randomFully) => {
    const rules = proxier([], [], { randomFully }).sync().text;
    const chain =
      rules
        .split('\n')
        .filter((l) => l.startsWith('-A KUBE-POSTROUTING '))
        .join('\n') + '\n';
    expect(chain).toBe(
      '-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN\n-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000\n' +
        `-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE${randomFully ? ' --random-fully' : ''}\n`,
    );
  });

  for (const policy of ['Local', 'Cluster'] as const) {
    it(`TestExternalTrafficPolicy${policy}`, () => {
      const s = proxier(
        [
          makeTestService('ns1', 'svc1', (svc) => {
            svc.spec.type = 'LoadBalancer';
            svc.spec.externalTrafficPolicy = policy;
            svc.spec.clusterIP = '172.30.0.41';
            svc.spec.externalIPs = ['192.168.99.11'];
            svc.spec.ports = [{ name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001, targetPort: 80 }];
            if (policy === 'Local') svc.spec.healthCheckNodePort = 30000;
            svc.status = { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } };
          }),
        ],
        [
          slice(
            'ns1',
            'svc1',
            [{ addresses: ['10.180.0.1'] }, { addresses: ['10.180.2.1'], nodeName: testNodeName }],
            [{ name: 'p80', port: 80, protocol: 'TCP' }],
          ),
        ],
      );
      const both = '10.180.0.1:80, 10.180.2.1:80';
      const local = policy === 'Local';
      runFlows(s.sync().text, [
        {
          name: 'pod to cluster IP hits both endpoints, unmasqueraded',
          sourceIP: '10.0.0.2',
          destIP: '172.30.0.41',
          destPort: 80,
          output: both,
        },
        {
          name: 'pod to external IP',
          sourceIP: '10.0.0.2',
          destIP: '192.168.99.11',
          destPort: 80,
          output: both,
          masq: !local,
        },
        {
          name: 'external to external IP',
          sourceIP: testExternalClient,
          destIP: '192.168.99.11',
          destPort: 80,
          output: local ? '10.180.2.1:80' : both,
          masq: !local,
        },
        {
          name: 'pod to LB IP',
          sourceIP: '10.0.0.2',
          destIP: '1.2.3.4',
          destPort: 80,
          output: both,
          masq: !local,
        },
        {
          name: 'external to LB IP',
          sourceIP: testExternalClient,
          destIP: '1.2.3.4',
          destPort: 80,
          output: local ? '10.180.2.1:80' : both,
          masq: !local,
        },
        {
          name: 'pod to NodePort',
          sourceIP: '10.0.0.2',
          destIP: testNodeIP,
          destPort: 3001,
          output: both,
          masq: !local,
        },
        {
          name: 'external to NodePort',
          sourceIP: testExternalClient,
          destIP: testNodeIP,
          destPort: 3001,
          output: local ? '10.180.2.1:80' : both,
          masq: !local,
        },
      ]);
    });
  }
});

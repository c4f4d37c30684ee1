import { describe, expect, it } from 'vitest';
import type { EndpointSlice, Service } from '../../src/api/types.js';
import {
  buildProxyState,
  canonicalIP,
  ipFamilyOf,
  parseCidr,
  parseIP,
  cidrContains,
  ProxyState,
  servicePortsFromService,
} from '../../src/proxy/model/index.js';
import { makeService } from '../helpers/builders.js';
import { Rng } from '../../src/util/rng.js';

function svc(name: string, spec: Partial<Service['spec']>, status?: Service['status']): Service {
  return makeService(name)
    .namespace('ns1')
    .spec({ clusterIP: '172.30.0.41', ports: [{ name: 'p80', port: 80 }], ...spec })
    .status(status)
    .obj();
}
function slice(
  name: string,
  svcName: string,
  eps: EndpointSlice['endpoints'],
  port = 80,
  portName = 'p80',
): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: 'ns1', name, labels: { 'kubernetes.io/service-name': svcName } },
    addressType: 'IPv4',
    endpoints: eps,
    ports: [{ name: portName, port, protocol: 'TCP' }],
  };
}

describe('ip helpers (Go net semantics)', () => {
  it.each([
    ['010.000.000.001', '10.0.0.1'],
    ['2001:DB8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:0:0:0:0:2:1', '2001:db8::2:1'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['fd00::', 'fd00::'],
    ['::', '::'],
    ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
    ['nope', null],
    ['1.2.3', null],
  ])('canonicalIP(%s) = %s', (i, o) => expect(canonicalIP(i)).toBe(o));
  it('IPv4 parsing: a character loop that answers what the split/regex parser (the reference) answered', () => {
    // the former parseIPv4, transcribed: four parts of 1-3 digits, each <= 255 (leading zeros allowed)
    const reference = (s: string): number[] | null => {
      const parts = s.split('.');
      if (parts.length !== 4) return null;
      const out: number[] = [];
      for (const p of parts) {
        if (p.length === 0 || p.length > 3 || !/^[0-9]+$/.test(p)) return null;
        if (Number(p) > 255) return null;
        out.push(Number(p));
      }
      return out;
    };
    const rng = new Rng(7);
    const alphabet = '0123456789....a: ';
    const texts = [
      '0.0.0.0',
      '255.255.255.255',
      '256.0.0.1',
      '1.2.3.4.',
      '.1.2.3',
      '1..2.3',
      '0001.2.3.4',
      '01.02.03.004',
    ];
    for (let i = 0; i < 20_000; i++) {
      let t = '';
      const n = rng.int(16);
      for (let k = 0; k < n; k++) t += alphabet[rng.int(alphabet.length)];
      texts.push(t);
    }
    for (const t of texts) {
      const want = t.includes(':') ? undefined : reference(t);
      if (want === undefined) continue;
      const got = parseIP(t);
      expect(got && [...got.subarray(12)], t).toEqual(want);
      expect(ipFamilyOf(t), t).toBe(want || reference(t.trim()) ? 'IPv4' : null);
    }
  });
  it('cidr masks and contains', () => {
    const c = parseCidr(' 10.1.2.3/8 ')!;
    expect(c.text).toBe('10.0.0.0/8');
    expect(cidrContains(c, '10.200.0.1')).toBe(true);
    expect(cidrContains(c, '11.0.0.1')).toBe(false);
    expect(parseCidr('fd00::1/64')!.text).toBe('fd00::/64');
  });
});

describe('servicePortsFromService', () => {
  it('skips headless and ExternalName services', () => {
    expect(servicePortsFromService(svc('a', { clusterIP: 'None' })).size).toBe(0);
    expect(servicePortsFromService(svc('a', { type: 'ExternalName', externalName: 'x' })).size).toBe(0);
  });
  it('filters by family and computes policies', () => {
    const m = servicePortsFromService(
      svc(
        'a',
        {
          type: 'LoadBalancer',
          externalTrafficPolicy: 'Local',
          healthCheckNodePort: 30000,
          externalIPs: ['192.168.99.11', 'fd00::1'],
          loadBalancerSourceRanges: [' 203.0.113.0/25', 'fd00::/64'],
          ports: [{ name: 'p80', port: 80, nodePort: 3001 }],
          sessionAffinity: 'ClientIP',
        },
        {
          loadBalancer: {
            ingress: [{ ip: '1.2.3.4' }, { ip: '5.6.7.8', ipMode: 'Proxy' }, { ip: 'fd00::2' }],
          },
        },
      ),
    );
    const p = m.get('ns1/a:p80/TCP')!;
    expect(p.externalIPs).toEqual(['192.168.99.11']);
    expect(p.loadBalancerVIPs).toEqual(['1.2.3.4']);
    expect(p.loadBalancerSourceRanges.map((c) => c.text)).toEqual(['203.0.113.0/25']);
    expect(p.healthCheckNodePort).toBe(30000);
    expect(p.externalPolicyLocal).toBe(true);
    expect(p.stickyMaxAgeSeconds).toBe(10800);
    expect(p.usesClusterEndpoints).toBe(true);
    expect(p.usesLocalEndpoints).toBe(true);
  });
  it('names the object and field on bad input', () => {
    expect(() => servicePortsFromService(svc('bad', { externalIPs: ['x.y'] }))).toThrow(
      'Service ns1/bad: spec.externalIPs[0]: "x.y" is not an IP address',
    );
  });
});

describe('endpoint slices', () => {
  it('merges and dedups slices, sorts by ip:port text, local wins', () => {
    const st = buildProxyState(
      [svc('a', {})],
      [
        slice('a-1', 'a', [
          { addresses: ['10.180.0.2'] },
          { addresses: ['10.180.0.10'], conditions: { ready: false } },
        ]),
        slice('a-2', 'a', [{ addresses: ['10.180.0.2'], nodeName: 'node1' }, { addresses: ['10.180.0.3'] }]),
      ],
      { name: 'node1' },
    );
    const eps = st.endpoints.get('ns1/a:p80/TCP')!;
    expect(eps.map((e) => e.endpoint)).toEqual(['10.180.0.10:80', '10.180.0.2:80', '10.180.0.3:80']);
    expect(eps[1].isLocal).toBe(true);
    expect(eps[0].ready).toBe(false);
  });
});

describe('change tracking', () => {
  it('merges pending service changes and drops no-ops', () => {
    const st = new ProxyState({ name: 'n' });
    const a = svc('a', {});
    const a2 = svc('a', { ports: [{ name: 'p80', port: 81 }] });
    st.onServiceAdd(a);
    st.onServiceUpdate(a, a2);
    let r = st.applyChanges();
    expect([...r.updatedServices]).toEqual(['ns1/a']);
    expect(st.servicePorts.get('ns1/a:p80/TCP')!.port).toBe(81);
    expect(st.onServiceUpdate(a2, a)).toBe(true);
    expect(st.onServiceUpdate(a, a2)).toBe(false);
    r = st.applyChanges();
    expect(r.updatedServices.size).toBe(0);
  });
  it('tracks endpoint slice changes per service', () => {
    const st = new ProxyState({ name: 'n' });
    const s1 = slice('a-1', 'a', [{ addresses: ['10.0.0.1'] }]);
    st.onServiceAdd(svc('a', {}));
    st.onServiceAdd(svc('b', {}));
    st.onEndpointSliceAdd(s1);
    st.applyChanges();
    expect(st.onEndpointSliceUpdate(s1, structuredClone(s1))).toBe(false);
    expect(st.onEndpointSliceDelete(s1)).toBe(true);
    const r = st.applyChanges();
    expect([...r.updatedServices]).toEqual(['ns1/a']);
    expect(st.endpoints.size).toBe(0);
  });
});

describe('name validation (names reach chain hashes and quoted comments)', () => {
  it('rejects names Kubernetes would reject, naming the field', () => {
    expect(() => servicePortsFromService(svc('Bad_Name', {}))).toThrow(
      'Service ns1/Bad_Name: metadata.name: "Bad_Name" is not a valid DNS label',
    );
    expect(() => servicePortsFromService(svc('a', { ports: [{ name: 'h"ttp', port: 80 }] }))).toThrow(
      'spec.ports[0].name: "h"ttp" is not a valid port name',
    );
  });
});

// kubernetes pkg/proxy/iptables/proxier_test.go TestBuildServiceMapAddRemove / ...Headless / ...ExternalName
describe('service map building (upstream TestBuildServiceMap*)', () => {
  const port = (
    name: string,
    protocol: 'TCP' | 'UDP' | 'SCTP',
    p: number,
    nodePort: number,
    targetPort: number,
  ) => ({ name, protocol, port: p, nodePort, targetPort });
  const mk = (
    ns: string,
    name: string,
    spec: Partial<Service['spec']>,
    status?: Service['status'],
  ): Service => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: ns, name },
    spec: spec as Service['spec'],
    status,
  });
  const hcPorts = (st: ProxyState) => {
    const m = new Map<string, number>();
    for (const p of st.servicePorts.values())
      if (p.healthCheckNodePort) m.set(p.serviceName, p.healthCheckNodePort);
    return m;
  };

  it('TestBuildServiceMapAddRemove', () => {
    const services = [
      mk('somewhere-else', 'cluster-ip', {
        type: 'ClusterIP',
        clusterIP: '172.30.55.4',
        ports: [
          port('something', 'UDP', 1234, 4321, 0),
          port('somethingelse', 'UDP', 1235, 5321, 0),
          port('sctpport', 'SCTP', 1236, 6321, 0),
        ],
      }),
      mk('somewhere-else', 'node-port', {
        type: 'NodePort',
        clusterIP: '172.30.55.10',
        ports: [
          port('blahblah', 'UDP', 345, 678, 0),
          port('moreblahblah', 'TCP', 344, 677, 0),
          port('muchmoreblah', 'SCTP', 343, 676, 0),
        ],
      }),
      mk(
        'somewhere',
        'load-balancer',
        {
          type: 'LoadBalancer',
          clusterIP: '172.30.55.11',
          loadBalancerIP: '1.2.3.4',
          ports: [port('foobar', 'UDP', 8675, 30061, 7000), port('baz', 'UDP', 8676, 30062, 7001)],
        },
        { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
      ),
      mk(
        'somewhere',
        'only-local-load-balancer',
        {
          type: 'LoadBalancer',
          clusterIP: '172.30.55.12',
          loadBalancerIP: '5.6.7.8',
          ports: [port('foobar2', 'UDP', 8677, 30063, 7002), port('baz', 'UDP', 8678, 30064, 7003)],
          externalTrafficPolicy: 'Local',
          healthCheckNodePort: 345,
        },
        { loadBalancer: { ingress: [{ ip: '5.6.7.8' }] } },
      ),
    ];
    const st = new ProxyState({ name: 'test-node' });
    for (const s of services) st.onServiceAdd(s);
    st.applyChanges();
    expect(st.servicePorts.size).toBe(10);
    expect([...hcPorts(st)]).toEqual([['somewhere/only-local-load-balancer', 345]]);

    const oneService = mk('somewhere-else', 'cluster-ip', {
      type: 'ClusterIP',
      clusterIP: '172.30.55.4',
      ports: [port('somethingelse', 'UDP', 1235, 5321, 0)],
    });
    st.onServiceUpdate(services[0], oneService);
    st.onServiceDelete(services[1]);
    st.onServiceDelete(services[2]);
    st.onServiceDelete(services[3]);
    st.applyChanges();
    expect(st.servicePorts.size).toBe(1);
    expect(hcPorts(st).size).toBe(0);
  });

  it('TestBuildServiceMapServiceHeadless and ...TypeExternalName', () => {
    const st = new ProxyState({ name: 'test-node' });
    st.onServiceAdd(
      mk('somewhere-else', 'headless', {
        type: 'ClusterIP',
        clusterIP: 'None',
        ports: [port('rpc', 'UDP', 1234, 0, 0)],
      }),
    );
    st.onServiceAdd(mk('somewhere-else', 'headless-without-port', { type: 'ClusterIP', clusterIP: 'None' }));
    st.onServiceAdd(
      mk('somewhere-else', 'external-name', {
        type: 'ExternalName',
        clusterIP: '172.30.55.4',
        externalName: 'foo2.bar.com',
        ports: [port('blah', 'UDP', 1235, 5321, 0)],
      }),
    );
    st.applyChanges();
    expect(st.servicePorts.size).toBe(0);
    expect(hcPorts(st).size).toBe(0);
  });
});

// kube-proxy never sees an object the API server rejects: the model skips it whole, lists it,
// and keeps the last valid version of an object whose update is invalid.
describe('invalid objects', () => {
  it.each([
    ['clusterIP 999.1.1.1', { clusterIP: '999.1.1.1' }, 'spec.clusterIP: "999.1.1.1" is not an IP address'],
    ['a bad clusterIPs entry', { clusterIPs: ['172.30.0.41', 'fd00::zz'] }, 'spec.clusterIPs[1]'],
    ['port 0', { ports: [{ name: 'p80', port: 0 }] }, 'spec.ports[0].port: 0 is not a port number (1-65535)'],
    [
      'nodePort 70000',
      { type: 'NodePort', ports: [{ port: 80, nodePort: 70000 }] },
      'spec.ports[0].nodePort',
    ],
    ['an IPv6 externalIP on an IPv4 proxier', { externalIPs: ['fd00::zz'] }, 'spec.externalIPs[0]'],
    ['a bad source range', { loadBalancerSourceRanges: ['10.0.0.0/40'] }, 'spec.loadBalancerSourceRanges[0]'],
    [
      'affinity timeout 0',
      { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } } },
      'timeoutSeconds',
    ],
    [
      'two ports of one name',
      {
        ports: [
          { name: 'a', port: 80 },
          { name: 'a', port: 81 },
        ],
      },
      'spec.ports[1].name',
    ],
  ] as [string, Partial<Service['spec']>, string][])(
    'a Service with %s is skipped, the others stay',
    (_n, spec, field) => {
      const st = new ProxyState({ name: 'n' });
      st.onServiceAdd(svc('good', { clusterIP: '172.30.0.1' }));
      st.onServiceAdd(svc('bad', spec));
      st.applyChanges();
      expect([...st.servicePorts.keys()]).toEqual(['ns1/good:p80/TCP']);
      const [e] = st.invalidObjects();
      expect(e.object).toBe('Service ns1/bad');
      expect(e.message).toContain(field);
    },
  );

  it('an invalid update keeps the last valid version; a valid one or a delete clears it', () => {
    const st = new ProxyState({ name: 'n' });
    const a = svc('a', {});
    const bad = svc('a', { clusterIP: '999.1.1.1' });
    const a2 = svc('a', { ports: [{ name: 'p80', port: 81 }] });
    st.onServiceAdd(a);
    st.applyChanges();
    st.onServiceUpdate(a, bad);
    expect(st.applyChanges().updatedServices.size).toBe(0);
    expect(st.servicePorts.get('ns1/a:p80/TCP')!.port).toBe(80);
    expect(st.invalidObjects()).toHaveLength(1);
    // the next event's old object is the invalid one: changes still start from the valid version
    st.onServiceUpdate(bad, a2);
    st.applyChanges();
    expect(st.servicePorts.get('ns1/a:p80/TCP')!.port).toBe(81);
    expect(st.invalidObjects()).toEqual([]);
    st.onServiceUpdate(a2, bad);
    st.onServiceDelete(bad);
    st.applyChanges();
    expect(st.servicePorts.size).toBe(0);
    expect(st.invalidObjects()).toEqual([]);
  });

  it.each([
    [
      'port "x"',
      { ports: [{ name: 'p80', port: 'x' as unknown as number }] },
      'ports[0].port: "x" is not a port number',
    ],
    ['port 0', { ports: [{ name: 'p80', port: 0 }] }, 'ports[0].port: 0'],
    ['protocol ICMP', { ports: [{ name: 'p80', port: 80, protocol: 'ICMP' as 'TCP' }] }, 'ports[0].protocol'],
    [
      'an IPv6 address in an IPv4 slice',
      { endpoints: [{ addresses: ['fd00::1'] }] },
      'endpoints[0].addresses[0]: "fd00::1" is not an IPv4 address',
    ],
  ] as [string, Partial<EndpointSlice>, string][])(
    'an EndpointSlice with %s is skipped',
    (_n, patch, field) => {
      const st = new ProxyState({ name: 'n' });
      st.onServiceAdd(svc('a', {}));
      st.onEndpointSliceAdd({ ...slice('a-1', 'a', [{ addresses: ['10.244.1.2'] }]), ...patch });
      st.applyChanges();
      expect(st.endpoints.size).toBe(0);
      expect(st.invalidObjects().map((e) => e.message)).toEqual([
        expect.stringContaining(`EndpointSlice ns1/a-1: ${field}`),
      ]);
    },
  );
});

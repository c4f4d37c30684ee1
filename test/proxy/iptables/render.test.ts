// Renderer details beyond the upstream golden files: probability formatting, large-cluster
// mode, masquerade options, IPv6, nodePortAddresses, terminating endpoints.
import { describe, expect, it } from 'vitest';
import type { EndpointSlice, Service } from '../../../src/api/types.js';
import type { IPFamily, ProxyNode } from '../../../src/proxy/model/index.js';
import { computeProbability } from '../../../src/proxy/renderers/iptables/probability.js';
import type { IptablesOptions } from '../../../src/proxy/renderers/iptables/rules.js';
import { masqueradeMarkFor } from '../../../src/proxy/renderers/types.js';
import { ManualClock } from '../../../src/util/clock.js';
import {
  fakeNode,
  fakeProxierOptions,
  makeTestEndpointSlice,
  makeTestService,
  newIptablesProxier,
  testNodeName,
} from './fixtures.js';

/** The first (full) sync of an iptables proxier over these objects: the renderer's detailed result. */
function render(
  services: Service[],
  slices: EndpointSlice[],
  opts: IptablesOptions = fakeProxierOptions,
  node: ProxyNode = fakeNode,
  family: IPFamily = 'IPv4',
) {
  const p = newIptablesProxier(node, { ...opts, clock: new ManualClock() }, family);
  for (const s of services) p.state.onServiceAdd(s);
  for (const s of slices) p.state.onEndpointSliceAdd(s);
  return p.sync().render;
}

const svc1 = makeTestService('ns1', 'svc1', (s) => {
  s.spec.clusterIP = '172.30.0.41';
  s.spec.ports = [{ name: 'p80', port: 80, protocol: 'TCP' }];
});
function slice(
  n: number,
  extra: (i: number) => Partial<EndpointSlice['endpoints'][number]> = () => ({}),
): EndpointSlice {
  return makeTestEndpointSlice('ns1', 'svc1', 1, (eps) => {
    eps.endpoints = Array.from({ length: n }, (_, i) => ({
      addresses: [`10.180.${i >> 8}.${i & 255}`],
      ...extra(i),
    }));
    eps.ports = [{ name: 'p80', port: 80, protocol: 'TCP' }];
  });
}

describe('computeProbability (Go %0.10f of 1/n)', () => {
  it.each([
    [2, '0.5000000000'],
    [3, '0.3333333333'],
    [6, '0.1666666667'],
    [7, '0.1428571429'],
    [1000, '0.0010000000'],
    [1024, '0.0009765625'],
    // exact ties: Go rounds half to even, toFixed would round up
    [2048, '0.0004882812'],
    [10240, '0.0000976562'],
    [51200, '0.0000195312'],
    [4096, '0.0002441406'],
    // upstream TestComputeProbability
    [1, '1.0000000000'],
    [10, '0.1000000000'],
    [100, '0.0100000000'],
    [10000, '0.0001000000'],
    [100000, '0.0000100000'],
    [100001, '0.0000099999'],
  ])('1/%i → %s', (n, s) => expect(computeProbability(n)).toBe(s));
  it('strictly decreasing in n up to 100000 (upstream TestComputeProbability)', () => {
    let prev = 0;
    for (let i = 100000; i > 1; i--) {
      const p = Number(computeProbability(i));
      expect(p > prev).toBe(true);
      prev = p;
    }
  });
});

describe('masquerade mark', () => {
  it('formats like Go %#08x', () => {
    expect(masqueradeMarkFor(14)).toBe('0x00004000');
    expect(masqueradeMarkFor(0)).toBe('0x00000001');
    expect(masqueradeMarkFor(31)).toBe('0x80000000');
  });
});

describe('large cluster mode (> 1000 endpoints)', () => {
  it('drops the per-endpoint comments but keeps the others', () => {
    const small = render([svc1], [slice(1000)]);
    expect(small.largeClusterMode).toBe(false);
    expect(small.text).toContain('-A KUBE-SEP-');
    expect(small.text).toMatch(/^-A KUBE-SEP-\S+ -m comment --comment ns1\/svc1:p80 -s /m);
    const big = render([svc1], [slice(1001)]);
    expect(big.largeClusterMode).toBe(true);
    expect(big.text).not.toMatch(/^-A KUBE-SEP-\S+ -m comment/m);
    expect(big.text).toMatch(/^-A KUBE-SEP-\S+ -s 10\.180\.0\.0 -j KUBE-MARK-MASQ$/m);
    expect(big.text).toMatch(
      /^-A KUBE-SVC-XPGD46QRK7WJZT7O -m statistic --mode random --probability 0\.0009990010 -j KUBE-SEP-/m,
    );
    expect(big.text).toContain('-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP"');
    // one SVC rule per endpoint, the last without statistic
    const svcRules = big.text.split('\n').filter((l) => l.startsWith('-A KUBE-SVC-XPGD46QRK7WJZT7O -'));
    expect(svcRules.filter((l) => l.includes('KUBE-SEP-')).length).toBe(1001);
    expect(svcRules.filter((l) => l.includes('KUBE-SEP-') && !l.includes('statistic')).length).toBe(1);
  });
});

describe('masquerading', () => {
  it('--masquerade-all marks all cluster-IP traffic; no detector means no masquerade rule', () => {
    const all = render([svc1], [slice(1)], { ...fakeProxierOptions, masqueradeAll: true });
    expect(all.text).toContain(
      '-A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-MARK-MASQ',
    );
    const none = render([svc1], [slice(1)], { ...fakeProxierOptions, clusterCIDR: undefined });
    expect(none.text).not.toContain('cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s');
    expect(none.text.split('\n').filter((l) => l.startsWith('-A KUBE-SVC-XPGD46QRK7WJZT7O')).length).toBe(1);
  });
  it('random-fully on MASQUERADE when iptables supports it', () => {
    expect(render([svc1], [slice(1)], { ...fakeProxierOptions, randomFully: true }).text).toContain(
      '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully',
    );
  });
});

describe('terminating endpoints', () => {
  it('falls back to serving+terminating endpoints when none is ready', () => {
    const r = render(
      [svc1],
      [slice(3, (i) => ({ conditions: { ready: false, serving: i !== 1, terminating: true } }))],
    );
    expect(r.text).toContain('--to-destination 10.180.0.0:80');
    expect(r.text).not.toContain('--to-destination 10.180.0.1:80');
    expect(r.text).toContain('--to-destination 10.180.0.2:80');
  });
  it('rejects when nothing is ready or serving', () => {
    const r = render(
      [svc1],
      [slice(2, () => ({ conditions: { ready: false, serving: false, terminating: true } }))],
    );
    expect(r.text).toContain(
      '-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j REJECT',
    );
  });
});

describe('internalTrafficPolicy Local', () => {
  it('drops cluster-IP traffic when this node has no endpoint, uses KUBE-SVL when it has', () => {
    const local = makeTestService('ns1', 'svc1', (s) => {
      s.spec.clusterIP = '172.30.0.41';
      s.spec.internalTrafficPolicy = 'Local';
      s.spec.ports = [{ name: 'p80', port: 80 }];
    });
    const none = render([local], [slice(2)]);
    expect(none.text).toContain(
      '-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 has no local endpoints" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j DROP',
    );
    const some = render([local], [slice(2, (i) => (i === 1 ? { nodeName: testNodeName } : {}))]);
    expect(some.text).toContain(
      '-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVL-XPGD46QRK7WJZT7O',
    );
    expect(some.text).toContain(
      '-A KUBE-SVL-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j KUBE-SEP-',
    );
    expect(some.text).not.toContain('10.180.0.0:80');
  });
});

describe('nodePortAddresses and IPv6', () => {
  const np = makeTestService('ns3', 'svc3', (s) => {
    s.spec.type = 'NodePort';
    s.spec.clusterIP = '172.30.0.43';
    s.spec.ports = [{ name: 'p80', port: 80, nodePort: 3001 }];
  });
  const npSlice = makeTestEndpointSlice('ns3', 'svc3', 1, (e) => {
    e.endpoints = [{ addresses: ['10.180.0.3'] }];
    e.ports = [{ name: 'p80', port: 80 }];
  });
  it('per-IP NodePort jump and no localhost NodePorts with --nodeport-addresses', () => {
    const r = render([np], [npSlice], { ...fakeProxierOptions, nodePortAddresses: ['192.168.0.0/24'] });
    expect(r.text).toContain(
      '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -d 192.168.0.2 -j KUBE-NODEPORTS',
    );
    expect(r.text).not.toContain('KUBE-FIREWALL');
    expect(r.text).not.toContain('127.0.0.0/8 --dport 3001');
  });
  it('IPv6 proxier: ::1 excluded, no KUBE-FIREWALL, bracketed endpoints', () => {
    const v6 = makeTestService('ns1', 'svc1', (s) => {
      s.spec.type = 'NodePort';
      s.spec.clusterIPs = ['fd00:10:96::1'];
      s.spec.clusterIP = 'fd00:10:96::1';
      s.spec.ports = [{ name: 'p80', port: 80, nodePort: 3001 }];
    });
    const v6Slice = makeTestEndpointSlice('ns1', 'svc1', 1, (e) => {
      e.addressType = 'IPv6';
      e.endpoints = [{ addresses: ['fd00:10::0:5'] }];
      e.ports = [{ name: 'p80', port: 80 }];
    });
    const r = render(
      [v6],
      [v6Slice],
      { ...fakeProxierOptions, clusterCIDR: '10.0.0.0/8,fd00:10::/64' },
      { name: testNodeName, ips: { IPv6: '2001:db8::1' } },
      'IPv6',
    );
    expect(r.text).toContain('-m addrtype --dst-type LOCAL ! -d ::1/128 -j KUBE-NODEPORTS');
    expect(r.text).not.toContain('KUBE-FIREWALL');
    expect(r.text).toContain('-j DNAT --to-destination [fd00:10::5]:80');
    expect(r.text).toContain('-d fd00:10:96::1 --dport 80 ! -s fd00:10::/64 -j KUBE-MARK-MASQ');
    expect(r.text).not.toContain('localhost_nps_accepted_pkts');
  });
});

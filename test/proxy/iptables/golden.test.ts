// Golden comparisons with kube-proxy's own expected iptables-restore inputs
// (pkg/proxy/iptables/proxier_test.go), normalised only by upstream's sortIPTablesRules.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/util/clock.js';
import { sortIptablesRules } from '../../../src/proxy/renderers/iptables/normalize.js';
import {
  fakeNode,
  fakeProxierOptions,
  fixture,
  newIptablesProxier,
  makeTestEndpointSlice,
  makeTestService,
  testNodeName,
} from './fixtures.js';
import type { EndpointSlice, Service } from '../../../src/api/types.js';

function assertRulesEqual(actual: string, expected: string) {
  expect(sortIptablesRules(actual)).toBe(sortIptablesRules(expected));
}

const tcp = 'TCP' as const;
function oneEndpointSlice(
  ns: string,
  name: string,
  ip: string,
  port: number,
  portName: string,
  nodeName?: string,
): EndpointSlice {
  return makeTestEndpointSlice(ns, name, 1, (eps) => {
    eps.endpoints = [{ addresses: [ip], ...(nodeName ? { nodeName } : {}) }];
    eps.ports = [{ name: portName, port, protocol: tcp }];
  });
}

describe('TestOverallIPTablesRules', () => {
  it('renders exactly the upstream expectation', () => {
    const s = newIptablesProxier(fakeNode, { ...fakeProxierOptions, clock: new ManualClock() });
    const services: Service[] = [
      makeTestService('ns1', 'svc1', (svc) => {
        svc.spec.clusterIP = '172.30.0.41';
        svc.spec.ports = [{ name: 'p80', port: 80, protocol: tcp }];
      }),
      makeTestService('ns2', 'svc2', (svc) => {
        svc.spec.type = 'LoadBalancer';
        svc.spec.externalTrafficPolicy = 'Local';
        svc.spec.clusterIP = '172.30.0.42';
        svc.spec.ports = [{ name: 'p80', port: 80, protocol: tcp, nodePort: 3001 }];
        svc.status = { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } };
        svc.spec.externalIPs = ['192.168.99.22'];
        svc.spec.healthCheckNodePort = 30000;
      }),
      makeTestService('ns3', 'svc3', (svc) => {
        svc.spec.type = 'NodePort';
        svc.spec.clusterIP = '172.30.0.43';
        svc.spec.ports = [{ name: 'p80', port: 80, protocol: tcp, nodePort: 3003 }];
      }),
      makeTestService('ns4', 'svc4', (svc) => {
        svc.spec.type = 'NodePort';
        svc.spec.clusterIP = '172.30.0.44';
        svc.spec.externalIPs = ['192.168.99.33'];
        svc.spec.ports = [{ name: 'p80', port: 80, protocol: tcp, targetPort: 80 }];
      }),
      makeTestService('ns5', 'svc5', (svc) => {
        svc.spec.type = 'LoadBalancer';
        svc.spec.externalTrafficPolicy = 'Cluster';
        svc.spec.clusterIP = '172.30.0.45';
        svc.spec.ports = [{ name: 'p80', port: 80, protocol: tcp, nodePort: 3002 }];
        svc.status = { loadBalancer: { ingress: [{ ip: '5.6.7.8' }] } };
        svc.spec.healthCheckNodePort = 30000;
        svc.spec.loadBalancerSourceRanges = [' 203.0.113.0/25'];
        svc.spec.sessionAffinity = 'ClientIP';
        svc.spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
      }),
      makeTestService('ns6', 'svc6', (svc) => {
        svc.spec.type = 'ClusterIP';
        svc.spec.clusterIP = '172.30.0.46';
        svc.spec.ports = [{ name: 'p80', port: 80, protocol: tcp, targetPort: 80 }];
      }),
    ];
    const slices: EndpointSlice[] = [
      oneEndpointSlice('ns1', 'svc1', '10.180.0.1', 80, 'p80'),
      oneEndpointSlice('ns2', 'svc2', '10.180.0.2', 80, 'p80'),
      oneEndpointSlice('ns3', 'svc3', '10.180.0.3', 80, 'p80'),
      makeTestEndpointSlice('ns4', 'svc4', 1, (eps) => {
        eps.endpoints = [
          { addresses: ['10.180.0.4'] },
          { addresses: ['10.180.0.5'], nodeName: testNodeName },
        ];
        eps.ports = [{ name: 'p80', port: 80, protocol: tcp }];
      }),
      oneEndpointSlice('ns5', 'svc5', '10.180.0.3', 80, 'p80'),
    ];
    for (const svc of services) s.state.onServiceAdd(svc);
    for (const eps of slices) s.state.onEndpointSliceAdd(eps);
    const r = s.sync();
    assertRulesEqual(r.text, fixture('overall.txt'));
    expect(r.kind).toBe('full');
    // metric: sync_proxy_rules_iptables_total{table="nat"} equals the -A lines of the nat table
    const natRules = r.text
      .split('*nat')[1]
      .split('\n')
      .filter((l) => l.startsWith('-A')).length;
    expect(r.rulesTotal.nat).toBe(natRules);
  });
});

describe('TestSyncProxyRulesRepeated (partial syncs)', () => {
  it('writes only changed services and deletes stale chains', () => {
    const s = newIptablesProxier(fakeNode, {
      ...fakeProxierOptions,
      nfacct: false,
      clock: new ManualClock(),
    });
    const svc = (ns: string, name: string, ip: string, portName: string, port: number) =>
      makeTestService(ns, name, (x) => {
        x.spec.type = 'ClusterIP';
        x.spec.clusterIP = ip;
        x.spec.ports = [{ name: portName, port, protocol: tcp }];
      });
    const svc1 = svc('ns1', 'svc1', '172.30.0.41', 'p80', 80);
    const svc2 = svc('ns2', 'svc2', '172.30.0.42', 'p8080', 8080);
    s.state.onServiceAdd(svc1);
    s.state.onServiceAdd(svc2);
    s.state.onEndpointSliceAdd(oneEndpointSlice('ns1', 'svc1', '10.0.1.1', 80, 'p80'));
    s.state.onEndpointSliceAdd(oneEndpointSlice('ns2', 'svc2', '10.0.2.1', 8080, 'p8080'));
    let r = s.sync();
    expect(r.kind).toBe('full');
    assertRulesEqual(r.text, fixture('repeated-1.txt'));

    // Add a new service and its endpoints: only its SVC and SEP chains are written.
    s.state.onServiceAdd(svc('ns3', 'svc3', '172.30.0.43', 'p80', 80));
    const eps3 = oneEndpointSlice('ns3', 'svc3', '10.0.3.1', 80, 'p80');
    s.state.onEndpointSliceAdd(eps3);
    r = s.sync();
    expect(r.kind).toBe('partial');
    assertRulesEqual(r.text, fixture('repeated-2.txt'));

    // Delete a service: its chains are flushed and deleted.
    s.state.onServiceDelete(svc2);
    r = s.sync();
    assertRulesEqual(r.text, fixture('repeated-3.txt'));
    expect(r.deletedChains).toBe(2);

    // Add a service without endpoints: REJECT only.
    const svc4 = svc('ns4', 'svc4', '172.30.0.44', 'p80', 80);
    s.state.onServiceAdd(svc4);
    r = s.sync();
    assertRulesEqual(r.text, fixture('repeated-4.txt'));

    // ... then its endpoints.
    s.state.onEndpointSliceAdd(oneEndpointSlice('ns4', 'svc4', '10.0.4.1', 80, 'p80'));
    r = s.sync();
    assertRulesEqual(r.text, fixture('repeated-5.txt'));

    // Change an endpoint of svc3: SVC and SEP chains rewritten, the old SEP deleted.
    const eps3update = structuredClone(eps3);
    eps3update.endpoints[0].addresses[0] = '10.0.3.2';
    s.state.onEndpointSliceUpdate(eps3, eps3update);
    r = s.sync();
    assertRulesEqual(r.text, fixture('repeated-6.txt'));

    // Add an endpoint to svc3.
    const eps3update2 = structuredClone(eps3update);
    eps3update2.endpoints.push({ addresses: ['10.0.3.3'] });
    s.state.onEndpointSliceUpdate(eps3update, eps3update2);
    r = s.sync();
    assertRulesEqual(r.text, fixture('repeated-7.txt'));

    // Sync with no changes: no per-service chains at all.
    r = s.sync();
    assertRulesEqual(r.text, fixture('repeated-8.txt'));
    expect(r.kind).toBe('partial');
    expect(r.render.skippedNatRules).toBeGreaterThan(0);
  });

  it('a failed restore forces the next sync to be full', () => {
    let fail = false;
    const s = newIptablesProxier(fakeNode, {
      ...fakeProxierOptions,
      clock: new ManualClock(),
      apply: () => {
        if (fail) throw new Error('restore failed');
      },
    });
    s.state.onServiceAdd(
      makeTestService('ns1', 'svc1', (x) => {
        x.spec.clusterIP = '172.30.0.41';
        x.spec.ports = [{ name: 'p80', port: 80 }];
      }),
    );
    expect(s.sync().kind).toBe('full');
    fail = true;
    const bad = s.sync();
    expect(bad.applied).toBe(false);
    fail = false;
    expect(s.sync().kind).toBe('full');
    expect(s.sync().kind).toBe('partial');
  });

  it('full sync again after an hour', () => {
    const clock = new ManualClock();
    const s = newIptablesProxier(fakeNode, { ...fakeProxierOptions, clock });
    expect(s.sync().kind).toBe('full');
    clock.advance(30 * 60 * 1000);
    expect(s.sync().kind).toBe('partial');
    clock.advance(31 * 60 * 1000);
    expect(s.sync().kind).toBe('full');
  });
});

describe('topology change', () => {
  it('new zone label forces a full sync that follows the zone hints', () => {
    const s = newIptablesProxier(
      {
        name: testNodeName,
        ips: { IPv4: '192.168.0.2' },
        topologyLabels: { 'topology.kubernetes.io/zone': 'zone-a' },
      },
      { ...fakeProxierOptions, clock: new ManualClock() },
    );
    s.state.onServiceAdd(
      makeTestService('ns1', 'svc1', (x) => {
        x.spec.clusterIP = '172.30.0.41';
        x.spec.ports = [{ name: 'p80', port: 80 }];
      }),
    );
    s.state.onEndpointSliceAdd(
      makeTestEndpointSlice('ns1', 'svc1', 1, (e) => {
        e.endpoints = [
          { addresses: ['10.180.0.1'], hints: { forZones: [{ name: 'zone-a' }] } },
          { addresses: ['10.180.0.2'], hints: { forZones: [{ name: 'zone-b' }] } },
        ];
        e.ports = [{ name: 'p80', port: 80 }];
      }),
    );
    const a = s.sync();
    expect(a.text).toContain('--to-destination 10.180.0.1:80');
    expect(a.text).not.toContain('--to-destination 10.180.0.2:80');
    expect(s.sync().kind).toBe('partial');
    s.onTopologyChange({ 'topology.kubernetes.io/zone': 'zone-b' });
    const b = s.sync();
    expect(b.kind).toBe('full');
    expect(b.text).toContain('--to-destination 10.180.0.2:80');
    expect(b.text).not.toContain('--to-destination 10.180.0.1:80');
    expect(b.deletedChains).toBe(1);
  });
});

describe('stale chain cleanup in large-cluster mode', () => {
  it('deletes stale chains at most once per syncPeriod above 1000 endpoints', () => {
    const clock = new ManualClock();
    const s = newIptablesProxier(fakeNode, { ...fakeProxierOptions, clock, syncPeriodMs: 30_000 });
    const big = makeTestService('ns1', 'big', (x) => {
      x.spec.clusterIP = '172.30.0.50';
      x.spec.ports = [{ name: 'p80', port: 80 }];
    });
    const small = makeTestService('ns1', 'small', (x) => {
      x.spec.clusterIP = '172.30.0.51';
      x.spec.ports = [{ name: 'p80', port: 80 }];
    });
    s.state.onServiceAdd(big);
    s.state.onServiceAdd(small);
    s.state.onEndpointSliceAdd(
      makeTestEndpointSlice('ns1', 'big', 1, (e) => {
        e.endpoints = Array.from({ length: 1001 }, (_, i) => ({ addresses: [`10.1.${i >> 8}.${i & 255}`] }));
        e.ports = [{ name: 'p80', port: 80 }];
      }),
    );
    s.state.onEndpointSliceAdd(
      makeTestEndpointSlice('ns1', 'small', 1, (e) => {
        e.endpoints = [{ addresses: ['10.2.0.1'] }];
        e.ports = [{ name: 'p80', port: 80 }];
      }),
    );
    expect(s.sync().largeClusterMode).toBe(true);
    s.state.onServiceDelete(small);
    clock.advance(1000);
    const early = s.sync();
    expect(early.deletedChains).toBe(0); // kube-proxy skips iptables-save here
    clock.advance(30_000);
    const later = s.sync();
    expect(later.deletedChains).toBe(2); // small's KUBE-SVC and KUBE-SEP
    expect(later.text).toMatch(/^-X KUBE-SVC-/m);
  });
});

import { describe, expect, it } from 'vitest';
import {
  hashAndTruncate,
  servicePortChainNameBase,
  servicePortEndpointChainNameBase,
} from '../../../src/proxy/renderers/nftables/names.js';

// Expected names are taken from kube-proxy's own tests (pkg/proxy/nftables/proxier_test.go).
describe('nftables chain names (kube-proxy hashAndTruncate)', () => {
  it.each([
    ['ns1', 'svc1', 'tcp', 'p80', 'ULMVA6XW-ns1/svc1/tcp/p80'],
    ['ns2', 'svc2', 'tcp', 'p80', '42NFTM6N-ns2/svc2/tcp/p80'],
    ['ns3', 'svc3', 'tcp', 'p80', '4AT6LBPK-ns3/svc3/tcp/p80'],
    ['ns4', 'svc4', 'tcp', 'p80', 'LAUZTJTB-ns4/svc4/tcp/p80'],
    ['ns5', 'svc5', 'tcp', 'p80', 'HVFWP5L3-ns5/svc5/tcp/p80'],
  ])('service chain %s/%s/%s/%s', (ns, name, proto, port, want) => {
    expect(servicePortChainNameBase(ns, name, proto, port)).toBe(want);
  });
  it.each([
    ['ns1', 'svc1', '10.180.0.1', '5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80'],
    ['ns2', 'svc2', '10.180.0.2', 'SGOXE6O3-ns2/svc2/tcp/p80__10.180.0.2/80'],
    ['ns3', 'svc3', '10.180.0.3', 'UEIP74TE-ns3/svc3/tcp/p80__10.180.0.3/80'],
    ['ns4', 'svc4', '10.180.0.4', 'UNZV3OEC-ns4/svc4/tcp/p80__10.180.0.4/80'],
    ['ns4', 'svc4', '10.180.0.5', '5RFCDDV7-ns4/svc4/tcp/p80__10.180.0.5/80'],
    ['ns5', 'svc5', '10.180.0.3', 'GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80'],
  ])('endpoint chain %s/%s %s', (ns, name, ip, want) => {
    expect(servicePortEndpointChainNameBase(ns, name, 'tcp', 'p80', ip, 80)).toBe(want);
  });
  it('truncates names longer than 240 characters with "..."', () => {
    const long = 'a'.repeat(300);
    const out = hashAndTruncate(long);
    expect(out.length).toBe(240);
    expect(out.endsWith('...')).toBe(true);
  });
  it('turns IPv6 colons into dots', () => {
    expect(servicePortEndpointChainNameBase('ns', 's', 'tcp', 'p', 'fd00::1', 80)).toMatch(
      /^[A-Z2-7]{8}-ns\/s\/tcp\/p__fd00..1\/80$/,
    );
  });
});

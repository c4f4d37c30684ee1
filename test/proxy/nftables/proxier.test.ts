import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildProxyState, ProxyState } from '../../../src/proxy/model/index.js';
import { NftablesProxier } from '../../../src/proxy/renderers/nftables/proxier.js';
import { ManualClock } from '../../../src/util/clock.js';
import { generateServices, changeOneEndpoint } from '../../../src/proxy/gen.js';
import { Rng } from '../../../src/util/rng.js';
import { createNetns, probe, type Netns } from '../netns.js';

import { NODE, slice, upstreamServices, upstreamSlices } from '../upstream-fixture.js';

function fullScript(): string {
  const state = buildProxyState(upstreamServices, upstreamSlices, NODE);
  const p = new NftablesProxier(state, {
    clusterCIDR: '10.0.0.0/8',
    serviceCIDRs: ['172.30.0.0/16'],
    masqueradeMark: '0x4000',
  });
  return p.sync().text;
}

describe('nftables renderer vs kube-proxy TestOverallNFTablesRules', () => {
  const script = fullScript();
  const lines = new Set(script.split('\n'));
  // Lines copied from the expected output of the upstream test (the fake sorts lines; we compare as a set).
  it.each([
    'add table ip kube-proxy { comment "rules for kube-proxy" ; }',
    'add chain ip kube-proxy filter-prerouting-pre-dnat { type filter hook prerouting priority -110 ; }',
    'add chain ip kube-proxy nat-postrouting { type nat hook postrouting priority 100 ; }',
    'add rule ip kube-proxy cluster-ips-check ip daddr @cluster-ips reject comment "Reject traffic to invalid ports of ClusterIPs"',
    'add rule ip kube-proxy cluster-ips-check ip daddr { 172.30.0.0/16 } drop comment "Drop traffic to unallocated ClusterIPs"',
    'add rule ip kube-proxy filter-input ct state new jump nodeport-endpoints-check',
    'add rule ip kube-proxy masquerading mark and 0x4000 == 0 return',
    'add rule ip kube-proxy services ip daddr @nodeport-ips meta l4proto . th dport vmap @service-nodeports',
    'add element ip kube-proxy nodeport-ips { 192.168.0.2 }',
    'add map ip kube-proxy service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; comment "ClusterIP, ExternalIP and LoadBalancer IP traffic" ; }',
    // svc1
    'add chain ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80',
    'add rule ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80 ip daddr 172.30.0.41 ip saddr != 10.0.0.0/8 jump mark-for-masquerade',
    'add rule ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80 numgen random mod 1 vmap { 0 : goto endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80 }',
    'add rule ip kube-proxy endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80 ip saddr 10.180.0.1 jump mark-for-masquerade',
    'add rule ip kube-proxy endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80 meta l4proto tcp dnat to 10.180.0.1:80',
    'add element ip kube-proxy cluster-ips { 172.30.0.41 }',
    'add element ip kube-proxy service-ips { 172.30.0.41 . tcp . 80 : goto service-ULMVA6XW-ns1/svc1/tcp/p80 }',
    // svc2 (Local policy, no local endpoint)
    'add rule ip kube-proxy external-42NFTM6N-ns2/svc2/tcp/p80 ip saddr 10.0.0.0/8 goto service-42NFTM6N-ns2/svc2/tcp/p80 comment "short-circuit pod traffic"',
    'add rule ip kube-proxy external-42NFTM6N-ns2/svc2/tcp/p80 fib saddr type local jump mark-for-masquerade comment "masquerade local traffic"',
    'add rule ip kube-proxy external-42NFTM6N-ns2/svc2/tcp/p80 fib saddr type local goto service-42NFTM6N-ns2/svc2/tcp/p80 comment "short-circuit local traffic"',
    'add element ip kube-proxy service-ips { 192.168.99.22 . tcp . 80 : goto external-42NFTM6N-ns2/svc2/tcp/p80 }',
    'add element ip kube-proxy service-ips { 1.2.3.4 . tcp . 80 : goto external-42NFTM6N-ns2/svc2/tcp/p80 }',
    'add element ip kube-proxy service-nodeports { tcp . 3001 : goto external-42NFTM6N-ns2/svc2/tcp/p80 }',
    'add element ip kube-proxy no-endpoint-nodeports { tcp . 3001 comment "ns2/svc2:p80" : drop }',
    'add element ip kube-proxy no-endpoint-services { 1.2.3.4 . tcp . 80 comment "ns2/svc2:p80" : drop }',
    'add element ip kube-proxy no-endpoint-services { 192.168.99.22 . tcp . 80 comment "ns2/svc2:p80" : drop }',
    // svc3
    'add rule ip kube-proxy external-4AT6LBPK-ns3/svc3/tcp/p80 jump mark-for-masquerade',
    'add rule ip kube-proxy external-4AT6LBPK-ns3/svc3/tcp/p80 goto service-4AT6LBPK-ns3/svc3/tcp/p80',
    'add element ip kube-proxy service-nodeports { tcp . 3003 : goto external-4AT6LBPK-ns3/svc3/tcp/p80 }',
    // svc4
    'add rule ip kube-proxy service-LAUZTJTB-ns4/svc4/tcp/p80 numgen random mod 2 vmap { 0 : goto endpoint-UNZV3OEC-ns4/svc4/tcp/p80__10.180.0.4/80 , 1 : goto endpoint-5RFCDDV7-ns4/svc4/tcp/p80__10.180.0.5/80 }',
    'add element ip kube-proxy service-ips { 192.168.99.33 . tcp . 80 : goto external-LAUZTJTB-ns4/svc4/tcp/p80 }',
    // svc5 (affinity, source ranges)
    'add set ip kube-proxy affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 { type ipv4_addr ; flags dynamic,timeout ; timeout 10800s ; }',
    'add rule ip kube-proxy service-HVFWP5L3-ns5/svc5/tcp/p80 ip saddr @affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 goto endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80',
    'add rule ip kube-proxy external-HVFWP5L3-ns5/svc5/tcp/p80 goto service-HVFWP5L3-ns5/svc5/tcp/p80',
    'add rule ip kube-proxy endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 update @affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 { ip saddr }',
    'add rule ip kube-proxy firewall-HVFWP5L3-ns5/svc5/tcp/p80 ip saddr != { 203.0.113.0/25 } drop',
    'add element ip kube-proxy firewall-ips { 5.6.7.8 . tcp . 80 : goto firewall-HVFWP5L3-ns5/svc5/tcp/p80 }',
    // svc6 (no endpoints)
    'add element ip kube-proxy cluster-ips { 172.30.0.46 }',
    'add element ip kube-proxy no-endpoint-services { 172.30.0.46 . tcp . 80 comment "ns6/svc6:p80" : goto reject-chain }',
  ])('contains %s', (line) => {
    expect(lines.has(line)).toBe(true);
  });

  it('writes no chain for the service without endpoints', () => {
    expect(script).not.toMatch(/ns6\/svc6\/tcp\/p80 /);
  });
});

describe('nftables partial sync (kube-proxy TestSyncProxyRulesRepeated semantics)', () => {
  it('rewrites only the changed Service, flushes then deletes stale chains, diffs map elements', () => {
    const state = new ProxyState(NODE);
    for (const s of upstreamServices) state.onServiceAdd(s);
    for (const s of upstreamSlices) state.onEndpointSliceAdd(s);
    state.applyChanges();
    const clock = new ManualClock(0);
    const p = new NftablesProxier(state, { clusterCIDR: '10.0.0.0/8', clock });
    const first = p.sync();
    expect(first.kind).toBe('full');

    // svc1's only endpoint moves from 10.180.0.1 to 10.180.0.9
    state.onEndpointSliceUpdate(upstreamSlices[0], slice('ns1', 'svc1', [{ ip: '10.180.0.9' }]));
    clock.advance(100);
    const second = p.sync();
    expect(second.kind).toBe('partial');
    expect(second.servicePortsWritten).toBe(1);
    const l = second.text.split('\n');
    expect(l).toContain('add chain ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80');
    expect(l).toContain('flush chain ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80');
    expect(l).toContain('flush chain ip kube-proxy endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80');
    expect(second.text).not.toContain('svc2'); // untouched Services are not written
    expect(second.text).not.toContain('service-ips { 172.30.0.41'); // element unchanged: goto the same chain
    expect(second.staleText).toBe('');

    // a sync more than 1 s later deletes the stale endpoint chain
    clock.advance(1100);
    const third = p.sync();
    expect(third.staleText).toBe(
      'delete chain ip kube-proxy endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80\n',
    );
    expect(third.text).toBe(''); // nothing changed
    expect(p.existingChains()).not.toContain('endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80');
  });

  it('moves a service whose endpoints all left to no-endpoint-services (delete + add elements)', () => {
    const state = buildProxyState(upstreamServices, upstreamSlices, NODE);
    const clock = new ManualClock(0);
    const p = new NftablesProxier(state, { clusterCIDR: '10.0.0.0/8', clock });
    p.sync();
    state.onEndpointSliceDelete(upstreamSlices[0]);
    clock.advance(10);
    const r = p.sync();
    expect(r.text).toContain(
      'add element ip kube-proxy no-endpoint-services { 172.30.0.41 . tcp . 80 comment "ns1/svc1:p80" : goto reject-chain }',
    );
    expect(r.text).toContain('delete element ip kube-proxy service-ips { 172.30.0.41 . tcp . 80 }');
    expect(r.text).toContain('flush chain ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80');
  });
});

describe('nftables scripts accepted by the real nft (nft -c -f in a private network namespace)', () => {
  let ns: Netns | string;
  let dir: string;
  beforeAll(() => {
    ns = createNetns();
    dir = mkdtempSync(join(tmpdir(), 'kubesim-nft-'));
    if (typeof ns !== 'string') {
      const why = probe(ns, 'nft', ['-c', '-f', '-'], 'add table ip kubesim-probe\n');
      if (why) {
        ns.destroy();
        ns = why;
      }
    }
    if (typeof ns === 'string') console.warn(`skipping nft oracle: ${ns}`);
  });
  afterAll(() => {
    if (typeof ns !== 'string') ns.destroy();
  });

  const nft = (args: string[], script: string, file: string) => {
    const n = ns as Netns;
    const path = join(dir, file);
    writeFileSync(path, script);
    return n.run('nft', [...args, '-f', path]);
  };

  it('accepts the upstream fixture', (ctx) => {
    if (typeof ns === 'string') ctx.skip();
    const r = nft(['-c'], fullScript(), 'upstream.nft');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it.each([1, 2, 3])(
    'applies a generated cluster (seed %i), then checks and applies partial syncs',
    (seed, ctx) => {
      if (typeof ns === 'string') ctx.skip();
      const cluster = generateServices({ services: 150, endpoints: 4, seed, nodes: 6 });
      const state = new ProxyState({ name: cluster.nodeName, ips: { IPv4: '192.168.0.10' } });
      for (const s of cluster.services) state.onServiceAdd(s);
      for (const s of cluster.endpointSlices) state.onEndpointSliceAdd(s);
      const clock = new ManualClock(0);
      const p = new NftablesProxier(state, {
        clusterCIDR: cluster.clusterCIDR,
        serviceCIDRs: [cluster.serviceCIDR],
        clock,
      });
      const full = p.sync();
      const n = ns as Netns;
      n.run('nft', ['delete', 'table', 'ip', 'kube-proxy']);
      let r = nft([], full.text, `full-${seed}.nft`);
      expect(r.stderr).toBe('');
      const rng = new Rng(seed);
      for (let i = 0; i < 4; i++) {
        const old = cluster.endpointSlices.slice();
        const change = changeOneEndpoint(cluster, rng);
        state.onEndpointSliceUpdate(old[change.sliceIndex], change.slice);
        clock.advance(700);
        const part = p.sync();
        expect(part.kind).toBe('partial');
        if (part.staleText) {
          r = nft([], part.staleText, `stale-${seed}-${i}.nft`);
          expect(r.stderr).toBe('');
        }
        r = nft(['-c'], part.text, `part-${seed}-${i}.nft`);
        expect(r.stderr).toBe('');
        r = nft([], part.text, `part-${seed}-${i}.nft`);
        expect(r.stderr).toBe('');
      }
      // the kernel's chain list equals the renderer's simulated one
      const listed = n
        .run('nft', ['list', 'chains', 'ip'])
        .stdout.split('\n')
        .map((l) => /^\s*chain (\S+) \{/.exec(l)?.[1])
        .filter((c): c is string => !!c)
        .map((c) => c.replace(/^"|"$/g, ''))
        .sort();
      expect(listed).toEqual(p.existingChains());
    },
  );
});

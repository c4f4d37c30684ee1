/**
 * The Proxier conformance suite: one set of tests every kube-proxy mode runs
 * (test/proxy/<mode>/conformance.test.ts), in the manner of Hono's runTest — a mode that cannot
 * meet a test declares it in `skip` with the reason, and the skip shows in the test name.
 *
 * Everything goes through the public path: a ProxyState fed with watch events, the mode's
 * Proxier, and what it wrote — packets are classified by the dataplane model compiled from the
 * rendered text (not from the model), and the real tool checks the text where it can run.
 * Services and endpoints are kube-proxy's own fixture (TestOverallNFTablesRules, upstream-fixture.ts).
 */
import { describe, expect, it } from 'vitest';
import type { Service } from '../../src/api/types.js';
import { compileSync } from '../../src/proxy/dataplane/modes.js';
import {
  JsKernel,
  newPacketBatch,
  newResult,
  type PacketBatch,
} from '../../src/proxy/dataplane/kernel-js.js';
import { ipToU32, PKT_SRC_LOCAL, RES_DROP, RES_REJECT } from '../../src/proxy/dataplane/program.js';
import { type IPFamily, type ProxyNode, ProxyState } from '../../src/proxy/model/index.js';
import type { Proxier, ProxierOptions, ProxyMode, ProxySyncResult } from '../../src/proxy/renderers/index.js';
import { ManualClock } from '../../src/util/clock.js';
import {
  NODE,
  NODE_V6,
  upstreamServices,
  upstreamServicesV6,
  upstreamSlices,
  upstreamSlicesV6,
} from './upstream-fixture.js';

export const CONFORMANCE_TESTS = [
  'first sync is full, later syncs partial',
  'forceFullSync makes the next sync full',
  'a topology change makes the next sync full',
  'a sync without changes writes less than a full sync',
  'two proxiers over the same state write the same text',
  'ClusterIP traffic reaches a cluster endpoint; a Service without endpoints rejects',
  'external traffic to a Local-policy LoadBalancer IP without local endpoints is dropped',
  'loadBalancerSourceRanges: a listed source reaches the endpoint',
  'NodePort traffic reaches an endpoint; other traffic passes untouched',
  'a deleted Service is no longer served',
  'an invalid Service or EndpointSlice is skipped; the rest renders and the real tool accepts it',
  'the real tool accepts the full sync',
  'an IPv6 proxier writes IPv6 addresses only, and the real tool accepts them',
] as const;
export type ConformanceTest = (typeof CONFORMANCE_TESTS)[number];

/** Options a conformance proxier gets: the common ones plus what some modes read. */
export type ConformanceOptions = ProxierOptions & { serviceCIDRs?: readonly string[] };

export interface RealTool {
  /** why the tool cannot run here (not root, not installed, kernel support missing), or null */
  unavailable(): string | null;
  /** the tool's complaints about this sync's texts ('' when it accepts them) */
  check(result: ProxySyncResult, family: IPFamily): string;
}

export interface ProxierFixture {
  mode: ProxyMode;
  newProxier(state: ProxyState, opts: ConformanceOptions): Proxier;
  realTool?: RealTool;
  skip?: { reason: string; tests: ConformanceTest[] }[];
}

/** kube-proxy's NewFakeProxier settings, IPv4. */
const FAKE_OPTIONS: ConformanceOptions = {
  clusterCIDR: '10.0.0.0/8',
  serviceCIDRs: ['172.30.0.0/16'],
  masqueradeMark: '0x4000',
};

export function runProxierConformance(f: ProxierFixture): void {
  const skipped = new Map<string, string>();
  for (const s of f.skip ?? []) for (const t of s.tests) skipped.set(t, s.reason);

  const test = (name: ConformanceTest, fn: () => void) => {
    const reason = skipped.get(name);
    if (reason !== undefined) it.skip(`${name} (skipped: ${reason})`, fn);
    else it(name, fn);
  };

  const fixture = (node: ProxyNode = NODE, opts: ConformanceOptions = FAKE_OPTIONS) => {
    const state = new ProxyState(node, 'IPv4');
    for (const s of upstreamServices) state.onServiceAdd(s);
    for (const s of upstreamSlices) state.onEndpointSliceAdd(s);
    return { state, proxier: f.newProxier(state, { clock: new ManualClock(0), ...opts }) };
  };
  /** classifies packets through a full sync's rules; endpoint "ip:port", or DROP / REJECT / PASS */
  const classify = (result: ProxySyncResult, node: ProxyNode, packets: Packet[]) => {
    const prog = compileSync(f.mode, result, node);
    const out = newResult(packets.length);
    new JsKernel(prog).classify(batch(packets), out);
    return [...out.result].map((r) => (r >= 0 ? prog.endpoints[r] : verdictName(r)));
  };

  describe(`Proxier conformance: ${f.mode}`, () => {
    it('declares skips only for tests that exist', () => {
      for (const name of skipped.keys()) expect(CONFORMANCE_TESTS).toContain(name);
    });

    test('first sync is full, later syncs partial', () => {
      const { state, proxier } = fixture();
      expect(proxier.mode).toBe(f.mode);
      expect(proxier.family).toBe('IPv4');
      expect(proxier.sync().kind).toBe('full');
      state.onEndpointSliceDelete(upstreamSlices[0]);
      expect(proxier.sync().kind).toBe('partial');
      expect(proxier.sync().kind).toBe('partial');
    });

    test('forceFullSync makes the next sync full', () => {
      const { proxier } = fixture();
      proxier.sync();
      proxier.forceFullSync();
      expect(proxier.sync().kind).toBe('full');
      expect(proxier.sync().kind).toBe('partial');
    });

    test('a topology change makes the next sync full', () => {
      const { state, proxier } = fixture();
      proxier.sync();
      proxier.onTopologyChange({ 'topology.kubernetes.io/zone': 'zone-b' });
      expect(state.node.topologyLabels).toEqual({ 'topology.kubernetes.io/zone': 'zone-b' });
      expect(proxier.sync().kind).toBe('full');
    });

    test('a sync without changes writes less than a full sync', () => {
      const { proxier } = fixture();
      const full = proxier.sync();
      const again = proxier.sync();
      expect(again.stats.rules).toBeLessThan(full.stats.rules);
      expect(again.stats.bytes).toBeLessThan(full.stats.bytes);
    });

    test('two proxiers over the same state write the same text', () => {
      const { state, proxier } = fixture();
      const a = proxier.sync();
      const b = f.newProxier(state, { clock: new ManualClock(0), ...FAKE_OPTIONS }).sync();
      expect(b.text).toBe(a.text);
      expect(b.artifacts).toEqual(a.artifacts);
    });

    test('ClusterIP traffic reaches a cluster endpoint; a Service without endpoints rejects', () => {
      const { state, proxier } = fixture();
      const got = classify(proxier.sync(), state.node, [
        { src: '10.0.0.2', dst: '172.30.0.41', port: 80 },
        { src: '10.0.0.2', dst: '172.30.0.44', port: 80 },
        { src: '10.0.0.2', dst: '172.30.0.46', port: 80 },
      ]);
      expect(got[0]).toBe('10.180.0.1:80');
      expect(['10.180.0.4:80', '10.180.0.5:80']).toContain(got[1]);
      expect(got[2]).toBe('REJECT');
    });

    test('external traffic to a Local-policy LoadBalancer IP without local endpoints is dropped', () => {
      // ns2/svc2: LoadBalancer, externalTrafficPolicy Local, its only endpoint on another node
      const { state, proxier } = fixture();
      const got = classify(proxier.sync(), state.node, [{ src: '203.0.113.2', dst: '1.2.3.4', port: 80 }]);
      expect(got).toEqual(['DROP']);
    });

    // The dropping of other sources happens in filter hooks before DNAT, which the dataplane
    // model does not walk (docs/proxy-dataplane.md); each mode's own tests check those rules.
    test('loadBalancerSourceRanges: a listed source reaches the endpoint', () => {
      // ns5/svc5: LoadBalancer 5.6.7.8 with loadBalancerSourceRanges 203.0.113.0/25
      const { state, proxier } = fixture();
      const got = classify(proxier.sync(), state.node, [{ src: '203.0.113.2', dst: '5.6.7.8', port: 80 }]);
      expect(got).toEqual(['10.180.0.3:80']);
    });

    test('NodePort traffic reaches an endpoint; other traffic passes untouched', () => {
      // ns3/svc3: NodePort 3003, endpoint 10.180.0.3 on another node
      const { state, proxier } = fixture();
      const got = classify(proxier.sync(), state.node, [
        { src: '203.0.113.2', dst: NODE.ips.IPv4, port: 3003 },
        { src: '10.0.0.2', dst: '8.8.8.8', port: 53, proto: 17 },
      ]);
      expect(got).toEqual(['10.180.0.3:80', 'PASS']);
    });

    test('a deleted Service is no longer served', () => {
      const { state, proxier } = fixture();
      proxier.sync();
      state.onServiceDelete(upstreamServices[0]);
      proxier.sync();
      // what the kernel holds now equals a full sync of the new state
      const fresh = f.newProxier(state, { clock: new ManualClock(0), ...FAKE_OPTIONS }).sync();
      expect(fresh.text).not.toContain('172.30.0.41');
      const [got] = classify(fresh, state.node, [{ src: '10.0.0.2', dst: '172.30.0.41', port: 80 }]);
      expect(got).not.toBe('10.180.0.1:80');
    });

    test('an invalid Service or EndpointSlice is skipped; the rest renders and the real tool accepts it', (ctx) => {
      const { state, proxier } = fixture();
      const bad: Service = {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { namespace: 'ns9', name: 'bad' },
        spec: { clusterIP: '999.1.1.1', ports: [{ name: 'p80', port: 80 }] },
      };
      state.onServiceAdd(bad);
      state.onServiceAdd({
        ...bad,
        metadata: { namespace: 'ns9', name: 'port0' },
        spec: { clusterIP: '172.30.0.90', ports: [{ name: 'p80', port: 0 }] },
      });
      state.onServiceAdd({
        ...bad,
        metadata: { namespace: 'ns9', name: 'x' },
        spec: { clusterIP: '172.30.0.91', ports: [{ name: 'p80', port: 80 }] },
      });
      state.onEndpointSliceAdd({
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { namespace: 'ns9', name: 'x-1', labels: { 'kubernetes.io/service-name': 'x' } },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['10.244.1.2'] }],
        ports: [{ name: 'p80', port: 'x' as unknown as number }],
      });
      const r = proxier.sync();
      expect(r.text + r.artifacts.map((a) => a.text).join('')).not.toMatch(
        /999\.1\.1\.1|172\.30\.0\.90|10\.244\.1\.2/,
      );
      expect(state.invalidObjects().map((e) => e.object)).toEqual([
        'EndpointSlice ns9/x-1',
        'Service ns9/bad',
        'Service ns9/port0',
      ]);
      // everything else is still there: ns9/x is served (without endpoints), svc1 reaches its endpoint
      expect(
        classify(r, state.node, [
          { src: '10.0.0.2', dst: '172.30.0.41', port: 80 },
          { src: '10.0.0.2', dst: '172.30.0.91', port: 80 },
        ]),
      ).toEqual(['10.180.0.1:80', 'REJECT']);
      const why = f.realTool ? f.realTool.unavailable() : 'no real tool for this mode';
      if (why) {
        console.warn(`${f.mode}: skipping the real-tool check: ${why}`);
        ctx.skip();
      }
      expect(f.realTool!.check(r, 'IPv4')).toBe('');
    });

    test('the real tool accepts the full sync', (ctx) => {
      const why = f.realTool ? f.realTool.unavailable() : 'no real tool for this mode';
      if (why) {
        console.warn(`${f.mode}: skipping the real-tool check: ${why}`);
        ctx.skip();
      }
      const { proxier } = fixture();
      expect(f.realTool!.check(proxier.sync(), 'IPv4')).toBe('');
    });

    test('an IPv6 proxier writes IPv6 addresses only, and the real tool accepts them', (ctx) => {
      const state = new ProxyState(NODE_V6, 'IPv6');
      // the IPv4 objects too: an IPv6 proxier must ignore them
      for (const s of [...upstreamServices, ...upstreamServicesV6]) state.onServiceAdd(s);
      for (const s of [...upstreamSlices, ...upstreamSlicesV6]) state.onEndpointSliceAdd(s);
      const proxier = f.newProxier(state, {
        ...FAKE_OPTIONS,
        clusterCIDR: '10.0.0.0/8,fd00:10::/64',
        serviceCIDRs: ['172.30.0.0/16', 'fd00:172:30::/112'],
        clock: new ManualClock(0),
      });
      expect(proxier.family).toBe('IPv6');
      const r = proxier.sync();
      const all = r.text + r.artifacts.map((a) => a.text).join('');
      expect(all).not.toMatch(/\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b/);
      for (const ip of ['fd00:172:30::41', 'fd00:10:180::1', '2001:db8:99::22', '2001:db8:1::5678'])
        expect(all).toContain(ip);
      expect(all).toMatch(/\[fd00:10:180::1\]:80/);
      const why = f.realTool ? f.realTool.unavailable() : 'no real tool for this mode';
      if (why) {
        console.warn(`${f.mode}: skipping the real-tool check: ${why}`);
        ctx.skip();
      }
      expect(f.realTool!.check(r, 'IPv6')).toBe('');
    });
  });
}

interface Packet {
  src: string;
  dst: string;
  port: number;
  /** 6 tcp (default), 17 udp, 132 sctp */
  proto?: number;
  /** sent by the node itself */
  local?: boolean;
}

function batch(pkts: Packet[]): PacketBatch {
  const b = newPacketBatch(pkts.length);
  pkts.forEach((p, i) => {
    b.dst[i] = ipToU32(p.dst) | 0;
    b.src[i] = ipToU32(p.src) | 0;
    b.dport[i] = p.port;
    b.proto[i] = p.proto ?? 6;
    b.seed[i] = i + 1;
    b.flags[i] = p.local ? PKT_SRC_LOCAL : 0;
  });
  return b;
}

function verdictName(r: number): string {
  return r === RES_DROP ? 'DROP' : r === RES_REJECT ? 'REJECT' : 'PASS';
}

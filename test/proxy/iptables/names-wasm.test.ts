// The WASM chain-name hash (assembly/proxy_names.ts) against the JavaScript one (node:crypto):
// kube-proxy's own expected names, seeded random texts of every length around SHA-256's block
// edges (55/56/63/64/119/120 bytes), the names of a generated cluster, and non-ASCII texts
// (handed to the JavaScript hash).
import { describe, expect, it } from 'vitest';
import { changeOneEndpoint, generateServices } from '../../../src/proxy/gen.js';
import { ProxyState } from '../../../src/proxy/model/index.js';
import { IptablesProxier } from '../../../src/proxy/renderers/iptables/proxier.js';
import { NftablesProxier } from '../../../src/proxy/renderers/nftables/proxier.js';
import { hashAndTruncate, withHash } from '../../../src/proxy/renderers/nftables/names.js';
import { hash16 } from '../../../src/proxy/renderers/iptables/names.js';
import { WasmChainHasher } from '../../../src/proxy/renderers/iptables/names-wasm.js';
import { Rng } from '../../../src/util/rng.js';

const wasm = new WasmChainHasher();

describe('WASM chain-name hash = JavaScript hash16', () => {
  it("kube-proxy's expected names (proxier_test.go)", () => {
    const texts = [
      'ns1/svc1:p80tcp',
      'ns2/svc2:p8080tcp',
      'ns1/svc1:p80tcp10.180.0.1:80',
      'ns4/svc4:p80tcp10.0.4.1:80',
    ];
    expect(wasm.hash16Many(texts)).toEqual([
      'XPGD46QRK7WJZT7O',
      '2VJB64SDSIJUP5T6',
      'SXIVWICOYRO3J4NJ',
      'AYCN5HPXMIRJNJXU',
    ]);
  });

  it('seeded random texts of 0-300 bytes (every block edge), in batches larger than one call', () => {
    const rng = new Rng(42);
    const texts: string[] = [];
    for (let len = 0; len <= 300; len++)
      for (let k = 0; k < 20; k++)
        texts.push(Array.from({ length: len }, () => String.fromCharCode(32 + rng.int(95))).join(''));
    expect(texts.length).toBeGreaterThan(4096);
    expect(wasm.hash16Many(texts)).toEqual(texts.map(hash16));
  });

  it('every service and endpoint chain text of a generated cluster', () => {
    const c = generateServices({ services: 300, endpoints: 8, seed: 3 });
    const texts: string[] = [];
    for (const s of c.services)
      for (const p of s.spec.ports ?? []) {
        const name = `${s.metadata.namespace}/${s.metadata.name}:${p.name}`;
        const proto = (p.protocol ?? 'TCP').toLowerCase();
        texts.push(name + proto);
        for (const sl of c.endpointSlices)
          if (
            sl.metadata.labels?.['kubernetes.io/service-name'] === s.metadata.name &&
            sl.metadata.namespace === s.metadata.namespace
          )
            for (const e of sl.endpoints) texts.push(`${name}${proto}${e.addresses[0]}:${p.targetPort}`);
      }
    expect(texts.length).toBeGreaterThan(2000);
    expect(wasm.hash16Many(texts)).toEqual(texts.map(hash16));
  });

  it('non-ASCII texts are hashed as UTF-8, as Go does', () => {
    const texts = ['ns/é:p80tcp', 'plain', '名前/svc:httptcp', ''];
    expect(wasm.hash16Many(texts)).toEqual(texts.map(hash16));
  });
});

describe('nftables names from the WASM hash = hashAndTruncate', () => {
  it("kube-proxy's names, long names (truncated), generated texts", () => {
    const texts = ['ns1/svc1/tcp/p80', 'ns1/svc1/tcp/p80__10.180.0.1/80', `ns/${'x'.repeat(260)}/tcp/p`];
    for (let i = 0; i < 200; i++) texts.push(`ns-${i}/svc-${i}/udp/dns__100.64.${i >> 8}.${i & 255}/5353`);
    const h = wasm.hash16Many(texts);
    expect(texts.map((t, i) => withHash(t, h[i].slice(0, 8)))).toEqual(texts.map(hashAndTruncate));
    expect(withHash(texts[0], h[0].slice(0, 8))).toBe('ULMVA6XW-ns1/svc1/tcp/p80');
    expect(withHash(texts[1], h[1].slice(0, 8))).toBe('5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80');
  });
});

describe('renders with WASM-hashed chain names = with node:crypto-hashed ones', () => {
  for (const [mode, seed] of [
    ['iptables', 1],
    ['iptables', 2],
    ['iptables', 3],
    ['nftables', 1],
    ['nftables', 2],
  ] as const) {
    it(`${mode}, seeded cluster ${seed}: full and partial syncs byte for byte`, () => {
      const c = generateServices({ services: 200, endpoints: 7, seed, nodes: 3 });
      // separate states: the names are cached per endpoint object, so each kernel names its own
      const make = (hashKernel: 'wasm' | 'js') => {
        const state = new ProxyState({ name: c.nodeName, ips: { IPv4: '192.168.0.10' } });
        for (const x of c.services) state.onServiceAdd(x);
        for (const x of c.endpointSlices) state.onEndpointSliceAdd(x);
        const opts = { clusterCIDR: c.clusterCIDR, hashKernel };
        return {
          state,
          p: mode === 'iptables' ? new IptablesProxier(state, opts) : new NftablesProxier(state, opts),
        };
      };
      const [w, j] = [make('wasm'), make('js')];
      const rng = new Rng(seed);
      for (let sync = 0; sync < 4; sync++) {
        const a = w.p.sync().text;
        expect(a.length).toBeGreaterThan(1000);
        expect(a).toBe(j.p.sync().text);
        const before = c.endpointSlices.slice();
        const ch = changeOneEndpoint(c, rng);
        for (const x of [w, j]) x.state.onEndpointSliceUpdate(before[ch.sliceIndex], ch.slice);
      }
    });
  }
});

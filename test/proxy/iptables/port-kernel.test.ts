/**
 * The port kernel (assembly/proxy_rules.ts servicePort: a service port's KUBE-SVC and KUBE-SEP
 * chains written by WebAssembly from the endpoint columns) against the JavaScript renderer
 * (ruleKernel 'js', the reference): whole iptables-restore inputs byte for byte, the counts, and
 * the chains in use — through the one-sync proxier `proxy render` uses (chain names read back
 * from the declarations), the non-incremental proxier across forced full syncs with Services
 * deleted (stale chains: `-X`), and kube-proxy's own fixture. The seeded mixes have not-ready and
 * terminating endpoints, ClientIP affinity, Local traffic policies and a port with more
 * endpoints than the kernel's first probability table, so both the kernel and the JavaScript
 * fallback write ports of the same sync.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EndpointSlice, Service } from '../../../src/api/types.js';
import { generateServices } from '../../../src/proxy/gen.js';
import { ProxyState } from '../../../src/proxy/model/index.js';
import {
  IptablesProxier,
  type IptablesProxierOptions,
} from '../../../src/proxy/renderers/iptables/proxier.js';
import { sepRuleKernel } from '../../../src/proxy/renderers/iptables/sep-wasm.js';
import { NODE, upstreamServices, upstreamSlices } from '../upstream-fixture.js';

const MIX = {
  notReady: 0.15,
  terminating: 0.05,
  clientIPAffinity: 0.3,
  externalLocal: 0.5,
  internalLocal: 0.1,
};

function stateOf(services: Service[], slices: EndpointSlice[], node: string, ip = '192.168.0.10') {
  const state = new ProxyState({ name: node, ips: { IPv4: ip } });
  for (const x of services) state.onServiceAdd(x);
  for (const x of slices) state.onEndpointSliceAdd(x);
  return state;
}

/** Counts the port kernel's calls while `fn` runs. */
function kernelCalls<T>(fn: () => T): { value: T; calls: number } {
  const spy = vi.spyOn(sepRuleKernel(), 'servicePort');
  try {
    return { value: fn(), calls: spy.mock.calls.length };
  } finally {
    spy.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe('the port kernel writes what the JavaScript renderer writes', () => {
  for (const seed of [1, 2, 3])
    for (const large of [false, true])
      it(`seeded cluster ${seed}${large ? ', large-cluster mode' : ''}: one-sync render, counts and chains in use`, () => {
        const c = generateServices({ services: 200, endpoints: 7, seed, nodes: 4, mix: MIX });
        // one port with more endpoints than the first probability table (64) holds
        const big = generateServices({ services: 1, endpoints: 150, seed: seed + 10, nodes: 4 });
        big.services[0].metadata.name = 'big';
        for (const s of big.endpointSlices) s.metadata.labels!['kubernetes.io/service-name'] = 'big';
        const services = [...c.services, ...big.services];
        const slices = [...c.endpointSlices, ...big.endpointSlices];
        const sync = (ruleKernel: 'wasm' | 'js') => {
          const opts: IptablesProxierOptions = {
            clusterCIDR: c.clusterCIDR,
            ruleKernel,
            incremental: false,
            oneSync: true,
            ...(large ? {} : { largeClusterEndpointsThreshold: 100_000 }),
          };
          return new IptablesProxier(stateOf(services, slices, c.nodeName), opts).sync();
        };
        const w = kernelCalls(() => sync('wasm'));
        const j = kernelCalls(() => sync('js'));
        const counted = stateOf(services, slices, c.nodeName);
        counted.applyChanges();
        const ports = counted.servicePorts.size;
        // both paths wrote ports of this sync
        expect(w.calls).toBeGreaterThan(ports / 2);
        expect(w.calls).toBeLessThan(ports);
        expect(j.calls).toBe(0);
        const [a, b] = [w.value, j.value];
        expect(a.render.largeClusterMode).toBe(large);
        if (!large) expect(a.text).toContain('-m comment --comment "ns-');
        expect(a.text).toContain(' -m recent --name KUBE-SEP-');
        expect(a.text).toBe(b.text);
        expect(a.stats).toEqual({ ...b.stats, renderMs: a.stats.renderMs, renderCpuMs: a.stats.renderCpuMs });
        expect([...a.render.activeNatChains].sort()).toEqual([...b.render.activeNatChains].sort());
        expect(a.render.activeNatChains.size).toBeGreaterThan(7 * 200 * 0.5);
      });

  it('non-incremental proxier: forced full syncs with Services deleted delete the same stale chains', () => {
    const c = generateServices({ services: 120, endpoints: 5, seed: 7, nodes: 3, mix: MIX });
    const run = (ruleKernel: 'wasm' | 'js') => {
      const state = stateOf(c.services, c.endpointSlices, c.nodeName);
      const p = new IptablesProxier(state, { clusterCIDR: c.clusterCIDR, ruleKernel, incremental: false });
      const texts = [p.sync().text];
      for (let round = 0; round < 3; round++) {
        for (const s of c.services.slice(round * 10, round * 10 + 10)) state.onServiceDelete(s);
        p.forceFullSync();
        const r = p.sync();
        texts.push(r.text);
        expect(r.render.deletedChains).toBeGreaterThan(0);
      }
      return { texts, kernel: [...p.kernelNatChains].sort() };
    };
    const w = kernelCalls(() => run('wasm'));
    expect(w.calls).toBeGreaterThan(0);
    const j = run('js');
    expect(w.value.texts[1]).toContain('\n-X KUBE-SEP-');
    expect(w.value.texts).toEqual(j.texts);
    expect(w.value.kernel).toEqual(j.kernel);
  });

  it("kube-proxy's fixture (TestOverallNFTablesRules' cluster): the same ruleset, kernel or not", () => {
    const sync = (ruleKernel: 'wasm' | 'js', incremental: boolean) =>
      new IptablesProxier(stateOf(upstreamServices, upstreamSlices, NODE.name, NODE.ips.IPv4), {
        clusterCIDR: '10.0.0.0/8',
        ruleKernel,
        incremental,
      }).sync().text;
    const w = kernelCalls(() => [sync('wasm', false), sync('wasm', true)]);
    expect(w.calls).toBeGreaterThan(1);
    const js = sync('js', false);
    expect(w.value[0]).toBe(js);
    expect(w.value[1]).toBe(js);
  });

  it('a one-sync proxier renders once and refuses a second sync', () => {
    const c = generateServices({ services: 30, endpoints: 3, seed: 5, nodes: 2 });
    const state = stateOf(c.services, c.endpointSlices, c.nodeName);
    const p = new IptablesProxier(state, { clusterCIDR: c.clusterCIDR, incremental: false, oneSync: true });
    const text = p.sync().text;
    expect(text).toBe(
      new IptablesProxier(stateOf(c.services, c.endpointSlices, c.nodeName), {
        clusterCIDR: c.clusterCIDR,
      }).sync().text,
    );
    expect(p.kernelNatChains.has('KUBE-SERVICES')).toBe(true);
    expect([...p.kernelNatChains].some((x) => x.startsWith('KUBE-SEP-'))).toBe(false);
    expect(() => p.sync()).toThrow(/oneSync/);
    expect(() => new IptablesProxier(state, { oneSync: true })).toThrow(/incremental: false/);
  });
});

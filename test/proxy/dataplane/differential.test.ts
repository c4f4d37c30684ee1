import { describe, expect, it } from 'vitest';
import { ProxyState, categorizeEndpoints } from '../../../src/proxy/model/index.js';
import { compileMode, PROXY_MODES, type ProxyMode } from '../../../src/proxy/dataplane/modes.js';
import { JsKernel, newResult } from '../../../src/proxy/dataplane/kernel-js.js';
import { WasmKernel } from '../../../src/proxy/dataplane/kernel-wasm.js';
import { generatePackets } from '../../../src/proxy/dataplane/packets.js';
import { RES_REJECT } from '../../../src/proxy/dataplane/program.js';
import { generateServices } from '../../../src/proxy/gen.js';
import type { IpvsScheduler } from '../../../src/proxy/renderers/ipvs/proxier.js';

function cluster(seed: number, services: number, endpoints: number) {
  const c = generateServices({
    services,
    endpoints,
    seed,
    nodes: 4,
    mix: { clientIPAffinity: 0.3, notReady: 0.1, externalIPs: 0.1 },
  });
  const state = new ProxyState({ name: c.nodeName, ips: { IPv4: '192.168.0.10' } });
  for (const s of c.services) state.onServiceAdd(s);
  for (const s of c.endpointSlices) state.onEndpointSliceAdd(s);
  state.applyChanges();
  return { c, state, m: { servicePorts: state.servicePorts, endpoints: state.endpoints, node: state.node } };
}

// Several seeds × every mode × (for ipvs) every scheduler: the WASM kernel must agree with the
// JS kernel packet by packet, including stateful parts (affinity, rr cursors, wlc counts) over
// consecutive batches.
describe('WASM kernel ≡ JS kernel (differential)', () => {
  const cases: [number, ProxyMode, IpvsScheduler | undefined][] = [];
  for (const seed of [1, 2, 3, 4])
    for (const mode of PROXY_MODES) {
      if (mode === 'ipvs') for (const s of ['rr', 'wlc', 'sh'] as const) cases.push([seed, mode, s]);
      else cases.push([seed, mode, undefined]);
    }
  it.each(cases)('seed %i, %s %s', (seed, mode, scheduler) => {
    const { c, m, state } = cluster(seed, 40 + seed * 25, 1 + seed * 3);
    const prog = compileMode(mode, state, {
      clusterCIDR: c.clusterCIDR,
      serviceCIDRs: [c.serviceCIDR],
      scheduler,
    });
    const js = new JsKernel(prog);
    const wasm = new WasmKernel(prog);
    for (let round = 0; round < 3; round++) {
      const b = generatePackets(m.servicePorts, m.node, {
        n: 2000,
        seed: `${seed}-${round}`,
        missShare: 0.1,
      });
      const a = newResult(b.n),
        w = newResult(b.n);
      js.classify(b, a);
      wasm.classify(b, w);
      expect(Array.from(w.result)).toEqual(Array.from(a.result));
      expect(Array.from(w.rules)).toEqual(Array.from(a.rules));
      expect(Array.from(w.lookups)).toEqual(Array.from(a.lookups));
    }
    js.reset();
    wasm.reset();
    const b = generatePackets(m.servicePorts, m.node, { n: 500, seed: 99 });
    const a = newResult(b.n),
      w = newResult(b.n);
    js.classify(b, a);
    wasm.classify(b, w);
    expect(Array.from(w.result)).toEqual(Array.from(a.result));
  });
});

describe('the three modes agree on where ClusterIP traffic may go', () => {
  it.each([5, 6, 7])(
    "seed %i: every pod→ClusterIP packet lands on one of the service's cluster endpoints (or is rejected when it has none)",
    (seed) => {
      const { c, m, state } = cluster(seed, 120, 5);
      const b = generatePackets(m.servicePorts, m.node, { n: 4000, seed, missShare: 0, nodeLocalShare: 0 });
      for (const mode of PROXY_MODES) {
        const prog = compileMode(mode, state, { clusterCIDR: c.clusterCIDR, serviceCIDRs: [c.serviceCIDR] });
        const out = newResult(b.n);
        new JsKernel(prog).classify(b, out);
        let checked = 0;
        for (let i = 0; i < b.n; i++) {
          const f = b.frontends[b.target[i]];
          if (f.kind !== 'clusterIP') continue;
          const svc = m.servicePorts.get(f.servicePort)!;
          if (svc.internalPolicyLocal) continue;
          const cat = categorizeEndpoints(m.endpoints.get(f.servicePort), svc, m.node.name, undefined);
          const allowed = new Set((cat.clusterEndpoints ?? []).map((e) => e.endpoint));
          if (allowed.size === 0) expect(out.result[i], `${mode} ${f.ip}:${f.port}`).toBe(RES_REJECT);
          else
            expect(
              allowed.has(prog.endpoints[out.result[i]]),
              `${mode} ${f.ip}:${f.port} → ${prog.endpoints[out.result[i]]}`,
            ).toBe(true);
          checked++;
        }
        expect(checked).toBeGreaterThan(1000);
      }
    },
  );

  it('iptables walks KUBE-SERVICES linearly, nftables and ipvs do not: mean rules per packet grow with services only for iptables', () => {
    const mean = (services: number, mode: ProxyMode) => {
      const { c, m, state } = cluster(9, services, 3);
      const prog = compileMode(mode, state, { clusterCIDR: c.clusterCIDR, serviceCIDRs: [c.serviceCIDR] });
      const b = generatePackets(m.servicePorts, m.node, { n: 2000, seed: 1 });
      const out = newResult(b.n);
      new JsKernel(prog).classify(b, out);
      return out.rules.reduce((s, x) => s + x, 0) / b.n;
    };
    const ipt = [mean(100, 'iptables'), mean(800, 'iptables')];
    const nft = [mean(100, 'nftables'), mean(800, 'nftables')];
    const ipvs = [mean(100, 'ipvs'), mean(800, 'ipvs')];
    expect(ipt[1] / ipt[0]).toBeGreaterThan(4);
    expect(nft[1] / nft[0]).toBeLessThan(1.2);
    expect(ipvs[1] / ipvs[0]).toBeLessThan(1.2);
  });

  it('ClientIP affinity: a client keeps its endpoint in every mode', () => {
    const { c, m, state } = cluster(11, 80, 6);
    for (const mode of PROXY_MODES) {
      const prog = compileMode(mode, state, { clusterCIDR: c.clusterCIDR, serviceCIDRs: [c.serviceCIDR] });
      const k = new JsKernel(prog);
      const b = generatePackets(m.servicePorts, m.node, { n: 6000, seed: 3, missShare: 0 });
      const out = newResult(b.n);
      k.classify(b, out);
      const seen = new Map<string, number>();
      let repeats = 0;
      for (let i = 0; i < b.n; i++) {
        const f = b.frontends[b.target[i]];
        const svc = m.servicePorts.get(f.servicePort)!;
        if (svc.sessionAffinity !== 'ClientIP' || out.result[i] < 0) continue;
        // iptables/nftables affinity is per service port; ipvs persistence per virtual server
        const key = mode === 'ipvs' ? `${f.ip}:${f.port}|${b.src[i]}` : `${f.servicePort}|${b.src[i]}`;
        const prev = seen.get(key);
        if (prev === undefined) seen.set(key, out.result[i]);
        else {
          expect(out.result[i], mode).toBe(prev);
          repeats++;
        }
      }
      expect(repeats).toBeGreaterThan(10);
    }
  });
});

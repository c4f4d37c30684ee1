import { describe, expect, it } from 'vitest';
import { ProxyState } from '../../../src/proxy/model/index.js';
import { NftablesProxier } from '../../../src/proxy/renderers/nftables/proxier.js';
import { IpvsProxier } from '../../../src/proxy/renderers/ipvs/proxier.js';
import { NftTable, compileNftables } from '../../../src/proxy/dataplane/compile-nftables.js';
import { compileIpvs, parseIpsetRestore } from '../../../src/proxy/dataplane/compile-ipvs.js';
import { JsKernel, newResult } from '../../../src/proxy/dataplane/kernel-js.js';
import { generatePackets } from '../../../src/proxy/dataplane/packets.js';
import { generateServices, changeOneEndpoint } from '../../../src/proxy/gen.js';
import { ManualClock } from '../../../src/util/clock.js';
import { Rng } from '../../../src/util/rng.js';

// After a full sync and a series of partial syncs (replayed like the kernel would apply them),
// traffic must follow the endpoint changes: never the removed pod, sometimes the new one.
describe('partial syncs, replayed and classified', () => {
  it.each([1, 2])('nftables, seed %i', (seed) => {
    const c = generateServices({ services: 60, endpoints: 3, seed, nodes: 3, mix: { internalLocal: 0 } });
    const state = new ProxyState({ name: c.nodeName, ips: { IPv4: '192.168.0.10' } });
    for (const s of c.services) state.onServiceAdd(s);
    for (const s of c.endpointSlices) state.onEndpointSliceAdd(s);
    const clock = new ManualClock(0);
    const p = new NftablesProxier(state, { clusterCIDR: c.clusterCIDR, clock });
    const table = new NftTable();
    table.apply(p.sync().text);
    const rng = new Rng(seed);
    for (let i = 0; i < 5; i++) {
      const old = c.endpointSlices.slice();
      const ch = changeOneEndpoint(c, rng);
      state.onEndpointSliceUpdate(old[ch.sliceIndex], ch.slice);
      clock.advance(600);
      const r = p.sync();
      if (r.staleText) table.apply(r.staleText, 'stale');
      table.apply(r.text, `partial ${i}`);
      const prog = compileNftables(table, { localIPs: ['192.168.0.10'] });
      const svcName = ch.slice.metadata.labels!['kubernetes.io/service-name'];
      const ports = new Map(
        [...state.servicePorts].filter(
          ([, s]) => s.name.name === svcName && s.name.namespace === ch.slice.metadata.namespace,
        ),
      );
      const b = generatePackets(ports, state.node, {
        n: 400,
        seed: i,
        missShare: 0,
        externalSourceShare: 0,
        nodeLocalShare: 0,
      });
      const out = newResult(b.n);
      new JsKernel(prog).classify(b, out);
      const hit = new Set([...out.result].filter((x) => x >= 0).map((x) => prog.endpoints[x].split(':')[0]));
      expect(hit.has(ch.removed)).toBe(false);
      if (ch.slice.endpoints.length > 0) expect(hit.has(ch.added)).toBe(true);
    }
  });

  it('ipvs: applying the deltas to the previous ipvsadm state gives the new state', () => {
    const c = generateServices({ services: 80, endpoints: 4, seed: 3, nodes: 3 });
    const state = new ProxyState({ name: c.nodeName, ips: { IPv4: '192.168.0.10' } });
    for (const s of c.services) state.onServiceAdd(s);
    for (const s of c.endpointSlices) state.onEndpointSliceAdd(s);
    const p = new IpvsProxier(state, { clusterCIDR: c.clusterCIDR });
    const first = p.sync();
    // the kernel's view: virtual server → set of real servers, changed only through deltas
    const kernel = new Map<string, Set<string>>();
    const applyLine = (l: string) => {
      const w = l.split(' ');
      const vs = `${w[1]} ${w[2]}`;
      if (w[0] === '-A') kernel.set(vs, new Set());
      else if (w[0] === '-D') kernel.delete(vs);
      else if (w[0] === '-a') kernel.get(vs)!.add(w[4]);
      else if (w[0] === '-d') kernel.get(vs)!.delete(w[4]);
    };
    first.delta.ipvsadm.forEach(applyLine);
    const rng = new Rng(5);
    for (let i = 0; i < 8; i++) {
      const old = c.endpointSlices.slice();
      const ch = changeOneEndpoint(c, rng);
      state.onEndpointSliceUpdate(old[ch.sliceIndex], ch.slice);
      const r = p.sync();
      r.delta.ipvsadm.forEach(applyLine);
      const want = new Map<string, Set<string>>();
      r.ipvsadm
        .trim()
        .split('\n')
        .forEach((l) => {
          const w = l.split(' ');
          const vs = `${w[1]} ${w[2]}`;
          if (w[0] === '-A') want.set(vs, new Set());
          else want.get(vs)!.add(w[4]);
        });
      expect(kernel).toEqual(want);
      // and the full outputs still compile and classify
      const prog = compileIpvs({
        ipvsadm: r.ipvsadm,
        iptables: r.iptables,
        ipsets: parseIpsetRestore(r.ipset),
        localIPs: ['192.168.0.10', ...r.desired.boundAddresses],
      });
      expect(prog.summary.virtualServers).toBe(r.counts.virtualServers);
    }
  });
});

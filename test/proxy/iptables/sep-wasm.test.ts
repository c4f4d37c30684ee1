/**
 * The KUBE-SEP rule pairs written by WebAssembly (assembly/proxy_rules.ts, IptablesOptions
 * ruleKernel 'wasm', the default) against the JavaScript lines (ruleKernel 'js', the reference):
 * whole iptables-restore inputs byte for byte — full syncs then partial syncs through seeded
 * endpoint churn (the partial path writes into per-port string sinks), with comments and in
 * large-cluster mode (no comments), ClientIP affinity services included, streamed renders, and a
 * dual-stack cluster whose IPv6 endpoints the kernel leaves to JavaScript.
 */
import { describe, expect, it } from 'vitest';
import type { EndpointSlice, Service } from '../../../src/api/types.js';
import { changeOneEndpoint, generateServices } from '../../../src/proxy/gen.js';
import { ProxyState } from '../../../src/proxy/model/index.js';
import {
  IptablesProxier,
  type IptablesProxierOptions,
} from '../../../src/proxy/renderers/iptables/proxier.js';
import { sepRuleKernel } from '../../../src/proxy/renderers/iptables/sep-wasm.js';
import { Rng } from '../../../src/util/rng.js';

describe('KUBE-SEP rules from WebAssembly = the JavaScript lines', () => {
  for (const seed of [1, 2, 3])
    for (const large of [false, true])
      it(`seeded cluster ${seed}${large ? ', large-cluster mode' : ''}: full and partial syncs byte for byte`, () => {
        const c = generateServices({
          services: 150,
          endpoints: 6,
          seed,
          nodes: 3,
          mix: { clientIPAffinity: 0.3 },
        });
        const make = (ruleKernel: 'wasm' | 'js') => {
          const state = new ProxyState({ name: c.nodeName, ips: { IPv4: '192.168.0.10' } });
          for (const x of c.services) state.onServiceAdd(x);
          for (const x of c.endpointSlices) state.onEndpointSliceAdd(x);
          const opts: IptablesProxierOptions = {
            clusterCIDR: c.clusterCIDR,
            ruleKernel,
            ...(large ? { largeClusterEndpointsThreshold: 10 } : {}),
          };
          return { state, p: new IptablesProxier(state, opts) };
        };
        const [w, j] = [make('wasm'), make('js')];
        const rng = new Rng(seed);
        for (let sync = 0; sync < 5; sync++) {
          const a = w.p.sync().text;
          if (sync === 0) expect(a).toContain(' -j DNAT --to-destination 100.64.');
          if (!large && sync === 0) expect(a).toContain(' -m recent --name KUBE-SEP-');
          expect(a).toBe(j.p.sync().text);
          const before = c.endpointSlices.slice();
          const ch = changeOneEndpoint(c, rng);
          for (const x of [w, j]) x.state.onEndpointSliceUpdate(before[ch.sliceIndex], ch.slice);
        }
      });

  it('a streamed full render (nat rules through the spill file) is the same bytes', () => {
    const c = generateServices({ services: 120, endpoints: 9, seed: 4, nodes: 2 });
    const render = (ruleKernel: 'wasm' | 'js') => {
      const state = new ProxyState({ name: c.nodeName, ips: { IPv4: '192.168.0.10' } });
      for (const x of c.services) state.onServiceAdd(x);
      for (const x of c.endpointSlices) state.onEndpointSliceAdd(x);
      const chunks: Buffer[] = [];
      new IptablesProxier(state, {
        clusterCIDR: c.clusterCIDR,
        ruleKernel,
        incremental: false,
        stream: (b) => chunks.push(Buffer.from(b)),
      }).sync();
      return Buffer.concat(chunks).toString('latin1');
    };
    const a = render('wasm');
    expect(a).toContain('-j DNAT --to-destination');
    expect(a).toBe(render('js'));
  });

  it('IPv6 endpoints are left to the JavaScript lines; the IPv6 ruleset is unchanged', () => {
    const svc: Service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: 'ns', name: 'web' },
      spec: { clusterIP: 'fd00::10', clusterIPs: ['fd00::10'], ports: [{ name: 'http', port: 80 }] },
    };
    const slice: EndpointSlice = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { namespace: 'ns', name: 'web-1', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv6',
      endpoints: [{ addresses: ['fd00:1::2'] }, { addresses: ['fd00:1::3'] }],
      ports: [{ name: 'http', port: 8080 }],
    };
    const texts = (['wasm', 'js'] as const).map((ruleKernel) => {
      const state = new ProxyState({ name: 'n', ips: { IPv6: 'fd00::1' } }, 'IPv6');
      state.onServiceAdd(svc);
      state.onEndpointSliceAdd(slice);
      return new IptablesProxier(state, { ruleKernel }).sync().text;
    });
    expect(texts[0]).toContain('--to-destination [fd00:1::2]:8080');
    expect(texts[0]).toBe(texts[1]);
    expect(
      sepRuleKernel().lines(
        [{ ip: 'fd00:1::2', port: 8080, endpoint: '[fd00:1::2]:8080' } as never],
        ['KUBE-SEP-X'],
        '',
        ' -j KUBE-MARK-MASQ',
        ' -m tcp -p tcp -j DNAT --to-destination ',
        false,
      ),
    ).toBeNull();
  });

  it('the kernel writes every decimal edge of addresses and ports', () => {
    const eps = [
      ['0.0.0.0', 1],
      ['9.10.99.100', 9],
      ['255.255.255.255', 65535],
      ['100.64.0.2', 10000],
    ].map(([ip, port]) => ({ ip, port, endpoint: `${ip}:${port}` }) as never);
    const seps = ['KUBE-SEP-AAAAAAAAAAAAAAAA', 'KUBE-SEP-B', 'KUBE-SEP-C', 'KUBE-SEP-D'];
    const text = sepRuleKernel().lines(
      eps,
      seps,
      ' -m comment --comment ns/a:p',
      ' -j M',
      ' -m udp -p udp -j DNAT --to-destination ',
      true,
    );
    const want = (eps as { ip: string; endpoint: string }[])
      .map(
        (ep, i) =>
          `-A ${seps[i]} -m comment --comment ns/a:p -s ${ep.ip} -j M\n` +
          `-A ${seps[i]} -m comment --comment ns/a:p -m recent --name ${seps[i]} --set -m udp -p udp -j DNAT --to-destination ${ep.endpoint}\n`,
      )
      .join('');
    expect(text).toBe(want);
  });
});

import { describe, expect, it } from 'vitest';
import { generateServices } from '../../../src/proxy/gen.js';
import { ProxyState } from '../../../src/proxy/model/index.js';
import { isServiceChainName } from '../../../src/proxy/renderers/nftables/names.js';
import { type NftablesOptions, NftablesProxier } from '../../../src/proxy/renderers/nftables/proxier.js';

type Cluster = ReturnType<typeof generateServices>;

const OPTION_SETS: NftablesOptions[] = [
  {},
  { clusterCIDR: '100.64.0.0/10', masqueradeAll: true, nodePortAddresses: ['192.168.0.0/24'] },
  { detectLocalMode: 'NodeCIDR', masqueradeMark: '0x4000', serviceCIDRs: ['10.0.0.0/8'] },
];

function stateOf(c: Cluster): ProxyState {
  const s = new ProxyState({ name: c.nodeName, ips: { IPv4: '192.168.0.10' }, podCIDRs: ['100.64.0.0/24'] });
  for (const x of c.services) s.onServiceAdd(x);
  for (const x of c.endpointSlices) s.onEndpointSliceAdd(x);
  return s;
}

/** A second Service on one Service's external IP and port: two ports want one @service-ips key. */
function withSharedKey(c: Cluster): Cluster {
  const withExt = c.services.find((s) => s.spec?.externalIPs?.length)!;
  const twin = structuredClone(c.services.find((s) => s !== withExt && !s.spec?.externalIPs)!);
  twin.spec!.externalIPs = [...withExt.spec!.externalIPs!];
  const p = withExt.spec!.ports![0];
  twin.spec!.ports = [{ ...twin.spec!.ports![0], port: p.port, protocol: p.protocol }];
  return { ...c, services: c.services.map((s) => (s.metadata?.name === twin.metadata?.name ? twin : s)) };
}

const serviceChains = (p: NftablesProxier) => p.existingChains().filter(isServiceChainName);

describe('nftables one-sync proxier (options.oneSync)', () => {
  const clusters: [string, Cluster][] = [
    ['generated', generateServices({ services: 200, endpoints: 5, seed: 21, nodes: 4 })],
    [
      'two ports on one map key',
      withSharedKey(generateServices({ services: 200, endpoints: 4, seed: 3, nodes: 3 })),
    ],
  ];
  for (const [what, c] of clusters)
    for (const [i, opts] of OPTION_SETS.entries())
      it(`${what}, option set ${i}: the same sync as a proxier that keeps its state, none of it kept`, () => {
        const kept = new NftablesProxier(stateOf(c), opts);
        const one = new NftablesProxier(stateOf(c), { ...opts, incremental: false, oneSync: true });
        const want = kept.sync();
        const got = one.sync();
        expect(got.text).toBe(want.text);
        expect(got.stats).toEqual(want.stats);
        expect(got.kind).toBe('full');
        if (what !== 'generated') expect(want.text).toMatch(/^delete element ip kube-proxy service-ips /m);
        // the bookkeeping for a next sync: every service chain in the kept proxier's kernel, none here
        expect(serviceChains(kept).length).toBeGreaterThan(c.services.length);
        expect(serviceChains(one)).toEqual([]);
        expect(one.existingChains()).toEqual(kept.existingChains().filter((x) => !isServiceChainName(x)));
      });

  it('a second sync is refused, forced full or not (it would need the chains the first wrote)', () => {
    const c = generateServices({ services: 30, endpoints: 3, seed: 5, nodes: 2 });
    const one = new NftablesProxier(stateOf(c), { incremental: false, oneSync: true });
    one.sync();
    expect(() => one.sync()).toThrow('NftablesProxier: options.oneSync: this proxier renders one sync');
    one.forceFullSync();
    expect(() => one.sync()).toThrow(/options\.oneSync/);
  });

  it('oneSync needs incremental: false', () => {
    expect(() => new NftablesProxier(new ProxyState({ name: 'n' }), { oneSync: true })).toThrow(
      'options.oneSync needs options.incremental: false',
    );
  });
});

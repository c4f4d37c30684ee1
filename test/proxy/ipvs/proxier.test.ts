import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyState, buildProxyState } from '../../../src/proxy/model/index.js';
import { IpvsProxier } from '../../../src/proxy/renderers/ipvs/proxier.js';
import { generateServices, changeOneEndpoint } from '../../../src/proxy/gen.js';
import { Rng } from '../../../src/util/rng.js';
import { upstreamServices, upstreamSlices } from '../upstream-fixture.js';
import { createNetns, probe, type Netns } from '../netns.js';

const NODE = { name: 'test-node', ips: { IPv4: '192.168.0.2' as string } };

function render(opts: ConstructorParameters<typeof IpvsProxier>[1] = {}) {
  const state = buildProxyState(upstreamServices, upstreamSlices, NODE);
  return new IpvsProxier(state, { clusterCIDR: '10.0.0.0/8', masqueradeMark: '0x4000', ...opts }).sync();
}

describe("ipvs renderer on kube-proxy's TestOverallNFTablesRules services", () => {
  const r = render();
  const ipvs = r.ipvsadm.split('\n');
  it.each([
    // svc1: ClusterIP, one endpoint
    '-A -t 172.30.0.41:80 -s rr',
    '-a -t 172.30.0.41:80 -r 10.180.0.1:80 -m -w 1',
    // svc2: eTP=Local LB without a local endpoint: kube-proxy falls back to cluster endpoints (PR 97081)
    '-A -t 1.2.3.4:80 -s rr',
    '-a -t 1.2.3.4:80 -r 10.180.0.2:80 -m -w 1',
    '-a -t 192.168.99.22:80 -r 10.180.0.2:80 -m -w 1',
    '-A -t 192.168.0.2:3001 -s rr',
    // svc4: eTP=Cluster NodePort with an external IP: both endpoints
    '-a -t 192.168.99.33:80 -r 10.180.0.4:80 -m -w 1',
    '-a -t 192.168.99.33:80 -r 10.180.0.5:80 -m -w 1',
    // svc5: ClientIP affinity → persistence
    '-A -t 172.30.0.45:80 -s rr -p 10800',
    '-A -t 5.6.7.8:80 -s rr -p 10800',
    // svc6: no endpoints → a virtual server without real servers
    '-A -t 172.30.0.46:80 -s rr',
  ])('ipvsadm has %s', (line) => expect(ipvs).toContain(line));

  it('gives svc6 no real servers', () => {
    expect(r.ipvsadm).not.toMatch(/-a -t 172\.30\.0\.46:80/);
  });

  it('fills the ipsets as kube-proxy does', () => {
    const sets = r.desired.ipsets;
    expect([...sets.get('KUBE-CLUSTER-IP')!]).toEqual([
      '172.30.0.41,tcp:80',
      '172.30.0.42,tcp:80',
      '172.30.0.43,tcp:80',
      '172.30.0.44,tcp:80',
      '172.30.0.45,tcp:80',
      '172.30.0.46,tcp:80',
    ]);
    expect([...sets.get('KUBE-EXTERNAL-IP')!]).toEqual(['192.168.99.33,tcp:80']);
    expect([...sets.get('KUBE-EXTERNAL-IP-LOCAL')!]).toEqual(['192.168.99.22,tcp:80']);
    expect([...sets.get('KUBE-LOAD-BALANCER')!]).toEqual(['1.2.3.4,tcp:80', '5.6.7.8,tcp:80']);
    expect([...sets.get('KUBE-LOAD-BALANCER-LOCAL')!]).toEqual(['1.2.3.4,tcp:80']);
    expect([...sets.get('KUBE-LOAD-BALANCER-FW')!]).toEqual(['5.6.7.8,tcp:80']);
    expect([...sets.get('KUBE-LOAD-BALANCER-SOURCE-CIDR')!]).toEqual(['5.6.7.8,tcp:80,203.0.113.0/25']);
    expect([...sets.get('KUBE-NODE-PORT-TCP')!]).toEqual(['3001', '3003', '3002']);
    expect([...sets.get('KUBE-NODE-PORT-LOCAL-TCP')!]).toEqual(['3001']);
    expect([...sets.get('KUBE-HEALTH-CHECK-NODE-PORT')!]).toEqual(['30000']);
    expect([...sets.get('KUBE-LOOP-BACK')!]).toEqual(['10.180.0.5,tcp:80,10.180.0.5']);
    expect(sets.get('KUBE-IPVS-IPS')!.has('172.30.0.41')).toBe(true);
    expect(r.ipset).toContain(
      'create KUBE-CLUSTER-IP hash:ip,port family inet hashsize 1024 maxelem 65536\n',
    );
    expect(r.ipset).toContain('create KUBE-NODE-PORT-TCP bitmap:port range 0-65535\n');
  });

  it('writes the iptables rules ipvs mode keeps', () => {
    const ipt = r.iptables.split('\n');
    expect(ipt).toContain(
      '-A KUBE-SERVICES -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-CLUSTER-IP dst,dst ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ',
    );
    expect(ipt).toContain(
      '-A KUBE-NODE-PORT -p tcp -m comment --comment "Kubernetes nodeport TCP port with externalTrafficPolicy=local" -m set --match-set KUBE-NODE-PORT-LOCAL-TCP dst -j RETURN',
    );
    expect(ipt).toContain('-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT');
    expect(ipt).toContain(
      '-A KUBE-IPVS-OUT-FILTER -s 5.6.7.8 -m ipvs --vaddr 5.6.7.8 --vproto tcp --vport 80 -j DROP',
    );
    expect(ipt).toContain('-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000');
    // the LOCAL node-port set's RETURN comes before the masquerading one
    const iLocal = ipt.findIndex((l) => l.includes('KUBE-NODE-PORT-LOCAL-TCP dst'));
    const iAll = ipt.findIndex((l) => l.includes('KUBE-NODE-PORT-TCP dst'));
    expect(iLocal).toBeLessThan(iAll);
  });

  it('binds ClusterIPs, external and LB IPs to kube-ipvs0, but not node IPs', () => {
    expect(r.addresses).toContain('ip addr add 172.30.0.41/32 dev kube-ipvs0\n');
    expect(r.addresses).toContain('ip addr add 5.6.7.8/32 dev kube-ipvs0\n');
    expect(r.addresses).not.toContain('192.168.0.2/32');
  });

  it('uses the scheduler asked for and rejects unknown ones', () => {
    expect(render({ scheduler: 'sh' }).ipvsadm).toContain('-A -t 172.30.0.41:80 -s sh\n');
    expect(() => new IpvsProxier(new ProxyState(NODE), { scheduler: 'bogus' as 'rr' })).toThrow(
      /options.scheduler "bogus"/,
    );
  });
});

describe('ipvs incremental sync', () => {
  it('an endpoint change touches O(1) real servers per virtual server of that service', () => {
    const c = generateServices({ services: 300, endpoints: 8, seed: 7, nodes: 5 });
    const state = new ProxyState({ name: c.nodeName, ips: { IPv4: '192.168.0.10' } });
    for (const s of c.services) state.onServiceAdd(s);
    for (const s of c.endpointSlices) state.onEndpointSliceAdd(s);
    const p = new IpvsProxier(state, { clusterCIDR: c.clusterCIDR });
    const first = p.sync();
    expect(first.delta.ipvsadm.length).toBe(first.counts.virtualServers + first.counts.realServers);
    const rng = new Rng(3);
    for (let i = 0; i < 10; i++) {
      const old = c.endpointSlices.slice();
      const ch = changeOneEndpoint(c, rng);
      state.onEndpointSliceUpdate(old[ch.sliceIndex], ch.slice);
      const r = p.sync();
      const svcKeys = new Set(
        [...r.desired.virtualServers.values()]
          .filter((vs) => vs.reals.some((x) => x.startsWith(`${ch.added}:`)))
          .map((vs) => vs.servicePort),
      );
      const vsOfService = [...r.desired.virtualServers.values()].filter((vs) =>
        svcKeys.has(vs.servicePort),
      ).length;
      // at most one add and one delete per virtual server of the changed service, nothing else
      expect(r.counts.deltaOps.virtualServers).toBe(0);
      expect(r.counts.deltaOps.realServers).toBeLessThanOrEqual(2 * Math.max(1, vsOfService));
      for (const l of r.delta.ipvsadm)
        expect(l).toMatch(
          new RegExp(`-r (${ch.added.replaceAll('.', '\\.')}|${ch.removed.replaceAll('.', '\\.')}):`),
        );
    }
  });
});

describe('ipvs outputs accepted by the real tools (in a private network namespace)', () => {
  let ns: Netns | string;
  beforeAll(() => {
    ns = createNetns();
    if (typeof ns === 'string') console.warn(`skipping ipset/iptables/ipvsadm oracles: ${ns}`);
  });
  afterAll(() => {
    if (typeof ns !== 'string') ns.destroy();
  });

  const cluster = generateServices({ services: 200, endpoints: 5, seed: 11, nodes: 4 });
  const state = buildProxyState(cluster.services, cluster.endpointSlices, {
    name: cluster.nodeName,
    ips: { IPv4: '192.168.0.10' },
  });
  const r = new IpvsProxier(state, { clusterCIDR: cluster.clusterCIDR }).sync();

  it('ipset restore accepts the sets, and the kernel holds every entry', (ctx) => {
    if (typeof ns === 'string') ctx.skip();
    const n = ns as Netns;
    const res = n.run('ipset', ['restore'], r.ipset);
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    const listed = n
      .run('ipset', ['list', 'KUBE-CLUSTER-IP'])
      .stdout.split('Members:\n')[1]
      .trim()
      .split('\n')
      .sort();
    expect(listed).toEqual([...r.desired.ipsets.get('KUBE-CLUSTER-IP')!].sort());
  });

  it('iptables-restore accepts the rules (--test; then applied, -m ipvs rules only where ip_vs exists)', (ctx) => {
    if (typeof ns === 'string') ctx.skip();
    const n = ns as Netns;
    const test = n.run('iptables-restore', ['--test'], r.iptables);
    expect(test.status).toBe(0);
    // the only acceptable complaint: this kernel lacks ip_vs, so the -m ipvs match is unknown to it
    expect(
      test.stderr
        .split('\n')
        .filter((l) => l && !/^Warning: Extension ipvs revision 0 not supported/.test(l)),
    ).toEqual([]);
    // applying needs the sets (ipset restore above ran in the same namespace)
    let res = n.run('iptables-restore', ['--noflush'], r.iptables);
    if (res.status !== 0 && /Extension ipvs .*missing kernel module/.test(res.stderr)) {
      console.warn(
        'ip_vs kernel module missing: applying the iptables rules without the -m ipvs (KUBE-IPVS-OUT-FILTER) lines',
      );
      res = n.run(
        'iptables-restore',
        ['--noflush'],
        r.iptables
          .split('\n')
          .filter((l) => !l.includes('-m ipvs'))
          .join('\n'),
      );
    }
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
  });

  it('the kube-ipvs0 address lines apply with ip -batch', (ctx) => {
    if (typeof ns === 'string') ctx.skip();
    const n = ns as Netns;
    let batch = r.addresses
      .split('\n')
      .map((l) => l.replace(/^ip /, ''))
      .join('\n');
    const dev = 'kube-ipvs0';
    if (n.run('ip', ['link', 'add', 'kubesim-probe', 'type', 'dummy']).status !== 0) {
      // no dummy-interface support in this kernel: check the address lines against a veth instead
      console.warn(
        'dummy interfaces unsupported here: binding the kube-ipvs0 addresses to a veth for the check',
      );
      expect(
        n.run('ip', ['link', 'add', 'kube-ipvs0', 'type', 'veth', 'peer', 'name', 'kubesim-peer']).stderr,
      ).toBe('');
      batch = batch
        .split('\n')
        .filter((l) => !l.startsWith('link add'))
        .join('\n');
    }
    const res = n.run('ip', ['-batch', '-'], batch);
    expect(res.stderr).toBe('');
    const shown = n.run('ip', ['-4', '-o', 'addr', 'show', 'dev', dev]).stdout.trim().split('\n').length;
    expect(shown).toBe(r.counts.boundAddresses);
  });

  it('ipvsadm -R accepts the virtual and real servers (needs the ip_vs kernel module)', (ctx) => {
    if (typeof ns === 'string') ctx.skip();
    const n = ns as Netns;
    const why = probe(n, 'ipvsadm', ['-L', '-n']);
    if (why) {
      console.warn(`skipping ipvsadm -R oracle: ${why}`);
      ctx.skip();
    }
    const res = n.run('ipvsadm', ['-R'], r.ipvsadm);
    expect(res.stderr).toBe('');
    const saved = n.run('ipvsadm', ['-S', '-n']).stdout.trim().split('\n').sort();
    expect(saved).toEqual(r.ipvsadm.trim().split('\n').sort());
  });
});

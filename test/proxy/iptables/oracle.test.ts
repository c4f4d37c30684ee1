// Oracle: kubesim's iptables-restore inputs fed to the real iptables-restore (nft and legacy
// backends) inside a private network namespace this test creates and deletes. `--test` checks
// that every rule parses and every match/target exists; applying a full sync and then partial
// syncs with --noflush (as kube-proxy does) checks that partial syncs only reference chains the
// kernel still has, and that the kernel ends up with the same chains and per-chain rule counts
// as a fresh full sync of the same state. Skips, with the reason printed, where namespaces or
// iptables are not available.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/util/clock.js';
import { Rng } from '../../../src/util/rng.js';
import type { IptablesProxierOptions } from '../../../src/proxy/renderers/iptables/proxier.js';
import { renderIptables } from '../../../src/proxy/renderers/iptables/rules.js';
import { generateServices, changeOneEndpoint } from '../../../src/proxy/gen.js';
import { fixture, newIptablesProxier } from './fixtures.js';
import type { EndpointSlice, Service } from '../../../src/api/types.js';

const ns = `kubesim-test-${process.pid}-ipt`;
let skipReason = '';
const backends: string[] = [];

function run(cmd: string, args: string[], input?: string | Buffer) {
  const r = spawnSync(cmd, args, { input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return {
    code: r.status ?? -1,
    out: r.stdout ?? '',
    err: (r.stderr ?? '') + (r.error ? String(r.error) : ''),
  };
}
function inNs(cmd: string, args: string[], input?: string | Buffer) {
  return run('ip', ['netns', 'exec', ns, cmd, ...args], input);
}

beforeAll(() => {
  if (process.platform !== 'linux') {
    skipReason = 'not Linux';
    return;
  }
  if (process.getuid?.() !== 0) {
    skipReason = 'not root (network namespaces need CAP_SYS_ADMIN)';
    return;
  }
  const add = run('ip', ['netns', 'add', ns]);
  if (add.code !== 0) {
    skipReason = `ip netns add failed: ${add.err.trim()}`;
    return;
  }
  for (const b of ['iptables-nft-restore', 'iptables-legacy-restore']) {
    const probe = inNs(b, ['--test'], '*nat\n:KUBE-PROBE - [0:0]\n-A KUBE-PROBE -j RETURN\nCOMMIT\n');
    if (probe.code === 0) backends.push(b);
    else console.warn(`${b} unusable here: ${probe.err.trim() || 'exit ' + probe.code}`);
  }
  if (backends.length === 0) skipReason = 'no working iptables-restore backend in a network namespace';
});

afterAll(() => {
  if (!skipReason || backends.length) run('ip', ['netns', 'del', ns]);
});

function skipped(): boolean {
  if (skipReason) {
    console.warn(`skipping iptables-restore oracle: ${skipReason}`);
    return true;
  }
  return false;
}

/** chain -> rule count of one table, from iptables-save output (kube-proxy's chains only) */
function chainsFromSave(save: string, table: string): Map<string, number> {
  const m = new Map<string, number>();
  const part = save.split(`*${table}\n`)[1]?.split('COMMIT')[0] ?? '';
  for (const line of part.split('\n')) {
    const decl = /^:(\S+) /.exec(line);
    if (decl && decl[1].startsWith('KUBE-')) m.set(decl[1], m.get(decl[1]) ?? 0);
    const rule = /^-A (\S+) /.exec(line);
    if (rule && rule[1].startsWith('KUBE-')) m.set(rule[1], (m.get(rule[1]) ?? 0) + 1);
  }
  return m;
}

/** chain -> rule count of one table of a restore input */
function chainsFromRestore(text: string, table: string): Map<string, number> {
  return chainsFromSave(text.replace(/^(:\S+) - /gm, '$1 - '), table);
}

const saveCmd = (restore: string) => restore.replace('-restore', '-save');

describe('real iptables-restore accepts kubesim output', () => {
  it("--test accepts kube-proxy's own expected ruleset (sanity check of the oracle)", () => {
    if (skipped()) return;
    for (const b of backends) {
      const r = inNs(b, ['--test'], fixture('overall.txt'));
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
    }
  });

  it('--test rejects a broken ruleset (the oracle can fail)', () => {
    if (skipped()) return;
    const bad = fixture('overall.txt').replace('--probability 0.5000000000', '--probability 1.5');
    for (const b of backends) expect(inNs(b, ['--test'], bad).code).not.toBe(0);
    const dangling = '*nat\n:KUBE-SERVICES - [0:0]\n-A KUBE-SERVICES -j KUBE-SVC-DOESNOTEXIST\nCOMMIT\n';
    // iptables-nft-restore --test does not resolve jump targets (legacy does); applying does, in both
    for (const b of backends) expect(inNs(b, ['--noflush'], dangling).code).not.toBe(0);
  });

  it.each([
    ['defaults (random-fully, nfacct, ClusterCIDR detector)', {}],
    ['masquerade-all, no detector', { masqueradeAll: true, clusterCIDR: undefined }],
    [
      'nodeport-addresses primary, no localhost nodeports',
      { nodePortAddresses: ['primary'], localhostNodePorts: false },
    ],
  ] as [string, IptablesProxierOptions][])('--test accepts a generated 300x4 cluster: %s', (_name, extra) => {
    if (skipped()) return;
    const g = generateServices({ services: 300, endpoints: 4, seed: 7 });
    const s = newIptablesProxier(
      { name: g.nodeName, ips: { IPv4: '192.168.0.10' } },
      { clusterCIDR: g.clusterCIDR, clock: new ManualClock(), ...extra },
    );
    for (const svc of g.services) s.state.onServiceAdd(svc);
    for (const eps of g.endpointSlices) s.state.onEndpointSliceAdd(eps);
    const text = s.sync().text;
    for (const b of backends) {
      const r = inNs(b, ['--test'], text);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
    }
  });

  it("ip6tables-restore --test accepts an IPv6 proxier's rules", () => {
    if (skipped()) return;
    const svc: Service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: 'ns1', name: 'v6' },
      spec: {
        type: 'LoadBalancer',
        clusterIP: 'fd00:10:96::1',
        clusterIPs: ['fd00:10:96::1'],
        externalTrafficPolicy: 'Local',
        healthCheckNodePort: 30001,
        loadBalancerSourceRanges: ['2001:db8:ffff::/48'],
        sessionAffinity: 'ClientIP',
        ports: [
          { name: 'p80', port: 80, nodePort: 3001 },
          { name: 'dns', port: 53, protocol: 'UDP', nodePort: 3002 },
        ],
      },
      status: { loadBalancer: { ingress: [{ ip: '2001:db8:1::10' }] } },
    };
    const eps: EndpointSlice = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { namespace: 'ns1', name: 'v6-1', labels: { 'kubernetes.io/service-name': 'v6' } },
      addressType: 'IPv6',
      endpoints: [
        { addresses: ['fd00:10::5'], nodeName: 'n1' },
        { addresses: ['fd00:10::6'], nodeName: 'n2' },
      ],
      ports: [
        { name: 'p80', port: 8080 },
        { name: 'dns', port: 53, protocol: 'UDP' },
      ],
    };
    const s = newIptablesProxier(
      { name: 'n1', ips: { IPv6: '2001:db8::1' } },
      { clusterCIDR: 'fd00:10::/64', clock: new ManualClock() },
      'IPv6',
    );
    s.state.onServiceAdd(svc);
    s.state.onEndpointSliceAdd(eps);
    const text = s.sync().text;
    expect(text).toContain('-A KUBE-SVL-');
    let ran = 0;
    for (const b of backends) {
      const v6 = b.replace('iptables-', 'ip6tables-');
      const probe = inNs(v6, ['--test'], '*nat\n:KUBE-PROBE - [0:0]\nCOMMIT\n');
      if (probe.code !== 0) {
        console.warn(`${v6} unusable here: ${probe.err.trim()}`);
        continue;
      }
      const r = inNs(v6, ['--test'], text);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      ran++;
    }
    if (ran === 0) console.warn('no ip6tables-restore backend usable: IPv6 oracle skipped');
  });

  it('applies a full sync then partial syncs with --noflush; kernel state equals a fresh full sync', () => {
    if (skipped()) return;
    for (const b of backends) {
      // fresh tables for this backend
      inNs(b, [], '*nat\nCOMMIT\n*filter\nCOMMIT\n');
      const g = generateServices({ services: 60, endpoints: 3, seed: 11 });
      const node = { name: g.nodeName, ips: { IPv4: '192.168.0.10' } };
      // nfacct objects cannot be created here (no nfacct tool), so run as kube-proxy does when that fails
      const opts: IptablesProxierOptions = {
        clusterCIDR: g.clusterCIDR,
        nfacct: false,
        clock: new ManualClock(),
      };
      const applyErrors: string[] = [];
      const s = newIptablesProxier(node, {
        ...opts,
        apply: (input) => {
          const r = inNs(b, ['--noflush', '--counters'], input);
          if (r.code !== 0) {
            applyErrors.push(r.err);
            throw new Error(r.err);
          }
        },
      });
      for (const svc of g.services) s.state.onServiceAdd(svc);
      for (const eps of g.endpointSlices) s.state.onEndpointSliceAdd(eps);
      expect(s.sync().kind).toBe('full');

      const rng = new Rng(5);
      const kinds: string[] = [];
      for (let step = 0; step < 12; step++) {
        if (step % 4 === 3) {
          // delete a whole service
          const victim = g.services.splice(rng.nextU32() % g.services.length, 1)[0];
          s.state.onServiceDelete(victim);
        } else {
          const before = [...g.endpointSlices];
          const ch = changeOneEndpoint(g, rng);
          s.state.onEndpointSliceUpdate(before[ch.sliceIndex], ch.slice);
        }
        const r = s.sync();
        kinds.push(r.kind);
        expect(applyErrors).toEqual([]);
        expect(r.applied).toBe(true);

        const save = inNs(saveCmd(b), []).out;
        const fresh = renderIptables(
          { family: 'IPv4', servicePorts: s.state.servicePorts, endpoints: s.state.endpoints, node },
          opts,
        );
        for (const table of ['nat', 'filter']) {
          const kernel = chainsFromSave(save, table);
          const want = chainsFromRestore(fresh.text, table);
          expect(Object.fromEntries([...kernel].sort()), `${b} ${table} after step ${step}`).toEqual(
            Object.fromEntries([...want].sort()),
          );
        }
        // kube-proxy's rules-total metric equals what the kernel holds
        const natRules = [...chainsFromSave(save, 'nat').values()].reduce((a, c) => a + c, 0);
        expect(r.rulesTotal.nat).toBe(natRules);
      }
      expect(kinds.every((k) => k === 'partial')).toBe(true);
    }
  });
});

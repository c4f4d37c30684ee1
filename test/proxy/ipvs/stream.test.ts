/**
 * ipvs mode's streamed full sync (ProxierOptions.stream, renderers/ipvs/stream.ts) against the
 * held sync it replaces: the bytes written must be the kept proxier's ipvsadm text, every artifact
 * (the ipset, iptables and address inputs, the three delta files) and every count the same —
 * seeded clusters under several option sets, IPv4 and IPv6, a cluster where two Services share a
 * virtual server (rendered held, then written), and `proxy render --mode ipvs --out`. The
 * delta.ipvsadm replay file must be gone once read.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type GeneratedServices, generateServices } from '../../../src/proxy/gen.js';
import { type IPFamily, ProxyState } from '../../../src/proxy/model/index.js';
import {
  type IpvsOptions,
  IpvsProxier,
  type IpvsSyncResult,
} from '../../../src/proxy/renderers/ipvs/proxier.js';
import { countSpillDirs, proxyCli } from '../helpers.js';

const spillDirs = countSpillDirs('kubesim-ipvs-');

const OPTION_SETS: IpvsOptions[] = [
  {},
  { clusterCIDR: '100.64.0.0/10', scheduler: 'mh' },
  { masqueradeAll: true, nodePortAddresses: ['192.168.0.0/24'] },
  { detectLocalMode: 'NodeCIDR', masqueradeMark: '0x4000' },
];

/** The generated cluster in IPv6: every dotted quad a.b.c.d becomes fd00::a:b:c:d (prefixes + 96). */
function toIPv6(c: GeneratedServices): GeneratedServices {
  const v6 = (s: string) =>
    s
      .replace(
        /(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)/g,
        (_, a, b, cc, d, p) => `fd00::${a}:${b}:${cc}:${d}/${Number(p) + 96}`,
      )
      .replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)/g, 'fd00::$1:$2:$3:$4')
      .replace(/"IPv4"/g, '"IPv6"');
  return JSON.parse(v6(JSON.stringify(c))) as GeneratedServices;
}

function states(c: GeneratedServices, family: IPFamily, n: number): ProxyState[] {
  const node = {
    name: c.nodeName,
    ips: family === 'IPv4' ? { IPv4: '192.168.0.10' } : { IPv6: 'fd00::192:168:0:10' },
    podCIDRs: [family === 'IPv4' ? '100.64.0.0/24' : 'fd00::100:64:0:0/120'],
  };
  return Array.from({ length: n }, () => {
    const s = new ProxyState(node, family);
    for (const x of c.services) s.onServiceAdd(x);
    for (const x of c.endpointSlices) s.onEndpointSliceAdd(x);
    return s;
  });
}

const artifactText = (a: IpvsSyncResult['artifacts'][number]) =>
  a.chunks ? Buffer.concat([...a.chunks()]).toString('latin1') : a.text;

/** The streamed sync equals the kept one: bytes, artifacts, counts, stats. */
function expectSame(got: IpvsSyncResult, written: Buffer[], want: IpvsSyncResult): void {
  expect(Buffer.concat(written).toString('latin1')).toBe(want.text);
  expect(got.kind).toBe(want.kind);
  expect(got.stats).toEqual(want.stats);
  expect({ ...got.counts, bytes: got.counts.bytes }).toEqual({ ...want.counts, bytes: want.counts.bytes });
  expect(got.artifacts.map((a) => a.name)).toEqual(want.artifacts.map((a) => a.name));
  got.artifacts.forEach((a, i) => expect(artifactText(a), a.name).toBe(want.artifacts[i].text));
  expect(got.ipset).toBe(want.ipset);
  expect(got.iptables).toBe(want.iptables);
  expect(got.addresses).toBe(want.addresses);
  expect(got.chunks?.()).toEqual([]);
  expect(() => got.text).toThrow(/streamed/);
}

describe('ipvs streamed full sync', () => {
  for (const family of ['IPv4', 'IPv6'] as const)
    for (const [i, opts] of OPTION_SETS.entries())
      it(`${family}, option set ${i}: the streamed sync writes what the held one keeps`, () => {
        const g = generateServices({ services: 300, endpoints: 6, seed: 21 + i, nodes: 4 });
        const c = family === 'IPv4' ? g : toIPv6(g);
        const [a, b] = states(c, family, 2);
        const kept = new IpvsProxier(a, { ...opts, incremental: false });
        let written: Buffer[] = [];
        const live = new IpvsProxier(b, {
          ...opts,
          incremental: false,
          stream: (x) => written.push(Buffer.from(x)),
        });
        const before = spillDirs();
        const want = kept.sync();
        expect(want.text.length).toBeGreaterThan(10_000);
        expect(want.counts.virtualServers).toBeGreaterThan(300);
        const got = live.sync();
        expect(spillDirs()).toBe(before + 1);
        expectSame(got, written, want);
        // delta.ipvsadm is read once, then its file is gone
        expect(spillDirs()).toBe(before);
        expect(() => [...got.artifacts.find((x) => x.name === 'delta.ipvsadm')!.chunks!()]).toThrow(/once/);

        // no state to diff against: the next sync must be a forced full one, which streams again
        expect(() => live.sync()).toThrow(/forceFullSync/);
        kept.forceFullSync();
        live.forceFullSync();
        written = [];
        expectSame(live.sync(), written, kept.sync());
        expect(spillDirs()).toBe(before);
      });

  it('two Services sharing a virtual server: rendered held, then written — the same bytes', () => {
    const c = generateServices({ services: 200, endpoints: 4, seed: 3, nodes: 3 });
    // a second Service on the first one's external IP and port: one virtual server, the later wins
    const withExt = c.services.find((s) => s.spec?.externalIPs?.length)!;
    const twin = structuredClone(c.services.find((s) => s !== withExt && !s.spec?.externalIPs)!);
    twin.spec!.externalIPs = [...withExt.spec!.externalIPs!];
    twin.spec!.ports = [
      {
        ...twin.spec!.ports![0],
        port: withExt.spec!.ports![0].port,
        protocol: withExt.spec!.ports![0].protocol,
      },
    ];
    const shared = {
      ...c,
      services: c.services.map((s) => (s.metadata?.name === twin.metadata?.name ? twin : s)),
    };
    const [a, b] = states(shared, 'IPv4', 2);
    const kept = new IpvsProxier(a, { incremental: false });
    const written: Buffer[] = [];
    const live = new IpvsProxier(b, { incremental: false, stream: (x) => written.push(Buffer.from(x)) });
    const before = spillDirs();
    const want = kept.sync();
    const got = live.sync();
    expect(spillDirs()).toBe(before);
    expect(Buffer.concat(written).toString('latin1')).toBe(want.text);
    expect(got.stats).toEqual(want.stats);
    got.artifacts.forEach((x, i) => expect(x.text, x.name).toBe(want.artifacts[i].text));
    expect(() => got.text).toThrow(/streamed/);
  });

  it('stream needs incremental: false', () => {
    expect(() => new IpvsProxier(new ProxyState({ name: 'n' }), { stream: () => {} })).toThrow(
      'options.stream needs options.incremental: false',
    );
  });

  it('proxy render --mode ipvs --out: the held render and its artifacts, byte for byte', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-cli-out-'));
    const file = join(dir, 'ipvs.rules');
    const before = spillDirs();
    await proxyCli('render', '--generate', '400x5', '--mode', 'ipvs', '--no-progress', '--out', file);
    expect(spillDirs()).toBe(before);
    const c = generateServices({ services: 400, endpoints: 5, seed: 1 });
    const [state] = states(c, 'IPv4', 1);
    const want = new IpvsProxier(state, { clusterCIDR: c.clusterCIDR }).sync();
    const text = want.text + want.artifacts.map((a) => `# kubesim: ${a.name}\n${a.text}`).join('');
    expect(text.length).toBeGreaterThan(100_000);
    expect(readFileSync(file, 'latin1')).toBe(text);
  });
});

/**
 * The columnar endpoint model (src/proxy/model/endpoint-columns.ts) against the object model it
 * replaced, transcribed below as the reference (one EndpointInfo object per endpoint, Go
 * endpointslicecache.go getEndpointsMap + endpointsMapFromEndpointInfo): seeded slices with every
 * rare case — sloppy / IPv6 / IPv4-mapped / blank / missing addresses, several addresses, topology
 * hints, duplicates across slices (the local copy wins), nil conditions, the other family — fed
 * through ProxyState, each service port's `endpoints.get(key)` compared with the reference.
 */
import { describe, expect, it } from 'vitest';
import type { EndpointSlice } from '../../src/api/types.js';
import { generateServiceStream, generateServices } from '../../src/proxy/gen.js';
import {
  canonicalIP,
  canonicalIPv4Value,
  type EndpointInfo,
  formatIPv4,
  type IPFamily,
  ipFamilyOf,
  joinHostPort,
  ProxyState,
  servicePortKey,
} from '../../src/proxy/model/index.js';
import { Rng } from '../../src/util/rng.js';

const NODE = 'node-a';

/** The former object model: service port key → sorted EndpointInfo[] for one Service's slices. */
function reference(slices: EndpointSlice[], family: IPFamily): Map<string, EndpointInfo[]> {
  const byPort = new Map<string, Map<string, EndpointInfo>>();
  const sorted = [...slices].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
  for (const s of sorted) {
    if (s.addressType !== family) continue;
    const eps = [...(s.endpoints ?? [])].sort((a, b) => {
      const x = a.addresses?.[0] ?? '',
        y = b.addresses?.[0] ?? '';
      return x < y ? -1 : x > y ? 1 : 0;
    });
    for (const p of s.ports ?? []) {
      if (!p.port) continue;
      const key = servicePortKey({
        namespace: s.metadata.namespace!,
        name: s.metadata.labels!['kubernetes.io/service-name'],
        port: p.name ?? '',
        protocol: p.protocol ?? 'TCP',
      });
      let set = byPort.get(key);
      if (!set) byPort.set(key, (set = new Map()));
      for (const ep of eps) {
        if (!ep.addresses?.length) continue;
        const ip = canonicalIP(ep.addresses[0]);
        if (!ip || ipFamilyOf(ip) !== family) continue;
        const isLocal = ep.nodeName !== undefined && ep.nodeName === NODE;
        const endpoint = joinHostPort(ip, p.port);
        if (set.has(endpoint) && !isLocal) continue;
        const c = ep.conditions ?? {};
        const hints = ep.hints as
          | { forZones?: { name: string }[]; forNodes?: { name: string }[] }
          | undefined;
        set.set(endpoint, {
          ip,
          port: p.port,
          endpoint,
          isLocal,
          ready: c.ready ?? true,
          serving: c.serving ?? true,
          terminating: c.terminating === true,
          zoneHints: new Set((hints?.forZones ?? []).map((z) => z.name)),
          nodeHints: new Set((hints?.forNodes ?? []).map((z) => z.name)),
          nodeName: ep.nodeName,
          zone: ep.zone,
        });
      }
    }
  }
  const out = new Map<string, EndpointInfo[]>();
  for (const [k, set] of byPort)
    if (set.size)
      out.set(
        k,
        [...set.values()].sort((a, b) => (a.endpoint < b.endpoint ? -1 : 1)),
      );
  return out;
}

const V4 = [
  '10.0.0.1',
  '10.0.0.2',
  '10.0.0.10',
  '010.0.0.3',
  ' 10.0.0.4',
  '::ffff:10.0.0.5',
  '255.255.255.255',
  '0.0.0.0',
];
const V6 = ['fd00::1', 'FD00::2', 'fd00:0:0::3', '2001:db8::10'];

function randomSlices(rng: Rng, family: IPFamily, service: string, n: number): EndpointSlice[] {
  const pool = family === 'IPv4' ? V4 : V6;
  const out: EndpointSlice[] = [];
  for (let s = 0; s < n; s++) {
    const endpoints: NonNullable<EndpointSlice['endpoints']> = [];
    const count = rng.int(6);
    for (let e = 0; e < count; e++) {
      const r = rng.next();
      const addresses =
        r < 0.05
          ? []
          : r < 0.1
            ? [pool[rng.int(pool.length)], pool[rng.int(pool.length)]]
            : [pool[rng.int(pool.length)]];
      const ep: NonNullable<EndpointSlice['endpoints']>[number] = { addresses };
      if (rng.next() < 0.7) ep.nodeName = rng.next() < 0.4 ? NODE : `node-${rng.int(3)}`;
      if (rng.next() < 0.5) ep.zone = `zone-${rng.int(2)}`;
      if (rng.next() < 0.7)
        ep.conditions = {
          ready: rng.next() < 0.8,
          ...(rng.next() < 0.5 ? { serving: rng.next() < 0.5 } : {}),
          ...(rng.next() < 0.5 ? { terminating: rng.next() < 0.3 } : {}),
        };
      if (rng.next() < 0.2)
        ep.hints = {
          forZones: [{ name: `zone-${rng.int(2)}` }],
          ...(rng.next() < 0.5 ? { forNodes: [{ name: NODE }] } : {}),
        } as never;
      endpoints.push(ep);
    }
    const ports = [{ name: 'http', port: 8080 + rng.int(2), protocol: 'TCP' as const }];
    if (rng.next() < 0.4) ports.push({ name: 'dns', port: 53, protocol: 'UDP' as const });
    // a slice of the other family (which the proxier ignores) never takes a name of this family's
    const other = rng.next() < 0.1;
    out.push({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        namespace: 'ns',
        name: `${service}-${s}${other ? '-other' : ''}`,
        labels: { 'kubernetes.io/service-name': service },
      },
      addressType: other ? (family === 'IPv4' ? 'IPv6' : 'IPv4') : family,
      endpoints,
      ports,
    });
  }
  return out;
}

describe('columnar endpoint model = the object model', () => {
  for (const family of ['IPv4', 'IPv6'] as const)
    for (const seed of [1, 2, 3])
      it(`${family}, seed ${seed}: every service port's endpoints, then after updates and deletes`, () => {
        const rng = new Rng(seed * 7 + (family === 'IPv6' ? 1 : 0));
        const state = new ProxyState({ name: NODE }, family);
        const current = new Map<string, EndpointSlice[]>();
        const check = () => {
          const want = new Map<string, EndpointInfo[]>();
          for (const slices of current.values())
            for (const [k, v] of reference(slices, family)) want.set(k, v);
          expect([...state.endpoints.keys()].sort()).toEqual([...want.keys()].sort());
          for (const [k, v] of want) {
            expect(state.endpoints.get(k)).toEqual(v);
            expect(state.endpoints.lengthOf(k)).toBe(v.length);
          }
        };
        for (let round = 0; round < 6; round++) {
          for (let s = 0; s < 12; s++) {
            const service = `svc-${s}`;
            const old = current.get(service) ?? [];
            if (round > 0 && rng.next() < 0.15) {
              for (const x of old) state.onEndpointSliceDelete(x);
              current.delete(service);
              continue;
            }
            if (round > 0 && rng.next() < 0.4) continue;
            const next = randomSlices(rng, family, service, 1 + rng.int(3));
            for (const x of old)
              if (!next.some((y) => y.metadata.name === x.metadata.name)) state.onEndpointSliceDelete(x);
            for (const x of next) state.onEndpointSliceAdd(x);
            current.set(service, next);
          }
          state.applyChanges();
          check();
        }
      });

  it('a slice update that changes nothing kube-proxy reads is dropped; one that changes a condition is not', () => {
    const state = new ProxyState({ name: NODE });
    const [slice] = randomSlices(new Rng(5), 'IPv4', 'a', 1);
    slice.addressType = 'IPv4';
    slice.endpoints = [{ addresses: ['10.0.0.1', '10.0.0.9'], nodeName: NODE, conditions: { ready: true } }];
    state.onEndpointSliceAdd(slice);
    state.applyChanges();
    const same = structuredClone(slice);
    same.metadata.generation = 7;
    expect(state.onEndpointSliceUpdate(slice, same)).toBe(false);
    const second = structuredClone(slice);
    second.endpoints![0].addresses = ['10.0.0.1', '10.0.0.8'];
    expect(state.onEndpointSliceUpdate(slice, second)).toBe(true);
    const notReady = structuredClone(slice);
    notReady.endpoints![0].conditions = { ready: false };
    expect(state.onEndpointSliceUpdate(slice, notReady)).toBe(true);
  });

  it('canonicalIPv4Value accepts exactly the texts formatIPv4 gives back', () => {
    for (const t of ['0.0.0.0', '10.0.0.1', '255.255.255.255', '100.64.12.123'])
      expect(formatIPv4(canonicalIPv4Value(t))).toBe(t);
    for (const t of [
      '010.0.0.1',
      '1.2.3',
      '1.2.3.4.5',
      '256.0.0.1',
      ' 1.2.3.4',
      '1..2.3',
      '',
      '::1',
      '1.2.3.4 ',
    ])
      expect(canonicalIPv4Value(t)).toBe(-1);
  });

  it('generateServiceStream yields generateServices objects, in order', () => {
    const opts = { services: 120, endpoints: 150, seed: 9, nodes: 7 };
    const all = generateServices(opts);
    const streamed = [...generateServiceStream(opts)];
    expect(streamed.map((g) => g.service)).toEqual(all.services);
    expect(streamed.flatMap((g) => g.slices)).toEqual(all.endpointSlices);
  });
});

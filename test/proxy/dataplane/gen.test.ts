import { describe, expect, it } from 'vitest';
import { generateServices, changeOneEndpoint } from '../../../src/proxy/gen.js';
import { Rng } from '../../../src/util/rng.js';

describe('generateServices (seeded Services + EndpointSlices)', () => {
  it('is fixed by its seed', () => {
    expect(generateServices({ services: 50, endpoints: 3, seed: 4 })).toEqual(
      generateServices({ services: 50, endpoints: 3, seed: 4 }),
    );
    expect(generateServices({ services: 50, endpoints: 3, seed: 4 })).not.toEqual(
      generateServices({ services: 50, endpoints: 3, seed: 5 }),
    );
  });

  it('cuts slices at 100 endpoints, never reuses an address, and mixes types and policies', () => {
    const c = generateServices({ services: 400, endpoints: 250, seed: 1 });
    expect(c.services).toHaveLength(400);
    expect(Math.max(...c.endpointSlices.map((s) => s.endpoints.length))).toBe(100);
    expect(c.endpointSlices).toHaveLength(400 * 3);
    const ips = c.endpointSlices.flatMap((s) => s.endpoints.map((e) => e.addresses[0]));
    expect(new Set(ips).size).toBe(ips.length);
    const cips = c.services.map((s) => s.spec.clusterIP);
    expect(new Set(cips).size).toBe(cips.length);
    const types = new Set(c.services.map((s) => s.spec.type));
    expect(types).toEqual(new Set(['ClusterIP', 'NodePort', 'LoadBalancer']));
    expect(c.services.some((s) => s.spec.sessionAffinity === 'ClientIP')).toBe(true);
    expect(c.services.some((s) => s.spec.externalTrafficPolicy === 'Local')).toBe(true);
    expect(c.services.some((s) => s.spec.ports![0].protocol === 'UDP')).toBe(true);
    const nodePorts = c.services.flatMap((s) =>
      (s.spec.ports ?? []).map((p) => p.nodePort).filter((p) => p !== undefined),
    );
    expect(new Set(nodePorts).size).toBe(nodePorts.length);
  });

  it('stops making NodePort services when the NodePort range runs out', () => {
    const c = generateServices({
      services: 4000,
      endpoints: 0,
      seed: 2,
      mix: { nodePort: 1, loadBalancer: 0 },
    });
    const np = c.services
      .flatMap((s) => (s.spec.ports ?? []).map((p) => p.nodePort ?? 0))
      .filter((p) => p > 0);
    expect(Math.max(...np)).toBeLessThanOrEqual(32767);
    expect(c.services.filter((s) => s.spec.type === 'ClusterIP').length).toBeGreaterThan(1000);
  });

  it('changeOneEndpoint replaces one address in a new slice object', () => {
    const c = generateServices({ services: 20, endpoints: 4, seed: 3 });
    const before = c.endpointSlices.slice();
    const ch = changeOneEndpoint(c, new Rng(1));
    expect(ch.slice).not.toBe(before[ch.sliceIndex]);
    expect(c.endpointSlices[ch.sliceIndex]).toBe(ch.slice);
    const oldIPs = before[ch.sliceIndex].endpoints.map((e) => e.addresses[0]);
    const newIPs = ch.slice.endpoints.map((e) => e.addresses[0]);
    expect(oldIPs).toContain(ch.removed);
    expect(newIPs).toContain(ch.added);
    expect(newIPs).not.toContain(ch.removed);
    expect(ch.slice.metadata.generation).toBe((before[ch.sliceIndex].metadata.generation ?? 1) + 1);
  });

  it('rejects bad options with the option named', () => {
    expect(() => generateServices({ services: -1, endpoints: 1 })).toThrow(/options.services/);
    expect(() => generateServices({ services: 1, endpoints: 1.5 })).toThrow(/options.endpoints/);
    expect(() => generateServices({ services: 1, endpoints: 1, mix: { udp: 2 } })).toThrow(/options.mix.udp/);
    expect(() => generateServices({ services: 1, endpoints: 1, mix: { bogus: 0.1 } as never })).toThrow(
      /options.mix.bogus/,
    );
  });
});

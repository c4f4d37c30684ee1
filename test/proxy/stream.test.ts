import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changeOneEndpoint, generateServices } from '../../src/proxy/gen.js';
import { ProxyState } from '../../src/proxy/model/index.js';
import { IptablesProxier } from '../../src/proxy/renderers/iptables/proxier.js';
import { NftablesProxier } from '../../src/proxy/renderers/nftables/proxier.js';
import type { Proxier, ProxierOptions } from '../../src/proxy/renderers/types.js';
import { Rng } from '../../src/util/rng.js';
import { countSpillDirs, proxyCli } from './helpers.js';

type Options = ProxierOptions & Record<string, unknown>;
const make = (mode: 'iptables' | 'nftables', state: ProxyState, opts: Options): Proxier =>
  mode === 'iptables' ? new IptablesProxier(state, opts) : new NftablesProxier(state, opts);

const OPTION_SETS: Options[] = [
  {},
  { clusterCIDR: '100.64.0.0/10' },
  { clusterCIDR: '100.64.0.0/10', masqueradeAll: true, nodePortAddresses: ['192.168.0.0/24'] },
  { detectLocalMode: 'NodeCIDR', masqueradeMark: '0x4000', largeClusterEndpointsThreshold: 100 },
];

const spillDirs = countSpillDirs('kubesim-iptables-');

describe('streamed renders', () => {
  for (const mode of ['iptables', 'nftables'] as const) {
    for (const [i, opts] of OPTION_SETS.entries()) {
      it(`${mode}, option set ${i}: the streamed bytes of every sync equal the kept text`, () => {
        const c = generateServices({ services: 150, endpoints: 6, seed: 11 + i, nodes: 4 });
        const node = { name: c.nodeName, ips: { IPv4: '192.168.0.10' }, podCIDRs: ['100.64.0.0/24'] };
        const states = [new ProxyState(node), new ProxyState(node)];
        for (const s of states) {
          for (const x of c.services) s.onServiceAdd(x);
          for (const x of c.endpointSlices) s.onEndpointSliceAdd(x);
        }
        let streamed: Buffer[] = [];
        const kept = make(mode, states[0], opts);
        const spilled = spillDirs();
        let spilling = 0;
        const live = make(mode, states[1], {
          ...opts,
          incremental: false,
          stream: (b) => {
            spilling = Math.max(spilling, spillDirs());
            streamed.push(Buffer.from(b));
          },
        });
        const rng = new Rng(5);
        for (let sync = 0; sync < 6; sync++) {
          const want = kept.sync();
          const got = live.sync();
          expect(Buffer.concat(streamed).toString('latin1')).toBe(want.text);
          expect(got.kind).toBe(want.kind);
          expect(got.stats.bytes).toBe(want.stats.bytes);
          expect(got.chunks?.()).toEqual([]);
          expect(() => got.text).toThrow(/streamed/);
          streamed = [];
          for (let k = 0; k < 3; k++) {
            const before = c.endpointSlices.slice();
            const ch = changeOneEndpoint(c, rng);
            for (const s of states) s.onEndpointSliceUpdate(before[ch.sliceIndex], ch.slice);
          }
        }
        expect(spillDirs()).toBe(spilled);
        // iptables' nat rules went through a spill file (present while the sync streamed)
        expect(spilling).toBe(mode === 'iptables' ? spilled + 1 : spilled);
      });
    }
    it(`${mode}: stream needs incremental: false`, () => {
      expect(() => make(mode, new ProxyState({ name: 'n' }), { stream: () => {} })).toThrow(
        'options.stream needs options.incremental: false',
      );
    });
  }

  it('proxy render --out writes the streamed sync: the bytes the library keeps, in every streamed mode', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-stream-'));
    for (const mode of ['iptables', 'nftables'] as const) {
      const file = join(dir, `${mode}.rules`);
      await proxyCli('render', '--generate', '400x5', '--mode', mode, '--no-progress', '--out', file);
      const c = generateServices({ services: 400, endpoints: 5, seed: 1 });
      const state = new ProxyState({ name: c.nodeName, ips: { IPv4: '192.168.0.10' } });
      for (const x of c.services) state.onServiceAdd(x);
      for (const x of c.endpointSlices) state.onEndpointSliceAdd(x);
      const want = make(mode, state, { clusterCIDR: c.clusterCIDR }).sync().text;
      expect(want.length).toBeGreaterThan(100_000);
      expect(readFileSync(file, 'latin1')).toBe(want);
    }
  });
});

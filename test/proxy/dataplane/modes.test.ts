import { describe, expect, it } from 'vitest';
import { buildProxyState } from '../../../src/proxy/model/index.js';
import { compileMode, PROXY_MODES } from '../../../src/proxy/dataplane/modes.js';
import { JsKernel, newResult, type PacketBatch } from '../../../src/proxy/dataplane/kernel-js.js';
import { RES_PASS, RES_REJECT, ipToU32 } from '../../../src/proxy/dataplane/program.js';
import { NODE, upstreamServices, upstreamSlices } from '../nftables/fixture.js';

function batch(
  pkts: { dst: string; port: number; src: string; proto?: number; seed?: number }[],
): PacketBatch {
  const n = pkts.length;
  const b: PacketBatch = {
    n,
    dst: new Int32Array(n),
    src: new Int32Array(n),
    dport: new Int32Array(n),
    proto: new Int32Array(n),
    seed: new Int32Array(n),
    flags: new Int32Array(n),
  };
  pkts.forEach((p, i) => {
    b.dst[i] = ipToU32(p.dst) | 0;
    b.src[i] = ipToU32(p.src) | 0;
    b.dport[i] = p.port;
    b.proto[i] = p.proto ?? 6;
    b.seed[i] = p.seed ?? i + 1;
  });
  return b;
}

describe("dataplane on kube-proxy's TestOverallNFTablesRules services, every mode", () => {
  const state = buildProxyState(upstreamServices, upstreamSlices, NODE);
  const m = { servicePorts: state.servicePorts, endpoints: state.endpoints, node: state.node };
  for (const mode of PROXY_MODES) {
    it(`${mode}: ClusterIP traffic reaches the endpoint, a service without endpoints is rejected`, () => {
      const prog = compileMode(mode, m, { clusterCIDR: '10.0.0.0/8', serviceCIDRs: ['172.30.0.0/16'] });
      const k = new JsKernel(prog);
      const b = batch([
        { dst: '172.30.0.41', port: 80, src: '10.1.2.3' },
        { dst: '172.30.0.46', port: 80, src: '10.1.2.3' },
        { dst: '172.30.0.44', port: 80, src: '10.1.2.3' },
        { dst: '8.8.8.8', port: 53, src: '10.1.2.3', proto: 17 },
        { dst: '5.6.7.8', port: 80, src: '203.0.113.9' },
        { dst: '192.168.0.2', port: 3003, src: '203.0.113.9' },
      ]);
      const out = newResult(b.n);
      k.classify(b, out);
      const ep = (i: number) => (out.result[i] >= 0 ? prog.endpoints[out.result[i]] : out.result[i]);
      expect(ep(0)).toBe('10.180.0.1:80');
      expect(ep(1)).toBe(RES_REJECT);
      expect(['10.180.0.4:80', '10.180.0.5:80']).toContain(ep(2));
      expect(ep(3)).toBe(RES_PASS);
      expect(ep(4)).toBe('10.180.0.3:80');
      expect(ep(5)).toBe('10.180.0.3:80');
      console.log(mode, prog.warnings.join('\n'));
    });
  }
});

/**
 * The KUBE-SEP rule pairs of one service port written by WebAssembly (build/proxy_rules.wasm,
 * assembly/proxy_rules.ts): the JavaScript side lays out each endpoint's address as a uint32, its
 * port and its chain name; the kernel writes both lines of every endpoint (decimal addresses and
 * ports included) into linear memory, read back as one latin1 string. IPv6 endpoints and texts
 * with a character above U+00FF are left to the JavaScript lines (`write` returns false).
 *
 * `write` appends exactly what the JavaScript loop of rules.ts writes;
 * test/proxy/iptables/sep-wasm.test.ts checks whole syncs byte for byte.
 */
import { canonicalIPv4Value, type EndpointInfo } from '../../model/index.js';
import { instantiateKernel, LinearBytes } from '../../../util/wasm.js';

interface RulesExports extends WebAssembly.Exports {
  memory: WebAssembly.Memory;
  base(): number;
  sepRules(
    partsPtr: number,
    commentLen: number,
    masqLen: number,
    dnatLen: number,
    affinity: boolean,
    recPtr: number,
    n: number,
    outPtr: number,
  ): number;
}

const RECORD = 40;
/** a chain name fits a record (KUBE-SEP- + 16 characters = 25) */
const MAX_SEP = RECORD - 9;

let shared: WasmSepRules | undefined;
/** The writer every renderer shares (one WebAssembly instance, created on first use). */
export function sepRuleKernel(): WasmSepRules {
  shared ??= new WasmSepRules();
  return shared;
}

export class WasmSepRules {
  private readonly ex: RulesExports;
  private readonly base: number;
  private readonly mem: LinearBytes;

  constructor() {
    this.ex = instantiateKernel<RulesExports>('proxy_rules');
    this.base = this.ex.base();
    this.mem = new LinearBytes(this.ex.memory);
  }

  /**
   * The lines of `endpoints` (chain `seps[i]` each), "\n"-terminated, or null when one of them
   * is not an IPv4 endpoint the kernel can write.
   */
  lines(
    endpoints: readonly EndpointInfo[],
    seps: readonly string[],
    comment: string,
    masq: string,
    dnat: string,
    affinity: boolean,
  ): string | null {
    const n = endpoints.length;
    const partsLen = comment.length + masq.length + dnat.length;
    const recPtr = (this.base + partsLen + 15) & ~15;
    const outPtr = recPtr + n * RECORD;
    // per endpoint at most: 2 × (3 + sep + comment + 23 + 15 + masq/dnat) + affinity + port
    const perLine =
      2 * (3 + MAX_SEP + comment.length + 4 + 15 + 1) + masq.length + dnat.length + 24 + MAX_SEP + 6;
    const m = this.mem.ensure(outPtr + n * (perLine + 64));
    const view = new DataView(m.buffer);
    let p = this.base;
    for (const text of [comment, masq, dnat])
      for (let k = 0; k < text.length; k++) {
        const c = text.charCodeAt(k);
        if (c > 0xff) return null;
        m[p++] = c;
      }
    for (let i = 0; i < n; i++) {
      const ep = endpoints[i];
      const ip = canonicalIPv4Value(ep.ip);
      const sep = seps[i];
      if (ip < 0 || sep.length > MAX_SEP) return null;
      const r = recPtr + i * RECORD;
      view.setUint32(r, ip, true);
      view.setUint32(r + 4, ep.port, true);
      m[r + 8] = sep.length;
      for (let k = 0; k < sep.length; k++) m[r + 9 + k] = sep.charCodeAt(k);
    }
    const len = this.ex.sepRules(
      this.base,
      comment.length,
      masq.length,
      dnat.length,
      affinity,
      recPtr,
      n,
      outPtr,
    );
    return Buffer.from(this.ex.memory.buffer, outPtr, len).toString('latin1');
  }
}

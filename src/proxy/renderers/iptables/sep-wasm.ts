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
import type { LineSink } from './lines.js';
import { SEP_PREFIX } from './names.js';
import { probability } from './probability.js';

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
  servicePort(
    partsPtr: number,
    hLen: number,
    cLen: number,
    scLen: number,
    mLen: number,
    dLen: number,
    lcLen: number,
    affLen: number,
    probPtr: number,
    colsPtr: number,
    n: number,
    hashPtr: number,
    epPtr: number,
    namesPtr: number,
    declPtr: number,
    rulesPtr: number,
  ): number;
  declLength(): number;
}

/**
 * The service-side texts of one port's KUBE-SVC / KUBE-SEP chains (see assembly/proxy_rules.ts
 * servicePort), in the order they are laid out.
 */
export interface PortTexts {
  /** "ns/name:port" + protocol: what each endpoint's "ip:port" is appended to for its chain name */
  readonly hashBase: string;
  readonly svcChain: string;
  /** " -m comment --comment <spn>" ("" in large-cluster mode) */
  readonly sepComment: string;
  readonly masq: string;
  readonly dnat: string;
  /** ' -m comment --comment "<spn> -> ' ("" in large-cluster mode) */
  readonly ladderComment: string;
  /** " --rcheck --seconds <s> --reap -j " for ClientIP affinity, else "" */
  readonly affinity: string;
}

const PROB = 12;
const align16 = (p: number): number => (p + 15) & ~15;

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

  /** probability strings laid out at base: 1/k for k = 2..probCap */
  private probCap = 1;

  constructor() {
    this.ex = instantiateKernel<RulesExports>('proxy_rules');
    this.base = this.ex.base();
    this.mem = new LinearBytes(this.ex.memory);
  }

  /**
   * Writes one service port's chain declarations (`:<svc>`, one `:KUBE-SEP-…` per endpoint) to
   * `nc` and its KUBE-SVC and KUBE-SEP rules to `nr`, reading the endpoints from their columns
   * (EndpointList.cols: IPv4, every one ready, all of them used). `chain` receives each chain's
   * name when the caller records them. The texts must be ASCII (kube-proxy hashes names as
   * UTF-8; the caller sends other names to the JavaScript lines).
   */
  servicePort(
    t: PortTexts,
    cols: Uint32Array,
    nc: LineSink,
    nr: LineSink,
    chain: ((name: string) => void) | null,
  ): void {
    const n = cols.length >>> 2;
    this.probabilities(n);
    const parts = [t.hashBase, t.svcChain, t.sepComment, t.masq, t.dnat, t.ladderComment, t.affinity];
    let partsLen = 0;
    for (const s of parts) partsLen += s.length;
    const partsPtr = this.free();
    const colsPtr = align16(partsPtr + partsLen);
    const hashPtr = colsPtr + 16 * n;
    const epPtr = align16(hashPtr + t.hashBase.length + 32);
    const namesPtr = epPtr + 24 * n;
    const declPtr = namesPtr + 16 * n;
    const rulesPtr = declPtr + (n + 1) * (t.svcChain.length + 40);
    const perEndpoint =
      3 * t.svcChain.length +
      2 * t.ladderComment.length +
      2 * t.sepComment.length +
      t.affinity.length +
      t.masq.length +
      t.dnat.length +
      400;
    const m = this.mem.ensure(rulesPtr + n * perEndpoint);
    let p = partsPtr;
    for (const s of parts) p += m.write(s, p, 'latin1');
    new Uint32Array(m.buffer, colsPtr, 4 * n).set(cols);
    const len = this.ex.servicePort(
      partsPtr,
      t.hashBase.length,
      t.svcChain.length,
      t.sepComment.length,
      t.masq.length,
      t.dnat.length,
      t.ladderComment.length,
      t.affinity.length,
      this.base,
      colsPtr,
      n,
      hashPtr,
      epPtr,
      namesPtr,
      declPtr,
      rulesPtr,
    );
    const declLen = this.ex.declLength();
    nc.copyLines(m.subarray(declPtr, declPtr + declLen), n + 1);
    nr.copyLines(m.subarray(rulesPtr, rulesPtr + len), (t.affinity ? 4 : 3) * n);
    if (chain) {
      chain(t.svcChain);
      for (let i = 0; i < n; i++)
        chain(SEP_PREFIX + m.toString('latin1', namesPtr + 16 * i, namesPtr + 16 * i + 16));
    }
  }

  /** The first byte after the probability table. */
  private free(): number {
    return align16(this.base + PROB * (this.probCap + 1));
  }

  /** Lays out kube-proxy's probability strings 1/k for k = 2..n (and beyond, to grow rarely). */
  private probabilities(n: number): void {
    if (n <= this.probCap) return;
    const cap = Math.max(n, 2 * this.probCap, 64);
    const m = this.mem.ensure(this.base + PROB * (cap + 1));
    for (let k = 2; k <= cap; k++) m.write(probability(k), this.base + PROB * k, 'latin1');
    this.probCap = cap;
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
    // after the probability table servicePort keeps at base
    const partsPtr = this.free();
    const recPtr = align16(partsPtr + partsLen);
    const outPtr = recPtr + n * RECORD;
    // per endpoint at most: 2 × (3 + sep + comment + 23 + 15 + masq/dnat) + affinity + port
    const perLine =
      2 * (3 + MAX_SEP + comment.length + 4 + 15 + 1) + masq.length + dnat.length + 24 + MAX_SEP + 6;
    const m = this.mem.ensure(outPtr + n * (perLine + 64));
    const view = new DataView(m.buffer);
    let p = partsPtr;
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
      partsPtr,
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

/**
 * Chain-name hashing in WebAssembly (build/proxy_names.wasm, assembly/proxy_names.ts): the same
 * 16 characters as {@link hash16} — SHA-256, first 80 bits in base32 — for a batch of texts per
 * call, so the JavaScript/WASM boundary is crossed once per batch. The texts are written into
 * linear memory one byte per character; a text with a character above U+007F (never in
 * Kubernetes names, ports or IP addresses, but possible in a hand-written call) is hashed by the
 * JavaScript function instead, which hashes its UTF-8 bytes as Go does.
 *
 * `hash16Many(texts)` answers exactly what `texts.map(hash16)` answers;
 * test/proxy/iptables/names-wasm.test.ts checks that on seeded names and kube-proxy's own.
 */
import { instantiateKernel, LinearBytes } from '../../../util/wasm.js';
import { hash16 } from './names.js';

interface NamesExports extends WebAssembly.Exports {
  memory: WebAssembly.Memory;
  base(): number;
  hashBatch(inPtr: number, n: number, outPtr: number): void;
}

/** The hasher every renderer shares (one WebAssembly instance, created on first use). */
let shared: WasmChainHasher | undefined;
export function chainHasher(): WasmChainHasher {
  shared ??= new WasmChainHasher();
  return shared;
}

/** texts per call: bounds the memory a batch takes (≤ 2 + 65535 bytes each) */
const BATCH = 4096;

export class WasmChainHasher {
  private readonly ex: NamesExports;
  private readonly base: number;
  private readonly mem: LinearBytes;

  constructor() {
    this.ex = instantiateKernel<NamesExports>('proxy_names');
    this.base = this.ex.base();
    this.mem = new LinearBytes(this.ex.memory);
  }

  /** The 16-character hash of each text, in order (= texts.map(hash16)). */
  hash16Many(texts: readonly string[]): string[] {
    const out: string[] = new Array(texts.length);
    for (let from = 0; from < texts.length; from += BATCH)
      this.batch(texts, from, Math.min(texts.length, from + BATCH), out);
    return out;
  }

  private batch(texts: readonly string[], from: number, to: number, out: string[]): void {
    let need = 0;
    for (let i = from; i < to; i++) need += 2 + texts[i].length;
    const inPtr = this.base;
    const outPtr = (inPtr + need + 15) & ~15;
    const m = this.mem.ensure(outPtr + 16 * (to - from));
    let p = inPtr;
    // texts hashed here, by index; the others (non-ASCII or too long) go to the JavaScript hash
    const idx: number[] = [];
    for (let i = from; i < to; i++) {
      const t = texts[i];
      let ascii = t.length <= 0xffff;
      for (let k = 0; ascii && k < t.length; k++) {
        const c = t.charCodeAt(k);
        if (c > 0x7f) ascii = false;
        else m[p + 2 + k] = c;
      }
      if (!ascii) {
        out[i] = hash16(t);
        continue;
      }
      m[p] = t.length & 0xff;
      m[p + 1] = t.length >>> 8;
      p += 2 + t.length;
      idx.push(i);
    }
    this.ex.hashBatch(inPtr, idx.length, outPtr);
    // one latin1 decode of every name, then 16-character slices
    const all = Buffer.from(this.ex.memory.buffer, outPtr, 16 * idx.length).toString('latin1');
    for (let j = 0; j < idx.length; j++) out[idx[j]] = all.slice(16 * j, 16 * j + 16);
  }
}

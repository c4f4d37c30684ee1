/**
 * Checks a WASM score plugin before it runs: it may import only `env.memory` (the memory kubesim
 * gives it, whose maximum kubesim sets) and `env.abort`, and must not define a memory of its own
 * (one kubesim could not bound). Walks the binary's sections (WebAssembly core spec §5.5) for what
 * the JS API does not tell: the limits of the memory import and whether a memory is defined.
 */

const PAGE = 65536;

/** What a score module exports (the ABI in src/scheduler/plugins/user.ts). */
export interface WasmScoreExports {
  score(
    table: number,
    slots: number,
    count: number,
    out: number,
    podMilliCpu: number,
    podMemory: number,
  ): void;
  heapBase?(): number;
}

export interface WasmModuleInfo {
  /** the memory import's declared minimum and maximum, in pages */
  memoryMin: number;
  memoryMax?: number;
}

/** The module's memory needs, or an Error saying what breaks the plugin ABI (src/scheduler/plugins/user.ts). */
export function checkWasmPlugin(bytes: Uint8Array, mod: WebAssembly.Module): WasmModuleInfo {
  for (const imp of WebAssembly.Module.imports(mod)) {
    const ok =
      imp.module === 'env' &&
      ((imp.name === 'memory' && imp.kind === 'memory') || (imp.name === 'abort' && imp.kind === 'function'));
    if (!ok)
      throw new Error(
        `imports ${imp.module}.${imp.name} (${imp.kind}); a score plugin may import only env.memory and env.abort`,
      );
  }
  const score = WebAssembly.Module.exports(mod).find((e) => e.name === 'score');
  if (score?.kind !== 'function') throw new Error('the module exports no score function');
  let info: WasmModuleInfo | undefined;
  const r = new Reader(bytes);
  r.pos = 8; // magic, version
  while (r.pos < bytes.length) {
    const id = r.byte();
    const size = r.u32();
    const end = r.pos + size;
    if (id === 5 && r.u32() > 0)
      throw new Error('defines a memory of its own; a score plugin imports env.memory (kubesim bounds it)');
    if (id === 2) info = memoryImport(r);
    r.pos = end;
  }
  if (!info) throw new Error('imports no env.memory; a score plugin reads the node table through it');
  return info;
}

/** pages holding `bytes` */
export function pages(bytes: number): number {
  return Math.ceil(bytes / PAGE);
}

function memoryImport(r: Reader): WasmModuleInfo | undefined {
  const n = r.u32();
  for (let i = 0; i < n; i++) {
    r.skip(r.u32()); // module name
    r.skip(r.u32()); // field name
    const kind = r.byte();
    if (kind === 0x00) r.u32();
    else if (kind === 0x01) {
      r.byte();
      limits(r);
    } else if (kind === 0x02) return limits(r);
    else if (kind === 0x03) r.pos += 2;
    else if (kind === 0x04) {
      r.byte();
      r.u32();
    } else throw new Error(`import section: unknown import kind ${kind}`);
  }
  return undefined;
}

function limits(r: Reader): WasmModuleInfo {
  const flags = r.byte();
  if (flags & 0x04) throw new Error('imports a 64-bit memory; the node table ABI is 32-bit');
  const memoryMin = r.u32();
  return flags & 0x01 ? { memoryMin, memoryMax: r.u32() } : { memoryMin };
}

class Reader {
  pos = 0;
  constructor(private readonly b: Uint8Array) {}
  skip(bytes: number): void {
    this.pos += bytes;
  }
  byte(): number {
    if (this.pos >= this.b.length) throw new Error('truncated module');
    return this.b[this.pos++];
  }
  /** unsigned LEB128 */
  u32(): number {
    let v = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.byte();
      v += (b & 0x7f) * 2 ** shift;
      if (!(b & 0x80)) return v;
    }
    throw new Error('malformed LEB128');
  }
}

/**
 * Line buffers for iptables-restore input (Go proxyutil.LineBuffer): whole lines are appended
 * and counted. Each line is encoded into a block of bytes as it is written (blocks of up to
 * ~256 KiB), so the hundreds of thousands of rule strings of a large sync die young instead of
 * being kept for a final join, and a WebAssembly kernel's lines are copied in as bytes. Text is ASCII (names are DNS labels, addresses, fixed keywords), so it is encoded
 * as latin1: one byte per character, no UTF-8 scan. A discarding buffer counts what a partial
 * sync would have written for unchanged services without keeping it — kube-proxy does the same
 * to keep its rule-count metrics right.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FLUSH_AT = 256 * 1024;

/**
 * Where a streamed render keeps the nat rules until the end of the walk: iptables-restore input
 * declares every chain (`:KUBE-SVC-… - [0:0]`) before the first rule, and the chains are found in
 * the same walk that writes the rules, so the rules (the bulk of the text) wait in a temporary
 * file rather than in memory, and are copied to the output after the chain lines.
 */
export class SpillFile {
  private readonly dir: string;
  private readonly fd: number;

  /** `prefix`: of the temporary directory's name (tests count them) */
  constructor(prefix = 'kubesim-iptables-', name = 'nat-rules') {
    this.dir = mkdtempSync(join(tmpdir(), prefix));
    this.fd = openSync(join(this.dir, name), 'w+');
  }

  write(b: Buffer): void {
    writeSync(this.fd, b);
  }

  /** Copies what was written to `out`, in blocks, then deletes the file. */
  replay(out: (chunk: Uint8Array) => void): void {
    for (const b of this.blocks()) out(b);
  }

  /** What was written, in 1 MiB blocks (each a copy: a reader may keep it); the file is deleted after the last. */
  *blocks(): Generator<Uint8Array> {
    const block = Buffer.allocUnsafe(1 << 20);
    let at = 0;
    try {
      for (;;) {
        const n = readSync(this.fd, block, 0, block.length, at);
        if (n === 0) break;
        yield Buffer.from(block.subarray(0, n));
        at += n;
      }
    } finally {
      this.close();
    }
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Where rule lines go: a LineBuffer, or a StringSink that keeps one service port's lines. */
export interface LineSink {
  /** lines written */
  readonly lines: number;
  write(line: string): void;
  /** Appends `count` lines already joined, each ending in "\n". */
  writeLines(text: string, count: number): void;
  /** Appends `count` lines already encoded, each ending in "\n"; `bytes` is copied (a kernel's memory). */
  copyLines(bytes: Uint8Array, count: number): void;
}

/** One service port's lines as a string (incremental.ts caches them between syncs). */
export class StringSink implements LineSink {
  text = '';
  lines = 0;

  write(line: string): void {
    this.text += line + '\n';
    this.lines++;
  }

  writeLines(text: string, count: number): void {
    this.text += text;
    this.lines += count;
  }

  copyLines(bytes: Uint8Array, count: number): void {
    this.writeLines(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1'), count);
  }

  /** Returns the text so far and starts over. */
  take(): string {
    const t = this.text;
    this.text = '';
    this.lines = 0;
    return t;
  }
}

const EMPTY = Buffer.alloc(0);
/** a cached fragment up to this size is copied into the block rather than kept as its own chunk */
const COPY_BELOW = 4096;

/**
 * Lines as bytes: each line is encoded (latin1) straight into a block of up to FLUSH_AT bytes;
 * a full block becomes a chunk (or goes to the spill file, and the block is reused). Chunks are
 * consecutive ranges of a block, so a cached fragment pushed between two writes does not waste
 * the rest of the block.
 */
export class LineBuffer implements LineSink {
  private chunks: Buffer[] = [];
  private len = 0;
  /** flushed bytes go here instead of `chunks` (a streamed render's nat rules) */
  spill?: SpillFile;
  private block: Buffer = EMPTY;
  /** the block's bytes before `start` are flushed, `start`..`pos` are pending */
  private start = 0;
  private pos = 0;
  /** lines written */
  lines = 0;

  constructor(private readonly keep = true) {}

  /** Appends one line (without its trailing newline). */
  write(line: string): void {
    this.lines++;
    if (!this.keep) return;
    const need = line.length + 1;
    if (this.pos + need > this.block.length) this.reserve(need);
    this.pos += this.block.write(line, this.pos, 'latin1');
    this.block[this.pos++] = 10;
  }

  /** Appends `count` lines already joined, each ending in "\n" (a cached fragment). */
  writeLines(text: string, count: number): void {
    this.lines += count;
    if (!this.keep || text.length === 0) return;
    if (this.pos + text.length > this.block.length) this.reserve(text.length);
    this.pos += this.block.write(text, this.pos, 'latin1');
  }

  copyLines(bytes: Uint8Array, count: number): void {
    this.lines += count;
    if (!this.keep || bytes.length === 0) return;
    if (this.pos + bytes.length > this.block.length) this.reserve(bytes.length);
    this.block.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** Appends `count` lines already encoded (a cached fragment, kept as it is when large). */
  writeBytes(bytes: Buffer, count: number): void {
    if (bytes.length < COPY_BELOW) {
      this.copyLines(bytes, count);
      return;
    }
    this.lines += count;
    if (!this.keep) return;
    this.flush();
    if (this.spill) this.spill.write(bytes);
    else this.chunks.push(bytes);
    this.len += bytes.length;
  }

  /** Room for `need` more bytes: the pending bytes move to a new block, or are flushed first. */
  private reserve(need: number): void {
    if (this.pos + need > FLUSH_AT) this.flush();
    const pending = this.pos - this.start;
    if (this.pos + need <= this.block.length) return;
    // blocks double from 4 KiB (a partial sync writes little) up to FLUSH_AT
    const size = Math.max(pending + need, Math.min(FLUSH_AT, 2 * this.block.length), 4096);
    const b = Buffer.allocUnsafeSlow(size);
    this.block.copy(b, 0, this.start, this.pos);
    this.block = b;
    this.start = 0;
    this.pos = pending;
  }

  private flush(): void {
    if (this.pos === this.start) return;
    const b = this.block.subarray(this.start, this.pos);
    this.len += b.length;
    if (this.spill) {
      // written synchronously: the block is free again
      this.spill.write(b);
      this.start = this.pos = 0;
      return;
    }
    this.chunks.push(b);
    this.start = this.pos;
  }

  /** bytes buffered */
  get byteLength(): number {
    this.flush();
    return this.len;
  }

  /** The buffered lines, each ending in "\n", as byte chunks (in order). */
  bytesChunks(): Buffer[] {
    this.flush();
    return this.chunks;
  }

  /** The buffered lines as one buffer. */
  bytes(): Buffer {
    this.flush();
    return this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.len);
  }

  /** The buffered lines as text. */
  text(): string {
    return this.bytes().toString('latin1');
  }

  reset(): void {
    this.chunks = [];
    this.block = EMPTY;
    this.start = this.pos = 0;
    this.len = 0;
    this.lines = 0;
  }
}

/** Go utiliptables.MakeChainLine: the declaration (and flush) line of a chain. */
export function chainLine(chain: string): string {
  return `:${chain} - [0:0]`;
}

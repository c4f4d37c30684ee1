/**
 * Line buffers for iptables-restore input (Go proxyutil.LineBuffer): whole lines are appended
 * and counted. Lines are concatenated into a string rope and turned into bytes every ~256 KiB,
 * so the hundreds of thousands of rule strings of a large sync die young instead of being kept
 * for a final join (the join and the garbage it leaves cost more than rendering itself at 10k
 * services). Text is ASCII (names are DNS labels, addresses, fixed keywords), so it is encoded
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

  /** Returns the text so far and starts over. */
  take(): string {
    const t = this.text;
    this.text = '';
    this.lines = 0;
    return t;
  }
}

export class LineBuffer implements LineSink {
  private chunks: Buffer[] = [];
  private len = 0;
  /** flushed bytes go here instead of `chunks` (a streamed render's nat rules) */
  spill?: SpillFile;
  /** lines not yet encoded: a rope, flushed every FLUSH_AT characters */
  private pending = '';
  /** lines written */
  lines = 0;

  constructor(private readonly keep = true) {}

  /** Appends one line (without its trailing newline). */
  write(line: string): void {
    this.lines++;
    if (!this.keep) return;
    this.pending += line + '\n';
    if (this.pending.length > FLUSH_AT) this.flush();
  }

  /** Appends `count` lines already joined, each ending in "\n" (a cached fragment). */
  writeLines(text: string, count: number): void {
    this.lines += count;
    if (!this.keep || count === 0) return;
    this.pending += text;
    if (this.pending.length > FLUSH_AT) this.flush();
  }

  /** Appends `count` lines already encoded (a cached fragment): no string is built or encoded. */
  writeBytes(bytes: Buffer, count: number): void {
    this.lines += count;
    if (!this.keep || count === 0) return;
    this.flush();
    if (this.spill) this.spill.write(bytes);
    else this.chunks.push(bytes);
    this.len += bytes.length;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const b = Buffer.from(this.pending, 'latin1');
    if (this.spill) this.spill.write(b);
    else this.chunks.push(b);
    this.len += b.length;
    this.pending = '';
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
    this.pending = '';
    this.len = 0;
    this.lines = 0;
  }
}

/** Go utiliptables.MakeChainLine: the declaration (and flush) line of a chain. */
export function chainLine(chain: string): string {
  return `:${chain} - [0:0]`;
}

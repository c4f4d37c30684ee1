/**
 * Line buffers for iptables-restore input (Go proxyutil.LineBuffer): whole lines are appended
 * and counted. Lines go straight into a growing byte buffer, so the hundreds of thousands of
 * rule strings of a large sync die young instead of being kept for a final join (the join and
 * the garbage it leaves cost more than rendering itself at 10k services). A discarding buffer
 * counts what a partial sync would have written for unchanged services without keeping it —
 * kube-proxy does the same to keep its rule-count metrics right.
 */
export class LineBuffer {
  private buf: Buffer;
  private len = 0;
  /** lines not yet copied into buf: concatenated (cheap rope) and flushed every ~64 KiB */
  private pending = '';
  /** lines written */
  lines = 0;

  constructor(private readonly keep = true, initialBytes = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(keep ? initialBytes : 0);
  }

  /** Appends one line (without its trailing newline). Input is ASCII/UTF-8 text. */
  write(line: string): void {
    this.lines++;
    if (!this.keep) return;
    this.pending += line + '\n';
    if (this.pending.length > 65536) this.flush();
  }

  private flush(): void {
    const p = this.pending;
    if (p.length === 0) return;
    // worst case 3 bytes per UTF-16 unit
    const need = this.len + p.length * 3;
    if (need > this.buf.length) this.grow(need);
    this.len += this.buf.write(p, this.len, 'utf8');
    this.pending = '';
  }

  private grow(need: number): void {
    let size = Math.max(this.buf.length * 2, 64 * 1024);
    while (size < need) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  /** bytes buffered */
  get byteLength(): number {
    this.flush();
    return this.len;
  }

  /** The buffered lines, each ending in "\n" (a view, valid until the next write). */
  bytes(): Buffer {
    this.flush();
    return this.buf.subarray(0, this.len);
  }

  /** The buffered lines as text. */
  text(): string {
    this.flush();
    return this.buf.toString('utf8', 0, this.len);
  }

  reset(): void {
    this.pending = '';
    this.len = 0;
    this.lines = 0;
  }
}

/** Go utiliptables.MakeChainLine: the declaration (and flush) line of a chain. */
export function chainLine(chain: string): string {
  return `:${chain} - [0:0]`;
}

/**
 * Line buffers for iptables-restore input (Go proxyutil.LineBuffer): whole lines are appended
 * and counted; the text is joined once at the end. A discarding buffer counts what a partial
 * sync would have written for unchanged services without keeping it — kube-proxy does the same
 * to keep its rule-count metrics right.
 */
export class LineBuffer {
  private parts: string[] = [];
  /** lines written */
  lines = 0;

  constructor(private readonly keep = true) {}

  /** Appends one line (without its trailing newline). */
  write(line: string): void {
    this.lines++;
    if (this.keep) this.parts.push(line);
  }

  /** The buffered lines, each ending in "\n". */
  text(): string {
    return this.parts.length === 0 ? '' : this.parts.join('\n') + '\n';
  }

  reset(): void {
    this.parts = [];
    this.lines = 0;
  }
}

/** Go utiliptables.MakeChainLine: the declaration (and flush) line of a chain. */
export function chainLine(chain: string): string {
  return `:${chain} - [0:0]`;
}

/**
 * An `nft -f` transaction written the way knftables writes one (sigs.k8s.io/knftables objects.go
 * writeOperation): one command per line, `add`/`flush`/`delete` + object + `ip kube-proxy` + name,
 * properties in `{ … ; }`. kube-proxy hands exactly this text to `nft -f -`.
 *
 * The transaction also counts what it writes (rules, elements, chains), which is how the
 * benchmarks compare a full sync with a partial one.
 */

export interface TxStats {
  /** command lines */
  lines: number;
  /** bytes of the script */
  bytes: number;
  /** `add rule` lines */
  rules: number;
  /** `add element` + `delete element` lines */
  elements: number;
  /** `add chain` lines */
  chainsAdded: number;
  /** `flush chain` lines */
  chainsFlushed: number;
  /** `delete chain` lines */
  chainsDeleted: number;
  /** `add set` / `add map` lines */
  setsAdded: number;
  /** `delete set` lines */
  setsDeleted: number;
}

/** lines are turned into bytes every FLUSH_AT characters (as iptables/lines.ts LineBuffer) */
const FLUSH_AT = 256 * 1024;

export class NftTransaction {
  /**
   * the script not yet encoded (V8 builds repeated += as a rope), and the bytes before it: a full
   * sync of 100,000 services is longer than V8's longest string, so it is kept as byte chunks
   */
  private out = '';
  private readonly done: Buffer[] = [];
  readonly stats: TxStats = {
    lines: 0,
    bytes: 0,
    rules: 0,
    elements: 0,
    chainsAdded: 0,
    chainsFlushed: 0,
    chainsDeleted: 0,
    setsAdded: 0,
    setsDeleted: 0,
  };

  /** `family table` prefix of every command, e.g. "ip kube-proxy"; `stream` takes the bytes instead of keeping them */
  constructor(
    readonly family: 'ip' | 'ip6',
    readonly table: string,
    private readonly stream?: (chunk: Uint8Array) => void,
  ) {}

  private push(line: string): void {
    this.out += line + '\n';
    this.stats.lines++;
    this.stats.bytes += line.length + 1;
    if (this.out.length > FLUSH_AT) this.flush();
  }

  private flush(): void {
    if (this.out === '') return;
    // the script is ASCII (names, addresses, keywords; comments are Service names): latin1 is exact
    const b = Buffer.from(this.out, 'latin1');
    if (this.stream) this.stream(b);
    else this.done.push(b);
    this.out = '';
  }

  private get ft(): string {
    return `${this.family} ${this.table}`;
  }

  addTable(comment?: string): void {
    this.push(
      comment === undefined ? `add table ${this.ft}` : `add table ${this.ft} { comment ${q(comment)} ; }`,
    );
  }

  /** a regular chain (no spec) or a base chain (`type … hook … priority N ;`) */
  addChain(name: string, spec?: { type: string; hook: string; priority: number }, comment?: string): void {
    this.stats.chainsAdded++;
    let props = '';
    if (spec) props += ` type ${spec.type} hook ${spec.hook} priority ${spec.priority} ;`;
    if (comment !== undefined) props += ` comment ${q(comment)} ;`;
    this.push(props ? `add chain ${this.ft} ${name} {${props} }` : `add chain ${this.ft} ${name}`);
  }

  flushChain(name: string): void {
    this.stats.chainsFlushed++;
    this.push(`flush chain ${this.ft} ${name}`);
  }

  deleteChain(name: string): void {
    this.stats.chainsDeleted++;
    this.push(`delete chain ${this.ft} ${name}`);
  }

  addRule(chain: string, rule: string, comment?: string): void {
    this.stats.rules++;
    this.push(
      comment === undefined
        ? `add rule ${this.ft} ${chain} ${rule}`
        : `add rule ${this.ft} ${chain} ${rule} comment ${q(comment)}`,
    );
  }

  addSet(
    kind: 'set' | 'map',
    name: string,
    props: { type: string; flags?: string[]; timeoutSeconds?: number; comment?: string },
  ): void {
    this.stats.setsAdded++;
    let p = ` type ${props.type} ;`;
    if (props.flags && props.flags.length) p += ` flags ${props.flags.join(',')} ;`;
    if (props.timeoutSeconds !== undefined) p += ` timeout ${props.timeoutSeconds}s ;`;
    if (props.comment !== undefined) p += ` comment ${q(props.comment)} ;`;
    this.push(`add ${kind} ${this.ft} ${name} {${p} }`);
  }

  flushSet(kind: 'set' | 'map', name: string): void {
    this.push(`flush ${kind} ${this.ft} ${name}`);
  }

  deleteSet(kind: 'set' | 'map', name: string): void {
    this.stats.setsDeleted++;
    this.push(`delete ${kind} ${this.ft} ${name}`);
  }

  /** `add element … { key [comment "c"] [: value] }`; key and value parts joined by " . " */
  addElement(container: string, key: string, value?: string, comment?: string): void {
    this.stats.elements++;
    let line = `add element ${this.ft} ${container} { ${key}`;
    if (comment !== undefined) line += ` comment ${q(comment)}`;
    if (value !== undefined) line += ` : ${value}`;
    this.push(line + ' }');
  }

  deleteElement(container: string, key: string): void {
    this.stats.elements++;
    this.push(`delete element ${this.ft} ${container} { ${key} }`);
  }

  /** a `# …` line, which nft ignores; not counted as a command */
  comment(text: string): void {
    this.out += `# ${text}\n`;
    this.stats.bytes += text.length + 3;
  }

  isEmpty(): boolean {
    return this.stats.lines === 0;
  }

  /** The script as text (throws past V8's longest string; write `chunks()` instead). */
  toString(): string {
    if (this.stream) throw new Error('NftTransaction: the script was streamed, not kept');
    if (this.done.length === 0) return this.out;
    this.flush();
    return Buffer.concat(this.done).toString('latin1');
  }

  /** The script as bytes, in order (streamed: written out, none kept). */
  chunks(): readonly Buffer[] {
    this.flush();
    return this.done;
  }

  /** Streamed: writes out the rest of the script. */
  end(): void {
    if (this.stream) this.flush();
  }
}

/** Go's %q for the plain ASCII comments kube-proxy writes (quotes and backslashes escaped). */
function q(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

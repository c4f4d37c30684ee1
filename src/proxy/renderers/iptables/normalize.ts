/**
 * Parsing and normalising iptables-restore text the way kube-proxy's own tests do
 * (pkg/util/iptables/testing/parse.go ParseIPTablesDump + proxier_test.go sortIPTablesRules):
 * tables by name; chains KUBE-NODEPORTS, KUBE-SERVICES, then other KUBE-* alphabetically,
 * then the rest; KUBE-NODEPORTS and KUBE-SERVICES rules stably ordered by the service name in
 * their comment (the nat KUBE-SERVICES "must be the last rule" rule stays last). Rule order
 * inside every other chain is kept. This removes exactly the Go-map-order randomness of
 * kube-proxy's output and nothing else.
 */

export interface DumpChain {
  name: string;
  rules: string[];
  deleted: boolean;
}

export interface DumpTable {
  name: string;
  chains: DumpChain[];
}

/** Parses iptables-save / iptables-restore text; throws on malformed input (line number in message). */
export function parseIptablesDump(text: string): DumpTable[] {
  const tables: DumpTable[] = [];
  let state: 'table' | 'decl' | 'rules' = 'table';
  let t: DumpTable | null = null;
  const lines = text.replace(/^\n+|\n+$/g, '').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '' || line.startsWith('#')) continue;
    if (state === 'table') {
      if (!line.startsWith('*')) throw new Error(`line ${i + 1}: expected a table ("*nat"), got "${line}"`);
      t = { name: line.slice(1), chains: [] };
      tables.push(t);
      state = 'decl';
      continue;
    }
    if (state === 'decl') {
      const m = /^:(\S*) \S+ \[([0-9]*):([0-9]*)\]$/.exec(line);
      if (m) {
        t!.chains.push({ name: m[1], rules: [], deleted: false });
        continue;
      }
      state = 'rules';
    }
    const add = /^-A (\S*) (.*)$/.exec(line);
    if (add) {
      const c = t!.chains.find((x) => x.name === add[1]);
      if (!c) throw new Error(`line ${i + 1}: rule for undeclared chain ${add[1]}`);
      if (c.deleted) throw new Error(`line ${i + 1}: rule for deleted chain ${add[1]}`);
      c.rules.push(line);
      continue;
    }
    const del = /^-X (.*)$/.exec(line);
    if (del) {
      const c = t!.chains.find((x) => x.name === del[1]);
      if (!c) throw new Error(`line ${i + 1}: -X of undeclared chain ${del[1]}`);
      if (c.rules.length) throw new Error(`line ${i + 1}: -X of chain ${del[1]} after adding rules`);
      c.deleted = true;
      continue;
    }
    if (line === 'COMMIT') {
      state = 'table';
      continue;
    }
    throw new Error(`line ${i + 1}: cannot parse "${line}"`);
  }
  if (state !== 'table') throw new Error('missing COMMIT at end of input');
  return tables;
}

/** Serialises a dump: declarations, then rules chain by chain, then -X lines (Go IPTablesDump.String). */
export function formatIptablesDump(tables: DumpTable[]): string {
  let out = '';
  for (const t of tables) {
    out += `*${t.name}\n`;
    for (const c of t.chains) out += `:${c.name} - [0:0]\n`;
    for (const c of t.chains) for (const r of c.rules) out += r + '\n';
    for (const c of t.chains) if (c.deleted) out += `-X ${c.name}\n`;
    out += 'COMMIT\n';
  }
  return out;
}

const WORD = /(?:^|\s)("[^"]*"|[^"]\S*)/g;

/** The value of a rule's --comment, without quotes; null when it has none. */
export function ruleComment(rule: string): string | null {
  const words: string[] = [];
  for (const m of rule.matchAll(WORD)) words.push(m[1].replace(/^"|"$/g, ''));
  const i = words.indexOf('--comment');
  return i >= 0 && i + 1 < words.length ? words[i + 1] : null;
}

function serviceNameOfComment(c: string): string {
  const i = c.search(/[ :]/);
  return i === -1 ? c : c.slice(0, i);
}

function byCommentServiceName(a: string, b: string): number {
  const ca = ruleComment(a),
    cb = ruleComment(b);
  if (ca === null || cb === null) return 0;
  const na = serviceNameOfComment(ca),
    nb = serviceNameOfComment(cb);
  return na < nb ? -1 : na > nb ? 1 : 0;
}

function chainOrder(a: string, b: string): number {
  const rank = (n: string) =>
    n === 'KUBE-NODEPORTS' ? 0 : n === 'KUBE-SERVICES' ? 1 : n.startsWith('KUBE-') ? 2 : 3;
  const ra = rank(a),
    rb = rank(b);
  if (ra !== rb) return ra - rb;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** kube-proxy's sortIPTablesRules: a canonical order for comparing restore inputs. */
export function sortIptablesRules(text: string): string {
  const tables = parseIptablesDump(text);
  tables.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const t of tables) {
    t.chains.sort((a, b) => chainOrder(a.name, b.name));
    for (const c of t.chains) {
      if (c.name === 'KUBE-NODEPORTS' || (c.name === 'KUBE-SERVICES' && t.name === 'filter')) {
        c.rules.sort(byCommentServiceName);
      } else if (c.name === 'KUBE-SERVICES' && t.name === 'nat') {
        const isLast = (r: string) => (ruleComment(r) ?? '').includes('must be the last rule');
        c.rules.sort((a, b) => {
          const la = isLast(a),
            lb = isLast(b);
          if (la && !lb) return 1;
          if (lb && !la) return -1;
          if (la && lb) return 0;
          return byCommentServiceName(a, b);
        });
      }
    }
  }
  return formatIptablesDump(tables);
}

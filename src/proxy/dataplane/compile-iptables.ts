/**
 * Compiles `iptables-restore` input (what kube-proxy's iptables mode writes, and the small ruleset
 * of ipvs mode) into a dataplane Program. Rules stay rules: a chain of N rules is N entries the
 * kernel tries in order, exactly like netfilter's xt_table walk.
 *
 * Understood: -s/-d [!] addr[/len], -p, --dport, -m addrtype --dst-type/--src-type LOCAL,
 * -m statistic --mode random --probability p (threshold lround(p·2^31), as libxt_statistic),
 * -m recent --name N --rcheck|--set (affinity; the --seconds timeout is not modeled),
 * -m set --match-set NAME dst,dst|dst|src,dst (ipvs mode), -m conntrack --ctstate (NEW matches;
 * a packet being classified is always a new connection), -m comment, -m tcp/udp/sctp, -m nfacct;
 * targets: user chains (jump), -g (goto), RETURN, ACCEPT, DROP, REJECT, DNAT --to-destination,
 * MARK / MASQUERADE / SNAT (non-terminal). Matches the walk never needs to decide (mark,
 * physdev, ipvs, interfaces, 3-part set keys) compile to a rule that never matches and are
 * listed in `warnings`.
 */
import {
  ProgramBuilder,
  type Program,
  R_FLAGS,
  R_DST,
  R_DST_MASK,
  R_SRC,
  R_SRC_MASK,
  R_PROTO,
  R_DPORT,
  R_STAT,
  R_SET,
  R_SET_MODE,
  R_VERDICT,
  R_ARG,
  F_DST,
  F_DST_NEG,
  F_SRC,
  F_SRC_NEG,
  F_PROTO,
  F_DPORT,
  F_DST_LOCAL,
  F_DST_LOCAL_NEG,
  F_SRC_LOCAL,
  F_SRC_LOCAL_NEG,
  F_STAT,
  F_SET,
  F_SET_NEG,
  F_SET_DYNAMIC,
  K_DADDR_PROTO_DPORT,
  K_DADDR,
  K_SADDR_PROTO_DPORT,
  K_DPORT,
  V_CONTINUE,
  V_JUMP,
  V_GOTO,
  V_RETURN,
  V_DNAT,
  V_ACCEPT,
  V_DROP,
  V_REJECT,
  F_ADD_SRC,
  PROTO_NUM,
  ipToU32,
  parseCidr4,
} from './program.js';

export interface IpsetSpec {
  type: string;
  entries: Iterable<string>;
}

export interface IptablesCompileOptions {
  /** node-local addresses (addrtype LOCAL); ipvs mode adds the kube-ipvs0 addresses */
  localIPs: readonly string[];
  /** ipsets referenced by `-m set` (ipvs mode) */
  ipsets?: ReadonlyMap<string, IpsetSpec>;
  /** user chains the nat walk starts with (default: PREROUTING's rules if present, else KUBE-SERVICES) */
  natEntry?: readonly string[];
  /** filter chains tried for packets nat did not claim */
  filterEntry?: readonly string[];
  mode?: Program['mode'];
}

export interface CompiledIptables {
  builder: ProgramBuilder;
  warnings: string[];
}

const NEVER_MATCH_DST = 0x00000001; // with mask 0 and F_DST: (dst & 0) === 1 never holds

interface ParsedRule {
  table: string;
  chain: string;
  args: string[];
  line: number;
}

/** Splits an iptables rule line into words, honouring "double quotes". */
export function splitArgs(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inQ = false;
  let has = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (inQ) {
      if (c === '\\' && i + 1 < line.length) {
        cur += line[++i];
        continue;
      }
      if (c === '"') {
        inQ = false;
        continue;
      }
      cur += c;
    } else if (c === '"') {
      inQ = true;
      has = true;
    } else if (c === ' ' || c === '\t') {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has || cur) out.push(cur);
  return out;
}

function parseRestore(
  text: string,
  source: string,
): { rules: ParsedRule[]; chains: Map<string, Set<string>> } {
  const rules: ParsedRule[] = [];
  const chains = new Map<string, Set<string>>();
  let table = '';
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n].trim();
    if (!line || line.startsWith('#')) continue;
    if (line.startsWith('*')) {
      table = line.slice(1);
      if (!chains.has(table)) chains.set(table, new Set());
      continue;
    }
    if (line === 'COMMIT') {
      table = '';
      continue;
    }
    if (!table) throw new Error(`${source}:${n + 1}: rule outside a table: "${line.slice(0, 80)}"`);
    if (line.startsWith(':')) {
      chains.get(table)!.add(line.slice(1).split(' ')[0]);
      continue;
    }
    const a = splitArgs(line);
    if (a[0] === '-X') {
      chains.get(table)!.delete(a[1]);
      continue;
    }
    if (a[0] !== '-A' || a.length < 2)
      throw new Error(`${source}:${n + 1}: expected "-A CHAIN …", got "${line.slice(0, 80)}"`);
    rules.push({ table, chain: a[1], args: a.slice(2), line: n + 1 });
  }
  return { rules, chains };
}

const BUILTIN_TARGETS = new Set([
  'RETURN',
  'ACCEPT',
  'DROP',
  'REJECT',
  'DNAT',
  'MARK',
  'MASQUERADE',
  'SNAT',
  'LOG',
  'CONNMARK',
]);

/**
 * Compiles the restore text into a ProgramBuilder (so the ipvs compiler can add its virtual
 * servers before building). Throws on syntax it does not know, naming the line.
 */
export function compileIptablesInto(
  text: string,
  opts: IptablesCompileOptions,
  source = 'iptables-restore input',
): CompiledIptables {
  const b = new ProgramBuilder(opts.mode ?? 'iptables');
  const warnings: string[] = [];
  const { rules, chains } = parseRestore(text, source);
  const cid = (table: string, chain: string) => b.chain(`${table}:${chain}`);
  const setTables = new Map<string, { id: number; type: string }>();
  const setTable = (name: string, where: string) => {
    let t = setTables.get(name);
    if (!t) {
      const spec = opts.ipsets?.get(name);
      if (!spec) throw new Error(`${where}: -m set refers to ipset "${name}", which was not given`);
      const id = b.table(1);
      for (const e of spec.entries) {
        const [ka, kb] = ipsetKey(spec.type, e, name);
        b.tablePut(id, ka, kb, 1, 0);
      }
      t = { id, type: spec.type };
      setTables.set(name, t);
    }
    return t;
  };
  // local addresses
  b.meta.localTable = b.table(2);
  for (const ip of opts.localIPs) b.tablePut(b.meta.localTable, ipToU32(ip) | 0, 0, 1, 0);

  for (const pr of rules) {
    const where = `${source}:${pr.line}`;
    const chain = cid(pr.table, pr.chain);
    const r = ProgramBuilder.emptyRule();
    let f = 0;
    let neg = false;
    let mod = '';
    let never = false;
    let verdict = -1;
    let arg = 0;
    const a = pr.args;
    const take = (i: number) => {
      if (i >= a.length) throw new Error(`${where}: option ${a[i - 1]} needs a value`);
      return a[i];
    };
    for (let i = 0; i < a.length; i++) {
      const w = a[i];
      if (w === '!') {
        neg = true;
        continue;
      }
      switch (w) {
        case '-s':
        case '--source':
        case '-d':
        case '--destination': {
          const [ip, mask] = parseCidr4(take(++i));
          if (w === '-s' || w === '--source') {
            f |= F_SRC | (neg ? F_SRC_NEG : 0);
            r[R_SRC] = ip | 0;
            r[R_SRC_MASK] = mask | 0;
          } else {
            f |= F_DST | (neg ? F_DST_NEG : 0);
            r[R_DST] = ip | 0;
            r[R_DST_MASK] = mask | 0;
          }
          break;
        }
        case '-p':
        case '--protocol': {
          const p = PROTO_NUM[take(++i).toLowerCase()];
          if (p === undefined) throw new Error(`${where}: unknown protocol "${a[i]}"`);
          f |= F_PROTO;
          r[R_PROTO] = p;
          break;
        }
        case '-i':
        case '-o':
        case '--in-interface':
        case '--out-interface':
          i++;
          never = true;
          warnings.push(`${where}: interface match ${w} ${a[i]} is not modeled (rule never matches)`);
          break;
        case '-m':
          mod = take(++i);
          break;
        case '--comment':
          i++;
          break;
        case '--dport':
          f |= F_DPORT;
          r[R_DPORT] = Number(take(++i));
          break;
        case '--dst-type':
        case '--src-type': {
          const t = take(++i);
          if (t !== 'LOCAL') {
            never = true;
            warnings.push(`${where}: addrtype ${t} is not modeled (rule never matches)`);
            break;
          }
          f |=
            w === '--dst-type'
              ? F_DST_LOCAL | (neg ? F_DST_LOCAL_NEG : 0)
              : F_SRC_LOCAL | (neg ? F_SRC_LOCAL_NEG : 0);
          break;
        }
        case '--mode':
          if (take(++i) !== 'random') throw new Error(`${where}: statistic mode "${a[i]}" is not supported`);
          break;
        case '--probability': {
          const p = Number(take(++i));
          if (!(p >= 0 && p <= 1)) throw new Error(`${where}: bad --probability "${a[i]}"`);
          f |= F_STAT;
          r[R_STAT] = Math.round(0x80000000 * p) | 0;
          break;
        }
        case '--name': {
          const set = b.dynamicSet(`recent:${take(++i)}`);
          r[R_SET] = set;
          break;
        }
        case '--mask':
        case '--seconds':
        case '--hitcount':
          i++;
          break;
        case '--reap':
        case '--rsource':
        case '--random-fully':
        case '--random':
          break;
        case '--rcheck':
        case '--update':
          f |= F_SET | F_SET_DYNAMIC | (neg ? F_SET_NEG : 0);
          break;
        case '--set':
          if (mod === 'recent') {
            f |= F_ADD_SRC;
            break;
          }
          throw new Error(`${where}: --set outside -m recent`);
        case '--match-set': {
          const name = take(++i);
          const flags = take(++i);
          const t = setTable(name, where);
          let sel = -1;
          if (flags === 'dst,dst' && t.type === 'hash:ip,port') sel = K_DADDR_PROTO_DPORT;
          else if (flags === 'src,dst' && t.type === 'hash:ip,port') sel = K_SADDR_PROTO_DPORT;
          else if (flags === 'dst' && t.type === 'bitmap:port') sel = K_DPORT;
          else if (flags === 'dst' && t.type === 'hash:ip') sel = K_DADDR;
          if (sel < 0) {
            never = true;
            warnings.push(
              `${where}: set match ${name} ${flags} (${t.type}) is not modeled (rule never matches)`,
            );
            break;
          }
          f |= F_SET | (neg ? F_SET_NEG : 0);
          r[R_SET] = t.id;
          r[R_SET_MODE] = sel;
          break;
        }
        case '--ctstate': {
          const states = take(++i).split(',');
          if (states.includes('NEW') === neg) never = true; // classified packets open new connections
          break;
        }
        case '--mark':
        case '--physdev-is-in':
        case '--physdev-is-bridged':
        case '--vaddr':
        case '--vproto':
        case '--vport':
        case '--vdir':
        case '--nfacct-name':
          if (w === '--nfacct-name') {
            i++;
            break;
          }
          if (w === '--physdev-is-in' && neg) break; // traffic from off the node did not come through a bridge
          if (w !== '--physdev-is-in' && w !== '--physdev-is-bridged') i++;
          never = true;
          warnings.push(`${where}: ${mod} match ${w} is not modeled (rule never matches)`);
          break;
        case '-j':
        case '-g': {
          const t = take(++i);
          if (BUILTIN_TARGETS.has(t)) {
            verdict =
              t === 'RETURN'
                ? V_RETURN
                : t === 'ACCEPT'
                  ? V_ACCEPT
                  : t === 'DROP'
                    ? V_DROP
                    : t === 'REJECT'
                      ? V_REJECT
                      : t === 'DNAT'
                        ? V_DNAT
                        : V_CONTINUE;
          } else {
            if (!chains.get(pr.table)?.has(t))
              throw new Error(`${where}: jump to chain "${t}" which table ${pr.table} does not declare`);
            verdict = w === '-g' ? V_GOTO : V_JUMP;
            arg = cid(pr.table, t);
          }
          break;
        }
        case '--to-destination':
          arg = b.endpoint(take(++i));
          break;
        case '--or-mark':
        case '--xor-mark':
        case '--set-xmark':
        case '--set-mark':
        case '--reject-with':
        case '--to-source':
          i++;
          break;
        default:
          throw new Error(`${where}: unsupported iptables option "${w}"`);
      }
      neg = false;
    }
    if (verdict < 0) verdict = V_CONTINUE; // no target: a counting rule
    if (never) {
      f |= F_DST;
      f &= ~F_DST_NEG;
      r[R_DST] = NEVER_MATCH_DST;
      r[R_DST_MASK] = 0;
    }
    r[R_FLAGS] = f;
    r[R_VERDICT] = verdict;
    r[R_ARG] = arg;
    b.addRule(chain, r);
  }

  const entry = (table: string, name: string, list: readonly string[] | undefined, dflt: string[]) => {
    const want = (list ?? dflt).filter((c) => chains.get(table)?.has(c));
    if (want.length === 0) return -1;
    const e = b.chain(`${table}:<${name}>`);
    for (const c of want) {
      const r = ProgramBuilder.emptyRule();
      r[R_VERDICT] = V_JUMP;
      r[R_ARG] = cid(table, c);
      b.addRule(e, r);
    }
    return e;
  };
  b.meta.natEntry = entry('nat', 'PREROUTING', opts.natEntry, ['KUBE-SERVICES']);
  b.meta.filterEntry = entry('filter', 'FORWARD', opts.filterEntry, [
    'KUBE-SERVICES',
    'KUBE-EXTERNAL-SERVICES',
  ]);
  return { builder: b, warnings };
}

/** Compiles kube-proxy iptables-mode restore text into a Program. */
export function compileIptables(
  text: string,
  opts: IptablesCompileOptions,
): Program & { warnings: string[] } {
  const { builder, warnings } = compileIptablesInto(text, opts);
  return Object.assign(builder.build(), { warnings });
}

/** (keyA, keyB) of an ipset entry as the kernels look it up. */
export function ipsetKey(type: string, entry: string, set: string): [number, number] {
  if (type === 'bitmap:port') return [0, Number(entry)];
  if (type === 'hash:ip') return [ipToU32(entry) | 0, 0];
  const m = /^([\d.]+),(tcp|udp|sctp):(\d+)(,.*)?$/.exec(entry);
  if (!m) throw new Error(`ipset ${set}: entry "${entry}" is not ip,proto:port`);
  return [ipToU32(m[1]) | 0, (PROTO_NUM[m[2]] << 16) | Number(m[3])];
}

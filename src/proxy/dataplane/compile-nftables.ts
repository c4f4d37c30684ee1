/**
 * Compiles kube-proxy's nftables table into a dataplane Program. `NftTable` replays `nft -f`
 * transactions (add/flush/delete of chains, rules, sets, maps and elements) the way the kernel
 * applies them, so a full sync followed by partial syncs yields the table the kernel would hold;
 * `compileNftables()` then turns that table into typed arrays.
 *
 * The lookup structure is nftables': `ip daddr . meta l4proto . th dport vmap @service-ips` is
 * one rule and ONE hash lookup whatever the number of services; `numgen random mod N vmap`
 * picks the endpoint chain with one draw (reciprocal_scale(prandom, N) as nft_ng_random does).
 *
 * Rules are recognised by the forms kube-proxy writes (see the RULE_FORMS below); a rule of any
 * other form is compiled as a no-op and reported in `warnings` (kube-proxy writes such rules only
 * in chains the classification never enters: masquerading, mark-for-masquerade, firewall chains).
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
  R_SET,
  R_SET_MODE,
  R_VERDICT,
  R_ARG,
  R_ARG2,
  F_DST,
  F_DST_NEG,
  F_SRC,
  F_SRC_NEG,
  F_PROTO,
  F_DST_LOCAL,
  F_SRC_LOCAL,
  F_SET,
  F_SET_DYNAMIC,
  F_ADD_SRC,
  K_DADDR_PROTO_DPORT,
  K_PROTO_DPORT,
  K_DADDR,
  K_SADDR,
  V_CONTINUE,
  V_JUMP,
  V_GOTO,
  V_RETURN,
  V_DNAT,
  V_ACCEPT,
  V_DROP,
  V_REJECT,
  V_VMAP,
  V_NUMGEN,
  PROTO_NUM,
  ipToU32,
  parseCidr4,
} from './program.js';

/** The kernel-side state of one nftables table, built by replaying transactions. */
export class NftTable {
  readonly chains = new Map<string, string[]>();
  /** set/map name → (element key → value, "" for sets) */
  readonly sets = new Map<string, Map<string, string>>();
  readonly setKinds = new Map<string, 'set' | 'map'>();

  constructor(
    readonly family = 'ip',
    readonly table = 'kube-proxy',
  ) {}

  /** Applies one `nft -f` script. Throws (naming the line) on a command it does not understand. */
  apply(script: string, source = 'nft script'): void {
    const prefix = `${this.family} ${this.table} `;
    const lines = script.split('\n');
    for (let n = 0; n < lines.length; n++) {
      const line = lines[n];
      if (!line || line.startsWith('#')) continue;
      const where = `${source}:${n + 1}`;
      const m = /^(add|flush|delete) (table|chain|rule|set|map|element) (.*)$/.exec(line);
      if (!m) throw new Error(`${where}: unknown nft command "${line.slice(0, 80)}"`);
      const [, verb, obj, rest0] = m;
      if (obj === 'table') continue;
      if (!rest0.startsWith(prefix)) throw new Error(`${where}: expected "${prefix}…"`);
      const rest = rest0.slice(prefix.length);
      const sp = rest.indexOf(' ');
      const name = sp < 0 ? rest : rest.slice(0, sp);
      const tail = sp < 0 ? '' : rest.slice(sp + 1);
      switch (obj) {
        case 'chain':
          if (verb === 'add') {
            if (!this.chains.has(name)) this.chains.set(name, []);
          } else if (verb === 'flush') this.need(this.chains, name, where).length = 0;
          else {
            this.need(this.chains, name, where);
            this.chains.delete(name);
          }
          break;
        case 'rule':
          if (verb !== 'add') throw new Error(`${where}: only "add rule" is supported`);
          this.need(this.chains, name, where).push(tail);
          break;
        case 'set':
        case 'map':
          if (verb === 'add') {
            if (!this.sets.has(name)) {
              this.sets.set(name, new Map());
              this.setKinds.set(name, obj);
            }
          } else if (verb === 'flush') this.need(this.sets, name, where).clear();
          else {
            this.need(this.sets, name, where);
            this.sets.delete(name);
          }
          break;
        case 'element': {
          const em = /^\{ (.*?)(?: comment "(?:[^"\\]|\\.)*")?(?: : (.*))? \}$/.exec(tail);
          if (!em) throw new Error(`${where}: cannot parse element "${tail.slice(0, 80)}"`);
          const set = this.need(this.sets, name, where);
          if (verb === 'add') set.set(em[1], em[2] ?? '');
          else if (verb === 'delete') {
            if (!set.delete(em[1])) throw new Error(`${where}: element ${em[1]} is not in ${name}`);
          } else throw new Error(`${where}: "${verb} element" is not supported`);
          break;
        }
      }
    }
  }

  private need<T>(m: Map<string, T>, name: string, where: string): T {
    const v = m.get(name);
    if (v === undefined) throw new Error(`${where}: "${name}" does not exist`);
    return v;
  }
}

export interface NftCompileOptions {
  /** node-local addresses (`fib daddr type local`) */
  localIPs: readonly string[];
  /** base chain the nat walk starts in (default nat-prerouting) */
  natEntry?: string;
  /** base chain tried for packets nat did not claim (default filter-forward) */
  filterEntry?: string;
}

function elementKey(key: string, where: string): [number, number] {
  const parts = key.split(' . ');
  if (parts.length === 3)
    return [ipToU32(parts[0]) | 0, ((PROTO_NUM[parts[1]] ?? -1) << 16) | Number(parts[2])];
  if (parts.length === 2) return [0, ((PROTO_NUM[parts[0]] ?? -1) << 16) | Number(parts[1])];
  if (parts.length === 1) return [ipToU32(parts[0]) | 0, 0];
  throw new Error(`${where}: element key "${key}" is not ip, proto . port or ip . proto . port`);
}

/** Compiles the table into a Program. */
export function compileNftables(t: NftTable, opts: NftCompileOptions): Program & { warnings: string[] } {
  const b = new ProgramBuilder('nftables');
  const warnings: string[] = [];
  const chainId = (name: string, where: string) => {
    if (!t.chains.has(name)) throw new Error(`${where}: reference to chain "${name}", which does not exist`);
    return b.chain(name);
  };
  const staticSets = new Map<string, number>();
  const staticSet = (name: string, where: string): number => {
    let id = staticSets.get(name);
    if (id === undefined) {
      const elems = t.sets.get(name);
      if (!elems) throw new Error(`${where}: reference to set/map "${name}", which does not exist`);
      id = b.table(t.setKinds.get(name) === 'map' ? 0 : 1);
      staticSets.set(name, id);
      for (const [k, v] of elems) {
        const [ka, kb] = elementKey(k, `${name} element "${k}"`);
        if (t.setKinds.get(name) === 'set') {
          b.tablePut(id, ka, kb, 1, 0);
          continue;
        }
        let verdict: number,
          arg = 0;
        if (v === 'drop') verdict = V_DROP;
        else if (v === 'reject') verdict = V_REJECT;
        else if (v === 'accept') verdict = V_ACCEPT;
        else if (v.startsWith('goto ')) {
          verdict = V_GOTO;
          arg = chainId(v.slice(5), `${name} element "${k}"`);
        } else if (v.startsWith('jump ')) {
          verdict = V_JUMP;
          arg = chainId(v.slice(5), `${name} element "${k}"`);
        } else throw new Error(`${name} element "${k}": verdict "${v}" is not supported`);
        b.tablePut(id, ka, kb, verdict, arg);
      }
    }
    return id;
  };
  const isDynamic = (name: string) => name.startsWith('affinity-');

  b.meta.localTable = b.table(2);
  for (const ip of opts.localIPs) b.tablePut(b.meta.localTable, ipToU32(ip) | 0, 0, 1, 0);

  // chains in a stable order: as they appear in the table
  for (const [chain, rules] of t.chains) {
    const c = b.chain(chain);
    rules.forEach((text, idx) => {
      const where = `chain ${chain} rule ${idx + 1}`;
      b.addRule(c, compileRule(text.replace(/ comment "(?:[^"\\]|\\.)*"$/, ''), where));
    });
  }

  function compileRule(text: string, where: string): number[] {
    const r = ProgramBuilder.emptyRule();
    let f = 0;
    let s = text;
    let known = true;
    const eat = (re: RegExp): RegExpExecArray | null => {
      const m = re.exec(s);
      if (m) s = s.slice(m[0].length).trimStart();
      return m;
    };
    for (;;) {
      let m: RegExpExecArray | null;
      if (eat(/^ct state new\b/)) continue;
      if (eat(/^fib daddr type local\b/)) {
        f |= F_DST_LOCAL;
        continue;
      }
      if (eat(/^fib saddr type local\b/)) {
        f |= F_SRC_LOCAL;
        continue;
      }
      if ((m = eat(/^ip (daddr|saddr) (!= )?@(\S+)/))) {
        const name = m[3];
        const neg = !!m[2];
        if (neg) {
          known = false;
          break;
        }
        f |= F_SET;
        if (isDynamic(name)) {
          f |= F_SET_DYNAMIC;
          r[R_SET] = b.dynamicSet(name);
        } else {
          r[R_SET] = staticSet(name, where);
          r[R_SET_MODE] = m[1] === 'daddr' ? K_DADDR : K_SADDR;
        }
        continue;
      }
      if (
        (m = eat(/^ip (daddr|saddr) (!= )?\{ (\d+\.\d+\.\d+\.\d+(?:\/\d+)?) \}/)) ||
        (m = eat(/^ip (daddr|saddr) (!= )?(\d+\.\d+\.\d+\.\d+(?:\/\d+)?)(?=\s|$)/))
      ) {
        const [ip, mask] = parseCidr4(m[3]);
        if (m[1] === 'daddr') {
          f |= F_DST | (m[2] ? F_DST_NEG : 0);
          r[R_DST] = ip | 0;
          r[R_DST_MASK] = mask | 0;
        } else {
          f |= F_SRC | (m[2] ? F_SRC_NEG : 0);
          r[R_SRC] = ip | 0;
          r[R_SRC_MASK] = mask | 0;
        }
        continue;
      }
      if ((m = eat(/^meta l4proto (tcp|udp|sctp)\b/))) {
        f |= F_PROTO;
        r[R_PROTO] = PROTO_NUM[m[1]];
        continue;
      }
      break;
    }
    // the statement
    let m: RegExpExecArray | null;
    if (!known) {
      /* fall through to no-op */
    } else if ((m = /^(?:ip daddr \. )?meta l4proto \. th dport vmap @(\S+)$/.exec(s))) {
      r[R_VERDICT] = V_VMAP;
      r[R_ARG] = staticSet(m[1], where);
      r[R_ARG2] = s.startsWith('ip daddr') ? K_DADDR_PROTO_DPORT : K_PROTO_DPORT;
      r[R_FLAGS] = f;
      return r;
    } else if ((m = /^numgen random mod (\d+) vmap \{ (.*) \}$/.exec(s))) {
      const n = Number(m[1]);
      const targets = m[2].split(' , ').map((e) => {
        const em = /^(\d+) : goto (\S+)$/.exec(e);
        if (!em) throw new Error(`${where}: numgen element "${e}" is not "i : goto chain"`);
        return [Number(em[1]), chainId(em[2], where)] as const;
      });
      if (targets.length !== n || targets.some(([i], k) => i !== k))
        throw new Error(`${where}: numgen mod ${n} needs elements 0..${n - 1} in order`);
      r[R_VERDICT] = V_NUMGEN;
      r[R_ARG] = b.list(targets.map(([, c]) => c));
      r[R_ARG2] = n;
      r[R_FLAGS] = f;
      return r;
    } else if ((m = /^(jump|goto) (\S+)$/.exec(s))) {
      r[R_VERDICT] = m[1] === 'jump' ? V_JUMP : V_GOTO;
      r[R_ARG] = chainId(m[2], where);
      r[R_FLAGS] = f;
      return r;
    } else if ((m = /^dnat to ([\d.]+:\d+)$/.exec(s))) {
      r[R_VERDICT] = V_DNAT;
      r[R_ARG] = b.endpoint(m[1]);
      r[R_FLAGS] = f;
      return r;
    } else if ((m = /^update @(\S+) \{ ip saddr \}$/.exec(s))) {
      r[R_SET] = b.dynamicSet(m[1]);
      r[R_FLAGS] = f | F_ADD_SRC;
      r[R_VERDICT] = V_CONTINUE;
      return r;
    } else if (s === 'reject' || s === 'drop' || s === 'accept' || s === 'return') {
      r[R_VERDICT] = s === 'reject' ? V_REJECT : s === 'drop' ? V_DROP : s === 'accept' ? V_ACCEPT : V_RETURN;
      r[R_FLAGS] = f;
      return r;
    }
    warnings.push(`${where}: "${text}" is not modeled (no-op)`);
    const nop = ProgramBuilder.emptyRule();
    nop[R_VERDICT] = V_CONTINUE;
    return nop;
  }

  const entry = (name: string) => (t.chains.has(name) ? b.chain(name) : -1);
  b.meta.natEntry = entry(opts.natEntry ?? 'nat-prerouting');
  b.meta.filterEntry = entry(opts.filterEntry ?? 'filter-forward');
  return Object.assign(b.build(), { warnings });
}

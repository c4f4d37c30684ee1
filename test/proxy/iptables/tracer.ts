// A packet tracer over iptables-restore text, following kube-proxy's own test tracer
// (proxier_test.go iptablesTracer/tracePacket): walks nat KUBE-SERVICES (what PREROUTING jumps
// to), follows jumps, treats --probability rules as "may match" (so every endpoint of a
// service is reported), records KUBE-MARK-MASQ, stops at DNAT/ACCEPT/DROP/REJECT; then, with
// the DNATed destination, walks filter KUBE-SERVICES, KUBE-EXTERNAL-SERVICES, KUBE-NODEPORTS
// and KUBE-PROXY-FIREWALL. Rules checking state (--rcheck, --mark, --ctstate) never match.
import { parseIptablesDump } from '../../../src/proxy/renderers/iptables/normalize.js';
import { cidrContains, parseCidr, canonicalIP } from '../../../src/proxy/model/index.js';

interface Value {
  neg: boolean;
  v: string;
}
interface Rule {
  raw: string;
  src?: Value;
  srcType?: Value;
  proto?: Value;
  dst?: Value;
  dstType?: Value;
  dport?: Value;
  jump?: string;
  probability?: string;
  dnat?: string;
  stateful: boolean;
}

const WORD = /(?:^|\s)("[^"]*"|[^"]\S*)/g;
const PARAMS: Record<string, keyof Rule> = {
  '-s': 'src',
  '--src-type': 'srcType',
  '-p': 'proto',
  '-d': 'dst',
  '--dst-type': 'dstType',
  '--dport': 'dport',
};

function parseRule(raw: string): Rule {
  const w: string[] = [];
  for (const m of raw.matchAll(WORD)) w.push(m[1].replace(/^"|"$/g, ''));
  const r: Rule = { raw, stateful: false };
  let neg = false;
  for (let i = 0; i < w.length; ) {
    if (w[i] === '-m' && i < w.length - 1) {
      i += 2;
      continue;
    }
    if (w[i] === '!') {
      neg = true;
      i++;
      continue;
    }
    const p = PARAMS[w[i]];
    if (p) {
      (r as unknown as Record<string, Value>)[p] = { neg, v: w[i + 1] };
      i += 2;
    } else if (w[i] === '-j') {
      r.jump = w[i + 1];
      i += 2;
    } else if (w[i] === '--probability') {
      r.probability = w[i + 1];
      i += 2;
    } else if (w[i] === '--to-destination') {
      r.dnat = w[i + 1];
      i += 2;
    } else if (w[i] === '--rcheck' || w[i] === '--mark' || w[i] === '--ctstate') {
      r.stateful = true;
      i += w[i] === '--rcheck' ? 1 : 2;
    } else i++;
    neg = false;
  }
  return r;
}

function addressMatches(v: Value, ip: string): boolean {
  const c = v.v.includes('/') ? parseCidr(v.v) : parseCidr(v.v + (v.v.includes(':') ? '/128' : '/32'));
  if (!c) throw new Error(`bad address in rule: ${v.v}`);
  const m = cidrContains(c, ip);
  return v.neg ? !m : m;
}

const matches = (v: Value, s: string) => (v.neg ? v.v !== s : v.v === s);

export interface TraceResult {
  output: string;
  masq: boolean;
  matched: string[];
}

export function tracePacket(
  rules: string,
  sourceIP: string,
  protocol: string,
  destIP: string,
  destPort: number,
  nodeIPs: string[],
): TraceResult {
  const tables = new Map<string, Map<string, Rule[]>>();
  for (const t of parseIptablesDump(rules)) {
    tables.set(t.name, new Map(t.chains.map((c) => [c.name, c.rules.map(parseRule)])));
  }
  const local = new Set(['127.0.0.1', '::1', ...nodeIPs.map((x) => canonicalIP(x)!)]);
  const outputs: string[] = [];
  const matched: string[] = [];
  let masq = false;

  const ruleMatches = (r: Rule, dst: string): boolean => {
    if (r.src && !addressMatches(r.src, sourceIP)) return false;
    if (r.srcType && !matches(r.srcType, local.has(sourceIP) ? 'LOCAL' : 'not-matched')) return false;
    if (r.proto && !matches(r.proto, protocol)) return false;
    if (r.dst && !addressMatches(r.dst, dst)) return false;
    if (r.dstType && !matches(r.dstType, local.has(dst) ? 'LOCAL' : 'not-matched')) return false;
    if (r.dport && !matches(r.dport, String(destPort))) return false;
    if (r.stateful) return false;
    return true;
  };

  const runChain = (table: string, chain: string, dst: string): boolean => {
    const rs = tables.get(table)?.get(chain);
    if (!rs) return false;
    for (const r of rs) {
      if (!r.jump) continue;
      if (!ruleMatches(r, dst)) continue;
      matched.push(r.raw);
      switch (r.jump) {
        case 'KUBE-MARK-MASQ':
          masq = true;
          continue;
        case 'ACCEPT':
        case 'REJECT':
        case 'DROP':
          outputs.push(r.jump);
          return true;
        case 'DNAT':
          outputs.push(r.dnat!);
          return true;
        default: {
          const terminated = runChain(table, r.jump, dst);
          if (terminated && r.probability === undefined) return true;
        }
      }
    }
    return false;
  };

  runChain('nat', 'KUBE-SERVICES', destIP);
  let dst = destIP;
  if (outputs.length) {
    const o = outputs[0];
    dst = o.startsWith('[') ? o.slice(1, o.indexOf(']')) : o.split(':')[0];
  }
  for (const c of ['KUBE-SERVICES', 'KUBE-EXTERNAL-SERVICES', 'KUBE-NODEPORTS', 'KUBE-PROXY-FIREWALL'])
    runChain('filter', c, dst);
  return { output: outputs.join(', '), masq, matched };
}

/**
 * Compiles kube-proxy's ipvs-mode output into a dataplane Program: the iptables rules it keeps
 * (walked rule by rule, with `-m set` matches as hash lookups into the ipsets), then the IPVS
 * virtual-service table (one hash lookup on (VIP, protocol, port)) and the scheduler.
 *
 *   ipvsadm   `-A -t|-u|--sctp-service VIP:PORT -s SCHED [-b FLAGS] [-p TIMEOUT]`,
 *             `-a … -r RIP:RPORT -m -w W` (the `ipvsadm -S -n` format)
 *   ipsets    name → { type, entries } (from the ipvs renderer's state or `ipset restore` text)
 *
 * Schedulers: rr (cursor per virtual service), wlc (least connections; every classified packet
 * opens one connection that stays open), sh (bucket = hash_32(saddr) over 256 buckets, dest =
 * bucket mod n, as ip_vs_sh with weight 1); others compile as rr. Persistence (-p): the first
 * choice for a client IP is remembered per virtual service (timeouts are not modeled).
 */
import { compileIptablesInto, type IpsetSpec } from './compile-iptables.js';
import { type Program, SCHED_RR, SCHED_SH, SCHED_WLC, PROTO_NUM, ipToU32 } from './program.js';

export interface IpvsCompileInput {
  ipvsadm: string;
  iptables: string;
  ipsets: ReadonlyMap<string, IpsetSpec>;
  /** node IPs plus the addresses bound to kube-ipvs0 (all are LOCAL to the node) */
  localIPs: readonly string[];
}

/** Parses `ipset restore` text into set specs. */
export function parseIpsetRestore(text: string): Map<string, IpsetSpec & { entries: string[] }> {
  const out = new Map<string, IpsetSpec & { entries: string[] }>();
  text.split('\n').forEach((line, n) => {
    if (!line || line.startsWith('#')) return;
    const w = line.split(' ');
    if (w[0] === 'create') out.set(w[1], { type: w[2], entries: [] });
    else if (w[0] === 'add') {
      const s = out.get(w[1]);
      if (!s) throw new Error(`ipset restore input:${n + 1}: add to set "${w[1]}" before its create`);
      s.entries.push(w[2]);
    } else throw new Error(`ipset restore input:${n + 1}: unknown command "${w[0]}"`);
  });
  return out;
}

const PROTO_FLAG: Record<string, string> = { '-t': 'tcp', '-u': 'udp', '--sctp-service': 'sctp' };

export function compileIpvs(input: IpvsCompileInput): Program & { warnings: string[] } {
  const { builder: b, warnings } = compileIptablesInto(
    input.iptables,
    {
      localIPs: input.localIPs,
      ipsets: input.ipsets,
      mode: 'ipvs',
      natEntry: ['KUBE-SERVICES'],
      filterEntry: ['KUBE-IPVS-FILTER'],
    },
    'ipvs iptables-restore input',
  );
  const vss = new Map<string, { sched: number; persistent: boolean; reals: number[] }>();
  const order: string[] = [];
  input.ipvsadm.split('\n').forEach((line, n) => {
    if (!line.trim()) return;
    const where = `ipvsadm -R input:${n + 1}`;
    const w = line.trim().split(/\s+/);
    const proto = PROTO_FLAG[w[1]];
    if (!proto) throw new Error(`${where}: expected -t, -u or --sctp-service, got "${w[1]}"`);
    const key = `${proto} ${w[2]}`;
    if (w[0] === '-A') {
      const si = w.indexOf('-s');
      const sched = si > 0 ? w[si + 1] : 'wlc'; // ipvsadm's default scheduler is wlc
      vss.set(key, {
        sched: sched === 'wlc' ? SCHED_WLC : sched === 'sh' ? SCHED_SH : SCHED_RR,
        persistent: w.includes('-p'),
        reals: [],
      });
      order.push(key);
    } else if (w[0] === '-a') {
      const vs = vss.get(key);
      if (!vs) throw new Error(`${where}: real server for virtual server ${w[2]} before its -A line`);
      const ri = w.indexOf('-r');
      if (ri < 0) throw new Error(`${where}: -a without -r`);
      vs.reals.push(b.endpoint(w[ri + 1]));
    } else throw new Error(`${where}: unsupported ipvsadm command "${w[0]}"`);
  });
  const table = b.table(3);
  for (const key of order) {
    const vs = vss.get(key)!;
    const [proto, addr] = key.split(' ');
    const c = addr.lastIndexOf(':');
    const id = b.virtualServer(vs.reals, vs.sched, vs.persistent);
    b.tablePut(
      table,
      ipToU32(addr.slice(0, c)) | 0,
      (PROTO_NUM[proto] << 16) | Number(addr.slice(c + 1)),
      1,
      id,
    );
  }
  b.meta.ipvsTable = table;
  return Object.assign(b.build(), { warnings });
}

/**
 * kube-proxy's ipvs mode (kubernetes/kubernetes pkg/proxy/ipvs/proxier.go) as a renderer. One
 * `sync()` computes what kube-proxy's syncProxyRules computes and returns it in the forms the real
 * tools read:
 *
 *   ipvs        `ipvsadm -R` input — the same lines `ipvsadm -S -n` prints:
 *                 -A -t 10.96.0.10:80 -s rr [-p 10800]
 *                 -a -t 10.96.0.10:80 -r 100.64.0.2:8080 -m -w 1
 *   ipset       `ipset restore` input for kube-proxy's sets (KUBE-CLUSTER-IP hash:ip,port, …)
 *   iptables    the small `iptables-restore --noflush` input ipvs mode still writes (KUBE-SERVICES
 *               matching the sets, KUBE-MARK-MASQ, KUBE-POSTROUTING, KUBE-NODE-PORT, filters)
 *   addresses   the addresses bound to the dummy interface kube-ipvs0 (`ip addr add … dev kube-ipvs0`)
 *
 * and, against the previous sync, the delta kube-proxy applies through netlink: virtual servers
 * added/edited/deleted, real servers added/deleted, ipset entries added/deleted, addresses
 * bound/unbound. An endpoint change touches O(1) real servers per virtual server of its service
 * (ClusterIP, each external IP, each LB IP, each node IP for NodePorts); the iptables part is
 * rewritten whole on every sync but does not grow with the number of services.
 *
 * Simplifications (see docs/proxy-ipvs-nftables.md): real servers are deleted at once (kube-proxy
 * first sets weight 0 and deletes them after connections drain, graceful_termination.go);
 * service ports are visited in sorted order (kube-proxy walks a Go map).
 */
import type {
  Cidr,
  EndpointInfo,
  EndpointsMap,
  ProxyNode,
  ServicePortInfo,
  ServicePortMap,
} from '../../model/index.js';
import { categorizeEndpoints, cidrContains, parseCidr } from '../../model/index.js';
import { IPSET_INFO, IPSET_WITH_IPTABLES_CHAIN, ipsetCreateLine, type IPSetName } from './ipsets.js';

export const DUMMY_DEVICE = 'kube-ipvs0';

export type IpvsScheduler = 'rr' | 'wrr' | 'lc' | 'wlc' | 'sh' | 'dh' | 'sed' | 'nq' | 'mh';
const SCHEDULERS: readonly string[] = ['rr', 'wrr', 'lc', 'wlc', 'sh', 'dh', 'sed', 'nq', 'mh'];

export interface IpvsOptions {
  /** --ipvs-scheduler (default rr) */
  scheduler?: IpvsScheduler;
  /** --masquerade-all */
  masqueradeAll?: boolean;
  /** --iptables-masquerade-bit (default 14 → 0x00004000) */
  masqueradeBit?: number;
  /** the mark as written; default Go's `%#08x` of 1<<masqueradeBit ("0x00004000"); upstream unit tests use "0x4000" */
  masqueradeMark?: string;
  /** pod CIDR for the local-traffic detector (--cluster-cidr) */
  clusterCIDR?: string;
  /**
   * node IPs NodePort virtual servers are created on (kube-proxy: every local address except
   * kube-ipvs0's, or those matching --nodeport-addresses). Default: the node's IPv4 address.
   */
  nodeIPs?: readonly string[];
}

/** One IPVS virtual server and its real servers. */
export interface VirtualServer {
  protocol: 'TCP' | 'UDP' | 'SCTP';
  address: string;
  port: number;
  scheduler: string;
  /** persistence timeout in seconds (ClientIP affinity), 0 = none */
  persistent: number;
  /** "ip:port" of each real server, in endpoint order; weight is always 1 */
  reals: string[];
  /** which service port it belongs to (ServicePortInfo.key) */
  servicePort: string;
}

/** The desired state after one sync. */
export interface IpvsState {
  /** keyed "TCP/10.96.0.10:80" */
  virtualServers: Map<string, VirtualServer>;
  /** set name → entries, in insertion order */
  ipsets: Map<IPSetName, Set<string>>;
  /** addresses bound to kube-ipvs0 */
  boundAddresses: Set<string>;
}

export interface IpvsDelta {
  /** `ipvsadm -R` lines: -A/-E/-D virtual servers, -a/-d real servers */
  ipvsadm: string[];
  /** `ipset restore` lines: add/del */
  ipset: string[];
  /** `ip addr add|del … dev kube-ipvs0` lines */
  addresses: string[];
}

export interface IpvsSyncResult {
  /** full `ipvsadm -R` input for the desired state */
  ipvsadm: string;
  /** full `ipset restore` input (create + add) */
  ipset: string;
  /** full `iptables-restore --noflush` input (rewritten by kube-proxy on every sync) */
  iptables: string;
  /** `ip link add kube-ipvs0 type dummy` + one `ip addr add` per bound address */
  addresses: string;
  /** what changed since the previous sync (everything, for the first sync) */
  delta: IpvsDelta;
  stats: IpvsStats;
  state: IpvsState;
}

export interface IpvsStats {
  virtualServers: number;
  realServers: number;
  ipsetEntries: number;
  iptablesRules: number;
  boundAddresses: number;
  /** bytes of the four full outputs */
  bytes: { ipvsadm: number; ipset: number; iptables: number; addresses: number };
  /** operations in the delta, by kind */
  deltaOps: { virtualServers: number; realServers: number; ipsetEntries: number; addresses: number };
  /** bytes kube-proxy writes for this sync: delta commands + the whole iptables input */
  deltaBytes: number;
}

export interface IpvsSyncInput {
  servicePorts: ServicePortMap;
  endpoints: EndpointsMap;
  node: ProxyNode;
}

const protoFlag = (p: VirtualServer['protocol']) =>
  p === 'TCP' ? '-t' : p === 'UDP' ? '-u' : '--sctp-service';

/** "TCP/10.96.0.10:80" */
export function virtualServerKey(protocol: string, address: string, port: number): string {
  return `${protocol}/${address}:${port}`;
}

/** `-A -t 10.96.0.10:80 -s rr [-p 10800]` */
export function virtualServerLine(vs: VirtualServer, verb: '-A' | '-E' = '-A'): string {
  let s = `${verb} ${protoFlag(vs.protocol)} ${vs.address}:${vs.port} -s ${vs.scheduler}`;
  if (vs.scheduler === 'mh') s += ' -b mh-port'; // kube-proxy sets FlagSourceHash (IP_VS_SVC_F_SCHED2) for mh
  if (vs.persistent > 0) s += ` -p ${vs.persistent}`;
  return s;
}

/** `-a -t 10.96.0.10:80 -r 100.64.0.2:8080 -m -w 1` (masquerading, weight 1, as kube-proxy) */
export function realServerLine(vs: VirtualServer, real: string): string {
  return `-a ${protoFlag(vs.protocol)} ${vs.address}:${vs.port} -r ${real} -m -w 1`;
}

export class IpvsProxier {
  private readonly scheduler: string;
  private readonly masqMark: string;
  private readonly localCIDR: Cidr | null;
  private prev: IpvsState | null = null;

  constructor(readonly options: IpvsOptions = {}) {
    this.scheduler = options.scheduler ?? 'rr';
    if (!SCHEDULERS.includes(this.scheduler))
      throw new TypeError(
        `IpvsProxier: options.scheduler "${this.scheduler}" is not an IPVS scheduler (${SCHEDULERS.join(', ')})`,
      );
    const bit = options.masqueradeBit ?? 14;
    if (!Number.isInteger(bit) || bit < 0 || bit > 31)
      throw new TypeError(
        `IpvsProxier: options.masqueradeBit must be an integer in [0,31], got ${String(bit)}`,
      );
    this.masqMark = options.masqueradeMark ?? '0x' + (2 ** bit).toString(16).padStart(8, '0');
    if (options.clusterCIDR !== undefined) {
      const c = parseCidr(options.clusterCIDR);
      if (!c || c.family !== 'IPv4')
        throw new TypeError(`IpvsProxier: options.clusterCIDR "${options.clusterCIDR}" is not an IPv4 CIDR`);
      this.localCIDR = c;
    } else this.localCIDR = null;
  }

  /** The state of the previous sync (null before the first). */
  get lastState(): IpvsState | null {
    return this.prev;
  }

  sync(input: IpvsSyncInput): IpvsSyncResult {
    const state = this.desiredState(input);
    const delta = diffStates(this.prev, state);
    this.prev = state;
    const lbNoNodeAccess = this.lbNoNodeAccess(input);
    const iptables = this.iptablesRules(state, lbNoNodeAccess);

    const ipvsLines: string[] = [];
    let reals = 0;
    for (const vs of state.virtualServers.values()) {
      ipvsLines.push(virtualServerLine(vs));
      for (const r of vs.reals) {
        ipvsLines.push(realServerLine(vs, r));
        reals++;
      }
    }
    const ipsetLines: string[] = [];
    let entries = 0;
    for (const info of IPSET_INFO) {
      ipsetLines.push(`# ${info.comment}`);
      ipsetLines.push(ipsetCreateLine(info));
      for (const e of state.ipsets.get(info.name)!) {
        ipsetLines.push(`add ${info.name} ${e}`);
        entries++;
      }
    }
    const addrLines = [
      `ip link add ${DUMMY_DEVICE} type dummy`,
      ...[...state.boundAddresses].map((a) => `ip addr add ${a}/32 dev ${DUMMY_DEVICE}`),
    ];
    const join = (l: string[]) => (l.length ? l.join('\n') + '\n' : '');
    const ipvsadm = join(ipvsLines),
      ipset = join(ipsetLines),
      addresses = join(addrLines);
    const deltaBytes =
      [...delta.ipvsadm, ...delta.ipset, ...delta.addresses].reduce((n, l) => n + l.length + 1, 0) +
      iptables.length;
    const countOps = (lines: string[], re: RegExp) => lines.filter((l) => re.test(l)).length;
    return {
      ipvsadm,
      ipset,
      iptables,
      addresses,
      delta,
      state,
      stats: {
        virtualServers: state.virtualServers.size,
        realServers: reals,
        ipsetEntries: entries,
        iptablesRules: iptables.split('\n').filter((l) => l.startsWith('-A ')).length,
        boundAddresses: state.boundAddresses.size,
        bytes: {
          ipvsadm: ipvsadm.length,
          ipset: ipset.length,
          iptables: iptables.length,
          addresses: addresses.length,
        },
        deltaOps: {
          virtualServers: countOps(delta.ipvsadm, /^-[AED] /),
          realServers: countOps(delta.ipvsadm, /^-[aed] /),
          ipsetEntries: delta.ipset.length,
          addresses: delta.addresses.length,
        },
        deltaBytes,
      },
    };
  }

  private nodeIPs(node: ProxyNode): string[] {
    if (this.options.nodeIPs) return [...this.options.nodeIPs];
    return node.ips?.IPv4 ? [node.ips.IPv4] : [];
  }

  /** The endpoints a virtual server gets (kube-proxy syncEndpoint). */
  private realServers(
    svc: ServicePortInfo,
    eps: readonly EndpointInfo[] | undefined,
    node: ProxyNode,
    onlyNodeLocal: boolean,
  ): string[] {
    const cat = categorizeEndpoints(eps, svc, node.name, node.topologyLabels);
    const cluster = cat.clusterEndpoints ?? [];
    const local = cat.localEndpoints ?? [];
    const chosen = onlyNodeLocal ? (local.length > 0 ? local : cluster) : cluster;
    return chosen.map((e) => e.endpoint);
  }

  private desiredState(input: IpvsSyncInput): IpvsState {
    const sets = new Map<IPSetName, Set<string>>(IPSET_INFO.map((i) => [i.name, new Set<string>()]));
    const add = (name: IPSetName, entry: string) => sets.get(name)!.add(entry);
    const vss = new Map<string, VirtualServer>();
    const bound = new Set<string>();
    const nodeIPs = this.nodeIPs(input.node);
    const nodeIPSet = new Set(nodeIPs);

    for (const key of [...input.servicePorts.keys()].sort()) {
      const svc = input.servicePorts.get(key)!;
      const eps = input.endpoints.get(key);
      const proto = svc.protocol.toLowerCase();
      const persistent = svc.sessionAffinity === 'ClientIP' ? svc.stickyMaxAgeSeconds : 0;
      const mkVS = (address: string, port: number, onlyLocal: boolean) => {
        const vs: VirtualServer = {
          protocol: svc.protocol,
          address,
          port,
          scheduler: this.scheduler,
          persistent,
          reals: this.realServers(svc, eps, input.node, onlyLocal),
          servicePort: key,
        };
        vss.set(virtualServerKey(svc.protocol, address, port), vs);
      };

      for (const ep of eps ?? [])
        if (ep.isLocal) add('KUBE-LOOP-BACK', `${ep.ip},${proto}:${ep.port},${ep.ip}`);

      add('KUBE-CLUSTER-IP', `${svc.clusterIP},${proto}:${svc.port}`);
      mkVS(svc.clusterIP, svc.port, svc.internalPolicyLocal);
      bound.add(svc.clusterIP);

      for (const ext of svc.externalIPs) {
        add(
          svc.externalPolicyLocal ? 'KUBE-EXTERNAL-IP-LOCAL' : 'KUBE-EXTERNAL-IP',
          `${ext},${proto}:${svc.port}`,
        );
        mkVS(ext, svc.port, svc.externalPolicyLocal);
        if (!nodeIPSet.has(ext)) bound.add(ext);
      }
      for (const lb of svc.loadBalancerVIPs) {
        const entry = `${lb},${proto}:${svc.port}`;
        add('KUBE-LOAD-BALANCER', entry);
        if (svc.externalPolicyLocal) add('KUBE-LOAD-BALANCER-LOCAL', entry);
        if (svc.loadBalancerSourceRanges.length > 0) {
          add('KUBE-LOAD-BALANCER-FW', entry);
          let allowFromNode = false;
          const nodeIP = input.node.ips?.IPv4;
          for (const c of svc.loadBalancerSourceRanges) {
            add('KUBE-LOAD-BALANCER-SOURCE-CIDR', `${lb},${proto}:${svc.port},${c.text}`);
            if (nodeIP && cidrContains(c, nodeIP)) allowFromNode = true;
          }
          if (allowFromNode) add('KUBE-LOAD-BALANCER-SOURCE-IP', `${lb},${proto}:${svc.port},${lb}`);
        }
        mkVS(lb, svc.port, svc.externalPolicyLocal);
        if (!nodeIPSet.has(lb)) bound.add(lb);
      }
      if (svc.nodePort !== 0 && nodeIPs.length > 0) {
        const local = svc.externalPolicyLocal;
        if (svc.protocol === 'SCTP') {
          for (const ip of nodeIPs) {
            add('KUBE-NODE-PORT-SCTP-HASH', `${ip},sctp:${svc.nodePort}`);
            if (local) add('KUBE-NODE-PORT-LOCAL-SCTP-HASH', `${ip},sctp:${svc.nodePort}`);
          }
        } else {
          add(svc.protocol === 'TCP' ? 'KUBE-NODE-PORT-TCP' : 'KUBE-NODE-PORT-UDP', String(svc.nodePort));
          if (local)
            add(
              svc.protocol === 'TCP' ? 'KUBE-NODE-PORT-LOCAL-TCP' : 'KUBE-NODE-PORT-LOCAL-UDP',
              String(svc.nodePort),
            );
        }
        for (const ip of nodeIPs) mkVS(ip, svc.nodePort, local);
      }
      if (svc.healthCheckNodePort !== 0) add('KUBE-HEALTH-CHECK-NODE-PORT', String(svc.healthCheckNodePort));
    }
    for (const a of bound) add('KUBE-IPVS-IPS', a);
    return { virtualServers: vss, ipsets: sets, boundAddresses: bound };
  }

  /** LB VIP:port entries whose source ranges do not include the node (KUBE-IPVS-OUT-FILTER drops). */
  private lbNoNodeAccess(input: IpvsSyncInput): { ip: string; proto: string; port: number }[] {
    const out: { ip: string; proto: string; port: number }[] = [];
    const nodeIP = input.node.ips?.IPv4;
    for (const key of [...input.servicePorts.keys()].sort()) {
      const svc = input.servicePorts.get(key)!;
      if (svc.loadBalancerSourceRanges.length === 0) continue;
      const allow = !!nodeIP && svc.loadBalancerSourceRanges.some((c) => cidrContains(c, nodeIP));
      if (!allow)
        for (const lb of svc.loadBalancerVIPs)
          out.push({ ip: lb, proto: svc.protocol.toLowerCase(), port: svc.port });
    }
    return out;
  }

  /** kube-proxy's writeIptablesRules + createAndLinkKubeChain, as iptables-restore input. */
  private iptablesRules(
    state: IpvsState,
    lbNoNodeAccess: { ip: string; proto: string; port: number }[],
  ): string {
    const nonEmpty = (n: IPSetName) => state.ipsets.get(n)!.size > 0;
    const comment = (n: IPSetName) => `"${IPSET_INFO.find((i) => i.name === n)!.comment}"`;
    const natChains = [
      '*nat',
      ...['KUBE-SERVICES', 'KUBE-POSTROUTING', 'KUBE-NODE-PORT', 'KUBE-LOAD-BALANCER', 'KUBE-MARK-MASQ'].map(
        (c) => `:${c} - [0:0]`,
      ),
    ];
    const filterChains = [
      '*filter',
      ...[
        'KUBE-FORWARD',
        'KUBE-NODE-PORT',
        'KUBE-PROXY-FIREWALL',
        'KUBE-SOURCE-RANGES-FIREWALL',
        'KUBE-IPVS-FILTER',
        'KUBE-IPVS-OUT-FILTER',
      ].map((c) => `:${c} - [0:0]`),
    ];
    const nat: string[] = [];
    const filter: string[] = [];
    const mark = `${this.masqMark}/${this.masqMark}`;

    nat.push('-A KUBE-SERVICES -s 127.0.0.0/8 -j RETURN');
    for (const s of IPSET_WITH_IPTABLES_CHAIN) {
      if (!nonEmpty(s.name)) continue;
      const line = `-A ${s.from}${s.protocol ? ` -p ${s.protocol}` : ''} -m comment --comment ${comment(s.name)} -m set --match-set ${s.name} ${s.matchType} -j ${s.to}`;
      (s.table === 'filter' ? filter : nat).push(line);
    }
    if (nonEmpty('KUBE-CLUSTER-IP')) {
      const args = `-A KUBE-SERVICES -m comment --comment ${comment('KUBE-CLUSTER-IP')} -m set --match-set KUBE-CLUSTER-IP`;
      if (this.options.masqueradeAll) nat.push(`${args} dst,dst -j KUBE-MARK-MASQ`);
      else if (this.localCIDR) nat.push(`${args} dst,dst ! -s ${this.localCIDR.text} -j KUBE-MARK-MASQ`);
      else nat.push(`${args} src,dst -j KUBE-MARK-MASQ`);
    }
    const externalIPRules = (args: string) => {
      nat.push(`${args} -m physdev ! --physdev-is-in -m addrtype ! --src-type LOCAL -j ACCEPT`);
      nat.push(`${args} -m addrtype --dst-type LOCAL -j ACCEPT`);
    };
    if (nonEmpty('KUBE-EXTERNAL-IP')) {
      const args = `-A KUBE-SERVICES -m comment --comment ${comment('KUBE-EXTERNAL-IP')} -m set --match-set KUBE-EXTERNAL-IP dst,dst`;
      nat.push(`${args} -j KUBE-MARK-MASQ`);
      externalIPRules(args);
    }
    if (nonEmpty('KUBE-EXTERNAL-IP-LOCAL')) {
      externalIPRules(
        `-A KUBE-SERVICES -m comment --comment ${comment('KUBE-EXTERNAL-IP-LOCAL')} -m set --match-set KUBE-EXTERNAL-IP-LOCAL dst,dst`,
      );
    }
    nat.push('-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT');
    nat.push('-A KUBE-LOAD-BALANCER -j KUBE-MARK-MASQ');
    filter.push('-A KUBE-SOURCE-RANGES-FIREWALL -j DROP');
    for (const e of lbNoNodeAccess) {
      filter.push(
        `-A KUBE-IPVS-OUT-FILTER -s ${e.ip} -m ipvs --vaddr ${e.ip} --vproto ${e.proto} --vport ${e.port} -j DROP`,
      );
    }
    for (const n of ['KUBE-CLUSTER-IP', 'KUBE-LOAD-BALANCER'] as const) {
      if (nonEmpty(n)) nat.push(`-A KUBE-SERVICES -m set --match-set ${n} dst,dst -j ACCEPT`);
    }
    filter.push(
      `-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark ${mark} -j ACCEPT`,
    );
    filter.push(
      '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
    );
    filter.push(
      `-A KUBE-NODE-PORT -m comment --comment ${comment('KUBE-HEALTH-CHECK-NODE-PORT')} -m set --match-set KUBE-HEALTH-CHECK-NODE-PORT dst -j ACCEPT`,
    );
    for (const n of [
      'KUBE-LOAD-BALANCER',
      'KUBE-CLUSTER-IP',
      'KUBE-EXTERNAL-IP',
      'KUBE-EXTERNAL-IP-LOCAL',
    ] as const) {
      filter.push(`-A KUBE-IPVS-FILTER -m set --match-set ${n} dst,dst -j RETURN`);
    }
    filter.push('-A KUBE-IPVS-FILTER -m set --match-set KUBE-HEALTH-CHECK-NODE-PORT dst -j RETURN');
    filter.push(
      '-A KUBE-IPVS-FILTER -m conntrack --ctstate NEW -m set --match-set KUBE-IPVS-IPS dst -j REJECT',
    );
    nat.push(`-A KUBE-POSTROUTING -m mark ! --mark ${mark} -j RETURN`);
    nat.push(`-A KUBE-POSTROUTING -j MARK --xor-mark ${this.masqMark}`);
    nat.push(
      '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully',
    );
    nat.push(`-A KUBE-MARK-MASQ -j MARK --or-mark ${this.masqMark}`);
    return [...natChains, ...nat, 'COMMIT', ...filterChains, ...filter, 'COMMIT'].join('\n') + '\n';
  }
}

/** The commands that take the kernel from `prev` to `next` (kube-proxy's netlink calls). */
export function diffStates(prev: IpvsState | null, next: IpvsState): IpvsDelta {
  const ipvsadm: string[] = [];
  const ipset: string[] = [];
  const addresses: string[] = [];
  const pv = prev?.virtualServers ?? new Map<string, VirtualServer>();
  for (const [k, vs] of next.virtualServers) {
    const old = pv.get(k);
    if (!old) {
      ipvsadm.push(virtualServerLine(vs));
      for (const r of vs.reals) ipvsadm.push(realServerLine(vs, r));
      continue;
    }
    if (old.scheduler !== vs.scheduler || old.persistent !== vs.persistent)
      ipvsadm.push(virtualServerLine(vs, '-E'));
    const oldReals = new Set(old.reals);
    const newReals = new Set(vs.reals);
    for (const r of vs.reals) if (!oldReals.has(r)) ipvsadm.push(realServerLine(vs, r));
    for (const r of old.reals)
      if (!newReals.has(r)) ipvsadm.push(`-d ${protoFlag(vs.protocol)} ${vs.address}:${vs.port} -r ${r}`);
  }
  for (const [k, vs] of pv)
    if (!next.virtualServers.has(k)) ipvsadm.push(`-D ${protoFlag(vs.protocol)} ${vs.address}:${vs.port}`);

  for (const [name, entries] of next.ipsets) {
    const old = prev?.ipsets.get(name) ?? new Set<string>();
    for (const e of entries) if (!old.has(e)) ipset.push(`add ${name} ${e}`);
    for (const e of old) if (!entries.has(e)) ipset.push(`del ${name} ${e}`);
  }
  const oldAddr = prev?.boundAddresses ?? new Set<string>();
  for (const a of next.boundAddresses)
    if (!oldAddr.has(a)) addresses.push(`ip addr add ${a}/32 dev ${DUMMY_DEVICE}`);
  for (const a of oldAddr)
    if (!next.boundAddresses.has(a)) addresses.push(`ip addr del ${a}/32 dev ${DUMMY_DEVICE}`);
  return { ipvsadm, ipset, addresses };
}

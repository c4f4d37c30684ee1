/**
 * kube-proxy's ipvs mode (kubernetes/kubernetes pkg/proxy/ipvs/proxier.go) as a Proxier. Each
 * `sync()` recomputes the desired state (ipvs mode has no partial sync; rules.ts) and returns it
 * in the forms the real tools read — `ipvsadm -R` input as the primary text; `ipset restore`,
 * `iptables-restore --noflush` input and the kube-ipvs0 address commands as artifacts — and,
 * against the previous sync, the delta kube-proxy applies through netlink: virtual servers
 * added/edited/deleted, real servers added/deleted, ipset entries added/deleted, addresses
 * bound/unbound. An endpoint change touches O(1) real servers per virtual server of its service
 * (ClusterIP, each external IP, each LB IP, each node IP for NodePorts); the iptables part is
 * rewritten whole on every sync but does not grow with the number of services.
 *
 * Simplifications (docs/proxy-ipvs-nftables.md): real servers are deleted at once (kube-proxy
 * first sets weight 0 and deletes them after connections drain, graceful_termination.go).
 */
import type { IPFamily, ProxyState } from '../../model/index.js';
import { resolveLocalDetector } from '../../model/index.js';
import {
  masqueradeMarkOf,
  type Proxier,
  type ProxierOptions,
  type ProxyArtifact,
  type ProxyRenderStats,
  type ProxySyncResult,
} from '../types.js';
import { ipsetName } from './ipsets.js';
import {
  addressesText,
  addressLine,
  desiredState,
  type IpvsRulesConfig,
  type IpvsState,
  ipsetText,
  iptablesText,
  ipvsadmText,
  lbNoNodeAccess,
  realServerDeleteLine,
  realServerLine,
  type VirtualServer,
  virtualServerDeleteLine,
  virtualServerLine,
} from './rules.js';

export type IpvsScheduler = 'rr' | 'wrr' | 'lc' | 'wlc' | 'sh' | 'dh' | 'sed' | 'nq' | 'mh';
const SCHEDULERS: readonly string[] = ['rr', 'wrr', 'lc', 'wlc', 'sh', 'dh', 'sed', 'nq', 'mh'];

export interface IpvsOptions extends Omit<ProxierOptions, 'clock'> {
  /** --ipvs-scheduler (default rr) */
  scheduler?: IpvsScheduler;
}

export interface IpvsDelta {
  /** `ipvsadm -R` lines: -A/-E/-D virtual servers, -a/-d real servers */
  ipvsadm: string[];
  /** `ipset restore` lines: add/del */
  ipset: string[];
  /** `ip addr add|del … dev kube-ipvs0` lines */
  addresses: string[];
}

export interface IpvsCounts {
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

export interface IpvsSyncResult extends ProxySyncResult {
  /** full `ipvsadm -R` input for the desired state (also `text`) */
  readonly ipvsadm: string;
  /** full `ipset restore` input (create + add) */
  readonly ipset: string;
  /** full `iptables-restore --noflush` input (ip6tables for IPv6; rewritten by kube-proxy on every sync) */
  readonly iptables: string;
  /** `ip link add kube-ipvs0 type dummy` + one `ip addr add` per bound address */
  readonly addresses: string;
  /** what changed since the previous sync (everything, for the first sync) */
  readonly delta: IpvsDelta;
  readonly counts: IpvsCounts;
  readonly desired: IpvsState;
}

export class IpvsProxier implements Proxier<IpvsSyncResult> {
  readonly mode = 'ipvs' as const;
  private readonly cfg: IpvsRulesConfig;
  private prev: IpvsState | null = null;

  constructor(
    readonly state: ProxyState,
    readonly options: IpvsOptions = {},
  ) {
    const scheduler = options.scheduler ?? 'rr';
    if (!SCHEDULERS.includes(scheduler))
      throw new TypeError(
        `IpvsProxier: options.scheduler "${scheduler}" is not an IPVS scheduler (${SCHEDULERS.join(', ')})`,
      );
    this.cfg = {
      family: state.family,
      scheduler,
      masqueradeAll: !!options.masqueradeAll,
      mark: masqueradeMarkOf(options),
      detector: resolveLocalDetector({ nodePodCIDRs: state.node.podCIDRs, ...options }, state.family),
      nodePortAddresses: options.nodePortAddresses,
    };
  }

  get family(): IPFamily {
    return this.state.family;
  }

  /** The state of the previous sync (null before the first). */
  get lastState(): IpvsState | null {
    return this.prev;
  }

  /** ipvs mode rewrites everything each sync; forgetting the kernel makes the next delta complete. */
  forceFullSync(): void {
    this.prev = null;
  }

  onTopologyChange(labels: Readonly<Record<string, string>>): void {
    this.state.setTopologyLabels(labels);
  }

  sync(): IpvsSyncResult {
    this.state.applyChanges();
    const input = {
      servicePorts: this.state.servicePorts,
      endpoints: this.state.endpoints,
      node: this.state.node,
    };
    const desired = desiredState(this.cfg, input);
    const kind = this.prev === null ? 'full' : 'partial';
    const delta = diffStates(this.prev, desired);
    this.prev = desired;
    const iptables = iptablesText(this.cfg, desired, lbNoNodeAccess(this.cfg, input));
    const ipvs = ipvsadmText(desired);
    const sets = ipsetText(desired);
    const addresses = addressesText(desired);
    const deltaBytes =
      [...delta.ipvsadm, ...delta.ipset, ...delta.addresses].reduce((n, l) => n + l.length + 1, 0) +
      iptables.length;
    const countOps = (lines: string[], re: RegExp) => lines.filter((l) => re.test(l)).length;
    const counts: IpvsCounts = {
      virtualServers: desired.virtualServers.size,
      realServers: ipvs.realServers,
      ipsetEntries: sets.entries,
      iptablesRules: iptables.split('\n').filter((l) => l.startsWith('-A ')).length,
      boundAddresses: desired.boundAddresses.size,
      bytes: {
        ipvsadm: ipvs.text.length,
        ipset: sets.text.length,
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
    };
    const lines = (l: string[]) => (l.length ? `${l.join('\n')}\n` : '');
    const artifacts: ProxyArtifact[] = [
      { name: 'ipset.restore', text: sets.text },
      { name: this.family === 'IPv6' ? 'ip6tables.restore' : 'iptables.restore', text: iptables },
      { name: 'kube-ipvs0.sh', text: addresses },
      { name: 'delta.ipvsadm', text: lines(delta.ipvsadm) },
      { name: 'delta.ipset', text: lines(delta.ipset) },
      { name: 'delta.addresses', text: lines(delta.addresses) },
    ];
    const stats: ProxyRenderStats = {
      chains: counts.virtualServers,
      rules: counts.realServers,
      bytes: counts.bytes.ipvsadm + counts.bytes.ipset + counts.bytes.iptables + counts.bytes.addresses,
      ipsetEntries: counts.ipsetEntries,
      iptablesRules: counts.iptablesRules,
      boundAddresses: counts.boundAddresses,
      deltaVirtualServers: counts.deltaOps.virtualServers,
      deltaRealServers: counts.deltaOps.realServers,
      deltaIpsetEntries: counts.deltaOps.ipsetEntries,
      deltaAddresses: counts.deltaOps.addresses,
      deltaBytes,
    };
    return {
      kind,
      text: ipvs.text,
      artifacts,
      stats,
      ipvsadm: ipvs.text,
      ipset: sets.text,
      iptables,
      addresses,
      delta,
      counts,
      desired,
    };
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
    for (const r of old.reals) if (!newReals.has(r)) ipvsadm.push(realServerDeleteLine(vs, r));
  }
  for (const [k, vs] of pv) if (!next.virtualServers.has(k)) ipvsadm.push(virtualServerDeleteLine(vs));

  for (const [name, entries] of next.ipsets) {
    const setName = ipsetName(name, next.family);
    const old = prev?.ipsets.get(name) ?? new Set<string>();
    for (const e of entries) if (!old.has(e)) ipset.push(`add ${setName} ${e}`);
    for (const e of old) if (!entries.has(e)) ipset.push(`del ${setName} ${e}`);
  }
  const oldAddr = prev?.boundAddresses ?? new Set<string>();
  for (const a of next.boundAddresses) if (!oldAddr.has(a)) addresses.push(addressLine('add', a));
  for (const a of oldAddr) if (!next.boundAddresses.has(a)) addresses.push(addressLine('del', a));
  return { ipvsadm, ipset, addresses };
}

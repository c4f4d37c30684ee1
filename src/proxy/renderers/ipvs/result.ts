/** What an ipvs sync returns (proxier.ts; a streamed full sync builds it in stream.ts). */
import type { ProxySyncResult } from '../types.js';
import type { IpvsDelta } from './delta.js';
import type { IpvsState } from './rules.js';

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

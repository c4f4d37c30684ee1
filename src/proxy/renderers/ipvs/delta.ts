/**
 * The netlink calls kube-proxy's ipvs mode makes between two syncs (pkg/proxy/ipvs/proxier.go
 * syncService / syncEndpoint / cleanLegacyService, ipset and address updates), as ipvsadm, ipset
 * and ip-addr command lines.
 */
import { ipsetName } from './ipsets.js';
import {
  addressLine,
  type IpvsState,
  realServerDeleteLine,
  realServerLine,
  type VirtualServer,
  virtualServerDeleteLine,
  virtualServerLine,
} from './rules.js';

export interface IpvsDelta {
  /** `ipvsadm -R` lines: -A/-E/-D virtual servers, -a/-d real servers */
  ipvsadm: string[];
  /** `ipset restore` lines: add/del */
  ipset: string[];
  /** `ip addr add|del … dev kube-ipvs0` lines */
  addresses: string[];
}

/** The commands that take the kernel from `prev` to `next` (kube-proxy's netlink calls). */
export function diffStates(prev: IpvsState | null, next: IpvsState): IpvsDelta {
  const ipvsadm: string[] = [];
  const ipset: string[] = [];
  const addresses: string[] = [];
  diffVirtualServers(prev?.virtualServers ?? new Map<string, VirtualServer>(), next.virtualServers, ipvsadm);

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

/** `ipvsadm` lines from the virtual servers `pv` to `nv`: additions and edits in `nv` order, then deletions. */
export function diffVirtualServers(
  pv: ReadonlyMap<string, VirtualServer>,
  nv: ReadonlyMap<string, VirtualServer>,
  ipvsadm: string[],
): void {
  for (const [k, vs] of nv) {
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
  for (const [k, vs] of pv) if (!nv.has(k)) ipvsadm.push(virtualServerDeleteLine(vs));
}

/**
 * The ipvs proxier's state between syncs, per service port, so that a sync costs what changed.
 * kube-proxy's ipvs mode (pkg/proxy/ipvs/proxier.go syncProxyRules) visits every service port on
 * every sync and finds, for an unchanged one, that its virtual servers, real servers, ipset entries
 * and addresses are already in place; only the changed ones cost netlink calls. This index keeps
 * each port's contribution (rules.ts portState) with reference counts on what ports share (an
 * address bound for two ports of one Service, an ipset entry two Services produce), so that a sync
 * computes the changed ports only and derives the delta from the counts:
 *
 *   ipset entry / address added    ⇔ its first port wants it      (count 0 → 1)
 *   ipset entry / address deleted  ⇔ its last port let go of it   (count 1 → 0)
 *   virtual servers                  diffed between the changed ports' old and new ones
 *
 * A virtual server two ports create (two Services with one external IP and port) makes the result
 * depend on which port wrote it last; while such a key exists the proxier diffs whole states
 * (`sharedVirtualServers`). The full texts (ipvsadm -R, ipset restore, addresses) are folded from
 * the ports in sorted order when they are read.
 */
import { ipsetName, type IPSetName, IPSET_INFO } from './ipsets.js';
import { addressLine, foldPorts, type IpvsState, type NoNodeAccess, type PortState } from './rules.js';
import type { IPFamily } from '../../model/index.js';
import { PortTable, SortedKeys } from '../port-table.js';
import { diffVirtualServers, type IpvsDelta } from './delta.js';

export class IpvsIndex {
  readonly ports = new PortTable<PortState>();
  private readonly vsRefs = new Map<string, number>();
  private shared = 0;
  /** entry → ports wanting it, per set (KUBE-IPVS-IPS: the bound addresses) */
  private readonly setRefs = new Map<IPSetName, Map<string, number>>(
    IPSET_INFO.map((i) => [i.name, new Map()]),
  );
  private realServers = 0;
  /** ports with KUBE-IPVS-OUT-FILTER entries */
  private readonly filtered = new SortedKeys();
  /** bumped whenever a port with KUBE-IPVS-OUT-FILTER entries changes (the iptables text depends on them) */
  filterVersion = 0;

  constructor(readonly family: IPFamily) {}

  /** Virtual server keys more than one port creates. */
  get sharedVirtualServers(): number {
    return this.shared;
  }

  /** Distinct virtual servers, their real servers, ipset entries and bound addresses. */
  counts(): { virtualServers: number; realServers: number; ipsetEntries: number; boundAddresses: number } {
    let entries = 0;
    for (const m of this.setRefs.values()) entries += m.size;
    return {
      virtualServers: this.vsRefs.size,
      realServers: this.realServers,
      ipsetEntries: entries,
      boundAddresses: this.setRefs.get('KUBE-IPVS-IPS')!.size,
    };
  }

  /** Set sizes, for the iptables rules that exist only when their set is not empty. */
  get ipsets(): ReadonlyMap<IPSetName, { readonly size: number }> {
    return this.setRefs;
  }

  /** KUBE-IPVS-OUT-FILTER entries, in port order. */
  noNodeAccess(): NoNodeAccess[] {
    return this.filtered.all().flatMap((k) => this.ports.get(k)!.noNodeAccess);
  }

  /** The whole state, folded from the ports in order (what desiredState computes). */
  materialize(): IpvsState {
    return foldPorts(
      this.family,
      this.ports.keys.all().map((k) => this.ports.get(k)!),
    );
  }

  clear(): void {
    this.filtered.reset([]);
    this.filterVersion++;
    this.ports.clear();
    this.vsRefs.clear();
    this.shared = 0;
    for (const m of this.setRefs.values()) m.clear();
    this.realServers = 0;
  }

  /** Whether replacing these ports' states would make two ports create one virtual server. */
  wouldShare(keys: readonly string[], next: readonly (PortState | undefined)[]): boolean {
    if (this.shared > 0) return true;
    const delta = new Map<string, number>();
    for (const k of keys)
      for (const [vk] of this.ports.get(k)?.virtualServers ?? []) delta.set(vk, (delta.get(vk) ?? 0) - 1);
    for (const p of next) for (const [vk] of p?.virtualServers ?? []) delta.set(vk, (delta.get(vk) ?? 0) + 1);
    for (const [vk, d] of delta) if ((this.vsRefs.get(vk) ?? 0) + d > 1) return true;
    return false;
  }

  /**
   * Replaces the ports' states and returns the delta: virtual servers diffed between the old and
   * new states of these ports, entries and addresses by their counts. Valid when no virtual server
   * is shared (`wouldShare` false).
   */
  replaceAll(keys: readonly string[], next: readonly (PortState | undefined)[]): IpvsDelta {
    const prev = keys.map((k) => this.ports.get(k));
    const ipvsadm: string[] = [];
    const vsOf = (ps: readonly (PortState | undefined)[]) => {
      const m = new Map<string, PortState['virtualServers'][number][1]>();
      for (const p of ps) for (const [k, vs] of p?.virtualServers ?? []) m.set(k, vs);
      return m;
    };
    diffVirtualServers(vsOf(prev), vsOf(next), ipvsadm);

    // entries whose count leaves or reaches zero, in the order the old / new ports list them
    const before = new Map<IPSetName, Map<string, number>>();
    const touch = (name: IPSetName, e: string) => {
      let m = before.get(name);
      if (!m) before.set(name, (m = new Map()));
      if (!m.has(e)) m.set(e, this.setRefs.get(name)!.get(e) ?? 0);
    };
    for (const ps of [prev, next])
      for (const p of ps) if (p) for (const [name, e] of entriesOf(p)) touch(name, e);
    keys.forEach((k, i) => this.replace(k, next[i]));

    const ipset: string[] = [];
    const addresses: string[] = [];
    for (const info of IPSET_INFO) {
      const name = info.name;
      const b = before.get(name);
      if (!b) continue;
      const refs = this.setRefs.get(name)!;
      const setName = ipsetName(name, this.family);
      const added = new Set<string>();
      const removed = new Set<string>();
      for (const p of next)
        if (p)
          for (const [n, e] of entriesOf(p)) if (n === name && b.get(e) === 0 && refs.has(e)) added.add(e);
      for (const p of prev)
        if (p)
          for (const [n, e] of entriesOf(p)) if (n === name && b.get(e)! > 0 && !refs.has(e)) removed.add(e);
      for (const e of added) ipset.push(`add ${setName} ${e}`);
      for (const e of removed) ipset.push(`del ${setName} ${e}`);
      if (name === 'KUBE-IPVS-IPS') {
        for (const a of added) addresses.push(addressLine('add', a));
        for (const a of removed) addresses.push(addressLine('del', a));
      }
    }
    return { ipvsadm, ipset, addresses };
  }

  /** Records `key`'s state (undefined: the port is gone). */
  replace(key: string, next: PortState | undefined): void {
    const prev = this.ports.get(key);
    if (next) this.count(next, 1);
    if (prev) this.count(prev, -1);
    if ((prev?.noNodeAccess.length ?? 0) > 0 || (next?.noNodeAccess.length ?? 0) > 0) this.filterVersion++;
    this.ports.set(key, next);
    if (next && next.noNodeAccess.length > 0) this.filtered.add(key);
    else this.filtered.delete(key);
  }

  private count(p: PortState, sign: 1 | -1): void {
    for (const [k, vs] of p.virtualServers) {
      const n = (this.vsRefs.get(k) ?? 0) + sign;
      if (sign > 0 && n === 2) this.shared++;
      if (sign < 0 && n === 1) this.shared--;
      if (n > 0) this.vsRefs.set(k, n);
      else this.vsRefs.delete(k);
      this.realServers += sign * vs.reals.length;
    }
    for (const [name, e] of entriesOf(p)) {
      const m = this.setRefs.get(name)!;
      const n = (m.get(e) ?? 0) + sign;
      if (n > 0) m.set(e, n);
      else m.delete(e);
    }
  }
}

/** A port's ipset entries, its bound addresses as KUBE-IPVS-IPS entries. */
function* entriesOf(p: PortState): Iterable<readonly [IPSetName, string]> {
  yield* p.entries;
  for (const a of p.bound) yield ['KUBE-IPVS-IPS', a] as const;
}

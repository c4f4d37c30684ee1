/**
 * ipvs mode's full sync written out as it is computed (ProxierOptions.stream, `proxy render` of a
 * large cluster). The held sync (rules.ts desiredState + delta.ts diffStates) keeps every virtual
 * server with its real servers as strings, the delta's lines and four texts — about ten times its
 * output. A full sync from nothing needs none of that: its `ipvsadm -R` input is written per
 * service port as the walk visits it, and its delta is the same commands (every virtual and real
 * server added, every ipset entry and address added), so the walk keeps only what must be
 * deduplicated or counted: the ipset entries and bound addresses (sets, as kube-proxy's are) and
 * the KUBE-IPVS-OUT-FILTER entries. The ipvsadm lines also go to a temporary file, read back once
 * as the delta.ipvsadm artifact.
 *
 * A virtual server two service ports create (two Services sharing an external IP and port) is
 * written where the first created it with the last one's real servers (a map's set); the walk
 * cannot know that when it reaches the first, so such a cluster is rendered held and then written
 * (`streamFullSync` returns null; a pre-pass over the ports' virtual server keys finds it).
 */
import { SpillFile } from '../iptables/lines.js';
import type { ProxyArtifact } from '../types.js';
import type { IpvsDelta } from './delta.js';
import { IPSET_INFO, type IPSetName, ipsetCreateLine, ipsetName } from './ipsets.js';
import type { IpvsCounts, IpvsSyncResult } from './result.js';
import {
  addressesText,
  addressLine,
  DUMMY_DEVICE,
  type IpvsRulesConfig,
  type IpvsRulesInput,
  type IpvsState,
  iptablesText,
  ipsetText,
  type NoNodeAccess,
  type PortContext,
  portState,
  realServerLine,
  virtualServerKeys,
  virtualServerLine,
} from './rules.js';

const FLUSH_AT = 256 * 1024;

/** What a streamed full sync kept: enough for the artifacts and the counts. */
export interface StreamedSync {
  virtualServers: number;
  realServers: number;
  /** bytes of the ipvsadm text written */
  ipvsadmBytes: number;
  ipsets: Map<IPSetName, Set<string>>;
  boundAddresses: Set<string>;
  noNodeAccess: NoNodeAccess[];
  /** the ipvsadm lines again (delta.ipvsadm of a sync from nothing) */
  spill: SpillFile;
}

/** Whether two of the ports create one virtual server (the streamed walk cannot render that). */
function sharesVirtualServer(pc: PortContext, input: IpvsRulesInput, keys: readonly string[]): boolean {
  const seen = new Set<string>();
  for (const k of keys)
    for (const vk of virtualServerKeys(pc, input.servicePorts.get(k)!)) {
      if (seen.has(vk)) return true;
      seen.add(vk);
    }
  return false;
}

/**
 * Writes the `ipvsadm -R` input of a full sync to `write` in service-port order (what
 * ipvsadmText(desiredState(…)) returns), or returns null without writing when two ports share a
 * virtual server.
 */
export function streamFullSync(
  pc: PortContext,
  input: IpvsRulesInput,
  write: (chunk: Uint8Array) => void,
): StreamedSync | null {
  const keys = [...input.servicePorts.keys()].sort();
  if (sharesVirtualServer(pc, input, keys)) return null;
  const ipsets = new Map<IPSetName, Set<string>>(IPSET_INFO.map((i) => [i.name, new Set<string>()]));
  const bound = new Set<string>();
  const noNodeAccess: NoNodeAccess[] = [];
  const spill = new SpillFile('kubesim-ipvs-', 'ipvsadm');
  let pending = '';
  let bytes = 0;
  let virtualServers = 0;
  let realServers = 0;
  const flush = () => {
    if (pending.length === 0) return;
    // ASCII (addresses, ports, flags): one byte per character
    const b = Buffer.from(pending, 'latin1');
    bytes += b.length;
    pending = '';
    write(b);
    spill.write(b);
  };
  try {
    for (const key of keys) {
      const p = portState(pc, key, input.servicePorts.get(key)!, input.endpoints.get(key));
      for (const [, vs] of p.virtualServers) {
        pending += `${virtualServerLine(vs)}\n`;
        for (const r of vs.reals) pending += `${realServerLine(vs, r)}\n`;
        virtualServers++;
        realServers += vs.reals.length;
      }
      for (const [name, entry] of p.entries) ipsets.get(name)!.add(entry);
      for (const a of p.bound) bound.add(a);
      noNodeAccess.push(...p.noNodeAccess);
      if (pending.length > FLUSH_AT) flush();
    }
    flush();
  } catch (e) {
    spill.close();
    throw e;
  }
  // as foldPorts: the bound addresses are KUBE-IPVS-IPS's entries
  const ipvsIPs = ipsets.get('KUBE-IPVS-IPS')!;
  for (const a of bound) ipvsIPs.add(a);
  return {
    virtualServers,
    realServers,
    ipvsadmBytes: bytes,
    ipsets,
    boundAddresses: bound,
    noNodeAccess,
    spill,
  };
}

/** The text a streamed sync wrote out and did not keep. */
export function streamedText(): Error {
  return new Error('IpvsProxier: the ipvsadm text of this sync was streamed (options.stream), not kept');
}

/** A streamed full sync's result: counts, the small texts from what the walk kept, the delta.ipvsadm replay. */
export function streamedResult(cfg: IpvsRulesConfig, s: StreamedSync): IpvsSyncResult {
  const { family } = cfg;
  const iptables = iptablesText(cfg, s, s.noNodeAccess);
  const iptablesRules = iptables.split('\n').filter((l) => l.startsWith('-A ')).length;
  // (ipset and address texts are folded from the kept sets when read)
  const held = { family, ipsets: s.ipsets, boundAddresses: s.boundAddresses } as IpvsState;
  let entries = 0;
  let entryBytes = 0;
  let ipsetHeadBytes = 0;
  for (const info of IPSET_INFO) {
    const name = ipsetName(info.name, family);
    ipsetHeadBytes += `# ${info.comment}\n${ipsetCreateLine({ name, type: info.type }, family)}\n`.length;
    const set = s.ipsets.get(info.name)!;
    entries += set.size;
    entryBytes += set.size * `add ${name} \n`.length;
    for (const e of set) entryBytes += e.length;
  }
  let addressBytes = 0;
  for (const a of s.boundAddresses) addressBytes += addressLine('add', a).length + 1;
  const linkLine = `ip link add ${DUMMY_DEVICE} type dummy\n`;
  const deltaIpset = () => {
    const lines: string[] = [];
    for (const info of IPSET_INFO) {
      const name = ipsetName(info.name, family);
      for (const e of s.ipsets.get(info.name)!) lines.push(`add ${name} ${e}\n`);
    }
    return lines.join('');
  };
  const deltaAddresses = () => [...s.boundAddresses].map((a) => `${addressLine('add', a)}\n`).join('');
  let replayed = false;
  const counts: IpvsCounts = {
    virtualServers: s.virtualServers,
    realServers: s.realServers,
    ipsetEntries: entries,
    iptablesRules,
    boundAddresses: s.boundAddresses.size,
    bytes: {
      ipvsadm: s.ipvsadmBytes,
      ipset: ipsetHeadBytes + entryBytes,
      iptables: iptables.length,
      addresses: linkLine.length + addressBytes,
    },
    deltaOps: {
      virtualServers: s.virtualServers,
      realServers: s.realServers,
      ipsetEntries: entries,
      addresses: s.boundAddresses.size,
    },
    deltaBytes: s.ipvsadmBytes + entryBytes + addressBytes + iptables.length,
  };
  const artifacts: ProxyArtifact[] = [
    {
      name: 'ipset.restore',
      get text() {
        return ipsetText(held).text;
      },
    },
    { name: family === 'IPv6' ? 'ip6tables.restore' : 'iptables.restore', text: iptables },
    {
      name: 'kube-ipvs0.sh',
      get text() {
        return addressesText(held);
      },
    },
    {
      // a sync from nothing adds every virtual and real server: the ipvsadm text again
      name: 'delta.ipvsadm',
      get text(): string {
        throw new Error('IpvsProxier: delta.ipvsadm of a streamed sync is read with chunks()');
      },
      *chunks() {
        if (replayed) throw new Error('IpvsProxier: delta.ipvsadm of a streamed sync can be read once');
        replayed = true;
        // in 1 MiB blocks, each handed on before the next is read; the file is deleted after the last
        yield* s.spill.blocks();
      },
    },
    {
      name: 'delta.ipset',
      get text() {
        return deltaIpset();
      },
    },
    {
      name: 'delta.addresses',
      get text() {
        return deltaAddresses();
      },
    },
  ];
  const b = counts.bytes;
  return {
    kind: 'full',
    get text(): string {
      throw streamedText();
    },
    // written out, none kept
    chunks: () => [],
    artifacts,
    stats: {
      chains: counts.virtualServers,
      rules: counts.realServers,
      bytes: b.ipvsadm + b.ipset + b.iptables + b.addresses,
      ipsetEntries: counts.ipsetEntries,
      iptablesRules,
      boundAddresses: counts.boundAddresses,
      deltaVirtualServers: counts.deltaOps.virtualServers,
      deltaRealServers: counts.deltaOps.realServers,
      deltaIpsetEntries: counts.deltaOps.ipsetEntries,
      deltaAddresses: counts.deltaOps.addresses,
      deltaBytes: counts.deltaBytes,
    },
    get ipvsadm(): string {
      throw streamedText();
    },
    get ipset() {
      return ipsetText(held).text;
    },
    iptables,
    get addresses() {
      return addressesText(held);
    },
    get delta(): IpvsDelta {
      throw new Error('IpvsProxier: the delta lines of a streamed sync are its artifacts (delta.*)');
    },
    counts,
    get desired(): IpvsState {
      throw new Error('IpvsProxier: a streamed sync keeps no desired state');
    },
  };
}

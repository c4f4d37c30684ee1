// The input side of `kubesim proxy render|check`: the flags that describe the cluster and the
// kube-proxy configuration (the same names as kube-proxy's flags where it has one), loading the
// manifests, and driving the proxiers through the full sync and the --update/--delete/--churn
// partial syncs. Invalid objects and input the render does not use are reported as warnings.
import { LIMITS } from '../util/limits.js';
import { type Command, Option } from 'commander';
import type { EndpointSlice, Service } from '../api/types.js';
import {
  changeOneEndpoint,
  GEN_CLUSTER_CIDR,
  type GeneratedServices,
  generatedNodeNames,
  generateServiceStream,
  generateServices,
} from '../proxy/gen.js';
import {
  canonicalIP,
  DETECT_LOCAL_MODES,
  type IPFamily,
  ipFamilyOf,
  loadProxyObjects,
  ProxyInputError,
  type ProxyNode,
  proxyNodeFromNode,
  SERVICE_NAME_LABEL,
} from '../proxy/model/index.js';
import {
  availableModes,
  type FamilySync,
  IP_FAMILIES,
  loadRenderer,
  MetaProxier,
  type ProxyMode,
  type ProxyRenderer,
} from '../proxy/renderers/index.js';
import { Rng } from '../util/rng.js';
import { CliError, UsageError } from './errors.js';
import { ServiceAddressAllocator } from './proxy-allocate.js';
import { rejectKubeconfig } from './flags.js';

export interface InputOpts {
  mode: string;
  cluster?: string[];
  kubeconfig?: string;
  generate?: string;
  seed: string;
  update?: string[];
  delete?: string[];
  churn?: string;
  node?: string;
  nodeIp?: string;
  nodeAddresses?: string;
  clusterCidr?: string;
  detectLocalMode?: string;
  podBridgeInterface?: string;
  podInterfaceNamePrefix?: string;
  nodePodCidrs?: string;
  masqueradeAll?: boolean;
  family: string;
  randomFully: boolean;
  nfacct: boolean;
  localhostNodeports: boolean;
  conntrackTcpBeLiberal?: boolean;
  nodeportAddresses?: string;
  masqueradeBit?: string;
  masqueradeMark?: string;
  serviceCidrs?: string;
  ipvsScheduler?: string;
}

/** Flags only some modes read: flag → the modes that read it. */
const MODE_FLAGS: { flag: string; key: keyof InputOpts; modes: ProxyMode[] }[] = [
  { flag: '--service-cidrs', key: 'serviceCidrs', modes: ['nftables'] },
  { flag: '--ipvs-scheduler', key: 'ipvsScheduler', modes: ['ipvs'] },
  { flag: '--no-random-fully', key: 'randomFully', modes: ['iptables'] },
  { flag: '--no-nfacct', key: 'nfacct', modes: ['iptables'] },
  { flag: '--no-localhost-nodeports', key: 'localhostNodeports', modes: ['iptables'] },
  { flag: '--conntrack-tcp-be-liberal', key: 'conntrackTcpBeLiberal', modes: ['iptables'] },
];

const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

export function addInputOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--mode <mode>', 'proxy mode').choices(availableModes()).default('iptables'))
    .option('--cluster <manifests...>', 'manifest files or directories with Services, EndpointSlices, Nodes')
    .option(
      '--kubeconfig <file>',
      'read the cluster from a live API server (not supported yet: capture it with kubesim snapshot and pass --cluster)',
    )
    .option(
      '--generate <NxM[xK]>',
      'instead of manifests: a seeded synthetic cluster of N services x M endpoints over K nodes (default 100, node-0 … node-K-1), e.g. 1000x10',
    )
    .option('--seed <n>', 'seed for --generate', '1')
    .option(
      '--update <manifests...>',
      'then apply these objects as updates (adds/replaces by name) and render the partial sync',
    )
    .option(
      '--delete <manifests...>',
      'then delete the Services/EndpointSlices named in these files (with or after --update) and render the partial sync',
    )
    .option(
      '--churn <n>',
      'with --generate: then replace n pods (one endpoint each, seeded) and render the partial sync',
    )
    .option(
      '--node <name>',
      'the node kube-proxy runs on (default: the first Node in the manifests); decides Local policies',
    )
    .option(
      '--node-ip <ips>',
      "the node's primary IP, one per family, comma-separated (default: the Node's InternalIP, then ExternalIP)",
    )
    .option(
      '--node-addresses <ips>',
      "every address on the node's interfaces, comma-separated (default: the Node's addresses); --nodeport-addresses selects from them",
    )
    .addOption(
      new Option('--family <family>', 'IP family of the proxier, or dual for one of each (dual-stack)')
        .choices(['IPv4', 'IPv6', 'dual'])
        .default('IPv4'),
    )
    .addOption(
      new Option(
        '--detect-local-mode <mode>',
        'how pod traffic is told apart (kube-proxy --detect-local-mode)',
      )
        .choices([...DETECT_LOCAL_MODES])
        .default('ClusterCIDR'),
    )
    .option(
      '--cluster-cidr <cidrs>',
      'pod CIDR(s), comma-separated, one per family (ClusterCIDR mode); without it no "! -s CIDR" masquerade rules',
    )
    .option(
      '--node-pod-cidrs <cidrs>',
      "the node's pod CIDRs for NodeCIDR mode, comma-separated (default: the Node's spec.podCIDRs)",
    )
    .option('--pod-bridge-interface <name>', 'the pods bridge for BridgeInterface mode, e.g. cbr0')
    .option(
      '--pod-interface-name-prefix <prefix>',
      "pods' interface name prefix for InterfaceNamePrefix mode, e.g. veth",
    )
    .option('--masquerade-all', 'SNAT all traffic sent to cluster IPs (kube-proxy --masquerade-all)')
    .option('--masquerade-bit <n>', 'iptables.masqueradeBit (default 14, mark 0x00004000)')
    .option(
      '--masquerade-mark <hex>',
      "the mark as written in the rules, e.g. 0x4000 as kube-proxy's unit tests write it (overrides --masquerade-bit)",
    )
    .option(
      '--nodeport-addresses <list>',
      'comma-separated CIDRs or "primary" (kube-proxy --nodeport-addresses); default: all addresses (nftables: primary)',
    )
    .option(
      '--service-cidrs <cidrs>',
      'nftables: the ServiceCIDRs, comma-separated; traffic to unallocated ClusterIPs in them is dropped',
    )
    .option('--ipvs-scheduler <name>', 'ipvs: the IPVS scheduler (rr, wrr, lc, wlc, sh, dh, sed, nq, mh)')
    .option('--no-random-fully', 'iptables: without MASQUERADE --random-fully support')
    .option('--no-nfacct', 'iptables: kernel without nfacct, no -m nfacct counter rules')
    .option('--no-localhost-nodeports', 'iptables: iptables.localhostNodePorts=false')
    .option(
      '--conntrack-tcp-be-liberal',
      'iptables: nf_conntrack_tcp_be_liberal is set, so no INVALID drop rule (kube-proxy --conntrack-tcp-be-liberal)',
    );
}

/** The input of a render, loaded and checked, before any sync. */
export interface Prepared {
  /** the node of --node (or the first Node) with the --node-* flags applied */
  node: ProxyNode;
  /** every node of the cluster, sorted by name (the generated ones for --generate) */
  nodes: ProxyNode[];
  families: IPFamily[];
  mode: ProxyMode;
  services: Service[];
  slices: EndpointSlice[];
  options: Record<string, unknown>;
  renderer: ProxyRenderer;
  generated?: GeneratedServices;
  /**
   * with `lazy` and --generate: the generated cluster one Service at a time (`services` and
   * `slices` are then empty), for a render that reads each object once
   */
  generatedStream?: () => Iterable<{ service: Service; slices: EndpointSlice[] }>;
  /** object key → file it came from */
  sources: Map<string, string>;
  load(paths: string[]): Promise<Awaited<ReturnType<typeof loadProxyObjects>>>;
}

export interface Run {
  node: ProxyNode;
  families: IPFamily[];
  services: number;
  slices: number;
  /** per sync, one output per family */
  syncs: FamilySync[][];
  /** re-render a forced full sync (for --repeat) */
  rerenderFull(): FamilySync[];
}

/** The proxier options the flags give (kube-proxy's own names, KubeProxyConfiguration). */
function proxierOptions(o: InputOpts, clusterCIDR: string | undefined): Record<string, unknown> {
  const options: Record<string, unknown> = {
    clusterCIDR,
    detectLocalMode: o.detectLocalMode,
    podBridgeInterface: o.podBridgeInterface,
    podInterfaceNamePrefix: o.podInterfaceNamePrefix,
    masqueradeAll: !!o.masqueradeAll,
    randomFully: o.randomFully,
    nfacct: o.nfacct,
    localhostNodePorts: o.localhostNodeports,
    conntrackTCPLiberal: !!o.conntrackTcpBeLiberal,
  };
  if (o.masqueradeBit !== undefined) {
    const bit = Number(o.masqueradeBit);
    if (!Number.isInteger(bit) || bit < 0 || bit > 31)
      throw new UsageError(`--masquerade-bit must be an integer 0-31, got "${o.masqueradeBit}"`);
    options.masqueradeBit = bit;
  }
  if (o.masqueradeMark !== undefined) options.masqueradeMark = o.masqueradeMark;
  if (o.nodeportAddresses) options.nodePortAddresses = list(o.nodeportAddresses);
  if (o.serviceCidrs) options.serviceCIDRs = list(o.serviceCidrs);
  if (o.ipvsScheduler) options.scheduler = o.ipvsScheduler;
  return options;
}

/** --node-ip / --node-addresses / --node-pod-cidrs on top of what the Node object says. */
function withNodeFlags(node: ProxyNode, o: InputOpts): ProxyNode {
  let out = node;
  if (o.nodeIp) {
    const ips: Partial<Record<IPFamily, string>> = {};
    for (const a of list(o.nodeIp)) {
      const ip = canonicalIP(a);
      if (!ip) throw new UsageError(`--node-ip: "${a}" is not an IP address`);
      const fam = ipFamilyOf(ip)!;
      if (ips[fam])
        throw new UsageError(`--node-ip: two ${fam} addresses (${ips[fam]}, ${ip}); give one per family`);
      ips[fam] = ip;
    }
    out = { ...out, ips };
  }
  if (o.nodeAddresses) {
    const addrs = list(o.nodeAddresses).map((a) => {
      const ip = canonicalIP(a);
      if (!ip) throw new UsageError(`--node-addresses: "${a}" is not an IP address`);
      return ip;
    });
    out = { ...out, localAddresses: addrs };
  }
  if (o.nodePodCidrs) out = { ...out, podCIDRs: list(o.nodePodCidrs) };
  return out;
}

const objKey = (x: { metadata: { namespace?: string; name?: string } }) =>
  `${x.metadata.namespace ?? 'default'}/${x.metadata.name}`;

/** Steps run() reports, for progress: the input loaded, then each sync. */
export function runSteps(o: InputOpts): number {
  return 2 + (o.update || o.delete ? 1 : 0) + (o.churn && Number(o.churn) > 0 ? 1 : 0);
}

/**
 * Loads the input and checks the flags; `cmd` tells which flags were given (for warnings).
 * `allNodes`: every node renders (no "other nodes not used" warning).
 */
export async function prepare(
  o: InputOpts,
  cmd?: Command,
  allNodes = false,
  lazy = false,
): Promise<Prepared> {
  rejectKubeconfig(o);
  if (!o.cluster && !o.generate) throw new UsageError('give --cluster <manifests...> or --generate NxM');
  if (o.cluster && o.generate) throw new UsageError('--cluster and --generate are mutually exclusive');
  const families: IPFamily[] = o.family === 'dual' ? [...IP_FAMILIES] : [o.family as IPFamily];
  const mode = o.mode as ProxyMode;
  for (const f of MODE_FLAGS) {
    if (cmd?.getOptionValueSource(f.key) === 'cli' && !f.modes.includes(mode))
      warn(`${f.flag} is not used by --mode ${mode} (only by ${f.modes.join(', ')})`);
  }

  let services: Service[];
  let slices: EndpointSlice[];
  let node: ProxyNode;
  let nodes: ProxyNode[];
  let clusterCIDR = o.clusterCidr;
  let generated: GeneratedServices | undefined;
  let generatedStream: Prepared['generatedStream'];
  const sources = new Map<string, string>();
  const churn = churnOf(o);
  if (churn > 0 && !o.generate) throw new UsageError('--churn needs --generate (for manifests use --update)');
  const addresses = new ServiceAddressAllocator(list(o.serviceCidrs));
  const load = async (paths: string[]) => {
    try {
      const objs = await loadProxyObjects(paths);
      for (const [k, v] of objs.sources) sources.set(k, v);
      const allocated = addresses.allocate(objs.services);
      if (allocated.length)
        warn(
          `${allocated.length} Service(s) without a clusterIP got one as kube-apiserver allocates it on create (from ${addresses.cidr}): ${allocated.join('; ')}`,
        );
      const unused = Object.entries(objs.ignored).map(([kind, n]) => `${n} ${kind}`);
      if (unused.length)
        warn(`not used by kube-proxy (it watches Services, EndpointSlices and Nodes): ${unused.join(', ')}`);
      return objs;
    } catch (e) {
      if (e instanceof ProxyInputError) throw new CliError(e.message);
      throw e;
    }
  };
  if (o.generate) {
    const m = /^(\d+)x(\d+)(?:x(\d+))?$/.exec(o.generate);
    if (!m) throw new UsageError(`--generate must look like 1000x10 or 1000x10x50, got "${o.generate}"`);
    const [svcs, eps] = [Number(m[1]), Number(m[2])];
    const nodeCount = m[3] === undefined ? undefined : Number(m[3]);
    if (nodeCount !== undefined && (nodeCount < 1 || nodeCount > LIMITS.nodes))
      throw new UsageError(
        `--generate ${o.generate}: ${nodeCount} nodes is outside 1-${LIMITS.nodes} (see "Limits" in the README)`,
      );
    if (svcs > LIMITS.services)
      throw new UsageError(
        `--generate ${o.generate}: ${svcs} services is above the limit of ${LIMITS.services} (see "Limits" in the README)`,
      );
    if (svcs * eps > LIMITS.endpoints)
      throw new UsageError(
        `--generate ${o.generate}: ${svcs * eps} endpoints is above the limit of ${LIMITS.endpoints} (see "Limits" in the README)`,
      );
    const seed = Number(o.seed);
    if (!Number.isInteger(seed)) throw new UsageError(`--seed must be an integer, got "${o.seed}"`);
    const genOpts = { services: svcs, endpoints: eps, seed, nodes: nodeCount };
    let nodeNames: string[];
    if (lazy) {
      generatedStream = () => generateServiceStream(genOpts);
      services = [];
      slices = [];
      nodeNames = generatedNodeNames(genOpts);
    } else {
      generated = generateServices(genOpts);
      services = generated.services;
      slices = generated.endpointSlices;
      nodeNames = generated.nodes;
    }
    // every generated node has the one address: their rulesets differ by their local endpoints
    const generatedNode = (name: string): ProxyNode => ({ name, ips: { IPv4: '192.168.0.10' } });
    node = generatedNode(o.node ?? nodeNames[0]);
    nodes = nodeNames.map(generatedNode);
    clusterCIDR ??= GEN_CLUSTER_CIDR;
  } else {
    const objs = await load(o.cluster!);
    services = objs.services;
    slices = objs.endpointSlices;
    const endpoints = slices.reduce((n, x) => n + (Array.isArray(x.endpoints) ? x.endpoints.length : 0), 0);
    if (services.length > LIMITS.services)
      throw new CliError(
        `--cluster: ${services.length} Services is above the limit of ${LIMITS.services} (see "Limits" in the README)`,
      );
    if (endpoints > LIMITS.endpoints)
      throw new CliError(
        `--cluster: ${endpoints} endpoints is above the limit of ${LIMITS.endpoints} (see "Limits" in the README)`,
      );
    const sorted = [...objs.nodes].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
    nodes = sorted.map(proxyNodeFromNode);
    if (o.node) {
      node = nodes.find((x) => x.name === o.node) ?? { name: o.node };
    } else if (nodes.length) {
      node = nodes[0];
    } else {
      node = { name: '' };
    }
    const others = nodes.filter((n) => n.name !== node.name).length;
    if (others && !allNodes)
      warn(`${others} Node(s) other than "${node.name}" not used: kube-proxy reads only its own Node`);
  }
  node = withNodeFlags(node, o);
  warnUnusedSlices(slices, families);

  let renderer;
  try {
    renderer = await loadRenderer(o.mode);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  const options = proxierOptions(o, clusterCIDR);
  return {
    node,
    nodes,
    families,
    mode,
    services,
    slices,
    options,
    renderer,
    generated,
    generatedStream,
    sources,
    load,
  };
}

function churnOf(o: InputOpts): number {
  const churn = o.churn === undefined ? 0 : Number(o.churn);
  if (!Number.isInteger(churn) || churn < 0)
    throw new UsageError(`--churn must be a whole number, got "${o.churn}"`);
  if (churn > LIMITS.syncSteps)
    throw new UsageError(
      `--churn: ${churn} is above the limit of ${LIMITS.syncSteps} (see "Limits" in the README)`,
    );
  return churn;
}

/**
 * Loads the input, feeds it to the proxier(s) and runs the full sync (and the partial syncs asked
 * for); `cmd` tells which flags were given (for warnings), `onStep` reports progress.
 */
export async function run(
  o: InputOpts,
  cmd?: Command,
  onStep: (what: string) => void = () => {},
  stream?: (chunk: Uint8Array) => void,
  readOnce = false,
): Promise<Run> {
  // `readOnce`: only the full sync, so a generated cluster need not be held whole
  const { node, families, services, slices, options, renderer, generated, generatedStream, sources, load } =
    await prepare(o, cmd, false, readOnce);
  const churn = churnOf(o);
  const invalid: string[] = [];
  // streamed: rendered from scratch (the reference walk, no per-port caches) and written out as it goes
  const proxierOptions = stream ? { ...options, incremental: false, stream } : options;
  const newTarget = () =>
    new MetaProxier(node, families, (state) => renderer.createProxier(state, proxierOptions));

  let target: MetaProxier;
  const syncs: FamilySync[][] = [];
  let serviceCount = services.length;
  let sliceCount = slices.length;
  // every sync is printed after the last one: read its texts now (ipvs folds them on first read,
  // from state the next sync changes)
  const settle = (s: FamilySync[]) => {
    for (const { result } of s) {
      // a mode with chunks keeps its text as bytes; ipvs folds its texts from live state
      if (!result.chunks) void result.text;
      void [result.stats, ...result.artifacts.map((a) => (a.chunks ? '' : a.text))];
    }
    syncs.push(s);
  };
  try {
    target = newTarget();
    for (const x of services) target.onServiceAdd(x);
    for (const x of slices) target.onEndpointSliceAdd(x);
    for (const g of generatedStream?.() ?? []) {
      target.onServiceAdd(g.service);
      for (const x of g.slices) target.onEndpointSliceAdd(x);
      serviceCount++;
      sliceCount += g.slices.length;
    }
    onStep(`${serviceCount} services loaded`);
    settle(target.sync());
    onStep('full sync');
    if (o.update || o.delete) {
      const curSvcs = new Map(services.map((x) => [objKey(x), x]));
      const curSlices = new Map(slices.map((x) => [objKey(x), x]));
      if (o.update) {
        const upd = await load(o.update);
        for (const x of upd.services) {
          const prev = curSvcs.get(objKey(x));
          if (prev) target.onServiceUpdate(prev, x);
          else target.onServiceAdd(x);
          curSvcs.set(objKey(x), x);
        }
        for (const x of upd.endpointSlices) {
          const prev = curSlices.get(objKey(x));
          if (prev) target.onEndpointSliceUpdate(prev, x);
          else target.onEndpointSliceAdd(x);
          curSlices.set(objKey(x), x);
        }
      }
      if (o.delete) {
        const del = await load(o.delete);
        for (const x of del.services) {
          const prev = curSvcs.get(objKey(x));
          if (!prev) throw new CliError(`--delete: Service ${objKey(x)} is not in the cluster`);
          target.onServiceDelete(prev);
        }
        for (const x of del.endpointSlices) {
          const prev = curSlices.get(objKey(x));
          if (!prev) throw new CliError(`--delete: EndpointSlice ${objKey(x)} is not in the cluster`);
          target.onEndpointSliceDelete(prev);
        }
      }
      settle(target.sync());
      onStep('partial sync');
    }
    if (churn > 0 && generated) {
      const rng = new Rng(Number(o.seed) + 1);
      for (let i = 0; i < churn; i++) {
        const before = generated.endpointSlices.slice();
        const ch = changeOneEndpoint(generated, rng);
        target.onEndpointSliceUpdate(before[ch.sliceIndex], ch.slice);
      }
      settle(target.sync());
      onStep('churn sync');
    }
  } catch (e) {
    // bad option values (a CIDR that is none, a scheduler that does not exist) surface here
    if (e instanceof TypeError) throw new UsageError(e.message);
    throw e;
  }
  for (const e of target.invalidObjects()) {
    const at = sources.get(e.object);
    invalid.push(at ? `${at}: ${e.message}` : e.message);
  }
  if (invalid.length)
    warn(
      `skipped ${invalid.length} invalid object(s), as kube-proxy's own checks skip them: ${invalid.join('; ')}`,
    );
  const rerenderFull = () => {
    if (generatedStream) throw new Error('rerenderFull: the generated cluster was read once and not kept');
    // a new proxier over the same objects renders a full sync, as kube-proxy's forced resync does
    const t = newTarget();
    for (const x of services) t.onServiceAdd(x);
    for (const x of slices) t.onEndpointSliceAdd(x);
    return t.sync();
  };
  return { node, families, services: serviceCount, slices: sliceCount, syncs, rerenderFull };
}

/** EndpointSlices kube-proxy does not use: no Service label, FQDN, or of a family not rendered. */
function warnUnusedSlices(slices: readonly EndpointSlice[], families: readonly IPFamily[]): void {
  const noLabel = slices.filter((s) => !s.metadata.labels?.[SERVICE_NAME_LABEL]);
  const fqdn = slices.filter((s) => s.addressType === 'FQDN');
  const otherFamily = slices.filter(
    (s) => (s.addressType === 'IPv4' || s.addressType === 'IPv6') && !families.includes(s.addressType),
  );
  const parts: string[] = [];
  const names = (xs: EndpointSlice[]) => xs.map(objKey).join(', ');
  if (noLabel.length) parts.push(`without a ${SERVICE_NAME_LABEL} label: ${names(noLabel)}`);
  if (fqdn.length) parts.push(`of addressType FQDN: ${names(fqdn)}`);
  if (otherFamily.length)
    parts.push(
      `of the other IP family (render it with --family ${otherFamily[0].addressType} or dual): ${names(otherFamily)}`,
    );
  if (parts.length) warn(`EndpointSlices not used by kube-proxy ${parts.join('; ')}`);
}

export function warn(msg: string): void {
  process.stderr.write(`kubesim: warning: ${msg}\n`);
}

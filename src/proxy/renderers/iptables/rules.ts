/**
 * The iptables-restore input kube-proxy's iptables proxier writes on a sync
 * (kubernetes pkg/proxy/iptables/proxier.go syncProxyRules + writeServiceToEndpointRules),
 * rebuilt from the model: same tables, chains, rule order, comments, match order and
 * number formats.
 *
 *   *filter  KUBE-SERVICES, KUBE-EXTERNAL-SERVICES, KUBE-FORWARD, KUBE-NODEPORTS,
 *            KUBE-PROXY-FIREWALL (+ KUBE-FIREWALL with localhost NodePorts on IPv4):
 *            REJECT for services without endpoints, DROP for Local policies without local
 *            endpoints, health-check node ports, LB source-range drops, forwarding rules.
 *   *nat     KUBE-SERVICES, KUBE-NODEPORTS, KUBE-POSTROUTING, KUBE-MARK-MASQ, then per
 *            service port KUBE-SVC-/SVL-/EXT-/FW-/SEP- chains.
 *
 * A partial sync (`updatedServices` given) writes every top-level chain but only the
 * per-service chains of updated Services; the others are counted (for the rule metrics)
 * and dropped, exactly like kube-proxy. Stale chains found in `existingNatChains` are
 * flushed and deleted (`-X`).
 *
 * Differences from kube-proxy, all in ordering only: Services are visited in sorted key
 * order (Go map order is random) and stale chains are deleted in sorted order. Upstream's
 * tests normalise both away (sortIPTablesRules, normalize.ts).
 */
import {
  endpointCount,
  type EndpointInfo,
  EndpointListMap,
  type EndpointsMap,
  type IPFamily,
  type LocalTrafficDetector,
  type NodePortAddresses,
  type ProxyNode,
  type ServicePortInfo,
  type ServicePortMap,
  type CategorizedEndpoints,
  categorizeEndpoints,
  cidrContains,
  isLoopback,
  newNodePortAddresses,
  nodeIPsIn,
  READY,
  resolveLocalDetector,
  type TrafficPolicy,
  trafficPolicy,
} from '../../model/index.js';
import { masqueradeMarkOf, type ProxierOptions } from '../types.js';
import { chainLine, LineBuffer, type LineSink, SpillFile } from './lines.js';
import { chainsOf, nameServicePort, type ServiceChains, sepChainOf } from './chain-cache.js';
import { sepRuleKernel } from './sep-wasm.js';
import { isServiceChainName } from './names.js';
import { probability } from './probability.js';

export const KUBE_SERVICES = 'KUBE-SERVICES';
export const KUBE_EXTERNAL_SERVICES = 'KUBE-EXTERNAL-SERVICES';
export const KUBE_NODEPORTS = 'KUBE-NODEPORTS';
export const KUBE_POSTROUTING = 'KUBE-POSTROUTING';
export const KUBE_MARK_MASQ = 'KUBE-MARK-MASQ';
export const KUBE_FORWARD = 'KUBE-FORWARD';
export const KUBE_PROXY_FIREWALL = 'KUBE-PROXY-FIREWALL';
export const KUBE_FIREWALL = 'KUBE-FIREWALL';

/** kube-proxy's largeClusterEndpointsThreshold */
export const LARGE_CLUSTER_ENDPOINTS_THRESHOLD = 1000;

/** Settings of the iptables mode that change the rules (kube-proxy flags / config fields). */
export interface IptablesOptions extends Omit<ProxierOptions, 'clock'> {
  /** iptables.localhostNodePorts (default true; always false for IPv6) */
  localhostNodePorts?: boolean;
  /** iptables supports MASQUERADE --random-fully (iptables ≥ 1.6.2; default true) */
  randomFully?: boolean;
  /** the kernel has nfacct, so kube-proxy's counters exist (default true) */
  nfacct?: boolean;
  /** net.netfilter.nf_conntrack_tcp_be_liberal is set (no INVALID drop rule; default false) */
  conntrackTCPLiberal?: boolean;
  /** endpoints above which comments are dropped (default 1000) */
  largeClusterEndpointsThreshold?: number;
  /** feature gate PreferSameTrafficDistribution (default true) */
  preferSameTrafficDistribution?: boolean;
  /**
   * where chain names are hashed (SHA-256 + base32): 'wasm' (default) hashes a service port's
   * uncached names in one WebAssembly call (assembly/proxy_names.ts), 'js' one node:crypto call
   * each — the reference; the names are the same
   */
  hashKernel?: 'wasm' | 'js';
  /**
   * who writes each endpoint's KUBE-SEP rule pair: 'wasm' (default) one WebAssembly call per
   * service port (assembly/proxy_rules.ts; IPv4 endpoints), 'js' template strings — the reference;
   * the bytes are the same
   */
  ruleKernel?: 'wasm' | 'js';
}

/** What one sync renders from. */
export interface IptablesRenderInput {
  readonly family: IPFamily;
  readonly servicePorts: ServicePortMap;
  readonly endpoints: EndpointsMap;
  readonly node: ProxyNode;
  /** "ns/name" of changed Services for a partial sync; null/undefined for a full sync */
  readonly updatedServices?: ReadonlySet<string> | null;
  /**
   * nat chains present before this restore (kube-proxy reads them with iptables-save);
   * chains kube-proxy owns that are no longer used get `-X`. null skips the cleanup.
   */
  readonly existingNatChains?: ReadonlySet<string> | null;
}

/** The restore text plus the counts kube-proxy logs and exports as metrics. */
export interface IptablesRenderResult {
  /** the iptables-restore input: "*filter … COMMIT\n*nat … COMMIT\n" (decoded from `bytes` on first use) */
  readonly text: string;
  /** the same input as bytes (what is piped to iptables-restore) */
  readonly bytes: Buffer;
  /** the same bytes in the pieces they were rendered in (write them in order: `bytes` joins them) */
  readonly chunks: readonly Buffer[];
  /** bytes.length */
  readonly byteLength: number;
  readonly fullSync: boolean;
  readonly largeClusterMode: boolean;
  /** lines written per buffer (numFilterChains, numFilterRules, numNATChains, numNATRules) */
  readonly filterChains: number;
  readonly filterRules: number;
  readonly natChains: number;
  readonly natRules: number;
  /** chains/rules of unchanged services left out of a partial sync */
  readonly skippedNatChains: number;
  readonly skippedNatRules: number;
  /** stale chains deleted with -X */
  readonly deletedChains: number;
  /** their names, sorted */
  readonly deletedChainNames: readonly string[];
  /** kube-proxy's sync_proxy_rules_iptables_total{table=filter|nat}: rules present after the sync */
  readonly rulesTotal: { readonly filter: number; readonly nat: number };
  /** sync_proxy_rules_iptables_last{table}: rules written by this sync */
  readonly rulesLastSync: { readonly filter: number; readonly nat: number };
  /** nat chains in use after this sync */
  readonly activeNatChains: Set<string>;
  readonly totalEndpoints: number;
  readonly serviceNoLocalEndpointsInternal: number;
  readonly serviceNoLocalEndpointsExternal: number;
}

/**
 * Everything one render reads and writes: resolved settings and the six line buffers.
 * incremental.ts points `filterRules` / `natRules` / `activeNatChains` at one service port's
 * own sinks while it renders that port, to cache what it wrote.
 */
export interface RenderContext {
  readonly input: IptablesRenderInput;
  readonly opts: IptablesOptions;
  readonly isIPv6: boolean;
  readonly mark: string;
  readonly detector: LocalTrafficDetector | null;
  /** the detector's arguments joined, precomputed because every service writes them */
  readonly ifLocal: string;
  readonly ifNotLocal: string;
  readonly npa: NodePortAddresses;
  /** kube-proxy turns localhost NodePorts off for IPv6 and when --nodeport-addresses excludes 127.0.0.1 */
  readonly localhostNodePorts: boolean;
  readonly nfacct: boolean;
  readonly fullSync: boolean;
  readonly largeClusterMode: boolean;
  readonly totalEndpoints: number;
  readonly filterChains: LineBuffer;
  filterRules: LineSink;
  readonly natChains: LineBuffer;
  natRules: LineSink;
  /** the output buffers behind filterRules / natRules */
  readonly filterOut: LineBuffer;
  readonly natOut: LineBuffer;
  /** what a partial sync computes for unchanged services only to count it */
  readonly skippedNatChains: LineBuffer;
  readonly skippedNatRules: LineBuffer;
  activeNatChains: Set<string>;
  /**
   * the chains the port kernel writes are not added to `activeNatChains`; they are read back from
   * the nat chain declarations when asked (a full sync of renderIptables: every chain in use is
   * declared there), so a one-sync render never builds a million name strings
   */
  declaredChainsOnly: boolean;
  noLocalInternal: number;
  noLocalExternal: number;
}

/**
 * Renders one sync's iptables-restore input. Pure: the caller (proxier.ts) keeps the
 * kernel-side state (existing chains, full/partial decision). The steps, in kube-proxy's order:
 *
 *   1. declare the top-level chains and write their fixed rules (writeBaseChains);
 *   2. per service port, in sorted order: the top-level captures that send its IPs and ports
 *      to its chains or to REJECT/DROP (writeServiceCaptures), then its own chains
 *      (writeServiceChains), dropped after counting for unchanged Services of a partial sync;
 *   3. delete the stale chains kube-proxy owns (deleteStaleChains);
 *   4. the jump to KUBE-NODEPORTS, last in nat KUBE-SERVICES (writeNodePortsJump);
 *   5. KUBE-FORWARD (writeForwardRules), then the four buffers joined into the restore input.
 */
export function renderIptables(input: IptablesRenderInput, opts: IptablesOptions = {}): IptablesRenderResult {
  const ctx = newRenderContext(input, opts);
  if (!opts.stream) return renderInto(ctx);
  const spill = new SpillFile();
  ctx.natOut.spill = spill;
  try {
    return renderInto(ctx);
  } finally {
    spill.close();
  }
}

function renderInto(ctx: RenderContext): IptablesRenderResult {
  const input = ctx.input;
  ctx.declaredChainsOnly = ctx.fullSync;
  writeBaseChains(ctx);
  const keys = [...input.servicePorts.keys()].sort();
  for (const key of keys) {
    const svc = input.servicePorts.get(key)!;
    const plan = planPort(ctx, key, svc);
    writeServiceCaptures(ctx, plan);
    const unchanged = !ctx.fullSync && !input.updatedServices!.has(svc.serviceName);
    writeServiceChains(
      ctx,
      plan,
      unchanged ? ctx.skippedNatChains : ctx.natChains,
      unchanged ? ctx.skippedNatRules : ctx.natRules,
    );
  }
  if (ctx.declaredChainsOnly && ctx.input.existingNatChains?.size)
    ctx.activeNatChains = declaredServiceChains(ctx.natChains);
  const stale = deleteStaleChains(ctx);
  writeNodePortsJump(ctx);
  writeForwardRules(ctx);
  if (!ctx.declaredChainsOnly) return collectResult(ctx, stale);
  return collectResult(ctx, stale, () => {
    const active = declaredServiceChains(ctx.natChains);
    for (const c of stale) active.delete(c);
    return active;
  });
}

/** The service chains declared in nat (`:KUBE-SVC-… - [0:0]` lines). */
function declaredServiceChains(natChains: LineBuffer): Set<string> {
  const out = new Set<string>();
  for (const line of natChains.text().split('\n')) {
    const name = line.slice(1, line.indexOf(' '));
    if (isServiceChainName(name)) out.add(name);
  }
  return out;
}

/** The context of one render; `totalEndpoints` when the caller keeps the count (incremental.ts). */
export function newRenderContext(
  input: IptablesRenderInput,
  opts: IptablesOptions,
  totalEndpoints = countEndpoints(input),
): RenderContext {
  const family = input.family;
  const isIPv6 = family === 'IPv6';
  const detector = resolveLocalDetector({ nodePodCIDRs: input.node.podCIDRs, ...opts }, family);
  const npa = newNodePortAddresses(opts.nodePortAddresses, family, input.node);
  const filterRules = new LineBuffer();
  const natRules = new LineBuffer();
  return {
    input,
    opts,
    isIPv6,
    mark: masqueradeMarkOf(opts),
    detector,
    ifLocal: detector ? detector.ifLocal.join(' ') : '',
    ifNotLocal: detector ? detector.ifNotLocal.join(' ') : '',
    npa,
    localhostNodePorts: !isIPv6 && (opts.localhostNodePorts ?? true) && npa.containsIPv4Loopback,
    nfacct: opts.nfacct ?? true,
    fullSync: input.updatedServices == null,
    largeClusterMode:
      totalEndpoints > (opts.largeClusterEndpointsThreshold ?? LARGE_CLUSTER_ENDPOINTS_THRESHOLD),
    totalEndpoints,
    filterChains: new LineBuffer(),
    filterRules,
    natChains: new LineBuffer(),
    natRules,
    filterOut: filterRules,
    natOut: natRules,
    skippedNatChains: new LineBuffer(false),
    skippedNatRules: new LineBuffer(false),
    activeNatChains: new Set(),
    declaredChainsOnly: false,
    noLocalInternal: 0,
    noLocalExternal: 0,
  };
}

function countEndpoints(input: IptablesRenderInput): number {
  let n = 0;
  for (const k of input.servicePorts.keys()) n += endpointCount(input.endpoints, k);
  return n;
}

/** Step 1: top-level chains of both tables, masquerading, and the localhost anti-martian rule. */
export function writeBaseChains(ctx: RenderContext): void {
  const { mark } = ctx;
  for (const c of [KUBE_SERVICES, KUBE_EXTERNAL_SERVICES, KUBE_FORWARD, KUBE_NODEPORTS, KUBE_PROXY_FIREWALL])
    ctx.filterChains.write(chainLine(c));
  for (const c of [KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ])
    ctx.natChains.write(chainLine(c));

  ctx.natRules.write(`-A ${KUBE_POSTROUTING} -m mark ! --mark ${mark}/${mark} -j RETURN`);
  ctx.natRules.write(`-A ${KUBE_POSTROUTING} -j MARK --xor-mark ${mark}`);
  ctx.natRules.write(
    `-A ${KUBE_POSTROUTING} -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE` +
      ((ctx.opts.randomFully ?? true) ? ' --random-fully' : ''),
  );
  ctx.natRules.write(`-A ${KUBE_MARK_MASQ} -j MARK --or-mark ${mark}`);

  if (!ctx.isIPv6 && ctx.localhostNodePorts) {
    ctx.filterChains.write(chainLine(KUBE_FIREWALL));
    ctx.filterRules.write(
      `-A ${KUBE_FIREWALL} -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP`,
    );
  }
}

/** Where one service port's traffic goes this sync (the locals at the top of kube-proxy's loop). */
export interface ServicePlan {
  readonly svc: ServicePortInfo;
  readonly names: ServiceChains;
  /** `-m tcp -p tcp` */
  readonly protoMatch: string;
  readonly clusterEndpoints: readonly EndpointInfo[];
  readonly localEndpoints: readonly EndpointInfo[];
  readonly reachableEndpoints: readonly EndpointInfo[];
  /**
   * the endpoints as columns (EndpointList.cols) when the port kernel writes the KUBE-SVC and
   * KUBE-SEP chains (every endpoint reachable; the three lists above are empty), else null
   */
  readonly columns: Uint32Array | null;
  readonly hasEndpoints: boolean;
  readonly usesClusterPolicyChain: boolean;
  readonly usesLocalPolicyChain: boolean;
  readonly internalTrafficChain: string;
  readonly hasInternalEndpoints: boolean;
  readonly externalPolicyChain: string;
  readonly hasExternalEndpoints: boolean;
  readonly usesExternalTrafficChain: boolean;
  readonly loadBalancerTrafficChain: string;
  readonly usesFWChain: boolean;
  /** REJECT / DROP and its comment for traffic with nowhere to go ("" when there is somewhere) */
  readonly internalFilterTarget: string;
  readonly internalFilterComment: string;
  readonly externalFilterTarget: string;
  readonly externalFilterComment: string;
}

/**
 * The plan of the port `key`: from its endpoint columns when the port kernel can write its
 * chains (kernelColumns), else from its EndpointInfo objects (planServicePort).
 */
export function planPort(ctx: RenderContext, key: string, svc: ServicePortInfo): ServicePlan {
  const cols = kernelColumns(ctx, key, svc);
  if (!cols) return planServicePort(ctx, svc, ctx.input.endpoints.get(key));
  if (ctx.opts.hashKernel !== 'js') nameServicePort(svc, undefined);
  // categorizeEndpoints + trafficPolicy when some endpoint is ready, none has a hint and only the
  // Cluster policy is used: the cluster endpoints (all reachable ones) are the ready ones
  return planWith(
    ctx,
    svc,
    chainsOf(svc),
    {
      usesClusterPolicy: true,
      usesLocalPolicy: false,
      hasInternalEndpoints: true,
      hasExternalEndpoints: !svc.externalPolicyLocal,
      usesExternalTrafficChain: svc.externallyAccessible,
    },
    true,
    EMPTY_ENDPOINTS,
    cols,
  );
}

const EMPTY_ENDPOINTS: readonly EndpointInfo[] = [];
/** a character at or above U+0080 (one regex test: charCodeAt walks a rope string slowly) */
const NOT_ASCII = /[\u0080-\uffff]/;

/**
 * The columns of the port's ready endpoints when the WebAssembly port kernel
 * (assembly/proxy_rules.ts servicePort) writes its KUBE-SVC / KUBE-SEP chains: IPv4, at least one
 * endpoint ready, dotted-quad addresses, no topology hint, a Service that uses only the Cluster
 * traffic policy.
 * Everything else (Local policies, terminating fallback, topology, IPv6, names that are not
 * ASCII, the 'js' kernels) is
 * planned from EndpointInfo objects and written by the JavaScript below, the reference.
 */
function kernelColumns(ctx: RenderContext, key: string, svc: ServicePortInfo): Uint32Array | null {
  const map = ctx.input.endpoints;
  if (ctx.isIPv6 || ctx.opts.ruleKernel === 'js' || ctx.opts.hashKernel === 'js') return null;
  if (!svc.usesClusterEndpoints || svc.usesLocalEndpoints || !(map instanceof EndpointListMap)) return null;
  // kube-proxy hashes names as UTF-8; the kernel hashes the bytes it writes
  if (NOT_ASCII.test(svc.nameString)) return null;
  const list = map.list(key);
  if (!list || list.length === 0 || list.texts || list.hints) return null;
  const cols = list.cols;
  let ready = 0;
  for (let i = 0; i < cols.length; i += 4) if ((cols[i] >>> 16) & READY) ready++;
  // none ready: the serving-and-terminating fallback, left to the objects
  if (ready === 0) return null;
  if (4 * ready === cols.length) return cols;
  // the cluster endpoints are the ready ones (Go CategorizeEndpoints without topology)
  const out = new Uint32Array(4 * ready);
  let o = 0;
  for (let i = 0; i < cols.length; i += 4)
    if ((cols[i] >>> 16) & READY) {
      out.set(cols.subarray(i, i + 4), o);
      o += 4;
    }
  return out;
}

export function planServicePort(
  ctx: RenderContext,
  svc: ServicePortInfo,
  endpoints: readonly EndpointInfo[] | undefined,
): ServicePlan {
  if (ctx.opts.hashKernel !== 'js') nameServicePort(svc, endpoints);
  const names = chainsOf(svc);
  const node = ctx.input.node;
  const cat = categorizeEndpoints(endpoints, svc, node.name, node.topologyLabels, {
    preferSameTrafficDistribution: ctx.opts.preferSameTrafficDistribution,
  });
  return planWith(ctx, svc, names, trafficPolicy(svc, cat), cat.hasAnyEndpoints, endpoints ?? [], null, cat);
}

function planWith(
  ctx: RenderContext,
  svc: ServicePortInfo,
  names: ServiceChains,
  policy: TrafficPolicy,
  hasEndpoints: boolean,
  reachable: readonly EndpointInfo[],
  columns: Uint32Array | null,
  cat?: CategorizedEndpoints,
): ServicePlan {
  const spn = svc.nameString;
  const { hasInternalEndpoints, hasExternalEndpoints } = policy;
  const usesFWChain =
    hasEndpoints && svc.loadBalancerVIPs.length > 0 && svc.loadBalancerSourceRanges.length > 0;

  let internalFilterTarget = '';
  let internalFilterComment = '';
  let externalFilterTarget = '';
  let externalFilterComment = '';
  if (!hasEndpoints) {
    internalFilterTarget = externalFilterTarget = 'REJECT';
    internalFilterComment = externalFilterComment = `"${spn} has no endpoints"`;
  } else {
    if (!hasInternalEndpoints) {
      internalFilterTarget = 'DROP';
      internalFilterComment = `"${spn} has no local endpoints"`;
      ctx.noLocalInternal++;
    }
    if (!hasExternalEndpoints) {
      externalFilterTarget = 'DROP';
      externalFilterComment = `"${spn} has no local endpoints"`;
      ctx.noLocalExternal++;
    }
  }
  return {
    svc,
    names,
    protoMatch: `-m ${names.protocol} -p ${names.protocol}`,
    clusterEndpoints: cat?.clusterEndpoints ?? EMPTY_ENDPOINTS,
    localEndpoints: cat?.localEndpoints ?? EMPTY_ENDPOINTS,
    reachableEndpoints: cat ? cat.allReachableEndpoints : reachable,
    columns,
    hasEndpoints,
    usesClusterPolicyChain: policy.usesClusterPolicy,
    usesLocalPolicyChain: policy.usesLocalPolicy,
    internalTrafficChain: svc.internalPolicyLocal ? names.local : names.cluster,
    hasInternalEndpoints,
    externalPolicyChain: svc.externalPolicyLocal ? names.local : names.cluster,
    hasExternalEndpoints,
    usesExternalTrafficChain: policy.usesExternalTrafficChain,
    loadBalancerTrafficChain: usesFWChain ? names.firewall : names.external,
    usesFWChain,
    internalFilterTarget,
    internalFilterComment,
    externalFilterTarget,
    externalFilterComment,
  };
}

/**
 * Step 2a: the top-level rules of one service port — its cluster IP, external IPs, load-balancer
 * IPs, node port and health-check node port — into nat KUBE-SERVICES/KUBE-NODEPORTS, or into the
 * filter chains when there is no endpoint for that kind of traffic.
 */
export function writeServiceCaptures(ctx: RenderContext, p: ServicePlan): void {
  const { svc, protoMatch } = p;
  const spn = svc.nameString;
  const port = svc.port;
  const clusterIPMatch = `${protoMatch} -d ${svc.clusterIP} --dport ${port}`;
  const { natRules, filterRules } = ctx;

  if (p.hasInternalEndpoints) {
    natRules.write(
      `-A ${KUBE_SERVICES} -m comment --comment "${spn} cluster IP" ${clusterIPMatch} -j ${p.internalTrafficChain}`,
    );
  } else {
    filterRules.write(
      `-A ${KUBE_SERVICES} -m comment --comment ${p.internalFilterComment} ${clusterIPMatch} -j ${p.internalFilterTarget}`,
    );
  }

  for (const eip of svc.externalIPs) {
    if (p.hasEndpoints) {
      natRules.write(
        `-A ${KUBE_SERVICES} -m comment --comment "${spn} external IP" ${protoMatch} -d ${eip} --dport ${port} -j ${p.names.external}`,
      );
    }
    if (!p.hasExternalEndpoints) {
      filterRules.write(
        `-A ${KUBE_EXTERNAL_SERVICES} -m comment --comment ${p.externalFilterComment} ${protoMatch} -d ${eip} --dport ${port} -j ${p.externalFilterTarget}`,
      );
    }
  }

  for (const lbip of svc.loadBalancerVIPs) {
    if (p.hasEndpoints) {
      natRules.write(
        `-A ${KUBE_SERVICES} -m comment --comment "${spn} loadbalancer IP" ${protoMatch} -d ${lbip} --dport ${port} -j ${p.loadBalancerTrafficChain}`,
      );
    }
    if (p.usesFWChain) {
      filterRules.write(
        `-A ${KUBE_PROXY_FIREWALL} -m comment --comment "${spn} traffic not accepted by ${p.names.firewall}" ${protoMatch} -d ${lbip} --dport ${port} -j DROP`,
      );
    }
  }
  if (!p.hasExternalEndpoints) {
    for (const lbip of svc.loadBalancerVIPs) {
      filterRules.write(
        `-A ${KUBE_EXTERNAL_SERVICES} -m comment --comment ${p.externalFilterComment} ${protoMatch} -d ${lbip} --dport ${port} -j ${p.externalFilterTarget}`,
      );
    }
  }

  if (svc.nodePort !== 0) {
    if (p.hasEndpoints) {
      if (ctx.localhostNodePorts && ctx.nfacct) {
        natRules.write(
          `-A ${KUBE_NODEPORTS} -m comment --comment ${spn} ${protoMatch} -d 127.0.0.0/8 --dport ${svc.nodePort} -m nfacct --nfacct-name localhost_nps_accepted_pkts -j ${p.names.external}`,
        );
      }
      natRules.write(
        `-A ${KUBE_NODEPORTS} -m comment --comment ${spn} ${protoMatch} --dport ${svc.nodePort} -j ${p.names.external}`,
      );
    }
    if (!p.hasExternalEndpoints) {
      filterRules.write(
        `-A ${KUBE_EXTERNAL_SERVICES} -m comment --comment ${p.externalFilterComment} -m addrtype --dst-type LOCAL ${protoMatch} --dport ${svc.nodePort} -j ${p.externalFilterTarget}`,
      );
    }
  }

  if (svc.healthCheckNodePort !== 0) {
    filterRules.write(
      `-A ${KUBE_NODEPORTS} -m comment --comment "${spn} health check node port" -m tcp -p tcp --dport ${svc.healthCheckNodePort} -j ACCEPT`,
    );
  }
}

/**
 * Step 2b: the nat chains of one service port — masquerading of internal traffic, the external
 * (EXT) chain with its Local-policy short-circuits, the firewall (FW) chain of
 * loadBalancerSourceRanges, the policy (SVC/SVL) chains and one SEP chain per endpoint.
 */
export function writeServiceChains(ctx: RenderContext, p: ServicePlan, nc: LineSink, nr: LineSink): void {
  const { svc, names, protoMatch } = p;
  const spn = svc.nameString;
  const active = ctx.activeNatChains;

  if (p.hasInternalEndpoints) {
    const args = `-m comment --comment "${spn} cluster IP" ${protoMatch} -d ${svc.clusterIP} --dport ${svc.port}`;
    if (ctx.opts.masqueradeAll) nr.write(`-A ${p.internalTrafficChain} ${args} -j ${KUBE_MARK_MASQ}`);
    else if (ctx.detector)
      nr.write(`-A ${p.internalTrafficChain} ${args} ${ctx.ifNotLocal} -j ${KUBE_MARK_MASQ}`);
  }

  if (p.usesExternalTrafficChain) {
    const ext = names.external;
    nc.write(chainLine(ext));
    active.add(ext);
    if (!svc.externalPolicyLocal) {
      nr.write(
        `-A ${ext} -m comment --comment "masquerade traffic for ${spn} external destinations" -j ${KUBE_MARK_MASQ}`,
      );
    } else {
      if (ctx.detector) {
        nr.write(
          `-A ${ext} -m comment --comment "pod traffic for ${spn} external destinations" ${ctx.ifLocal} -j ${names.cluster}`,
        );
      }
      nr.write(
        `-A ${ext} -m comment --comment "masquerade LOCAL traffic for ${spn} external destinations" -m addrtype --src-type LOCAL -j ${KUBE_MARK_MASQ}`,
      );
      nr.write(
        `-A ${ext} -m comment --comment "route LOCAL traffic for ${spn} external destinations" -m addrtype --src-type LOCAL -j ${names.cluster}`,
      );
    }
    if (p.hasExternalEndpoints) nr.write(`-A ${ext} -j ${p.externalPolicyChain}`);
  }

  if (p.usesFWChain) {
    const fw = names.firewall;
    nc.write(chainLine(fw));
    active.add(fw);
    const args = `-A ${fw} -m comment --comment "${spn} loadbalancer IP"`;
    const nodeIP = ctx.input.node.ips?.[ctx.input.family];
    let allowFromNode = false;
    for (const cidr of svc.loadBalancerSourceRanges) {
      nr.write(`${args} -s ${cidr.text} -j ${names.external}`);
      if (nodeIP && cidrContains(cidr, nodeIP)) allowFromNode = true;
    }
    if (allowFromNode) {
      for (const lbip of svc.loadBalancerVIPs) nr.write(`${args} -s ${lbip} -j ${names.external}`);
    }
    nr.write(
      `-A ${fw} -m comment --comment "other traffic to ${spn} will be dropped by KUBE-PROXY-FIREWALL"`,
    );
  }

  if (p.columns) {
    writeKernelChains(ctx, p, nc, nr);
    return;
  }
  if (p.usesClusterPolicyChain) {
    nc.write(chainLine(names.cluster));
    active.add(names.cluster);
    writeServiceToEndpointRules(
      nr,
      svc,
      names.protocol,
      names.cluster,
      p.clusterEndpoints,
      ctx.largeClusterMode,
    );
  }
  if (p.usesLocalPolicyChain) {
    nc.write(chainLine(names.local));
    active.add(names.local);
    writeServiceToEndpointRules(nr, svc, names.protocol, names.local, p.localEndpoints, ctx.largeClusterMode);
  }

  const comment = ctx.largeClusterMode ? '' : ` -m comment --comment ${spn}`;
  const affinity = svc.sessionAffinity === 'ClientIP';
  const eps = p.reachableEndpoints;
  const seps = eps.map((ep) => sepChainOf(svc, names.protocol, ep));
  for (const sep of seps) {
    nc.write(chainLine(sep));
    active.add(sep);
  }
  const masq = ` -j ${KUBE_MARK_MASQ}`;
  const dnat = ` ${protoMatch} -j DNAT --to-destination `;
  // the endpoints' rule pairs: written by the WebAssembly kernel (IPv4), else here — the reference
  const text =
    ctx.opts.ruleKernel !== 'js' && eps.length > 0
      ? sepRuleKernel().lines(eps, seps, comment, masq, dnat, affinity)
      : null;
  if (text !== null) {
    nr.writeLines(text, 2 * eps.length);
    return;
  }
  eps.forEach((ep, i) => {
    const sep = seps[i];
    nr.write(`-A ${sep}${comment} -s ${ep.ip}${masq}`);
    nr.write(`-A ${sep}${comment}${affinity ? ` -m recent --name ${sep} --set` : ''}${dnat}${ep.endpoint}`);
  });
}

/**
 * The KUBE-SVC chain and the endpoints' KUBE-SEP chains of a port planned from columns, written by
 * the port kernel: what the usesClusterPolicyChain block and the SEP loop above write for it.
 */
function writeKernelChains(ctx: RenderContext, p: ServicePlan, nc: LineSink, nr: LineSink): void {
  const { svc, names } = p;
  const spn = svc.nameString;
  const large = ctx.largeClusterMode;
  const active = ctx.activeNatChains;
  sepRuleKernel().servicePort(
    {
      hashBase: spn + names.protocol,
      svcChain: names.cluster,
      sepComment: large ? '' : ` -m comment --comment ${spn}`,
      masq: ` -j ${KUBE_MARK_MASQ}`,
      dnat: ` ${p.protoMatch} -j DNAT --to-destination `,
      ladderComment: large ? '' : ` -m comment --comment "${spn} -> `,
      affinity:
        svc.sessionAffinity === 'ClientIP' ? ` --rcheck --seconds ${svc.stickyMaxAgeSeconds} --reap -j ` : '',
    },
    p.columns!,
    nc,
    nr,
    ctx.declaredChainsOnly ? null : (c) => active.add(c),
  );
}

/** Go writeServiceToEndpointRules: affinity checks first, then the random-probability ladder. */
function writeServiceToEndpointRules(
  nr: LineSink,
  svc: ServicePortInfo,
  protocol: string,
  svcChain: string,
  endpoints: readonly EndpointInfo[],
  largeClusterMode: boolean,
): void {
  const spn = svc.nameString;
  if (svc.sessionAffinity === 'ClientIP') {
    for (const ep of endpoints) {
      const sep = sepChainOf(svc, protocol, ep);
      const comment = largeClusterMode ? '' : ` -m comment --comment "${spn} -> ${ep.endpoint}"`;
      nr.write(
        `-A ${svcChain}${comment} -m recent --name ${sep} --rcheck --seconds ${svc.stickyMaxAgeSeconds} --reap -j ${sep}`,
      );
    }
  }
  const n = endpoints.length;
  for (let i = 0; i < n; i++) {
    const ep = endpoints[i];
    const sep = sepChainOf(svc, protocol, ep);
    const comment = largeClusterMode ? '' : ` -m comment --comment "${spn} -> ${ep.endpoint}"`;
    const stat = i < n - 1 ? ` -m statistic --mode random --probability ${probability(n - i)}` : '';
    nr.write(`-A ${svcChain}${comment}${stat} -j ${sep}`);
  }
}

/** Step 3: flush and delete (`-X`) kube-proxy's nat chains that are no longer in use. */
export function deleteStaleChains(ctx: RenderContext): string[] {
  const existing = ctx.input.existingNatChains;
  if (!existing) return [];
  const stale = [...existing].filter((c) => !ctx.activeNatChains.has(c) && isServiceChainName(c)).sort();
  for (const c of stale) {
    ctx.natChains.write(chainLine(c));
    ctx.natRules.write(`-X ${c}`);
  }
  return stale;
}

/** Step 4: the tail call to KUBE-NODEPORTS, which must be the last rule of nat KUBE-SERVICES. */
export function writeNodePortsJump(ctx: RenderContext): void {
  const lastRuleComment =
    '-m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain"';
  if (ctx.npa.matchAll) {
    let dest = '-m addrtype --dst-type LOCAL';
    if (ctx.isIPv6) dest += ' ! -d ::1/128';
    else if (!ctx.localhostNodePorts) dest += ' ! -d 127.0.0.0/8';
    ctx.natRules.write(`-A ${KUBE_SERVICES} ${lastRuleComment} ${dest} -j ${KUBE_NODEPORTS}`);
    return;
  }
  for (const ip of nodeIPsIn(ctx.npa, ctx.input.node)) {
    // localhost only where localhost NodePorts are on (never for IPv6)
    if (isLoopback(ip) && (ctx.isIPv6 || !ctx.localhostNodePorts)) continue;
    ctx.natRules.write(`-A ${KUBE_SERVICES} ${lastRuleComment} -d ${ip} -j ${KUBE_NODEPORTS}`);
  }
}

/** Step 5: the filter KUBE-FORWARD rules. */
export function writeForwardRules(ctx: RenderContext): void {
  const { mark, filterRules } = ctx;
  if (!ctx.opts.conntrackTCPLiberal) {
    filterRules.write(
      `-A ${KUBE_FORWARD} -m conntrack --ctstate INVALID${ctx.nfacct ? ' -m nfacct --nfacct-name ct_state_invalid_dropped_pkts' : ''} -j DROP`,
    );
  }
  filterRules.write(
    `-A ${KUBE_FORWARD} -m comment --comment "kubernetes forwarding rules" -m mark --mark ${mark}/${mark} -j ACCEPT`,
  );
  filterRules.write(
    `-A ${KUBE_FORWARD} -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`,
  );
}

/**
 * The restore input and counts of a render. `activeNatChains` computes the chains in use when
 * asked, for a caller whose context saw only some services (incremental.ts).
 */
export function collectResult(
  ctx: RenderContext,
  stale: string[],
  activeNatChains: () => Set<string> = () => ctx.activeNatChains,
): IptablesRenderResult {
  const { filterChains, natChains, skippedNatChains, skippedNatRules } = ctx;
  const filterRules = ctx.filterOut;
  const natRules = ctx.natOut;
  const head = [
    Buffer.from('*filter\n'),
    ...filterChains.bytesChunks(),
    ...filterRules.bytesChunks(),
    Buffer.from('COMMIT\n*nat\n'),
    ...natChains.bytesChunks(),
  ];
  const tail = Buffer.from('COMMIT\n');
  let byteLength = natRules.byteLength + tail.length;
  for (const c of head) byteLength += c.length;
  const stream = ctx.opts.stream;
  let chunks: readonly Buffer[];
  if (stream) {
    // streamed: the nat rules wait in their spill file until the chain lines are out
    for (const c of head) stream(c);
    if (natRules.spill) natRules.spill.replay(stream);
    else for (const c of natRules.bytesChunks()) stream(c);
    stream(tail);
    chunks = [];
  } else chunks = [...head, ...natRules.bytesChunks(), tail];
  let bytes: Buffer | undefined;
  let text: string | undefined;
  let active: Set<string> | undefined;
  const deletedChains = stale.length;
  return {
    get text() {
      text ??= this.bytes.toString('latin1');
      return text;
    },
    // joined on first use: a partial sync is mostly cached fragments, and copying them into one
    // buffer would cost more than the sync (a writer can take the chunks as they are)
    get bytes() {
      if (stream) throw new Error('renderIptables: the restore input was streamed, not kept');
      bytes ??= Buffer.concat(chunks, byteLength);
      return bytes;
    },
    chunks,
    byteLength,
    fullSync: ctx.fullSync,
    largeClusterMode: ctx.largeClusterMode,
    filterChains: filterChains.lines,
    filterRules: filterRules.lines,
    natChains: natChains.lines,
    natRules: natRules.lines,
    skippedNatChains: skippedNatChains.lines,
    skippedNatRules: skippedNatRules.lines,
    deletedChains,
    deletedChainNames: stale,
    rulesTotal: { filter: filterRules.lines, nat: natRules.lines + skippedNatRules.lines - deletedChains },
    rulesLastSync: { filter: filterRules.lines, nat: natRules.lines - deletedChains },
    get activeNatChains() {
      active ??= activeNatChains();
      return active;
    },
    totalEndpoints: ctx.totalEndpoints,
    serviceNoLocalEndpointsInternal: ctx.noLocalInternal,
    serviceNoLocalEndpointsExternal: ctx.noLocalExternal,
  };
}

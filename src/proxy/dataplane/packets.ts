/**
 * Seeded packet batches for the dataplane model: new connections aimed at the services'
 * frontends (ClusterIP, external IPs, load-balancer IPs, node IP:NodePort) from pods or from
 * outside, plus a share of misses (an unused ClusterIP-range address, or a known IP on a wrong
 * port). The same batch is classified by every mode, so results can be compared packet by packet.
 */
import type { ServicePortInfo, ServicePortMap, ProxyNode } from '../model/index.js';
import { Rng } from '../../util/rng.js';
import { newPacketBatch, type PacketBatch } from './kernel-js.js';
import { PKT_SRC_LOCAL, PROTO_NUM, ipToU32, parseCidr4 } from './program.js';

export type FrontendKind = 'clusterIP' | 'externalIP' | 'loadBalancer' | 'nodePort';

export interface Frontend {
  kind: FrontendKind;
  ip: string;
  proto: 'TCP' | 'UDP' | 'SCTP';
  port: number;
  /** ServicePortInfo.key */
  servicePort: string;
}

/** Every address:port a service port answers on, in sorted service-port order. */
export function frontendsOf(servicePorts: ServicePortMap, node: ProxyNode): Frontend[] {
  const out: Frontend[] = [];
  const nodeIP = node.ips?.IPv4;
  for (const key of [...servicePorts.keys()].sort()) {
    const s: ServicePortInfo = servicePorts.get(key)!;
    out.push({ kind: 'clusterIP', ip: s.clusterIP, proto: s.protocol, port: s.port, servicePort: key });
    for (const ip of s.externalIPs)
      out.push({ kind: 'externalIP', ip, proto: s.protocol, port: s.port, servicePort: key });
    for (const ip of s.loadBalancerVIPs)
      out.push({ kind: 'loadBalancer', ip, proto: s.protocol, port: s.port, servicePort: key });
    if (s.nodePort !== 0 && nodeIP)
      out.push({ kind: 'nodePort', ip: nodeIP, proto: s.protocol, port: s.nodePort, servicePort: key });
  }
  return out;
}

export interface PacketGenOptions {
  /** packets in the batch */
  n: number;
  seed?: number | string;
  /** pod CIDR pod-originated packets come from (default 100.64.0.0/10, the generator's) */
  podCIDR?: string;
  /** share of packets to external frontends that come from outside the cluster (default 0.5) */
  externalSourceShare?: number;
  /** share of packets that hit no service (default 0.05) */
  missShare?: number;
  /** share of packets that originate on the node itself (default 0.02) */
  nodeLocalShare?: number;
}

export interface GeneratedPackets extends PacketBatch {
  /** frontend index per packet, -1 for a miss */
  target: Int32Array;
  frontends: Frontend[];
}

export function generatePackets(
  servicePorts: ServicePortMap,
  node: ProxyNode,
  opts: PacketGenOptions,
): GeneratedPackets {
  if (!Number.isInteger(opts.n) || opts.n < 0)
    throw new TypeError(`generatePackets: options.n must be a non-negative integer, got ${String(opts.n)}`);
  const rng = new Rng(opts.seed ?? 1);
  const frontends = frontendsOf(servicePorts, node);
  const n = opts.n;
  const [podNet, podMask] = parseCidr4(opts.podCIDR ?? '100.64.0.0/10');
  const extShare = opts.externalSourceShare ?? 0.5;
  const miss = opts.missShare ?? 0.05;
  const nodeLocal = opts.nodeLocalShare ?? 0.02;
  const nodeIP = node.ips?.IPv4 ? ipToU32(node.ips.IPv4) : 0;
  const b: GeneratedPackets = { ...newPacketBatch(n), frontends, target: new Int32Array(n) };
  // a few hundred distinct clients, so that session affinity has repeat visitors
  const pods = Array.from({ length: 512 }, () => ((podNet | (rng.nextU32() & ~podMask)) >>> 0) | 0);
  const outside = Array.from(
    { length: 512 },
    () => (((203 << 24) | (0 << 16) | (113 << 8) | rng.int(256)) + (rng.int(64) << 8)) | 0,
  );
  for (let i = 0; i < n; i++) {
    b.seed[i] = rng.nextU32() | 0;
    if (frontends.length === 0 || rng.next() < miss) {
      b.target[i] = -1;
      const f = frontends.length ? frontends[rng.int(frontends.length)] : null;
      if (f && rng.next() < 0.5) {
        b.dst[i] = ipToU32(f.ip) | 0;
        b.dport[i] = 1 + rng.int(1023);
        b.proto[i] = PROTO_NUM[f.proto.toLowerCase()];
      } else {
        b.dst[i] = (10 << 24) | (111 << 16) | rng.int(65536) | 0;
        b.dport[i] = 80;
        b.proto[i] = 6;
      }
      b.src[i] = pods[rng.int(pods.length)];
      continue;
    }
    const k = rng.int(frontends.length);
    const f = frontends[k];
    b.target[i] = k;
    b.dst[i] = ipToU32(f.ip) | 0;
    b.dport[i] = f.port;
    b.proto[i] = PROTO_NUM[f.proto.toLowerCase()];
    if (rng.next() < nodeLocal && nodeIP) {
      b.src[i] = nodeIP | 0;
      b.flags[i] = PKT_SRC_LOCAL;
    } else if (f.kind !== 'clusterIP' && rng.next() < extShare) b.src[i] = outside[rng.int(outside.length)];
    else b.src[i] = pods[rng.int(pods.length)];
  }
  return b;
}

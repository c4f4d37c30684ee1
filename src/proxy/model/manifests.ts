/**
 * Picks the objects kube-proxy watches — Services, EndpointSlices, Nodes — out of YAML/JSON
 * manifests or `kubectl get -o yaml|json` output (multi-document YAML, `kind: List` and
 * `*List` wrappers), through the API's manifest loader (src/api/manifest.ts: YAML 1.1 like
 * kubectl, Lists, line numbers). Every object is read through the one validating loader
 * (src/api/manifest-check.ts loadValidManifests, what `kubesim validate` runs): an object the API
 * server would reject never reaches a real kube-proxy, and is an input error naming file, line,
 * object and field, as in every other command:
 *
 *   c.yaml:9: Service "web": spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive
 *
 * Objects of other kinds are counted and left out. Files that cannot be read or parsed and
 * invalid objects are an error (ProxyInputError).
 *
 * Also derives the ProxyNode of a node the way kube-proxy does: node IPs from
 * status.addresses (InternalIP first, then ExternalIP; one per family) and the zone label
 * that topology-aware routing reads.
 */
import { InvalidObjectsError, loadValidManifests } from '../../api/manifest-check.js';
import { ManifestError } from '../../api/manifest.js';
import type { EndpointSlice, Node, Service } from '../../api/types.js';
import { canonicalIP, ipFamilyOf, type IPFamily } from './ip.js';
import { LABEL_TOPOLOGY_ZONE } from '../../api/topology.js';
import type { ProxyNode } from './types.js';

export interface ProxyObjects {
  services: Service[];
  endpointSlices: EndpointSlice[];
  nodes: Node[];
  /** objects of other kinds, by kind */
  ignored: Record<string, number>;
  /** where each kept object starts, "file:line", by "Kind ns/name" ("Node name" for Nodes) */
  sources: Map<string, string>;
}

/**
 * Manifest input kube-proxy cannot read: "file:line: …". (Unreadable manifest text is the API
 * loader's ManifestError, rethrown as this.)
 */
export class ProxyInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProxyInputError';
  }
}

const KINDS = ['Service', 'EndpointSlice', 'Node'];

/** "Kind ns/name", or "Node name": how the model names an object in its messages. */
export function objectId(kind: string, namespace: string | undefined, name: string | undefined): string {
  return kind === 'Node' ? `Node ${name}` : `${kind} ${namespace ?? 'default'}/${name}`;
}

/** Reads files and directories (*.yaml, *.yml, *.json inside, sorted; `-` for stdin) into proxy objects. */
export async function loadProxyObjects(paths: readonly string[]): Promise<ProxyObjects> {
  const out: ProxyObjects = {
    services: [],
    endpointSlices: [],
    nodes: [],
    ignored: {},
    sources: new Map(),
  };
  let loaded: Awaited<ReturnType<typeof loadValidManifests>>;
  try {
    loaded = await loadValidManifests([...paths]);
  } catch (e) {
    if (e instanceof ManifestError || e instanceof InvalidObjectsError) throw new ProxyInputError(e.message);
    throw e;
  }
  for (const l of loaded) {
    const obj = l.object as unknown as Record<string, unknown>;
    const kind = obj.kind;
    const where = `${l.source.file}:${l.source.line}`;
    if (typeof kind !== 'string')
      throw new ProxyInputError(`${where}: document ${l.source.document + 1}: kind: missing`);
    if (!KINDS.includes(kind)) {
      out.ignored[kind] = (out.ignored[kind] ?? 0) + 1;
      continue;
    }
    const meta = obj.metadata as { name: string; namespace?: string };
    if (kind !== 'Node') meta.namespace ??= 'default';
    out.sources.set(objectId(kind, meta.namespace, meta.name), where);
    if (kind === 'Service') out.services.push(obj as unknown as Service);
    else if (kind === 'EndpointSlice') {
      obj.endpoints ??= [];
      out.endpointSlices.push(obj as unknown as EndpointSlice);
    } else out.nodes.push(obj as unknown as Node);
  }
  return out;
}

/**
 * kube-proxy's view of a Node: name, node IP per family (InternalIP first, then ExternalIP), every
 * InternalIP/ExternalIP address as the node's addresses (what --nodeport-addresses selects from),
 * spec.podCIDRs (--detect-local-mode=NodeCIDR) and the zone label.
 */
export function proxyNodeFromNode(node: Node): ProxyNode {
  const ips: Partial<Record<IPFamily, string>> = {};
  const localAddresses: string[] = [];
  const addrs = node.status?.addresses ?? [];
  for (const type of ['InternalIP', 'ExternalIP'] as const) {
    for (const a of addrs) {
      if (a.type !== type) continue;
      const ip = canonicalIP(a.address);
      if (!ip) continue;
      const fam = ipFamilyOf(ip)!;
      if (!ips[fam]) ips[fam] = ip;
      if (!localAddresses.includes(ip)) localAddresses.push(ip);
    }
  }
  const zone = node.metadata?.labels?.[LABEL_TOPOLOGY_ZONE];
  const spec = node.spec as { podCIDRs?: string[]; podCIDR?: string } | undefined;
  const podCIDRs = spec?.podCIDRs ?? (spec?.podCIDR ? [spec.podCIDR] : undefined);
  return {
    name: node.metadata.name ?? '',
    ips,
    localAddresses,
    ...(podCIDRs ? { podCIDRs } : {}),
    topologyLabels: zone !== undefined ? { [LABEL_TOPOLOGY_ZONE]: zone } : {},
  };
}

/**
 * Picks the objects kube-proxy watches — Services, EndpointSlices, Nodes — out of YAML/JSON
 * manifests or `kubectl get -o yaml|json` output (multi-document YAML, `kind: List` and
 * `*List` wrappers). Other kinds are counted and ignored. Errors name the file, the document
 * and the field.
 *
 * Also derives the ProxyNode of a node the way kube-proxy does: node IPs from
 * status.addresses (InternalIP first, then ExternalIP; one per family) and the zone label
 * that topology-aware routing reads.
 */
import { loadManifests, ManifestError } from '../../api/manifest.js';
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
}

/**
 * A Service, EndpointSlice or Node kube-proxy cannot use: "file:line: document N (Kind ns/name):
 * field: detail". (Unreadable manifest text is the API loader's ManifestError, rethrown as this.)
 */
export class ProxyInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProxyInputError';
  }
}

/**
 * Reads files and directories (*.yaml, *.yml, *.json inside, sorted; `-` for stdin) into proxy
 * objects, through the API's manifest loader (src/api/manifest.ts: YAML 1.1 like kubectl, Lists,
 * line numbers).
 */
export async function loadProxyObjects(paths: readonly string[]): Promise<ProxyObjects> {
  const out: ProxyObjects = { services: [], endpointSlices: [], nodes: [], ignored: {} };
  let loaded;
  try {
    loaded = await loadManifests([...paths]);
  } catch (e) {
    if (e instanceof ManifestError) throw new ProxyInputError(e.message);
    throw e;
  }
  addObjects(
    out,
    loaded.map((l) => ({
      where: `${l.source.file}:${l.source.line}: document ${l.source.document + 1}${l.source.item !== undefined ? ` items[${l.source.item}]` : ''}`,
      obj: l.object as unknown as Record<string, unknown>,
    })),
  );
  return out;
}

function addObjects(out: ProxyObjects, objs: { where: string; obj: Record<string, unknown> }[]): void {
  for (const { where: at, obj } of objs) {
    const kind = obj.kind;
    const meta = obj.metadata as Record<string, unknown> | undefined;
    const name = typeof meta?.name === 'string' ? meta.name : undefined;
    const ns = typeof meta?.namespace === 'string' ? meta.namespace : 'default';
    const where = `${at} (${String(kind)} ${kind === 'Node' ? name : `${ns}/${name}`})`;
    if (typeof kind !== 'string') throw new ProxyInputError(`${at}: kind: missing`);
    if (kind !== 'Service' && kind !== 'EndpointSlice' && kind !== 'Node') {
      out.ignored[kind] = (out.ignored[kind] ?? 0) + 1;
      continue;
    }
    if (!meta || typeof meta !== 'object') throw new ProxyInputError(`${where}: metadata: missing`);
    if (!name) throw new ProxyInputError(`${where}: metadata.name: missing`);
    if (kind === 'Service') {
      if (!obj.spec || typeof obj.spec !== 'object') throw new ProxyInputError(`${where}: spec: missing`);
      const spec = obj.spec as Record<string, unknown>;
      if (spec.ports !== undefined && !Array.isArray(spec.ports))
        throw new ProxyInputError(`${where}: spec.ports: expected a list`);
      meta.namespace = ns;
      out.services.push(obj as unknown as Service);
    } else if (kind === 'EndpointSlice') {
      const at = obj.addressType;
      if (at !== 'IPv4' && at !== 'IPv6' && at !== 'FQDN')
        throw new ProxyInputError(
          `${where}: addressType: expected IPv4, IPv6 or FQDN, got ${JSON.stringify(at)}`,
        );
      if (obj.endpoints !== undefined && obj.endpoints !== null && !Array.isArray(obj.endpoints))
        throw new ProxyInputError(`${where}: endpoints: expected a list`);
      if (obj.endpoints == null) obj.endpoints = [];
      (obj.endpoints as Record<string, unknown>[]).forEach((ep, i) => {
        if (!ep || !Array.isArray(ep.addresses))
          throw new ProxyInputError(`${where}: endpoints[${i}].addresses: expected a list`);
      });
      meta.namespace = ns;
      out.endpointSlices.push(obj as unknown as EndpointSlice);
    } else {
      out.nodes.push(obj as unknown as Node);
    }
  }
}

/** kube-proxy's view of a Node: name, node IP per family, topology labels. */
export function proxyNodeFromNode(node: Node): ProxyNode {
  const ips: Partial<Record<IPFamily, string>> = {};
  const addrs = node.status?.addresses ?? [];
  for (const type of ['InternalIP', 'ExternalIP'] as const) {
    for (const a of addrs) {
      if (a.type !== type) continue;
      const ip = canonicalIP(a.address);
      if (!ip) continue;
      const fam = ipFamilyOf(ip)!;
      if (!ips[fam]) ips[fam] = ip;
    }
  }
  const zone = node.metadata?.labels?.[LABEL_TOPOLOGY_ZONE];
  return {
    name: node.metadata.name ?? '',
    ips,
    topologyLabels: zone !== undefined ? { [LABEL_TOPOLOGY_ZONE]: zone } : {},
  };
}

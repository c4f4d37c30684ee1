/**
 * Loads the objects kube-proxy watches — Services, EndpointSlices, Nodes — from YAML/JSON
 * manifests or `kubectl get -o yaml|json` output (multi-document YAML, `kind: List` and
 * `*List` wrappers). Other kinds are counted and ignored. Errors name the file, the document
 * and the field.
 *
 * Also derives the ProxyNode of a node the way kube-proxy does: node IPs from
 * status.addresses (InternalIP first, then ExternalIP; one per family) and the zone label
 * that topology-aware routing reads.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { EndpointSlice, Node, Service } from '../../api/types.js';
import { canonicalIP, ipFamilyOf, type IPFamily } from './ip.js';
import { LABEL_TOPOLOGY_ZONE } from './topology.js';
import type { ProxyNode } from './types.js';

export interface ProxyObjects {
  services: Service[];
  endpointSlices: EndpointSlice[];
  nodes: Node[];
  /** objects of other kinds, by kind */
  ignored: Record<string, number>;
}

/** A manifest problem: "file: document N (Kind ns/name): field: detail". */
export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManifestError';
  }
}

/** Reads files and directories (*.yaml, *.yml, *.json inside, sorted) into proxy objects. */
export function loadProxyObjects(paths: readonly string[]): ProxyObjects {
  const out: ProxyObjects = { services: [], endpointSlices: [], nodes: [], ignored: {} };
  for (const p of expandPaths(paths)) {
    let text: string;
    try {
      text = readFileSync(p, 'utf8');
    } catch (e) {
      throw new ManifestError(`${p}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    addObjects(out, parseManifestText(text, p), p);
  }
  return out;
}

function expandPaths(paths: readonly string[]): string[] {
  const files: string[] = [];
  for (const p of paths) {
    let st;
    try { st = statSync(p); } catch { throw new ManifestError(`${p}: no such file or directory`); }
    if (st.isDirectory()) {
      for (const f of readdirSync(p).sort()) if (/\.(ya?ml|json)$/i.test(f)) files.push(join(p, f));
    } else {
      files.push(p);
    }
  }
  return files;
}

/** Parses one file's text into plain objects (JSON or multi-document YAML), Lists flattened. */
export function parseManifestText(text: string, file = '<input>'): { doc: number; obj: Record<string, unknown> }[] {
  const out: { doc: number; obj: Record<string, unknown> }[] = [];
  const trimmed = text.trimStart();
  let docs: unknown[];
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const v = JSON.parse(text);
      docs = Array.isArray(v) ? v : [v];
    } catch (e) {
      throw new ManifestError(`${file}: invalid JSON: ${(e as Error).message}`);
    }
  } else {
    docs = [];
    for (const d of parseAllDocuments(text)) {
      if (d.errors.length) {
        const err = d.errors[0];
        const line = err.linePos?.[0]?.line;
        throw new ManifestError(`${file}${line ? `:${line}` : ''}: invalid YAML: ${err.message.split('\n')[0]}`);
      }
      docs.push(d.toJS());
    }
  }
  docs.forEach((d, i) => {
    if (d === null || d === undefined) return;
    if (typeof d !== 'object' || Array.isArray(d)) {
      throw new ManifestError(`${file}: document ${i + 1}: expected an object, got ${Array.isArray(d) ? 'an array' : typeof d}`);
    }
    const o = d as Record<string, unknown>;
    if (typeof o.kind === 'string' && (o.kind === 'List' || o.kind.endsWith('List')) && Array.isArray(o.items)) {
      const itemKind = o.kind === 'List' ? undefined : o.kind.slice(0, -4);
      (o.items as unknown[]).forEach((it, j) => {
        if (!it || typeof it !== 'object') throw new ManifestError(`${file}: document ${i + 1}: items[${j}]: expected an object`);
        const item = it as Record<string, unknown>;
        if (item.kind === undefined && itemKind) item.kind = itemKind;
        out.push({ doc: i + 1, obj: item });
      });
    } else {
      out.push({ doc: i + 1, obj: o });
    }
  });
  return out;
}

function addObjects(out: ProxyObjects, objs: { doc: number; obj: Record<string, unknown> }[], file: string): void {
  for (const { doc, obj } of objs) {
    const kind = obj.kind;
    const meta = obj.metadata as Record<string, unknown> | undefined;
    const name = typeof meta?.name === 'string' ? meta.name : undefined;
    const ns = typeof meta?.namespace === 'string' ? meta.namespace : 'default';
    const where = `${file}: document ${doc} (${String(kind)} ${kind === 'Node' ? name : `${ns}/${name}`})`;
    if (typeof kind !== 'string') throw new ManifestError(`${file}: document ${doc}: kind: missing`);
    if (kind !== 'Service' && kind !== 'EndpointSlice' && kind !== 'Node') {
      out.ignored[kind] = (out.ignored[kind] ?? 0) + 1;
      continue;
    }
    if (!meta || typeof meta !== 'object') throw new ManifestError(`${where}: metadata: missing`);
    if (!name) throw new ManifestError(`${where}: metadata.name: missing`);
    if (kind === 'Service') {
      if (!obj.spec || typeof obj.spec !== 'object') throw new ManifestError(`${where}: spec: missing`);
      const spec = obj.spec as Record<string, unknown>;
      if (spec.ports !== undefined && !Array.isArray(spec.ports)) throw new ManifestError(`${where}: spec.ports: expected a list`);
      meta.namespace = ns;
      out.services.push(obj as unknown as Service);
    } else if (kind === 'EndpointSlice') {
      const at = obj.addressType;
      if (at !== 'IPv4' && at !== 'IPv6' && at !== 'FQDN') throw new ManifestError(`${where}: addressType: expected IPv4, IPv6 or FQDN, got ${JSON.stringify(at)}`);
      if (obj.endpoints !== undefined && obj.endpoints !== null && !Array.isArray(obj.endpoints)) throw new ManifestError(`${where}: endpoints: expected a list`);
      if (obj.endpoints == null) obj.endpoints = [];
      (obj.endpoints as Record<string, unknown>[]).forEach((ep, i) => {
        if (!ep || !Array.isArray(ep.addresses)) throw new ManifestError(`${where}: endpoints[${i}].addresses: expected a list`);
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
  return { name: node.metadata.name ?? '', ips, topologyLabels: zone !== undefined ? { [LABEL_TOPOLOGY_ZONE]: zone } : {} };
}

/**
 * Content negotiation: which representation the client's Accept header asks for. kube-apiserver
 * serves the same objects as plain JSON, as a meta.k8s.io Table (kubectl get), as
 * PartialObjectMetadata (metadata-only informers), and discovery as an aggregated
 * APIGroupDiscoveryList (upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/negotiation).
 * Protobuf is offered for the built-in kinds (the caller says whether the kind has a protobuf form),
 * never for Tables, metadata or discovery, which clients also accept as JSON.
 */
export type Representation =
  | { as: 'json' }
  /** application/vnd.kubernetes.protobuf (protobuf.ts), for kinds that have a protobuf form */
  | { as: 'protobuf' }
  | { as: 'Table'; version: string }
  | { as: 'PartialObjectMetadata'; version: string; list: boolean }
  | { as: 'APIGroupDiscoveryList'; version: 'v2' | 'v2beta1' };

import { PROTOBUF } from './protobuf.js';

interface MediaRange {
  type: string;
  params: Record<string, string>;
}

function parseAccept(header: string | undefined): MediaRange[] {
  if (!header) return [];
  return header.split(',').map((part) => {
    const [type, ...ps] = part.split(';').map((s) => s.trim());
    const params: Record<string, string> = {};
    for (const p of ps) {
      const i = p.indexOf('=');
      if (i > 0) params[p.slice(0, i).trim()] = p.slice(i + 1).trim();
    }
    return { type: (type ?? '').toLowerCase(), params };
  });
}

const isJson = (t: string) => t === 'application/json' || t === 'application/*' || t === '*/*';

/** The first representation in the client's order that the server can produce, or undefined (406). */
export function negotiate(
  accept: string | undefined,
  opts: { discovery?: boolean; protobuf?: boolean } = {},
): Representation | undefined {
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return { as: 'json' };
  for (const r of ranges) {
    if (r.type === PROTOBUF && opts.protobuf && !r.params.as) return { as: 'protobuf' };
    if (!isJson(r.type)) continue;
    const { as, g, v } = r.params;
    if (!as) return { as: 'json' };
    if (opts.discovery) {
      if (as === 'APIGroupDiscoveryList' && g === 'apidiscovery.k8s.io' && (v === 'v2' || v === 'v2beta1'))
        return { as, version: v };
      continue;
    }
    if (g !== 'meta.k8s.io' || (v !== 'v1' && v !== 'v1beta1')) continue;
    if (as === 'Table') return { as, version: v };
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList')
      return { as: 'PartialObjectMetadata', version: v, list: as.endsWith('List') };
  }
  return undefined;
}

/**
 * Every node's ruleset of one cluster (`kubesim proxy render --all-nodes`). Each node of a cluster
 * runs its own kube-proxy, and each renders a different ruleset: its local endpoints decide the
 * Local traffic policies (KUBE-SVL- / KUBE-EXT- chains, health-check ports), its addresses the
 * NodePort rules. A node's ruleset here is exactly the full sync of a proxier built for that node
 * alone (a fresh MetaProxier given every Service and EndpointSlice), as `proxy render --node` does.
 *
 * The nodes are independent, so they render in a piscina worker pool: the cluster is msgpackr-
 * encoded once into a SharedArrayBuffer that every worker decodes once (as the capacity pool
 * does, src/capacity/pool.ts), each task is one node, and a node's text comes back as one
 * transferred byte buffer. With `threads: 1` the nodes render on the calling thread, no pool.
 * Results are yielded in the order of the nodes given; at most `2 × threads` nodes are in flight,
 * so memory holds a few rulesets, not the cluster's.
 *
 * Workers run the compiled JavaScript (dist/src/proxy/all-nodes-worker.js, built by `npm run
 * build`), also when the caller runs from the TypeScript sources under vitest.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import { Packr } from 'msgpackr';
import { Piscina } from 'piscina';
import type { EndpointSlice, Service } from '../api/types.js';
import { LIMITS } from '../util/limits.js';
import { compiledModulePath } from '../util/paths.js';
import type { IPFamily, ProxyNode } from './model/index.js';
import {
  loadRenderer,
  MetaProxier,
  type ProxierOptions,
  type ProxyArtifact,
  type ProxyMode,
  type ProxyRenderer,
  type ProxyRenderStats,
} from './renderers/index.js';

/** The cluster every node renders: what `renderAllNodes` sends to each worker once. */
export interface AllNodesCluster {
  mode: ProxyMode;
  families: readonly IPFamily[];
  services: readonly Service[];
  slices: readonly EndpointSlice[];
  /** the proxier options of every node (plain data: no clock) */
  options: ProxierOptions & Record<string, unknown>;
}

/** One family's full sync of one node. */
export interface NodeFamilyRuleset {
  family: IPFamily;
  kind: 'full' | 'partial';
  /** the primary text's bytes (iptables-restore input, nft -f script, ipvsadm -R input) */
  bytes: Uint8Array;
  artifacts: ProxyArtifact[];
  stats: ProxyRenderStats;
}

/** One node's ruleset: one entry per family, in the order of `families`. */
export interface NodeRuleset {
  node: string;
  families: NodeFamilyRuleset[];
  /** the objects this node's proxier skipped as invalid (kube-proxy's own checks): key and why */
  invalid: { object: string; message: string }[];
}

export interface AllNodesOptions {
  /** worker threads; 1 renders on the calling thread; default: available cores */
  threads?: number;
  /** called after each node, in order */
  onNode?: (done: number, total: number, node: string) => void;
}

/** The full sync of one node, as a proxier built for that node alone renders it. */
export function renderNode(cluster: AllNodesCluster, renderer: ProxyRenderer, node: ProxyNode): NodeRuleset {
  // one full sync and nothing after it: the reference walk, without the per-port caches an
  // incremental proxier fills for the partial syncs that never come (the same text: the
  // incremental renderers are tested against it)
  const options = { ...cluster.options, incremental: false };
  const meta = new MetaProxier(node, cluster.families, (state) => renderer.createProxier(state, options));
  for (const x of cluster.services) meta.onServiceAdd(x);
  for (const x of cluster.slices) meta.onEndpointSliceAdd(x);
  const families = meta.sync().map(({ family, result }) => ({
    family,
    kind: result.kind,
    bytes: result.chunks ? concat(result.chunks()) : Buffer.from(result.text),
    artifacts: result.artifacts.map((a) => ({ name: a.name, text: a.text })),
    stats: { ...result.stats },
  }));
  return {
    node: node.name,
    families,
    invalid: meta.invalidObjects().map((e) => ({ object: e.object, message: e.message })),
  };
}

/** One fresh buffer (transferable: not a slice of Buffer's shared pool). */
function concat(chunks: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const c of chunks) n += c.length;
  const out = new Uint8Array(new ArrayBuffer(n));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** msgpackr settings shared with the worker: plain object graphs, no records or extensions */
export const CLUSTER_PACKR = { structuredClone: false, useRecords: false, moreTypes: false } as const;

/**
 * Renders every node's full sync, yielding the nodes' rulesets in the order given.
 * Node names must be distinct.
 */
export async function* renderAllNodes(
  cluster: AllNodesCluster,
  nodes: readonly ProxyNode[],
  opts: AllNodesOptions = {},
): AsyncGenerator<NodeRuleset> {
  const threads = opts.threads ?? os.availableParallelism();
  if (!Number.isInteger(threads) || threads < 1 || threads > LIMITS.threads)
    throw new TypeError(`renderAllNodes: threads must be an integer 1-${LIMITS.threads}, got ${threads}`);
  const seen = new Set<string>();
  for (const n of nodes) {
    if (seen.has(n.name)) throw new TypeError(`renderAllNodes: node "${n.name}" is given twice`);
    seen.add(n.name);
  }
  const renderer = await loadRenderer(cluster.mode);
  if (threads === 1 || nodes.length <= 1) {
    for (let i = 0; i < nodes.length; i++) {
      const r = renderNode(cluster, renderer, nodes[i]);
      opts.onNode?.(i + 1, nodes.length, r.node);
      yield r;
    }
    return;
  }
  const filename = compiledModulePath('proxy/all-nodes-worker');
  if (!existsSync(filename)) throw new Error(`worker ${filename} is missing; run \`npm run build\``);
  const packed = new Packr(CLUSTER_PACKR).pack(cluster);
  const shared = new SharedArrayBuffer(packed.length);
  new Uint8Array(shared).set(packed);
  const pool = new Piscina({
    filename,
    minThreads: Math.min(threads, nodes.length),
    maxThreads: Math.min(threads, nodes.length),
    workerData: { cluster: shared },
  });
  const window = 2 * threads;
  const pending: Promise<NodeRuleset>[] = [];
  const start = (i: number) => {
    if (i < nodes.length) pending[i] = pool.run(nodes[i]) as Promise<NodeRuleset>;
  };
  try {
    for (let i = 0; i < Math.min(window, nodes.length); i++) start(i);
    for (let i = 0; i < nodes.length; i++) {
      const r = await pending[i];
      delete pending[i];
      start(i + window);
      opts.onNode?.(i + 1, nodes.length, r.node);
      yield r;
    }
  } finally {
    // an early return or an error: the tasks still running are dropped with the pool
    for (const p of pending) p?.catch(() => {});
    await pool.destroy();
  }
}

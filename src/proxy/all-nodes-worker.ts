/**
 * Worker side of {@link renderAllNodes}: the cluster arrives once, msgpackr-encoded in shared
 * memory (workerData), and is decoded on the first task; each task is one node, answered with its
 * ruleset, whose text buffers are transferred rather than copied.
 */
import { workerData } from 'node:worker_threads';
import { Packr } from 'msgpackr';
import { Piscina } from 'piscina';
import { type AllNodesCluster, CLUSTER_PACKR, type NodeRuleset, renderNode } from './all-nodes.js';
import type { ProxyNode } from './model/index.js';
import { loadRenderer, type ProxyRenderer } from './renderers/index.js';

let ready: Promise<{ cluster: AllNodesCluster; renderer: ProxyRenderer }> | undefined;

function load() {
  ready ??= (async () => {
    // msgpackr decodes strings from a plain ArrayBuffer only: copy the shared bytes once
    const bytes = new Uint8Array((workerData as { cluster: SharedArrayBuffer }).cluster).slice();
    const cluster = new Packr(CLUSTER_PACKR).unpack(bytes) as AllNodesCluster;
    return { cluster, renderer: await loadRenderer(cluster.mode) };
  })();
  return ready;
}

export default async function run(node: ProxyNode): Promise<unknown> {
  const { cluster, renderer } = await load();
  const r: NodeRuleset = renderNode(cluster, renderer, node);
  // the text buffers move to the main thread instead of being copied (fresh buffers: renderNode)
  return Piscina.move({
    [Piscina.transferableSymbol]: r.families.map((f) => f.bytes.buffer),
    [Piscina.valueSymbol]: r,
  } as never);
}

#!/usr/bin/env node
// Capacity planning from the library: how many more `api` pods fit in a kubectl snapshot, what
// stops the next one, and what changes when zone eu-west-1b is lost.
// Run after `npm run build`:  node examples/library/capacity.mjs [snapshot.yaml] [pod.yaml]
import { fileURLToPath } from 'node:url';
import { loadClusterFiles } from '../../dist/src/scheduler/index.js';
import { loadManifests } from '../../dist/src/api/manifest.js';
import { planCapacity, minNodesToAdd } from '../../dist/src/capacity/planner.js';
import { parseWhatIf } from '../../dist/src/capacity/whatif.js';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const snapshot = process.argv[2] ?? here('../../test/fixtures/capacity/cluster.yaml');
const podFile = process.argv[3] ?? here('../../test/fixtures/capacity/pod-api.yaml');

const cluster = await loadClusterFiles([snapshot]);
const [{ object: pod }] = await loadManifests([podFile]);

const base = planCapacity(cluster, [pod], { kernel: 'wasm', seed: 1 });
const lost = planCapacity(cluster, [pod], {
  kernel: 'wasm',
  seed: 1,
  whatIfs: [parseWhatIf('lose-zone=eu-west-1b')],
});
const need = minNodesToAdd(cluster, pod, 40, 'b-2', { kernel: 'wasm' });

const s = base.shapes[0];
console.log(
  `${s.shape}: ${s.fits} more replicas fit (${Object.entries(s.perZone)
    .map(([z, n]) => `${z}=${n}`)
    .join(', ')})`,
);
console.log(`next one: ${s.stopReason}`);
console.log(
  `after losing eu-west-1b: ${lost.shapes[0].fits} fit; ${lost.displaced.unschedulable.length} displaced pod(s) find no room`,
);
console.log(`for 40 replicas add ${need.nodes} node(s) like b-2`);

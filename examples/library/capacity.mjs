#!/usr/bin/env node
// Capacity planning from the library: how many more `api` pods fit in a kubectl snapshot, what
// stops the next one, and what changes when zone eu-west-1b is lost.
//   node examples/library/capacity.mjs [snapshot.yaml] [pod-or-workload.yaml]
// It imports the package by name, so it runs the same from a checkout (after `npm run build`) and
// from an installed package (node node_modules/kubesim/examples/library/capacity.mjs).
import { fileURLToPath } from 'node:url';
import { api, capacity, scheduler } from 'kubesim';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const snapshot = process.argv[2] ?? here('../snapshot/cluster.yaml');
const podFile = process.argv[3] ?? here('../snapshot/pod-api.yaml');

const cluster = await scheduler.loadClusterFiles([snapshot]);
const [{ object }] = await api.loadManifests([podFile]);
// a Pod stays itself; a Deployment, StatefulSet, Job, … becomes the pod it creates
const pod = api.podFromWorkload(object);

const base = capacity.planCapacity(cluster, [pod], { kernel: 'wasm', seed: 1 });
const lost = capacity.planCapacity(cluster, [pod], {
  kernel: 'wasm',
  seed: 1,
  whatIfs: [capacity.parseWhatIf('lose-zone=eu-west-1b')],
});
const need = capacity.minNodesToAdd(cluster, pod, 40, 'b-2', { kernel: 'wasm' });

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

#!/usr/bin/env node
// Where one pod's time goes in `kubesim bench scheduler`'s adaptive WASM loop: the same steps
// (compile, one kernel call in 'total' mode, the assume copy + addPod with the query's accounting,
// removePod for the batch), each timed with performance.now(), plus the kernel's filter alone
// (skipScore) per node examined. Not a benchmark to compare modes — bench/scheduler.ts is — but the
// split behind docs/bench/scheduler.md "Where the time goes". Needs `npm run build` first.
//
//   node scripts/scheduler-time-split.mjs [nodes=5000] [batches=300] [seed=1]
import { generateCluster, generatePods } from '../dist/src/sim/cluster-gen.js';
import { NodeTable } from '../dist/src/scheduler/engine/table.js';
import { compilePod } from '../dist/src/scheduler/engine/podquery.js';
import { resolveScoring } from '../dist/src/scheduler/engine/scoring.js';
import { WasmKernel } from '../dist/src/scheduler/engine/wasm.js';
import { KernelOutput } from '../dist/src/scheduler/engine/output.js';
import { numFeasibleNodesToFind } from '../dist/src/scheduler/engine/types.js';

const [nodes = 5000, batches = 300, seed = 1] = process.argv.slice(2).map(Number);
const BATCH = 200; // as bench/scheduler.ts
const cluster = generateCluster({ seed, nodes });
const table = new NodeTable({ initialCapacity: nodes });
for (const n of cluster.nodes) table.addNode(n);
for (const p of cluster.pods) table.addPod(p);
const kernel = new WasmKernel();
const out = new KernelOutput(table);
const scoring = resolveScoring();
const toFind = numFeasibleNodesToFind(table.size);

function split(pending) {
  const t = { compile: 0, kernel: 0, assume: 0, forget: 0, pods: 0 };
  let next = 0,
    start = 0;
  const batch = () => {
    const assumed = [];
    for (let b = 0; b < BATCH; b++) {
      const pod = pending[next];
      next = (next + 1) % pending.length;
      const t0 = performance.now();
      const q = compilePod(table, pod, scoring);
      const t1 = performance.now();
      const n = kernel.filterAndScore(table, q, out, { start, numNodesToFind: toFind, output: 'total' });
      const t2 = performance.now();
      start = (start + n) % table.size;
      if (out.feasibleCount === 0) continue;
      const bound = {
        ...pod,
        metadata: { ...pod.metadata, name: `${pod.metadata.name}-b${b}` },
        spec: { ...pod.spec, nodeName: table.nodeName(out.bestSlot) },
      };
      table.addPod(bound, q.accounting);
      const t3 = performance.now();
      t.compile += t1 - t0;
      t.kernel += t2 - t1;
      t.assume += t3 - t2;
      t.pods++;
      assumed.push(bound);
    }
    const t4 = performance.now();
    for (const p of assumed) table.removePod(p);
    t.forget += performance.now() - t4;
  };
  for (let i = 0; i < 50; i++) batch(); // warm-up
  Object.assign(t, { compile: 0, kernel: 0, assume: 0, forget: 0, pods: 0 });
  const w0 = performance.now();
  for (let i = 0; i < batches; i++) batch();
  const wall = performance.now() - w0;
  const us = (ms) => ((ms / (batches * BATCH)) * 1000).toFixed(2);
  return {
    podsPerSec: Math.round(((batches * BATCH) / wall) * 1000),
    perPodUs: us(wall),
    compileUs: us(t.compile),
    kernelUs: us(t.kernel),
    assumeUs: us(t.assume),
    forgetUs: us(t.forget),
  };
}

/** the kernel's filter alone (skipScore), ns per node examined, best of 7 rounds */
function filterNsPerNode(pods) {
  let best = Infinity;
  for (let round = 0; round < 7; round++) {
    let ms = 0,
      examined = 0;
    for (const p of pods) {
      const q = compilePod(table, p, scoring);
      const t0 = performance.now();
      for (let r = 0; r < 40; r++)
        examined += kernel.filterAndScore(table, q, out, {
          skipScore: true,
          start: r * 123,
          numNodesToFind: toFind,
        });
      ms += performance.now() - t0;
    }
    best = Math.min(best, (ms * 1e6) / examined);
  }
  return best.toFixed(2);
}

const mixed = generatePods({ seed: seed + 1, count: 2000, cluster });
const uniform = generatePods({ seed: seed + 2, count: 2000, cluster, constraints: false, prefix: 'uniform' });
console.log(`${nodes} nodes, numFeasibleNodesToFind ${toFind}, ${batches} batches of ${BATCH} pods`);
for (const [name, pods] of [
  ['uniform', uniform],
  ['mixed', mixed],
]) {
  console.log(
    name.padEnd(8),
    JSON.stringify({ ...split(pods), filterNsPerNode: filterNsPerNode(pods.slice(0, 50)) }),
  );
}
